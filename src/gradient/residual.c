// SPDX-License-Identifier: Apache-2.0
// The smooth residual r = M a + C - tau and its exact tangent and adjoint.
#include "gradient/residual.h"
#include "gradient/wrench.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/applied.h"
#include "dynamics/com.h"
#include "dynamics/force_derivative.h"
#include "dynamics/rne.h"
#include "gradient/residual_tangent.h"
#include "model/inertia_params_derivative.h"
#include "kinematics/jacobian_derivative.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "dynamics/body_wrench.h"
#include "penalty/penalty.h"

// The notation and the primal: gradient/residual_tangent.h (shared with residual_dense.c)

// the primal of the matrix-free forms (one call site: the RNE sweep inlined and specialized)
static gdnStatus primal_build(const gdnModel* m, gdnData* d, const double* a, const double* W,
                              const gdnResidualAdjoint* tree, gdnResidualPrimal* p) {
    return gdn_residual_primal(m, d, a, W, tree, 0, p);
}

// ---------------------------------------------------------------- primal value

void gdn_residual_eval(const gdnModel* m, gdnData* d, const double* a, const double* W,
                       double* r) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* saved = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1));
    double* tau = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1));
    double* wsub = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    if (!saved || !tau || !wsub) {
        for (int i = 0; i < nv; i++) {
            r[i] = NAN;
        }
        gdn_arena_reset(d, mark);
        return;
    }
    memcpy(saved, d->qacc, sizeof(double) * (size_t)nv);
    memmove(d->qacc, a, sizeof(double) * (size_t)nv);
    gdn_rne(m, d, 1, r);
    memcpy(d->qacc, saved, sizeof(double) * (size_t)nv);
    gdn_force_sum(m, d, tau);
    if (W) {
        // tau += S_j' (sum of W over the subtree of j's body)
        gdn_body_wrench_qfrc(m, d, W, wsub, tau);
    }
    for (int i = 0; i < nv; i++) {
        r[i] -= tau[i];
    }
    gdn_arena_reset(d, mark);
}

// ---------------------------------------------------------------- tangent


// the tangent of one body's quantities from its parent's (xi, eta, dA) and the seeds:
//   xi_b = xi_par + sum S dq (unless given),  per group with xi_pre, eta_pre running:
//   dS = axis motion,  dSdot = eta_pre x S + V_pre x dS,
//   dA_b = dA_par + sum (dSdot v + Sdot dv + dS a + S da),  eta_b = eta_pre after the last group
//   dI X = xi x* (I X) - I (xi x X) + dI_param X
//   df_b = dI A + I dA + eta x* (I V) + V x* (dI V + I eta) - dWx,
//   dWx = [(xi_w x xipos + xi_v + R dp[1:4]) x f_xfrc; 0] + dW_b
typedef struct {
    const double* dq;
    const double* dv;
    const double* da;
    const double* dparam;
    const double* dW;
    const double* xi; // given body tangents or NULL
    const double* eta;
} seeds;

