// SPDX-License-Identifier: Apache-2.0
// Internal: the column kernels of gradient/columns.c for one lane width, included once per copy
// (baseline, AVX2; scalar without GNU vectors) with GDN_K_LANE (the lane vector type: double,
// gdnLane2 or gdnLane4), GDN_K_W (its doubles), GDN_K_B (whole lane vectors per block, <= 8),
// GDN_K(name) (the copy's names) and GDN_K_ATTR (its target attribute, or empty) defined. No
// include guard.
#if !defined(GDN_K_LANE) || !defined(GDN_K_W) || !defined(GDN_K_B) || !defined(GDN_K) || \
    !defined(GDN_K_ATTR)
#    error "columns_kernels.h: define GDN_K_LANE, GDN_K_W, GDN_K_B, GDN_K and GDN_K_ATTR first"
#endif
#include "math/simd_lanes.h"

// x_j += sum_t jv[t] Y_row[t] on a block at Xj, Y (row stride ld: P whole lane vectors, then R
// columns in a partial one), the sum in registers, in t's (increasing row) order
static inline __attribute__((always_inline)) GDN_K_ATTR void GDN_K(add_JT_block)(
    double* Xj, const double* Y, size_t ld, const int* row, const double* jv, int nz,
    const int P, const int R) {
    GDN_K_LANE x[9];
    GDN_SIMD_UNROLL
    for (int p = 0; p < P + (R > 0); p++) {
        GDN_K_GET(x[p], Xj + GDN_K_W * p, GDN_K_LANES(p, P, R));
    }
    for (int t = 0; t < nz; t++) {
        const double* Yk = Y + (size_t)row[t] * ld;
        const double l = jv[t];
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_LANE y;
            GDN_K_GET(y, Yk + GDN_K_W * p, GDN_K_LANES(p, P, R));
            x[p] = x[p] + l * y;
        }
    }
    GDN_SIMD_UNROLL
    for (int p = 0; p < P + (R > 0); p++) {
        GDN_K_PUT(Xj + GDN_K_W * p, x[p], GDN_K_LANES(p, P, R));
    }
}

// X (nv rows) += J' Y (nefc rows) on the columns [0, ncol) (row stride ld). Row j of X gathers
// J(k, j) Y_k over the rows k with J(k, j) != 0 in increasing k (efc_J is exactly 0 outside
// each row's recorded columns: the same operations, in the same order per entry, as the
// scatter over rows and their columns), the rows collected 64 at a time, then column blocks of
// at most GDN_K_B whole lane vectors, the last one with the partial vector
static GDN_K_ATTR void GDN_K(add_JT)(const gdnModel* m, const gdnData* d, double* X,
                                     const double* Y, size_t ld, int ncol) {
    const int nv = m->nv, nefc = d->nefc, nfull = ncol / GDN_K_W, r = ncol % GDN_K_W;
    int row[64];
    double jv[64];
    for (int j = 0; j < nv && ncol > 0; j++) {
        double* Xj = X + (size_t)j * ld;
        for (int k0 = 0; k0 < nefc; k0 += 64) {
            const int k1 = nefc - k0 < 64 ? nefc : k0 + 64;
            int nz = 0;
            for (int k = k0; k < k1; k++) {
                const double l = d->efc_J[(size_t)k * (size_t)nv + (size_t)j];
                if (l != 0) {
                    row[nz] = k;
                    jv[nz++] = l;
                }
            }
            if (nz == 0) {
                continue;
            }
            int v0 = 0;
            for (; nfull - v0 > GDN_K_B; v0 += GDN_K_B) {
                GDN_K(add_JT_block)(Xj + GDN_K_W * v0, Y + GDN_K_W * v0, ld, row, jv, nz,
                                    GDN_K_B, 0);
            }
            const int P = nfull - v0;
            GDN_K_BLOCKS(P, r, GDN_K(add_JT_block), Xj + GDN_K_W * v0, Y + GDN_K_W * v0, ld, row,
                         jv, nz)
        }
    }
}

// X <- (L L')^-1 X on a block at X (row stride ld: P whole lane vectors, then R columns in a
// partial one; L dense lower, n x n): each row's block accumulated in registers, forward
// (x_i -= L(i, k) x_k for k < i, then x_i *= 1 / L(i, i)), then backward (x_i -= L(k, i) x_k
// for k > i, then the same scaling); zero entries of L skipped
static inline __attribute__((always_inline)) GDN_K_ATTR void GDN_K(chol_block)(
    const double* Lf, size_t n, double* X, size_t ld, const int P, const int R) {
    GDN_K_LANE x[9];
    for (size_t i = 0; i < n; i++) {
        double* Xi = X + i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_GET(x[p], Xi + GDN_K_W * p, GDN_K_LANES(p, P, R));
        }
        for (size_t k = 0; k < i; k++) {
            const double l = Lf[i * n + k];
            const double* Xk = X + k * ld;
            if (l == 0) {
                continue;
            }
            GDN_SIMD_UNROLL
            for (int p = 0; p < P + (R > 0); p++) {
                GDN_K_LANE t;
                GDN_K_GET(t, Xk + GDN_K_W * p, GDN_K_LANES(p, P, R));
                x[p] = x[p] - l * t;
            }
        }
        const double inv = 1 / Lf[i * n + i];
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            const GDN_K_LANE t = x[p] * inv;
            GDN_K_PUT(Xi + GDN_K_W * p, t, GDN_K_LANES(p, P, R));
        }
    }
    for (size_t i = n; i-- > 0;) {
        double* Xi = X + i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_GET(x[p], Xi + GDN_K_W * p, GDN_K_LANES(p, P, R));
        }
        for (size_t k = i + 1; k < n; k++) {
            const double l = Lf[k * n + i];
            const double* Xk = X + k * ld;
            if (l == 0) {
                continue;
            }
            GDN_SIMD_UNROLL
            for (int p = 0; p < P + (R > 0); p++) {
                GDN_K_LANE t;
                GDN_K_GET(t, Xk + GDN_K_W * p, GDN_K_LANES(p, P, R));
                x[p] = x[p] - l * t;
            }
        }
        const double inv = 1 / Lf[i * n + i];
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            const GDN_K_LANE t = x[p] * inv;
            GDN_K_PUT(Xi + GDN_K_W * p, t, GDN_K_LANES(p, P, R));
        }
    }
}

// the columns [0, ncol) in blocks of at most GDN_K_B whole lane vectors, the last one with the
// partial vector
static GDN_K_ATTR void GDN_K(chol)(const double* Lf, size_t n, double* X, size_t ld, int ncol) {
    const int nfull = ncol / GDN_K_W, r = ncol % GDN_K_W;
    int v0 = 0;
    for (; nfull - v0 > GDN_K_B; v0 += GDN_K_B) {
        GDN_K(chol_block)(Lf, n, X + GDN_K_W * v0, ld, GDN_K_B, 0);
    }
    const int P = nfull - v0;
    if (P > 0 || r > 0) {
        GDN_K_BLOCKS(P, r, GDN_K(chol_block), Lf, n, X + GDN_K_W * v0, ld)
    }
}

#include "math/simd_lanes_end.h"
