// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's primal Newton solver: exact Newton steps with an exact 1-D line search.
//
// Minimizes over qacc = a the convex cost (MuJoCo's primal formulation)
//   c(a) = 0.5 (a - a0)' M (a - a0) + s(J a - aref),   a0 = qacc_smooth,
// with s the sum over rows of the piecewise-quadratic row costs (gdn_constraint_update). The
// Newton direction is -H^-1 g with g = M a - qfrc_smooth - J' f and H = M + J' D_q J
// (D_q: efc_D on quadratic rows) plus the elliptic cone Hessians. H is held as a dense Cholesky
// factor updated by rank-one terms when rows change state (refactored when an update loses
// rank), as MuJoCo does for nv < 60. Termination (after each step), scaled by
// meaninertia * max(1, nv): improvement = (c_old - c_new) / scale < tolerance, or
// |g| / scale < tolerance.
#include "constraint/solver.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"

// the smallest positive value (MuJoCo's mjMINVAL)
#define NEWTON_MINVAL 1e-15

// line search: at most this many cost evaluations; gradient tolerance factor
#define LS_MAXITER 50
#define LS_TOLSCALE 0.01

// line search outcomes (MuJoCo's LSresult codes)
enum {
    LS_SUCCESS = 0,
    LS_TINY_SEARCH = 1,     // search direction below NEWTON_MINVAL: at the minimum
    LS_AT_MINIMUM = 2,      // slope at alpha = 0 already within the tolerance
    LS_NO_BRACKET = 3,      // evaluation budget spent before bracketing
    LS_NO_CONVERGENCE = 4,  // improvement but the slope not within the tolerance
    LS_NO_IMPROVEMENT = 5,  // no point better than alpha = 0
    LS_NO_P2 = 6,           // bracketing never moved (should not occur)
    LS_NUMERIC_LIMIT = 7    // brackets stopped moving; midpoint not better than alpha = 0
};

// solver state (all arrays from the arena)
typedef struct Newton {
    double* Jaref;   // (nefc) J qacc - aref
    double* Jv;      // (nefc) J search
    double* Ma;      // (nv) M qacc
    double* Mv;      // (nv) M search
    double* grad;    // (nv) gradient of the cost
    double* Mgrad;   // (nv) H^-1 grad
    double* search;  // (nv) Newton direction
    double* quad;    // (3 nefc) per-row quadratic in alpha; elliptic rows use 9 slots
    double* H;       // (nv x nv) Cholesky factor of M + J' D_q J
    double* Hcone;   // (nv x nv) factor with the cone Hessians added (elliptic only)
    double* coneH;   // (6 nefc) cone Hessians (gdn_constraint_update)
    double* Dquad;   // (nefc) efc_D on quadratic rows, else 0
    double* vec;     // (nv) rank-one update vector
    double* LTJ;     // (6 nv) L' J of one cone
    int* oldstate;   // (nefc) row states before the step
    const int* simple; // (nv) MuJoCo's simple dofs, for M v

    double scale;        // meaninertia * max(1, nv)
    double cost;         // Gauss + constraint cost at qacc
    double quadGauss[3]; // Gauss cost along the search line: [0] + [1] alpha + [2] alpha^2
    int nactive;         // rows not satisfied
    int ncone;           // elliptic contacts in the cone state
    int nupdate;         // rank-one updates (or rows on a refactor) in the last Hessian update

    int ls_iter;         // cost evaluations of the last line search
    int ls_result;       // LS_* code
    double ls_slope;     // scaled |slope| at the returned point
} Newton;

// one line-search point: alpha, cost and its first two derivatives
typedef struct LinePoint {
    double alpha;
    double cost;
    double deriv[2];
} LinePoint;

// |x| and a' b with MuJoCo's summation order (mju_norm, mju_dot)
static double norm(const double* x, int n) {
    return sqrt(gdn_solver_dot(x, x, n));
}

