// SPDX-License-Identifier: Apache-2.0
// Internal: many-column products and solves of the transition Jacobians. X, Y row-major: row k
// holds entry k of every column (ncol of them; ld the row stride where given).
#ifndef GDN_GRADIENT_COLUMNS_H
#define GDN_GRADIENT_COLUMNS_H

#include <gradyn/gradyn.h>

#include "dynamics/mass_factor.h"

// X (nv x ncol) += J' Y (Y: nefc x ncol) over each row's recorded columns (efc_colind); both
// with row stride ld
void gdn_columns_add_JT(const gdnModel* m, const gdnData* d, double* X, const double* Y, int ld,
                        int ncol);

// X <- (L L')^-1 X (L: a dense lower Cholesky factor, n x n row-major; X: n x ncol)
void gdn_columns_chol_solve(const double* L, int n, double* X, int ncol);

// X <- (L' D L)^-1 X with the tree factor f (gdn_mass_solve on every column; X: nv x ncol)
void gdn_columns_mass_solve(const gdnModel* m, const gdnMassFactor* f, double* X, int ncol);

#endif
