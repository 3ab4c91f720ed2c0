// SPDX-License-Identifier: Apache-2.0
// M + h D by the tree factor, with the column lists for solves with many right-hand sides.
#include "dynamics/damped_mass.h"

#include "base/arena.h"
#include "dynamics/mass_factor.h"

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

// H = M + h D factored by the one tree factor (dynamics/mass_factor.h: gdn_mass_factor with
// extra diagonal h D and no simple-dof skipping, so every row is eliminated), then the chains
// (chain_k = k, parent(k), ...) and the transpose lists for the gathered first pass: for
// k = nv-1 .. 0 and each ancestor i = chain_k[t] (t >= 1), k is appended to i's list with
// L(k, i) (the order in which the elimination finalizes L(k, i)). A pivot that the factor had
// to raise (below GDN_MINVAL, or NaN) is an error here: the Jacobians of a singular H are not
// defined
gdnStatus gdn_damped_mass_factor_from(const gdnModel* m, gdnData* d, double h, const double* M,
                                      gdnDampedMass* dm) {
    const int nv = m->nv;
    dm->nv = nv;
    // no simple dofs (zeros), the diagonal h D, the factor's layout
    gdnMassFactor f;
    int* no_simple = gdn_arena_ints(d, (size_t)nv + 1);
    double* extra = gdn_arena_doubles(d, (size_t)nv + 1);
    if (!no_simple || !extra || gdn_mass_factor_alloc(m, d, no_simple, &f) != GDN_OK) {
        return GDN_ERR_MEMORY;
    }
    for (int k = 0; k < nv; k++) {
        no_simple[k] = 0;
        extra[k] = h * m->dof_damping[k];
    }
    if (gdn_mass_factor(m, M, extra, &f) > 0) {
        return GDN_ERR_NONFINITE;
    }
    dm->rowadr = f.adr;
    dm->rownnz = f.len;
    dm->L = f.LD;
    dm->dinv = f.Dinv;
    const int nnz = nv > 0 ? f.adr[nv - 1] + f.len[nv - 1] : 0;

    // chains and the transpose: descnum[i] = the dofs below i, descadr from it
    int* chain = gdn_arena_ints(d, 4 * (size_t)nv + (size_t)nnz + (size_t)(nnz - nv) + 1);
    double* descL = gdn_arena_doubles(d, (size_t)(nnz - nv > 0 ? nnz - nv : 1));
    if (!chain || !descL) {
        return GDN_ERR_MEMORY;
    }
    int* descadr = chain + nnz;
    int* descnum = descadr + nv;
    int* cursor = descnum + nv;
    int* desc = cursor + nv;
    for (int k = 0; k < nv; k++) {
        int* row = chain + f.adr[k];
        int j = k;
        for (int t = 0; t < f.len[k]; t++, j = m->dof_parentid[j]) {
            row[t] = j;
        }
        descnum[k] = 0;
    }
    for (int k = nv - 1; k >= 0; k--) {
        if (m->dof_parentid[k] >= 0) {
            descnum[m->dof_parentid[k]] += descnum[k] + 1;
        }
    }
    for (int i = 0, adr = 0; i < nv; i++) {
        descadr[i] = adr;
        cursor[i] = adr;
        adr += descnum[i];
    }
    for (int k = nv - 1; k >= 0; k--) {
        const int* row = chain + f.adr[k];
        const double* Lk = f.LD + f.adr[k];
        for (int t = 1; t < f.len[k]; t++) {
            const int i = row[t];
            desc[cursor[i]] = k;
            descL[cursor[i]++] = Lk[t];
        }
    }
    dm->chain = chain;
    dm->descadr = descadr;
    dm->descnum = descnum;
    dm->desc = desc;
    dm->descL = descL;
    return GDN_OK;
}

gdnStatus gdn_damped_mass_factor(const gdnModel* m, gdnData* d, double h, gdnDampedMass* dm) {
    gdn_crb(m, d);
    return gdn_damped_mass_factor_from(m, d, h, d->qM, dm);
}

