// SPDX-License-Identifier: Apache-2.0
// Exact transition Jacobians A = d(q', v')/d(q, v), B = d(q', v')/du of one step.
#include <gradyn/derivative.h>

#include <string.h>

#include "base/arena.h"
#include "penalty/body_wrench.h"
#include "penalty/penalty.h"
#include "kinematics/kinematics_derivative.h"
#include "dynamics/damped_mass.h"
#include "model/configuration_derivative.h"
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

// A constrained step's A, B column by column: column c is the step's JVP of the unit tangent
// e_c (gradient/step_constrained.c) at one linearization of the solve the front half left in d
static gdnStatus constrained_columns(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, nu = m->nu, n = 2 * nv;
    gdnStatus status = gdn_constrained_admissible(d);
    size_t mark = gdn_arena_mark(d);
    double* e = gdn_arena_doubles(d, (size_t)(n + (nu > 0 ? nu : 1)) + (size_t)n);
    if (status == GDN_OK && !e) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    double* out = e + n + (nu > 0 ? nu : 1);
    memset(e, 0, sizeof(double) * (size_t)(n + (nu > 0 ? nu : 1)));
    const char* what = NULL;
    gdnConstrainedLinear L;
    status = gdn_constrained_linearize(m, d, &L, &what);
    for (int c = 0; c < n + nu && status == GDN_OK; c++) {
        double* col = c < n ? A : B;
        const int k = c < n ? c : c - n, ld = c < n ? n : nu;
        if (!col) {
            continue;
        }
        e[c] = 1;
        status = gdn_step_jvp_linear(m, d, &L, e, e + nv, nu > 0 ? e + n : NULL, NULL, NULL, NULL,
                                     out, out + nv, &what);
        e[c] = 0;
        for (int i = 0; i < n; i++) {
            col[(size_t)i * (size_t)ld + (size_t)k] = out[i];
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
