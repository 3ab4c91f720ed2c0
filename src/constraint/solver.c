// SPDX-License-Identifier: Apache-2.0
// Constraint solve entry (MuJoCo's fwdConstraint): warm start, solver dispatch, report.
#include "constraint/solver.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "constraint/constraint.h"
#include "dynamics/mass_factor.h"

double gdn_solver_scale(const gdnModel* m, const gdnData* d) {
    const int nv = m->nv;
    double meaninertia = m->stat_meaninertia;
    if (!(meaninertia > 0)) {
        // fallback: mean diagonal of the current M (MuJoCo takes it at qpos0)
        meaninertia = 0;
        for (int i = 0; i < nv; i++) {
            meaninertia += d->qM[(size_t)i * (size_t)nv + (size_t)i];
        }
        meaninertia = nv > 0 ? meaninertia / nv : 1;
        if (!(meaninertia > 0)) {
            meaninertia = 1;
        }
    }
    return meaninertia * (nv > 1 ? nv : 1);
}

void gdn_solver_mul_J(const gdnModel* m, const gdnData* d, double* res, const double* vec) {
    gdn_constraint_mul_J(m, d, res, vec);
}

int gdn_solver_check_rows(const gdnData* d) {
    for (int i = 0; i < d->nefc; i++) {
        if (d->efc_type[i] != GDN_CNSTR_CONTACT_ELLIPTIC) {
            continue;
        }
        const int id = d->efc_id[i];
        if (id < 0 || id >= d->ncon) {
            return -1;
        }
        const int dim = d->contact[id].dim;
        if (dim < 1 || dim > 6 || dim > d->nefc - i) {
            return -1;
        }
        i += dim - 1;
    }
    return 0;
}

void gdn_solver_record_sparsity(const gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    int adr = 0;
    for (int i = 0; i < d->nefc; i++) {
        const double* Ji = d->efc_J + (size_t)i * (size_t)nv;
        int* col = d->efc_colind + adr;
        int nnz = 0;
        for (int k = 0; k < nv; k++) {
            if (Ji[k] != 0) {
                col[nnz++] = k;
            }
        }
        d->efc_rowadr[i] = adr;
        d->efc_rownnz[i] = nnz;
        adr += nnz;
    }
}

void gdn_solver_mul_M(const gdnModel* m, const gdnData* d, const int* simple, double* res,
                      const double* vec) {
    const int nv = m->nv;
    const int* parent = m->dof_parentid;
    // res[i] is first touched at row i (its descendants have larger indices), so it starts
    // from 0 in a register; the ancestors' entries get the row's contributions in place
    for (int i = 0; i < nv; i++) {
        const double* Mi = d->qM + (size_t)i * (size_t)nv;
        if (simple[i]) {
            res[i] = Mi[i] * vec[i];
            continue;
        }
        double acc = 0;
        acc += Mi[i] * vec[i];
        const double vi = vec[i];
        for (int j = parent[i]; j >= 0; j = parent[j]) {
            acc += Mi[j] * vec[j];
            res[j] += Mi[j] * vi;
        }
        res[i] = acc;
    }
}

// Gauss cost of qacc: 0.5 (M qacc - qfrc_smooth)' (qacc - qacc_smooth), Ma = M qacc given
static double gauss_cost(const gdnModel* m, const gdnData* d, const double* qacc,
                         const double* Ma) {
    double s = 0;
    for (int i = 0; i < m->nv; i++) {
        s += 0.5 * (Ma[i] - d->qfrc_smooth[i]) * (qacc[i] - d->qacc_smooth[i]);
    }
    return s;
}

