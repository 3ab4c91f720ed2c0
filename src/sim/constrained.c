// SPDX-License-Identifier: Apache-2.0
// The constraint stages of the pipeline: contacts and rows, then the smooth acceleration and
// MuJoCo's constraint solve (mj_fwdPosition's collision/rows, mj_fwdVelocity's reference
// acceleration, mj_fwdAcceleration, mj_fwdConstraint).
#include "sim/constrained.h"

#include <string.h>

#include "base/arena.h"
#include "constraint/constraint.h"
#include "constraint/solver.h"

gdnStatus gdn_constraint_rows_stage(const gdnModel* m, gdnData* d) {
    if (m->opt.disableflags & GDN_DSBL_CONSTRAINT) {
        d->ncon = d->ncon_overflow = 0;
        d->nefc = d->ne = d->nf = d->nefc_overflow = 0;
        return GDN_OK;
    }
    gdnStatus status = gdn_collision(m, d);
    if (status == GDN_OK) {
        status = gdn_make_constraint(m, d);
    }
    if (status != GDN_OK) {
        d->nefc = d->ne = d->nf = 0;
    }
    return status;
}

// the smallest pivot of the factorization (MuJoCo's mjMINVAL)
#define PIVOT_MINVAL 1e-15

// The tree factor of M: row k of L holds the chain of k (k itself, then its ancestors, nearest
// first), packed at adr[k] with len[k] entries, so the chain of an ancestor i of k is the tail
// of row k from i's position on (both rows then run over the same columns in the same order).
typedef struct {
    int* adr;      // nv: start of row k in LD
    int* len;      // nv: 1 + the number of ancestors of dof k
    int* simple;   // nv: 1 for MuJoCo's simple dofs (skipped)
    double* LD;    // D(k) at adr[k], then L(k, j) for the ancestors j of k
    double* Dinv;  // nv: 1 / D
} TreeFactor;

// the layout and the scratch of a TreeFactor, from the arena (the caller resets it); simple
// (gdn_simple_dofs) is computed here when NULL
static gdnStatus tree_factor_alloc(const gdnModel* m, gdnData* d, const int* simple,
                                   TreeFactor* f) {
    const int nv = m->nv;
    int* ints = gdn_arena_ints(d, 3 * (size_t)nv + (size_t)m->nbody);
    if (!ints) {
        return GDN_ERR_MEMORY;
    }
    f->adr = ints;
    f->len = ints + nv;
    f->simple = ints + 2 * nv;
    int total = 0;
    for (int k = 0; k < nv; k++) {
        const int parent = m->dof_parentid[k];
        f->len[k] = parent >= 0 ? f->len[parent] + 1 : 1;
        f->adr[k] = total;
        total += f->len[k];
    }
    if (simple) {
        memcpy(f->simple, simple, sizeof(int) * (size_t)nv);
    } else {
        gdn_simple_dofs(m, ints + 3 * nv, f->simple);
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

// M + diag(diag) = L' D L along the dof tree (diag, nv, may be NULL), in MuJoCo's order
// (mj_factorI): for k = nv-1 .. 0 and each ancestor i of k (nearest first), t = M(k,i) / M(k,k);
// M(i,j) += M(k,j) (-t) for j = i and the ancestors of i; M(k,i) = t; simple dofs skip this
// (their off-diagonal M is zero up to round-off). Pivots below PIVOT_MINVAL are raised.
static void factor_mass_tree(const gdnModel* m, const double* qM, const double* diag,
                             TreeFactor* f) {
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
    for (int k = nv - 1; k >= 0; k--) {
        double* rowk = f->LD + f->adr[k];
        if (rowk[0] < PIVOT_MINVAL) {
            rowk[0] = PIVOT_MINVAL;
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
}

// x = M^-1 x with the factor of factor_mass_tree, in MuJoCo's order (mj_solveLD), simple dofs
// skipped: x = L'^-1 x (leaves first, zero entries skipped), x = x * Dinv, x = L^-1 x
static void solve_mass_tree(const gdnModel* m, const TreeFactor* f, double* x) {
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

// x (nv) = (M + diag(diag))^-1 rhs with the tree factor (diag may be NULL)
static gdnStatus solve_mass(const gdnModel* m, gdnData* d, const int* simple,
                            const double* diag, const double* rhs, double* x) {
    size_t mark = gdn_arena_mark(d);
    TreeFactor f;
    gdnStatus status = tree_factor_alloc(m, d, simple, &f);
    if (status == GDN_OK) {
        factor_mass_tree(m, d->qM, diag, &f);
        memcpy(x, rhs, sizeof(double) * (size_t)m->nv);
        solve_mass_tree(m, &f, x);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// qM, reference acceleration, qfrc_bias, qfrc_smooth, qacc_smooth, then the solve
gdnStatus gdn_constrained_acceleration(const gdnModel* m, gdnData* d, const double* tau) {
    const int nv = m->nv;
    gdn_crb(m, d);
    gdn_reference_constraint(m, d);
    gdn_rne(m, d, 0, d->qfrc_bias);
    for (int i = 0; i < nv; i++) {
        d->qfrc_smooth[i] = tau[i] - d->qfrc_bias[i];
    }
    // qacc_smooth = M^-1 qfrc_smooth with MuJoCo's tree LDL of qM (mj_factorM, mj_solveM), not
    // ABA: the solver's gradient M qacc - qfrc_smooth at qacc_smooth then has MuJoCo's bits
    // (often exactly 0, which ends the solve with 0 iterations when qacc_smooth is the answer)
    size_t mark = gdn_arena_mark(d);
    int* simple = gdn_arena_ints(d, (size_t)nv + (size_t)m->nbody);
    if (!simple) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_simple_dofs(m, simple + nv, simple);
    gdnStatus status = solve_mass(m, d, simple, NULL, d->qfrc_smooth, d->qacc_smooth);
    if (status == GDN_OK) {
        status = gdn_solve_constraint_rows(m, d, simple);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// qacc = (M + diag(extra))^-1 rhs with the tree LDL' of M + diag(extra) (mj_Euler's order)
gdnStatus gdn_damped_acceleration(const gdnModel* m, gdnData* d, const double* extra,
                                  const double* rhs, double* qacc) {
    return solve_mass(m, d, NULL, extra, rhs, qacc);
}

void gdn_unconstrained_report(const gdnModel* m, gdnData* d) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    memset(d->qfrc_constraint, 0, bytes);
    memcpy(d->qacc_warmstart, d->qacc, bytes);
    d->solver_iter = 0;
    d->solver_residual = 0;
    d->solver_converged = 1;
}