static double dot(const double* a, const double* b, int n) {
    return gdn_solver_dot(a, b, n);
}

// x += a y (x and y never overlap)
static void add_scaled(double* restrict x, const double* restrict y, double a, int n) {
    for (int i = 0; i < n; i++) {
        x[i] += a * y[i];
    }
}

// row states, forces, cost = Gauss + s(Jaref), counts of active rows and cones
static void update_constraint(const gdnModel* m, gdnData* d, Newton* ctx) {
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

// grad = M a - qfrc_smooth - qfrc_constraint, Mgrad = H^-1 grad (with the cones if any)
static void update_gradient(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv;
    for (int i = 0; i < nv; i++) {
        ctx->grad[i] = ctx->Ma[i] - d->qfrc_smooth[i] - d->qfrc_constraint[i];
    }
    gdn_chol_solve(ctx->Mgrad, ctx->ncone ? ctx->Hcone : ctx->H, ctx->grad, nv);
}

// Hcone = H + sum over cone contacts of J_c' Hc J_c: Hc = L L' (dim x dim), one rank-one
// update per row of L' J_c
static void hessian_cone(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    memcpy(ctx->Hcone, ctx->H, sizeof(double) * (size_t)nv * (size_t)nv);
    for (int i = 0; i < nefc; i++) {
        if (d->efc_state[i] != GDN_CNSTRSTATE_CONE) {
            continue;
        }
        const int dim = d->contact[d->efc_id[i]].dim;
        double local[36];
        memcpy(local, ctx->coneH + 6 * i, sizeof(double) * (size_t)(dim * dim));
        gdn_chol_factor(local, dim, NEWTON_MINVAL);
        // row c of L' J = sum_{r >= c} L_rc J_r
        memset(ctx->LTJ, 0, sizeof(double) * (size_t)dim * (size_t)nv);
        for (int r = 0; r < dim; r++) {
            const double* Jr = d->efc_J + (size_t)(i + r) * (size_t)nv;
            for (int c = 0; c <= r; c++) {
                add_scaled(ctx->LTJ + (size_t)c * (size_t)nv, Jr, local[r * dim + c], nv);
            }
        }
        for (int r = 0; r < dim; r++) {
            gdn_chol_update(ctx->Hcone, ctx->LTJ + (size_t)r * (size_t)nv, nv, 1);
        }
        ctx->nupdate += dim;
        i += dim - 1;
    }
}

// H = chol(M + J' D_q J) from scratch (lower triangle), then the cones
static void hessian_direct(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    double* H = ctx->H;
    for (int i = 0; i < nefc; i++) {
        ctx->Dquad[i] = d->efc_state[i] == GDN_CNSTRSTATE_QUADRATIC ? d->efc_D[i] : 0;
    }
    // lower triangle of J' D_q J + M
    for (int r = 0; r < nv; r++) {
        memcpy(H + (size_t)r * (size_t)nv, d->qM + (size_t)r * (size_t)nv,
               sizeof(double) * (size_t)(r + 1));
    }
    // H(r, c) += J(j, r) D_j J(j, c) for c <= r: r over row j's recorded columns (the others
    // are exactly 0), c contiguous from the row's first recorded column to r
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
    gdn_chol_factor(H, nv, NEWTON_MINVAL);
    if (ctx->ncone) {
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
        int rank = gdn_chol_update(ctx->H, ctx->vec, nv, is);
        ctx->nupdate++;
        if (rank < nv) {
            hessian_direct(m, d, ctx);
            return;
        }
    }
    if (ctx->ncone) {
        hessian_cone(m, d, ctx);
    }
}

// quadratics in alpha along the search line: Gauss, every row, and the elliptic cone data
//   row: 0.5 D (Jaref + alpha Jv)^2 -> [0.5 D Jaref^2, D Jaref Jv, 0.5 D Jv^2]
//   elliptic (first row i, 9 slots): the bottom-zone quadratic over the dim rows, then
//   U0 = mu Jaref_0, V0 = mu Jv_0, UU, UV, VV (tangential sums of the friction-scaled
//   Jaref and Jv) and Dm = D_0 / (mu^2 (1 + mu^2))
static void line_prepare(const gdnModel* m, const gdnData* d, Newton* ctx) {
    const int nv = m->nv, nefc = d->nefc;
    const double* v = ctx->search;
    ctx->quadGauss[1] = dot(v, ctx->Ma, nv) - dot(v, d->qfrc_smooth, nv);
    ctx->quadGauss[2] = 0.5 * dot(v, ctx->Mv, nv);
    for (int i = 0; i < nefc; i++) {
        const double* Jv = ctx->Jv + i;
        const double* Jaref = ctx->Jaref + i;
        const double* D = d->efc_D + i;
        double* quad = ctx->quad + 3 * i;
        const double DJ0 = D[0] * Jaref[0];
        quad[0] = Jaref[0] * DJ0;
        quad[1] = Jv[0] * DJ0;
        quad[2] = Jv[0] * D[0] * Jv[0];
        if (d->efc_type[i] == GDN_CNSTR_CONTACT_ELLIPTIC) {
            const gdnContact* con = d->contact + d->efc_id[i];
            const int dim = con->dim;
            const double mu = con->mu;
            for (int j = 1; j < dim; j++) {
                const double DJj = D[j] * Jaref[j];
                quad[0] += Jaref[j] * DJj;
                quad[1] += Jv[j] * DJj;
                quad[2] += Jv[j] * D[j] * Jv[j];
            }
            double UU = 0, UV = 0, VV = 0;
            for (int j = 1; j < dim; j++) {
                const double U = Jaref[j] * con->friction[j - 1];
                const double V = Jv[j] * con->friction[j - 1];
                UU += U * U;
                UV += U * V;
                VV += V * V;
            }
            quad[3] = Jaref[0] * mu;
            quad[4] = Jv[0] * mu;
            quad[5] = UU;
            quad[6] = UV;
            quad[7] = VV;
            quad[8] = D[0] / (mu * mu * (1 + mu * mu));
            i += dim - 1;
        }
        quad[0] *= 0.5;
        quad[2] *= 0.5;
    }
}

static void add3(double* total, const double* q) {
    total[0] += q[0];
    total[1] += q[1];
    total[2] += q[2];
}

// cost and its first two derivatives in alpha at p->alpha (the piecewise quadratic of each
// row picked by the row's state at that alpha; the elliptic middle zone exactly)
static void line_eval(const gdnData* d, Newton* ctx, LinePoint* p) {
    const int nefc = d->nefc;
    const double alpha = p->alpha;
    double cost = 0, d1 = 0, d2 = 0;
    double total[3] = {ctx->quadGauss[0], ctx->quadGauss[1], ctx->quadGauss[2]};
    for (int i = 0; i < nefc; i++) {
        const int type = d->efc_type[i];
        const double* quad = ctx->quad + 3 * i;
        if (type == GDN_CNSTR_EQUALITY) {
            add3(total, quad);
        } else if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
            // friction loss: quadratic inside |x| < R f, linear f |x| - 0.5 R f^2 outside
            const double start = ctx->Jaref[i], dir = ctx->Jv[i];
            const double x = start + alpha * dir;
            const double f = d->efc_frictionloss[i];
            const double Rf = d->efc_R[i] * f;
            if (-Rf < x && x < Rf) {
                add3(total, quad);
            } else if (x <= -Rf) {
                const double lin[3] = {f * (-0.5 * Rf - start), -f * dir, 0};
                add3(total, lin);
            } else {
                const double lin[3] = {f * (-0.5 * Rf + start), f * dir, 0};
                add3(total, lin);
            }
        } else if (type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            const gdnContact* con = d->contact + d->efc_id[i];
            const double mu = con->mu;
            const double U0 = quad[3], V0 = quad[4], UU = quad[5], UV = quad[6], VV = quad[7];
            const double Dm = quad[8];
            const double N = U0 + alpha * V0;
            const double Tsqr = UU + alpha * (2 * UV + alpha * VV);
            if (Tsqr <= 0) {
                // no tangential part: bottom zone when N < 0, else top zone
                if (N < 0) {
                    add3(total, quad);
                }
            } else {
                const double T = sqrt(Tsqr);
                if (N >= mu * T) {
                    // top zone: no cost
                } else if (mu * N + T <= 0) {
                    add3(total, quad);
                } else {
                    // middle zone: 0.5 Dm (N - mu T)^2 with N' = V0, T' = (UV + alpha VV) / T
                    const double N1 = V0;
                    const double T1 = (UV + alpha * VV) / T;
                    const double T2 = VV / T - (UV + alpha * VV) * T1 / (T * T);
                    const double NmT = N - mu * T;
                    cost += 0.5 * Dm * NmT * NmT;
                    d1 += Dm * NmT * (N1 - mu * T1);
                    d2 += Dm * ((N1 - mu * T1) * (N1 - mu * T1) + NmT * (-mu * T2));
                }
            }
            i += con->dim - 1;
        } else {
            // one-sided rows: active when x < 0
            if (ctx->Jaref[i] + alpha * ctx->Jv[i] < 0) {
                add3(total, quad);
            }
        }
    }
    cost += alpha * alpha * total[2] + alpha * total[1] + total[0];
    d1 += 2 * alpha * total[2] + total[1];
    d2 += 2 * total[2];
    // convex by construction; guard the Newton division against round-off
    if (d2 <= 0) {
        d2 = NEWTON_MINVAL;
    }
    p->cost = cost;
    p->deriv[0] = d1;
    p->deriv[1] = d2;
    ctx->ls_iter++;
}

