// SPDX-License-Identifier: Apache-2.0
// gradyn's extension to Kamino (settings.projection_iterations > 0): after the step, Gauss-Newton
// iterations of the mass-weighted projection of the body poses onto the bilateral rows,
// (J M^-1 J' + eps I) d = -r, poses moved by M^-1 J' d (COM by the linear part, orientation by
// the exponential of the angular part); the velocities are kept.
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "math/cholesky.h"
#include "math/vec.h"

// largest |r| of the first n residuals
static double max_abs(const double* r, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) {
        v = fmax(v, fabs(r[i]));
    }
    return v;
}

int gdn_kamino_project(const gdnKaminoModel* km, gdnKWorld* w, int nb) {
    int it = 0;
    if (nb == 0) {
        return 0;
    }
    double* L = w->D;
    double* d = w->vf;
    for (; it < km->s.projection_iterations; it++) {
        gdn_kamino_body_frames(km, w);
        gdn_kamino_joint_rows(km, w);
        if (max_abs(w->resid, nb) <= km->s.projection_tol) {
            break;
        }
        // D of the bilateral rows (the dual assembly without the velocity terms)
        gdn_kamino_assemble(km, w, nb, nb, 0, 0, 1.0);
        double maxd = 0;
        for (int i = 0; i < nb; i++) {
            maxd = fmax(maxd, L[(size_t)i * nb + i]);
        }
        for (int i = 0; i < nb; i++) {
            L[(size_t)i * nb + i] += 1e-12 * maxd + 1e-300;
            d[i] = -w->resid[i];
        }
        gdn_chol_factor(L, nb, 1e-15 * maxd);
        gdn_chol_solve(d, L, d, nb);
        // poses += M^-1 J' d
        double* du = w->uf; // free velocity no longer needed: the pose increments
        memset(du, 0, 6 * (size_t)km->nbody * sizeof(double));
        for (int i = 0; i < nb; i++) {
            const gdnKRow* r = w->rows + i;
            const double* mj = w->minvj + 12 * i;
            for (int k = 0; k < 6; k++) {
                if (r->a >= 0) {
                    du[6 * r->a + k] += mj[k] * d[i];
                }
                if (r->b >= 0) {
                    du[6 * r->b + k] += mj[6 + k] * d[i];
                }
            }
        }
        for (int b = 1; b < km->nbody; b++) {
            if (!km->moving[b]) {
                continue;
            }
            const double* v = du + 6 * b;
            gdn_add3(w->pub.body_pos + 3 * b, w->pub.body_pos + 3 * b, v);
            double axis[3] = {v[3], v[4], v[5]};
            double angle = gdn_normalize3(axis);
            double* q = w->pub.body_quat + 4 * b;
            if (angle > 0) {
                double dq[4];
                gdn_axisangle2quat(dq, axis, angle);
                gdn_mulquat(q, dq, q);
            }
            gdn_normalize4(q);
        }
    }
    return it;
}
