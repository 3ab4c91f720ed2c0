// SPDX-License-Identifier: Apache-2.0
// One simulation step: MuJoCo 2.2.2's mj_forward (with the constraint solve) and mj_Euler.
#include "sim/step.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/aba.h"
#include "sim/constrained.h"
#include "sim/forward.h"

// Euler as MuJoCo 2.2.2 (mj_Euler): with h = timestep, D = diag(dof_damping),
//   qacc      = the constrained acceleration of mj_forward (qacc_smooth without rows)
//   qacc_int  = (M + h D)^-1 (qfrc_smooth + qfrc_constraint)  when any dof has damping,
//               qacc                                          otherwise
//   v' = v + h qacc_int,  q' = q (+) h v',  time += h
// Without constraint rows (GDN_DSBL_CONSTRAINT, or no contact, limit, equality or friction-loss
// row active) ABA gives qacc_int directly (the damping term is its `extra` diagonal) and the
// step needs neither qM nor a separate RNE. With rows: qM, qfrc_bias, qfrc_smooth,
// qacc_smooth = M^-1 qfrc_smooth, the Newton solve for qacc, then, when there is damping,
// qacc_int by the tree LDL' of M + h D as mj_Euler (ABA when a caller wants ABA's factorization).
//
// After gdn_step, d->qacc holds qacc_int, the acceleration that was integrated (v' = v + h
// qacc). Without dof damping this is MuJoCo's qacc; with damping it differs from it (MuJoCo
// keeps the constrained, undamped one there): call gdn_forward for that. Without rows
// d->qacc_smooth = qacc_int too and the step does not refresh qM, qfrc_bias or qfrc_smooth
// (gdn_forward does); with rows they are MuJoCo's. Kinematics, contacts, rows, passive and
// actuator outputs, energy (when enabled) and the solver report are those of the state before
// the update, as in MuJoCo.
//
// Non-finite qpos, qvel or ctrl before, or qacc after: GDN_ERR_NONFINITE, a warning count, and
// the state (qpos, qvel, time) unchanged. A solver failure (arena, unsupported solver): its
// status, the state unchanged. An unconverged solve is not a failure: the step is taken and
// d->solver_converged = 0 reports it.

// the front half (sim/step.h): everything up to qacc_int, the state not advanced
gdnStatus gdn_step_acceleration(const gdnModel* m, gdnData* d) {
    return gdn_step_acceleration_factored(m, d, NULL);
}

// 1 when every entry of qpos, qvel, ctrl is finite; else a warning count
static int state_finite(const gdnModel* m, gdnData* d) {
    if (!gdn_all_finite(d->qpos, m->nq)) {
        d->warning[GDN_WARN_BADQPOS]++;
        return 0;
    }
    if (!gdn_all_finite(d->qvel, m->nv)) {
        d->warning[GDN_WARN_BADQVEL]++;
        return 0;
    }
    if (!gdn_all_finite(d->ctrl, m->nu)) {
        d->warning[GDN_WARN_BADCTRL]++;
        return 0;
    }
    return 1;
}

