// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's primal Newton solver: exact Newton steps with an exact 1-D line search.
//
// Minimizes over qacc = a the convex cost (MuJoCo's primal formulation)
//   c(a) = 0.5 (a - a0)' M (a - a0) + s(J a - aref),   a0 = qacc_smooth,
// with s the sum over rows of the piecewise-quadratic row costs (gdn_constraint_update). The
// Newton direction is -H^-1 g with g = M a - qfrc_smooth - J' f and H = M + J' D_q J
// (D_q: efc_D on quadratic rows) plus the elliptic cone Hessians. H is held as a dense Cholesky
// factor updated by rank-one terms when rows change state (refactored when an update loses
// rank), as MuJoCo does for nv < 60; the factor, its solves and its updates skip the exact
// zeros outside the Hessian's envelope (hessian_envelope), with the dense results' bits.
// Termination (after each step), scaled by meaninertia * max(1, nv):
// improvement = (c_old - c_new) / scale < tolerance, or |g| / scale < tolerance. The context,
// the updates, the iteration and the line search are shared with CG (solver_primal.h,
// gdn_primal_solve).
#include "constraint/solver.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "constraint/solver_primal.h"

// Newton's state: the shared primal context and the Hessian factor (arrays from the arena)
typedef struct Newton {
    gdnPrimal p;     // shared with CG (p.Mgrad = H^-1 grad)
    double* H;       // (nv x nv) Cholesky factor of M + J' D_q J
    double* Hcone;   // (nv x nv) factor with the cone Hessians added (elliptic only)
    double* Dquad;   // (nefc) efc_D on quadratic rows, else 0
    double* vec;     // (nv) rank-one update vector
    double* LTJ;     // (6 nv) L' J of one cone
    int* oldstate;   // (nefc) row states before the step
    gdnCholEnvelope env;  // (nv, nv) the Hessian's envelope (first, last)
    const gdnCholEnvelope* envp;   // &env for the Cholesky functions, or NULL: dense loops
    int nupdate;     // rank-one updates (or rows on a refactor) in the last Hessian update
} Newton;

// x += a y (x and y never overlap)
static void add_scaled(double* restrict x, const double* restrict y, double a, int n) {
    for (int i = 0; i < n; i++) {
        x[i] += a * y[i];
    }
}

// Mgrad = H^-1 grad (with the cones if any), after the shared gradient
static void update_gradient(const gdnModel* m, gdnData* d, Newton* ctx) {
    gdn_primal_gradient(m, d, &ctx->p);
    gdn_chol_solve_env(ctx->p.Mgrad, ctx->p.ncone ? ctx->Hcone : ctx->H, ctx->p.grad, m->nv,
                       ctx->envp);
}

// the lower triangle of d->solver_H = that of src (nv x nv, zero left of the envelope): only
// the envelope's entries are copied, and zeros are restored where the envelope of the factor
// last kept there (d->solver_H_first) reached further left (the strict upper triangle is left
// as it is: unspecified)
static void envelope_to_solver_H(const gdnModel* m, gdnData* d, const Newton* ctx,
                                 const double* src) {
    const int nv = m->nv;
    for (int r = 0; r < nv; r++) {
        double* Hr = d->solver_H + (size_t)r * (size_t)nv;
        const double* Sr = src + (size_t)r * (size_t)nv;
        const int first = ctx->env.first[r];
        const int zero_from = d->solver_H_first[r];
        if (zero_from < first) {
            memset(Hr + zero_from, 0, sizeof(double) * (size_t)(first - zero_from));
        }
        memcpy(Hr + first, Sr + first, sizeof(double) * (size_t)(r + 1 - first));
        d->solver_H_first[r] = first;
    }
}

// Hcone = H + sum over cone contacts of J_c' Hc J_c: Hc = L L' (dim x dim), one rank-one
// update per row of L' J_c
static void hessian_cone(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    envelope_to_solver_H(m, d, ctx, ctx->H);
    for (int i = 0; i < nefc; i++) {
        if (d->efc_state[i] != GDN_CNSTRSTATE_CONE) {
            continue;
        }
        const int dim = d->contact[d->efc_id[i]].dim;
        double local[36];
        memcpy(local, ctx->p.coneH + 6 * i, sizeof(double) * (size_t)(dim * dim));
        gdn_chol_factor(local, dim, GDN_MINVAL);
        // row c of L' J = sum_{r >= c} L_rc J_r
        memset(ctx->LTJ, 0, sizeof(double) * (size_t)dim * (size_t)nv);
        for (int r = 0; r < dim; r++) {
            const double* Jr = d->efc_J + (size_t)(i + r) * (size_t)nv;
            for (int c = 0; c <= r; c++) {
                add_scaled(ctx->LTJ + (size_t)c * (size_t)nv, Jr, local[r * dim + c], nv);
            }
        }
        for (int r = 0; r < dim; r++) {
            gdn_chol_update_env(ctx->Hcone, ctx->LTJ + (size_t)r * (size_t)nv, nv, 1,
                                ctx->envp);
        }
        ctx->nupdate += dim;
        i += dim - 1;
    }
}