// replace p by a candidate on the same side of the minimum with a smaller |slope|; on a
// change, next = Newton step from the new p. Returns 0 (no change), 1 (left), 2 (right).
static int update_bracket(const gdnData* d, Newton* ctx, LinePoint* p,
                          const LinePoint candidates[3], LinePoint* next) {
    int flag = 0;
    for (int i = 0; i < 3; i++) {
        const double c = candidates[i].deriv[0];
        if (p->deriv[0] < 0 && c < 0 && p->deriv[0] < c) {
            *p = candidates[i];
            flag = 1;
        } else if (p->deriv[0] > 0 && c > 0 && p->deriv[0] > c) {
            *p = candidates[i];
            flag = 2;
        }
    }
    if (flag) {
        next->alpha = p->alpha - p->deriv[0] / p->deriv[1];
        line_eval(d, ctx, next);
    }
    return flag;
}

// the point returned with its scaled slope recorded
static double line_return(Newton* ctx, const LinePoint* p, double slopescl, int result) {
    ctx->ls_result = result;
    ctx->ls_slope = fabs(p->deriv[0]) * slopescl;
    return p->alpha;
}

// exact line search along ctx->search (MuJoCo's): 1-D Newton steps from alpha = 0 until the
// slope changes sign, then a bracketed search (Newton steps from both ends and the midpoint)
// until |slope| < tolerance * 0.01 * |search| * scale. Returns alpha (0: no improvement).
static double line_search(const gdnModel* m, gdnData* d, Newton* ctx) {
    const int nv = m->nv;
    LinePoint p0, p1, p2, pmid, p1next, p2next;
    ctx->ls_iter = 0;
    ctx->ls_result = LS_SUCCESS;
    ctx->ls_slope = 1;
    const double snorm = norm(ctx->search, nv);
    if (snorm < NEWTON_MINVAL) {
        ctx->ls_result = LS_TINY_SEARCH;
        return 0;
    }
    const double gtol = m->opt.tolerance * LS_TOLSCALE * snorm * ctx->scale;
    const double slopescl = 1 / (snorm * ctx->scale);

    // Mv = M search, Jv = J search, quadratics
    gdn_solver_mul_M(m, d, ctx->simple, ctx->Mv, ctx->search);
    gdn_solver_mul_J(m, d, ctx->Jv, ctx->search);
    line_prepare(m, d, ctx);

    // alpha = 0, then one Newton step; keep the better
    p0.alpha = 0;
    line_eval(d, ctx, &p0);
    p1.alpha = p0.alpha - p0.deriv[0] / p0.deriv[1];
    line_eval(d, ctx, &p1);
    if (p0.cost < p1.cost) {
        p1 = p0;
    }
    if (fabs(p1.deriv[0]) < gtol) {
        return line_return(ctx, &p1, slopescl, p1.alpha == 0 ? LS_AT_MINIMUM : LS_SUCCESS);
    }

    // one-sided Newton steps while the slope keeps its sign
    const int dir = p1.deriv[0] < 0 ? 1 : -1;
    int p2update = 0;
    while (p1.deriv[0] * dir <= -gtol && ctx->ls_iter < LS_MAXITER) {
        p2 = p1;
        p2update = 1;
        p1.alpha -= p1.deriv[0] / p1.deriv[1];
        line_eval(d, ctx, &p1);
        if (fabs(p1.deriv[0]) < gtol) {
            return line_return(ctx, &p1, slopescl, LS_SUCCESS);
        }
    }
    if (ctx->ls_iter >= LS_MAXITER) {
        return line_return(ctx, &p1, slopescl, LS_NO_BRACKET);
    }
    if (!p2update) {
        return line_return(ctx, &p1, slopescl, LS_NO_P2);
    }

    // bracketed search between p1 and p2
    p2next = p1;
    p1next.alpha = p1.alpha - p1.deriv[0] / p1.deriv[1];
    line_eval(d, ctx, &p1next);
    while (ctx->ls_iter < LS_MAXITER) {
        pmid.alpha = 0.5 * (p1.alpha + p2.alpha);
        line_eval(d, ctx, &pmid);
        const LinePoint candidates[3] = {p1next, p2next, pmid};
        int best = -1;
        for (int i = 0; i < 3; i++) {
            if (fabs(candidates[i].deriv[0]) < gtol &&
                (best == -1 || candidates[i].cost < candidates[best].cost)) {
                best = i;
            }
        }
        if (best >= 0) {
            return line_return(ctx, &candidates[best], slopescl, LS_SUCCESS);
        }
        const int b1 = update_bracket(d, ctx, &p1, candidates, &p1next);
        const int b2 = update_bracket(d, ctx, &p2, candidates, &p2next);
        if (!b1 && !b2) {
            return line_return(ctx, &pmid, slopescl,
                               pmid.cost < p0.cost ? LS_SUCCESS : LS_NUMERIC_LIMIT);
        }
    }

    // budget spent: the better bracket end if it improves on alpha = 0
    if (p1.cost <= p2.cost && p1.cost < p0.cost) {
        return line_return(ctx, &p1, slopescl, LS_NO_CONVERGENCE);
    }
    if (p2.cost <= p1.cost && p2.cost < p0.cost) {
        return line_return(ctx, &p2, slopescl, LS_NO_CONVERGENCE);
    }
    ctx->ls_result = LS_NO_IMPROVEMENT;
    return 0;
}