// PGS's warm start (MuJoCo's): efc_force is the force of qacc_warmstart (set by
// gdn_constraint_update); keep it when its dual cost f' b + 0.5 f' AR f is <= 0, else
// efc_force = 0 and qfrc_constraint = 0. b = J qacc_smooth - aref (into jar, nefc scratch) and
// f' AR f = qfrc' M^-1 qfrc + sum R f^2 with qfrc = J' f (M^-1 by the tree factor of M).
// 0, or -1 when the arena is short
static int warmstart_dual(const gdnModel* m, gdnData* d, const gdnMassFactor* factor,
                          double* jar) {
    const int nv = m->nv, nefc = d->nefc;
    double* Minv_qfrc = gdn_arena_doubles(d, (size_t)nv);
    if (!Minv_qfrc) {
        return -1;
    }
    memcpy(Minv_qfrc, d->qfrc_constraint, sizeof(double) * (size_t)nv);
    gdn_mass_solve(m, factor, Minv_qfrc);
    double fARf = gdn_dot_mujoco(d->qfrc_constraint, Minv_qfrc, nv);
    for (int i = 0; i < nefc; i++) {
        fARf += d->efc_R[i] * d->efc_force[i] * d->efc_force[i];
    }
    gdn_constraint_jar(m, d, d->qacc_smooth, jar);
    const double cost = gdn_dot_mujoco(d->efc_force, jar, nefc) + 0.5 * fARf;
    if (cost > 0) {
        memset(d->efc_force, 0, sizeof(double) * (size_t)nefc);
        memset(d->qfrc_constraint, 0, sizeof(double) * (size_t)nv);
    }
    return 0;
}

// qacc = the better of qacc_warmstart and qacc_smooth by total cost (Gauss + s), as MuJoCo
// chooses; qacc_smooth alone when warm starting is disabled. PGS (a dual solver) starts from
// efc_force instead: the force of qacc_warmstart when its dual cost is <= 0, else zero
// (warmstart_dual, with factor: the tree factor of M); efc_force = 0 when warm starting is
// disabled. 0, or -1 when the arena is short.
static int warmstart(const gdnModel* m, gdnData* d, const int* simple,
                     const gdnMassFactor* factor) {
    const int nv = m->nv, nefc = d->nefc;
    const size_t bytes = sizeof(double) * (size_t)nv;
    if (m->opt.disableflags & GDN_DSBL_WARMSTART) {
        memcpy(d->qacc, d->qacc_smooth, bytes);
        memset(d->efc_force, 0, sizeof(double) * (size_t)nefc);
        return 0;
    }
    size_t mark = gdn_arena_mark(d);
    double* jar = gdn_arena_doubles(d, (size_t)nefc);
    double* Ma = gdn_arena_doubles(d, (size_t)nv);
    if (!jar || !Ma) {
        gdn_arena_reset(d, mark);
        return -1;
    }
    memcpy(d->qacc, d->qacc_warmstart, bytes);
    // cost(qacc_warmstart)
    gdn_solver_mul_J(m, d, jar, d->qacc_warmstart);
    for (int i = 0; i < nefc; i++) {
        jar[i] -= d->efc_aref[i];
    }
    double cost_warmstart;
    gdn_constraint_update(m, d, jar, &cost_warmstart, NULL);
    if (m->opt.solver == GDN_SOL_PGS) {
        int ok = warmstart_dual(m, d, factor, jar);
        gdn_arena_reset(d, mark);
        return ok;
    }
    gdn_solver_mul_M(m, d, simple, Ma, d->qacc_warmstart);
    cost_warmstart += gauss_cost(m, d, d->qacc_warmstart, Ma);
    // cost(qacc_smooth): Gauss is zero there
    gdn_solver_mul_J(m, d, jar, d->qacc_smooth);
    for (int i = 0; i < nefc; i++) {
        jar[i] -= d->efc_aref[i];
    }
    double cost_smooth;
    gdn_constraint_update(m, d, jar, &cost_smooth, NULL);
    if (cost_warmstart > cost_smooth) {
        memcpy(d->qacc, d->qacc_smooth, bytes);
    }
    gdn_arena_reset(d, mark);
    return 0;
}

gdnStatus gdn_solve_constraint(const gdnModel* m, gdnData* d) {
    gdn_solver_record_sparsity(m, d);
    return gdn_solve_constraint_rows(m, d, NULL, NULL);
}

