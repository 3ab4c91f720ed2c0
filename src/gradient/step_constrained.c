// SPDX-License-Identifier: Apache-2.0
// Exact tangent and adjoint of a constrained step: implicit differentiation of the solve.
#include "gradient/step_constrained.h"

#include <string.h>

#include "base/arena.h"
#include "collision/box_derivative.h"
#include "constraint/setconst_derivative.h"
#include "constraint/constraint.h"
#include "constraint/rows_derivative.h"
#include "constraint/rows_param_derivative.h"
#include "constraint/solver.h"
#include "dynamics/mass_factor.h"
#include "gradient/residual.h"
#include "gradient/step_derivative.h"
#include "gradient/wrench.h"
#include "kinematics/jacobian.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "math/cholesky.h"
#include "model/configuration_derivative.h"
#include "penalty/penalty.h"
#include "gradient/implicit_derivative.h"
#include "sim/integrator.h"

// The constrained step (sim/reduced.c), h = timestep, D = diag(dof_damping):
//   x  solves  r(q, v, x; W + W_c(f)) = 0,  f = f(J x - aref) with the row states held
//              (MuJoCo's primal optimum; residual.h's r, W the penalty wrenches, W_c the rows'
//              wrenches and dof forces, constraint/rows_derivative.h)
//   a  solves  r(q, v, a; W + W_c(f)) + h D a = 0   (mj_Euler; a = x without damping)
//   v' = v + h a,   q' = q (+) h v'
// Tangent (rows_derivative.h for djar0, dlogD and the frozen wrench tangent in dW):
//   delta f = -H_s djar0 + dlogD f   (f of the rows whose force follows D: not the linear
//             friction-loss state's constant +-frictionloss)
//   H dx    = -dr_x + J' delta f,   H = M + J' H_s J  (the Hessian of the primal cost)
//   df      = delta f - H_s J dx
//   (M + h D) da = -dr_a + J' df    (dr_x, dr_a: the residual's tangent at x and at a with f held)
//   dv' = dv + h da,  dq' = Phi_q dq + h Phi_v dv'
// with dr_x, dr_a less dqfrc, the dof-type rows' frozen generalized-force tangent (a ball
// limit's). The adjoint is the exact transpose (gdn_step_vjp_constrained below).

// H = M + J' H_s J (dense lower triangle from d->qM and efc_J), factored
static gdnStatus hessian(const gdnModel* m, gdnData* d, gdnConstrainedLinear* L) {
    const int nv = m->nv, nefc = d->nefc;
    double* H = L->H;
    for (int r = 0; r < nv; r++) {
        memcpy(H + (size_t)r * (size_t)nv, d->qM + (size_t)r * (size_t)nv,
               sizeof(double) * (size_t)(r + 1));
    }
    for (int i = 0; i < nefc; i++) {
        const int kind = L->lin.hs_kind[i];
        const int dim = kind == 2 ? d->contact[d->efc_id[i]].dim : 1;
        if (kind != 1 && kind != 2) {
            continue;
        }
        // H += sum_{j,k in the block} J_j' Hs_jk J_k (lower triangle)
        for (int j = 0; j < dim; j++) {
            const double* Jj = d->efc_J + (size_t)(i + j) * (size_t)nv;
            for (int k = 0; k < dim; k++) {
                const double hs = kind == 1 ? L->lin.Hs[6 * i] : L->lin.Hs[6 * i + j * dim + k];
                const double* Jk = d->efc_J + (size_t)(i + k) * (size_t)nv;
                if (hs == 0) {
                    continue;
                }
                for (int r = 0; r < nv; r++) {
                    if (Jj[r] == 0) {
                        continue;
                    }
                    const double s = hs * Jj[r];
                    double* Hr = H + (size_t)r * (size_t)nv;
                    for (int c = 0; c <= r; c++) {
                        Hr[c] += s * Jk[c];
                    }
                }
            }
        }
        i += dim - 1;
    }
    if (gdn_chol_factor(H, nv, GDN_MINVAL) < nv) {
        return GDN_ERR_SINGULAR;
    }
    return GDN_OK;
}

