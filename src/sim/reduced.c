// SPDX-License-Identifier: Apache-2.0
// The reduced-coordinate formulation of the pipeline: contacts and rows, then the smooth
// acceleration and MuJoCo's constraint solve (mj_fwdPosition's collision/rows, mj_fwdVelocity's
// reference acceleration, mj_fwdAcceleration, mj_fwdConstraint, mj_Euler's damped update;
// the implicit integrator's update follows in sim/pipeline.c).
#include "sim/reduced.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "collision/collision.h"
#include "constraint/constraint.h"
#include "dynamics/mass_factor.h"
#include "constraint/solver.h"
#include "dynamics/com.h"
#include "dynamics/crb.h"
#include "dynamics/rne.h"
#include "sim/integrator.h"
#include "sim/pipeline.h"

gdnStatus gdn_constraint_rows_stage(const gdnModel* m, gdnData* d) {
    if (m->opt.disableflags & GDN_DSBL_CONSTRAINT) {
        d->ncon = d->ncon_overflow = 0;
        d->nefc = d->ne = d->nf = d->nefc_overflow = 0;
        return GDN_OK;
    }
    gdnStatus status = gdn_collision_stage(m, d);
    if (status == GDN_OK) {
        status = gdn_make_constraint(m, d);
    }
    if (status != GDN_OK) {
        d->nefc = d->ne = d->nf = 0;
    }
    return status;
}

