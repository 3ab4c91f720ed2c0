// SPDX-License-Identifier: Apache-2.0
// The adjoint of the inverse weights (setconst.c) with respect to the bodies' inertia parameters.
#include "constraint/setconst_derivative.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "dynamics/crb.h"
#include "dynamics/passive.h"
#include "dynamics/transmission.h"
#include "gradient/residual.h"
#include "gradient/residual_tangent.h"
#include "kinematics/jacobian.h"
#include "kinematics/kinematics.h"
#include "math/cholesky.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "model/inertia_params_derivative.h"

// At qpos0, W = M^-1 and for body b the COM Jacobian (Jp; Jr) (gdn_jac_body_com):
//   body_invweight0[2b] = tr(Jp W Jp') / 3,  body_invweight0[2b+1] = tr(Jr W Jr') / 3,
//   dof_invweight0 of a joint's group g (hinge/slide; ball; free translation, free rotation) =
//   sum_{k in g} W_kk / |g| on every dof of g, tendon_invweight0[t] = J_t W J_t' (J_t = ten_J at
//   qpos0, which the inertias do not move).
// With the cotangents gbw, gdw: s = <gbw, body_invweight0> + <gdw, dof_invweight0> = tr(W G),
//   G = sum_b (gbw_2b / 3) Jp' Jp + (gbw_2b+1 / 3) Jr' Jr + sum_g (sum_{i in g} gdw_i / |g|) I_g
//       + sum_t gdw_(nv + t) J_t' J_t.
// Then ds = -<dM, Y> (Y = W G W) + sum_b (2 gbw_2b / 3) tr(Jp W dJp'), where M(pi) enters as
//   <dM, Y> = sum_b <dI_b, J_b Y J_b'>  (M = sum_b J_b' I_b J_b, J_b the body's 6 x nv Jacobian
// about the origin: the dof axes on its path) and the COM c_b = xpos + R ipos moves Jp's
// columns by S_j,ang x dc: tr(Jp W dJp') = dc . sum_j (Jp W)_j x S_j,ang.
// d at qpos0 at rest (the caller's qpos, qvel into saved, nq + nv): kinematics, the dof axes S
// about the origin (6 nv) and L, the dense Cholesky factor of M(qpos0) (lower; nv x nv).
// GDN_ERR_SINGULAR when M is singular (the loader leaves the weights zero then)
static gdnStatus at_qpos0(const gdnModel* m, gdnData* d, double* saved, double* S, double* L) {
    const int nq = m->nq, nv = m->nv;
    const size_t n = (size_t)nv;
    memcpy(saved, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(saved + nq, d->qvel, sizeof(double) * n);
    memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)nq);
    memset(d->qvel, 0, sizeof(double) * n);
    gdn_kinematics_stage(m, d);
    gdn_com_pos(m, d);
    gdn_crb_com(m, d);
    gdn_dof_axes_about(m, d, 0, S);
    for (size_t r = 0; r < n; r++) {
        memcpy(L + r * n, d->qM + r * n, sizeof(double) * (r + 1));
    }
    return gdn_chol_factor(L, nv, GDN_MINVAL) < nv ? GDN_ERR_SINGULAR : GDN_OK;
}

// the caller's qpos, qvel back from saved (its kinematics are the caller's to recompute)
static void restore(const gdnModel* m, gdnData* d, const double* saved) {
    memcpy(d->qpos, saved, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, saved + m->nq, sizeof(double) * (size_t)m->nv);
}