static void tangent_body(const gdnResidualPrimal* p, const seeds* s, int b, const double* xi_par,
                         const double* eta_par, const double* dA_par, double* xi_b,
                         double* eta_b, double* dA_b, double* df_b, double* dS) {
    const gdnModel* m = p->m;
    const gdnData* d = p->d;
    const int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
    const double* qvel = d->qvel;
    if (s->xi) {
        memcpy(xi_b, s->xi + 6 * b, 6 * sizeof(double));
    } else {
        memcpy(xi_b, xi_par, 6 * sizeof(double));
        for (int t = dof0; s->dq && t < dof0 + ndof; t++) {
            gdn_addscl6(xi_b, xi_b, p->S + 6 * t, s->dq[t]);
        }
    }
    // no position or parameter tangent reaches this body: dS = 0, dI = 0 (the dense dv columns)
    const int moved = s->dparam || xi_b[0] != 0 || xi_b[1] != 0 || xi_b[2] != 0 ||
                      xi_b[3] != 0 || xi_b[4] != 0 || xi_b[5] != 0 || xi_par[0] != 0 ||
                      xi_par[1] != 0 || xi_par[2] != 0 || xi_par[3] != 0 || xi_par[4] != 0 ||
                      xi_par[5] != 0;
    double xpre[6], epre[6], tmp[6];
    memcpy(xpre, xi_par, sizeof(xpre));
    memcpy(epre, eta_par, sizeof(epre));
    memcpy(dA_b, dA_par, 6 * sizeof(double));
    for (int k = 0; k < ndof;) {
        int n = gdn_dof_group_size(m, dof0 + k);
        for (int t = dof0 + k; t < dof0 + k + n; t++) {
            const double* S = p->S + 6 * t;
            double* dSt = dS + 6 * t;
            if (moved) {
                gdn_axis_motion(m, d, t, S, xpre, xi_b, dSt);
            } else {
                memset(dSt, 0, 6 * sizeof(double));
            }
            if (gdn_dof_kind(m, t) != GDN_AXIS_FIXED) {
                gdn_rt_rate_tangent(tmp, S, p->Vpre + 6 * t, epre, moved ? dSt : NULL);
                gdn_addscl6(dA_b, dA_b, tmp, qvel[t]);
                if (s->dv) {
                    gdn_addscl6(dA_b, dA_b, p->Sdot + 6 * t, s->dv[t]);
                }
            }
            gdn_addscl6(dA_b, dA_b, dSt, p->a[t]);
            if (s->da) {
                gdn_addscl6(dA_b, dA_b, S, s->da[t]);
            }
        }
        for (int t = dof0 + k; t < dof0 + k + n; t++) {
            if (s->dq) {
                gdn_addscl6(xpre, xpre, p->S + 6 * t, s->dq[t]);
            }
            gdn_addscl6(epre, epre, dS + 6 * t, qvel[t]);
            if (s->dv) {
                gdn_addscl6(epre, epre, p->S + 6 * t, s->dv[t]);
            }
        }
        k += n;
    }
    if (s->eta) {
        memcpy(eta_b, s->eta + 6 * b, 6 * sizeof(double));
    } else {
        memcpy(eta_b, epre, 6 * sizeof(double));
    }

    const double* I = p->I + 10 * b;
    const double* A = p->A + 6 * b;
    const double* V = p->V + 6 * b;
    const double* IA = p->IA + 6 * b;
    const double* IV = p->IV + 6 * b;
    double dIA[6], dIV[6], dIp[10];
    const double* fx = d->xfrc_applied + 6 * b;
    if (!moved) {
        // velocity-only tangent: the inertia does not move (dI = 0)
        gdn_rt_force_tangent(df_b, I, V, IV, dA_b, eta_b, NULL, NULL);
    } else {
        // dI A and dI V (body motion, then the parameters)
        gdn_rt_inertia_motion(dIA, I, IA, xi_b, A);
        gdn_rt_inertia_motion(dIV, I, IV, xi_b, V);
        if (s->dparam) {
            gdn_inertia_param_jvp(m, d, b, s->dparam + GDN_N_INERTIA_PARAMS * b, dIp);
            gdn_rt_param_tangent(dIA, dIV, dIp, A, V, d->xipos + 3 * b);
        }
        gdn_rt_force_tangent(df_b, I, V, IV, dA_b, eta_b, dIA, dIV);
        if (fx[0] != 0 || fx[1] != 0 || fx[2] != 0) {
            gdn_rt_applied_tangent(df_b, fx, d->xipos + 3 * b, d->xmat + 9 * b, xi_b,
                                   s->dparam ? s->dparam + GDN_N_INERTIA_PARAMS * b + 1 : NULL);
        }
    }
    if (s->dW) {
        for (int i = 0; i < 6; i++) {
            df_b[i] -= s->dW[6 * b + i];
        }
    }
}

gdnStatus gdn_residual_jvp_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                              const gdnResidualDirection* dir, double* dr) {
    return gdn_residual_jvp_bodies(m, d, a, W, dir, dr, NULL, NULL);
}

