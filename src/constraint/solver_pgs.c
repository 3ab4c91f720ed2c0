// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's dual solver: projected Gauss-Seidel sweeps over the constraint rows.
//
// The dual problem (MuJoCo's mj_solPGS) over the constraint forces f:
//   min_f 0.5 f' AR f + f' b,  AR = J M^-1 J' + diag(R),  b = J qacc_smooth - aref,
// with equality rows free, friction-loss rows in [-frictionloss, frictionloss], limit,
// frictionless and pyramidal rows non-negative, and each elliptic contact's rows in its cone
// (normal n >= 0, sum_j (t_j / friction_j)^2 <= n^2). A sweep visits the rows in order; each row
// (each elliptic block) is minimized with the others fixed and projected, and the change is
// undone when it raised the dual cost by more than 1e-10. Termination after each sweep: the
// decrease of the dual cost over the sweep, scaled by meaninertia * max(1, nv), below the
// tolerance. At the end qacc = qacc_smooth + M^-1 J' f.
//
// Matrix-free (no nefc x nefc matrix): with MuJoCo's tree factor M = L' D L (gdn_mass_factor)
// and the rows z_i = D^-1/2 L'^-1 J_i' (MuJoCo's JM2 of mj_solveM2, same operations), AR = Z Z'
// + diag(R) as MuJoCo builds it. Only AR's diagonal and the elliptic dim x dim blocks are
// formed, each entry summed as MuJoCo's mju_sqrMatTD sums it (over the dofs in ascending
// order), so they carry MuJoCo's bits; the row residual (AR f + b)_i = b_i + z_i . y + R_i f_i
// uses y = Z' f (nv), kept current by y += z_i (f_i - f_i_old) after each row's update (the
// only arithmetic that differs from MuJoCo's dense b_i + AR_i . f). z_i is nonzero only on the
// dofs of J_i and their ancestors (L'^-1 runs from a dof to its ancestors), so Z is stored by
// rows over those columns (nnz_i of them: the kinematic chains of the row).
// Cost: setup sum over dofs of depth^2 (factor) + sum_i nnz_i depth (Z) + sum_i nnz_i
// (diagonal, y) + sum over elliptic contacts dim^2 nnz; each sweep about 2 nnz_i multiply-adds
// per row (one dot for the residual, one axpy when the force changed), against MuJoCo's dense
// 2 nefc per row (and its nefc^2 nv / 2 to form AR). Memory: sum_i nnz_i (<= nefc nv) doubles
// and ints, 10 nefc + 3 nv doubles and the factor (the step's, when given).
// Like MuJoCo's, an elliptic contact whose forces are all zero gets only the normal update
// (clamped at 0), so a contact that only a joint normal-and-friction step would open stays
// closed: on some hard elliptic problems the sweeps stall short of the minimum
// (test_solver_pgs measures MuJoCo's own PGS doing the same).
#include "constraint/solver.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "constraint/constraint.h"
#include "math/cone_qcqp.h"
#include "dynamics/mass_factor.h"

// a row update that raises the dual cost by more than this is undone (MuJoCo's threshold)
#define PGS_RESTORE 1e-10


// the largest elliptic contact (condim 6)
#define PGS_MAXDIM 6

// solver state (arrays from the arena)
typedef struct Pgs {
    const gdnMassFactor* M; // tree factor of M (given, or own)
    gdnMassFactor own;      // the factor when none is given
    int* zadr;       // (nefc) start of row i of Z in zval / zcol
    int* znnz;       // (nefc) its number of columns
    double* zval;    // (sum nnz) z_i on its columns
    int* zcol;       // (sum nnz) those columns, ascending
    double* y;       // (nv) Z' f
    double* b;       // (nefc) J qacc_smooth - aref
    double* ARinv;   // (nefc) 1 / AR_ii
    double* ARdiag;  // (nefc) 1 / ARinv_i: the scalar rows' AR in the cost change, as MuJoCo
    double* block;   // (6 nefc) AR block of the elliptic contact whose first row is i, at 6 i
    double* rsqrtD;  // (nv) 1 / sqrt(D) of the factor
} Pgs;

