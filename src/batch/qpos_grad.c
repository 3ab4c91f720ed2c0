// SPDX-License-Identifier: Apache-2.0
// The pull-back of a tangent-space gradient through the normalization to raw qpos coordinates.
#include <math.h>

#include <gradyn/batch.h>

#include "math/vec.h"

// g_qpos of one quaternion block x (4) from its tangent gradient g (3)
static void quat_pullback(const double* x, const double* g, double* gq) {
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    if (!(r >= GDN_MINVAL)) {
        gq[0] = gq[1] = gq[2] = gq[3] = 0;
        return;
    }
    // n = x / |x| = (w, u); g_w = -(2/|x|) <u, g>, g_u = (2/|x|) (w g + u x g)
    const double w = x[0] / r, u0 = x[1] / r, u1 = x[2] / r, u2 = x[3] / r;
    const double s = 2 / r;
    gq[0] = -s * (u0 * g[0] + u1 * g[1] + u2 * g[2]);
    gq[1] = s * (w * g[0] + (u1 * g[2] - u2 * g[1]));
    gq[2] = s * (w * g[1] + (u2 * g[0] - u0 * g[2]));
    gq[3] = s * (w * g[2] + (u0 * g[1] - u1 * g[0]));
}

void gdn_tangent_grad_to_qpos(const gdnModel* m, const double* qpos, const double* g_tangent,
                              double* g_qpos) {
    if (!m || !qpos || !g_tangent || !g_qpos) {
        return;
    }
    // joint by joint: translations and angles unchanged, quaternions pulled back
    for (int j = 0; j < m->njnt; j++) {
        const int qa = m->jnt_qposadr[j], da = m->jnt_dofadr[j];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int k = 0; k < 3; k++) {
                g_qpos[qa + k] = g_tangent[da + k];
            }
            quat_pullback(qpos + qa + 3, g_tangent + da + 3, g_qpos + qa + 3);
            break;
        case GDN_JNT_BALL:
            quat_pullback(qpos + qa, g_tangent + da, g_qpos + qa);
            break;
        default:
            g_qpos[qa] = g_tangent[da];
            break;
        }
    }
}