gdnStatus gdn_step_acceleration_factored(const gdnModel* m, gdnData* d,
                                         const gdnAbaFactor* factor) {
    const int nq = m->nq, nv = m->nv;
    const double h = m->opt.timestep;
    if (!state_finite(m, d)) {
        return GDN_ERR_NONFINITE;
    }

    // scratch in one block: qpos_saved (nq), tau, qacc, extra (nv each)
    size_t mark = gdn_arena_mark(d);
    double* qpos_saved = gdn_arena_doubles(d, (size_t)nq + 3 * (size_t)nv);
    if (!qpos_saved) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* tau = qpos_saved + nq;
    double* qacc = tau + nv;
    double* extra = qacc + nv;
    // kinematics normalizes the quaternions of qpos in place: keep the original for a rollback
    memcpy(qpos_saved, d->qpos, sizeof(double) * (size_t)nq);

    gdn_kinematics(m, d);
    if (m->opt.enableflags & GDN_ENBL_ENERGY) {
        gdn_energy(m, d);
    }
    gdnStatus status = gdn_constraint_rows_stage(m, d);
    if (status == GDN_OK) {
        gdn_smooth_forces(m, d, tau);
    }

    int damped = 0;
    for (int i = 0; i < nv; i++) {
        extra[i] = h * m->dof_damping[i];
        damped |= m->dof_damping[i] > 0;
    }
    if (status == GDN_OK && d->nefc == 0) {
        // unconstrained: qacc_int = (M + h D)^-1 (tau - C) in one ABA
        gdn_aba_factored(m, d, tau, damped ? extra : NULL, qacc, factor);
        memcpy(d->qacc, qacc, sizeof(double) * (size_t)nv);
        gdn_unconstrained_report(m, d);
    } else if (status == GDN_OK) {
        // constrained: d->qacc = MuJoCo's qacc, then qacc_int = (M + h D)^-1 (tau - C +
        // qfrc_constraint) = (M + h D)^-1 (qfrc_smooth + qfrc_constraint) when needed
        status = gdn_constrained_acceleration(m, d, tau);
        if (status == GDN_OK && (damped || factor)) {
            if (factor) {
                for (int i = 0; i < nv; i++) {
                    tau[i] += d->qfrc_constraint[i];
                }
                gdn_aba_factored(m, d, tau, damped ? extra : NULL, qacc, factor);
            } else {
                // as mj_Euler: the tree LDL' of M + h D (qM is fresh from the solve)
                for (int i = 0; i < nv; i++) {
                    tau[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
                }
                status = gdn_damped_acceleration(m, d, extra, tau, qacc);
            }
        } else {
            memcpy(qacc, d->qacc, sizeof(double) * (size_t)nv);
        }
    }
    if (status == GDN_OK && !gdn_all_finite(qacc, nv)) {
        d->warning[GDN_WARN_BADQACC]++;
        status = GDN_ERR_NONFINITE;
    }
    if (status != GDN_OK) {
        memcpy(d->qpos, qpos_saved, sizeof(double) * (size_t)nq);
        gdn_arena_reset(d, mark);
        return status;
    }
    memcpy(d->qacc, qacc, sizeof(double) * (size_t)nv);
    if (d->nefc == 0) {
        memcpy(d->qacc_smooth, qacc, sizeof(double) * (size_t)nv);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// the front half, then v' = v + h qacc_int, q' = q (+) h v', time += h
gdnStatus gdn_step(const gdnModel* m, gdnData* d) {
    if (!m || !d) {
        return GDN_ERR_ARG;
    }
    gdnStatus status = gdn_step_acceleration(m, d);
    if (status != GDN_OK) {
        return status;
    }
    const double h = m->opt.timestep;
    // v' = v + h qacc and q' = q (+) h v' into scratch, committed only when finite: a finite
    // but huge qacc can overflow v', a huge position plus h v' can overflow q'; a refused step
    // leaves qpos and qvel as they were
    size_t mark = gdn_arena_mark(d);
    double* qpos_next = gdn_arena_doubles(d, (size_t)m->nq);
    double* qvel_next = gdn_arena_doubles(d, (size_t)m->nv);
    if (!qpos_next || !qvel_next) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < m->nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    if (!gdn_all_finite(qvel_next, m->nv)) {
        gdn_arena_reset(d, mark);
        d->warning[GDN_WARN_BADQACC]++;
        return GDN_ERR_NONFINITE;
    }
    memcpy(qpos_next, d->qpos, sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, qpos_next, qvel_next, h);
    if (!gdn_all_finite(qpos_next, m->nq)) {
        gdn_arena_reset(d, mark);
        d->warning[GDN_WARN_BADQPOS]++;
        return GDN_ERR_NONFINITE;
    }
    memcpy(d->qvel, qvel_next, sizeof(double) * (size_t)m->nv);
    memcpy(d->qpos, qpos_next, sizeof(double) * (size_t)m->nq);
    gdn_arena_reset(d, mark);
    d->time += h;
    return GDN_OK;
}
