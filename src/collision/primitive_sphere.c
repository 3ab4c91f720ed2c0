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

// clamp(a . e / a . a) and whether it is inside (primitive.h)
double gdn_segment_point_param(const double a[3], const double e[3], int* interior) {
    double x = gdn_dot3(a, e) / gdn_dot3(a, a);
    *interior = !(x > 1) && !(x < -1);
    return clamp_unit(x);
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
    int interior;
    double x = gdn_segment_point_param(axis, dif, &interior);
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

// x1 = clamp((u - s mb) / ma) given x2 = s, with its kind
static void given1(gdnSegmentPair* q, double s) {
    double g = (q->u - s * q->mb) / q->ma;
    q->s1 = s;
    q->kind1 = g > 1 || g < -1 ? GDN_SEG_CONST : GDN_SEG_GIVEN;
    q->x1 = clamp_unit(g);
}

// x2 = clamp((v - s mb) / mc) given x1 = s, with its kind
static void given2(gdnSegmentPair* q, double s) {
    double g = (q->v - s * q->mb) / q->mc;
    q->s2 = s;
    q->kind2 = g > 1 || g < -1 ? GDN_SEG_CONST : GDN_SEG_GIVEN;
    q->x2 = clamp_unit(g);
}

// the normal equations of the two segments (primitive.h)
void gdn_segment_pair_setup(gdnSegmentPair* q, const double a1[3], const double a2[3],
                            const double e[3]) {
    q->ma = gdn_dot3(a1, a1);
    q->mb = -gdn_dot3(a1, a2);
    q->mc = gdn_dot3(a2, a2);
    q->u = -gdn_dot3(a1, e);
    q->v = gdn_dot3(a2, e);
    q->det = q->ma * q->mc - q->mb * q->mb;
    q->s1 = q->s2 = 0;
}

// solve, clamp x1 then re-solve x2, clamp x2 then re-solve x1 (primitive.h)
void gdn_segment_pair_solve(gdnSegmentPair* q) {
    q->x1 = (q->mc * q->u - q->mb * q->v) / q->det;
    q->x2 = (q->ma * q->v - q->mb * q->u) / q->det;
    q->kind1 = q->kind2 = GDN_SEG_SOLVE;
    if (q->x1 > 1 || q->x1 < -1) {
        q->x1 = q->x1 > 1 ? 1 : -1;
        q->kind1 = GDN_SEG_CONST;
        q->s2 = q->x1;
        q->x2 = (q->v - q->s2 * q->mb) / q->mc;
        q->kind2 = GDN_SEG_GIVEN;
    }
    if (q->x2 > 1 || q->x2 < -1) {
        q->x2 = q->x2 > 1 ? 1 : -1;
        q->kind2 = GDN_SEG_CONST;
        given1(q, q->x2);
    }
}

// the parallel candidate j (0..3) of the primal's order (primitive.h)
void gdn_segment_pair_parallel(gdnSegmentPair* q, int j) {
    if (j < 2) {
        q->x1 = j == 0 ? 1 : -1;
        q->kind1 = GDN_SEG_CONST;
        given2(q, q->x1);
    } else {
        q->x2 = j == 2 ? 1 : -1;
        q->kind2 = GDN_SEG_CONST;
        given1(q, q->x2);
    }
}

int gdn_collide_capsule_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin) {
    // segments p_i + x_i a_i, a_i = h_i z_i, x_i in [-1, 1] (primitive.h's normal equations)
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
    gdnSegmentPair q;
    gdn_segment_pair_setup(&q, axis1, axis2, dif);
    double r1 = size1[0], r2 = size2[0];

    // general position: one contact at the cascade's parameters
    if (fabs(q.det) >= GDN_MINVAL) {
        gdn_segment_pair_solve(&q);
        return segment_points(con, margin, pos1, axis1, q.x1, mat1, r1, pos2, axis2, q.x2, mat2,
                              r2);
    }

    // parallel axes: the ends of segment 1 against segment 2, then (while fewer than 2
    // contacts) the ends of segment 2 against segment 1
    int n = 0;
    for (int j = 0; j < 4; j++) {
        gdn_segment_pair_parallel(&q, j);
        n += segment_points(con + n, margin, pos1, axis1, q.x1, mat1, r1, pos2, axis2, q.x2, mat2,
                            r2);
        if (j >= 1 && n >= 2) {
            return n;
        }
    }
    return n;
}
