// SPDX-License-Identifier: Apache-2.0
// MuJoCo's exact line search for the primal solvers (Newton, CG): the cost along the search line
// as a sum of per-row piecewise quadratics (elliptic cones exactly), minimized by bracketed 1-D
// Newton steps.
#include "constraint/solver_primal.h"

#include <math.h>

#include "constraint/solver.h"

// at most this many cost evaluations; gradient tolerance factor
#define LS_MAXITER 50
#define LS_TOLSCALE 0.01

// one line-search point: alpha, cost and its first two derivatives
typedef struct LinePoint {
    double alpha;
    double cost;
    double deriv[2];
} LinePoint;

// |x| and a' b with MuJoCo's summation order (mju_norm, mju_dot)
static double norm(const double* x, int n) {
    return sqrt(gdn_dot_mujoco(x, x, n));
}

static double dot(const double* a, const double* b, int n) {
    return gdn_dot_mujoco(a, b, n);
}

// quadratics in alpha along the search line: Gauss, every row, and the elliptic cone data
//   row: 0.5 D (Jaref + alpha Jv)^2 -> [0.5 D Jaref^2, D Jaref Jv, 0.5 D Jv^2]
//   elliptic (first row i, 9 slots): the bottom-zone quadratic over the dim rows, then
//   U0 = mu Jaref_0, V0 = mu Jv_0, UU, UV, VV (tangential sums of the friction-scaled
//   Jaref and Jv) and Dm = D_0 / (mu^2 (1 + mu^2))
static void line_prepare(const gdnModel* m, const gdnData* d, gdnPrimal* ctx) {
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
static void line_eval(const gdnData* d, gdnPrimal* ctx, LinePoint* p) {
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
        d2 = GDN_MINVAL;
    }
    p->cost = cost;
    p->deriv[0] = d1;
    p->deriv[1] = d2;
    ctx->ls_iter++;
}

// replace p by a candidate on the same side of the minimum with a smaller |slope|; on a
// change, next = Newton step from the new p. Returns 0 (no change), 1 (left), 2 (right).
static int update_bracket(const gdnData* d, gdnPrimal* ctx, LinePoint* p,
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
static double line_return(gdnPrimal* ctx, const LinePoint* p, double slopescl, int result) {
    ctx->ls_result = result;
    ctx->ls_slope = fabs(p->deriv[0]) * slopescl;
    return p->alpha;
}

// exact line search along ctx->search (MuJoCo's): 1-D Newton steps from alpha = 0 until the
// slope changes sign, then a bracketed search (Newton steps from both ends and the midpoint)
// until |slope| < tolerance * 0.01 * |search| * scale. Returns alpha (0: no improvement).
double gdn_primal_line_search(const gdnModel* m, gdnData* d, gdnPrimal* ctx) {
    const int nv = m->nv;
    LinePoint p0, p1, p2, pmid, p1next, p2next;
    ctx->ls_iter = 0;
    ctx->ls_result = GDN_LS_SUCCESS;
    ctx->ls_slope = 1;
    const double snorm = norm(ctx->search, nv);
    if (snorm < GDN_MINVAL) {
        ctx->ls_result = GDN_LS_TINY_SEARCH;
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
        return line_return(ctx, &p1, slopescl, p1.alpha == 0 ? GDN_LS_AT_MINIMUM : GDN_LS_SUCCESS);
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
            return line_return(ctx, &p1, slopescl, GDN_LS_SUCCESS);
        }
    }
    if (ctx->ls_iter >= LS_MAXITER) {
        return line_return(ctx, &p1, slopescl, GDN_LS_NO_BRACKET);
    }
    if (!p2update) {
        return line_return(ctx, &p1, slopescl, GDN_LS_NO_P2);
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
            return line_return(ctx, &candidates[best], slopescl, GDN_LS_SUCCESS);
        }
        const int b1 = update_bracket(d, ctx, &p1, candidates, &p1next);
        const int b2 = update_bracket(d, ctx, &p2, candidates, &p2next);
        if (!b1 && !b2) {
            return line_return(ctx, &pmid, slopescl,
                               pmid.cost < p0.cost ? GDN_LS_SUCCESS : GDN_LS_NUMERIC_LIMIT);
        }
    }

    // budget spent: the better bracket end if it improves on alpha = 0
    if (p1.cost <= p2.cost && p1.cost < p0.cost) {
        return line_return(ctx, &p1, slopescl, GDN_LS_NO_CONVERGENCE);
    }
    if (p2.cost <= p1.cost && p2.cost < p0.cost) {
        return line_return(ctx, &p2, slopescl, GDN_LS_NO_CONVERGENCE);
    }
    ctx->ls_result = GDN_LS_NO_IMPROVEMENT;
    return 0;
}