// carve the solver arrays from the arena; 0 on success
static int newton_alloc(const gdnModel* m, gdnData* d, Newton* ctx) {
    const size_t nv = (size_t)m->nv, nefc = (size_t)d->nefc;
    memset(ctx, 0, sizeof(*ctx));
    int elliptic = 0;
    for (int i = 0; i < d->nefc; i++) {
        elliptic |= d->efc_type[i] == GDN_CNSTR_CONTACT_ELLIPTIC;
    }
    ctx->Jaref = gdn_arena_doubles(d, nefc);
    ctx->Jv = gdn_arena_doubles(d, nefc);
    ctx->Ma = gdn_arena_doubles(d, nv);
    ctx->Mv = gdn_arena_doubles(d, nv);
    ctx->grad = gdn_arena_doubles(d, nv);
    ctx->Mgrad = gdn_arena_doubles(d, nv);
    ctx->search = gdn_arena_doubles(d, nv);
    ctx->quad = gdn_arena_doubles(d, 3 * nefc);
    ctx->H = gdn_arena_doubles(d, nv * nv);
    ctx->Dquad = gdn_arena_doubles(d, nefc);
    ctx->vec = gdn_arena_doubles(d, nv);
    ctx->oldstate = gdn_arena_ints(d, nefc);
    int ok = ctx->Jaref && ctx->Jv && ctx->Ma && ctx->Mv && ctx->grad && ctx->Mgrad &&
             ctx->search && ctx->quad && ctx->H && ctx->Dquad && ctx->vec && ctx->oldstate;
    if (elliptic) {
        ctx->Hcone = gdn_arena_doubles(d, nv * nv);
        ctx->coneH = gdn_arena_doubles(d, 6 * nefc);
        ctx->LTJ = gdn_arena_doubles(d, 6 * nv);
        ok = ok && ctx->Hcone && ctx->coneH && ctx->LTJ;
    }
    return ok ? 0 : -1;
}

