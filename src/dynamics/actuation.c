// SPDX-License-Identifier: Apache-2.0
// Actuation: gain/bias force laws and qfrc_actuator = moment' force over the transmissions
// (dynamics/transmission.h) (MuJoCo 2.2.2 semantics).
#include <string.h>

#include <gradyn/gradyn.h>

#include "dynamics/activation.h"
#include "dynamics/muscle.h"
#include "dynamics/passive.h"
#include "dynamics/transmission.h"
#include "math/vec.h"
#include "model/validate.h"

#define GDN_MAXVAL 1e10

// clamp x to [lo, hi] (NaN passes through)
static double clip(double x, double lo, double hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

// non-finite or beyond 1e10 in magnitude
static int is_bad(double x) {
    return x != x || x > GDN_MAXVAL || x < -GDN_MAXVAL;
}

// force of actuator i for a given input (its clamped control, or act when it has a state):
//   gain  = prm[0] (fixed), prm[0] + prm[1] length + prm[2] velocity (affine), or the
//           muscle's active force-length-velocity curve (dynamics/muscle.h)
//   bias  = 0 (none), prm[0] + prm[1] length + prm[2] velocity (affine), or the muscle's
//           passive force
//   force = clamp(gain input + bias, forcerange) when forcelimited
double gdn_actuator_force_law(const gdnModel* m, int i, double input, double length,
                              double velocity) {
    const double* gprm = m->actuator_gainprm + GDN_NGAIN * i;
    const double* bprm = m->actuator_biasprm + GDN_NBIAS * i;
    const double* lrange = m->actuator_lengthrange + 2 * i;
    double gain = gprm[0];
    if (m->actuator_gaintype[i] == GDN_GAIN_AFFINE) {
        gain = gprm[0] + gprm[1] * length + gprm[2] * velocity;
    } else if (m->actuator_gaintype[i] == GDN_GAIN_MUSCLE) {
        gain = gdn_muscle_gain(length, velocity, lrange, m->actuator_acc0[i], gprm, NULL, NULL);
    }
    double bias = 0;
    if (m->actuator_biastype[i] == GDN_BIAS_AFFINE) {
        bias = bprm[0] + bprm[1] * length + bprm[2] * velocity;
    } else if (m->actuator_biastype[i] == GDN_BIAS_MUSCLE) {
        bias = gdn_muscle_bias(length, lrange, m->actuator_acc0[i], bprm, NULL);
    }
    double force = gain * input;
    force += bias;
    if (m->actuator_forcelimited[i]) {
        force = clip(force, m->actuator_forcerange[2 * i], m->actuator_forcerange[2 * i + 1]);
    }
    return force;
}

// the force law's input: act[i - (nu - na)] for a stateful actuator, else the control c
static inline double force_input(const gdnModel* m, const gdnData* d, int i, double c) {
    return gdn_actuator_stateful(m, i) ? d->act[i - (m->nu - m->na)] : c;
}

// qfrc_actuator += moment_i' force (the transmission's moment row; passive.h)
void gdn_actuator_moment_add(const gdnModel* m, const gdnData* d, double* qfrc_actuator, int i,
                             double force) {
    gdn_transmission_apply(m, d, i, force, qfrc_actuator);
}

// per actuator: ctrl clamped to ctrlrange (when limited and clamping is on), force as in
// actuator_force, qfrc_actuator = moment' force accumulated actuator by actuator.
// Lengths and velocities are filled even when actuation is disabled (MuJoCo computes them in
// the position and velocity stages); a non-finite or huge (clamped) control zeroes every control
// and counts GDN_WARN_BADCTRL, as MuJoCo does. One pass does everything with the controls as
// given; in the rare bad-control case the forces are computed again with zeros.
void gdn_actuation(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) == GDN_OK) {
        gdn_actuator_forces(m, d);
    }
}

void gdn_actuator_forces(const gdnModel* m, gdnData* d) {
    const int nu = m->nu;
    double* restrict qfrc = d->qfrc_actuator;
    double* restrict force = d->actuator_force;
    double* restrict length = d->actuator_length;
    double* restrict velocity = d->actuator_velocity;
    const double* restrict ctrl = d->ctrl;
    memset(qfrc, 0, sizeof(double) * (size_t)m->nv);
    memset(force, 0, sizeof(double) * (size_t)nu);
    gdn_transmission(m, d);
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        // MuJoCo returns before its act_dot loop, leaving act_dot as it was (0 from the reset
        // unless the flag changed mid-run): 0, so act is constant
        memset(d->act_dot, 0, sizeof(double) * (size_t)m->na);
        return;
    }

    const int clamp = !(m->opt.disableflags & GDN_DSBL_CLAMPCTRL);
    int bad_ctrl = 0;
    for (int i = 0; i < nu; i++) {
        // a hinge or slide transmission (the common case) inline, the others out of line
        int jnt = m->actuator_trnid[2 * i];
        int scalar = m->actuator_trntype[i] == GDN_TRN_JOINT &&
                     (m->jnt_type[jnt] == GDN_JNT_HINGE || m->jnt_type[jnt] == GDN_JNT_SLIDE);
        double gear = m->actuator_gear[6 * i];
        int dof = scalar ? m->jnt_dofadr[jnt] : -1;
        const double len = length[i], vel = velocity[i];
        double c = ctrl[i];
        if (clamp && m->actuator_ctrllimited[i]) {
            c = clip(c, m->actuator_ctrlrange[2 * i], m->actuator_ctrlrange[2 * i + 1]);
        }
        bad_ctrl |= is_bad(c);
        double f = gdn_actuator_force_law(m, i, force_input(m, d, i, c), len, vel);
        force[i] = f;
        if (scalar) {
            qfrc[dof] += gear * f;
        } else {
            gdn_actuator_moment_add(m, d, qfrc, i, f);
        }
    }
    // act_dot of the stateful actuators at the controls the forces used (all zero after a
    // bad one, as MuJoCo zeroes them)
    for (int i = nu - m->na; i < nu; i++) {
        double c = 0;
        if (!bad_ctrl) {
            c = ctrl[i];
            if (clamp && m->actuator_ctrllimited[i]) {
                c = clip(c, m->actuator_ctrlrange[2 * i], m->actuator_ctrlrange[2 * i + 1]);
            }
        }
        const int j = i - (nu - m->na);
        d->act_dot[j] = gdn_act_dot(m, i, c, d->act[j], NULL, NULL);
    }
    if (bad_ctrl) {
        d->warning[GDN_WARN_BADCTRL]++;
        memset(qfrc, 0, sizeof(double) * (size_t)m->nv);
        for (int i = 0; i < nu; i++) {
            force[i] = gdn_actuator_force_law(m, i, force_input(m, d, i, 0), length[i],
                                              velocity[i]);
            gdn_actuator_moment_add(m, d, qfrc, i, force[i]);
        }
    }
}
