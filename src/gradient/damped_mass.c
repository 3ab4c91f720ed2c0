// SPDX-License-Identifier: Apache-2.0
// Tree-sparse L'DL factorization of M + h D (no fill-in along dof_parentid) and its solves.
#include "gradient/damped_mass.h"

#include "base/arena.h"

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

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

// H^-1 = L^-1 D^-1 L'^-1 applied to the columns [c0, c0 + w) of X (w <= 8; the rows of one
// block stay in the L1 cache and the 8 columns in registers):
//   L' z = x:  for k = nv-1 .. 0, x_i -= L(k, i) x_k for each ancestor i
//   z <- D^-1 z,  then  L y = z:  for k = 0 .. nv-1, y_k -= L(k, i) y_i for each ancestor i
// (the scaling of row k is done when the second pass reaches it: the same operations, in the
// same order, as three separate passes)
#if defined(__SSE2__)
// SSE2: 4 pairs of columns per block, each lane the scalar operations of its column
static void solve_block8(const gdnDampedMass* dm, double* X, size_t ld) {
    const int nv = dm->nv;
    for (int k = nv - 1; k >= 0; k--) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        const double* xk = X + (size_t)k * ld;
        __m128d x0 = _mm_loadu_pd(xk), x1 = _mm_loadu_pd(xk + 2);
        __m128d x2 = _mm_loadu_pd(xk + 4), x3 = _mm_loadu_pd(xk + 6);
        for (int t = 1; t < dm->rownnz[k]; t++) {
            double* xi = X + (size_t)row[t] * ld;
            __m128d l = _mm_set1_pd(Lk[t]);
            _mm_storeu_pd(xi, _mm_sub_pd(_mm_loadu_pd(xi), _mm_mul_pd(l, x0)));
            _mm_storeu_pd(xi + 2, _mm_sub_pd(_mm_loadu_pd(xi + 2), _mm_mul_pd(l, x1)));
            _mm_storeu_pd(xi + 4, _mm_sub_pd(_mm_loadu_pd(xi + 4), _mm_mul_pd(l, x2)));
            _mm_storeu_pd(xi + 6, _mm_sub_pd(_mm_loadu_pd(xi + 6), _mm_mul_pd(l, x3)));
        }
    }
    for (int k = 0; k < nv; k++) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        double* xk = X + (size_t)k * ld;
        __m128d s = _mm_set1_pd(dm->dinv[k]);
        __m128d x0 = _mm_mul_pd(_mm_loadu_pd(xk), s), x1 = _mm_mul_pd(_mm_loadu_pd(xk + 2), s);
        __m128d x2 = _mm_mul_pd(_mm_loadu_pd(xk + 4), s), x3 = _mm_mul_pd(_mm_loadu_pd(xk + 6), s);
        for (int t = 1; t < dm->rownnz[k]; t++) {
            const double* xi = X + (size_t)row[t] * ld;
            __m128d l = _mm_set1_pd(Lk[t]);
            x0 = _mm_sub_pd(x0, _mm_mul_pd(l, _mm_loadu_pd(xi)));
            x1 = _mm_sub_pd(x1, _mm_mul_pd(l, _mm_loadu_pd(xi + 2)));
            x2 = _mm_sub_pd(x2, _mm_mul_pd(l, _mm_loadu_pd(xi + 4)));
            x3 = _mm_sub_pd(x3, _mm_mul_pd(l, _mm_loadu_pd(xi + 6)));
        }
        _mm_storeu_pd(xk, x0);
        _mm_storeu_pd(xk + 2, x1);
        _mm_storeu_pd(xk + 4, x2);
        _mm_storeu_pd(xk + 6, x3);
    }
}
#endif

// any width w: the scalar form
static void solve_block(const gdnDampedMass* dm, double* X, size_t ld, int w) {
    const int nv = dm->nv;
    for (int k = nv - 1; k >= 0; k--) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        const double* xk = X + (size_t)k * ld;
        for (int t = 1; t < dm->rownnz[k]; t++) {
            double* xi = X + (size_t)row[t] * ld;
            for (int c = 0; c < w; c++) {
                xi[c] -= Lk[t] * xk[c];
            }
        }
    }
    for (int k = 0; k < nv; k++) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        double* xk = X + (size_t)k * ld;
        for (int c = 0; c < w; c++) {
            xk[c] *= dm->dinv[k];
        }
        for (int t = 1; t < dm->rownnz[k]; t++) {
            const double* xi = X + (size_t)row[t] * ld;
            for (int c = 0; c < w; c++) {
                xk[c] -= Lk[t] * xi[c];
            }
        }
    }
}

void gdn_damped_mass_solve(const gdnDampedMass* dm, double* X, int ncol) {
    int c0 = 0;
#if defined(__SSE2__)
    for (; c0 + 8 <= ncol; c0 += 8) {
        solve_block8(dm, X + c0, (size_t)ncol);
    }
#endif
    if (c0 < ncol) {
        solve_block(dm, X + c0, (size_t)ncol, ncol - c0);
    }
}