// 1 when d->solver_H is the factor of this linearization's H (no elliptic cone in its cone
// zone: below): a Newton solve kept it
// (solver_H_valid) at the states the primal update gives at its acceleration (Newton's final
// update computed them at that same acceleration, so they agree whenever the flag is set;
// checked row by row all the same: quadratic rows quadratic, cones in the cone state)
static int newton_factor_matches(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin) {
    if (m->opt.solver != GDN_SOL_NEWTON || !d->solver_H_valid) {
        return 0;
    }
    for (int i = 0; i < d->nefc; i++) {
        const int st = d->efc_state[i], kind = lin->hs_kind[i];
        // an elliptic contact in its cone zone: Newton's cone Hessian and the linearization's
        // H_s agree only to round-off (~3e-14 relative), and the damped A, B's identity
        // (transition.c) needs H = M + J' H_s J of these very H_s: factor it afresh
        if (kind == 2) {
            return 0;
        }
        const int want = st == GDN_CNSTRSTATE_QUADRATIC ? 1 : st == GDN_CNSTRSTATE_CONE ? 2 : 0;
        if ((kind == 3 ? 2 : kind) != want) {
            return 0;
        }
    }
    return 1;
}

// the linearization at the step the front half left in d (nefc > 0)
// forward: mj_forward's acceleration (the solver's x, no final damped or implicit solve)
static gdnStatus linearize(const gdnModel* m, gdnData* d, const double* implicit_LU,
                           gdnConstrainedLinear* L, int forward, const char** what) {
    const int nv = m->nv;
    const size_t nb6 = 6 * (size_t)m->nbody;
    const double hd = forward ? 0 : gdn_damping_h(m);
    L->x = d->qacc_warmstart;
    L->dtheta = NULL;
    L->S = gdn_arena_doubles(d, 6 * (size_t)nv + (size_t)nv * (size_t)nv + nb6 + (size_t)nv);
    if (!L->S) {
        return GDN_ERR_MEMORY;
    }
    L->H = L->S + 6 * (size_t)nv;
    L->W = L->H + (size_t)nv * (size_t)nv;
    double* extra = L->W + nb6;
    gdn_dof_axes_about(m, d, 0, L->S);
    gdnStatus status = gdn_rows_linear_build(m, d, L->S, L->x, &L->lin, what);
    if (status == GDN_OK && newton_factor_matches(m, d, &L->lin)) {
        // the factor the Newton solve kept at its solution, for these very row states
        for (int r = 0; r < m->nv; r++) {
            memcpy(L->H + (size_t)r * (size_t)m->nv, d->solver_H + (size_t)r * (size_t)m->nv,
                   sizeof(double) * (size_t)(r + 1));
        }
    } else if (status == GDN_OK) {
        status = hessian(m, d, L);
        if (status == GDN_ERR_SINGULAR) {
            *what = "singular constraint Hessian";
        }
    }
    if (status != GDN_OK) {
        return status;
    }
    L->damped = 0;
    L->Himp = NULL;
    for (int i = 0; i < nv; i++) {
        extra[i] = hd * m->dof_damping[i];
        L->damped |= hd > 0 && m->dof_damping[i] > 0;
    }
    if (m->opt.integrator == GDN_INT_IMPLICIT && !forward) {
        // the implicit integrator's final solve: (M - h qDeriv) a = qfrc_smooth + qfrc_constraint
        L->damped = 1;
        L->Himp = gdn_arena_doubles(d, (size_t)nv * (size_t)nv + 1);
        if (!L->Himp) {
            return GDN_ERR_MEMORY;
        }
        if (implicit_LU) {
            memcpy(L->Himp, implicit_LU, sizeof(double) * (size_t)nv * (size_t)nv);
        } else {
            status = gdn_implicit_matrix(m, d, L->Himp);
        }
        if (status != GDN_OK) {
            return status;
        }
    } else if (L->damped) {
        status = gdn_mass_factor_alloc(m, d, NULL, &L->damp);
        if (status != GDN_OK) {
            return status;
        }
        gdn_mass_factor(m, d->qM, extra, &L->damp);
    }
    // W: the penalty wrenches as the step summed them, plus the rows' at the solved forces
    gdnStatus wst = gdn_wrenches_again(m, d, NULL, L->W);
    if (wst != GDN_OK) {
        return wst;
    }
    gdn_rows_wrench(m, d, &L->lin, L->W, NULL);
    // the report: how far this linearization is from another branch
    d->deriv_state_margin = L->lin.state_margin;
    d->deriv_activation_margin = L->lin.activation_margin;
    for (int k = 0; k < d->ncon; k++) {
        if (d->contact[k].efc_address >= 0 && gdn_contact_mpr_limit(m, d->contact + k)) {
            d->deriv_flags |= GDN_DERIV_MPR_LIMIT;
        }
    }
    d->deriv_flags |= (L->lin.state_margin < GDN_DERIV_MARGIN_TOL ? GDN_DERIV_NEAR_STATE : 0) |
                      (L->lin.activation_margin < GDN_DERIV_MARGIN_TOL
                           ? GDN_DERIV_NEAR_ACTIVATION
                           : 0) |
                      (L->lin.force_gap > GDN_DERIV_SOLVE_TOL ? GDN_DERIV_INEXACT_SOLVE : 0);
    return GDN_OK;
}

