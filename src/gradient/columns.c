// SPDX-License-Identifier: Apache-2.0
// Many-column products and solves of the transition Jacobians (row-major: one row per dof or
// constraint row, ncol right-hand sides along it).
#include "gradient/columns.h"

#include "dynamics/damped_mass.h"
#include "math/simd.h"

// the kernels (gradient/columns_kernels.h): one source, a baseline and an AVX2 copy chosen at
// run time, the same bits (math/simd_instantiate.h)
#define GDN_K_SOURCE "gradient/columns_kernels.h"
#include "math/simd_instantiate.h"

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
