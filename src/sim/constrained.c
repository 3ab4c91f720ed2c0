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

// MuJoCo's "simple" dofs (the compiler's body_simple, dof_simplenum != 0), whose rows of L its
// factorization skips: the body's inertia frame is its body frame, it hangs from the world (or
// from a dof-free child of the world), has no child body, and its joints sit at the body origin
// with single-component axes and no joint after a rotation. simple (nv) = 1 for such dofs;
// body (nbody) is scratch.
static void simple_dofs(const gdnModel* m, int* body, int* simple) {
    const int* parent = m->body_parentid;
    body[0] = 0;
    for (int i = 1; i < m->nbody; i++) {
        const double* ipos = m->body_ipos + 3 * i;
        const double* iquat = m->body_iquat + 4 * i;
        const int sameframe = ipos[0] == 0 && ipos[1] == 0 && ipos[2] == 0 && iquat[0] == 1 &&
                              iquat[1] == 0 && iquat[2] == 0 && iquat[3] == 0;
        const int j = parent[i];
        body[i] = sameframe &&
                  (m->body_rootid[i] == i || (parent[j] == 0 && m->body_dofnum[j] == 0));
        if (j > 0) {
            body[j] = 0;
        }
        int rotation = 0;
        for (int n = 0; n < m->body_jntnum[i]; n++) {
            const int jnt = m->body_jntadr[i] + n;
            const int type = m->jnt_type[jnt];
            const double* pos = m->jnt_pos + 3 * jnt;
            const double* axis = m->jnt_axis + 3 * jnt;
            const int ncomponent = (axis[0] != 0) + (axis[1] != 0) + (axis[2] != 0);
            if (rotation || pos[0] != 0 || pos[1] != 0 || pos[2] != 0 ||
                ((type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE) && ncomponent > 1)) {
                body[i] = 0;
            }
            rotation |= type == GDN_JNT_BALL || type == GDN_JNT_HINGE;
        }
    }
    for (int k = 0; k < m->nv; k++) {
        simple[k] = body[m->dof_bodyid[k]];
    }
}

// M = L' D L along the dof tree, in MuJoCo's order (mj_factorI): for k = nv-1 .. 0 and each
// ancestor i of k (nearest first), t = M(k,i) / M(k,k); M(i,j) += M(k,j) (-t) for j = i and the
// ancestors of i; M(k,i) = t; simple dofs skip this (their off-diagonal M is zero up to
// round-off). LD (nv x nv, row-major) holds D(k) at (k,k) and L(k,j) at the ancestors j < k of
// k (nothing else is read or written); Dinv = 1 / D. Pivots below PIVOT_MINVAL are raised.
// With diag (nv, may be NULL) the factor is that of M + diag(diag).
static void factor_mass_tree(const gdnModel* m, const int* simple, const double* qM,
                             const double* diag, double* LD, double* Dinv) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    for (int k = 0; k < nv; k++) {
        for (int j = k; j >= 0; j = parent[j]) {
            LD[(size_t)k * (size_t)nv + (size_t)j] = qM[(size_t)k * (size_t)nv + (size_t)j];
        }
        if (diag) {
            LD[(size_t)k * (size_t)nv + (size_t)k] += diag[k];
        }
    }
    for (int k = nv - 1; k >= 0; k--) {
        double* rowk = LD + (size_t)k * (size_t)nv;
        if (rowk[k] < PIVOT_MINVAL) {
            rowk[k] = PIVOT_MINVAL;
        }
        if (simple[k]) {
            continue;
        }
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            const double t = rowk[i] / rowk[k];
            double* rowi = LD + (size_t)i * (size_t)nv;
            for (int j = i; j >= 0; j = parent[j]) {
                rowi[j] += rowk[j] * -t;
            }
            rowk[i] = t;
        }
    }
    for (int i = 0; i < nv; i++) {
        Dinv[i] = 1.0 / LD[(size_t)i * (size_t)nv + (size_t)i];
    }
}

// x = M^-1 x with the factor of factor_mass_tree, in MuJoCo's order (mj_solveLD), simple dofs
// skipped: x = L'^-1 x (leaves first, zero entries skipped), x = x * Dinv, x = L^-1 x
static void solve_mass_tree(const gdnModel* m, const int* simple, const double* LD,
                            const double* Dinv, double* x) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    for (int i = nv - 1; i >= 0; i--) {
        const double xi = x[i];
        if (simple[i] || xi == 0) {
            continue;
        }
        const double* rowi = LD + (size_t)i * (size_t)nv;
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            x[j] -= rowi[j] * xi;
        }
    }
    for (int i = 0; i < nv; i++) {
        x[i] *= Dinv[i];
    }
    for (int i = 0; i < nv; i++) {
        if (simple[i]) {
            continue;
        }
        const double* rowi = LD + (size_t)i * (size_t)nv;
        double xi = x[i];
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            xi -= rowi[j] * x[j];
        }
        x[i] = xi;
    }
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
    double* LD = gdn_arena_doubles(d, (size_t)nv * (size_t)nv + (size_t)nv);
    int* simple_body = gdn_arena_ints(d, (size_t)m->nbody + (size_t)nv);
    if (!LD || !simple_body) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* Dinv = LD + (size_t)nv * (size_t)nv;
    int* simple = simple_body + m->nbody;
    simple_dofs(m, simple_body, simple);
    factor_mass_tree(m, simple, d->qM, NULL, LD, Dinv);
    memcpy(d->qacc_smooth, d->qfrc_smooth, sizeof(double) * (size_t)nv);
    solve_mass_tree(m, simple, LD, Dinv, d->qacc_smooth);
    gdn_arena_reset(d, mark);
    return gdn_solve_constraint(m, d);
}

// qacc = (M + diag(extra))^-1 rhs with the tree LDL' of M + diag(extra) (mj_Euler's order)
gdnStatus gdn_damped_acceleration(const gdnModel* m, gdnData* d, const double* extra,
                                  const double* rhs, double* qacc) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* LD = gdn_arena_doubles(d, (size_t)nv * (size_t)nv + (size_t)nv);
    int* simple_body = gdn_arena_ints(d, (size_t)m->nbody + (size_t)nv);
    if (!LD || !simple_body) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* Dinv = LD + (size_t)nv * (size_t)nv;
    int* simple = simple_body + m->nbody;
    simple_dofs(m, simple_body, simple);
    factor_mass_tree(m, simple, d->qM, extra, LD, Dinv);
    memcpy(qacc, rhs, sizeof(double) * (size_t)nv);
    solve_mass_tree(m, simple, LD, Dinv, qacc);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

void gdn_unconstrained_report(const gdnModel* m, gdnData* d) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    memset(d->qfrc_constraint, 0, bytes);
    memcpy(d->qacc_warmstart, d->qacc, bytes);
    d->solver_iter = 0;
    d->solver_residual = 0;
    d->solver_converged = 1;
}
