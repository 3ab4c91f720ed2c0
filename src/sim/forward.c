// SPDX-License-Identifier: Apache-2.0
// Forward dynamics (MuJoCo's mj_forward): kinematics, qM, bias, forces, qacc_smooth, the
// constraint solve for qacc.
#include "sim/forward.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "contact/penalty.h"
#include "dynamics/applied.h"
#include "sim/constrained.h"

// x - x is 0 for a finite x and NaN for an infinite or NaN one; one branch for the whole array
int gdn_all_finite(const double* x, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += x[i] - x[i];
    }
    return sum == 0;
}

gdnStatus gdn_smooth_forces(const gdnModel* m, gdnData* d, double* tau) {
    gdn_passive(m, d);
    gdn_actuation(m, d);
    for (int i = 0; i < m->nv; i++) {
        tau[i] = d->qfrc_passive[i] + d->qfrc_actuator[i];
    }
    gdn_applied_forces(m, d, tau);
    gdnStatus status = gdn_penalty_forces(m, d, tau);
    if (status != GDN_OK) {
        // a caller that ignores the status still cannot integrate a step without the contact
        for (int i = 0; i < m->nv; i++) {
            tau[i] = NAN;
        }
    }
    return status;
}

// qfrc_smooth = tau - qfrc_bias, qacc_smooth = M^-1 qfrc_smooth (by ABA, with the bias inside
// it), energy when GDN_ENBL_ENERGY is set; contacts and rows (unless GDN_DSBL_CONSTRAINT) and,
// with rows, qacc from MuJoCo's constraint solve (sim/constrained.h), else qacc = qacc_smooth
gdnStatus gdn_forward(const gdnModel* m, gdnData* d) {
    if (!m || !d) {
        return GDN_ERR_ARG;
    }
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* tau = gdn_arena_doubles(d, (size_t)nv);
    if (!tau) {
        return GDN_ERR_MEMORY;
    }
    gdn_kinematics(m, d);
    gdnStatus status = gdn_constraint_rows_stage(m, d);
    if (status == GDN_OK) {
        status = gdn_smooth_forces(m, d, tau);
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    if (d->nefc > 0) {
        // qM, qfrc_bias, qfrc_smooth, qacc_smooth and the solve
        status = gdn_constrained_acceleration(m, d, tau);
        if (status != GDN_OK) {
            gdn_arena_reset(d, mark);
            return status;
        }
    } else {
        gdn_crb(m, d);
        gdn_rne(m, d, 0, d->qfrc_bias);
        for (int i = 0; i < nv; i++) {
            d->qfrc_smooth[i] = tau[i] - d->qfrc_bias[i];
        }
        gdn_aba(m, d, tau, NULL, d->qacc_smooth);
        memcpy(d->qacc, d->qacc_smooth, sizeof(double) * (size_t)nv);
        gdn_unconstrained_report(m, d);
    }
    if (m->opt.enableflags & GDN_ENBL_ENERGY) {
        gdn_energy(m, d);
    }
    gdn_arena_reset(d, mark);
    if (!gdn_all_finite(d->qacc, nv)) {
        d->warning[GDN_WARN_BADQACC]++;
        return GDN_ERR_NONFINITE;
    }
    return GDN_OK;
}
