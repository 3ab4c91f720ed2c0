// SPDX-License-Identifier: Apache-2.0
// Internal: the reduced-coordinate formulation's stages (collision, rows, solve); the
// formulation itself is gdn_formulation_reduced (sim/pipeline.h).
#ifndef GDN_SIM_REDUCED_H
#define GDN_SIM_REDUCED_H

#include <gradyn/gradyn.h>

// the position stage of MuJoCo's mj_fwdPosition after kinematics: contacts (gdn_collision) and
// the constraint rows (gdn_make_constraint), or none when GDN_DSBL_CONSTRAINT is set (then
// ncon = nefc = 0 without running either). Needs kinematics. GDN_ERR_MEMORY from the arena
gdnStatus gdn_constraint_rows_stage(const gdnModel* m, gdnData* d);

// the rest of mj_forward when d->nefc > 0, from tau (the smooth applied forces of
// gdn_smooth_forces, nv) at the kinematics in d:
//   qM (CRB), efc_vel and efc_aref, qfrc_bias (RNE), qfrc_smooth = tau - qfrc_bias,
//   qacc_smooth = M^-1 qfrc_smooth (tree LDL' of M in MuJoCo's order), then the solve
//   (gdn_solve_constraint_rows on the rows' recorded sparsity, warm-started from
//   qacc_warmstart): d->qacc, efc_force, efc_state, qfrc_constraint, qacc_warmstart and the
//   solver report. Returns GDN_ERR_MEMORY when the arena is short, else the solver's status
//   (GDN_ERR_ARG for malformed rows, GDN_ERR_UNSUPPORTED for an unknown solver,
//   GDN_ERR_NONFINITE); an unconverged solve is GDN_OK with d->solver_converged = 0
gdnStatus gdn_constrained_acceleration(const gdnModel* m, gdnData* d, const double* tau);

#endif
