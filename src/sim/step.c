// SPDX-License-Identifier: Apache-2.0
// One simulation step: forward dynamics by ABA, then MuJoCo's semi-implicit Euler update.
#include "sim/step.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/aba.h"
#include "sim/forward.h"

// Euler as MuJoCo 2.2.2 (mj_Euler): with h = timestep
//   qacc_int = (M + h diag(dof_damping))^-1 (tau - C)   (implicit damping, when any dof has
//                                                         damping; else M^-1 (tau - C) = qacc)
//   v' = v + h qacc_int,  q' = q (+) h v',  time += h
// ABA gives qacc_int directly (the damping term is its `extra` diagonal), so the step needs
// neither qM nor a separate RNE.
//
// After gdn_step, d->qacc and d->qacc_smooth hold qacc_int, the acceleration that was
// integrated (v' = v + h qacc). Without dof damping this is MuJoCo's qacc; with damping it
// differs from it (MuJoCo keeps the explicit M^-1 qfrc_smooth there): call gdn_forward for that.
// The step does not refresh qM, qfrc_bias or qfrc_smooth (gdn_forward does). Kinematics,
// passive and actuator outputs, and energy (when enabled) are those of the state before the
// update, as in MuJoCo.
//
// Non-finite qpos, qvel or ctrl before, or qacc after: GDN_ERR_NONFINITE, a warning count, and
// the state (qpos, qvel, time) unchanged.

// the front half (sim/step.h): everything up to qacc_int, the state not advanced
gdnStatus gdn_step_acceleration(const gdnModel* m, gdnData* d) {
    return gdn_step_acceleration_factored(m, d, NULL);
}

gdnStatus gdn_step_acceleration_factored(const gdnModel* m, gdnData* d,
                                         const gdnAbaFactor* factor) {
    const int nq = m->nq, nv = m->nv;
    const double h = m->opt.timestep;
    if (!gdn_all_finite(d->qpos, nq)) {
        d->warning[GDN_WARN_BADQPOS]++;
        return GDN_ERR_NONFINITE;
    }
    if (!gdn_all_finite(d->qvel, nv)) {
        d->warning[GDN_WARN_BADQVEL]++;
        return GDN_ERR_NONFINITE;
    }
    if (!gdn_all_finite(d->ctrl, m->nu)) {
        d->warning[GDN_WARN_BADCTRL]++;
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
    gdn_smooth_forces(m, d, tau);

    int damped = 0;
    for (int i = 0; i < nv; i++) {
        extra[i] = h * m->dof_damping[i];
        damped |= m->dof_damping[i] > 0;
    }
    gdn_aba_factored(m, d, tau, damped ? extra : NULL, qacc, factor);
    if (!gdn_all_finite(qacc, nv)) {
        memcpy(d->qpos, qpos_saved, sizeof(double) * (size_t)nq);
        d->warning[GDN_WARN_BADQACC]++;
        gdn_arena_reset(d, mark);
        return GDN_ERR_NONFINITE;
    }
    memcpy(d->qacc, qacc, sizeof(double) * (size_t)nv);
    memcpy(d->qacc_smooth, qacc, sizeof(double) * (size_t)nv);
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
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] += h * d->qacc[i];
    }
    gdn_integrate_pos(m, d->qpos, d->qvel, h);
    d->time += h;
    return GDN_OK;
}