// rows of an elliptic contact starting at row i (1 for every other row)
static int row_dim(const gdnData* d, int i) {
    if (d->efc_type[i] != GDN_CNSTR_CONTACT_ELLIPTIC) {
        return 1;
    }
    return d->contact[d->efc_id[i]].dim;
}

// mark (mark[k] = 1) the recorded columns of row i of J and all their ancestors; returns how
// many were marked
static int mark_chain(const gdnModel* m, const gdnData* d, int i, int* mark) {
    const int* col = d->efc_colind + d->efc_rowadr[i];
    int count = 0;
    for (int q = 0; q < d->efc_rownnz[i]; q++) {
        for (int k = col[q]; k >= 0 && !mark[k]; k = m->dof_parentid[k]) {
            mark[k] = 1;
            count++;
        }
    }
    return count;
}

// does row i of J have the recorded columns of row i - 1 (then the same chain: the rows of
// one contact usually do)?
static int same_columns(const gdnData* d, int i) {
    if (i == 0 || d->efc_rownnz[i] != d->efc_rownnz[i - 1]) {
        return 0;
    }
    const int* col = d->efc_colind + d->efc_rowadr[i];
    const int* prev = d->efc_colind + d->efc_rowadr[i - 1];
    for (int q = 0; q < d->efc_rownnz[i]; q++) {
        if (col[q] != prev[q]) {
            return 0;
        }
    }
    return 1;
}

// the factor of M (unless factor is given: then p->M = factor), the layout of Z and every
// other array; scratch: mark (nv ints, zero), x (nv doubles). -1 when the arena is short
static int pgs_alloc(const gdnModel* m, gdnData* d, const int* simple,
                     const gdnMassFactor* factor, Pgs* p, int** mark, double** x) {
    const int nv = m->nv, nefc = d->nefc;
    p->M = factor;
    if (!factor && gdn_mass_factor_alloc(m, d, simple, &p->own) != GDN_OK) {
        return -1;
    }
    *mark = gdn_arena_ints(d, (size_t)nv);
    p->zadr = gdn_arena_ints(d, (size_t)nefc);
    p->znnz = gdn_arena_ints(d, (size_t)nefc);
    if (!*mark || !p->zadr || !p->znnz) {
        return -1;
    }
    memset(*mark, 0, sizeof(int) * (size_t)nv);
    size_t total = 0;
    for (int i = 0; i < nefc; i++) {
        p->zadr[i] = (int)total;
        if (same_columns(d, i)) {
            p->znnz[i] = p->znnz[i - 1];
        } else {
            p->znnz[i] = mark_chain(m, d, i, *mark);
            for (int k = 0; k < nv; k++) {
                (*mark)[k] = 0;
            }
        }
        total += (size_t)p->znnz[i];
    }
    p->zval = gdn_arena_doubles(d, total);
    p->zcol = gdn_arena_ints(d, total);
    p->y = gdn_arena_doubles(d, (size_t)nv);
    p->b = gdn_arena_doubles(d, (size_t)nefc);
    p->ARinv = gdn_arena_doubles(d, (size_t)nefc);
    p->ARdiag = gdn_arena_doubles(d, (size_t)nefc);
    p->block = gdn_arena_doubles(d, 6 * (size_t)nefc);
    p->rsqrtD = gdn_arena_doubles(d, (size_t)nv);
    *x = gdn_arena_doubles(d, (size_t)nv);
    return p->zval && p->zcol && p->y && p->b && p->ARinv && p->ARdiag && p->block &&
                   p->rsqrtD && *x
               ? 0
               : -1;
}

