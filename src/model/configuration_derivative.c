// SPDX-License-Identifier: Apache-2.0
// Derivatives of the Lie-group update q' = q (+) h v': per-joint maps Phi_q, Phi_v.
#include "model/configuration_derivative.h"

#include "math/vec.h"
#include "math/vecn.h"

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

// With theta = |phi| and K = [phi]x (K^2 = phi phi' - theta^2 I):
//   R(phi)   = I + a K + b K^2,    J_r(phi) = I - b K + c K^2,
//   a = sin(theta)/theta, b = (1 - cos(theta))/theta^2, c = (theta - sin(theta))/theta^3.
// Below theta = 0.1 the Taylor series (terms to theta^8: truncation < 1e-18 relative) avoid
// the cancellation in c; above, the closed forms (b as 2 sin^2(theta/2)/theta^2, no cancellation).
void gdn_so3_exp_and_jacobian(const double phi[3], double R[9], double Jr[9]) {
    double t2 = gdn_dot3(phi, phi);
    double a, b, c;
    if (t2 < 0.01) {
        a = 1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72)));
        b = 0.5 * (1 - t2 / 12 * (1 - t2 / 30 * (1 - t2 / 56 * (1 - t2 / 90))));
        c = (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72 * (1 - t2 / 110)))) / 6;
    } else {
        double theta = sqrt(t2);
        double s = sin(theta), sh = sin(0.5 * theta);
        a = s / theta;
        b = 2 * sh * sh / t2;
        c = (theta - s) / (t2 * theta);
    }
    // K and K^2
    double K[9] = {0, -phi[2], phi[1], phi[2], 0, -phi[0], -phi[1], phi[0], 0};
    double K2[9];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            K2[3 * i + j] = phi[i] * phi[j] - (i == j ? t2 : 0);
        }
    }
    for (int k = 0; k < 9; k++) {
        double eye = (k % 4 == 0) ? 1 : 0;
        if (R) {
            R[k] = eye + a * K[k] + b * K2[k];
        }
        if (Jr) {
            Jr[k] = eye - b * K[k] + c * K2[k];
        }
    }
}

// the rotation block of a joint (ball, or free from its dof 3): Rt = R(h w')', Jr = J_r(h w')
static void rotation_block(const double* w_next, double h, double Rt[9], double Jr[9]) {
    double phi[3], R[9];
    gdn_scl3(phi, w_next, h);
    gdn_so3_exp_and_jacobian(phi, R, Jr);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            Rt[3 * i + j] = R[3 * j + i];
        }
    }
}

// first rotational dof of joint j (-1 for hinge and slide; translation dofs are identity)
static int rotation_dof(const gdnModel* m, int j) {
    switch (m->jnt_type[j]) {
    case GDN_JNT_FREE:
        return m->jnt_dofadr[j] + 3;
    case GDN_JNT_BALL:
        return m->jnt_dofadr[j];
    default:
        return -1;
    }
}

// identity part first (every dof), then each rotation block overwritten with its 3x3 maps
void gdn_integrate_pos_jvp(const gdnModel* m, const double* qvel_next, double h,
                           const double* dqpos, const double* dqvel_next, double* dqpos_next) {
    const int nv = m->nv;
    for (int i = 0; i < nv; i++) {
        dqpos_next[i] = (dqpos ? dqpos[i] : 0) + (dqvel_next ? h * dqvel_next[i] : 0);
    }
    for (int j = 0; j < m->njnt; j++) {
        int r = rotation_dof(m, j);
        if (r < 0) {
            continue;
        }
        double Rt[9], Jr[9], x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
        rotation_block(qvel_next + r, h, Rt, Jr);
        if (dqpos) {
            gdn_mulmat3(x, Rt, dqpos + r);
        }
        if (dqvel_next) {
            gdn_mulmat3(y, Jr, dqvel_next + r);
        }
        for (int i = 0; i < 3; i++) {
            dqpos_next[r + i] = x[i] + h * y[i];
        }
    }
}

// gqpos = Phi_q' g, gqvel_next = h Phi_v' g: R(phi) g and h J_r(phi)' g on rotation blocks
void gdn_integrate_pos_vjp(const gdnModel* m, const double* qvel_next, double h,
                           const double* gqpos_next, double* gqpos, double* gqvel_next) {
    const int nv = m->nv;
    for (int i = 0; i < nv; i++) {
        if (gqpos) {
            gqpos[i] = gqpos_next[i];
        }
        if (gqvel_next) {
            gqvel_next[i] = h * gqpos_next[i];
        }
    }
    for (int j = 0; j < m->njnt; j++) {
        int r = rotation_dof(m, j);
        if (r < 0) {
            continue;
        }
        double Rt[9], Jr[9], x[3];
        rotation_block(qvel_next + r, h, Rt, Jr);
        if (gqpos) {
            gdn_mulmat3T(gqpos + r, Rt, gqpos_next + r);
        }
        if (gqvel_next) {
            gdn_mulmat3T(x, Jr, gqpos_next + r);
            gdn_scl3(gqvel_next + r, x, h);
        }
    }
}

// rows of Y: h X (identity dofs) or h Jr X (rotation blocks), then Phi_q in its columns
// y = s0 x0 + s1 x1 + s2 x2 (n entries, summed left to right); SSE2 pairs as above
static void combined_row(double* y, const double* x0, const double* x1, const double* x2,
                         double s0, double s1, double s2, int n) {
    int c = 0;
#if defined(__SSE2__)
    __m128d a0 = _mm_set1_pd(s0), a1 = _mm_set1_pd(s1), a2 = _mm_set1_pd(s2);
    for (; c + 2 <= n; c += 2) {
        __m128d acc = _mm_add_pd(_mm_mul_pd(a0, _mm_loadu_pd(x0 + c)),
                                 _mm_mul_pd(a1, _mm_loadu_pd(x1 + c)));
        _mm_storeu_pd(y + c, _mm_add_pd(acc, _mm_mul_pd(a2, _mm_loadu_pd(x2 + c))));
    }
#endif
    for (; c < n; c++) {
        y[c] = s0 * x0[c] + s1 * x1[c] + s2 * x2[c];
    }
}

void gdn_integrate_pos_jvp_columns(const gdnModel* m, const double* qvel_next, double h,
                                   int ncol, const double* X, int ldx, int q_col, double* Y,
                                   int ldy) {
    const int nv = m->nv;
    for (int i = 0; i < nv; i++) {
        const double* x = X + (size_t)i * ldx;
        double* y = Y + (size_t)i * ldy;
        gdn_scl_n(y, x, h, ncol);
        if (q_col >= 0) {
            y[q_col + i] += 1;
        }
    }
    for (int j = 0; j < m->njnt; j++) {
        int r = rotation_dof(m, j);
        if (r < 0) {
            continue;
        }
        double Rt[9], Jr[9];
        rotation_block(qvel_next + r, h, Rt, Jr);
        const double* x0 = X + (size_t)r * ldx;
        const double* x1 = x0 + ldx;
        const double* x2 = x1 + ldx;
        for (int i = 0; i < 3; i++) {
            double* y = Y + (size_t)(r + i) * ldy;
            double hj0 = h * Jr[3 * i], hj1 = h * Jr[3 * i + 1], hj2 = h * Jr[3 * i + 2];
            combined_row(y, x0, x1, x2, hj0, hj1, hj2, ncol);
            if (q_col >= 0) {
                for (int k = 0; k < 3; k++) {
                    y[q_col + r + k] += Rt[3 * i + k];
                }
            }
        }
    }
}
