// SPDX-License-Identifier: Apache-2.0
// Internal: the residual's primal in the world-origin frame and the per-body tangent kernels
// that its matrix-free tangent, its adjoint (the transposes) and its dense columns read.
#ifndef GDN_GRADIENT_RESIDUAL_TANGENT_H
#define GDN_GRADIENT_RESIDUAL_TANGENT_H

#include <gradyn/gradyn.h>

#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "dynamics/rne.h"
#include "gradient/residual.h"
#include "math/spatial.h"
#include "math/vec.h"

// Everything is in world axes about the world origin (kinematics_derivative.h). With S_j the
// dof axes (jacobian_derivative.h), V_pre(j) the velocity of the frame before j's group, I_b
// the body inertia (cinert layout) and Wx_b = [xipos x f + t; f] (xfrc_applied [f; t]) + W_b:
//   V_b = V_parent + sum_j S_j v_j,  Sdot_j = V_pre(j) x S_j (0 for free translation)
//   A_0 = [0; -g],  A_b = A_parent + sum_j (Sdot_j v_j + S_j a_j)
//   f_b = I_b A_b + V_b x* (I_b V_b) - Wx_b,  F_b = sum over the subtree of f
//   r_i = S_i' F_body(i) + armature_i a_i - qfrc_passive_i - qfrc_actuator_i - qfrc_applied_i
// This equals gdn_rne's result minus the forces (the com frame there, the origin here: r is
// frame independent).

// the primal quantities every residual derivative reads (arena blocks of gdn_residual_primal)
typedef struct {
    const gdnModel* m;
    gdnData* d;
    const double* a;    // acceleration (nv)
    const double* W;    // extra wrenches or NULL
    const double* S;    // 6 nv: dof axes
    const double* Sdot; // 6 nv: their time derivatives
    const double* Vpre; // 6 nv: velocity of the frame before each dof's group
    const double* V;    // 6 nbody
    double* A;          // 6 nbody
    double* I;          // 10 nbody
    double* F;          // 6 nbody: subtree sums of f (split: of the inertial part f + Wx only)
    double* IA;         // 6 nbody: I_b A_b (split: not computed, NULL)
    double* IV;         // 6 nbody: I_b V_b
    double* Wx;         // 6 nbody: the applied wrenches Wx_b (per body, not summed)
} gdnResidualPrimal;

// Wx_b = [xipos x f + t; f] (+ W_b): the applied wrench of body b about the origin
static inline void gdn_rt_applied_wrench(const gdnData* d, const double* W, int b, double w[6]) {
    const double* x = d->xfrc_applied + 6 * b;
    gdn_cross3(w, d->xipos + 3 * b, x);
    gdn_add3(w, w, x + 3);
    gdn_copy3(w + 3, x);
    if (W) {
        gdn_add6(w, w, W + 6 * b);
    }
}

// The primal from the axes, inertias and velocities of dynamics/com.h and the RNE sweep of
// dynamics/rne.h (GDN_RNE_BY_DOF) with the applied wrenches Wx. tree: the caller's S, Sdot,
// Vpre, V (gdnResidualAdjoint) or NULL (computed here). split = 0: the sweep subtracts Wx
// (F the subtree sums of f, IA computed: the matrix-free tangent and adjoint); split = 1: F
// holds the subtree sums of the inertial part I A + V x* (I V) alone and IA is NULL (the
// dense columns, which sum Wx over subtrees themselves). Arena blocks stay allocated (the
// caller resets); GDN_ERR_MEMORY when the arena is exhausted. Inline: call it once per file
// with split a constant, so that the sweep is inlined and specialized
static inline gdnStatus gdn_residual_primal(const gdnModel* m, gdnData* d, const double* a,
                                            const double* W, const gdnResidualAdjoint* tree,
                                            int split, gdnResidualPrimal* p) {
    const size_t nv6 = 6 * (size_t)(m->nv > 0 ? m->nv : 1), nb = (size_t)m->nbody;
    double* block = gdn_arena_doubles(d, 3 * nv6 + 46 * nb);
    if (!block) {
        return GDN_ERR_MEMORY;
    }
    // S, Sdot, Vpre (6 nv each), V, A, I, F, IA, IV, Wx
    double* A = block + 3 * nv6 + 6 * nb;
    double* I = A + 6 * nb;
    double* F = I + 10 * nb;
    double* IA = F + 6 * nb;
    double* IV = IA + 6 * nb;
    double* Wx = IV + 6 * nb;
    const double *S = block, *Sdot = block + nv6, *Vpre = block + 2 * nv6, *V = A - 6 * nb;
    if (tree && tree->S) {
        S = tree->S;
        Sdot = tree->Sdot;
        Vpre = tree->Vpre;
        V = tree->V;
    } else {
        gdn_dof_axes_about(m, d, 0, block);
        gdn_com_vel(m, d, block, A - 6 * nb, block + nv6, block + 2 * nv6);
    }
    gdn_body_inertias_about(m, d, 0, I);
    memset(Wx, 0, 6 * sizeof(double));
    for (int b = 1; b < m->nbody; b++) {
        gdn_rt_applied_wrench(d, W, b, Wx + 6 * b);
    }
    if (split) {
        IA = NULL;
        gdn_rne_sweep(m, d, S, Sdot, I, V, a, GDN_RNE_BY_DOF, NULL, A, F, NULL, IV);
    } else {
        gdn_rne_sweep(m, d, S, Sdot, I, V, a, GDN_RNE_BY_DOF, Wx, A, F, IA, IV);
    }
    *p = (gdnResidualPrimal){m, d, a, W, S, Sdot, Vpre, V, A, I, F, IA, IV, Wx};
    return GDN_OK;
}

