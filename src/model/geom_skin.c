// SPDX-License-Identifier: Apache-2.0
// The collision skin of a primitive geom: shape points in the geom frame, moved to the body frame.
#include "model/geom_skin.h"

#include <math.h>

#include "math/vec.h"

#define CYLINDER_RIM_POINTS 8
#define SKIN_PI 3.14159265358979323846

int gdn_geom_skinned(int body, int contype, int conaffinity, int type) {
    return body > 0 && (contype || conaffinity) && type != GDN_GEOM_PLANE &&
           type != GDN_GEOM_HFIELD;
}

// out[3 n] = pos + R(quat) p
static void put(double* out, int n, const double p[3], const double pos[3], const double quat[4]) {
    double r[3];
    gdn_rotvecquat(r, p, quat);
    gdn_add3(out + 3 * n, pos, r);
}

int gdn_geom_skin_points(int type, const double size[3], const double pos[3],
                         const double quat[4], double* out) {
    const double* sz = size;
    double p[3];
    int n = 0;
    switch (type) {
    case GDN_GEOM_BOX:
        for (int c = 0; c < 8; c++) {
            p[0] = c & 1 ? sz[0] : -sz[0];
            p[1] = c & 2 ? sz[1] : -sz[1];
            p[2] = c & 4 ? sz[2] : -sz[2];
            put(out, n++, p, pos, quat);
        }
        return n;
    case GDN_GEOM_SPHERE:
    case GDN_GEOM_ELLIPSOID:
        for (int k = 0; k < 6; k++) {
            double r = type == GDN_GEOM_SPHERE ? sz[0] : sz[k / 2];
            gdn_zero3(p);
            p[k / 2] = k % 2 ? -r : r;
            put(out, n++, p, pos, quat);
        }
        return n;
    case GDN_GEOM_CAPSULE:
        for (int end = 0; end < 2; end++) {
            double z = end ? -sz[1] : sz[1];
            const double ring[5][3] = {{0, 0, end ? -(sz[1] + sz[0]) : sz[1] + sz[0]},
                                       {sz[0], 0, z},
                                       {-sz[0], 0, z},
                                       {0, sz[0], z},
                                       {0, -sz[0], z}};
            for (int k = 0; k < 5; k++) {
                put(out, n++, ring[k], pos, quat);
            }
        }
        return n;
    case GDN_GEOM_CYLINDER:
        for (int end = 0; end < 2; end++) {
            for (int k = 0; k < CYLINDER_RIM_POINTS; k++) {
                double angle = 2 * SKIN_PI * k / CYLINDER_RIM_POINTS;
                p[0] = sz[0] * cos(angle);
                p[1] = sz[0] * sin(angle);
                p[2] = end ? -sz[1] : sz[1];
                put(out, n++, p, pos, quat);
            }
        }
        return n;
    case GDN_GEOM_MESH:
        return -1;
    default:
        return 0; // plane, height field: no skin
    }
}
