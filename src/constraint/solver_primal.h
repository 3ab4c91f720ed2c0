// SPDX-License-Identifier: Apache-2.0
// Internal: what MuJoCo's primal solvers (Newton, CG) share: the context, the constraint and
// gradient updates, the step, the iteration and its termination tests, and the exact line
// search (solver_primal.c, solver_linesearch.c).
#ifndef GDN_CONSTRAINT_SOLVER_PRIMAL_H
#define GDN_CONSTRAINT_SOLVER_PRIMAL_H

#include <gradyn/gradyn.h>

#include "math/vec.h"

// The primal problem over qacc = a (MuJoCo's formulation):
//   c(a) = 0.5 (a - a0)' M (a - a0) + s(J a - aref),   a0 = qacc_smooth,
// with s the sum of the piecewise-quadratic row costs (gdn_constraint_update) and gradient
//   g = M a - qfrc_smooth - J' f.
// Both solvers step a += alpha v along a search direction v with the alpha of an exact 1-D
// line search; they differ in v (Newton: -H^-1 g; CG: Polak-Ribiere on -M^-1 g).

// line search outcomes (MuJoCo's LSresult codes)
enum {
    GDN_LS_SUCCESS = 0,
    GDN_LS_TINY_SEARCH = 1,     // search direction below GDN_MINVAL: at the minimum
    GDN_LS_AT_MINIMUM = 2,      // slope at alpha = 0 already within the tolerance
    GDN_LS_NO_BRACKET = 3,      // evaluation budget spent before bracketing
    GDN_LS_NO_CONVERGENCE = 4,  // improvement but the slope not within the tolerance
    GDN_LS_NO_IMPROVEMENT = 5,  // no point better than alpha = 0
    GDN_LS_NO_P2 = 6,           // bracketing never moved (should not occur)
    GDN_LS_NUMERIC_LIMIT = 7    // brackets stopped moving; midpoint not better than alpha = 0
};

// solver state shared by Newton and CG (arrays from the arena)
typedef struct gdnPrimal {
    double* Jaref;   // (nefc) J qacc - aref
    double* Jv;      // (nefc) J search
    double* Ma;      // (nv) M qacc
    double* Mv;      // (nv) M search
    double* grad;    // (nv) gradient of the cost
    double* Mgrad;   // (nv) preconditioned gradient (Newton: H^-1 grad, CG: M^-1 grad)
    double* search;  // (nv) search direction
    double* quad;    // (3 nefc) per-row quadratic in alpha; elliptic rows use 9 slots
    double* coneH;   // (6 nefc) cone Hessians (gdn_constraint_update), or NULL: not computed
    const int* simple; // (nv) MuJoCo's simple dofs, for M v

    double scale;        // meaninertia * max(1, nv)
    double cost;         // Gauss + constraint cost at qacc
    double quadGauss[3]; // Gauss cost along the search line: [0] + [1] alpha + [2] alpha^2
    int nactive;         // rows not satisfied
    int ncone;           // elliptic contacts in the cone state

    int ls_iter;         // cost evaluations of the last line search
    int ls_result;       // GDN_LS_* code
    double ls_slope;     // scaled |slope| at the returned point
} gdnPrimal;

// 1 when some row is an elliptic contact
int gdn_primal_has_elliptic(const gdnData* d);

// carve the shared arrays from the arena (coneH only when cone_hessian and a row is elliptic),
// set scale and simple; 0 on success, -1 when the arena is short
int gdn_primal_alloc(const gdnModel* m, gdnData* d, const int* simple, int cone_hessian,
                     gdnPrimal* ctx);

// at the start qacc (the warm start): Ma = M qacc, Jaref = J qacc - aref
void gdn_primal_start(const gdnModel* m, gdnData* d, gdnPrimal* ctx);

// row states, forces, qfrc_constraint, cost = Gauss + s(Jaref), counts of active rows and cones
// (and the cone Hessians when ctx->coneH)
void gdn_primal_update_constraint(const gdnModel* m, gdnData* d, gdnPrimal* ctx);

// grad = M a - qfrc_smooth - qfrc_constraint (Mgrad is the solver's)
void gdn_primal_gradient(const gdnModel* m, const gdnData* d, gdnPrimal* ctx);

// qacc += alpha search, Ma += alpha Mv, Jaref += alpha Jv
void gdn_primal_move(const gdnModel* m, gdnData* d, gdnPrimal* ctx, double alpha);

// after a line search returned alpha = 0: converged when the search was tiny, the slope at 0
// was already within the tolerance, or the scaled gradient is below the tolerance
int gdn_primal_zero_step_converged(const gdnModel* m, const gdnPrimal* ctx, double gradient);

// the steps where Newton and CG differ, called by gdn_primal_solve with the solver's own state
typedef struct gdnPrimalSteps {
    void* solver; // the solver's state, passed to every step
    // at the warm start, after the first constraint update: the preconditioner and Mgrad
    void (*start)(const gdnModel* m, gdnData* d, void* solver);
    // before a step's constraint update: keep what the update after it compares with
    void (*save)(const gdnModel* m, gdnData* d, void* solver);
    // after a step's constraint update: the preconditioner's update and Mgrad
    void (*update)(const gdnModel* m, gdnData* d, void* solver);
    // the next search direction; NULL: search = -Mgrad (Newton, where Mgrad = H^-1 grad)
    void (*direction)(const gdnModel* m, void* solver);
} gdnPrimalSteps;

// MuJoCo's primal iteration on an allocated ctx, from qacc (the warm start): start (Ma, Jaref),
// constraint update, steps->start, search = -Mgrad; then until maxiter steps: exact line search
// (alpha = 0 or non-finite ends it), move, steps->save, constraint update, steps->update, and
// stop when the scaled improvement (c_old - c) / scale or the scaled gradient |g| / scale is
// below the tolerance, else the next direction. Adds the steps to d->solver_iter, sets
// d->solver_converged and d->solver_residual (the last scaled gradient).
void gdn_primal_solve(const gdnModel* m, gdnData* d, gdnPrimal* ctx, const gdnPrimalSteps* steps,
                      int maxiter);

// MuJoCo's exact line search along ctx->search: 1-D Newton steps from alpha = 0 until the slope
// changes sign, then a bracketed search (Newton steps from both ends and the midpoint) until
// |slope| < tolerance * 0.01 * |search| * scale. Sets Mv = M search, Jv = J search, ls_iter,
// ls_result, ls_slope. Returns alpha (0: no improvement).
double gdn_primal_line_search(const gdnModel* m, gdnData* d, gdnPrimal* ctx);

#endif
