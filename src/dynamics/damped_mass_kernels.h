// SPDX-License-Identifier: Apache-2.0
// Internal: the many-column tree solve of dynamics/damped_mass.c for one lane width, included
// once per copy (baseline, AVX2; scalar without GNU vectors) with GDN_K_LANE (the lane vector
// type: double, gdnLane2 or gdnLane4), GDN_K_W (its doubles), GDN_K_B (whole lane vectors per
// block, <= 8),
// GDN_K(name) (the copy's names) and GDN_K_ATTR (its target attribute, or empty) defined. No
// include guard.
#if !defined(GDN_K_LANE) || !defined(GDN_K_W) || !defined(GDN_K_B) || !defined(GDN_K) || \
    !defined(GDN_K_ATTR)
#    error "damped_mass_kernels.h: define GDN_K_LANE, GDN_K_W, GDN_K_B, GDN_K and GDN_K_ATTR"
#endif
#include "math/simd_lanes.h"

// X <- (L' D L)^-1 X on a block at X (row stride ld: P whole lane vectors, then R columns in a
// partial one), with gdn_mass_solve's operations in its order. Pass 1 (L' z = x):
// x_j -= L(k, j) x_k for every dof k below j that is not simple, in decreasing k: with the
// transpose (below: given for a factor without simple dofs only) row j gathers them in
// registers, every x_k final by then; without it, each row k in decreasing k (not simple) is
// scattered into its ancestors with x_k in registers (the same operations in the same order).
// Pass 2: for i = 0 .. nv-1, x_i *= 1 / D_i and (not simple) x_i -= L(i, j) x_j over the
// ancestors, nearest first, in registers (the scaling done when this pass reaches row i: the
// same operations, in the same order, as separate passes). simple: NULL when no row is skipped
static inline __attribute__((always_inline)) GDN_K_ATTR void GDN_K(tree_block)(
    int nv, const int* parent, const int* adr, const int* simple, const double* LD,
    const double* Dinv, const gdnTreeBelow* below, double* X, size_t ld, const int P,
    const int R) {
    GDN_K_LANE x[9];
    for (int i = nv - 1; below && i >= 0; i--) {
        const int* desc = below->desc + below->descadr[i];
        const double* descL = below->descL + below->descadr[i];
        const int nbelow = below->descnum[i];
        double* Xi = X + (size_t)i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_GET(x[p], Xi + GDN_K_W * p, GDN_K_LANES(p, P, R));
        }
        for (int t = 0; t < nbelow; t++) {
            const double l = descL[t];
            const double* Xk = X + (size_t)desc[t] * ld;
            GDN_SIMD_UNROLL
            for (int p = 0; p < P + (R > 0); p++) {
                GDN_K_LANE v;
                GDN_K_GET(v, Xk + GDN_K_W * p, GDN_K_LANES(p, P, R));
                x[p] = x[p] - l * v;
            }
        }
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_PUT(Xi + GDN_K_W * p, x[p], GDN_K_LANES(p, P, R));
        }
    }
    for (int i = nv - 1; !below && i >= 0; i--) {
        if (simple && simple[i]) {
            continue;
        }
        const double* rowi = LD + adr[i];
        const double* Xi = X + (size_t)i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_GET(x[p], Xi + GDN_K_W * p, GDN_K_LANES(p, P, R));
        }
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            const double l = rowi[q++];
            double* Xj = X + (size_t)j * ld;
            GDN_SIMD_UNROLL
            for (int p = 0; p < P + (R > 0); p++) {
                GDN_K_LANE t;
                GDN_K_GET(t, Xj + GDN_K_W * p, GDN_K_LANES(p, P, R));
                t = t - l * x[p];
                GDN_K_PUT(Xj + GDN_K_W * p, t, GDN_K_LANES(p, P, R));
            }
        }
    }
    for (int i = 0; i < nv; i++) {
        double* Xi = X + (size_t)i * ld;
        const double s = Dinv[i];
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_GET(x[p], Xi + GDN_K_W * p, GDN_K_LANES(p, P, R));
            x[p] = x[p] * s;
        }
        if (!simple || !simple[i]) {
            const double* rowi = LD + adr[i];
            int q = 1;
            for (int j = parent[i]; j >= 0; j = parent[j]) {
                const double l = rowi[q++];
                const double* Xj = X + (size_t)j * ld;
                GDN_SIMD_UNROLL
                for (int p = 0; p < P + (R > 0); p++) {
                    GDN_K_LANE t;
                    GDN_K_GET(t, Xj + GDN_K_W * p, GDN_K_LANES(p, P, R));
                    x[p] = x[p] - l * t;
                }
            }
        }
        GDN_SIMD_UNROLL
        for (int p = 0; p < P + (R > 0); p++) {
            GDN_K_PUT(Xi + GDN_K_W * p, x[p], GDN_K_LANES(p, P, R));
        }
    }
}

// the columns [0, ncol) in blocks of at most GDN_K_B whole lane vectors, the last one with the
// partial vector
static GDN_K_ATTR void GDN_K(tree)(int nv, const int* parent, const int* adr, const int* simple,
                                   const double* LD, const double* Dinv,
                                   const gdnTreeBelow* below, double* X, size_t ld, int ncol) {
    const int nfull = ncol / GDN_K_W, r = ncol % GDN_K_W;
    int v0 = 0;
    for (; nfull - v0 > GDN_K_B; v0 += GDN_K_B) {
        GDN_K(tree_block)(nv, parent, adr, simple, LD, Dinv, below, X + GDN_K_W * v0, ld,
                          GDN_K_B, 0);
    }
    const int P = nfull - v0;
    if (P > 0 || r > 0) {
        GDN_K_BLOCKS(P, r, GDN_K(tree_block), nv, parent, adr, simple, LD, Dinv, below,
                     X + GDN_K_W * v0, ld)
    }
}

#include "math/simd_lanes_end.h"
