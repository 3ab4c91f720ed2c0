// SPDX-License-Identifier: Apache-2.0
// Internal: the constraint stages of the pipeline (collision, rows, solve), shared by gdn_step
// and gdn_forward.
#ifndef GDN_SIM_CONSTRAINED_H
#define GDN_SIM_CONSTRAINED_H

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

// qacc (nv) = (M + diag(extra))^-1 rhs by the tree LDL' of qM + diag(extra) in MuJoCo's order
// (mj_Euler's mj_factorI and mj_solveLD), for the damped Euler update after a constrained
// solve. Needs qM. GDN_ERR_MEMORY from the arena
gdnStatus gdn_damped_acceleration(const gdnModel* m, gdnData* d, const double* extra,
                                  const double* rhs, double* qacc);

// the state of the solver when no row is active, as MuJoCo's mj_fwdConstraint leaves it:
// qfrc_constraint = 0, qacc_warmstart = qacc, solver_iter 0, converged
void gdn_unconstrained_report(const gdnModel* m, gdnData* d);

#endif
