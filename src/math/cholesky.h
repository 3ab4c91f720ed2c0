// SPDX-License-Identifier: Apache-2.0
// Internal: dense and envelope (profile) Cholesky factor, solve and rank-one update, and the dot
// product in MuJoCo's summation order; the Newton solver's Hessian and any dense SPD system.
#ifndef GDN_MATH_CHOLESKY_H
#define GDN_MATH_CHOLESKY_H

#include <stddef.h>

// sum_k a[k] b[k], start <= k < n (start a multiple of 4), in MuJoCo's order (mju_dot): four
// partial sums p_l over k = l mod 4 for the whole blocks of four, combined as
// (p_0 + p_2) + (p_1 + p_3), then the 1 to 3 leftover products summed left to right and added
// at once. Independent chains: faster than one chain. With a[k] b[k] = 0 for k < start this is
// bit for bit the sum from 0: the skipped blocks would only add zeros to partial sums that
// start at +0 (and +0 + (-0) = +0), and the blocks and the tail are the same
static inline double gdn_dot_mujoco_from(const double* a, const double* b, int start, int n) {
    double s = 0;
    int k = start;
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

// sum_k a[k] b[k], k < n, in MuJoCo's mju_dot order (four interleaved partial sums combined as
// (p0 + p2) + (p1 + p3), then the leftover products)
double gdn_dot_mujoco(const double* a, const double* b, int n);

// dense Cholesky in place, lower triangle: mat = L L' (the strict upper triangle is neither read
// nor written); diagonal values below mindiag are raised to it. Returns the rank (n minus the
// raised diagonals).
int gdn_chol_factor(double* mat, int n, double mindiag);

// res = (L L')^-1 vec with the factor of gdn_chol_factor (res may alias vec)
void gdn_chol_solve(double* res, const double* mat, const double* vec, int n);

// rank-one update of the factor: L L' + x x' (plus = 1) or L L' - x x' (plus = 0); x is
// overwritten. Returns the rank (n minus the diagonals that fell below 1e-15).
int gdn_chol_update(double* mat, double* x, int n, int plus);

// The envelope (profile) of a matrix whose row i has no nonzero left of column first[i]
// (first[i] <= i) in the lower triangle; last[i] = the largest row j with first[j] <= i (-1
// when none); optionally the envelope by columns: rows colrows[colstart[c] ..
// colstart[c + 1]) = the rows j > c with first[j] <= c, ascending. The factor's fill stays
// inside the envelope, and so does a rank-one update whose x has x_i != 0 only where
// first[i] <= (the first nonzero column of x). The _env functions below skip the exact zeros
// outside it and give bit for bit the results of the dense ones, provided the entries left of
// first[i] are +0 on entry.
typedef struct gdnCholEnvelope {
    int* first;      // (n)
    int* last;       // (n)
    int* colstart;   // (n + 1), or NULL (no column lists: slower loops over rows to last)
    int* colrows;    // (gdn_chol_envelope_count), or NULL
} gdnCholEnvelope;

// the number of entries left of the diagonal inside the envelope: sum_i (i - first[i])
size_t gdn_chol_envelope_count(const int* first, int n);

// env->last, and the column lists when colstart and colrows are given, from env->first
void gdn_chol_envelope_finish(gdnCholEnvelope* env, int n);

// gdn_chol_factor, gdn_chol_solve and gdn_chol_update over an envelope (env NULL: dense)
int gdn_chol_factor_env(double* mat, int n, double mindiag, const gdnCholEnvelope* env);
void gdn_chol_solve_env(double* res, const double* mat, const double* vec, int n,
                        const gdnCholEnvelope* env);
int gdn_chol_update_env(double* mat, double* x, int n, int plus, const gdnCholEnvelope* env);
// The trailing block of a partial factor: rows and columns k0..n-1 of mat (lower triangle) hold
// S = A_tt - L_tl L_tl' (A's trailing block minus the product of the factor's panel rows), and
// become S's Cholesky factor, so mat holds the factor of A; the leading block and the panel
// (columns < k0) are read only. A changed diagonal of A_tt alone (a new shift) thus costs the
// trailing block's factor, not A's. Entries outside env (NULL: dense) are +0 and stay so.
// Diagonals below mindiag are raised to it; returns the trailing block's rank. Its sums run left
// to right (not in gdn_chol_factor's order: the bits differ from a full factor at round-off).
int gdn_chol_factor_trailing(double* mat, int n, int k0, double mindiag,
                             const gdnCholEnvelope* env);

#endif