// row i of Z: x = J_i on its chain (the columns of row i - 1 when same_columns), x = L'^-1 x
// (MuJoCo's order: dofs descending, simple dofs and zeros skipped, each updating its
// ancestors), z = x (1 / sqrt(D))
static void z_row(const gdnModel* m, const gdnData* d, Pgs* p, int i, int* mark, double* x) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    const double* Ji = d->efc_J + (size_t)i * (size_t)nv;
    int* col = p->zcol + p->zadr[i];
    double* val = p->zval + p->zadr[i];
    int n = 0;
    if (same_columns(d, i)) {
        const int* prev = p->zcol + p->zadr[i - 1];
        n = p->znnz[i];
        for (int q = 0; q < n; q++) {
            col[q] = prev[q];
            x[prev[q]] = Ji[prev[q]];
        }
    } else {
        mark_chain(m, d, i, mark);
        for (int k = 0; k < nv; k++) {
            if (mark[k]) {
                col[n++] = k;
                x[k] = Ji[k];
                mark[k] = 0;
            }
        }
    }
    for (int q = n - 1; q >= 0; q--) {
        const int k = col[q];
        const double xk = x[k];
        if (p->M->simple[k] || xk == 0) {
            continue;
        }
        const double* rowk = p->M->LD + p->M->adr[k];
        int t = 1;
        for (int j = parent[k]; j >= 0; j = parent[j]) {
            x[j] -= rowk[t++] * xk;
        }
    }
    for (int q = 0; q < n; q++) {
        const int k = col[q];
        val[q] = x[k] * p->rsqrtD[k];
    }
}

// AR_ab - R_a delta_ab = z_a . z_b as MuJoCo's mju_sqrMatTD sums it for a >= b: over the
// columns ascending where z_a is nonzero, s += z_b z_a from 0 (Z rows as dense vectors)
static double ar_entry(const Pgs* p, int a, int c) {
    const int* cola = p->zcol + p->zadr[a];
    const int* colc = p->zcol + p->zadr[c];
    const double* vala = p->zval + p->zadr[a];
    const double* valc = p->zval + p->zadr[c];
    const int na = p->znnz[a], nc = p->znnz[c];
    double s = 0;
    for (int qa = 0, qc = 0; qa < na; qa++) {
        if (vala[qa] == 0) {
            continue;
        }
        while (qc < nc && colc[qc] < cola[qa]) {
            qc++;
        }
        if (qc < nc && colc[qc] == cola[qa]) {
            s += valc[qc] * vala[qa];
        }
    }
    return s;
}

// z_a . z_a, as ar_entry(p, a, a) sums it (the same products in the same order)
static double ar_diagonal(const Pgs* p, int a) {
    const double* val = p->zval + p->zadr[a];
    double s = 0;
    for (int q = 0; q < p->znnz[a]; q++) {
        if (val[q] != 0) {
            s += val[q] * val[q];
        }
    }
    return s;
}

// the factor of M (when not given), Z, b, 1 / diag(AR), the elliptic blocks, and y = Z' f at
// the warm start
static void pgs_setup(const gdnModel* m, gdnData* d, Pgs* p, int* mark, double* x) {
    const int nv = m->nv, nefc = d->nefc;
    if (!p->M) {
        gdn_mass_factor(m, d->qM, NULL, &p->own);
        p->M = &p->own;
    }
    for (int k = 0; k < nv; k++) {
        p->rsqrtD[k] = 1.0 / sqrt(p->M->LD[p->M->adr[k]]);
    }
    for (int i = 0; i < nefc; i++) {
        z_row(m, d, p, i, mark, x);
    }
    gdn_constraint_jar(m, d, d->qacc_smooth, p->b);
    for (int i = 0; i < nefc; i++) {
        p->ARinv[i] = 1 / (ar_diagonal(p, i) + d->efc_R[i]);
        p->ARdiag[i] = 1 / p->ARinv[i];
    }
    // elliptic blocks: the lower triangle (rows i + j >= columns i + k), mirrored, R on the
    // diagonal
    for (int i = 0; i < nefc; i++) {
        const int dim = row_dim(d, i);
        if (d->efc_type[i] != GDN_CNSTR_CONTACT_ELLIPTIC) {
            continue;
        }
        double* A = p->block + 6 * (size_t)i;
        for (int j = 0; j < dim; j++) {
            for (int k = 0; k <= j; k++) {
                A[j * dim + k] = A[k * dim + j] = ar_entry(p, i + j, i + k);
            }
        }
        for (int j = 0; j < dim; j++) {
            A[j * dim + j] += d->efc_R[i + j];
        }
        i += dim - 1;
    }
    memset(p->y, 0, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nefc; i++) {
        const double f = d->efc_force[i];
        const int* col = p->zcol + p->zadr[i];
        const double* val = p->zval + p->zadr[i];
        for (int q = 0; f != 0 && q < p->znnz[i]; q++) {
            p->y[col[q]] += val[q] * f;
        }
    }
}