// the tree factor of d->qM into the arena unless given (only CG and PGS use one): *factor, or
// NULL for Newton; -1 when the arena is short
static int shared_factor(const gdnModel* m, gdnData* d, const int* simple,
                         const gdnMassFactor* given, gdnMassFactor* own,
                         const gdnMassFactor** factor) {
    *factor = NULL;
    if (m->opt.solver != GDN_SOL_CG && m->opt.solver != GDN_SOL_PGS) {
        return 0;
    }
    if (!given) {
        if (gdn_mass_factor_alloc(m, d, simple, own) != GDN_OK) {
            return -1;
        }
        gdn_mass_factor(m, d->qM, NULL, own);
        given = own;
    }
    *factor = given;
    return 0;
}

gdnStatus gdn_solve_constraint_rows(const gdnModel* m, gdnData* d, const int* given_simple,
                                    const gdnMassFactor* given_factor) {
    const int nv = m->nv, nefc = d->nefc;
    const size_t bytes = sizeof(double) * (size_t)nv;
    d->solver_iter = 0;
    d->solver_residual = 0;
    d->solver_H_valid = 0;
    if (nefc == 0) {
        memcpy(d->qacc, d->qacc_smooth, bytes);
        memcpy(d->qacc_warmstart, d->qacc_smooth, bytes);
        memset(d->qfrc_constraint, 0, bytes);
        d->solver_converged = 1;
        return GDN_OK;
    }
    d->solver_converged = 0;
    gdnStatus status = GDN_OK;
    size_t mark = gdn_arena_mark(d);
    const int* simple = given_simple;
    if (!simple) {
        int* found = gdn_arena_ints(d, (size_t)nv + (size_t)m->nbody);
        if (found) {
            gdn_simple_dofs(m, found + nv, found);
        }
        simple = found;
    }
    gdnMassFactor own_factor;
    const gdnMassFactor* factor = NULL;
    if (gdn_solver_check_rows(d) != 0) {
        status = GDN_ERR_ARG;
    } else if (!simple || shared_factor(m, d, simple, given_factor, &own_factor, &factor) != 0 ||
               warmstart(m, d, simple, factor) != 0) {
        status = GDN_ERR_MEMORY;
    } else if (m->opt.solver == GDN_SOL_NEWTON) {
        status = gdn_solver_newton(m, d, simple, m->opt.iterations);
    } else if (m->opt.solver == GDN_SOL_CG) {
        status = gdn_solver_cg(m, d, simple, factor, m->opt.iterations);
    } else if (m->opt.solver == GDN_SOL_PGS) {
        status = gdn_solver_pgs(m, d, simple, factor, m->opt.iterations);
    } else {
        status = GDN_ERR_UNSUPPORTED;
    }
    // a solve with a non-finite acceleration, force or residual is an error, never a "did not
    // converge" (a NaN cost stops the iteration with qacc at its start)
    for (int i = 0; status == GDN_OK && i < nv; i++) {
        if (!isfinite(d->qacc[i])) {
            status = GDN_ERR_NONFINITE;
        }
    }
    for (int i = 0; status == GDN_OK && i < nefc; i++) {
        if (!isfinite(d->efc_force[i])) {
            status = GDN_ERR_NONFINITE;
        }
    }
    if (status == GDN_OK && !isfinite(d->solver_residual)) {
        status = GDN_ERR_NONFINITE;
    }
    if (status != GDN_OK) {
        // no solution: the unconstrained acceleration, reported as not converged
        memcpy(d->qacc, d->qacc_smooth, bytes);
        memset(d->efc_force, 0, sizeof(double) * (size_t)nefc);
        memset(d->qfrc_constraint, 0, bytes);
        d->solver_converged = 0;
        d->solver_H_valid = 0;
    }
    memcpy(d->qacc_warmstart, d->qacc, bytes);
    gdn_arena_reset(d, mark);
    return status;
}
