// SPDX-License-Identifier: Apache-2.0
// Sphere-sphere, sphere-capsule and capsule-capsule in closed form (MuJoCo 2.2.2's formulas).
#include <math.h>

#include "collision/narrowphase.h"
#include "collision/primitive.h"
#include "math/vec.h"

int gdn_sphere_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                         double r1, const double* pos2, const double* mat2, double r2) {
    // centre distance c = |pos2 - pos1|; contact when c - r1 - r2 <= margin
    double n[3];
    gdn_sub3(n, pos2, pos1);
    double centre_dist = gdn_norm3(n);
    if (centre_dist > margin + r1 + r2) {
        return 0;
    }
    con->dist = centre_dist - r1 - r2;
    double len = gdn_normalize3(n);
    if (len < GDN_MINVAL) {
        double z1[3] = {mat1[2], mat1[5], mat1[8]};
        double z2[3] = {mat2[2], mat2[5], mat2[8]};
        gdn_cross3(n, z1, z2);
        gdn_normalize3(n);
    }
    // pos = pos1 + n (r1 + dist / 2)
    gdn_copy3(con->frame, n);
    gdn_scl3(con->pos, n, r1 + con->dist / 2);
    gdn_add3(con->pos, con->pos, pos1);
    gdn_zero3(con->frame + 3);
    return 1;
}

int gdn_collide_sphere_sphere(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                              int g2, double margin) {
    return gdn_sphere_sphere_at(con, margin, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1,
                                m->geom_size[3 * g1], d->geom_xpos + 3 * g2,
                                d->geom_xmat + 9 * g2, m->geom_size[3 * g2]);
}

// clamp to the segment parameter range [-1, 1]
static double clamp_unit(double x) {
    return x > 1 ? 1 : (x < -1 ? -1 : x);
}

int gdn_collide_sphere_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                               int g2, double margin) {
    // nearest segment point: pos2 + x h z2, x = clamp(h z2 . (pos1 - pos2) / h^2)
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size2 = m->geom_size + 3 * g2;
    double axis[3] = {mat2[2] * size2[1], mat2[5] * size2[1], mat2[8] * size2[1]};
    double dif[3], nearest[3];
    gdn_sub3(dif, pos1, pos2);
    double x = clamp_unit(gdn_dot3(axis, dif) / gdn_dot3(axis, axis));
    gdn_scl3(nearest, axis, x);
    gdn_add3(nearest, nearest, pos2);
    return gdn_sphere_sphere_at(con, margin, pos1, d->geom_xmat + 9 * g1, m->geom_size[3 * g1],
                                nearest, mat2, size2[0]);
}

// the sphere-sphere test between the segment points p1 + x1 a1 and p2 + x2 a2
static int segment_points(gdnContact* con, double margin, const double* pos1, const double* axis1,
                          double x1, const double* mat1, double r1, const double* pos2,
                          const double* axis2, double x2, const double* mat2, double r2) {
    double c1[3], c2[3];
    gdn_scl3(c1, axis1, x1);
    gdn_add3(c1, c1, pos1);
    gdn_scl3(c2, axis2, x2);
    gdn_add3(c2, c2, pos2);
    return gdn_sphere_sphere_at(con, margin, c1, mat1, r1, c2, mat2, r2);
}

int gdn_collide_capsule_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin) {
    // segments p_i + x_i a_i, a_i = h_i z_i, x_i in [-1, 1]. Nearest points of the lines solve
    //   [ma mb; mb mc] [x1; x2] = [u; v],  ma = a1.a1, mb = -a1.a2, mc = a2.a2,
    //   u = -a1.(p1 - p2), v = a2.(p1 - p2)
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size1 = m->geom_size + 3 * g1;
    const double* size2 = m->geom_size + 3 * g2;
    double axis1[3] = {mat1[2] * size1[1], mat1[5] * size1[1], mat1[8] * size1[1]};
    double axis2[3] = {mat2[2] * size2[1], mat2[5] * size2[1], mat2[8] * size2[1]};
    double dif[3];
    gdn_sub3(dif, pos1, pos2);
    double ma = gdn_dot3(axis1, axis1);
    double mb = -gdn_dot3(axis1, axis2);
    double mc = gdn_dot3(axis2, axis2);
    double u = -gdn_dot3(axis1, dif);
    double v = gdn_dot3(axis2, dif);
    double det = ma * mc - mb * mb;
    double r1 = size1[0], r2 = size2[0];

    // general position: solve, clamp x1 then re-solve x2, clamp x2 then re-solve x1
    if (fabs(det) >= GDN_MINVAL) {
        double x1 = (mc * u - mb * v) / det;
        double x2 = (ma * v - mb * u) / det;
        if (x1 > 1) {
            x1 = 1;
            x2 = (v - mb) / mc;
        } else if (x1 < -1) {
            x1 = -1;
            x2 = (v + mb) / mc;
        }
        if (x2 > 1) {
            x2 = 1;
            x1 = clamp_unit((u - mb) / ma);
        } else if (x2 < -1) {
            x2 = -1;
            x1 = clamp_unit((u + mb) / ma);
        }
        return segment_points(con, margin, pos1, axis1, x1, mat1, r1, pos2, axis2, x2, mat2, r2);
    }

    // parallel axes: the ends of segment 1 against segment 2, then (while fewer than 2
    // contacts) the ends of segment 2 against segment 1
    int n = segment_points(con, margin, pos1, axis1, 1, mat1, r1, pos2, axis2,
                           clamp_unit((v - mb) / mc), mat2, r2);
    n += segment_points(con + n, margin, pos1, axis1, -1, mat1, r1, pos2, axis2,
                        clamp_unit((v + mb) / mc), mat2, r2);
    if (n >= 2) {
        return n;
    }
    n += segment_points(con + n, margin, pos1, axis1, clamp_unit((u - mb) / ma), mat1, r1, pos2,
                        axis2, 1, mat2, r2);
    if (n >= 2) {
        return n;
    }
    n += segment_points(con + n, margin, pos1, axis1, clamp_unit((u + mb) / ma), mat1, r1, pos2,
                        axis2, -1, mat2, r2);
    return n;
}
