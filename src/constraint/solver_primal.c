// SPDX-License-Identifier: Apache-2.0
// What MuJoCo's Newton and CG solvers share: context, constraint and gradient updates, step,
// the iteration and its termination tests.
#include "constraint/solver_primal.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "constraint/solver.h"

int gdn_primal_has_elliptic(const gdnData* d) {
    for (int i = 0; i < d->nefc; i++) {
        if (d->efc_type[i] == GDN_CNSTR_CONTACT_ELLIPTIC) {
            return 1;
        }
    }
    return 0;
}

int gdn_primal_alloc(const gdnModel* m, gdnData* d, const int* simple, int cone_hessian,
                     gdnPrimal* ctx) {
    const size_t nv = (size_t)m->nv, nefc = (size_t)d->nefc;
    memset(ctx, 0, sizeof(*ctx));
    ctx->Jaref = gdn_arena_doubles(d, nefc);
    ctx->Jv = gdn_arena_doubles(d, nefc);
    ctx->Ma = gdn_arena_doubles(d, nv);
    ctx->Mv = gdn_arena_doubles(d, nv);
    ctx->grad = gdn_arena_doubles(d, nv);
    ctx->Mgrad = gdn_arena_doubles(d, nv);
    ctx->search = gdn_arena_doubles(d, nv);
    ctx->quad = gdn_arena_doubles(d, 3 * nefc);
    int ok = ctx->Jaref && ctx->Jv && ctx->Ma && ctx->Mv && ctx->grad && ctx->Mgrad &&
             ctx->search && ctx->quad;
    if (cone_hessian && gdn_primal_has_elliptic(d)) {
        ctx->coneH = gdn_arena_doubles(d, 6 * nefc);
        ok = ok && ctx->coneH;
    }
    ctx->simple = simple;
    ctx->scale = gdn_solver_scale(m, d);
    return ok ? 0 : -1;
}

void gdn_primal_start(const gdnModel* m, gdnData* d, gdnPrimal* ctx) {
    gdn_solver_mul_M(m, d, ctx->simple, ctx->Ma, d->qacc);
    gdn_solver_mul_J(m, d, ctx->Jaref, d->qacc);
    for (int i = 0; i < d->nefc; i++) {
        ctx->Jaref[i] -= d->efc_aref[i];
    }
}

void gdn_primal_update_constraint(const gdnModel* m, gdnData* d, gdnPrimal* ctx) {
    gdn_constraint_update(m, d, ctx->Jaref, &ctx->cost, ctx->coneH);
    ctx->nactive = 0;
    ctx->ncone = 0;
    for (int i = 0; i < d->nefc; i++) {
        ctx->nactive += d->efc_state[i] != GDN_CNSTRSTATE_SATISFIED;
        ctx->ncone += d->efc_state[i] == GDN_CNSTRSTATE_CONE;
    }
    // Gauss = 0.5 (M a - qfrc_smooth)' (a - a0)
    double gauss = 0;
    for (int i = 0; i < m->nv; i++) {
        gauss += 0.5 * (ctx->Ma[i] - d->qfrc_smooth[i]) * (d->qacc[i] - d->qacc_smooth[i]);
    }
    ctx->quadGauss[0] = gauss;
    ctx->cost += gauss;
}

void gdn_primal_gradient(const gdnModel* m, const gdnData* d, gdnPrimal* ctx) {
    for (int i = 0; i < m->nv; i++) {
        ctx->grad[i] = ctx->Ma[i] - d->qfrc_smooth[i] - d->qfrc_constraint[i];
    }
}

// x += a y (x and y never overlap)
static void add_scaled(double* restrict x, const double* restrict y, double a, int n) {
    for (int i = 0; i < n; i++) {
        x[i] += a * y[i];
    }
}

void gdn_primal_move(const gdnModel* m, gdnData* d, gdnPrimal* ctx, double alpha) {
    add_scaled(d->qacc, ctx->search, alpha, m->nv);
    add_scaled(ctx->Ma, ctx->Mv, alpha, m->nv);
    add_scaled(ctx->Jaref, ctx->Jv, alpha, d->nefc);
}

int gdn_primal_zero_step_converged(const gdnModel* m, const gdnPrimal* ctx, double gradient) {
    return ctx->ls_result == GDN_LS_TINY_SEARCH || ctx->ls_result == GDN_LS_AT_MINIMUM ||
           gradient < m->opt.tolerance;
}

// search = -Mgrad
static void steepest(const gdnModel* m, gdnPrimal* ctx) {
    for (int i = 0; i < m->nv; i++) {
        ctx->search[i] = -ctx->Mgrad[i];
    }
}

void gdn_primal_solve(const gdnModel* m, gdnData* d, gdnPrimal* ctx, const gdnPrimalSteps* steps,
                      int maxiter) {
    const int nv = m->nv;
    const double tolerance = m->opt.tolerance;

    // at the warm start: Ma, Jaref, states, the solver's Mgrad, first direction
    gdn_primal_start(m, d, ctx);
    gdn_primal_update_constraint(m, d, ctx);
    steps->start(m, d, steps->solver);
    steepest(m, ctx);
    // |g| / scale with MuJoCo's summation order (mju_norm)
    double gradient = sqrt(gdn_dot_mujoco(ctx->grad, ctx->grad, nv)) / ctx->scale;
    int converged = 0, iter = 0;

    while (iter < maxiter) {
        const double alpha = gdn_primal_line_search(m, d, ctx);
        if (!isfinite(alpha)) {
            // non-finite problem data: stop, reported as not converged
            converged = 0;
            break;
        }
        if (alpha == 0) {
            // no step improves: at the minimum unless the line search gave up
            converged = gdn_primal_zero_step_converged(m, ctx, gradient);
            break;
        }
        gdn_primal_move(m, d, ctx, alpha);
        steps->save(m, d, steps->solver);
        const double oldcost = ctx->cost;
        gdn_primal_update_constraint(m, d, ctx);
        steps->update(m, d, steps->solver);
        iter++;

        // scaled improvement and gradient
        const double improvement = (oldcost - ctx->cost) / ctx->scale;
        gradient = sqrt(gdn_dot_mujoco(ctx->grad, ctx->grad, nv)) / ctx->scale;
        if (improvement < tolerance || gradient < tolerance) {
            converged = 1;
            break;
        }
        if (steps->direction) {
            steps->direction(m, steps->solver);
        } else {
            steepest(m, ctx);
        }
    }
    d->solver_iter += iter;
    d->solver_converged = converged;
    d->solver_residual = gradient;
}
