// SPDX-License-Identifier: Apache-2.0
// Dense Cholesky factor, solve and rank-one update for the Newton solver's Hessian.
#include "constraint/solver.h"

#include <math.h>

// the smallest diagonal square a rank-one update keeps (MuJoCo's mjMINVAL)
#define CHOL_MINVAL 1e-15

// sum_k a[k] b[k], k < n, in MuJoCo's order (mju_dot): four partial sums p_l over k = l mod 4
// for the whole blocks of four, combined as (p_0 + p_2) + (p_1 + p_3), then the 1 to 3 leftover
// products summed left to right and added at once. Independent chains: faster than one chain
static inline double dot_mujoco(const double* a, const double* b, int n) {
    double s = 0;
    int k = 0;
    if (n >= 4) {
        double p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        for (; k + 4 <= n; k += 4) {
            p0 += a[k] * b[k];
            p1 += a[k + 1] * b[k + 1];
            p2 += a[k + 2] * b[k + 2];
            p3 += a[k + 3] * b[k + 3];
        }
        s = (p0 + p2) + (p1 + p3);
    }
    const int rest = n - k;
    if (rest == 3) {
        s += a[k] * b[k] + a[k + 1] * b[k + 1] + a[k + 2] * b[k + 2];
    } else if (rest == 2) {
        s += a[k] * b[k] + a[k + 1] * b[k + 1];
    } else if (rest == 1) {
        s += a[k] * b[k];
    }
    return s;
}

double gdn_solver_dot(const double* a, const double* b, int n) {
    return dot_mujoco(a, b, n);
}

// column by column: L_jj = sqrt(A_jj - L_j,:j L_j,:j'), L_ij = (A_ij - L_i,:j L_j,:j') / L_jj
int gdn_chol_factor(double* mat, int n, double mindiag) {
    int rank = n;
    for (int j = 0; j < n; j++) {
        double* row_j = mat + (size_t)j * (size_t)n;
        double diag = row_j[j] - dot_mujoco(row_j, row_j, j);
        if (diag < mindiag) {
            diag = mindiag;
            rank--;
        }
        row_j[j] = sqrt(diag);
        const double inv = 1 / row_j[j];
        for (int i = j + 1; i < n; i++) {
            double* row_i = mat + (size_t)i * (size_t)n;
            row_i[j] = (row_i[j] - dot_mujoco(row_i, row_j, j)) * inv;
        }
    }
    return rank;
}

// L y = vec forward, then L' res = y backward
void gdn_chol_solve(double* res, const double* mat, const double* vec, int n) {
    for (int i = 0; i < n; i++) {
        const double* row_i = mat + (size_t)i * (size_t)n;
        res[i] = (vec[i] - dot_mujoco(row_i, res, i)) / row_i[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double r = res[i];
        for (int j = i + 1; j < n; j++) {
            r -= mat[(size_t)j * (size_t)n + (size_t)i] * res[j];
        }
        res[i] = r / mat[(size_t)i * (size_t)n + (size_t)i];
    }
}

// Givens-like sweep over the columns: r = sqrt(L_kk^2 +- x_k^2), c = r / L_kk, s = x_k / L_kk,
// L_ik = (L_ik +- s x_i) / c, x_i = c x_i - s L_ik (new L_ik), for i > k
int gdn_chol_update(double* mat, double* x, int n, int plus) {
    int rank = n;
    for (int k = 0; k < n; k++) {
        if (x[k] == 0) {
            continue;
        }
        double* Lkk = mat + (size_t)k * (size_t)n + (size_t)k;
        double sq = *Lkk * *Lkk + (plus ? x[k] * x[k] : -x[k] * x[k]);
        if (sq < CHOL_MINVAL) {
            sq = CHOL_MINVAL;
            rank--;
        }
        const double r = sqrt(sq);
        const double c = r / *Lkk;
        const double cinv = 1 / c;
        const double s = x[k] / *Lkk;
        *Lkk = r;
        for (int i = k + 1; i < n; i++) {
            double* Lik = mat + (size_t)i * (size_t)n + (size_t)k;
            *Lik = (plus ? *Lik + s * x[i] : *Lik - s * x[i]) * cinv;
            x[i] = c * x[i] - s * *Lik;
        }
    }
    return rank;
}
