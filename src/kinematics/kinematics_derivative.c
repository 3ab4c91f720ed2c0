// SPDX-License-Identifier: Apache-2.0
// Body displacement twists xi and velocity tangents eta from (dq, dv), and their adjoint.
#include "kinematics/kinematics_derivative.h"

#include <string.h>

#include "base/arena.h"
#include "kinematics/jacobian.h"
#include "kinematics/jacobian_derivative.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "math/spatial.h"

// Forward, parent before child, dof groups in order (jacobian_derivative.h):
//   xi_b  = xi_parent + sum_j S_j dq_j
//   eta_b = eta_parent + sum_j (dS_j(xi_pre_j, xi_b) v_j + S_j dv_j)
// where xi_pre_j is xi_parent plus the groups of b before j's group.
void gdn_body_tangent_jvp_axes(const gdnModel* m, const gdnData* d, const double* S,
                               const double* vel, const double* dq, const double* dv,
                               double* xi, double* eta) {
    memset(xi, 0, 6 * sizeof(double));
    memset(eta, 0, 6 * sizeof(double));
    gdn_body_tangent_jvp_range(m, d, S, vel, dq, dv, 1, m->nbody, xi, eta);
}

void gdn_body_tangent_jvp_range(const gdnModel* m, const gdnData* d, const double* S,
                                const double* vel, const double* dq, const double* dv, int b0,
                                int b1, double* xi, double* eta) {
    for (int b = b0; b < b1; b++) {
        int par = m->body_parentid[b];
        int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        double* x = xi + 6 * b;
        double* e = eta + 6 * b;
        memcpy(x, xi + 6 * par, 6 * sizeof(double));
        memcpy(e, eta + 6 * par, 6 * sizeof(double));
        if (dq) {
            for (int k = 0; k < ndof; k++) {
                gdn_addscl6(x, x, S + 6 * (dof0 + k), dq[dof0 + k]);
            }
        }
        if (dv) {
            for (int k = 0; k < ndof; k++) {
                gdn_addscl6(e, e, S + 6 * (dof0 + k), dv[dof0 + k]);
            }
        }
        if (!dq) {
            continue;
        }
        double xpre[6];
        memcpy(xpre, xi + 6 * par, 6 * sizeof(double));
        for (int k = 0; k < ndof;) {
            int n = gdn_dof_group_size(m, dof0 + k);
            for (int t = k; t < k + n; t++) {
                double dS[6];
                gdn_axis_motion(m, d, dof0 + t, S + 6 * (dof0 + t), xpre, x, dS);
                gdn_addscl6(e, e, dS, vel[dof0 + t]);
            }
            for (int t = k; t < k + n; t++) {
                gdn_addscl6(xpre, xpre, S + 6 * (dof0 + t), dq[dof0 + t]);
            }
            k += n;
        }
    }
}

// Backward, child before parent. E_b (covector of eta_b) = etabar_b + sum_children E_c;
// X_b (covector of xi_b) = xibar_b + sum_children (covector of their xi_parent) + the ball
// axes' share. Then, groups last to first with R = covector of xi after the group:
//   gq_j += S_j' R,  gv_j += S_j' E_b,  R += covector of xi_pre of the group (from dS_j)
gdnStatus gdn_body_tangent_vjp_axes(const gdnModel* m, gdnData* d, const double* S,
                                    const double* vel, const double* xibar,
                                    const double* etabar, double* gq, double* gv) {
    const int nbody = m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* xacc = gdn_arena_doubles(d, 6 * (size_t)nbody);
    double* eacc = gdn_arena_doubles(d, 6 * (size_t)nbody);
    double* prebar = gdn_arena_doubles(d, 6 * (size_t)(m->nv > 0 ? m->nv : 1));
    if (!xacc || !eacc || !prebar) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    memset(xacc, 0, 6 * (size_t)nbody * sizeof(double));
    memset(eacc, 0, 6 * (size_t)nbody * sizeof(double));
    for (int b = nbody - 1; b > 0; b--) {
        int par = m->body_parentid[b];
        int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        double* E = eacc + 6 * b;
        double* R = xacc + 6 * b;
        if (etabar) {
            gdn_add6(E, E, etabar + 6 * b);
        }
        if (xibar) {
            gdn_add6(R, R, xibar + 6 * b);
        }
        gdn_add6(eacc + 6 * par, eacc + 6 * par, E);
        for (int k = 0; k < ndof; k++) {
            int dof = dof0 + k;
            double c[6];
            if (gv) {
                gv[dof] += gdn_dot6(S + 6 * dof, E);
            }
            gdn_scl6(c, E, vel[dof]);
            memset(prebar + 6 * dof, 0, 6 * sizeof(double));
            gdn_axis_motion_adjoint(m, d, dof, S + 6 * dof, c, prebar + 6 * dof, R);
        }
        for (int k = ndof - 1; k >= 0; k--) {
            int dof = dof0 + k;
            if (gq) {
                gq[dof] += gdn_dot6(S + 6 * dof, R);
            }
            int n = gdn_dof_group_size(m, dof);
            for (int t = 0; t < n; t++) {
                gdn_add6(R, R, prebar + 6 * (dof + t));
            }
        }
        gdn_add6(xacc + 6 * par, xacc + 6 * par, R);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

void gdn_body_tangent_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                          double* xi, double* eta) {
    size_t mark = gdn_arena_mark(d);
    size_t n = 6 * (size_t)(m->nv > 0 ? m->nv : 1);
    double* S = gdn_arena_doubles(d, n);
    if (!S) {
        memset(xi, 0, 6 * (size_t)m->nbody * sizeof(double));
        memset(eta, 0, 6 * (size_t)m->nbody * sizeof(double));
        gdn_arena_reset(d, mark);
        return;
    }
    gdn_dof_axes_about(m, d, 0, S);
    gdn_body_tangent_jvp_axes(m, d, S, d->qvel, dq, dv, xi, eta);
    gdn_arena_reset(d, mark);
}

void gdn_body_tangent_vjp(const gdnModel* m, gdnData* d, const double* xibar,
                          const double* etabar, double* gq, double* gv) {
    size_t mark = gdn_arena_mark(d);
    size_t n = 6 * (size_t)(m->nv > 0 ? m->nv : 1);
    double* S = gdn_arena_doubles(d, n);
    if (S) {
        gdn_dof_axes_about(m, d, 0, S);
        gdn_body_tangent_vjp_axes(m, d, S, d->qvel, xibar, etabar, gq, gv);
    }
    gdn_arena_reset(d, mark);
}
