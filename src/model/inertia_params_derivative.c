// SPDX-License-Identifier: Apache-2.0
// The origin-frame spatial inertia's dependence on the canonical inertia parameters.
#include "model/inertia_params_derivative.h"

#include "math/vec.h"

// dI = [R dIc R' (the 6 entries); mass R dc; dm]
void gdn_inertia_param_jvp(const gdnModel* m, const gdnData* d, int b,
                           const double dp[GDN_N_INERTIA_PARAMS], double dI[10]) {
    const double* R = d->xmat + 9 * b;
    const double mass = m->body_mass[b];
    double dc[3];
    gdn_mulmat3(dc, R, dp + 1);
    const double dIc[9] = {dp[4], dp[7], dp[8], dp[7], dp[5], dp[9], dp[8], dp[9], dp[6]};
    // T = R dIc, W = T R'
    double T[9], W[9];
    gdn_mulmatmat3(T, R, dIc);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            W[3 * i + j] = T[3 * i] * R[3 * j] + T[3 * i + 1] * R[3 * j + 1] +
                           T[3 * i + 2] * R[3 * j + 2];
        }
    }
    dI[0] = W[0];
    dI[1] = W[4];
    dI[2] = W[8];
    dI[3] = W[1];
    dI[4] = W[2];
    dI[5] = W[5];
    for (int i = 0; i < 3; i++) {
        dI[6 + i] = mass * dc[i];
    }
    dI[9] = dp[0];
}

// the transpose: gm += Ibar_m,  gp[1:4] += mass R' Ibar_h,  gIc = R' G R with G the symmetric
// matrix whose Frobenius product with dI equals Ibar[0:6] . dI[0:6] (G_ii = Ibar_ii,
// G_ij = Ibar_ij / 2); an off-diagonal parameter fills two slots: 2 gIc_ij
void gdn_inertia_param_vjp(const gdnModel* m, const gdnData* d, int b, const double Ibar[10],
                           double gp[GDN_N_INERTIA_PARAMS]) {
    const double* R = d->xmat + 9 * b;
    const double mass = m->body_mass[b];
    double G[9] = {Ibar[0],       0.5 * Ibar[3], 0.5 * Ibar[4], 0.5 * Ibar[3], Ibar[1],
                   0.5 * Ibar[5], 0.5 * Ibar[4], 0.5 * Ibar[5], Ibar[2]};
    gp[0] += Ibar[9];
    double gbody[3];
    gdn_mulmat3T(gbody, R, Ibar + 6);
    gp[1] += mass * gbody[0];
    gp[2] += mass * gbody[1];
    gp[3] += mass * gbody[2];
    // H = R' G R, symmetric: the upper triangle, H_ij = sum_k R_ki T_kj with T = G R
    double T[9];
    gdn_mulmatmat3(T, G, R);
    gp[4] += R[0] * T[0] + R[3] * T[3] + R[6] * T[6];
    gp[5] += R[1] * T[1] + R[4] * T[4] + R[7] * T[7];
    gp[6] += R[2] * T[2] + R[5] * T[5] + R[8] * T[8];
    gp[7] += 2 * (R[0] * T[1] + R[3] * T[4] + R[6] * T[7]);
    gp[8] += 2 * (R[0] * T[2] + R[3] * T[5] + R[6] * T[8]);
    gp[9] += 2 * (R[1] * T[2] + R[4] * T[5] + R[7] * T[8]);
}

// <u, I w> = u_w' I w_w + h . (w_v x u_w - w_w x u_v) + m u_v . w_v
void gdn_inertia_bilinear(const double u[6], const double w[6], double s, double B[10]) {
    B[0] += s * u[0] * w[0];
    B[1] += s * u[1] * w[1];
    B[2] += s * u[2] * w[2];
    B[3] += s * (u[0] * w[1] + u[1] * w[0]);
    B[4] += s * (u[0] * w[2] + u[2] * w[0]);
    B[5] += s * (u[1] * w[2] + u[2] * w[1]);
    double a[3], c[3];
    gdn_cross3(a, w + 3, u);
    gdn_cross3(c, w, u + 3);
    B[6] += s * (a[0] - c[0]);
    B[7] += s * (a[1] - c[1]);
    B[8] += s * (a[2] - c[2]);
    B[9] += s * gdn_dot3(u + 3, w + 3);
}