gdnStatus gdn_constrained_linearize(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                    gdnConstrainedLinear* L, const char** what) {
    return linearize(m, d, implicit_LU, L, 0, what);
}

gdnStatus gdn_constrained_linearize_forward(const gdnModel* m, gdnData* d,
                                            gdnConstrainedLinear* L, const char** what) {
    return linearize(m, d, NULL, L, 1, what);
}

gdnStatus gdn_step_jvp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                   const double* dq, const double* dv, const double* du,
                                   const double* dparam, const double* dweights,
                                   const double* dvert, const gdnContactParamGradients* dcp,
                                   double* dq_next, double* dv_next, const char** what) {
    size_t mark = gdn_arena_mark(d);
    gdnConstrainedLinear L;
    gdnStatus status = gdn_constrained_linearize(m, d, implicit_LU, &L, what);
    if (status == GDN_OK && dcp) {
        // the contact parameters' direction (rows_param_derivative.h)
        status = gdn_rows_param_direction(m, d, dcp, &L.dtheta, what);
        L.lin.dsize = dcp->geom_size;
    }
    if (status == GDN_OK) {
        status = gdn_step_jvp_linear(m, d, &L, dq, dv, du, dparam, dweights, dvert, dq_next,
                                     dv_next, what);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_jvp_linear(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* Lp,
                              const double* dq, const double* dv, const double* du,
                              const double* dparam, const double* dweights,
                              const double* dvert, double* dq_next, double* dv_next,
                              const char** what) {
    const int nv = m->nv;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    double* da = gdn_arena_doubles(d, 2 * (size_t)(nv > 0 ? nv : 1));
    if (!da) {
        return GDN_ERR_MEMORY;
    }
    double* qvel_next = da + nv;
    gdnStatus status =
        gdn_accel_jvp_linear(m, d, Lp, dq, dv, du, dparam, dweights, dvert, da, what);
    if (status == GDN_OK) {
        // dv' = dv + h da,  dq' = Phi_q dq + h Phi_v dv'
        for (int i = 0; i < nv; i++) {
            qvel_next[i] = d->qvel[i] + h * d->qacc[i];
            dv_next[i] = (dv ? dv[i] : 0) + h * da[i];
        }
        gdn_integrate_pos_jvp(m, qvel_next, h, dq, dv_next, dq_next);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_accel_jvp_linear(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* Lp,
                               const double* dq, const double* dv, const double* du,
                               const double* dparam, const double* dweights,
                               const double* dvert, double* da, const char** what) {
    return gdn_accel_force_jvp_linear(m, d, Lp, dq, dv, du, dparam, dweights, dvert, da, NULL,
                                      what);
}

gdnStatus gdn_accel_force_jvp_linear(const gdnModel* m, gdnData* d,
                                     const gdnConstrainedLinear* Lp, const double* dq,
                                     const double* dv, const double* du, const double* dparam,
                                     const double* dweights, const double* dvert, double* da,
                                     double* dforce, const char** what) {
    const int nv = m->nv, nefc = d->nefc;
    const size_t nb6 = 6 * (size_t)m->nbody;
    (void)what; // the linearization named any refusal
    size_t mark = gdn_arena_mark(d);
    const gdnConstrainedLinear L = *Lp;
    // xi, eta, etax, xi2 (6 nbody); dW (6 nbody); djar0, dlogD, df, tmp, dfj (nefc); dr, rhs,
    // (unused), dqfrc (nv)
    double* xi = gdn_arena_doubles(d, 5 * nb6 + 5 * (size_t)nefc + 4 * (size_t)nv);
    if (!xi) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdnStatus status = GDN_OK;
    double* eta = xi + nb6;
    double* etax = eta + nb6;
    double* xi2 = etax + nb6;
    double* dW = xi2 + nb6;
    double* djar0 = dW + nb6;
    double* dlogD = djar0 + nefc;
    double* df = dlogD + nefc;
    double* tmp = df + nefc;
    double* dr = tmp + nefc;
    double* rhs = dr + nv;
    double* dqfrc = rhs + 2 * nv;
    double* dfj = dqfrc + nv;
    memset(dqfrc, 0, sizeof(double) * (size_t)nv);
    memset(dfj, 0, sizeof(double) * (size_t)nefc);

    // body tangents: (xi, eta) of (dq, dv); etax the motion of V_b(q, x) under dq
    gdn_body_tangent_jvp_axes(m, d, L.S, d->qvel, dq, dv, xi, eta);
    gdn_body_tangent_jvp_axes(m, d, L.S, L.x, dq, NULL, xi2, etax);
    // dW: the penalty wrench tangent, then the rows' frozen-force tangent
    status = gdn_wrench_jvp(m, d, xi, eta, dvert, dparam, dW);
    if (status == GDN_OK) {
        status = gdn_rows_jvp(m, d, &L.lin, xi, eta, etax, dq, dv, NULL, djar0, dlogD, dW,
                              dqfrc);
    }
    // delta f = -H_s djar0 + dlogD f, dlogD with the inverse weights' share
    if (status == GDN_OK && dweights) {
        gdn_rows_weights_jvp(m, d, dweights, dlogD);
    }
    // and the contact parameters' share, with dfj their force change at fixed jar
    if (status == GDN_OK && L.dtheta) {
        gdn_rows_param_jvp(m, d, &L.lin, L.dtheta, djar0, dlogD, dfj, dW);
    }
    if (status == GDN_OK) {
        gdn_rows_hs_mul(d, &L.lin, djar0, df);
        for (int i = 0; i < nefc; i++) {
            df[i] = -df[i] + dlogD[i] * gdn_rows_scaled_force(d, &L.lin, i) + dfj[i];
        }
        gdnResidualDirection dir = {dq, dv, NULL, du, dparam, dW, xi, eta,
                                    gdn_weights_acc0_const(m, dweights)};
        status = gdn_residual_jvp_ex(m, d, L.x, L.W, &dir, dr);
    }
    if (status == GDN_OK) {
        // H dx = -dr_x + J' delta f  (dr_x = the residual's tangent - dqfrc, the dof rows'
        // frozen force)
        gdn_constraint_mul_JT(m, d, rhs, df);
        for (int i = 0; i < nv; i++) {
            rhs[i] += dqfrc[i] - dr[i];
        }
        gdn_chol_solve(rhs, L.H, rhs, nv);
        // df = delta f - H_s J dx
        gdn_solver_mul_J(m, d, djar0, rhs);
        gdn_rows_hs_mul(d, &L.lin, djar0, tmp);
        for (int i = 0; i < nefc; i++) {
            df[i] -= tmp[i];
        }
        if (dforce) {
            memcpy(dforce, df, sizeof(double) * (size_t)nefc);
        }
        if (L.damped) {
            // (M + h D) da = -dr_a + J' df;  implicit: (M - h qDeriv) da = -dr_a + J' df +
            // h (dqDeriv) a (gradient/implicit_derivative.h; t in tmp's place: nv <= 2 nv)
            gdnResidualDirection dir = {dq, dv, NULL, du, dparam, dW, xi, eta,
                                        gdn_weights_acc0_const(m, dweights)};
            status = gdn_residual_jvp_ex(m, d, d->qacc, L.W, &dir, dr);
            double* t = rhs + nv;
            if (status == GDN_OK && L.Himp) {
                status = gdn_implicit_dqderiv_jvp(m, d, d->qacc, dq, dv, du, dparam,
                                                  gdn_weights_acc0_const(m, dweights), t);
            }
            if (status == GDN_OK) {
                gdn_constraint_mul_JT(m, d, rhs, df);
                for (int i = 0; i < nv; i++) {
                    rhs[i] += dqfrc[i] - dr[i] + (L.Himp ? m->opt.timestep * t[i] : 0);
                }
                if (L.Himp) {
                    status = gdn_implicit_solve(m, d, L.Himp, rhs);
                } else {
                    gdn_mass_solve(m, &L.damp, rhs);
                }
            }
        }
    }
    if (status == GDN_OK) {
        memcpy(da, rhs, sizeof(double) * (size_t)nv);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_vjp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                   const double* gq_next, const double* gv_next, double* gqpos,
                                   double* gqvel, double* gctrl, double* gparam, double* gvert,
                                   double* gweights, const gdnContactParamGradients* cp,
                                   const char** what) {
    const int nv = m->nv, nu = m->nu;
    size_t mark = gdn_arena_mark(d);
    // qvel', gq, gv, abar (nv)
    double* qvel_next = gdn_arena_doubles(d, 4 * (size_t)(nv > 0 ? nv : 1));
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* gq = qvel_next + nv;
    double* gv = gq + nv;
    double* abar = gv + nv;
    // integration: gq = Phi_q' gq',  gv = w = gv' + h Phi_v' gq',  abar = h w
    gdn_step_integration_vjp(m, d, d->qacc, gq_next, gv_next, qvel_next, gq, gv, abar);
    if (gctrl) {
        memset(gctrl, 0, sizeof(double) * (size_t)nu);
    }
    gdnStatus status =
        gdn_accel_vjp_constrained(m, d, implicit_LU, abar, gq, gv, gctrl, gparam, gvert,
                                  gweights, cp, what);
    if (status == GDN_OK) {
        gdn_step_grad_out(nv, gq, gv, gqpos, gqvel);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_accel_vjp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                    const double* abar, double* gq, double* gv, double* gctrl,
                                    double* gparam, double* gvert, double* gweights,
                                    const gdnContactParamGradients* cp, const char** what) {
    size_t mark = gdn_arena_mark(d);
    gdnConstrainedLinear L;
    gdnStatus status = gdn_constrained_linearize(m, d, implicit_LU, &L, what);
    if (status == GDN_OK) {
        status = gdn_accel_force_vjp_linear(m, d, &L, abar, NULL, gq, gv, gctrl, gparam, gvert,
                                            gweights, cp, what);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_accel_force_vjp_linear(const gdnModel* m, gdnData* d,
                                     const gdnConstrainedLinear* Lp, const double* abar,
                                     const double* fbar, double* gq, double* gv, double* gctrl,
                                     double* gparam, double* gvert, double* gweights,
                                     const gdnContactParamGradients* cp, const char** what) {
    const int nv = m->nv, nu = m->nu, nefc = d->nefc;
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    gdnConstrainedLinear L = *Lp;
    gdnStatus status = GDN_OK;
    // y, z (nv); dfbar, deltabar, tmp (nefc); xibar, etabar, etaxbar, Wbar, Wbar2, xibar2,
    // etabar2 (6 nbody); gu1, gu2 (nu); dqfrcbar (nv)
    const size_t nus = (size_t)(nu > 0 ? nu : 1);
    double* y = gdn_arena_doubles(d, 3 * (size_t)nv + 3 * (size_t)nefc + 7 * nb6 + 2 * nus);
    if (status == GDN_OK && !y) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    double* z = y + nv;
    double* dfbar = z + nv;
    double* deltabar = dfbar + nefc;
    double* tmp = deltabar + nefc;
    double* xibar = tmp + nefc;
    double* etabar = xibar + nb6;
    double* etaxbar = etabar + nb6;
    double* Wbar = etaxbar + nb6;
    double* Wbar2 = Wbar + nb6;
    double* xibar2 = Wbar2 + nb6;
    double* etabar2 = xibar2 + nb6;
    double* gu1 = etabar2 + nb6;
    double* gu2 = gu1 + nus;
    double* dqfrcbar = gu2 + nus;
    memcpy(y, abar, sizeof(double) * (size_t)nv);
    memset(dfbar, 0, sizeof(double) * (size_t)nefc);
    if (L.damped) {
        // da = (M + hD)^-1 (-dr_a + J' df): y = (M + hD)^-1 abar, rbar_a = -y, dfbar = J y;
        // df = delta f - H_s J dx: dxbar = -J' H_s dfbar, deltabar = dfbar
        if (L.Himp) {
            gdn_implicit_solve_transposed(m, L.Himp, y);
        } else {
            gdn_mass_solve(m, &L.damp, y);
        }
        gdn_solver_mul_J(m, d, dfbar, y);
        gdn_rows_hs_mul(d, &L.lin, dfbar, tmp);
        gdn_constraint_mul_JT(m, d, z, tmp);
        for (int i = 0; i < nv; i++) {
            z[i] = -z[i];
            y[i] = -y[i]; // rbar_a
        }
    } else {
        memcpy(z, y, sizeof(double) * (size_t)nv); // dxbar = abar
    }
    if (fbar) {
        // df's own cotangent: dfbar += fbar, dxbar -= J' H_s fbar
        for (int i = 0; i < nefc; i++) {
            dfbar[i] += fbar[i];
        }
        gdn_rows_hs_mul(d, &L.lin, fbar, tmp);
        gdn_constraint_mul_JT(m, d, dqfrcbar, tmp);
        for (int i = 0; i < nv; i++) {
            z[i] -= dqfrcbar[i];
        }
    }
    // H dx = -dr_x + J' delta f: z = H^-1 dxbar, rbar_x = -z, deltabar = dfbar + J z
    gdn_chol_solve(z, L.H, z, nv);
    gdn_solver_mul_J(m, d, deltabar, z);
    for (int i = 0; i < nefc; i++) {
        deltabar[i] += dfbar[i];
    }
    for (int i = 0; i < nv; i++) {
        z[i] = -z[i];
    }
    // delta f = -H_s djar0 + dlogD f:  djar0bar = -H_s deltabar (in dfbar),
    // dlogDbar = f deltabar (in tmp)
    gdn_rows_hs_mul(d, &L.lin, deltabar, dfbar);
    for (int i = 0; i < nefc; i++) {
        dfbar[i] = -dfbar[i];
        tmp[i] = gdn_rows_scaled_force(d, &L.lin, i) * deltabar[i];
    }
    // residual adjoints at x (rbar_x = z) and, damped, at a (rbar_a = y)
    double* gacc0 = gparam ? gdn_weights_acc0(m, gweights) : NULL;
    gdnResidualAdjoint out = {gq, gv, NULL, gctrl ? gu1 : NULL, gparam, Wbar, xibar, etabar,
                              NULL, NULL, NULL, NULL, NULL, NULL, gacc0};
    status = gdn_residual_vjp_ex(m, d, L.x, L.W, z, &out);
    if (status == GDN_OK && L.damped) {
        gdnResidualAdjoint out2 = {gq, gv, NULL, gctrl ? gu2 : NULL, gparam, Wbar2, xibar2,
                                   etabar2, NULL, NULL, NULL, NULL, NULL, NULL, gacc0};
        status = gdn_residual_vjp_ex(m, d, d->qacc, L.W, y, &out2);
        for (size_t k = 0; k < nb6; k++) {
            Wbar[k] += Wbar2[k];
            xibar[k] += xibar2[k];
            etabar[k] += etabar2[k];
        }
        for (int k = 0; gctrl && k < nu; k++) {
            gu1[k] += gu2[k];
        }
    }
    // implicit: the change of qDeriv, z = h lambda = -h rbar_a (in tmp2's place: dqfrcbar)
    if (status == GDN_OK && L.Himp) {
        for (int i = 0; i < nv; i++) {
            dqfrcbar[i] = -m->opt.timestep * y[i];
        }
        status = gdn_implicit_dqderiv_vjp(m, d, d->qacc, dqfrcbar, gq, gv, gctrl ? gu1 : NULL,
                                          gparam, gparam ? gdn_weights_acc0(m, gweights) : NULL);
    }
    // gctrl accumulates (the RK4 step sums its stages)
    for (int k = 0; status == GDN_OK && gctrl && k < nu; k++) {
        gctrl[k] += gu1[k];
    }
    // the inertia parameters also move D through the inverse weights (setconst_derivative.h)
    if (gparam && gweights) {
        gdn_rows_weights_vjp(m, d, tmp, gweights);
    }
    // the contact parameters (rows_param_derivative.h; delta f's share at fixed jar has the
    // cotangent deltabar); their sizes ride the rows' geometry adjoint below
    if (status == GDN_OK && cp) {
        status = gdn_rows_param_step_vjp(m, d, &L.lin, dfbar, tmp, deltabar, Wbar, cp, what);
        L.lin.sizebar = cp->geom_size;
    }
    // dqfrc enters both right-hand sides with +1: dqfrcbar = -(rbar_x + rbar_a)
    for (int i = 0; i < nv; i++) {
        dqfrcbar[i] = -z[i] - (L.damped ? y[i] : 0);
    }
    // Wbar into the penalty model and the rows; then the body tangents
    memset(etaxbar, 0, sizeof(double) * nb6);
    if (status == GDN_OK && gdn_wrench_active(m)) {
        status = gdn_wrench_vjp(m, d, Wbar, xibar, etabar, gvert, gparam);
    }
    if (status == GDN_OK) {
        status = gdn_rows_vjp(m, d, &L.lin, dfbar, tmp, Wbar, dqfrcbar, xibar, etabar, etaxbar,
                              gq, gv);
    }
    if (status == GDN_OK) {
        status = gdn_body_tangent_vjp_axes(m, d, L.S, d->qvel, xibar, etabar, gq, gv);
    }
    if (status == GDN_OK) {
        status = gdn_body_tangent_vjp_axes(m, d, L.S, L.x, NULL, etaxbar, gq, NULL);
    }
    gdn_arena_reset(d, mark);
    return status;
}
