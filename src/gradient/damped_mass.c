// SPDX-License-Identifier: Apache-2.0
// Tree-sparse L'DL factorization of M + h D (no fill-in along dof_parentid) and its solves.
#include "gradient/damped_mass.h"

#include "base/arena.h"

// sparsity from dof_parentid (rows as chains), values gathered from the dense qM of gdn_crb,
// then for k = nv-1 .. 0 and each ancestor i = chain_k[t] (t >= 1):
//   a = H(k, i) / H(k, k);  H(i, j) -= a H(k, j) for j on the chain of i;  L(k, i) = a
// (the chain of i is the tail of the chain of k from t, so both rows are walked contiguously)
gdnStatus gdn_damped_mass_factor(const gdnModel* m, gdnData* d, double h, gdnDampedMass* dm) {
    const int nv = m->nv;
    dm->nv = nv;
    int* rowadr = gdn_arena_ints(d, 2 * (size_t)nv);
    if (!rowadr) {
        return GDN_ERR_MEMORY;
    }
    int* rownnz = rowadr + nv;
    int nnz = 0;
    for (int k = 0; k < nv; k++) {
        int p = m->dof_parentid[k];
        rownnz[k] = 1 + (p >= 0 ? rownnz[p] : 0);
        rowadr[k] = nnz;
        nnz += rownnz[k];
    }
    int* chain = gdn_arena_ints(d, (size_t)nnz);
    double* L = gdn_arena_doubles(d, (size_t)nnz + (size_t)nv);
    if (!chain || !L) {
        return GDN_ERR_MEMORY;
    }
    dm->rowadr = rowadr;
    dm->rownnz = rownnz;
    dm->chain = chain;
    dm->L = L;
    dm->dinv = L + nnz;

    gdn_crb(m, d);
    const double* M = d->qM;
    for (int k = 0; k < nv; k++) {
        int* row = chain + rowadr[k];
        double* Lk = L + rowadr[k];
        int j = k;
        for (int t = 0; t < rownnz[k]; t++, j = m->dof_parentid[j]) {
            row[t] = j;
            Lk[t] = M[(size_t)k * nv + j];
        }
        Lk[0] += h * m->dof_damping[k];
    }

    for (int k = nv - 1; k >= 0; k--) {
        double* Lk = L + rowadr[k];
        const int* row = chain + rowadr[k];
        if (!(Lk[0] > 0)) {
            return GDN_ERR_NONFINITE;
        }
        for (int t = 1; t < rownnz[k]; t++) {
            int i = row[t];
            double a = Lk[t] / Lk[0];
            double* Li = L + rowadr[i];
            for (int s = 0; s < rownnz[i]; s++) {
                Li[s] -= a * Lk[t + s];
            }
            Lk[t] = a;
        }
        dm->dinv[k] = 1 / Lk[0];
    }
    return GDN_OK;
}

// y -= a x over n entries (distinct rows: restrict lets the compiler use vector lanes)
static void row_axpy(double* restrict y, const double* restrict x, double a, int n) {
    for (int c = 0; c < n; c++) {
        y[c] -= a * x[c];
    }
}

// H^-1 = L^-1 D^-1 L'^-1:
//   L' z = x:  for k = nv-1 .. 0, x_i -= L(k, i) x_k for each ancestor i
//   z <- D^-1 z
//   L y = z:   for k = 0 .. nv-1, y_k -= L(k, i) y_i for each ancestor i
// each operation on whole rows of X (all right-hand sides at once)
void gdn_damped_mass_solve(const gdnDampedMass* dm, double* X, int ncol) {
    const int nv = dm->nv;
    for (int k = nv - 1; k >= 0; k--) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        const double* xk = X + (size_t)k * ncol;
        for (int t = 1; t < dm->rownnz[k]; t++) {
            row_axpy(X + (size_t)row[t] * ncol, xk, Lk[t], ncol);
        }
    }
    for (int k = 0; k < nv; k++) {
        double* xk = X + (size_t)k * ncol;
        double s = dm->dinv[k];
        for (int c = 0; c < ncol; c++) {
            xk[c] *= s;
        }
    }
    for (int k = 0; k < nv; k++) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        double* xk = X + (size_t)k * ncol;
        for (int t = 1; t < dm->rownnz[k]; t++) {
            row_axpy(xk, X + (size_t)row[t] * ncol, Lk[t], ncol);
        }
    }
}