// The envelope of H = M + J' D J and of its updates: first_i = the smallest of i's root-most
// ancestor dof (M is zero between dof trees) and the first recorded column of every row whose
// recorded columns include i (efc_colind holds every nonzero of efc_J), in any state. Rows are
// taken in groups (consecutive rows of one constraint: same efc_type and efc_id) with the
// group's smallest first column, since a cone's updates mix the rows of its contact: then an
// update's x (one row, or a mix of one group's rows) has x_i != 0 only where first_i <= its
// first nonzero column, which keeps the updated factor inside the envelope
static void hessian_envelope(const gdnModel* m, const gdnData* d, gdnCholEnvelope* env) {
    const int nv = m->nv, nefc = d->nefc;
    int trees = 0;
    for (int i = 0; i < nv; i++) {
        const int parent = m->dof_parentid[i];
        env->first[i] = parent < 0 ? i : env->first[parent];
        trees += parent < 0;
    }
    // one dof tree: every first_i is 0 already
    if (trees <= 1) {
        return;
    }
    for (int g = 0; g < nefc;) {
        int end = g + 1;
        while (end < nefc && d->efc_type[end] == d->efc_type[g] &&
               d->efc_id[end] == d->efc_id[g]) {
            end++;
        }
        int first = nv;
        for (int j = g; j < end; j++) {
            if (d->efc_rownnz[j] > 0) {
                const int c = d->efc_colind[d->efc_rowadr[j]];
                first = c < first ? c : first;
            }
        }
        for (int j = g; j < end; j++) {
            const int* col = d->efc_colind + d->efc_rowadr[j];
            for (int a = 0; a < d->efc_rownnz[j]; a++) {
                int* f = env->first + col[a];
                *f = first < *f ? first : *f;
            }
        }
        g = end;
    }
}

// H = chol(M + J' D_q J) from scratch (lower triangle), then the cones
static void hessian_direct(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    double* H = ctx->H;
    for (int i = 0; i < nefc; i++) {
        ctx->Dquad[i] = d->efc_state[i] == GDN_CNSTRSTATE_QUADRATIC ? d->efc_D[i] : 0;
    }
    // lower triangle of M, zero left of the envelope (M is zero between dof trees, and left of
    // first_r every dof is of another tree): in d->solver_H only the envelope is written, an
    // arena H (with cones) is copied whole
    if (H == d->solver_H) {
        envelope_to_solver_H(m, d, ctx, d->qM);
    } else {
        for (int r = 0; r < nv; r++) {
            memcpy(H + (size_t)r * (size_t)nv, d->qM + (size_t)r * (size_t)nv,
                   sizeof(double) * (size_t)(r + 1));
        }
    }
    // + J' D_q J: H(r, c) += J(j, r) D_j J(j, c) for c <= r: r over row j's recorded columns
    // (the others are exactly 0), c contiguous from the row's first recorded column to r
    for (int j = 0; j < nefc; j++) {
        if (ctx->Dquad[j] == 0 || d->efc_rownnz[j] == 0) {
            continue;
        }
        const double* Jj = d->efc_J + (size_t)j * (size_t)nv;
        const int* col = d->efc_colind + d->efc_rowadr[j];
        const int nnz = d->efc_rownnz[j], first = col[0];
        for (int a = 0; a < nnz; a++) {
            const int r = col[a];
            if (Jj[r] != 0) {
                add_scaled(H + (size_t)r * (size_t)nv + first, Jj + first,
                           Jj[r] * ctx->Dquad[j], r + 1 - first);
            }
        }
    }
    gdn_chol_factor_env(H, nv, GDN_MINVAL, ctx->envp);
    if (ctx->p.ncone) {
        hessian_cone(m, d, ctx);
    }
    ctx->nupdate = nefc;
}

// rank-one updates +- D_i J_i' J_i for rows entering / leaving the quadratic state;
// refactor when an update loses rank
static void hessian_incremental(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    ctx->nupdate = 0;
    for (int i = 0; i < nefc; i++) {
        const int was = ctx->oldstate[i] == GDN_CNSTRSTATE_QUADRATIC;
        const int is = d->efc_state[i] == GDN_CNSTRSTATE_QUADRATIC;
        if (was == is) {
            continue;
        }
        const double* Ji = d->efc_J + (size_t)i * (size_t)nv;
        const double sqrtD = sqrt(d->efc_D[i]);
        for (int k = 0; k < nv; k++) {
            ctx->vec[k] = Ji[k] * sqrtD;
        }
        int rank = gdn_chol_update_env(ctx->H, ctx->vec, nv, is, ctx->envp);
        ctx->nupdate++;
        if (rank < nv) {
            hessian_direct(m, d, ctx);
            return;
        }
    }
    if (ctx->p.ncone) {
        hessian_cone(m, d, ctx);
    }
}

