// SPDX-License-Identifier: Apache-2.0
// Exact transition Jacobians A = d(q', v')/d(q, v), B = d(q', v')/du of one step.
#include <gradyn/derivative.h>

#include <string.h>

#include "base/arena.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "dynamics/body_wrench.h"
#include "penalty/penalty.h"
#include "kinematics/kinematics_derivative.h"
#include "dynamics/damped_mass.h"
#include "model/configuration_derivative.h"
#include "constraint/rows_derivative.h"
#include "gradient/activation_derivative.h"
#include "gradient/columns.h"
#include "gradient/implicit_derivative.h"
#include "gradient/rk4_derivative.h"
#include "gradient/residual.h"
#include "gradient/step_constrained.h"
#include "gradient/step_derivative.h"
#include "gradient/wrench.h"
#include "math/spatial.h"
#include "math/vecn.h"
#include "model/validate.h"
#include "sim/integrator.h"
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
        status = gdn_contact_wrench_jvp(m, d, c < nv ? e : NULL, c < nv ? NULL : e, NULL, NULL, dW);
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

// The rows' part of position column j (dof j on body B, its subtree [B, end) moving by the twist
// xi = S_j) from the forms of gdn_rows_twist_forms: a moved body b has
//   eta_b = eta_B + S_j x (V_b - V_B)  (V = the body twists of v; the same for etax with x)
// (below B every axis rides the rigid motion: MuJoCo allows free joints on top-level bodies
// only), and <g, S_j x V_b> = <V_b x* g, S_j>, so a moved site s of body row i adds
//   djar0_i += <cx_is, S_j> + <gT_is, rx + B_i rv>,  dlogD_i += <glog_is, S_j>
// with cx_is = gxi_is + Tx_b x* gT_is + B_i Tv_b x* gT_is (per row) and rv = eta_B - S_j x V_B,
// rx = etax_B - S_j x X_B (per column). Writes djar0, dlogD (nefc); ADDS the frozen-force
// wrenches' generalized force qw = sum_b J_b' dW_b and dqfrc (nv)
typedef struct {
    const gdnRowsTwistForms* F;
    const double* cx; // 12 nefc
    const int* subtree_end;
    double* xi;       // 6 nbody scratch, kept zero
    double* eta;      // 6 nbody scratch, kept zero
} rowsColumns;

