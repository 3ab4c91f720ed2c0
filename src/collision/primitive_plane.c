// SPDX-License-Identifier: Apache-2.0
// Plane against sphere, capsule, ellipsoid and cylinder in closed form (MuJoCo 2.2.2's formulas).
#include <math.h>

#include "collision/narrowphase.h"
#include "collision/primitive.h"
#include "math/vec.h"

// the plane's normal: the z axis of its frame (third column of xmat)
static void plane_normal(const double* mat, double n[3]) {
    n[0] = mat[2];
    n[1] = mat[5];
    n[2] = mat[8];
}

// one contact of the normal n at the point p on geom2's surface, distance dist:
//   pos = p - n dist / 2 (the midpoint between p and its projection on the plane)
static void plane_contact(gdnContact* con, const double n[3], const double p[3], double dist) {
    con->dist = dist;
    gdn_addscl3(con->pos, p, n, -0.5 * dist);
    gdn_copy3(con->frame, n);
    gdn_zero3(con->frame + 3);
}

int gdn_plane_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                        const double* pos2, double radius) {
    // centre height above the plane: c = n . (pos2 - pos1); contact when c - r <= margin
    double n[3], dif[3];
    plane_normal(mat1, n);
    gdn_sub3(dif, pos2, pos1);
    double height = gdn_dot3(dif, n);
    if (height > margin + radius) {
        return 0;
    }
    // dist = c - r; pos = pos2 - n (r + dist / 2)
    con->dist = height - radius;
    gdn_addscl3(con->pos, pos2, n, -con->dist / 2 - radius);
    gdn_copy3(con->frame, n);
    gdn_zero3(con->frame + 3);
    return 1;
}

int gdn_collide_plane_sphere(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                             double margin) {
    return gdn_plane_sphere_at(con, margin, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1,
                               d->geom_xpos + 3 * g2, m->geom_size[3 * g2]);
}

int gdn_collide_plane_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                              int g2, double margin) {
    // the two end spheres at pos2 +- h axis, each against the plane; tangent1 hint = the axis
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size2 = m->geom_size + 3 * g2;
    double axis[3] = {mat2[2], mat2[5], mat2[8]};
    double segment[3], end[3];
    gdn_scl3(segment, axis, size2[1]);

    gdn_add3(end, pos2, segment);
    int n1 = gdn_plane_sphere_at(con, margin, pos1, mat1, end, size2[0]);
    gdn_sub3(end, pos2, segment);
    int n2 = gdn_plane_sphere_at(con + n1, margin, pos1, mat1, end, size2[0]);
    for (int i = 0; i < n1 + n2; i++) {
        gdn_copy3(con[i].frame + 3, axis);
    }
    return n1 + n2;
}

int gdn_collide_plane_ellipsoid(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin) {
    // support point of the ellipsoid in the direction -n (geom frame: u = R' (-n)):
    //   s = D normalize(D u), D = diag(a, b, c);  x = pos2 + R s;  dist = n . (x - pos1)
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size = m->geom_size + 3 * g2;
    double n[3], down[3], local[3], support[3], point[3], dif[3];
    plane_normal(mat1, n);
    gdn_scl3(down, n, -1);
    gdn_mulmat3T(local, mat2, down);
    for (int i = 0; i < 3; i++) {
        support[i] = local[i] * size[i];
    }
    gdn_normalize3(support);
    for (int i = 0; i < 3; i++) {
        support[i] *= size[i];
    }
    gdn_mulmat3(point, mat2, support);
    gdn_add3(point, point, pos2);

    gdn_sub3(dif, point, pos1);
    double dist = gdn_dot3(n, dif);
    if (dist > margin) {
        return 0;
    }
    plane_contact(con, n, point, dist);
    return 1;
}

int gdn_collide_plane_cylinder(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                               int g2, double margin) {
    // Up to 4 contacts: the rim point nearest the plane on the bottom disk (a = axis pointing
    // towards the plane, h a), the same rim direction on the top disk (-h a), and two more points
    // of the bottom disk at +-120 degrees from the nearest one (an inscribed triangle).
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double radius = m->geom_size[3 * g2];
    const double half = m->geom_size[3 * g2 + 1];
    double n[3], axis[3] = {mat2[2], mat2[5], mat2[8]};
    plane_normal(mat1, n);

    // axis with a . n <= 0
    double proj_axis = gdn_dot3(n, axis);
    if (proj_axis > 0) {
        gdn_scl3(axis, axis, -1);
        proj_axis = -proj_axis;
    }

    // centre height above the plane
    double dif[3];
    gdn_sub3(dif, pos2, pos1);
    double height = gdn_dot3(dif, n);

    // rim direction nearest the plane: r (a (a . n) - n) / |a (a . n) - n|; the cylinder's x
    // axis when the disk is parallel to the plane
    double rim[3];
    gdn_scl3(rim, axis, proj_axis);
    gdn_sub3(rim, rim, n);
    double len = gdn_norm3(rim);
    if (len >= GDN_MINVAL) {
        double scale = radius / len;
        gdn_scl3(rim, rim, scale);
    } else {
        rim[0] = mat2[0] * radius;
        rim[1] = mat2[3] * radius;
        rim[2] = mat2[6] * radius;
    }
    double proj_rim = gdn_dot3(rim, n);

    // axis scaled by the half height
    gdn_scl3(axis, axis, half);
    proj_axis *= half;

    // first point: bottom rim (none below the margin: no contact at all)
    int count = 0;
    double point[3];
    double dist = height + proj_axis + proj_rim;
    if (dist > margin) {
        return 0;
    }
    gdn_add3(point, pos2, rim);
    gdn_add3(point, point, axis);
    plane_contact(con + count++, n, point, dist);

    // second point: top rim
    dist = height - proj_axis + proj_rim;
    if (dist <= margin) {
        gdn_add3(point, pos2, rim);
        gdn_sub3(point, point, axis);
        plane_contact(con + count++, n, point, dist);
    }

    // third and fourth: bottom disk at -rim / 2 +- side, side = (sqrt(3) / 2) r unit(rim x axis)
    double proj_rim_half = -proj_rim * 0.5;
    dist = height + proj_axis + proj_rim_half;
    if (dist <= margin) {
        double side[3];
        gdn_cross3(side, rim, axis);
        gdn_normalize3(side);
        gdn_scl3(side, side, radius * sqrt(3.0) / 2);
        for (int sign = 1; sign >= -1; sign -= 2) {
            gdn_addscl3(point, pos2, side, (double)sign);
            gdn_add3(point, point, axis);
            gdn_addscl3(point, point, rim, -0.5);
            plane_contact(con + count++, n, point, dist);
        }
    }
    return count;
}