// ---------------------------------------------------------------- per-body kernels

// the tangent of an axis rate Sdot = V_pre x S when the velocity before the group changes by
// eta_pre and the axis by dS (NULL: the axis does not move): dSdot = eta_pre x S + V_pre x dS
static inline void gdn_rt_rate_tangent(double dSdot[6], const double S[6], const double Vpre[6],
                                       const double eta_pre[6], const double* dS) {
    double tmp[6];
    gdn_cross_motion(dSdot, eta_pre, S);
    if (dS) {
        gdn_cross_motion(tmp, Vpre, dS);
        gdn_add6(dSdot, dSdot, tmp);
    }
}

// its transpose for the covector c of Sdot: eta_pre_bar = S x* c (overwritten),
// Sbar -= V_pre x* c
static inline void gdn_rt_rate_adjoint(const double S[6], const double Vpre[6], const double c[6],
                                       double eta_pre_bar[6], double Sbar[6]) {
    double tmp[6];
    gdn_cross_force(eta_pre_bar, S, c);
    gdn_cross_force(tmp, Vpre, c);
    for (int i = 0; i < 6; i++) {
        Sbar[i] -= tmp[i];
    }
}

// the body-motion part of the inertia's tangent applied to X, with IX = I X:
//   dI X = xi x* (I X) - I (xi x X)
static inline void gdn_rt_inertia_motion(double dIX[6], const double I[10], const double IX[6],
                                         const double xi[6], const double X[6]) {
    double tmp[6], tmp2[6];
    gdn_cross_force(dIX, xi, IX);
    gdn_cross_motion(tmp, xi, X);
    gdn_cinert_mul(tmp2, I, tmp);
    for (int i = 0; i < 6; i++) {
        dIX[i] -= tmp2[i];
    }
}

// the tangent of the inertial force I A + V x* (I V) from dA, eta = dV and the inertia's
// tangents dIA = dI A, dIV = dI V (both NULL: the inertia does not move):
//   df = I dA + dIA + eta x* (I V) + V x* (I eta + dIV)
static inline void gdn_rt_force_tangent(double df[6], const double I[10], const double V[6],
                                        const double IV[6], const double dA[6],
                                        const double eta[6], const double* dIA,
                                        const double* dIV) {
    double tmp[6], tmp2[6];
    gdn_cinert_mul(df, I, dA);
    if (dIA) {
        gdn_add6(df, df, dIA);
    }
    gdn_cross_force(tmp, eta, IV);
    gdn_add6(df, df, tmp);
    gdn_cinert_mul(tmp, I, eta);
    if (dIV) {
        gdn_add6(tmp, tmp, dIV);
    }
    gdn_cross_force(tmp2, V, tmp);
    gdn_add6(df, df, tmp2);
}

// The transpose of gdn_rt_force_tangent with the body motion of gdn_rt_inertia_motion, for the
// covector fbar of f: AAb += I fbar (the covector of A), and with u = V x fbar
//   etabar += -fbar x* (I V) - I u
//   xibar  += -fbar x* (I A) - A x* (I fbar) + u x* (I V) + V x* (I u)
// u is returned (the parameter adjoint reads it)
static inline void gdn_rt_force_adjoint(const double I[10], const double A[6], const double V[6],
                                        const double IA[6], const double IV[6],
                                        const double fbar[6], double AAb[6], double xibar[6],
                                        double etabar[6], double u[6]) {
    double Ifb[6], Iu[6], t1[6], t2[6];
    gdn_cinert_mul(Ifb, I, fbar);
    gdn_add6(AAb, AAb, Ifb);
    gdn_cross_motion(u, V, fbar);
    gdn_cinert_mul(Iu, I, u);
    gdn_cross_force(t1, fbar, IV);
    for (int i = 0; i < 6; i++) {
        etabar[i] -= t1[i] + Iu[i];
    }
    gdn_cross_force(t1, fbar, IA);
    gdn_cross_force(t2, A, Ifb);
    for (int i = 0; i < 6; i++) {
        xibar[i] -= t1[i] + t2[i];
    }
    gdn_cross_force(t1, u, IV);
    gdn_cross_force(t2, V, Iu);
    for (int i = 0; i < 6; i++) {
        xibar[i] += t1[i] + t2[i];
    }
}

