// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's primal CG solver: Polak-Ribiere conjugate gradients preconditioned by M^-1.
//
// Minimizes the same cost as Newton (solver_primal.h) with the same iteration, exact line search
// and termination tests (gdn_primal_solve); only the direction differs:
//   z = M^-1 g (the tree LDL' of M in MuJoCo's order, mj_solveM),
//   v_0 = -z_0,   v_k = -z_k + beta_k v_{k-1},
//   beta_k = max(0, g_k' (z_k - z_{k-1}) / max(1e-15, g_{k-1}' z_{k-1}))   (Polak-Ribiere,
// reset to steepest descent in the M metric when negative).
#include "constraint/solver.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/mass_factor.h"
#include "constraint/solver_primal.h"

// CG's state: the shared primal context, the factor of M and the previous gradients
typedef struct CG {
    gdnPrimal p;              // shared with Newton (p.Mgrad = M^-1 grad)
    const gdnMassFactor* M;   // tree LDL' of d->qM (given, or own)
    gdnMassFactor own;        // the factor when none is given
    double* gradold;    // (nv) gradient before the step
    double* Mgradold;   // (nv) M^-1 gradient before the step
    double* Mgraddif;   // (nv) Mgrad - Mgradold
} CG;

// a' b with MuJoCo's summation order (mju_dot)
static double dot(const double* a, const double* b, int n) {
    return gdn_dot_mujoco(a, b, n);
}

// carve the solver arrays from the arena and factor M unless factor is given; 0 on success
static int cg_alloc(const gdnModel* m, gdnData* d, const int* simple,
                    const gdnMassFactor* factor, CG* ctx) {
    const size_t nv = (size_t)m->nv;
    memset(ctx, 0, sizeof(*ctx));
    int ok = gdn_primal_alloc(m, d, simple, 0, &ctx->p) == 0;
    ok = ok && (factor || gdn_mass_factor_alloc(m, d, simple, &ctx->own) == GDN_OK);
    ctx->gradold = gdn_arena_doubles(d, nv);
    ctx->Mgradold = gdn_arena_doubles(d, nv);
    ctx->Mgraddif = gdn_arena_doubles(d, nv);
    ok = ok && ctx->gradold && ctx->Mgradold && ctx->Mgraddif;
    if (ok && !factor) {
        gdn_mass_factor(m, d->qM, NULL, &ctx->own);
        factor = &ctx->own;
    }
    ctx->M = factor;
    return ok ? 0 : -1;
}

// grad, then Mgrad = M^-1 grad (the start and update steps of gdn_primal_solve)
static void update_gradient(const gdnModel* m, gdnData* d, void* solver) {
    CG* ctx = solver;
    gdn_primal_gradient(m, d, &ctx->p);
    memcpy(ctx->p.Mgrad, ctx->p.grad, sizeof(double) * (size_t)m->nv);
    gdn_mass_solve(m, ctx->M, ctx->p.Mgrad);
}

// v = -Mgrad + beta v with the Polak-Ribiere beta (0 when negative): the direction step
static void update_direction(const gdnModel* m, void* solver) {
    CG* ctx = solver;
    const int nv = m->nv;
    gdnPrimal* p = &ctx->p;
    for (int i = 0; i < nv; i++) {
        ctx->Mgraddif[i] = p->Mgrad[i] - ctx->Mgradold[i];
    }
    double denom = dot(ctx->gradold, ctx->Mgradold, nv);
    if (denom < GDN_MINVAL) {
        denom = GDN_MINVAL;
    }
    double beta = dot(p->grad, ctx->Mgraddif, nv) / denom;
    if (beta < 0) {
        beta = 0;
    }
    for (int i = 0; i < nv; i++) {
        p->search[i] = -p->Mgrad[i] + beta * p->search[i];
    }
}

// before a step: the gradients Polak-Ribiere compares with (the save step)
static void save_gradient(const gdnModel* m, gdnData* d, void* solver) {
    CG* ctx = solver;
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    (void)d;
    memcpy(ctx->gradold, ctx->p.grad, bytes);
    memcpy(ctx->Mgradold, ctx->p.Mgrad, bytes);
}

gdnStatus gdn_solver_cg(const gdnModel* m, gdnData* d, const int* simple,
                        const gdnMassFactor* factor, int maxiter) {
    size_t mark = gdn_arena_mark(d);
    CG ctx;
    if (cg_alloc(m, d, simple, factor, &ctx) != 0) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    // the first direction is steepest descent in the M metric (-M^-1 grad), then Polak-Ribiere
    const gdnPrimalSteps steps = {.solver = &ctx,
                                  .start = update_gradient,
                                  .save = save_gradient,
                                  .update = update_gradient,
                                  .direction = update_direction};
    gdn_primal_solve(m, d, &ctx.p, &steps, maxiter);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