static void rows_position_column(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                                 const rowsColumns* rc, int j, double* e, double* djar0,
                                 double* dlogD, double* qw, double* dqfrc) {
    const gdnRowsTwistForms* F = rc->F;
    const gdnRowsLinear* lin = &L->lin;
    const int B = m->dof_bodyid[j], end = rc->subtree_end[B];
    const double* Sj = L->S + 6 * j;
    // eta_B, etax_B of the unit tangent (its parent's entries are zero), then rv, rx
    double rv[6], rx[6], t[6];
    e[j] = 1;
    gdn_body_tangent_jvp_range(m, d, L->S, d->qvel, e, NULL, B, B + 1, rc->xi, rc->eta);
    gdn_cross_motion(t, Sj, lin->Tv + 6 * B);
    for (int k = 0; k < 6; k++) {
        rv[k] = rc->eta[6 * B + k] - t[k];
    }
    gdn_body_tangent_jvp_range(m, d, L->S, L->x, e, NULL, B, B + 1, rc->xi, rc->eta);
    gdn_cross_motion(t, Sj, lin->Tx + 6 * B);
    for (int k = 0; k < 6; k++) {
        rx[k] = rc->eta[6 * B + k] - t[k];
    }
    e[j] = 0;
    memset(rc->xi + 6 * B, 0, 6 * sizeof(double));
    memset(rc->eta + 6 * B, 0, 6 * sizeof(double));
    for (int i = 0; i < d->nefc; i++) {
        const int* body = F->body + 2 * i;
        const int dof = F->dof[i], ndof = F->ndof[i];
        double dj = 0, dl = 0;
        if (F->tendon[i] >= 0) {
            // a tendon row: djar0 = tq J_ij (+ tz_ij), dlogD = tl J_ij; a spatial tendon's
            // frozen force moves by f_i DJ_i e_j
            const size_t n = (size_t)m->nv;
            const double Jij = d->efc_J[(size_t)i * n + (size_t)j];
            dj = F->tq[i] * Jij;
            dl = F->tl[i] * Jij;
            if (F->djrow[i] >= 0) {
                const double* DJ = F->tDJ + (size_t)F->djrow[i] * n * n;
                const double f = d->efc_force[i];
                dj += F->tz[(size_t)i * n + (size_t)j];
                for (size_t r = 0; f != 0 && r < n; r++) {
                    dqfrc[r] += f * DJ[r * n + (size_t)j];
                }
            }
        } else if (ndof > 0) {
            if (j >= dof && j < dof + ndof) {
                const int k = j - dof;
                dj = F->gdq[3 * i + k];
                dl = F->ldq[3 * i + k];
                for (int r = 0; r < ndof; r++) {
                    dqfrc[dof + r] += F->Qdq[9 * i + 3 * r + k];
                }
            }
        } else {
            const double Bi = d->efc_KBIP[4 * i + 1];
            for (int s = 0; s < 2; s++) {
                if (body[s] < B || body[s] >= end) {
                    continue;
                }
                const double* gT = F->gT + 12 * i + 6 * s;
                dj += gdn_dot6(rc->cx + 12 * i + 6 * s, Sj) + gdn_dot6(gT, rx) +
                      Bi * gdn_dot6(gT, rv);
                dl += gdn_dot6(F->glog + 12 * i + 6 * s, Sj);
            }
        }
        djar0[i] = dj;
        dlogD[i] = dl;
    }
    // the frozen-force wrenches' generalized force: dW_b_k = GW_g[k][t] S_j for each moved
    // site t of group g, qw += J_b_k' dW_b_k = (S_l' dW_b_k) over the dofs l on b_k's path
    for (int g = 0; g < F->ngroup; g++) {
        const int* body = F->body + 2 * F->group_row[g];
        for (int tt = 0; tt < 2; tt++) {
            if (body[tt] < B || body[tt] >= end) {
                continue;
            }
            for (int k = 0; k < 2; k++) {
                // a body welded to the world has no dofs on its path: no generalized force
                if (m->body_weldid[body[k]] == 0) {
                    continue;
                }
                const double* G = F->GW + 144 * (size_t)g + 72 * k + 36 * tt;
                double w[6];
                for (int r = 0; r < 6; r++) {
                    w[r] = gdn_dot6(G + 6 * r, Sj);
                }
                for (int b = body[k]; b > 0; b = m->body_parentid[b]) {
                    for (int l = m->body_dofadr[b]; l < m->body_dofadr[b] + m->body_dofnum[b];
                         l++) {
                        qw[l] += gdn_dot6(L->S + 6 * l, w);
                    }
                }
            }
        }
    }
}

