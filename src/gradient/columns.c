// SPDX-License-Identifier: Apache-2.0
// Many-column products and solves of the transition Jacobians (row-major: one row per dof or
// constraint row, ncol right-hand sides along it).
#include "gradient/columns.h"

#include <string.h>

// X (nv x ncol) += J' Y (Y: nefc x ncol), over each row's recorded columns; both with row
// stride ld
void gdn_columns_add_JT(const gdnModel* m, const gdnData* d, double* X, const double* Y, int ld,
                        int ncol) {
    const size_t nv = (size_t)m->nv, cols = (size_t)ncol, lds = (size_t)ld;
    for (int k = 0; k < d->nefc; k++) {
        const double* Jk = d->efc_J + (size_t)k * nv;
        const int* col = d->efc_colind + d->efc_rowadr[k];
        const double* Yk = Y + (size_t)k * lds;
        for (int a = 0; a < d->efc_rownnz[k]; a++) {
            const double jv = Jk[col[a]];
            double* Xj = X + (size_t)col[a] * lds;
            if (jv == 0) {
                continue;
            }
            for (size_t c = 0; c < cols; c++) {
                Xj[c] += jv * Yk[c];
            }
        }
    }
}

// X <- (L L')^-1 X (L: the dense Cholesky factor, lower, n x n)
void gdn_columns_chol_solve(const double* Lf, int n, double* X, int ncol) {
    const size_t cols = (size_t)ncol, nn = (size_t)n;
    for (size_t i = 0; i < nn; i++) {
        double* Xi = X + i * cols;
        for (size_t k = 0; k < i; k++) {
            const double l = Lf[i * nn + k];
            const double* Xk = X + k * cols;
            if (l == 0) {
                continue;
            }
            for (size_t c = 0; c < cols; c++) {
                Xi[c] -= l * Xk[c];
            }
        }
        const double inv = 1 / Lf[i * nn + i];
        for (size_t c = 0; c < cols; c++) {
            Xi[c] *= inv;
        }
    }
    for (size_t i = nn; i-- > 0;) {
        double* Xi = X + i * cols;
        for (size_t k = i + 1; k < nn; k++) {
            const double l = Lf[k * nn + i];
            const double* Xk = X + k * cols;
            if (l == 0) {
                continue;
            }
            for (size_t c = 0; c < cols; c++) {
                Xi[c] -= l * Xk[c];
            }
        }
        const double inv = 1 / Lf[i * nn + i];
        for (size_t c = 0; c < cols; c++) {
            Xi[c] *= inv;
        }
    }
}

// X <- (L' D L)^-1 X with the tree factor (gdn_mass_solve on every column)
void gdn_columns_mass_solve(const gdnModel* m, const gdnMassFactor* f, double* X, int ncol) {
    const int nv = m->nv;
    const size_t cols = (size_t)ncol;
    const int* parent = m->dof_parentid;
    for (int i = nv - 1; i >= 0; i--) {
        if (f->simple[i]) {
            continue;
        }
        const double* rowi = f->LD + f->adr[i];
        const double* Xi = X + (size_t)i * cols;
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            const double l = rowi[q++];
            double* Xj = X + (size_t)j * cols;
            for (size_t c = 0; c < cols; c++) {
                Xj[c] -= l * Xi[c];
            }
        }
    }
    for (int i = 0; i < nv; i++) {
        double* Xi = X + (size_t)i * cols;
        for (size_t c = 0; c < cols; c++) {
            Xi[c] *= f->Dinv[i];
        }
    }
    for (int i = 0; i < nv; i++) {
        if (f->simple[i]) {
            continue;
        }
        const double* rowi = f->LD + f->adr[i];
        double* Xi = X + (size_t)i * cols;
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            const double l = rowi[q++];
            const double* Xj = X + (size_t)j * cols;
            for (size_t c = 0; c < cols; c++) {
                Xi[c] -= l * Xj[c];
            }
        }
    }
}

