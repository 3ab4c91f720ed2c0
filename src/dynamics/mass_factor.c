// SPDX-License-Identifier: Apache-2.0
// The tree LDL' factor of M in MuJoCo's order (mj_factorI) and its solve (mj_solveLD).
#include "dynamics/mass_factor.h"

#include "base/arena.h"
#include "math/vec.h"

gdnStatus gdn_mass_factor_alloc(const gdnModel* m, gdnData* d, const int* simple,
                                gdnMassFactor* f) {
    const int nv = m->nv;
    const size_t nsimple = simple ? 0 : (size_t)nv + (size_t)m->nbody;
    int* ints = gdn_arena_ints(d, 2 * (size_t)nv + nsimple);
    if (!ints) {
        return GDN_ERR_MEMORY;
    }
    f->adr = ints;
    f->len = ints + nv;
    int total = 0;
    for (int k = 0; k < nv; k++) {
        const int parent = m->dof_parentid[k];
        f->len[k] = parent >= 0 ? f->len[parent] + 1 : 1;
        f->adr[k] = total;
        total += f->len[k];
    }
    if (simple) {
        f->simple = simple;
    } else {
        int* found = ints + 2 * nv;
        gdn_simple_dofs(m, found + nv, found);
        f->simple = found;
    }
    f->LD = gdn_arena_doubles(d, (size_t)total + (size_t)nv);
    if (!f->LD) {
        return GDN_ERR_MEMORY;
    }
    f->Dinv = f->LD + total;
    return GDN_OK;
}

// x += y (-t) over n entries (two different rows of the factor: never overlapping)
static void sub_scaled(double* restrict x, const double* restrict y, double t, int n) {
    for (int p = 0; p < n; p++) {
        x[p] += y[p] * -t;
    }
}

// for k = nv-1 .. 0 and each ancestor i of k (nearest first), t = M(k,i) / M(k,k);
// M(i,j) += M(k,j) (-t) for j = i and the ancestors of i; M(k,i) = t; simple dofs skip this
// (their off-diagonal M is zero up to round-off). Pivots below GDN_MINVAL are raised.
int gdn_mass_factor(const gdnModel* m, const double* qM, const double* diag, gdnMassFactor* f) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    for (int k = 0; k < nv; k++) {
        double* rowk = f->LD + f->adr[k];
        const double* qMk = qM + (size_t)k * (size_t)nv;
        int q = 0;
        for (int j = k; j >= 0; j = parent[j]) {
            rowk[q++] = qMk[j];
        }
        if (diag) {
            rowk[0] += diag[k];
        }
    }
    int raised = 0;
    for (int k = nv - 1; k >= 0; k--) {
        double* rowk = f->LD + f->adr[k];
        if (!(rowk[0] >= GDN_MINVAL)) {
            raised++;
            if (rowk[0] < GDN_MINVAL) {
                rowk[0] = GDN_MINVAL;
            }
        }
        if (f->simple[k]) {
            continue;
        }
        const int lenk = f->len[k];
        int i = parent[k];
        for (int q = 1; q < lenk; q++, i = parent[i]) {
            const double t = rowk[q] / rowk[0];
            double* rowi = f->LD + f->adr[i];
            sub_scaled(rowi, rowk + q, t, lenk - q);
            rowk[q] = t;
        }
    }
    for (int k = 0; k < nv; k++) {
        f->Dinv[k] = 1.0 / f->LD[f->adr[k]];
    }
    return raised;
}

// simple dofs skipped: x = L'^-1 x (leaves first, zero entries skipped), x = x * Dinv,
// x = L^-1 x
void gdn_mass_solve(const gdnModel* m, const gdnMassFactor* f, double* x) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    for (int i = nv - 1; i >= 0; i--) {
        const double xi = x[i];
        if (f->simple[i] || xi == 0) {
            continue;
        }
        const double* rowi = f->LD + f->adr[i];
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            x[j] -= rowi[q++] * xi;
        }
    }
    for (int i = 0; i < nv; i++) {
        x[i] *= f->Dinv[i];
    }
    for (int i = 0; i < nv; i++) {
        if (f->simple[i]) {
            continue;
        }
        const double* rowi = f->LD + f->adr[i];
        double xi = x[i];
        int q = 1;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            xi -= rowi[q++] * x[j];
        }
        x[i] = xi;
    }
}