// sum_q val[q] y[col[q]], q < n, in four independent partial sums (the chains of a row are
// short: latency, not throughput, bounds a single sum)
static double gather_dot(const double* val, const int* col, const double* y, int n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int q = 0;
    for (; q + 4 <= n; q += 4) {
        s0 += val[q] * y[col[q]];
        s1 += val[q + 1] * y[col[q + 1]];
        s2 += val[q + 2] * y[col[q + 2]];
        s3 += val[q + 3] * y[col[q + 3]];
    }
    for (; q < n; q++) {
        s0 += val[q] * y[col[q]];
    }
    return (s0 + s2) + (s1 + s3);
}

// res (dim) = (AR f + b) over rows i .. i + dim - 1: b_r + z_r . y + R_r f_r
static void residual(const gdnData* d, const Pgs* p, int i, int dim, double* res) {
    for (int j = 0; j < dim; j++) {
        const int r = i + j;
        const int* col = p->zcol + p->zadr[r];
        const double* val = p->zval + p->zadr[r];
        res[j] = p->b[r] + gather_dot(val, col, p->y, p->znnz[r]) + d->efc_R[r] * d->efc_force[r];
    }
}

// res (n) = A (n x n, row-major) vec
static void mul_small(double* res, const double* A, const double* vec, int n) {
    for (int r = 0; r < n; r++) {
        res[r] = gdn_dot_mujoco(A + r * n, vec, n);
    }
}

// One elliptic contact (rows f[0 .. dim-1], AR block A, residual res at the forces old):
// 1. normal or ray update: a zero normal gets the clamped scalar update (friction cleared);
//    otherwise f moves along the ray t f to the minimum over t (normal kept >= 0);
// 2. friction update with the normal fixed: min over t of 0.5 t' A_tt t + t' bc with
//    bc = res_t - A_tt old_t + A_tn (f_n - old_n), inside the ellipse sum (t_j / mu_j)^2 <= f_n^2
//    (QCQP), the result put on the ellipse when the constraint is active.
static void elliptic_update(const gdnContact* con, const double* A, double ARinv, const double* res,
                            const double* old, double* f, int dim) {
    const double* mu = con->friction;
    if (f[0] < GDN_MINVAL) {
        f[0] -= res[0] * ARinv;
        if (f[0] < 0) {
            f[0] = 0;
        }
        for (int j = 1; j < dim; j++) {
            f[j] = 0;
        }
    } else {
        // t = -(f' res) / (f' A f): the minimum along the ray; normal f0 (1 + t) >= 0
        double ray[PGS_MAXDIM], Aray[PGS_MAXDIM];
        memcpy(ray, f, sizeof(double) * (size_t)dim);
        mul_small(Aray, A, ray, dim);
        const double denom = gdn_dot_mujoco(ray, Aray, dim);
        if (denom >= GDN_MINVAL) {
            double t = -gdn_dot_mujoco(ray, res, dim) / denom;
            if (f[0] + t * ray[0] < 0) {
                t = -ray[0] / f[0];
            }
            for (int j = 0; j < dim; j++) {
                f[j] += t * ray[j];
            }
        }
    }
    const int n = dim - 1;
    if (n < 1) {
        return;
    }
    double Att[25], bc[5], t[5];
    for (int j = 0; j < n; j++) {
        memcpy(Att + j * n, A + (j + 1) * dim + 1, sizeof(double) * (size_t)n);
        bc[j] = res[j + 1];
        bc[j] -= gdn_dot_mujoco(Att + j * n, old + 1, n);
        bc[j] += A[(j + 1) * dim] * (f[0] - old[0]);
    }
    if (f[0] < GDN_MINVAL) {
        for (int j = 1; j < dim; j++) {
            f[j] = 0;
        }
        return;
    }
    int active;
    if (n == 2) {
        active = gdn_qcqp2(t, Att, bc, mu, f[0]);
    } else if (n == 3) {
        active = gdn_qcqp3(t, Att, bc, mu, f[0]);
    } else {
        active = gdn_qcqp_n(t, Att, bc, mu, f[0], n);
    }
    if (active) {
        // scale t onto the ellipse sum (t_j / mu_j)^2 = f_n^2
        double e = 0;
        for (int j = 0; j < n; j++) {
            e += t[j] * t[j] / (mu[j] * mu[j]);
        }
        e = sqrt(f[0] * f[0] / (e > GDN_MINVAL ? e : GDN_MINVAL));
        for (int j = 0; j < n; j++) {
            t[j] *= e;
        }
    }
    memcpy(f + 1, t, sizeof(double) * (size_t)n);
}