gdnStatus gdn_constraint_weights_vjp(const gdnModel* m, gdnData* d, const double* gbw,
                                     const double* gdw, double* gparam) {
    const int nv = m->nv, nq = m->nq;
    // nothing to add (no constrained step): return before any arithmetic, so that gparam keeps
    // its bits
    int any = 0;
    for (int i = 0; gbw && i < 2 * m->nbody; i++) {
        any |= gbw[i] != 0;
    }
    for (int i = 0; gdw && i < nv + m->ntendon + m->nu; i++) {
        any |= gdw[i] != 0;
    }
    if (nv == 0 || !any) {
        return GDN_OK;
    }
    const size_t n = (size_t)nv;
    size_t mark = gdn_arena_mark(d);
    // saved qpos, qvel (nq + nv); L, W, G, Y (n n each); J (6 n); S (6 n); a unit vector (n)
    double* saved = gdn_arena_doubles(d, (size_t)nq + n + 4 * n * n + 13 * n);
    if (!saved) {
        return GDN_ERR_MEMORY;
    }
    double* L = saved + nq + n;
    double* W = L + n * n;
    double* G = W + n * n;
    double* Y = G + n * n;
    double* J = Y + n * n;
    double* S = J + 6 * n;
    double* e = S + 6 * n;
    // W = M^-1 from the dense Cholesky of M(qpos0)
    gdnStatus status = at_qpos0(m, d, saved, S, L);
    for (size_t k = 0; status == GDN_OK && k < n; k++) {
        memset(e, 0, sizeof(double) * n);
        e[k] = 1;
        gdn_chol_solve(W + k * n, L, e, nv); // column k (W symmetric: row k)
    }

    // G from the cotangents; the COM terms' cotangent of c_b into gparam[b][1..3]
    memset(G, 0, sizeof(double) * n * n);
    for (int b = 1; status == GDN_OK && b < m->nbody; b++) {
        const double ct = gbw ? gbw[2 * b] / 3 : 0, cr = gbw ? gbw[2 * b + 1] / 3 : 0;
        if (ct == 0 && cr == 0) {
            continue;
        }
        gdn_jac_body_com(m, d, J, J + 3 * n, b);
        for (int r = 0; r < 6; r++) {
            const double c = r < 3 ? ct : cr;
            const double* Jr = J + (size_t)r * n;
            for (size_t i = 0; c != 0 && i < n; i++) {
                for (size_t k = 0; Jr[i] != 0 && k < n; k++) {
                    G[i * n + k] += c * Jr[i] * Jr[k];
                }
            }
        }
        // cbar = 2 ct sum_j (Jp W)_j x w_j over the dofs j on b's path (the others' columns
        // of Jp are 0 wherever the point is)
        double cbar[3] = {0, 0, 0};
        for (int jj = gdn_jac_last_dof(m, b); ct != 0 && jj >= 0; jj = m->dof_parentid[jj]) {
            const size_t j = (size_t)jj;
            double col[3], t[3];
            for (int r = 0; r < 3; r++) {
                col[r] = gdn_dot_mujoco(J + (size_t)r * n, W + j * n, nv);
            }
            gdn_cross3(t, col, S + 6 * j);
            gdn_addscl3(cbar, cbar, t, 2 * ct);
        }
        double local[3];
        gdn_mulmat3T(local, d->xmat + 9 * b, cbar);
        if (gparam) {
            gdn_add3(gparam + GDN_N_INERTIA_PARAMS * b + 1,
                     gparam + GDN_N_INERTIA_PARAMS * b + 1, local);
        }
    }
    for (int j = 0; status == GDN_OK && gdw && j < m->njnt; j++) {
        const int adr = m->jnt_dofadr[j], type = m->jnt_type[j];
        const int ng = type == GDN_JNT_FREE ? 2 : 1;
        const int size = type == GDN_JNT_FREE || type == GDN_JNT_BALL ? 3 : 1;
        for (int g = 0; g < ng; g++) {
            const int first = adr + g * size;
            double sum = 0;
            for (int k = 0; k < size; k++) {
                sum += gdw[first + k];
            }
            for (int k = 0; k < size; k++) {
                G[(size_t)(first + k) * n + (size_t)(first + k)] += sum / size;
            }
        }
    }

    for (int t = 0; status == GDN_OK && gdw && t < m->ntendon; t++) {
        const double c = gdw[nv + t];
        const double* Jt = d->ten_J + (size_t)t * n;
        for (size_t i = 0; c != 0 && i < n; i++) {
            for (size_t k = 0; Jt[i] != 0 && k < n; k++) {
                G[i * n + k] += c * Jt[i] * Jt[k];
            }
        }
    }

    // Y = W G W;  gparam += -sum_k (dr(a = Y_k)/dpi)' e_k + (dr(a = 0)/dpi)' 1
    for (size_t i = 0; status == GDN_OK && i < n; i++) {
        for (size_t k = 0; k < n; k++) {
            L[i * n + k] = gdn_dot_mujoco(G + i * n, W + k * n, nv); // (G W)_ik, W symmetric
        }
    }
    for (size_t i = 0; status == GDN_OK && i < n; i++) {
        for (size_t k = 0; k < n; k++) {
            double s = 0;
            for (size_t j = 0; j < n; j++) {
                s += W[i * n + j] * L[j * n + k];
            }
            Y[i * n + k] = s;
        }
    }
    // the muscles' acc0 = |x|, x = M^-1 b (b the moment row at qpos0): d acc0 = -(y' dM x) / acc0
    // with y = M^-1 x, so Y += (g / acc0) sym(y x'), then the same -<dM, Y>
    if (status == GDN_OK && gdw && m->nu > 0) {
        gdn_transmission(m, d); // the moment rows at qpos0
    }
    for (int i = 0; status == GDN_OK && gdw && i < m->nu; i++) {
        const double g = gdw[nv + m->ntendon + i];
        const double a0 = m->actuator_acc0[i];
        if (g == 0 || !(a0 > GDN_MINVAL)) {
            continue;
        }
        // b into e, x = W b into G's first row, y = W x into its second (G is spent)
        double* x = G;
        double* y = G + n;
        memset(e, 0, sizeof(double) * n);
        gdn_actuator_moment_add(m, d, e, i, 1);
        for (size_t r = 0; r < n; r++) {
            x[r] = gdn_dot_mujoco(W + r * n, e, nv);
        }
        for (size_t r = 0; r < n; r++) {
            y[r] = gdn_dot_mujoco(W + r * n, x, nv);
        }
        const double c = g / a0;
        for (size_t r = 0; r < n; r++) {
            for (size_t k = 0; k < n; k++) {
                Y[r * n + k] += 0.5 * c * (y[r] * x[k] + x[r] * y[k]);
            }
        }
    }
    // -<dM, Y> body by body: M = sum_b J_b' I_b J_b with J_b's columns the axes S_j of the dofs
    // on b's path, so <dM, Y> = sum_b <dI_b, sum_{i,k} Y_ik S_i S_k'>: the bilinear form of I_b
    // (about its COM c_b, the vectors moved there) summed over u = S_i, w = sum_k Y_ik S_k
    for (int b = 1; status == GDN_OK && gparam && b < m->nbody; b++) {
        const double* c = d->xipos + 3 * b;
        double B[10] = {0};
        for (int ii = gdn_jac_last_dof(m, b); ii >= 0; ii = m->dof_parentid[ii]) {
            const size_t i = (size_t)ii;
            double w[6] = {0}, uc[6], wc[6];
            for (int kk = gdn_jac_last_dof(m, b); kk >= 0; kk = m->dof_parentid[kk]) {
                gdn_addscl6(w, w, S + 6 * (size_t)kk, Y[i * n + (size_t)kk]);
            }
            gdn_rt_move_motion(uc, S + 6 * i, c);
            gdn_rt_move_motion(wc, w, c);
            gdn_inertia_bilinear(uc, wc, -1, B);
        }
        gdn_inertia_param_vjp(m, d, b, B, gparam + GDN_N_INERTIA_PARAMS * b);
    }
    if (status == GDN_ERR_SINGULAR) {
        status = GDN_OK;
    }
    restore(m, d, saved);
    gdn_arena_reset(d, mark);
    return status;
}