gdnStatus gdn_residual_jvp_bodies(const gdnModel* m, gdnData* d, const double* a,
                                  const double* W, const gdnResidualDirection* dir, double* dr,
                                  double* dA_out, double* dF_out) {
    const int nv = m->nv, nb = m->nbody;
    size_t mark = gdn_arena_mark(d);
    gdnResidualPrimal p;
    gdnStatus status = primal_build(m, d, a, W, NULL, &p);
    double* block = gdn_arena_doubles(d, 24 * (size_t)nb + 6 * (size_t)(nv > 0 ? nv : 1));
    if (status != GDN_OK || !block) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* xi = block;
    double* eta = xi + 6 * (size_t)nb;
    double* dA = eta + 6 * (size_t)nb;
    double* dF = dA + 6 * (size_t)nb;
    double* dS = dF + 6 * (size_t)nb;
    seeds s = {dir->dq, dir->dv, dir->da, dir->dparam, dir->dW, dir->xi, dir->eta};
    memset(block, 0, 6 * sizeof(double));
    memset(eta, 0, 6 * sizeof(double));
    memset(dA, 0, 6 * sizeof(double));
    memset(dF, 0, 6 * sizeof(double));
    for (int b = 1; b < nb; b++) {
        int par = m->body_parentid[b];
        tangent_body(&p, &s, b, xi + 6 * par, eta + 6 * par, dA + 6 * par, xi + 6 * b,
                     eta + 6 * b, dA + 6 * b, dF + 6 * b, dS);
    }
    for (int b = nb - 1; b > 0; b--) {
        int par = m->body_parentid[b];
        gdn_add6(dF + 6 * par, dF + 6 * par, dF + 6 * b);
    }
    if (dA_out) {
        memcpy(dA_out, dA, 6 * sizeof(double) * (size_t)nb);
    }
    if (dF_out) {
        memcpy(dF_out, dF, 6 * sizeof(double) * (size_t)nb);
    }
    // dr_i = dS_i' F + S_i' dF + armature da - d tau
    for (int i = 0; i < nv; i++) {
        int b = m->dof_bodyid[i];
        dr[i] = gdn_dot6(dS + 6 * i, p.F + 6 * b) + gdn_dot6(p.S + 6 * i, dF + 6 * b);
        if (dir->da) {
            dr[i] += m->dof_armature[i] * dir->da[i];
        }
    }
    double* dtau = dS; // reuse: the axes' tangents are consumed
    memset(dtau, 0, sizeof(double) * (size_t)nv);
    gdnStatus st = gdn_passive_jvp(m, d, dir->dq, dir->dv, dtau);
    if (st == GDN_OK) {
        st = gdn_actuation_jvp(m, d, dir->dq, dir->dv, dir->du, dir->dacc0, dtau);
    }
    for (int i = 0; i < nv; i++) {
        dr[i] -= dtau[i];
    }
    gdn_arena_reset(d, mark);
    return st;
}

gdnStatus gdn_residual_jvp(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                           const double* dv, const double* du, const double* dparam,
                           const double* dacc0, const double* dW, double* dr) {
    size_t mark = gdn_arena_mark(d);
    const double* W = gdn_wrenches_from_outputs(m, d);
    gdnResidualDirection dir = {dq, dv, NULL, du, dparam, dW, NULL, NULL, dacc0};
    gdnStatus status = gdn_residual_jvp_ex(m, d, a, W, &dir, dr);
    gdn_arena_reset(d, mark);
    return status;
}

// ---------------------------------------------------------------- adjoint

// With fbar_b = A^y_b = sum_{j on the path of b} S_j y_j (the covector of f_b) and AA_b the
// covector of A_b (I_b fbar_b summed over the subtree):
//   Wbar_b = -fbar_b,  ga_j = S_j' AA_b + armature_j y_j,  gv_j += Sdot_j' AA_b
//   etabar_b += -fbar x* (I V) - I u,  u = V x fbar
//   xibar_b  += -fbar x* (I A) - A x* (I fbar) + u x* (I V) + V x* (I u)
//               + [xipos x g; g],  g = fbar_w x f_xfrc
//   gparam_b += (dI/dp)' (B(fbar, A) - B(u, V))  (B: gdn_inertia_bilinear, every vector moved
//               to the COM, inertia_params_derivative.h);  gparam_b[1:4] += R' g
//               (xfrc acts at the COM, which the COM parameters move)
//   Sbar_j = y_j F_b + a_j AA_b - V_pre x* (v_j AA_b) + v_j RV,  Vprebar_j = S_j x* (v_j AA_b)
// then, groups last to first inside the body, RV / RX the covectors of the velocity / twist
// after the group:
//   gv_j += S_j' RV,  gq_j += S_j' RX,  (xi_pre, xi_b) bars from Sbar_j (axis motion adjoint),
//   RX += xi_pre bar,  RV += Vprebar;  finally xibar_parent += RX, etabar_parent += RV.
// Split form (xibar, etabar returned): RV and RX start at 0 and exclude the body's own
// eta_b, xi_b. Fused form (the body-tangent chain of kinematics_derivative.c in the same sweep):
// when body b is reached its etabar_b, xibar_b are complete but for the xi_b share of its own axes'
// motion, and eta_b = eta_pre after the last group, so RV starts at etabar_b; xi_b = xi_parent +
// sum_j S_j dq_j adds S_j' xibar_b to gq_j once the axes' adjoints are in, and xibar_b to
// xibar_parent.
gdnStatus gdn_residual_vjp_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                              const double* y, const gdnResidualAdjoint* out) {
    return gdn_residual_vjp_seeded(m, d, a, W, y, NULL, NULL, out);
}

