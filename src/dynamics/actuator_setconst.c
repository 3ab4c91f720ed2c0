// SPDX-License-Identifier: Apache-2.0
// The actuators' compile-time constants: actuator_acc0 and the length ranges (MuJoCo 2.2.2).
#include "dynamics/actuator_setconst.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/mass_factor.h"
#include "dynamics/passive.h"
#include "dynamics/transmission.h"

#define GDN_MINVAL 1e-15 // MuJoCo's mjMINVAL

void gdn_length_range_opt_default(gdnLengthRangeOpt* opt) {
    opt->mode = 1;
    opt->useexisting = 1;
    opt->uselimit = 0;
    opt->accel = 20;
    opt->maxforce = 0;
    opt->timeconst = 1;
    opt->timestep = 0.01;
    opt->inttotal = 10;
    opt->inteval = 2;
    opt->tolrange = 0.05;
}

static double norm(const double* x, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        s += x[k] * x[k];
    }
    return sqrt(s);
}

gdnStatus gdn_actuator_acc0(gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    if (nv == 0) {
        memset(m->actuator_acc0, 0, sizeof(double) * (size_t)m->nu);
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    gdnMassFactor f;
    double* x = gdn_arena_doubles(d, (size_t)nv);
    if (!x || gdn_mass_factor_alloc(m, d, NULL, &f) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_mass_factor(m, d->qM, NULL, &f);
    gdn_transmission(m, d); // the moment rows at this configuration
    for (int i = 0; i < m->nu; i++) {
        // acc0 = |M^-1 moment_i|
        memset(x, 0, sizeof(double) * (size_t)nv);
        gdn_actuator_moment_add(m, d, x, i, 1);
        gdn_mass_solve(m, &f, x);
        m->actuator_acc0[i] = norm(x, nv);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// MuJoCo's selection: the mode's actuator kinds, without a given range (useexisting)
static int wants_range(const gdnModel* m, const gdnLengthRangeOpt* opt, int i) {
    const int muscle = m->actuator_gaintype[i] == GDN_GAIN_MUSCLE ||
                       m->actuator_biastype[i] == GDN_BIAS_MUSCLE;
    if (opt->mode == 0 || (opt->mode < 3 && !muscle)) {
        return 0; // gradyn has no user gain or bias: muscleuser selects the muscles
    }
    const double* r = m->actuator_lengthrange + 2 * i;
    return !(opt->useexisting && r[0] < r[1]);
}

// one step of the range simulation: v *= exp(-h / max(0.01, timeconst)), then at the new
// configuration qfrc_applied = +-accel moment / |M^-1 moment| (capped at maxforce), then the
// step; the actuator's length before the step in *len
static gdnStatus push_step(const gdnModel* m, gdnData* d, const gdnLengthRangeOpt* opt, int i,
                           int side, double* x, double* len) {
    const int nv = m->nv;
    const double decay = exp(-m->opt.timestep / fmax(0.01, opt->timeconst));
    for (int k = 0; k < nv; k++) {
        d->qvel[k] *= decay;
    }
    // MuJoCo's mj_step1 part: kinematics, M, the transmission (actuation is disabled)
    gdn_kinematics(m, d);
    gdn_crb(m, d);
    gdn_actuation(m, d);
    *len = d->actuator_length[i];
    size_t mark = gdn_arena_mark(d);
    gdnMassFactor f;
    if (gdn_mass_factor_alloc(m, d, NULL, &f) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_mass_factor(m, d->qM, NULL, &f);
    memset(x, 0, sizeof(double) * (size_t)nv);
    gdn_actuator_moment_add(m, d, x, i, 1);
    memcpy(d->qfrc_applied, x, sizeof(double) * (size_t)nv);
    gdn_mass_solve(m, &f, d->qfrc_applied);
    gdn_arena_reset(d, mark);
    double nrm = norm(d->qfrc_applied, nv);
    const double scale = (2 * side - 1) * opt->accel / fmax(GDN_MINVAL, nrm);
    for (int k = 0; k < nv; k++) {
        d->qfrc_applied[k] = x[k] * scale;
    }
    nrm = norm(d->qfrc_applied, nv);
    if (opt->maxforce > 0 && nrm > opt->maxforce) {
        const double cap = opt->maxforce / fmax(GDN_MINVAL, nrm);
        for (int k = 0; k < nv; k++) {
            d->qfrc_applied[k] *= cap;
        }
    }
    return gdn_step(m, d);
}

// actuator i's range by simulation (both sides); GDN_ERR_MODEL with the message in err
static gdnStatus simulate_range(gdnModel* m, gdnData* d, const gdnLengthRangeOpt* opt, int i,
                                double* x, char* err, size_t err_size) {
    double lmin[2] = {0, 0}, lmax[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        gdn_data_reset(m, d);
        int updated = 0;
        while (d->time < opt->inttotal) {
            double len;
            gdnStatus st = push_step(m, d, opt, i, side, x, &len);
            if (st == GDN_ERR_MEMORY) {
                return st;
            }
            if (st != GDN_OK) {
                snprintf(err, err_size, "Unstable lengthrange simulation in actuator %d", i);
                return GDN_ERR_MODEL;
            }
            // the length at the configuration the step started from (MuJoCo's evalAct)
            if (d->time > opt->inttotal - opt->inteval) {
                if (len < lmin[side] || !updated) {
                    lmin[side] = len;
                }
                if (len > lmax[side] || !updated) {
                    lmax[side] = len;
                }
                updated = 1;
            }
        }
        m->actuator_lengthrange[2 * i + side] = side == 0 ? lmin[side] : lmax[side];
    }
    const double dif = m->actuator_lengthrange[2 * i + 1] - m->actuator_lengthrange[2 * i];
    if (dif <= 0) {
        snprintf(err, err_size, "Invalid lengthrange (%g, %g) in actuator %d",
                 m->actuator_lengthrange[2 * i], m->actuator_lengthrange[2 * i + 1], i);
        return GDN_ERR_MODEL;
    }
    for (int side = 0; side < 2; side++) {
        if (lmax[side] - lmin[side] > opt->tolrange * dif) {
            snprintf(err, err_size,
                     "Lengthrange computation did not converge in actuator %d: eval (%g, %g) "
                     "range (%g, %g)",
                     i, lmin[side], lmax[side], m->actuator_lengthrange[2 * i],
                     m->actuator_lengthrange[2 * i + 1]);
            return GDN_ERR_MODEL;
        }
    }
    return GDN_OK;
}

gdnStatus gdn_actuator_length_range(gdnModel* m, const gdnLengthRangeOpt* opt, char* err,
                                    size_t err_size) {
    int any = 0;
    for (int i = 0; i < m->nu; i++) {
        any |= wants_range(m, opt, i);
    }
    if (!any) {
        return GDN_OK;
    }
    // MuJoCo's LengthRange options: these disabled, the range's own timestep, and Euler (its
    // evalAct steps with mj_step1 / mj_step2, which integrate RK4 models with Euler)
    const gdnOption saved = m->opt;
    m->opt.disableflags = GDN_DSBL_FRICTIONLOSS | GDN_DSBL_CONTACT | GDN_DSBL_PASSIVE |
                          GDN_DSBL_GRAVITY | GDN_DSBL_ACTUATION;
    m->opt.integrator = GDN_INT_EULER;
    if (opt->timestep > 0) {
        m->opt.timestep = opt->timestep;
    }
    gdnData* d = NULL;
    gdnStatus st = gdn_data_create(m, &d);
    double* x = malloc(sizeof(double) * ((size_t)m->nv + 1)); // compile time: not in a step
    if (st == GDN_OK && !x) {
        st = GDN_ERR_MEMORY;
    }
    for (int i = 0; st == GDN_OK && i < m->nu; i++) {
        if (!wants_range(m, opt, i)) {
            continue;
        }
        // the joint's or tendon's own range when asked for and limited
        const int id = m->actuator_trnid[2 * i];
        const int joint = m->actuator_trntype[i] == GDN_TRN_JOINT ||
                          m->actuator_trntype[i] == GDN_TRN_JOINTINPARENT;
        if (opt->uselimit && joint && m->jnt_limited[id]) {
            memcpy(m->actuator_lengthrange + 2 * i, m->jnt_range + 2 * id, 2 * sizeof(double));
            continue;
        }
        if (opt->uselimit && m->actuator_trntype[i] == GDN_TRN_TENDON &&
            m->tendon_limited[id]) {
            memcpy(m->actuator_lengthrange + 2 * i, m->tendon_range + 2 * id,
                   2 * sizeof(double));
            continue;
        }
        st = simulate_range(m, d, opt, i, x, err, err_size);
    }
    free(x);
    gdn_data_free(d);
    m->opt = saved;
    return st;
}
