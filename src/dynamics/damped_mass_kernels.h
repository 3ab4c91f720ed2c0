// SPDX-License-Identifier: Apache-2.0
// Internal: the many-column tree solve of dynamics/damped_mass.c for one lane width, included
// once per copy (baseline, AVX2, the scalar tail) with GDN_K_LANE (the lane vector type:
// double, gdnLane2 or gdnLane4), GDN_K_W (its doubles), GDN_K_B (lane vectors per block, <= 8),
// GDN_K(name) (the copy's names) and GDN_K_ATTR (its target attribute, or empty) defined. No
// include guard.
#if !defined(GDN_K_LANE) || !defined(GDN_K_W) || !defined(GDN_K_B) || !defined(GDN_K) || \
    !defined(GDN_K_ATTR)
#    error "damped_mass_kernels.h: define GDN_K_LANE, GDN_K_W, GDN_K_B, GDN_K and GDN_K_ATTR"
#endif

// X <- (L' D L)^-1 X on P lane vectors of columns at X (row stride ld), with gdn_mass_solve's
// operations in its order. Pass 1 (L' z = x): x_j -= L(k, j) x_k for every dof k below j that
// is not simple, in decreasing k: with the lists (below, no simple dofs) row j gathers them in
// registers, every x_k final by then; without, each row k in decreasing k (not simple) is
// scattered into its ancestors with x_k in registers (the same operations in the same order).
// Pass 2: for i = 0 .. nv-1, x_i *= 1 / D_i and (not simple) x_i -= L(i, j) x_j over the
// ancestors, nearest first, in registers (the scaling done when this pass reaches row i: the
// same operations, in the same order, as separate passes). simple: NULL when no row is skipped
static inline __attribute__((always_inline)) GDN_K_ATTR void GDN_K(tree_block)(
    int nv, const int* parent, const int* adr, const int* simple, const double* LD,
    const double* Dinv, const gdnTreeBelow* below, double* X, size_t ld, const int P) {
    GDN_K_LANE x[8];
    for (int i = nv - 1; below && i >= 0; i--) {
        const int* desc = below->desc + below->descadr[i];
        const double* descL = below->descL + below->descadr[i];
        const int nbelow = below->descnum[i];
        double* Xi = X + (size_t)i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P; p++) {
            memcpy(&x[p], Xi + GDN_K_W * p, sizeof x[p]);
        }
        for (int t = 0; t < nbelow; t++) {
            const double l = descL[t];
            const double* Xk = X + (size_t)desc[t] * ld;
            GDN_SIMD_UNROLL
            for (int p = 0; p < P; p++) {
                GDN_K_LANE v;
                memcpy(&v, Xk + GDN_K_W * p, sizeof v);
                x[p] = x[p] - l * v;
            }
        }
        GDN_SIMD_UNROLL
        for (int p = 0; p < P; p++) {
            memcpy(Xi + GDN_K_W * p, &x[p], sizeof x[p]);
        }
    }
    for (int i = nv - 1; !below && i >= 0; i--) {
        if (simple && simple[i]) {
            continue;
        }
        const double* rowi = LD + adr[i];
        const double* Xi = X + (size_t)i * ld;
        GDN_SIMD_UNROLL
        for (int p = 0; p < P; p++) {
            memcpy(&x[p], Xi + GDN_K_W * p, sizeof x[p]);
        }
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            const double l = rowi[q++];
            double* Xj = X + (size_t)j * ld;
            GDN_SIMD_UNROLL
            for (int p = 0; p < P; p++) {
                GDN_K_LANE t;
                memcpy(&t, Xj + GDN_K_W * p, sizeof t);
                t = t - l * x[p];
                memcpy(Xj + GDN_K_W * p, &t, sizeof t);
            }
        }
    }
    for (int i = 0; i < nv; i++) {
        double* Xi = X + (size_t)i * ld;
        const double s = Dinv[i];
        GDN_SIMD_UNROLL
        for (int p = 0; p < P; p++) {
            memcpy(&x[p], Xi + GDN_K_W * p, sizeof x[p]);
            x[p] = x[p] * s;
        }
        if (!simple || !simple[i]) {
            const double* rowi = LD + adr[i];
            int q = 1;
            for (int j = parent[i]; j >= 0; j = parent[j]) {
                const double l = rowi[q++];
                const double* Xj = X + (size_t)j * ld;
                GDN_SIMD_UNROLL
                for (int p = 0; p < P; p++) {
                    GDN_K_LANE t;
                    memcpy(&t, Xj + GDN_K_W * p, sizeof t);
                    x[p] = x[p] - l * t;
                }
            }
        }
        GDN_SIMD_UNROLL
        for (int p = 0; p < P; p++) {
            memcpy(Xi + GDN_K_W * p, &x[p], sizeof x[p]);
        }
    }
}

// the whole lane vectors of [0, ncol) in blocks of at most GDN_K_B; returns the columns done
static GDN_K_ATTR int GDN_K(tree)(int nv, const int* parent, const int* adr, const int* simple,
                                  const double* LD, const double* Dinv,
                                  const gdnTreeBelow* below, double* X, size_t ld,
                                  int ncol) {
    int c0 = 0;
    while (c0 + GDN_K_W <= ncol) {
        const int left = (ncol - c0) / GDN_K_W, P = left < GDN_K_B ? left : GDN_K_B;
        GDN_SIMD_BLOCK_SWITCH(P, GDN_K(tree_block), nv, parent, adr, simple, LD, Dinv, below,
                              X + c0, ld)
        c0 += GDN_K_W * P;
    }
    return c0;
}

#undef GDN_K_LANE
#undef GDN_K_W
#undef GDN_K_B
#undef GDN_K
#undef GDN_K_ATTR