gdnStatus gdn_residual_vjp_seeded(const gdnModel* m, gdnData* d, const double* a,
                                  const double* W, const double* y, const double* Abar,
                                  const double* Fbar, const gdnResidualAdjoint* out) {
    const int nv = m->nv, nb = m->nbody;
    const size_t nvs = (size_t)(nv > 0 ? nv : 1), nb6 = 6 * (size_t)nb;
    const int split = out->xibar || out->etabar;
    size_t mark = gdn_arena_mark(d);
    gdnResidualPrimal p;
    gdnStatus status = primal_build(m, d, a, W, out, &p);
    double* block = gdn_arena_doubles(d, 4 * nb6 + 15 * nvs);
    if (status != GDN_OK || !block) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* Ay = block;
    double* AA = Ay + nb6;
    double* xibar = AA + nb6;
    double* etabar = xibar + nb6;
    double* Sbar = etabar + nb6;
    double* Vprebar = Sbar + 6 * nvs;
    double* gq = Vprebar + 6 * nvs;
    double* gv = gq + nvs;
    double* ny = gv + nvs;
    const double* qvel = d->qvel;
    memset(gq, 0, 2 * nvs * sizeof(double));

    // fbar = A^y (forward); the backward accumulators start at 0
    memset(block, 0, 6 * sizeof(double));
    if (Fbar) {
        memcpy(block, Fbar, 6 * sizeof(double)); // the world's F_0 sums every body's f
    }
    memset(AA, 0, 6 * sizeof(double));
    memset(xibar, 0, 6 * sizeof(double));
    memset(etabar, 0, 6 * sizeof(double));
    for (int b = 1; b < nb; b++) {
        double* f = Ay + 6 * b;
        memcpy(f, Ay + 6 * m->body_parentid[b], 6 * sizeof(double));
        for (int t = m->body_dofadr[b]; t < m->body_dofadr[b] + m->body_dofnum[b]; t++) {
            gdn_addscl6(f, f, p.S + 6 * t, y[t]);
        }
        // F_b's own covector reaches f of every body in b's subtree, A_b's starts AA_b
        if (Fbar) {
            gdn_add6(f, f, Fbar + 6 * b);
        }
        if (Abar) {
            memcpy(AA + 6 * b, Abar + 6 * b, 6 * sizeof(double));
        } else {
            memset(AA + 6 * b, 0, 6 * sizeof(double));
        }
        memset(xibar + 6 * b, 0, 6 * sizeof(double));
        memset(etabar + 6 * b, 0, 6 * sizeof(double));
    }
    if (out->Wbar) {
        memset(out->Wbar, 0, 6 * sizeof(double));
        for (size_t i = 6; i < nb6; i++) {
            out->Wbar[i] = -Ay[i];
        }
        // the contact model's share of xibar, etabar (fused form)
        if (out->wrench_vjp && !split) {
            status = out->wrench_vjp(out->wrench_ctx, out->Wbar, xibar, etabar);
            if (status != GDN_OK) {
                gdn_arena_reset(d, mark);
                return status;
            }
        }
    }
    // backward over bodies
    for (int b = nb - 1; b > 0; b--) {
        int par = m->body_parentid[b];
        int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        const double* fb = Ay + 6 * b;
        const double* I = p.I + 10 * b;
        const double* A = p.A + 6 * b;
        const double* V = p.V + 6 * b;
        double* xb = xibar + 6 * b;
        double* eb = etabar + 6 * b;
        double* AAb = AA + 6 * b;
        const double* IA = p.IA + 6 * b;
        const double* IV = p.IV + 6 * b;
        double u[6];
        gdn_rt_force_adjoint(I, A, V, IA, IV, fb, AAb, xb, eb, u);
        const double* fx = d->xfrc_applied + 6 * b;
        if (fx[0] != 0 || fx[1] != 0 || fx[2] != 0) {
            gdn_rt_applied_adjoint(fb, fx, d->xipos + 3 * b, d->xmat + 9 * b, xb,
                                   out->gparam ? out->gparam + GDN_N_INERTIA_PARAMS * b + 1
                                               : NULL);
        }
        if (out->gparam) {
            double B[10];
            gdn_rt_param_adjoint(B, fb, A, u, V, d->xipos + 3 * b);
            gdn_inertia_param_vjp(m, d, b, B, out->gparam + GDN_N_INERTIA_PARAMS * b);
        }
        // per dof: ga, gv (Sdot), Sbar, Vprebar (a fixed axis has Sdot = 0 and no Sbar)
        const double* Fb = p.F + 6 * b;
        for (int t = dof0; t < dof0 + ndof; t++) {
            const double* S = p.S + 6 * t;
            double* sb = Sbar + 6 * t;
            if (out->ga) {
                out->ga[t] = gdn_dot6(S, AAb) + m->dof_armature[t] * y[t];
            }
            if (gdn_dof_kind(m, t) != GDN_AXIS_FIXED) {
                double c[6];
                gv[t] += gdn_dot6(p.Sdot + 6 * t, AAb);
                gdn_scl6(c, AAb, qvel[t]);
                for (int i = 0; i < 6; i++) {
                    sb[i] = y[t] * Fb[i] + a[t] * AAb[i];
                }
                gdn_rt_rate_adjoint(S, p.Vpre + 6 * t, c, Vprebar + 6 * t, sb);
            } else {
                memset(Vprebar + 6 * t, 0, 6 * sizeof(double));
            }
        }
        // groups last to first
        double RV[6] = {0}, RX[6] = {0};
        if (!split) {
            memcpy(RV, eb, sizeof(RV));
        }
        for (int t = dof0 + ndof - 1; t >= dof0; t--) {
            const double* S = p.S + 6 * t;
            gv[t] += gdn_dot6(S, RV);
            gq[t] += gdn_dot6(S, RX);
            if (gdn_dof_kind(m, t) != GDN_AXIS_FIXED) {
                gdn_addscl6(Sbar + 6 * t, Sbar + 6 * t, RV, qvel[t]);
            }
            int n = gdn_dof_group_size(m, t);
            if (n == 0) {
                continue;
            }
            double prebar[6] = {0};
            for (int k = t; k < t + n; k++) {
                gdn_axis_motion_adjoint(m, d, k, p.S + 6 * k, Sbar + 6 * k, prebar, xb);
                gdn_add6(RV, RV, Vprebar + 6 * k);
            }
            gdn_add6(RX, RX, prebar);
        }
        if (!split) {
            // xi_b = xi_parent + sum_j S_j dq_j
            for (int t = dof0; t < dof0 + ndof; t++) {
                gq[t] += gdn_dot6(p.S + 6 * t, xb);
            }
            gdn_add6(RX, RX, xb);
        }
        gdn_add6(xibar + 6 * par, xibar + 6 * par, RX);
        gdn_add6(etabar + 6 * par, etabar + 6 * par, RV);
        gdn_add6(AA + 6 * par, AA + 6 * par, AAb);
    }
    // the forces: - (d tau)' y
    for (int i = 0; i < nv; i++) {
        ny[i] = -y[i];
    }
    gdnStatus fst = gdn_passive_vjp(m, d, ny, gq, gv);
    if (out->gu) {
        memset(out->gu, 0, sizeof(double) * (size_t)m->nu);
    }
    if (fst == GDN_OK) {
        fst = gdn_actuation_vjp(m, d, ny, gq, gv, out->gu, out->gacc0);
    }
    if (fst != GDN_OK) {
        gdn_arena_reset(d, mark);
        return fst;
    }

    // the body tangents: returned (split form)
    if (out->xibar) {
        memcpy(out->xibar, xibar, nb6 * sizeof(double));
        memset(out->xibar, 0, 6 * sizeof(double));
    }
    if (out->etabar) {
        memcpy(out->etabar, etabar, nb6 * sizeof(double));
        memset(out->etabar, 0, 6 * sizeof(double));
    }
    for (int i = 0; i < nv; i++) {
        if (out->gq) {
            out->gq[i] += gq[i];
        }
        if (out->gv) {
            out->gv[i] += gv[i];
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_residual_vjp(const gdnModel* m, gdnData* d, const double* a, const double* y,
                           double* gq, double* gv, double* gu, double* gparam, double* Wbar) {
    gdnResidualAdjoint out = {gq, gv, NULL, gu, gparam, Wbar, NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL};
    return gdn_residual_vjp_primal(m, d, a, y, &out);
}

gdnStatus gdn_residual_vjp_primal(const gdnModel* m, gdnData* d, const double* a,
                                  const double* y, const gdnResidualAdjoint* out) {
    size_t mark = gdn_arena_mark(d);
    const double* W = gdn_wrenches_from_outputs(m, d);
    gdnStatus status = gdn_residual_vjp_ex(m, d, a, W, y, out);
    gdn_arena_reset(d, mark);
    return status;
}
