// SPDX-License-Identifier: Apache-2.0
// gradyn's extension to Kamino (settings.projection_iterations > 0): after the step, the body
// poses are projected back onto the joint and loop-closure rows (r(q) = 0); velocities are kept.
//
// Each iteration evaluates the residual r and the rows J at the current poses, stops when
// max |r| <= projection_tol, and otherwise moves the poses by M^-1 J' d (COM by the linear part,
// orientation by the exponential of the angular part) with (J M^-1 J') d = -r: the mass-weighted
// least-squares correction (Gauss-Newton on the constraint manifold).
//   - rho_bilateral = 0 (the default): a chord (quasi-Newton) iteration with the step's own
//     linearization: d = -(D_bb + eta P_b^-2)^-1 r with the factor PADMM just used and the poses
//     moved by the M^-1 J' of the step's rows, both at the poses the step started from. Each
//     iteration reduces the residual by about the relative change of J over the step
//     (|omega| h), at the price of a rows evaluation and a triangular solve.
//   - rho_bilateral > 0: that factor carries the penalty, so each iteration assembles and
//     factors J M^-1 J' + 1e-12 max diag at the current poses instead.
#include <math.h>
#include <string.h>

#include "kamino/dual.h"
#include "kamino/kamino.h"
#include "math/cholesky.h"
#include "math/vec.h"

// largest |r| of the first n residuals
static double max_abs(const double* r, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) {
        const double a = fabs(r[i]);
        v = a > v ? a : v;
    }
    return v;
}

// d = -(J M^-1 J')^-1 r at the current poses (its own factor in w->D)
static void gauss_newton_direction(const gdnKaminoModel* km, gdnKWorld* w, int nb, double* d) {
    double* L = w->D;
    gdn_kamino_assemble(km, w, nb, nb, 0, 0, 1.0);
    double maxd = 0;
    for (int i = 0; i < nb; i++) {
        maxd = fmax(maxd, L[(size_t)i * nb + i]);
    }
    for (int i = 0; i < nb; i++) {
        L[(size_t)i * nb + i] += 1e-12 * maxd + 1e-300;
        d[i] = -w->resid[i];
    }
    gdn_chol_factor_env(L, nb, 1e-15 * maxd, &w->env);
    gdn_chol_solve_env(d, L, d, nb, &w->env);
}

// q = exp(theta) q for a world rotation vector theta; the corrections are tiny, so below 1e-3 rad
// the half-angle sine and cosine come from their series (the first omitted terms, theta^7 / 645120
// and theta^6 / 46080, are below 1e-22), above it from sin and cos
static void rotate_by(double q[4], const double theta[3]) {
    const double t2 = gdn_dot3(theta, theta);
    if (t2 == 0) {
        return;
    }
    double c, s_over_t; // cos(t / 2) and sin(t / 2) / t
    if (t2 < 1e-6) {
        c = 1 - t2 / 8 * (1 - t2 / 48);
        s_over_t = 0.5 * (1 - t2 / 24 * (1 - t2 / 80));
    } else {
        const double t = sqrt(t2);
        c = cos(0.5 * t);
        s_over_t = sin(0.5 * t) / t;
    }
    const double dq[4] = {c, s_over_t * theta[0], s_over_t * theta[1], s_over_t * theta[2]};
    gdn_mulquat(q, dq, q);
}

// poses += M^-1 J' d (the rows' minvj blocks)
static void move_poses(const gdnKaminoModel* km, gdnKWorld* w, int nb, const double* d) {
    double* du = w->uf; // the free velocity is no longer needed: the pose increments
    memset(du, 0, 6 * (size_t)km->nbody * sizeof(double));
    gdn_kamino_add_minv_jt(w, nb, d, du);
    for (int b = 1; b < km->nbody; b++) {
        if (!km->moving[b]) {
            continue;
        }
        const double* v = du + 6 * b;
        gdn_add3(w->pub.body_pos + 3 * b, w->pub.body_pos + 3 * b, v);
        double* q = w->pub.body_quat + 4 * b;
        rotate_by(q, v + 3);
        gdn_normalize4(q);
    }
}

int gdn_kamino_project(const gdnKaminoModel* km, gdnKWorld* w, int n, int nb) {
    int it = 0;
    if (nb == 0) {
        return 0;
    }
    const int kept_factor = km->s.rho_bilateral == 0 && n >= nb && w->dual.n == n;
    double* d = w->vf;
    for (; it < km->s.projection_iterations; it++) {
        // the chord iteration needs the residuals only; Gauss-Newton the rows too. The check
        // expected to be the last (after as many moves as the last step's projection made) is
        // at the poses and twists the next step starts from: it makes the rows that step needs
        // (gdn_kamino_joint_rows_update); only the cost depends on the guess, never the result
        if (kept_factor) {
            gdn_kamino_body_poses(km, w);
            if (it > 0 && it >= w->proj_moves) {
                gdn_kamino_joint_rows(km, w);
            } else {
                gdn_kamino_joint_residuals(km, w);
            }
        } else {
            gdn_kamino_body_frames(km, w);
            gdn_kamino_joint_rows(km, w);
        }
        if (max_abs(w->resid, nb) <= km->s.projection_tol) {
            break;
        }
        if (kept_factor) {
            for (int i = 0; i < nb; i++) {
                d[i] = -w->resid[i];
            }
            gdn_kamino_padmm_bilateral_solve(&w->dual, w->scratch, d);
            // minvj stays the step's (M^-1 J' where the factor was made): the null space of
            // that factor's D (redundant loop rows) is exactly the null space of this J', so
            // the 1 / eta gain the regularized inverse has there moves nothing
        } else {
            gauss_newton_direction(km, w, nb, d);
        }
        move_poses(km, w, nb, d);
    }
    w->proj_moves = it;
    return it;
}