// a motion vector about the origin moved to point c: [w; v + w x c]
static inline void gdn_rt_move_motion(double r[6], const double x[6], const double c[3]) {
    r[0] = x[0];
    r[1] = x[1];
    r[2] = x[2];
    gdn_cross3(r + 3, x, c);
    gdn_add3(r + 3, r + 3, x + 3);
}

// acc += a force at point c moved to the origin: [n + c x f; f]
static inline void gdn_rt_add_force_at(double acc[6], const double f[6], const double c[3]) {
    double t[3];
    gdn_cross3(t, c, f + 3);
    for (int i = 0; i < 3; i++) {
        acc[i] += f[i] + t[i];
        acc[3 + i] += f[3 + i];
    }
}

// the parameter part of the inertia's tangent, dIp the tangent of the inertia about the COM c
// (gdn_inertia_param_jvp): dIA += dIp A, dIV += dIp V, each vector moved to c and back
static inline void gdn_rt_param_tangent(double dIA[6], double dIV[6], const double dIp[10],
                                        const double A[6], const double V[6], const double c[3]) {
    double x[6], f[6];
    gdn_rt_move_motion(x, A, c);
    gdn_cinert_mul(f, dIp, x);
    gdn_rt_add_force_at(dIA, f, c);
    gdn_rt_move_motion(x, V, c);
    gdn_cinert_mul(f, dIp, x);
    gdn_rt_add_force_at(dIV, f, c);
}

// its transpose for the covector f of the force (u = V x f from gdn_rt_force_adjoint):
// B = B(f, A) - B(u, V) with every vector moved to the COM c (gdn_inertia_bilinear; the caller
// applies gdn_inertia_param_vjp). Moving keeps the angular parts: x_c = [x_w; x_v + x_w x c]
static inline void gdn_rt_param_adjoint(double B[10], const double f[6], const double A[6],
                                        const double u[6], const double V[6],
                                        const double c[3]) {
    double fm[6], Am[6], um[6], Vm[6], t1[3], t2[3], t3[3], t4[3];
    const double *fl = fm + 3, *Al = Am + 3, *ul = um + 3, *Vl = Vm + 3;
    gdn_rt_move_motion(fm, f, c);
    gdn_rt_move_motion(Am, A, c);
    gdn_rt_move_motion(um, u, c);
    gdn_rt_move_motion(Vm, V, c);
    B[0] = f[0] * A[0] - u[0] * V[0];
    B[1] = f[1] * A[1] - u[1] * V[1];
    B[2] = f[2] * A[2] - u[2] * V[2];
    B[3] = (f[0] * A[1] + f[1] * A[0]) - (u[0] * V[1] + u[1] * V[0]);
    B[4] = (f[0] * A[2] + f[2] * A[0]) - (u[0] * V[2] + u[2] * V[0]);
    B[5] = (f[1] * A[2] + f[2] * A[1]) - (u[1] * V[2] + u[2] * V[1]);
    // h . (w_v x u_w - w_w x u_v) per pair
    gdn_cross3(t1, Al, f);
    gdn_cross3(t2, A, fl);
    gdn_cross3(t3, Vl, u);
    gdn_cross3(t4, V, ul);
    for (int i = 0; i < 3; i++) {
        B[6 + i] = (t1[i] - t2[i]) - (t3[i] - t4[i]);
    }
    B[9] = gdn_dot3(fl, Al) - gdn_dot3(ul, Vl);
}

// The applied force fx (xfrc_applied, at the COM c) moves with the body twist xi and the COM
// parameters dp (dparam_b[1:4], NULL = 0; R = xmat): dWx = [dc x fx; 0],
// dc = xi_w x c + xi_v + R dp. Tangent: df -= dWx
static inline void gdn_rt_applied_tangent(double df[6], const double fx[3], const double c[3],
                                          const double R[9], const double xi[6],
                                          const double* dp) {
    double dc[3], t3[3];
    gdn_cross3(dc, xi, c);
    gdn_add3(dc, dc, xi + 3);
    if (dp) {
        gdn_mulmat3(t3, R, dp);
        gdn_add3(dc, dc, t3);
    }
    gdn_cross3(t3, dc, fx);
    gdn_sub3(df, df, t3);
}

// its transpose for the covector fbar of f: with g = fbar_w x fx,
// xibar += [c x g; g],  dpbar += R' g (dpbar NULL: not wanted)
static inline void gdn_rt_applied_adjoint(const double fbar[6], const double fx[3],
                                          const double c[3], const double R[9], double xibar[6],
                                          double* dpbar) {
    double g[3], t3[3];
    gdn_cross3(g, fbar, fx);
    gdn_cross3(t3, c, g);
    gdn_add3(xibar, xibar, t3);
    gdn_add3(xibar + 3, xibar + 3, g);
    if (dpbar) {
        gdn_mulmat3T(t3, R, g);
        gdn_add3(dpbar, dpbar, t3);
    }
}

#endif