// change of the dual cost 0.5 df' A df + df' res with df = f - old; an increase above
// PGS_RESTORE restores f = old and counts as 0
static double cost_change(const double* A, double* f, const double* old, const double* res,
                          int dim) {
    double change;
    if (dim == 1) {
        const double delta = f[0] - old[0];
        change = 0.5 * delta * delta * A[0] + delta * res[0];
    } else {
        double delta[PGS_MAXDIM], Adelta[PGS_MAXDIM];
        for (int j = 0; j < dim; j++) {
            delta[j] = f[j] - old[j];
        }
        mul_small(Adelta, A, delta, dim);
        change = 0.5 * gdn_dot_mujoco(delta, Adelta, dim) + gdn_dot_mujoco(delta, res, dim);
    }
    if (change > PGS_RESTORE) {
        memcpy(f, old, sizeof(double) * (size_t)dim);
        change = 0;
    }
    return change;
}

// MuJoCo's dual row states of efc_force: equality quadratic; friction loss linear at its bounds
// (force <= -floss: LINEARPOS, >= floss: LINEARNEG, the primal's opposite signs) else
// quadratic; one-sided rows satisfied at force <= 0 else quadratic; an elliptic contact, in the
// cone space (N, T) = (f_0 / mu, |f_j / friction_j|): satisfied when mu N >= T, quadratic when
// N + mu T <= 0, else cone (all its rows alike)
static void dual_state(gdnData* d) {
    const double* force = d->efc_force;
    const double* floss = d->efc_frictionloss;
    int* state = d->efc_state;
    for (int i = 0; i < d->nefc; i++) {
        const int type = d->efc_type[i];
        if (type == GDN_CNSTR_EQUALITY) {
            state[i] = GDN_CNSTRSTATE_QUADRATIC;
        } else if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
            if (force[i] <= -floss[i]) {
                state[i] = GDN_CNSTRSTATE_LINEARPOS;
            } else if (force[i] >= floss[i]) {
                state[i] = GDN_CNSTRSTATE_LINEARNEG;
            } else {
                state[i] = GDN_CNSTRSTATE_QUADRATIC;
            }
        } else if (type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            const gdnContact* con = d->contact + d->efc_id[i];
            const int dim = con->dim;
            const double mu = con->mu;
            double u[PGS_MAXDIM];
            u[0] = force[i] / mu;
            for (int j = 1; j < dim; j++) {
                u[j] = force[i + j] / con->friction[j - 1];
            }
            const double N = u[0], T = sqrt(gdn_dot_mujoco(u + 1, u + 1, dim - 1));
            int zone;
            if (mu * N >= T) {
                zone = GDN_CNSTRSTATE_SATISFIED;
            } else if (N + mu * T <= 0) {
                zone = GDN_CNSTRSTATE_QUADRATIC;
            } else {
                zone = GDN_CNSTRSTATE_CONE;
            }
            for (int j = 0; j < dim; j++) {
                state[i + j] = zone;
            }
            i += dim - 1;
        } else {
            state[i] = force[i] <= 0 ? GDN_CNSTRSTATE_SATISFIED : GDN_CNSTRSTATE_QUADRATIC;
        }
    }
}

