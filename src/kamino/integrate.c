// SPDX-License-Identifier: Apache-2.0
// Kamino's semi-implicit Euler (kamino.md 2.7): u+ = u_f + M^-1 J' lambda, then the COM by
// x+ = x + h v+ and the orientation by the quaternion exponential q+ = exp(h w+) (x) q.
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "math/vec.h"

void gdn_kamino_integrate(const gdnKaminoModel* km, gdnKWorld* w, int n, double h) {
    double* u = w->pub.body_u;
    memcpy(u, w->uf, 6 * (size_t)km->nbody * sizeof(double));
    // constraint impulses
    gdn_kamino_add_minv_jt(w, n, w->lam, u);
    // poses
    for (int b = 1; b < km->nbody; b++) {
        if (!km->moving[b]) {
            continue;
        }
        double* x = w->pub.body_pos + 3 * b;
        double* q = w->pub.body_quat + 4 * b;
        const double* v = u + 6 * b;
        gdn_addscl3(x, x, v, h);
        double axis[3] = {v[3], v[4], v[5]};
        double angle = h * gdn_normalize3(axis);
        if (angle > 0) {
            double dq[4];
            gdn_axisangle2quat(dq, axis, angle);
            gdn_mulquat(q, dq, q);
        }
        gdn_normalize4(q);
    }
}
