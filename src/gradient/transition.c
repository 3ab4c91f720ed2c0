// SPDX-License-Identifier: Apache-2.0
// Exact transition Jacobians A = d(q', v')/d(q, v), B = d(q', v')/du of one step.
#include <gradyn/derivative.h>

#include <string.h>

#include "base/arena.h"
#include "math/cholesky.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "constraint/solver.h"
#include "constraint/constraint.h"
#include "penalty/body_wrench.h"
#include "penalty/penalty.h"
#include "kinematics/kinematics_derivative.h"
#include "dynamics/damped_mass.h"
#include "model/configuration_derivative.h"
#include "gradient/columns.h"
#include "gradient/residual.h"
#include "gradient/step_constrained.h"
#include "gradient/step_derivative.h"
#include "math/vecn.h"
#include "model/validate.h"
#include "sim/pipeline.h"

// the contact's share of [dr/dq | dr/dv] added into the first 2 nv columns of X (row stride
// ldx): column c is dr = -sum_b J_b' dW_b with dW the penalty JVP of the unit tangent e_c
static gdnStatus contact_residual_columns(const gdnModel* m, gdnData* d, double* X, int ldx) {
    const int nv = m->nv;
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* e = gdn_arena_doubles(d, 2 * (size_t)nv + 2 * nb6);
    if (!e) {
        return GDN_ERR_MEMORY;
    }
    double* qfrc = e + nv;
    double* dW = qfrc + nv;
    double* scratch = dW + nb6;
    memset(e, 0, sizeof(double) * (size_t)nv);
    gdnStatus status = GDN_OK;
    for (int c = 0; c < 2 * nv && status == GDN_OK; c++) {
        int i = c < nv ? c : c - nv;
        e[i] = 1;
        status = gdn_contact_wrench_jvp(m, d, c < nv ? e : NULL, c < nv ? NULL : e, NULL, dW);
        e[i] = 0;
        memset(qfrc, 0, sizeof(double) * (size_t)nv);
        gdn_body_wrench_qfrc(m, d, dW, scratch, qfrc);
        for (int k = 0; k < nv; k++) {
            X[(size_t)k * ldx + c] -= qfrc[k];
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// A constrained step's A, B (gradient/step_constrained.c's equations, one linearization):
// the smooth residual's columns [dr/dq | dr/dv | dr/du] at x in one dense sweep with the rows'
// wrenches W held (gdn_residual_dense_ex, its -dS' W included), then per state column the
// rows' part from the unit tangent's body motion: djar0, dlogD and the frozen-force wrench
// tangent dW (its generalized force qw = sum_b J_b' dW_b), so that
//   rhs = -(X_c - qw) + dqfrc + J' delta f,  dx = H^-1 rhs.
// Damped, (M + hD) da = -(Xa_c - qw) + dqfrc + J' df with df = delta f - H_s J dx and Xa the
// residual's columns at a; H = M + J' H_s J turns that into (M + hD) da = M dx - (Xa - X), i.e.
//   da = dx - (M + hD)^-1 (hD dx + Xa - X)
// (Xa - X = d(M(q) (a - x))/dq: the position columns only). A, B from da as the smooth path does
static gdnStatus constrained_columns(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, nu = m->nu, n = 2 * nv, ncol = n + nu, nefc = d->nefc;
    const size_t nb6 = 6 * (size_t)m->nbody;
    const double h = m->opt.timestep;
    gdnStatus status = gdn_constrained_admissible(m, d);
    if (status != GDN_OK) {
        return status;
    }
    size_t mark = gdn_arena_mark(d);
    const char* what = NULL;
    gdnConstrainedLinear L;
    status = gdn_constrained_linearize(m, d, &L, &what);
    // X, Xa (nv x ncol); qw, dqfrc, e, qvel' (nv); xi, eta, etax, xi2, dW, scratch (6 nbody);
    // delta f of one column, djar0, dlogD (nefc); Delta (nefc x ncol)
    const size_t cols = (size_t)ncol, nvs = (size_t)nv, ne = (size_t)(nefc > 0 ? nefc : 1);
    double* X = gdn_arena_doubles(d, 2 * nvs * cols + 4 * nvs + 6 * nb6 + 3 * ne + ne * cols);
    if (status == GDN_OK && !X) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    double* Xa = X + nvs * cols;
    double* qw = Xa + nvs * cols;
    double* dqf = qw + nvs;
    double* e = dqf + nvs;
    double* qvel_next = e + nv;
    double* xi = qvel_next + nv;
    double* eta = xi + nb6;
    double* etax = eta + nb6;
    double* xi2 = etax + nb6;
    double* dW = xi2 + nb6;
    double* scratch = dW + nb6;
    double* delta = scratch + nb6;     // one column's delta f
    double* djar0 = delta + ne;
    double* dlogD = djar0 + ne;
    double* Delta = dlogD + ne; // nefc x ncol, row-major (the control columns unused)
    char* moved = (char*)(void*)gdn_arena_ints(d, (size_t)m->nbody);
    int* subtree_end = gdn_arena_ints(d, (size_t)m->nbody);
    if (!moved || !subtree_end) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    // the bodies are ordered parents first, a subtree contiguous: [b, subtree_end[b]), its
    // end the largest of its children's ends
    for (int b = 0; b < m->nbody; b++) {
        subtree_end[b] = b + 1;
    }
    for (int b = m->nbody - 1; b > 0; b--) {
        int* pe = subtree_end + m->body_parentid[b];
        *pe = subtree_end[b] > *pe ? subtree_end[b] : *pe;
    }

    // the smooth residual's columns at x and (damped) their position columns' change at a,
    // Xa - X; the rows' wrenches held (the penalty's columns do not depend on a)
    status = gdn_residual_dense_ex(m, d, L.x, L.W, X, ncol);
    if (status == GDN_OK && L.damped) {
        status = gdn_residual_dense_ex(m, d, d->qacc, L.W, Xa, ncol);
        for (int k = 0; status == GDN_OK && k < nv; k++) {
            double* Xak = Xa + (size_t)k * cols;
            const double* Xk = X + (size_t)k * cols;
            for (int c = 0; c < nv; c++) {
                Xak[c] -= Xk[c];
            }
        }
    }
    if (status == GDN_OK && gdn_penalty_active(m)) {
        status = contact_residual_columns(m, d, X, ncol);
    }
    // the rows' part of every state column: delta f (one column, then column c of Delta), qw,
    // dqfrc, and the column's right-hand side -(X_c - qw) + dqfrc in X (the controls': -X_c)
    memset(e, 0, sizeof(double) * nvs);
    for (int c = 0; c < ncol && status == GDN_OK; c++) {
        memset(qw, 0, sizeof(double) * nvs);
        memset(dqf, 0, sizeof(double) * nvs);
        if (c < nv) {
            // a position column moves the subtree [body, end) of dof c's body only: the body
            // tangents there (zero elsewhere), then the rows between moved bodies
            const int body = m->dof_bodyid[c], end = subtree_end[body];
            memset(xi, 0, sizeof(double) * nb6);
            memset(eta, 0, sizeof(double) * nb6);
            memset(xi2, 0, sizeof(double) * nb6);
            memset(etax, 0, sizeof(double) * nb6);
            e[c] = 1;
            gdn_body_tangent_jvp_range(m, d, L.S, d->qvel, e, NULL, body, end, xi, eta);
            gdn_body_tangent_jvp_range(m, d, L.S, L.x, e, NULL, body, end, xi2, etax);
            e[c] = 0;
            for (int b = 0; b < m->nbody; b++) {
                moved[b] = b >= body && b < end;
            }
            memset(dW, 0, sizeof(double) * nb6);
            e[c] = 1;
            status = gdn_rows_jvp(m, d, &L.lin, xi, eta, etax, e, NULL, moved, djar0, dlogD, dW,
                                  dqf);
            e[c] = 0;
            gdn_body_wrench_qfrc(m, d, dW, scratch, qw);
            gdn_rows_hs_mul(d, &L.lin, djar0, delta);
            for (int k = 0; k < nefc; k++) {
                delta[k] = -delta[k] + dlogD[k] * gdn_rows_scaled_force(d, &L.lin, k);
            }
        } else if (c < n) {
            // a velocity column moves no geometry: djar0 = -d aref = B J e_j, nothing else
            const int j = c - nv;
            for (int k = 0; k < nefc; k++) {
                djar0[k] = d->efc_KBIP[4 * k + 1] * d->efc_J[(size_t)k * nvs + (size_t)j];
            }
            gdn_rows_hs_mul(d, &L.lin, djar0, delta);
            for (int k = 0; k < nefc; k++) {
                delta[k] = -delta[k];
            }
        }
        for (int k = 0; k < nv; k++) {
            X[(size_t)k * cols + (size_t)c] = -X[(size_t)k * cols + (size_t)c] + qw[k] + dqf[k];
        }
        for (int k = 0; c < n && k < nefc; k++) {
            Delta[(size_t)k * cols + (size_t)c] = delta[k];
        }
    }
    if (status == GDN_OK) {
        // every column at once: X += J' Delta (Delta's control columns are zero);
        // X <- H^-1 X (dx)
        gdn_columns_add_JT(m, d, X, Delta, ncol, n);
        gdn_columns_chol_solve(L.H, nv, X, ncol);
        if (L.damped) {
            // (M + hD)^-1 M = I - (M + hD)^-1 hD:  da = dx - (M + hD)^-1 (hD dx + Xa - X)
            for (int k = 0; k < nv; k++) {
                double* Xak = Xa + (size_t)k * cols;
                const double* Xk = X + (size_t)k * cols;
                const double hd = h * m->dof_damping[k];
                for (int c = 0; c < nv; c++) {
                    Xak[c] += hd * Xk[c];
                }
                for (int c = nv; c < ncol; c++) {
                    Xak[c] = hd * Xk[c];
                }
            }
            gdn_columns_mass_solve(m, &L.damp, Xa, ncol);
            for (size_t k = 0; k < nvs * cols; k++) {
                X[k] -= Xa[k];
            }
        }
    }
    if (status == GDN_OK) {
        for (int i = 0; i < nv; i++) {
            qvel_next[i] = d->qvel[i] + h * d->qacc[i];
        }
        if (A) {
            // dv'/dx = [0 I] + h da/dx; dq' rows from them
            for (int i = 0; i < nv; i++) {
                double* row = A + (size_t)(nv + i) * (size_t)n;
                for (int c = 0; c < n; c++) {
                    row[c] = h * X[(size_t)i * cols + (size_t)c];
                }
                row[nv + i] += 1;
            }
            gdn_integrate_pos_jvp_columns(m, qvel_next, h, n, A + (size_t)nv * n, n, 0, A, n);
        }
        if (B && nu > 0) {
            for (int i = 0; i < nv; i++) {
                double* row = B + (size_t)(nv + i) * (size_t)nu;
                for (int c = 0; c < nu; c++) {
                    row[c] = h * X[(size_t)i * cols + (size_t)(n + c)];
                }
            }
            gdn_integrate_pos_jvp_columns(m, qvel_next, h, nu, B + (size_t)nv * nu, nu, -1, B,
                                          nu);
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// Dense: X = [dr/dq | dr/dv | dr/du] (nv x (2nv + nu)), the contact part added column by column
// through its JVP (dr/dW dW = -sum_b J_b' dW_b); X <- -(M + hD)^-1 X = [da/dq | da/dv | da/du];
//   dv'/dq = h da/dq,  dv'/dv = I + h da/dv,  dv'/du = h da/du
//   dq'/dx = Phi_q [x = q] + h Phi_v dv'/dx
gdnStatus gdn_transition_jacobians(const gdnModel* m, gdnData* d, double* A, double* B) {
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    gdn_deriv_report_clear(d);
    const int nv = m->nv, nu = m->nu, n = 2 * nv;
    // X's row stride: even, so that the dr/du columns are solved as whole SSE2 pairs (the
    // padding column is zero)
    const int nu_pad = nu + (nu & 1), ncol = n + nu_pad;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    double* qvel_next = gdn_arena_doubles(d, (size_t)nv + (size_t)nv * (size_t)(ncol + nv));
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* X = qvel_next + nv;
    double* M = X + (size_t)nv * (size_t)ncol; // the mass matrix from the residual's sweep
    // the primal front half: a = d->qacc, v' = v + h a
    gdnStatus status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, NULL);
    if (status == GDN_OK && d->nefc > 0) {
        gdn_arena_reset(d, mark);
        return constrained_columns(m, d, A, B);
    }
    for (int i = 0; status == GDN_OK && i < nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    if (status == GDN_OK) {
        status = gdn_residual_dense_mass(m, d, d->qacc, X, ncol, M);
    }
    if (status == GDN_OK && gdn_penalty_active(m)) {
        status = contact_residual_columns(m, d, X, ncol);
    }
    gdnDampedMass dm;
    if (status == GDN_OK) {
        status = gdn_damped_mass_factor_from(m, d, h, M, &dm);
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    // every column at once (the padding column of dr/du zeroed first): X <- (M + hD)^-1 X
    for (int i = 0; nu_pad > nu && i < nv; i++) {
        X[(size_t)i * ncol + n + nu] = 0;
    }
    gdn_damped_mass_solve_columns(&dm, X, ncol, ncol);
    if (A) {
        // bottom rows: dv'/dq = -h X_q, dv'/dv = I - h X_v; top rows from them
        for (int i = 0; i < nv; i++) {
            double* row = A + (size_t)(nv + i) * n;
            gdn_scl_n(row, X + (size_t)i * ncol, -h, n);
            row[nv + i] += 1;
        }
        gdn_integrate_pos_jvp_columns(m, qvel_next, h, n, A + (size_t)nv * n, n, 0, A, n);
    }
    if (B && nu > 0) {
        for (int i = 0; i < nv; i++) {
            double* row = B + (size_t)(nv + i) * nu;
            gdn_scl_n(row, X + (size_t)i * ncol + n, -h, nu);
        }
        gdn_integrate_pos_jvp_columns(m, qvel_next, h, nu, B + (size_t)nv * nu, nu, -1, B, nu);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