// one Gauss-Seidel sweep over the rows; returns the decrease of the dual cost (unscaled)
static double sweep(gdnData* d, Pgs* p) {
    const int nefc = d->nefc;
    double* force = d->efc_force;
    const double* floss = d->efc_frictionloss;
    double improvement = 0;
    for (int i = 0; i < nefc; i++) {
        const int type = d->efc_type[i];
        const int dim = row_dim(d, i);
        double res[PGS_MAXDIM], old[PGS_MAXDIM];
        residual(d, p, i, dim, res);
        // (a loop, not memcpy: dim is 1 for most rows, where a library call costs more than
        // the copy)
        for (int j = 0; j < dim; j++) {
            old[j] = force[i + j];
        }
        if (type != GDN_CNSTR_CONTACT_ELLIPTIC) {
            // unconstrained minimum of row i, then its bounds
            force[i] -= res[0] * p->ARinv[i];
            if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
                if (force[i] < -floss[i]) {
                    force[i] = -floss[i];
                } else if (force[i] > floss[i]) {
                    force[i] = floss[i];
                }
            } else if (type != GDN_CNSTR_EQUALITY && force[i] < 0) {
                force[i] = 0;
            }
        } else {
            elliptic_update(d->contact + d->efc_id[i], p->block + 6 * (size_t)i, p->ARinv[i],
                            res, old, force + i, dim);
        }
        const double* A = dim == 1 ? p->ARdiag + i : p->block + 6 * (size_t)i;
        improvement -= cost_change(A, force + i, old, res, dim);
        // y += z_r (f_r - old_r) for the rows that moved
        for (int j = 0; j < dim; j++) {
            const int r = i + j;
            const double delta = force[r] - old[j];
            if (delta != 0) {
                const int* col = p->zcol + p->zadr[r];
                const double* val = p->zval + p->zadr[r];
                for (int q = 0; q < p->znnz[r]; q++) {
                    p->y[col[q]] += val[q] * delta;
                }
            }
        }
        i += dim - 1;
    }
    return improvement;
}

gdnStatus gdn_solver_pgs(const gdnModel* m, gdnData* d, const int* simple,
                         const gdnMassFactor* factor, int maxiter) {
    const int nv = m->nv, nefc = d->nefc;
    const size_t bytes = sizeof(double) * (size_t)nv;
    if (nefc == 0) {
        memcpy(d->qacc, d->qacc_smooth, bytes);
        memset(d->qfrc_constraint, 0, bytes);
        d->solver_converged = 1;
        d->solver_residual = 0;
        return GDN_OK;
    }
    if (gdn_solver_check_rows(d) != 0) {
        return GDN_ERR_ARG;
    }
    size_t mark = gdn_arena_mark(d);
    Pgs p;
    int* chain_mark = NULL;
    double* x = NULL;
    if (pgs_alloc(m, d, simple, factor, &p, &chain_mark, &x) != 0) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    pgs_setup(m, d, &p, chain_mark, x);

    // sweeps until the scaled improvement is below the tolerance
    const double scale = gdn_solver_scale(m, d);
    double improvement = 0;
    int iter = 0, converged = 0;
    while (iter < maxiter) {
        improvement = sweep(d, &p) / scale;
        iter++;
        if (improvement < m->opt.tolerance) {
            converged = 1;
            break;
        }
    }
    d->solver_iter += iter;
    d->solver_converged = converged;
    d->solver_residual = improvement;
    // the row states of the final forces (MuJoCo also classifies after every sweep, for its
    // statistics only: the sweeps never read them)
    dual_state(d);

    // qfrc_constraint = J' f, qacc = M^-1 qfrc_constraint + qacc_smooth (MuJoCo's order)
    gdn_constraint_qfrc(m, d);
    memcpy(d->qacc, d->qfrc_constraint, bytes);
    gdn_mass_solve(m, p.M, d->qacc);
    for (int k = 0; k < nv; k++) {
        d->qacc[k] += d->qacc_smooth[k];
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