// H^-1 = L^-1 D^-1 L'^-1 applied to the columns [c0, c0 + w) of X (w <= 16; the rows of one
// block stay in the L1 cache and the columns in registers):
//   L' z = x:  for k = nv-1 .. 0, x_i -= L(k, i) x_k for each ancestor i
//   z <- D^-1 z,  then  L y = z:  for k = 0 .. nv-1, y_k -= L(k, i) y_i for each ancestor i
// (the scaling of row k is done when the second pass reaches it: the same operations, in the
// same order, as three separate passes)
#if defined(__SSE2__)
// SSE2: P pairs of columns per block (P a compile-time constant after inlining), each lane the
// scalar operations of its column. The first pass is gathered: for i = nv-1 .. 0,
// x_i -= L(k, i) x_k over the descendants k of i in decreasing k (every x_k is final by then;
// the same operations in the same order as scattering each x_k to its ancestors), accumulated
// in registers as the second pass; nothing skipped
static inline void solve_pairs(const gdnDampedMass* dm, double* X, size_t ld,
                                     const int P) {
    const int nv = dm->nv;
    __m128d x[8];
    for (int i = nv - 1; i >= 0; i--) {
        double* xi = X + (size_t)i * ld;
        const int* below = dm->desc + dm->descadr[i];
        const double* Lbelow = dm->descL + dm->descadr[i];
        const int nbelow = dm->descnum[i];
        for (int p = 0; p < P; p++) {
            x[p] = _mm_loadu_pd(xi + 2 * p);
        }
        for (int t = 0; t < nbelow; t++) {
            const double* xk = X + (size_t)below[t] * ld;
            __m128d l = _mm_set1_pd(Lbelow[t]);
            for (int p = 0; p < P; p++) {
                x[p] = _mm_sub_pd(x[p], _mm_mul_pd(l, _mm_loadu_pd(xk + 2 * p)));
            }
        }
        for (int p = 0; p < P; p++) {
            _mm_storeu_pd(xi + 2 * p, x[p]);
        }
    }
    for (int k = 0; k < nv; k++) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        const int nrow = dm->rownnz[k];
        double* xk = X + (size_t)k * ld;
        __m128d s = _mm_set1_pd(dm->dinv[k]);
        for (int p = 0; p < P; p++) {
            x[p] = _mm_mul_pd(_mm_loadu_pd(xk + 2 * p), s);
        }
        for (int t = 1; t < nrow; t++) {
            const double* xi = X + (size_t)row[t] * ld;
            __m128d l = _mm_set1_pd(Lk[t]);
            for (int p = 0; p < P; p++) {
                x[p] = _mm_sub_pd(x[p], _mm_mul_pd(l, _mm_loadu_pd(xi + 2 * p)));
            }
        }
        for (int p = 0; p < P; p++) {
            _mm_storeu_pd(xk + 2 * p, x[p]);
        }
    }
}

// P pairs at X (1 <= P <= 8): one instance per width, so that x stays in registers
static void solve_block(const gdnDampedMass* dm, double* X, size_t ld, int P) {
    switch (P) {
    case 1: solve_pairs(dm, X, ld, 1); break;
    case 2: solve_pairs(dm, X, ld, 2); break;
    case 3: solve_pairs(dm, X, ld, 3); break;
    case 4: solve_pairs(dm, X, ld, 4); break;
    case 5: solve_pairs(dm, X, ld, 5); break;
    case 6: solve_pairs(dm, X, ld, 6); break;
    case 7: solve_pairs(dm, X, ld, 7); break;
    default: solve_pairs(dm, X, ld, 8); break;
    }
}

#endif

// any width w: the scalar form
static void solve_scalar(const gdnDampedMass* dm, double* X, size_t ld, int w) {
    const int nv = dm->nv;
    for (int k = nv - 1; k >= 0; k--) {
        const double* Lk = dm->L + dm->rowadr[k];
        const int* row = dm->chain + dm->rowadr[k];
        const double* xk = X + (size_t)k * ld;
        int nonzero = 0;
        for (int c = 0; c < w; c++) {
            nonzero |= xk[c] != 0;
        }
        for (int t = 1; nonzero && t < dm->rownnz[k]; t++) {
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

void gdn_damped_mass_solve_columns(const gdnDampedMass* dm, double* X, int ldx, int ncol) {
    int c0 = 0;
#if defined(__SSE2__)
    for (; c0 + 2 <= ncol;) {
        int pairs = (ncol - c0) / 2 < 8 ? (ncol - c0) / 2 : 8;
        solve_block(dm, X + c0, (size_t)ldx, pairs);
        c0 += 2 * pairs;
    }
#endif
    if (c0 < ncol) {
        solve_scalar(dm, X + c0, (size_t)ldx, ncol - c0);
    }
}
