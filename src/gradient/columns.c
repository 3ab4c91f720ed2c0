// SPDX-License-Identifier: Apache-2.0
// Many-column products and solves of the transition Jacobians (row-major: one row per dof or
// constraint row, ncol right-hand sides along it).
#include "gradient/columns.h"

#include "dynamics/damped_mass.h"
#include "math/simd.h"

// the kernels (gradient/columns_kernels.h), one source in two copies: the baseline one (2
// doubles per lane vector; 1, plain double, without GNU vectors) and the AVX2 one (4; chosen
// at run time, math/simd.h). Each lane does the scalar operations of its column in the scalar
// order, so every copy gives the same bits
#if GDN_SIMD_VECTOR
#    define GDN_K_LANE gdnLane2
#    define GDN_K_W 2
#    define GDN_K_B 8
#    define GDN_K(name) name##_base
#    define GDN_K_ATTR
#    include "gradient/columns_kernels.h"
#else
#    define GDN_K_LANE double
#    define GDN_K_W 1
#    define GDN_K_B 8
#    define GDN_K(name) name##_base
#    define GDN_K_ATTR
#    include "gradient/columns_kernels.h"
#endif
#if GDN_SIMD_AVX2
#    define GDN_K_LANE gdnLane4
#    define GDN_K_W 4
#    define GDN_K_B 8
#    define GDN_K(name) name##_avx2
#    define GDN_K_ATTR GDN_SIMD_TARGET_AVX2
#    include "gradient/columns_kernels.h"
#endif

// X (nv x ncol) += J' Y (Y: nefc x ncol), over each row's recorded columns; both with row
// stride ld
void gdn_columns_add_JT(const gdnModel* m, const gdnData* d, double* X, const double* Y, int ld,
                        int ncol) {
#if GDN_SIMD_AVX2
    if (gdn_simd_use_avx2()) {
        add_JT_avx2(m, d, X, Y, (size_t)ld, ncol);
        return;
    }
#endif
    add_JT_base(m, d, X, Y, (size_t)ld, ncol);
}

// X <- (L L')^-1 X (L: the dense Cholesky factor, lower, n x n)
void gdn_columns_chol_solve(const double* Lf, int n, double* X, int ncol) {
#if GDN_SIMD_AVX2
    if (gdn_simd_use_avx2()) {
        chol_avx2(Lf, (size_t)n, X, (size_t)ncol, ncol);
        return;
    }
#endif
    chol_base(Lf, (size_t)n, X, (size_t)ncol, ncol);
}

// X <- (L' D L)^-1 X with the tree factor: the one many-column tree solve (damped_mass.c)
void gdn_columns_mass_solve(const gdnModel* m, const gdnMassFactor* f, double* X, int ncol) {
    gdn_mass_solve_columns(m, f, X, ncol, ncol);
}