// x (nv) = (M + diag(diag))^-1 rhs with the tree factor (diag may be NULL)
static gdnStatus solve_mass(const gdnModel* m, gdnData* d, const int* simple,
                            const double* diag, const double* rhs, double* x) {
    size_t mark = gdn_arena_mark(d);
    gdnMassFactor f;
    gdnStatus status = gdn_mass_factor_alloc(m, d, simple, &f);
    if (status == GDN_OK) {
        gdn_mass_factor(m, d->qM, diag, &f);
        memcpy(x, rhs, sizeof(double) * (size_t)m->nv);
        gdn_mass_solve(m, &f, x);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// qM, reference acceleration, qfrc_bias, qfrc_smooth, qacc_smooth, then the solve
gdnStatus gdn_constrained_acceleration(const gdnModel* m, gdnData* d, const double* tau) {
    const int nv = m->nv;
    // d->cdof and d->cinert once, read by CRB and RNE
    gdn_com_pos(m, d);
    gdn_crb_com(m, d);
    gdn_reference_constraint(m, d);
    gdn_rne_com(m, d, 0, d->qfrc_bias);
    for (int i = 0; i < nv; i++) {
        d->qfrc_smooth[i] = tau[i] - d->qfrc_bias[i];
    }
    // qacc_smooth = M^-1 qfrc_smooth with MuJoCo's tree LDL of qM (mj_factorM, mj_solveM), not
    // ABA: the solver's gradient M qacc - qfrc_smooth at qacc_smooth then has MuJoCo's bits
    // (often exactly 0, which ends the solve with 0 iterations when qacc_smooth is the answer).
    // The same factor serves the solve (CG's preconditioner, PGS's warm start and rows): M is
    // factored once per step; Newton does not use it, so its arena is released first.
    size_t mark = gdn_arena_mark(d);
    int* simple = gdn_arena_ints(d, (size_t)nv + (size_t)m->nbody);
    if (!simple) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_simple_dofs(m, simple + nv, simple);
    const size_t factor_mark = gdn_arena_mark(d);
    gdnMassFactor factor;
    gdnStatus status = gdn_mass_factor_alloc(m, d, simple, &factor);
    if (status == GDN_OK) {
        gdn_mass_factor(m, d->qM, NULL, &factor);
        memcpy(d->qacc_smooth, d->qfrc_smooth, sizeof(double) * (size_t)nv);
        gdn_mass_solve(m, &factor, d->qacc_smooth);
        const gdnMassFactor* shared = &factor;
        if (m->opt.solver != GDN_SOL_CG && m->opt.solver != GDN_SOL_PGS) {
            gdn_arena_reset(d, factor_mark);
            shared = NULL;
        }
        status = gdn_solve_constraint_rows(m, d, simple, shared);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the state of the solver when no row is active, as MuJoCo's mj_fwdConstraint leaves it:
// qfrc_constraint = 0, qacc_warmstart = qacc, solver_iter 0, converged
static void unconstrained_report(const gdnModel* m, gdnData* d) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    memset(d->qfrc_constraint, 0, bytes);
    memcpy(d->qacc_warmstart, d->qacc, bytes);
    d->solver_iter = 0;
    d->solver_residual = 0;
    d->solver_converged = 1;
    d->solver_H_valid = 0;
}

// The acceleration stage (pipeline.h), with D = diag(dof_damping), h = gdn_damping_h (the
// timestep for Euler, 0 for RK4: its stages integrate mj_forward's acceleration):
//   no rows, GDN_PIPE_FORWARD: qM, qfrc_bias, qfrc_smooth = tau - qfrc_bias,
//       qacc = qacc_smooth = M^-1 qfrc_smooth by ABA (with the bias inside it)
//   no rows, step modes: qacc = qacc_smooth = (M + h D)^-1 (tau - C) in one ABA (the damping
//       term is its `extra` diagonal, so it equals mj_Euler's), without qM or a separate RNE
//   rows: qM, qfrc_bias, qfrc_smooth, qacc_smooth and the solve (gdn_constrained_acceleration);
//       in the step modes with damping, then qacc = (M + h D)^-1 (qfrc_smooth +
//       qfrc_constraint) by the tree LDL' of M + h D in mj_Euler's order
static gdnStatus reduced_acceleration(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                                      const double* tau, const gdnAbaFactor* factor,
                                      double* work) {
    const int nv = m->nv;
    const double hd = gdn_damping_h(m); // h for Euler, 0 for RK4's stages and implicit
    const size_t bytes = sizeof(double) * (size_t)nv;
    // mj_forward's acceleration: the forward mode, and every mode under the implicit
    // integrator (the pipeline then solves with M - h qDeriv: sim/implicit.c)
    const int plain = mode == GDN_PIPE_FORWARD || m->opt.integrator == GDN_INT_IMPLICIT;
    if (d->nefc == 0 && plain) {
        gdn_com_pos(m, d);
        gdn_crb_com(m, d);
        gdn_rne_com(m, d, 0, d->qfrc_bias);
        for (int i = 0; i < nv; i++) {
            d->qfrc_smooth[i] = tau[i] - d->qfrc_bias[i];
        }
        gdn_aba(m, d, tau, NULL, d->qacc_smooth);
        memcpy(d->qacc, d->qacc_smooth, bytes);
        unconstrained_report(m, d);
        return GDN_OK;
    }
    if (d->nefc > 0) {
        gdnStatus status = gdn_constrained_acceleration(m, d, tau);
        if (status != GDN_OK || plain) {
            return status;
        }
    }
    // the step modes: extra = h D, qacc_int (scratch: committed below)
    double* extra = work;
    double* rhs = extra + nv;
    double* qacc = rhs + nv;
    int damped = 0;
    for (int i = 0; i < nv; i++) {
        extra[i] = hd * m->dof_damping[i];
        damped |= hd > 0 && m->dof_damping[i] > 0;
    }
    gdnStatus status = GDN_OK;
    if (d->nefc == 0) {
        gdn_aba_factored(m, d, tau, damped ? extra : NULL, d->qacc, factor);
        memcpy(d->qacc_smooth, d->qacc, bytes);
        unconstrained_report(m, d);
        // not computed by this path (the diagonal of qM is enough to poison any use of it; its
        // other entries keep the tree zeros; ABA folds the velocity products without cdof_dot)
        gdn_poison(d->qM, nv, nv + 1);
        gdn_poison(d->qfrc_bias, nv, 1);
        gdn_poison(d->qfrc_smooth, nv, 1);
        gdn_poison(d->cdof_dot, 6 * nv, 1);
    } else if (damped) {
        for (int i = 0; i < nv; i++) {
            rhs[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
        }
        status = solve_mass(m, d, NULL, extra, rhs, qacc);
        if (status == GDN_OK && gdn_all_finite(qacc, nv)) {
            memcpy(d->qacc, qacc, bytes);
        } else if (status == GDN_OK) {
            d->warning[GDN_WARN_BADQACC]++;
            status = GDN_ERR_NONFINITE;
        }
    }
    return status;
}

const gdnFormulation gdn_formulation_reduced = {
    .name = "reduced",
    .position = gdn_constraint_rows_stage,
    .acceleration = reduced_acceleration,
};
