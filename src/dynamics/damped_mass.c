// SPDX-License-Identifier: Apache-2.0
// M + h D by the tree factor with its transpose lists, and the one tree solve with many
// right-hand sides.
#include "dynamics/damped_mass.h"

#include "base/arena.h"
#include "math/simd.h"

// H = M + h D factored by the one tree factor (dynamics/mass_factor.h: gdn_mass_factor with
// extra diagonal h D and no simple-dof skipping, so every row is eliminated), then the
// transpose lists for the gathered first pass: for k = nv-1 .. 0 and each ancestor i of k
// (nearest first), k is appended to i's list with L(k, i). A pivot that the factor had to
// raise (below GDN_MINVAL, or NaN) is an error here: the Jacobians of a singular H are not
// defined
gdnStatus gdn_damped_mass_factor_from(const gdnModel* m, gdnData* d, double h, const double* M,
                                      gdnDampedMass* dm) {
    const int nv = m->nv;
    dm->nv = nv;
    dm->parent = m->dof_parentid;
    // no simple dofs (zeros), the diagonal h D, the factor's layout
    int* no_simple = gdn_arena_ints(d, (size_t)nv + 1);
    double* extra = gdn_arena_doubles(d, (size_t)nv + 1);
    if (!no_simple || !extra || gdn_mass_factor_alloc(m, d, no_simple, &dm->f) != GDN_OK) {
        return GDN_ERR_MEMORY;
    }
    for (int k = 0; k < nv; k++) {
        no_simple[k] = 0;
        extra[k] = h * m->dof_damping[k];
    }
    if (gdn_mass_factor(m, M, extra, &dm->f) > 0) {
        return GDN_ERR_NONFINITE;
    }
    const gdnMassFactor* f = &dm->f;
    const int nnz = nv > 0 ? f->adr[nv - 1] + f->len[nv - 1] : 0;

    // the transpose: descnum[i] = the dofs below i, descadr from it, then the lists
    int* descadr = gdn_arena_ints(d, 3 * (size_t)nv + (size_t)(nnz - nv) + 1);
    double* descL = gdn_arena_doubles(d, (size_t)(nnz - nv > 0 ? nnz - nv : 1));
    if (!descadr || !descL) {
        return GDN_ERR_MEMORY;
    }
    int* descnum = descadr + nv;
    int* cursor = descnum + nv;
    int* desc = cursor + nv;
    for (int k = 0; k < nv; k++) {
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
        const double* Lk = f->LD + f->adr[k];
        int t = 1;
        for (int i = m->dof_parentid[k]; i >= 0; i = m->dof_parentid[i], t++) {
            desc[cursor[i]] = k;
            descL[cursor[i]++] = Lk[t];
        }
    }
    dm->below.descadr = descadr;
    dm->below.descnum = descnum;
    dm->below.desc = desc;
    dm->below.descL = descL;
    return GDN_OK;
}

gdnStatus gdn_damped_mass_factor(const gdnModel* m, gdnData* d, double h, gdnDampedMass* dm) {
    gdn_crb(m, d);
    return gdn_damped_mass_factor_from(m, d, h, d->qM, dm);
}

// the kernels (dynamics/damped_mass_kernels.h): one source, a baseline and an AVX2 copy chosen at
// run time, the same bits (math/simd_instantiate.h)
#define GDN_K_SOURCE "dynamics/damped_mass_kernels.h"
#include "math/simd_instantiate.h"

// X <- (L' D L)^-1 X over [0, ncol) by the chosen copy; below: the transpose (the first pass
// gathered), or NULL (scattered)
static void tree_solve(int nv, const int* parent, const gdnMassFactor* f, const int* simple,
                       const gdnTreeBelow* below, double* X, size_t ld, int ncol) {
#if GDN_SIMD_AVX2
    if (gdn_simd_use_avx2()) {
        tree_avx2(nv, parent, f->adr, simple, f->LD, f->Dinv, below, X, ld, ncol);
        return;
    }
#endif
    tree_base(nv, parent, f->adr, simple, f->LD, f->Dinv, below, X, ld, ncol);
}

void gdn_mass_solve_columns(const gdnModel* m, const gdnMassFactor* f, double* X, int ldx,
                            int ncol) {
    tree_solve(m->nv, m->dof_parentid, f, f->simple, NULL, X, (size_t)ldx, ncol);
}

void gdn_damped_mass_solve_columns(const gdnDampedMass* dm, double* X, int ldx, int ncol) {
    tree_solve(dm->nv, dm->parent, &dm->f, NULL, &dm->below, X, (size_t)ldx, ncol);
}
