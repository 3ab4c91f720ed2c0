// SPDX-License-Identifier: Apache-2.0
// Dense Cholesky factor, solve and rank-one update for the Newton solver's Hessian.
#include "math/cholesky.h"

#include "math/vec.h"

#include <math.h>
#include <string.h>

double gdn_dot_mujoco(const double* a, const double* b, int n) {
    return gdn_dot_mujoco_from(a, b, 0, n);
}

// a multiple of 4 at or below k
static inline int block_start(int k) {
    return k & ~3;
}

size_t gdn_chol_envelope_count(const int* first, int n) {
    size_t count = 0;
    for (int i = 0; i < n; i++) {
        count += (size_t)(i - first[i]);
    }
    return count;
}

// column c's rows j > c with first_j <= c, ascending: counted per column, then placed with
// colstart[c] as the fill position (it ends at the next column's start, shifted back after)
static void envelope_columns(gdnCholEnvelope* env, int n) {
    int* start = env->colstart;
    memset(start, 0, sizeof(int) * (size_t)(n + 1));
    for (int j = 0; j < n; j++) {
        for (int c = env->first[j]; c < j; c++) {
            start[c + 1]++;
        }
    }
    for (int c = 0; c < n; c++) {
        start[c + 1] += start[c];
    }
    for (int j = 0; j < n; j++) {
        for (int c = env->first[j]; c < j; c++) {
            env->colrows[start[c]++] = j;
        }
    }
    for (int c = n; c > 0; c--) {
        start[c] = start[c - 1];
    }
    start[0] = 0;
}

void gdn_chol_envelope_finish(gdnCholEnvelope* env, int n) {
    if (env->colstart && env->colrows) {
        envelope_columns(env, n);
    }
    for (int i = 0; i < n; i++) {
        env->last[i] = -1;
    }
    for (int j = 0; j < n; j++) {
        int* last = env->last + env->first[j];
        *last = *last > j ? *last : j;
    }
    for (int i = 1; i < n; i++) {
        env->last[i] = env->last[i] > env->last[i - 1] ? env->last[i] : env->last[i - 1];
    }
}

// column by column: L_jj = sqrt(A_jj - L_j,:j L_j,:j'), L_ij = (A_ij - L_i,:j L_j,:j') / L_jj.
// With an envelope, rows with first_i > j (among them every row after last_j) keep their
// L_ij = 0 (the sum and A_ij are exact zeros there) and the sums start at the block holding
// max(first_i, first_j)
// the dense factor (every row and column)
static int factor_dense(double* mat, int n, double mindiag) {
    int rank = n;
    for (int j = 0; j < n; j++) {
        double* row_j = mat + (size_t)j * (size_t)n;
        double diag = row_j[j] - gdn_dot_mujoco_from(row_j, row_j, 0, j);
        if (diag < mindiag) {
            diag = mindiag;
            rank--;
        }
        row_j[j] = sqrt(diag);
        const double inv = 1 / row_j[j];
        for (int i = j + 1; i < n; i++) {
            double* row_i = mat + (size_t)i * (size_t)n;
            row_i[j] = (row_i[j] - gdn_dot_mujoco_from(row_i, row_j, 0, j)) * inv;
        }
    }
    return rank;
}

int gdn_chol_factor_env(double* mat, int n, double mindiag, const gdnCholEnvelope* env) {
    if (!env) {
        return factor_dense(mat, n, mindiag);
    }
    int rank = n;
    for (int j = 0; j < n; j++) {
        double* row_j = mat + (size_t)j * (size_t)n;
        const int first_j = env->first[j];
        double diag = row_j[j] - gdn_dot_mujoco_from(row_j, row_j, block_start(first_j), j);
        if (diag < mindiag) {
            diag = mindiag;
            rank--;
        }
        row_j[j] = sqrt(diag);
        const double inv = 1 / row_j[j];
        if (env->colrows) {
            for (int a = env->colstart[j]; a < env->colstart[j + 1]; a++) {
                const int i = env->colrows[a];
                const int first_i = env->first[i];
                double* row_i = mat + (size_t)i * (size_t)n;
                const int start = block_start(first_i > first_j ? first_i : first_j);
                row_i[j] = (row_i[j] - gdn_dot_mujoco_from(row_i, row_j, start, j)) * inv;
            }
            continue;
        }
        const int last = env->last[j];
        for (int i = j + 1; i <= last; i++) {
            const int first_i = env->first[i];
            if (first_i > j) {
                continue;
            }
            double* row_i = mat + (size_t)i * (size_t)n;
            const int start = block_start(first_i > first_j ? first_i : first_j);
            row_i[j] = (row_i[j] - gdn_dot_mujoco_from(row_i, row_j, start, j)) * inv;
        }
    }
    return rank;
}