// The tangent of the weights under dparam, at qpos0 as above: with w = W x for each row x of
// Jp, Jr (bodies) and e_k (dofs), d(x W x') = 2 dx . w - w' dM w, where dM w = dr(a = w) - dr(a =
// 0) along dparam (the residual's tangent) and only Jp moves (by S_j,ang x dc, dc = R dipos)
gdnStatus gdn_constraint_weights_jvp(const gdnModel* m, gdnData* d, const double* dparam,
                                     double* dbw, double* ddw) {
    const int nv = m->nv, nq = m->nq;
    memset(dbw, 0, sizeof(double) * 2 * (size_t)m->nbody);
    memset(ddw, 0, sizeof(double) * (size_t)(nv + m->ntendon + m->nu > 0 ? nv + m->ntendon + m->nu
                                                                          : 1));
    if (nv == 0 || !dparam) {
        return GDN_OK;
    }
    const size_t n = (size_t)nv;
    size_t mark = gdn_arena_mark(d);
    // saved qpos, qvel (nq + n); L (n n); J, S (6 n each); w, dMw, dr0, zero (n each)
    double* saved = gdn_arena_doubles(d, (size_t)nq + n + n * n + 16 * n);
    if (!saved) {
        return GDN_ERR_MEMORY;
    }
    double* L = saved + nq + n;
    double* J = L + n * n;
    double* S = J + 6 * n;
    double* w = S + 6 * n;
    double* dMw = w + n;
    double* dr0 = dMw + n;
    double* zero = dr0 + n;
    memset(zero, 0, sizeof(double) * n);
    gdnStatus status = at_qpos0(m, d, saved, S, L);
    gdnResidualDirection dir = {NULL, NULL, NULL, NULL, dparam, NULL, NULL, NULL, NULL};
    if (status == GDN_OK) {
        status = gdn_residual_jvp_ex(m, d, zero, NULL, &dir, dr0);
    }
    // d(x W x') for one row x (n): 2 dx . w - w' (dr(w) - dr(0)), dx given or NULL
    for (int b = 1; status == GDN_OK && b <= m->nbody + nv - 1; b++) {
        const int body = b < m->nbody ? b : 0;
        const int dof = b < m->nbody ? -1 : b - m->nbody;
        int nrow = 6;
        if (body > 0) {
            gdn_jac_body_com(m, d, J, J + 3 * n, body);
        } else {
            // the dof rows of dof's group: only the group's first dof does the work
            const int j = m->dof_jntid[dof], adr = m->jnt_dofadr[j], type = m->jnt_type[j];
            const int size = type == GDN_JNT_FREE || type == GDN_JNT_BALL ? 3 : 1;
            if ((dof - adr) % size != 0) {
                continue;
            }
            nrow = size;
            memset(J, 0, sizeof(double) * (size_t)nrow * n);
            for (int k = 0; k < nrow; k++) {
                J[(size_t)k * n + (size_t)(dof + k)] = 1;
            }
        }
        double dc[3] = {0, 0, 0};
        if (body > 0) {
            gdn_mulmat3(dc, d->xmat + 9 * body, dparam + GDN_N_INERTIA_PARAMS * body + 1);
        }
        for (int r = 0; r < nrow && status == GDN_OK; r++) {
            const double* x = J + (size_t)r * n;
            gdn_chol_solve(w, L, x, nv);
            status = gdn_residual_jvp_ex(m, d, w, NULL, &dir, dMw);
            double val = 0;
            for (size_t k = 0; k < n; k++) {
                val -= w[k] * (dMw[k] - dr0[k]);
            }
            if (body > 0 && r < 3) {
                // dx_j = (S_j,ang x dc)_r on the dofs j of b's path (Jp is 0 elsewhere)
                for (int k = gdn_jac_last_dof(m, body); k >= 0; k = m->dof_parentid[k]) {
                    double t[3];
                    gdn_cross3(t, S + 6 * k, dc);
                    val += 2 * t[r] * w[k];
                }
            }
            if (body > 0) {
                dbw[2 * body + (r < 3 ? 0 : 1)] += val / 3;
            } else {
                ddw[dof] += val / nrow;
            }
        }
        if (body == 0) {
            for (int k = 1; k < nrow; k++) {
                ddw[dof + k] = ddw[dof];
            }
        }
    }
    // tendons: x = J_t (fixed by the kinematics at qpos0), d(x W x') = -w' (dr(w) - dr(0))
    for (int t = 0; status == GDN_OK && t < m->ntendon; t++) {
        gdn_chol_solve(w, L, d->ten_J + (size_t)t * n, nv);
        status = gdn_residual_jvp_ex(m, d, w, NULL, &dir, dMw);
        double val = 0;
        for (size_t k = 0; k < n; k++) {
            val -= w[k] * (dMw[k] - dr0[k]);
        }
        ddw[nv + t] = val;
    }
    // the muscles' acc0 = |x|, x = W b (b the moment row at qpos0, fixed by the kinematics):
    // d acc0 = -(y' dM x) / acc0, y = W x, dM x = dr(x) - dr(0)
    if (status == GDN_OK && gdn_any_acc0_scaled(m)) {
        gdn_transmission(m, d);
    }
    for (int i = 0; status == GDN_OK && i < m->nu; i++) {
        const double a0 = m->actuator_acc0[i];
        if (!gdn_actuator_acc0_scaled(m, i) || !(a0 > GDN_MINVAL)) {
            continue;
        }
        memset(J, 0, sizeof(double) * n);
        gdn_actuator_moment_add(m, d, J, i, 1);
        gdn_chol_solve(w, L, J, nv); // x
        status = gdn_residual_jvp_ex(m, d, w, NULL, &dir, dMw);
        gdn_chol_solve(J, L, w, nv); // y
        double val = 0;
        for (size_t k = 0; k < n; k++) {
            val -= J[k] * (dMw[k] - dr0[k]);
        }
        ddw[nv + m->ntendon + i] = val / a0;
    }
    if (status == GDN_ERR_SINGULAR) {
        status = GDN_OK;
    }
    restore(m, d, saved);
    gdn_arena_reset(d, mark);
    return status;
}