gdnStatus gdn_solver_newton(const gdnModel* m, gdnData* d, const int* simple, int maxiter) {
    const int nv = m->nv, nefc = d->nefc;
    const double tolerance = m->opt.tolerance;
    size_t mark = gdn_arena_mark(d);
    Newton ctx;
    if (newton_alloc(m, d, &ctx) != 0) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    ctx.scale = gdn_solver_scale(m, d);
    ctx.simple = simple;

    // at the warm start: Ma, Jaref, states, H, gradient, first direction
    gdn_solver_mul_M(m, d, simple, ctx.Ma, d->qacc);
    gdn_solver_mul_J(m, d, ctx.Jaref, d->qacc);
    for (int i = 0; i < nefc; i++) {
        ctx.Jaref[i] -= d->efc_aref[i];
    }
    update_constraint(m, d, &ctx);
    hessian_direct(m, d, &ctx);
    update_gradient(m, d, &ctx);
    for (int i = 0; i < nv; i++) {
        ctx.search[i] = -ctx.Mgrad[i];
    }
    double gradient = norm(ctx.grad, nv) / ctx.scale;
    int converged = 0, iter = 0;

    while (iter < maxiter) {
        const double alpha = line_search(m, d, &ctx);
        if (!isfinite(alpha)) {
            // non-finite problem data: stop, reported as not converged
            converged = 0;
            break;
        }
        if (alpha == 0) {
            // no step improves: at the minimum unless the line search gave up
            converged = ctx.ls_result == LS_TINY_SEARCH || ctx.ls_result == LS_AT_MINIMUM ||
                        gradient < tolerance;
            break;
        }
        add_scaled(d->qacc, ctx.search, alpha, nv);
        add_scaled(ctx.Ma, ctx.Mv, alpha, nv);
        add_scaled(ctx.Jaref, ctx.Jv, alpha, nefc);
        memcpy(ctx.oldstate, d->efc_state, sizeof(int) * (size_t)nefc);
        const double oldcost = ctx.cost;
        update_constraint(m, d, &ctx);
        hessian_incremental(m, d, &ctx);
        update_gradient(m, d, &ctx);
        iter++;

        // scaled improvement and gradient
        const double improvement = (oldcost - ctx.cost) / ctx.scale;
        gradient = norm(ctx.grad, nv) / ctx.scale;
        if (improvement < tolerance || gradient < tolerance) {
            converged = 1;
            break;
        }
        for (int i = 0; i < nv; i++) {
            ctx.search[i] = -ctx.Mgrad[i];
        }
    }
    d->solver_iter += iter;
    d->solver_converged = converged;
    d->solver_residual = gradient;
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