// the envelope's column lists from the arena when it has room for them (checked first, so that
// a short arena raises no warning); else none, and the Cholesky loops over rows instead (same
// bits, slower)
static void envelope_columns_alloc(gdnData* d, size_t nv, gdnCholEnvelope* env) {
    const size_t count = gdn_chol_envelope_count(env->first, (int)nv);
    const size_t need = sizeof(int) * (nv + 1 + count) + 2 * 64;
    env->colstart = NULL;
    env->colrows = NULL;
    if (d->parena <= d->narena && need <= d->narena - d->parena) {
        env->colstart = gdn_arena_ints(d, nv + 1);
        env->colrows = gdn_arena_ints(d, count > 0 ? count : 1);
    }
}

// carve the solver arrays from the arena; 0 on success
static int newton_alloc(const gdnModel* m, gdnData* d, const int* simple, Newton* ctx) {
    const size_t nv = (size_t)m->nv, nefc = (size_t)d->nefc;
    memset(ctx, 0, sizeof(*ctx));
    int ok = gdn_primal_alloc(m, d, simple, 1, &ctx->p) == 0;
    ctx->Dquad = gdn_arena_doubles(d, nefc);
    ctx->vec = gdn_arena_doubles(d, nv);
    ctx->oldstate = gdn_arena_ints(d, nefc);
    ctx->env.first = gdn_arena_ints(d, nv);
    ctx->env.last = gdn_arena_ints(d, nv);
    ok = ok && ctx->Dquad && ctx->vec && ctx->oldstate && ctx->env.first && ctx->env.last;
    // the factor the last Newton direction used lives in d->solver_H (kept for implicit
    // differentiation): H's own factor, or with elliptic rows the factor with the cones
    if (ctx->p.coneH) {
        ctx->H = gdn_arena_doubles(d, nv * nv);
        ctx->Hcone = d->solver_H;
        ctx->LTJ = gdn_arena_doubles(d, 6 * nv);
        ok = ok && ctx->H && ctx->LTJ;
    } else {
        ctx->H = d->solver_H;
    }
    if (ok) {
        // the envelope pays when it leaves out a quarter of the triangle or more (one dof
        // tree, as a single humanoid, fills it: then the dense loops, same bits)
        hessian_envelope(m, d, &ctx->env);
        const size_t count = gdn_chol_envelope_count(ctx->env.first, (int)nv);
        if (4 * count < 3 * (nv * (nv - 1) / 2)) {
            envelope_columns_alloc(d, nv, &ctx->env);
            gdn_chol_envelope_finish(&ctx->env, (int)nv);
            ctx->envp = &ctx->env;
        }
    }
    return ok ? 0 : -1;
}

// Newton's steps of the shared iteration (gdn_primal_solve):
// start: H factored from scratch, Mgrad = H^-1 grad
static void newton_start(const gdnModel* m, gdnData* d, void* solver) {
    Newton* ctx = solver;
    hessian_direct(m, d, ctx);
    update_gradient(m, d, ctx);
}

// save: the row states before the step (hessian_incremental updates H by their changes)
static void newton_save(const gdnModel* m, gdnData* d, void* solver) {
    Newton* ctx = solver;
    (void)m;
    memcpy(ctx->oldstate, d->efc_state, sizeof(int) * (size_t)d->nefc);
}

// update: H by rank-one updates (refactored when one loses rank), Mgrad = H^-1 grad
static void newton_update(const gdnModel* m, gdnData* d, void* solver) {
    Newton* ctx = solver;
    hessian_incremental(m, d, ctx);
    update_gradient(m, d, ctx);
}

gdnStatus gdn_solver_newton(const gdnModel* m, gdnData* d, const int* simple, int maxiter) {
    size_t mark = gdn_arena_mark(d);
    Newton ctx;
    if (newton_alloc(m, d, simple, &ctx) != 0) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    // search = -H^-1 grad after each step (direction NULL)
    const gdnPrimalSteps steps = {.solver = &ctx,
                                  .start = newton_start,
                                  .save = newton_save,
                                  .update = newton_update,
                                  .direction = NULL};
    gdn_primal_solve(m, d, &ctx.p, &steps, maxiter);
    // elliptic rows but no contact in the cone state at the end: the last direction used H
    if (ctx.p.coneH && ctx.p.ncone == 0) {
        envelope_to_solver_H(m, d, &ctx, ctx.H);
    }
    d->solver_H_valid = 1;
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
