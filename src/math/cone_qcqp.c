// SPDX-License-Identifier: Apache-2.0
// The elliptic cone's block subproblem of PGS (MuJoCo 2.2.2's mju_QCQP2 / QCQP3 / QCQP): a convex
// quadratic over a scaled ball, solved by Newton's method on the constraint's multiplier.
#include "math/cone_qcqp.h"

#include <math.h>
#include <string.h>

#include "math/cholesky.h"

// positive-definiteness threshold, convergence threshold, Newton steps
#define QCQP_MINDET 1e-10
#define QCQP_TOL 1e-10
#define QCQP_MAXITER 20

// Newton's step on the multiplier la for g(la) = |u(la)|^2 - r^2 = 0 (g decreasing in la, slope
// = g'(la) < 0): la += -g / slope. 0 (la kept) when the step is below QCQP_TOL: converged
static int multiplier_step(double* la, double g, double slope) {
    const double step = -g / slope;
    if (step < QCQP_TOL) {
        return 0;
    }
    *la += step;
    return 1;
}

// min 0.5 x'Ax + x'b subject to sum (x_j / s_j)^2 <= r^2, n = 2, by Newton on the multiplier
// la of the scaled problem (x = s .* u, |u| <= r): u = -(A_s + la I)^-1 b_s with the explicit
// 2 x 2 inverse. Returns 1 when the constraint is active (la > 0); x = 0 when A_s + la I is
// not positive definite (det < 1e-10)
int gdn_qcqp2(double* x, const double* A, const double* b, const double* s, double r) {
    const double b1 = b[0] * s[0], b2 = b[1] * s[1];
    const double A11 = A[0] * s[0] * s[0], A22 = A[3] * s[1] * s[1];
    const double A12 = A[1] * s[0] * s[1];
    double la = 0, u1 = 0, u2 = 0;
    for (int iter = 0; iter < QCQP_MAXITER; iter++) {
        const double det = (A11 + la) * (A22 + la) - A12 * A12;
        if (det < QCQP_MINDET) {
            x[0] = x[1] = 0;
            return 0;
        }
        const double detinv = 1 / det;
        const double P11 = (A22 + la) * detinv, P22 = (A11 + la) * detinv;
        const double P12 = -A12 * detinv;
        u1 = -P11 * b1 - P12 * b2;
        u2 = -P12 * b1 - P22 * b2;
        // g(la) = |u|^2 - r^2, g'(la) = -2 u' P u
        const double g = u1 * u1 + u2 * u2 - r * r;
        if (g < QCQP_TOL) {
            break;
        }
        const double slope = -2.0 * (P11 * u1 * u1 + 2.0 * P12 * u1 * u2 + P22 * u2 * u2);
        if (!multiplier_step(&la, g, slope)) {
            break;
        }
    }
    x[0] = u1 * s[0];
    x[1] = u2 * s[1];
    return la != 0;
}

// gdn_qcqp2 for n = 3, with the 3 x 3 inverse from the adjugate
int gdn_qcqp3(double* x, const double* A, const double* b, const double* s, double r) {
    const double b1 = b[0] * s[0], b2 = b[1] * s[1], b3 = b[2] * s[2];
    const double A11 = A[0] * s[0] * s[0], A22 = A[4] * s[1] * s[1];
    const double A33 = A[8] * s[2] * s[2];
    const double A12 = A[1] * s[0] * s[1], A13 = A[2] * s[0] * s[2];
    const double A23 = A[5] * s[1] * s[2];
    double la = 0, u1 = 0, u2 = 0, u3 = 0;
    for (int iter = 0; iter < QCQP_MAXITER; iter++) {
        // adjugate of A_s + la I, then the determinant along the first row
        double P11 = (A22 + la) * (A33 + la) - A23 * A23;
        double P22 = (A11 + la) * (A33 + la) - A13 * A13;
        double P33 = (A11 + la) * (A22 + la) - A12 * A12;
        double P12 = A13 * A23 - A12 * (A33 + la);
        double P13 = A12 * A23 - A13 * (A22 + la);
        double P23 = A12 * A13 - A23 * (A11 + la);
        const double det = (A11 + la) * P11 + A12 * P12 + A13 * P13;
        if (det < QCQP_MINDET) {
            x[0] = x[1] = x[2] = 0;
            return 0;
        }
        const double detinv = 1 / det;
        P11 *= detinv;
        P22 *= detinv;
        P33 *= detinv;
        P12 *= detinv;
        P13 *= detinv;
        P23 *= detinv;
        u1 = -P11 * b1 - P12 * b2 - P13 * b3;
        u2 = -P12 * b1 - P22 * b2 - P23 * b3;
        u3 = -P13 * b1 - P23 * b2 - P33 * b3;
        const double g = u1 * u1 + u2 * u2 + u3 * u3 - r * r;
        if (g < QCQP_TOL) {
            break;
        }
        const double slope = -2.0 * (P11 * u1 * u1 + P22 * u2 * u2 + P33 * u3 * u3) -
                             4.0 * (P12 * u1 * u2 + P13 * u1 * u3 + P23 * u2 * u3);
        if (!multiplier_step(&la, g, slope)) {
            break;
        }
    }
    x[0] = u1 * s[0];
    x[1] = u2 * s[1];
    x[2] = u3 * s[2];
    return la != 0;
}

// gdn_qcqp2 for any n <= 5, with a Cholesky factor of A_s + la I (rank test at 1e-10)
int gdn_qcqp_n(double* x, const double* A, const double* b, const double* s, double r, int n) {
    double As[25], H[25], bs[5], w[5];
    for (int i = 0; i < n; i++) {
        bs[i] = b[i] * s[i];
        for (int j = 0; j < n; j++) {
            As[i * n + j] = A[i * n + j] * s[i] * s[j];
        }
    }
    double la = 0;
    for (int iter = 0; iter < QCQP_MAXITER; iter++) {
        memcpy(H, As, sizeof(double) * (size_t)(n * n));
        for (int i = 0; i < n; i++) {
            H[i * (n + 1)] += la;
        }
        if (gdn_chol_factor(H, n, QCQP_MINDET) < n) {
            memset(x, 0, sizeof(double) * (size_t)n);
            return 0;
        }
        // u = -H^-1 b_s (kept in x)
        gdn_chol_solve(x, H, bs, n);
        for (int i = 0; i < n; i++) {
            x[i] = -x[i];
        }
        const double g = gdn_dot_mujoco(x, x, n) - r * r;
        if (g < QCQP_TOL) {
            break;
        }
        // g'(la) = -2 u' H^-1 u
        gdn_chol_solve(w, H, x, n);
        const double slope = -2.0 * gdn_dot_mujoco(x, w, n);
        if (!multiplier_step(&la, g, slope)) {
            break;
        }
    }
    for (int i = 0; i < n; i++) {
        x[i] *= s[i];
    }
    return la != 0;
}

