// SPDX-License-Identifier: Apache-2.0
// Internal: MuJoCo 2.2.2's constraint solvers (primal Newton, dual PGS) on the efc_* rows.
#ifndef GDN_CONSTRAINT_SOLVER_H
#define GDN_CONSTRAINT_SOLVER_H

#include <gradyn/gradyn.h>

#include "math/cholesky.h"

#include "dynamics/mass_factor.h"

// mj_fwdConstraint: solve for the constrained qacc given qacc_smooth, qfrc_smooth, the dense
// d->qM and the rows (efc_J, efc_aref, efc_D, efc_R, efc_frictionloss, efc_type, efc_id, and for
// elliptic rows d->contact[efc_id].dim / mu / friction). Warm start as MuJoCo: the better (lower
// total cost) of qacc_warmstart and qacc_smooth, or qacc_smooth when GDN_DSBL_WARMSTART.
// Writes qacc, efc_force, efc_state, qfrc_constraint, qacc_warmstart (= qacc) and the report
// solver_iter / solver_converged / solver_residual. nefc == 0: qacc = qacc_smooth, converged.
// GDN_ERR_MEMORY when the arena is short (counted in d->warning[GDN_WARN_ARENA]),
// GDN_ERR_NONFINITE when the solution is not finite, GDN_ERR_UNSUPPORTED for an unknown solver:
// then qacc = qacc_smooth, efc_force = 0 and converged = 0.
// The rows are taken as dense: their sparsity (efc_rownnz, efc_rowadr, efc_colind) is found
// from efc_J first (gdn_solver_record_sparsity).
gdnStatus gdn_solve_constraint(const gdnModel* m, gdnData* d);

// gdn_solve_constraint on rows whose sparsity is already recorded (gdn_make_constraint's rows);
// simple: gdn_simple_dofs of the model, or NULL to compute them here; factor: the tree factor
// of the current d->qM (gdn_mass_factor with diag NULL, built on the same simple), or NULL to
// factor here (only CG and PGS and PGS's warm start use it; one factor serves them all)
gdnStatus gdn_solve_constraint_rows(const gdnModel* m, gdnData* d, const int* simple,
                                    const gdnMassFactor* factor);

// 0 when every elliptic contact's rows fit (d->contact[efc_id].dim in 1..6 and within nefc),
// else -1 (the solvers then return GDN_ERR_ARG without reading past the rows)
int gdn_solver_check_rows(const gdnData* d);

// efc_rownnz / efc_rowadr / efc_colind from the nonzero entries of the dense efc_J
void gdn_solver_record_sparsity(const gdnModel* m, gdnData* d);

// mj_constraintUpdate: from jar = J qacc - aref (nefc), set efc_force, efc_state and
// qfrc_constraint = J' efc_force; return the constraint cost s(jar) when cost != NULL. When
// coneH != NULL (6 nefc doubles) the Hessian of each elliptic contact in the cone state is
// written there, dim x dim row-major, at coneH + 6 * (its first row).
void gdn_constraint_update(const gdnModel* m, gdnData* d, const double* jar, double* cost,
                           double* coneH);

// MuJoCo's solver scale meaninertia * max(1, nv): m->stat_meaninertia, or (when that is not
// set, <= 0) the mean diagonal of the current d->qM
double gdn_solver_scale(const gdnModel* m, const gdnData* d);

// res (nefc) = efc_J vec (nv), over each row's recorded columns
void gdn_solver_mul_J(const gdnModel* m, const gdnData* d, double* res, const double* vec);

// res (nv) = M vec over the dof tree of d->qM in MuJoCo's order (mj_mulM): for i = 0 .. nv-1,
// res_i += M_ii v_i, then for each ancestor j of i (nearest first) res_i += M_ij v_j and
// res_j += M_ij v_i; a simple dof (gdn_simple_dofs) only res_i = M_ii v_i
void gdn_solver_mul_M(const gdnModel* m, const gdnData* d, const int* simple, double* res,
                      const double* vec);

// mj_solNewton (simple: gdn_simple_dofs, for M v): maxiter Newton iterations from d->qacc (set
// by the warm start). Writes qacc, efc_force, efc_state, qfrc_constraint, solver_iter (added
// to), solver_converged, solver_residual. GDN_ERR_MEMORY when the arena is short.
gdnStatus gdn_solver_newton(const gdnModel* m, gdnData* d, const int* simple, int maxiter);

// mj_solCG: maxiter Polak-Ribiere conjugate-gradient iterations on the same primal problem as
// Newton, preconditioned by M^-1, with Newton's exact line search, from d->qacc (set by the warm
// start). factor: the tree factor of d->qM (as gdn_solve_constraint_rows), or NULL to factor
// here. Writes what gdn_solver_newton writes. GDN_ERR_MEMORY when the arena is short.
gdnStatus gdn_solver_cg(const gdnModel* m, gdnData* d, const int* simple,
                        const gdnMassFactor* factor, int maxiter);

// mj_solPGS: maxiter projected Gauss-Seidel sweeps on the dual problem
// min_f 0.5 f' (J M^-1 J' + R) f + f' (J qacc_smooth - aref) over the constraint sets (free
// equality rows, boxed friction loss, non-negative limits and pyramidal contacts, elliptic cone
// blocks), from d->efc_force (set by the warm start), matrix-free (solver_pgs.c). Stops after
// the first sweep whose dual-cost decrease, scaled by meaninertia * max(1, nv), is below
// opt.tolerance (converged). Writes qacc = qacc_smooth + M^-1 J' f, efc_force, efc_state (MuJoCo's
// dual states of the final force), qfrc_constraint, solver_iter (sweeps, added to),
// solver_converged, solver_residual (the last sweep's scaled decrease; 0 without a sweep).
// GDN_ERR_MEMORY when the arena is short, GDN_ERR_ARG for an elliptic contact whose rows do not
// fit (dim outside 1..6 or past nefc); nothing is written then. factor: the tree factor of
// d->qM (as gdn_solve_constraint_rows), or NULL to factor here.
gdnStatus gdn_solver_pgs(const gdnModel* m, gdnData* d, const int* simple,
                         const gdnMassFactor* factor, int maxiter);

#endif