// A constrained step's A, B (gradient/step_constrained.c's equations, one linearization):
// the smooth residual's columns [dr/dq | dr/dv | dr/du] at x in one dense sweep with the rows'
// wrenches W held (gdn_residual_dense_ex, its -dS' W included), then per position column the
// rows' part from the forms above: djar0, dlogD and the frozen-force wrench tangent dW (its
// generalized force qw = sum_b J_b' dW_b); a velocity column moves aref only (djar0 = B J e_j).
//   rhs = -(X_c - qw) + dqfrc + J' delta f,  delta f = -H_s djar0 + dlogD f,  dx = H^-1 rhs.
// Damped, (M + hD) da = -(Xa_c - qw) + dqfrc + J' df with df = delta f - H_s J dx and Xa the
// residual's columns at a; H = M + J' H_s J turns that into (M + hD) da = M dx - (Xa - X), i.e.
//   da = dx - (M + hD)^-1 (hD dx + Xa - X)
// (Xa - X = d(M(q) (a - x))/dq: the position columns only). The result, [da/dq | da/dv | da/du],
// goes to Xout (nv rows of 2 nv + nu); A, B come from it as from the smooth path's
static gdnStatus constrained_columns(const gdnModel* m, gdnData* d, double* Xout) {
    const int nv = m->nv, nu = m->nu, n = 2 * nv, ncol = n + nu, nefc = d->nefc;
    const size_t nb6 = 6 * (size_t)m->nbody;
    gdnStatus status = gdn_constrained_admissible(m, d);
    if (status != GDN_OK) {
        return status;
    }
    size_t mark = gdn_arena_mark(d);
    const char* what = NULL;
    gdnConstrainedLinear L;
    gdnRowsTwistForms F;
    status = gdn_constrained_linearize(m, d, NULL, &L, &what);
    if (status == GDN_OK) {
        status = gdn_rows_twist_forms(m, d, &L.lin, &F);
    }
    // X, Xa (nv x ncol); qw, dqfrc, e, qvel' (nv); xi, eta (6 nbody); delta f of one column,
    // djar0, dlogD (nefc); Delta (nefc x ncol); cx (12 nefc)
    const size_t cols = (size_t)ncol, nvs = (size_t)nv, ne = (size_t)(nefc > 0 ? nefc : 1);
    double* X = status == GDN_OK ? gdn_arena_doubles(d, 2 * nvs * cols + 4 * nvs + 2 * nb6 +
                                                            3 * ne + ne * cols + 12 * ne)
                                 : NULL;
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
    double* delta = eta + nb6; // one column's delta f
    double* djar0 = delta + ne;
    double* dlogD = djar0 + ne;
    double* Delta = dlogD + ne; // nefc x ncol, row-major (the control columns unused)
    double* cx = Delta + ne * cols;
    int* subtree_end = gdn_arena_ints(d, (size_t)m->nbody);
    if (!subtree_end) {
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
    // cx_is = gxi_is + Tx_b x* gT_is + B_i Tv_b x* gT_is
    for (int i = 0; i < nefc; i++) {
        const int* body = F.body + 2 * i;
        const double Bi = d->efc_KBIP[4 * i + 1];
        if (F.ndof[i] > 0 || F.tendon[i] >= 0) {
            continue;
        }
        for (int s = 0; s < 2; s++) {
            const double* gT = F.gT + 12 * i + 6 * s;
            double* c = cx + 12 * i + 6 * s;
            double tx[6], tv[6];
            gdn_cross_force(tx, L.lin.Tx + 6 * body[s], gT);
            gdn_cross_force(tv, L.lin.Tv + 6 * body[s], gT);
            for (int k = 0; k < 6; k++) {
                c[k] = F.gxi[12 * i + 6 * s + k] + tx[k] + Bi * tv[k];
            }
        }
    }
    const rowsColumns rc = {&F, cx, subtree_end, xi, eta};
    memset(xi, 0, sizeof(double) * 2 * nb6);

    // the smooth residual's columns at x and (damped) their position columns' change at a,
    // Xa - X = d(M(q) (a - x))/dq; the rows' wrenches held (the penalty's do not depend on a)
    status = gdn_residual_dense_ex(m, d, L.x, L.W, X, ncol);
    if (status == GDN_OK && L.damped) {
        for (int k = 0; k < nv; k++) {
            qw[k] = d->qacc[k] - L.x[k];
        }
        status = gdn_residual_dense_inertia(m, d, qw, Xa, ncol);
    }
    if (status == GDN_OK && gdn_wrench_active(m)) {
        status = contact_residual_columns(m, d, X, ncol);
    }
    // the position columns: delta f into column c of Delta, the right-hand side
    // -(X_c - qw) + dqfrc into X
    memset(e, 0, sizeof(double) * nvs);
    for (int c = 0; c < nv && status == GDN_OK; c++) {
        memset(qw, 0, sizeof(double) * nvs);
        memset(dqf, 0, sizeof(double) * nvs);
        rows_position_column(m, d, &L, &rc, c, e, djar0, dlogD, qw, dqf);
        gdn_rows_hs_mul(d, &L.lin, djar0, delta);
        for (int k = 0; k < nefc; k++) {
            Delta[(size_t)k * cols + (size_t)c] =
                -delta[k] + dlogD[k] * gdn_rows_scaled_force(d, &L.lin, k);
        }
        for (int k = 0; k < nv; k++) {
            X[(size_t)k * cols + (size_t)c] = -X[(size_t)k * cols + (size_t)c] + qw[k] + dqf[k];
        }
    }
    // the velocity columns: Delta_v = -H_s diag(B) J; the control columns' right-hand side -X
    for (int k = 0; k < nefc; k++) {
        double* Dk = Delta + (size_t)k * cols + nvs;
        const double* Jk = d->efc_J + (size_t)k * nvs;
        const double Bk = d->efc_KBIP[4 * k + 1];
        for (int c = 0; c < nv; c++) {
            Dk[c] = Bk * Jk[c];
        }
    }
    gdn_rows_hs_mul_columns(d, &L.lin, Delta + nvs, ncol, nv);
    for (int k = 0; k < nefc; k++) {
        double* Dk = Delta + (size_t)k * cols + nvs;
        for (int c = 0; c < nv; c++) {
            Dk[c] = -Dk[c];
        }
    }
    for (int k = 0; k < nv; k++) {
        double* Xk = X + (size_t)k * cols;
        for (int c = nv; c < ncol; c++) {
            Xk[c] = -Xk[c];
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
                const double hd = gdn_damping_h(m) * m->dof_damping[k];
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
        memcpy(Xout, X, sizeof(double) * nvs * cols);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// The acceleration's columns Xa = [da/dq | da/dv | da/du] (nv rows of 2 nv + nu) at the front
// half in d. Without rows: X = [dr/dq | dr/dv | dr/du] (nv x (2nv + nu)), the contact part added
// column by column through its JVP (dr/dW dW = -sum_b J_b' dW_b); Xa = -(M + hD)^-1 X (hD: the
// integrator's damping, gdn_damping_h)
gdnStatus gdn_accel_columns(const gdnModel* m, gdnData* d, double* Xa) {
    if (d->nefc > 0) {
        return constrained_columns(m, d, Xa);
    }
    const int nv = m->nv, nu = m->nu, n = 2 * nv;
    // X's row stride: even, so that the dr/du columns are solved as whole SSE2 pairs (the
    // padding column is zero)
    const int nu_pad = nu + (nu & 1), ncol = n + nu_pad;
    size_t mark = gdn_arena_mark(d);
    double* X = gdn_arena_doubles(d, (size_t)nv * (size_t)(ncol + nv) + 1);
    if (!X) {
        return GDN_ERR_MEMORY;
    }
    double* M = X + (size_t)nv * (size_t)ncol; // the mass matrix from the residual's sweep
    gdnStatus status = gdn_residual_dense_mass(m, d, d->qacc, X, ncol, M);
    if (status == GDN_OK && gdn_wrench_active(m)) {
        status = contact_residual_columns(m, d, X, ncol);
    }
    gdnDampedMass dm;
    if (status == GDN_OK) {
        status = gdn_damped_mass_factor_from(m, d, gdn_damping_h(m), M, &dm);
    }
    if (status == GDN_OK) {
        // every column at once (the padding column of dr/du zeroed first): X <- (M + hD)^-1 X
        for (int i = 0; nu_pad > nu && i < nv; i++) {
            X[(size_t)i * ncol + n + nu] = 0;
        }
        gdn_damped_mass_solve_columns(&dm, X, ncol, ncol);
        for (int i = 0; i < nv; i++) {
            gdn_scl_n(Xa + (size_t)i * (size_t)(n + nu), X + (size_t)i * ncol, -1.0, n + nu);
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// Euler: dv'/dq = h da/dq,  dv'/dv = I + h da/dv,  dv'/du = h da/du,
//        dq'/dx = Phi_q [x = q] + h Phi_v dv'/dx
// Euler, x = (dq, dv, act) (MuJoCo's 2 nv + na; na = 0 without activations): the
// acceleration's columns Xa = [da/dq | da/dv | da/du] with du the force laws' inputs
// (activation_derivative.h), so
//   dv'/dq = h da/dq, dv'/dv = I + h da/dv, dv'/dact_j = h da/du_i (i = nu - na + j),
//   dv'/dctrl_i = h da/du_i on the stateless actuators (0 on the stateful ones),
//   dact'_j = keep_j (ga_j dact_j + gc_j dctrl_i),  dq' rows = Phi_q (dq) + h Phi_v dv'
static gdnStatus transition_euler(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, nu = m->nu, na = m->na, n = 2 * nv, ncol = n + nu, nx = n + na;
    const int first = nu - na;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    double* qvel_next = gdn_arena_doubles(d, (size_t)nv + (size_t)nv * (size_t)ncol +
                                                 3 * (size_t)na + 1);
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* Xa = qvel_next + nv;
    double* ga = Xa + (size_t)nv * (size_t)ncol;
    double *gc = ga + na, *keep = gc + na;
    gdn_act_update_partials(m, d, ga, gc, keep);
    gdnStatus status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, NULL);
    if (status == GDN_OK) {
        status = gdn_accel_columns(m, d, Xa);
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    for (int i = 0; i < nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    if (A) {
        memset(A, 0, sizeof(double) * (size_t)nx * (size_t)nx);
        for (int i = 0; i < nv; i++) {
            double* row = A + (size_t)(nv + i) * (size_t)nx;
            const double* xa = Xa + (size_t)i * (size_t)ncol;
            gdn_scl_n(row, xa, h, n);
            row[nv + i] += 1;
            for (int j = 0; j < na; j++) {
                row[n + j] = h * xa[n + first + j];
            }
        }
        gdn_integrate_pos_jvp_columns(m, qvel_next, h, nx, A + (size_t)nv * nx, nx, 0, A, nx);
        for (int j = 0; j < na; j++) {
            A[(size_t)(n + j) * (size_t)nx + (size_t)(n + j)] = keep[j] * ga[j];
        }
    }
    if (B && nu > 0) {
        memset(B, 0, sizeof(double) * (size_t)nx * (size_t)nu);
        for (int i = 0; i < nv; i++) {
            double* row = B + (size_t)(nv + i) * (size_t)nu;
            gdn_scl_n(row, Xa + (size_t)i * (size_t)ncol + n, h, first);
        }
        gdn_integrate_pos_jvp_columns(m, qvel_next, h, nu, B + (size_t)nv * nu, nu, -1, B, nu);
        for (int j = 0; j < na; j++) {
            B[(size_t)(n + j) * (size_t)nu + (size_t)(first + j)] = keep[j] * gc[j];
        }
    }
    if (na > 0) {
        gdn_act_report(m, d);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// RK4 with activations and the implicit integrator: one exact tangent (gdn_step_jvp_act) per
// column of [A | B], the unit directions in (dq, dv, act, ctrl); each leaves the state as it
// found it
static gdnStatus transition_by_columns(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, na = m->na, nu = m->nu, nx = 2 * nv + na;
    size_t mark = gdn_arena_mark(d);
    double* dir = gdn_arena_doubles(d, 2 * ((size_t)nx + (size_t)nu) + 1);
    if (!dir) {
        return GDN_ERR_MEMORY;
    }
    double* out = dir + nx + nu;
    gdnStatus status = GDN_OK;
    for (int c = 0; c < nx + nu && status == GDN_OK; c++) {
        if ((c < nx && !A) || (c >= nx && !B)) {
            continue;
        }
        memset(dir, 0, sizeof(double) * ((size_t)nx + (size_t)nu));
        dir[c] = 1;
        status = gdn_step_jvp_act(m, d, dir, dir + nv, dir + 2 * nv, dir + nx, NULL, NULL, out,
                                  out + nv, out + 2 * nv);
        for (int r = 0; status == GDN_OK && r < nx; r++) {
            if (c < nx) {
                A[(size_t)r * (size_t)nx + (size_t)c] = out[r];
            } else {
                B[(size_t)r * (size_t)nu + (size_t)(c - nx)] = out[r];
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// The implicit integrator without activations: the front half and H = M - h qDeriv once, then
// per unit direction (dq, dv, du) da = H^-1 (-dr + h (dqDeriv) a) (gdn_implicit_accel_jvp_with;
// with rows each column is the constrained tangent, gdn_step_jvp_linear at one linearization),
// dv' = dv + h da, dq' = Phi_q dq + h Phi_v dv'
static gdnStatus transition_implicit(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, nu = m->nu, nx = 2 * nv;
    const double h = m->opt.timestep;
    const size_t nvs = (size_t)(nv > 0 ? nv : 1);
    size_t mark = gdn_arena_mark(d);
    double* H = gdn_arena_doubles(d, nvs * nvs + 5 * nvs + (size_t)nu + 1);
    if (!H) {
        return GDN_ERR_MEMORY;
    }
    double* qvel_next = H + nvs * nvs;
    double* dir = qvel_next + nv;   // dq, dv (nv each), du (nu)
    double* da = dir + 2 * nv + nu; // da, then dv'
    double* dqn = da + nv;
    gdnStatus status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, NULL);
    const char* what = NULL;
    gdnConstrainedLinear L;
    if (status == GDN_OK && d->nefc > 0) {
        status = gdn_constrained_admissible(m, d);
        if (status == GDN_OK) {
            status = gdn_constrained_linearize(m, d, NULL, &L, &what);
        }
    } else if (status == GDN_OK) {
        status = gdn_implicit_matrix(m, d, H);
    }
    for (int i = 0; status == GDN_OK && i < nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    for (int c = 0; c < nx + nu && status == GDN_OK; c++) {
        if ((c < nx && !A) || (c >= nx && !B)) {
            continue;
        }
        memset(dir, 0, sizeof(double) * (size_t)(nx + nu));
        dir[c] = 1;
        if (d->nefc > 0) {
            status = gdn_step_jvp_linear(m, d, &L, dir, dir + nv, dir + nx, NULL, NULL, NULL,
                                         dqn, da, &what);
        } else {
            status = gdn_implicit_accel_jvp_with(m, d, H, dir, dir + nv, dir + nx, NULL, NULL,
                                                 NULL, da);
            for (int i = 0; i < nv; i++) {
                da[i] = dir[nv + i] + h * da[i];
            }
            gdn_integrate_pos_jvp(m, qvel_next, h, dir, da, dqn);
        }
        for (int r = 0; status == GDN_OK && r < nx; r++) {
            const double val = r < nv ? dqn[r] : da[r - nv];
            if (c < nx) {
                A[(size_t)r * (size_t)nx + (size_t)c] = val;
            } else {
                B[(size_t)r * (size_t)nu + (size_t)(c - nx)] = val;
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_transition_jacobians(const gdnModel* m, gdnData* d, double* A, double* B) {
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    gdn_deriv_report_clear(d);
    if (m->opt.integrator == GDN_INT_IMPLICIT) {
        // one exact tangent per column (gradient/implicit_derivative.h); without activations
        // one front half and one M - h qDeriv for all of them
        return m->na > 0 ? transition_by_columns(m, d, A, B) : transition_implicit(m, d, A, B);
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        return m->na > 0 ? transition_by_columns(m, d, A, B) : gdn_rk4_transition(m, d, A, B);
    }
    return transition_euler(m, d, A, B);
}