int gdn_chol_factor(double* mat, int n, double mindiag) {
    return factor_dense(mat, n, mindiag);
}

// L y = vec forward, then L' res = y backward. With an envelope the forward sums start at the
// block holding first_i, and the backward sum r = res_i - sum_{j > i} L_ji res_j (j ascending)
// visits only the rows with first_j <= i: elsewhere L_ji = +0, and the terms t_j = +0 res_j are
// zeros, which leave every partial sum's value unchanged and can only change the sign of a zero
// partial sum (a later nonzero term gives the same value either way). So the two sums differ at
// most in the sign of a zero result, and in IEEE round-to-nearest that sign is fixed: a sum
// that ends at zero is +0 unless it starts at res_i = -0 and every term is +0 (x - x = +0, and
// +0 - t stays +0 for any zero t). Hence only a zero result with res_i = -0 is redone over
// every row, in the dense order
// the dense solve (every row and column)
static void solve_dense(double* res, const double* mat, const double* vec, int n) {
    for (int i = 0; i < n; i++) {
        const double* row_i = mat + (size_t)i * (size_t)n;
        res[i] = (vec[i] - gdn_dot_mujoco_from(row_i, res, 0, i)) / row_i[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double r = res[i];
        for (int j = i + 1; j < n; j++) {
            r -= mat[(size_t)j * (size_t)n + (size_t)i] * res[j];
        }
        res[i] = r / mat[(size_t)i * (size_t)n + (size_t)i];
    }
}

void gdn_chol_solve_env(double* res, const double* mat, const double* vec, int n,
                        const gdnCholEnvelope* env) {
    if (!env) {
        solve_dense(res, mat, vec, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        const double* row_i = mat + (size_t)i * (size_t)n;
        const int start = block_start(env->first[i]);
        res[i] = (vec[i] - gdn_dot_mujoco_from(row_i, res, start, i)) / row_i[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double r = res[i];
        if (env->colrows) {
            for (int a = env->colstart[i]; a < env->colstart[i + 1]; a++) {
                const int j = env->colrows[a];
                r -= mat[(size_t)j * (size_t)n + (size_t)i] * res[j];
            }
        } else {
            for (int j = i + 1; j <= env->last[i]; j++) {
                if (env->first[j] <= i) {
                    r -= mat[(size_t)j * (size_t)n + (size_t)i] * res[j];
                }
            }
        }
        if (r == 0 && signbit(res[i])) {
            // the one case where the skipped zeros decide the sign: the dense order
            r = res[i];
            for (int j = i + 1; j < n; j++) {
                r -= mat[(size_t)j * (size_t)n + (size_t)i] * res[j];
            }
        }
        res[i] = r / mat[(size_t)i * (size_t)n + (size_t)i];
    }
}

void gdn_chol_solve(double* res, const double* mat, const double* vec, int n) {
    solve_dense(res, mat, vec, n);
}

// column k's rotation: r = sqrt(L_kk^2 +- x_k^2) (raised to 1e-15 when below), c = r / L_kk,
// s = x_k / L_kk, L_kk <- r; returns 1 when r was raised (the rank drops), else 0
static inline int rotate_pivot(double* Lkk, double xk, int plus, double* c, double* cinv,
                               double* s) {
    double sq = *Lkk * *Lkk + (plus ? xk * xk : -xk * xk);
    int raised = 0;
    if (sq < GDN_MINVAL) {
        sq = GDN_MINVAL;
        raised = 1;
    }
    const double r = sqrt(sq);
    *c = r / *Lkk;
    *cinv = 1 / *c;
    *s = xk / *Lkk;
    *Lkk = r;
    return raised;
}

// Givens-like sweep over the columns: r = sqrt(L_kk^2 +- x_k^2), c = r / L_kk, s = x_k / L_kk,
// L_ik = (L_ik +- s x_i) / c, x_i = c x_i - s L_ik (new L_ik), for i > k. With an envelope,
// rows with first_i > k and x_i == 0 are skipped, among them every row after last_k (first_i > k
// there, and x_i == 0 by the envelope's condition on x: x_i starts nonzero only where
// first_i <= the first column swept, and becomes nonzero at column k only where L_ik != 0,
// inside the envelope). Skipping is exact: there L_ik = +0, and the sweep would give
// L_ik = (+0 +- s (+-0)) / c = +0 and x_i = c x_i - s (+0), a zero again (its sign is never read:
// a zero x_i only enters products with finite values that are added to nonzero L entries or to
// +0 ones, where +0 + (-0) = +0 - (+0) = +0)
// the dense update (every row below each column)
static int update_dense(double* mat, double* x, int n, int plus) {
    int rank = n;
    for (int k = 0; k < n; k++) {
        if (x[k] == 0) {
            continue;
        }
        double c, cinv, s;
        rank -= rotate_pivot(mat + (size_t)k * (size_t)n + (size_t)k, x[k], plus, &c, &cinv, &s);
        for (int i = k + 1; i < n; i++) {
            double* Lik = mat + (size_t)i * (size_t)n + (size_t)k;
            *Lik = (plus ? *Lik + s * x[i] : *Lik - s * x[i]) * cinv;
            x[i] = c * x[i] - s * *Lik;
        }
    }
    return rank;
}

int gdn_chol_update_env(double* mat, double* x, int n, int plus, const gdnCholEnvelope* env) {
    if (!env) {
        return update_dense(mat, x, n, plus);
    }
    int rank = n;
    for (int k = 0; k < n; k++) {
        if (x[k] == 0) {
            continue;
        }
        double c, cinv, s;
        rank -= rotate_pivot(mat + (size_t)k * (size_t)n + (size_t)k, x[k], plus, &c, &cinv, &s);
        if (env->colrows) {
            for (int a = env->colstart[k]; a < env->colstart[k + 1]; a++) {
                const int i = env->colrows[a];
                double* Lik = mat + (size_t)i * (size_t)n + (size_t)k;
                *Lik = (plus ? *Lik + s * x[i] : *Lik - s * x[i]) * cinv;
                x[i] = c * x[i] - s * *Lik;
            }
            continue;
        }
        const int last = env->last[k];
        for (int i = k + 1; i <= last; i++) {
            if (x[i] == 0 && env->first[i] > k) {
                continue;
            }
            double* Lik = mat + (size_t)i * (size_t)n + (size_t)k;
            *Lik = (plus ? *Lik + s * x[i] : *Lik - s * x[i]) * cinv;
            x[i] = c * x[i] - s * *Lik;
        }
    }
    return rank;
}

int gdn_chol_update(double* mat, double* x, int n, int plus) {
    return update_dense(mat, x, n, plus);
}

int gdn_chol_factor_trailing(double* mat, int n, int k0, double mindiag,
                             const gdnCholEnvelope* env) {
    int rank = n - k0;
    for (int j = k0; j < n; j++) {
        double* row_j = mat + (size_t)j * (size_t)n;
        const int first_j = env && env->first[j] > k0 ? env->first[j] : k0;
        double diag = row_j[j];
        for (int k = first_j; k < j; k++) {
            diag -= row_j[k] * row_j[k];
        }
        if (diag < mindiag) {
            diag = mindiag;
            rank--;
        }
        row_j[j] = sqrt(diag);
        const double inv = 1 / row_j[j];
        for (int i = j + 1; i < n; i++) {
            const int first_i = env ? env->first[i] : 0;
            if (first_i > j) {
                continue; // outside the envelope: an exact zero that stays one
            }
            double* row_i = mat + (size_t)i * (size_t)n;
            int k = first_i > first_j ? first_i : first_j;
            double v = row_i[j];
            for (; k < j; k++) {
                v -= row_i[k] * row_j[k];
            }
            row_i[j] = v * inv;
        }
    }
    return rank;
}
