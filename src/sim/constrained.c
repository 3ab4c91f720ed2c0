// SPDX-License-Identifier: Apache-2.0
// The constraint stages of the pipeline: contacts and rows, then the smooth acceleration and
// MuJoCo's constraint solve (mj_fwdPosition's collision/rows, mj_fwdVelocity's reference
// acceleration, mj_fwdAcceleration, mj_fwdConstraint).
#include "sim/constrained.h"

#include <string.h>

#include "constraint/constraint.h"
#include "constraint/solver.h"

gdnStatus gdn_constraint_rows_stage(const gdnModel* m, gdnData* d) {
    if (m->opt.disableflags & GDN_DSBL_CONSTRAINT) {
        d->ncon = d->ncon_overflow = 0;
        d->nefc = d->ne = d->nf = d->nefc_overflow = 0;
        return GDN_OK;
    }
    gdnStatus status = gdn_collision(m, d);
    if (status == GDN_OK) {
        status = gdn_make_constraint(m, d);
    }
    if (status != GDN_OK) {
        d->nefc = d->ne = d->nf = 0;
    }
    return status;
}

// qM, reference acceleration, qfrc_bias, qfrc_smooth, qacc_smooth, then the solve
gdnStatus gdn_constrained_acceleration(const gdnModel* m, gdnData* d, const double* tau) {
    const int nv = m->nv;
    gdn_crb(m, d);
    gdn_reference_constraint(m, d);
    gdn_rne(m, d, 0, d->qfrc_bias);
    for (int i = 0; i < nv; i++) {
        d->qfrc_smooth[i] = tau[i] - d->qfrc_bias[i];
    }
    // ABA with the bias inside: M^-1 (tau - C) = M^-1 qfrc_smooth
    gdn_aba(m, d, tau, NULL, d->qacc_smooth);
    return gdn_solve_constraint(m, d);
}

void gdn_unconstrained_report(const gdnModel* m, gdnData* d) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    memset(d->qfrc_constraint, 0, bytes);
    memcpy(d->qacc_warmstart, d->qacc, bytes);
    d->solver_iter = 0;
    d->solver_residual = 0;
    d->solver_converged = 1;
}
