// SPDX-License-Identifier: Apache-2.0
// Penalty-contact test set-up: collision skins from a model's geoms and a plane under them.
#include "runner/skins.h"

#include <math.h>

#include <gradyn/gradyn.h>

// R = rotation matrix of the unit quaternion q (w, x, y, z), row-major
static void quat2mat(double R[9], const double q[4]) {
    R[0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]);
    R[1] = 2 * (q[1] * q[2] - q[0] * q[3]);
    R[2] = 2 * (q[1] * q[3] + q[0] * q[2]);
    R[3] = 2 * (q[1] * q[2] + q[0] * q[3]);
    R[4] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]);
    R[5] = 2 * (q[2] * q[3] - q[0] * q[1]);
    R[6] = 2 * (q[1] * q[3] - q[0] * q[2]);
    R[7] = 2 * (q[2] * q[3] + q[0] * q[1]);
    R[8] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
}


// skins from the geoms (box corners, capsule end points, sphere centres) and penalty contact
// with the plane `above` over the lowest vertex at qpos0, so contact is active from t = 0
int gdn_test_add_skins_and_penalty(gdnModel* m, double above, double stiffness, double damping) {
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0;
    }
    gdn_data_reset(m, d);
    gdn_kinematics(m, d);
    double zmin = INFINITY;
    for (int b = 1; b < m->nbody; b++) {
        double verts[3 * 64];
        int n = 0;
        for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b];
             g++) {
            const double* s = m->geom_size + 3 * g;
            double local[8][3];
            int k = 0;
            if (m->geom_type[g] == GDN_GEOM_BOX) {
                for (int c = 0; c < 8; c++, k++) {
                    local[k][0] = (c & 1) ? s[0] : -s[0];
                    local[k][1] = (c & 2) ? s[1] : -s[1];
                    local[k][2] = (c & 4) ? s[2] : -s[2];
                }
            } else if (m->geom_type[g] == GDN_GEOM_CAPSULE) {
                for (int c = 0; c < 2; c++, k++) {
                    local[k][0] = local[k][1] = 0;
                    local[k][2] = c ? s[1] : -s[1];
                }
            } else if (m->geom_type[g] == GDN_GEOM_SPHERE) {
                local[k][0] = local[k][1] = local[k][2] = 0;
                k++;
            }
            double R[9];
            quat2mat(R, m->geom_quat + 4 * g);
            for (int c = 0; c < k && n < 64; c++, n++) {
                for (int i = 0; i < 3; i++) {
                    verts[3 * n + i] = m->geom_pos[3 * g + i] + R[3 * i] * local[c][0] +
                                       R[3 * i + 1] * local[c][1] + R[3 * i + 2] * local[c][2];
                }
                const double* X = d->xmat + 9 * b;
                double z = d->xpos[3 * b + 2] + X[6] * verts[3 * n] + X[7] * verts[3 * n + 1] +
                           X[8] * verts[3 * n + 2];
                zmin = fmin(zmin, z);
            }
        }
        if (n > 0 && gdn_model_set_collision_mesh(m, b, verts, n) != GDN_OK) {
            gdn_data_free(d);
            return 0;
        }
    }
    gdn_data_free(d);
    return gdn_model_set_penalty(m, 1, zmin + above, stiffness, damping) == GDN_OK;
}
