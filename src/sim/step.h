// SPDX-License-Identifier: Apache-2.0
// Internal: the front half of the step (forces and acceleration), shared by gdn_step and its
// derivatives so that both run one forward model.
#ifndef GDN_SIM_STEP_H
#define GDN_SIM_STEP_H

#include <gradyn/gradyn.h>

#include "dynamics/aba.h"

// Everything gdn_step computes before it advances the state, at the state in d:
//   finiteness checks of qpos, qvel, ctrl (a warning count and GDN_ERR_NONFINITE),
//   kinematics (normalizes the quaternions of qpos in place), energy when enabled,
//   contacts and constraint rows (unless GDN_DSBL_CONSTRAINT; d->ncon, d->nefc),
//   tau = passive + actuation + applied forces,
//   without rows: qacc_int = (M + h diag(dof_damping))^-1 (tau - C) by ABA;
//   with rows: MuJoCo's constraint solve, then qacc_int = (M + h D)^-1 (qfrc_smooth +
//   qfrc_constraint) (sim/step.c),
// and on success d->qacc = qacc_int (and d->qacc_smooth = qacc_int when nefc == 0). Any failure
// (non-finite qacc_int: GDN_WARN_BADQACC and GDN_ERR_NONFINITE; the solver's GDN_ERR_MEMORY or
// GDN_ERR_UNSUPPORTED) restores qpos as it was on entry. qvel and time are never changed. The
// derivative code differentiates only steps with d->nefc == 0. Arena balanced.
gdnStatus gdn_step_acceleration(const gdnModel* m, gdnData* d);

// the same, also keeping ABA's factorization of M + h diag(dof_damping) in factor (arrays
// allocated by the caller, dynamics/aba.h; NULL = not kept): the step derivatives solve with it
gdnStatus gdn_step_acceleration_factored(const gdnModel* m, gdnData* d,
                                         const gdnAbaFactor* factor);

#endif
