// SPDX-License-Identifier: Apache-2.0
// Minkowski Portal Refinement (Snethen, Game Programming Gems 7) for the penetration of two
// convex shapes, following libccd 2.1's ccdMPRPenetration decisions and tolerances so that the
// contact equals MuJoCo 2.2.2's (which calls it) up to round-off.
#include "collision/convex_mpr.h"

#include <math.h>

#include "math/vec.h"

// every coordinate nearly 0
static int vec_is_origin(const double v[3]) {
    return gdn_mpr_nearly_equal(v[0], 0) && gdn_mpr_nearly_equal(v[1], 0) &&
           gdn_mpr_nearly_equal(v[2], 0);
}

// support of the Minkowski difference obj1 - obj2 in direction dir
static void minkowski_support(gdnConvexObj* o1, gdnConvexObj* o2, const double dir[3],
                              gdnMprPoint* s) {
    double neg[3] = {-dir[0], -dir[1], -dir[2]};
    gdn_convex_support(o1, dir, s->v1);
    gdn_convex_support(o2, neg, s->v2);
    gdn_sub3(s->v, s->v1, s->v2);
}

// outward normal of the portal face (v1, v2, v3): unit (v2 - v1) x (v3 - v1)
static void portal_dir(const gdnMprPoint p[4], double dir[3]) {
    double a[3], b[3];
    gdn_sub3(a, p[2].v, p[1].v);
    gdn_sub3(b, p[3].v, p[1].v);
    gdn_cross3(dir, a, b);
    gdn_mpr_unit(dir);
}

// unit normal of the triangle (v0, v1, v2): (v1 - v0) x (v2 - v0)
static void triangle_dir(const gdnMprPoint p[4], double dir[3]) {
    double a[3], b[3];
    gdn_sub3(a, p[1].v, p[0].v);
    gdn_sub3(b, p[2].v, p[0].v);
    gdn_cross3(dir, a, b);
    gdn_mpr_unit(dir);
}

// the smallest support gain dir . (v4 - vi), i = 1..3, is at most the tolerance
static int reached_tolerance(const gdnMprPoint p[4], const gdnMprPoint* v4,
                             const double dir[3], double tolerance) {
    double dv4 = gdn_dot3(v4->v, dir);
    double d1 = dv4 - gdn_dot3(p[1].v, dir);
    double d2 = dv4 - gdn_dot3(p[2].v, dir);
    double d3 = dv4 - gdn_dot3(p[3].v, dir);
    double gain = fmin(fmin(d1, d2), d3);
    return gdn_mpr_nearly_equal(gain, tolerance) || gain < tolerance;
}

// replace one of v1, v2, v3 by v4 so that the new face still separates v0 from the origin ray
static void expand_portal(gdnMprPoint p[4], const gdnMprPoint* v4) {
    double v4v0[3];
    gdn_cross3(v4v0, v4->v, p[0].v);
    if (gdn_dot3(p[1].v, v4v0) > 0) {
        if (gdn_dot3(p[2].v, v4v0) > 0) {
            p[1] = *v4;
        } else {
            p[3] = *v4;
        }
    } else {
        if (gdn_dot3(p[3].v, v4v0) > 0) {
            p[2] = *v4;
        } else {
            p[1] = *v4;
        }
    }
}

// Phase 1: a portal (v1, v2, v3) crossed by the ray from the interior point v0 to the origin.
// Returns -1: the origin is outside, 1: the origin is v1, 2: the origin is on segment v0-v1,
// 0: portal built
static int discover_portal(gdnConvexObj* o1, gdnConvexObj* o2, gdnMprPoint p[4]) {
    double dir[3], va[3], dot;

    // v0: centre of the Minkowski difference, nudged off the origin
    gdn_copy3(p[0].v1, o1->pos);
    gdn_copy3(p[0].v2, o2->pos);
    gdn_sub3(p[0].v, p[0].v1, p[0].v2);
    if (vec_is_origin(p[0].v)) {
        p[0].v[0] += GDN_MPR_EPS * 10.0;
    }

    // v1: support towards the origin
    gdn_scl3(dir, p[0].v, -1.0);
    gdn_mpr_unit(dir);
    minkowski_support(o1, o2, dir, &p[1]);
    dot = gdn_dot3(p[1].v, dir);
    if (gdn_mpr_is_zero(dot) || dot < 0) {
        return -1;
    }

    // v2: support normal to the plane of v0, v1 and the origin
    gdn_cross3(dir, p[0].v, p[1].v);
    if (gdn_mpr_is_zero(gdn_dot3(dir, dir))) {
        return vec_is_origin(p[1].v) ? 1 : 2;
    }
    gdn_mpr_unit(dir);
    minkowski_support(o1, o2, dir, &p[2]);
    dot = gdn_dot3(p[2].v, dir);
    if (gdn_mpr_is_zero(dot) || dot < 0) {
        return -1;
    }

    // v3: support normal to (v0, v1, v2), oriented away from v0
    triangle_dir(p, dir);
    if (gdn_dot3(dir, p[0].v) > 0) {
        gdnMprPoint t = p[1];
        p[1] = p[2];
        p[2] = t;
        gdn_scl3(dir, dir, -1.0);
    }
    for (;;) {
        minkowski_support(o1, o2, dir, &p[3]);
        dot = gdn_dot3(p[3].v, dir);
        if (gdn_mpr_is_zero(dot) || dot < 0) {
            return -1;
        }

        // origin outside (v1, v0, v3): v3 replaces v2; outside (v3, v0, v2): v3 replaces v1
        int replaced = 0;
        gdn_cross3(va, p[1].v, p[3].v);
        dot = gdn_dot3(va, p[0].v);
        if (dot < 0 && !gdn_mpr_is_zero(dot)) {
            p[2] = p[3];
            replaced = 1;
        }
        if (!replaced) {
            gdn_cross3(va, p[3].v, p[2].v);
            dot = gdn_dot3(va, p[0].v);
            if (dot < 0 && !gdn_mpr_is_zero(dot)) {
                p[1] = p[3];
                replaced = 1;
            }
        }
        if (!replaced) {
            return 0;
        }
        triangle_dir(p, dir);
    }
}

// Phase 2: move the portal towards the origin until it contains it (0) or cannot (-1)
static int refine_portal(gdnConvexObj* o1, gdnConvexObj* o2, gdnMprPoint p[4],
                         double tolerance) {
    double dir[3];
    gdnMprPoint v4;
    for (;;) {
        portal_dir(p, dir);
        if (gdn_mpr_non_negative(gdn_dot3(dir, p[1].v))) {
            return 0;
        }
        minkowski_support(o1, o2, dir, &v4);
        if (!gdn_mpr_non_negative(gdn_dot3(v4.v, dir)) ||
            reached_tolerance(p, &v4, dir, tolerance)) {
            return -1;
        }
        expand_portal(p, &v4);
    }
}

// where the origin's closest point on segment (a, b) lies, from its parameter t along b - a
// (libccd's tolerant clamps): 0 at a, 1 at b, 2 inside
static int segment_clamp(double t) {
    if (t < 0 || gdn_mpr_is_zero(t)) {
        return 0;
    }
    if (t > 1 || gdn_mpr_nearly_equal(t, 1)) {
        return 1;
    }
    return 2;
}

// the origin's projection on the plane of triangle (a, a + d1, a + d2) as a + s d1 + t d2
// (s = t = -1 when degenerate); 1 when it lies inside the triangle up to libccd's tolerances
static int triangle_params(const double a[3], const double d1[3], const double d2[3],
                           double* s, double* t) {
    double v = gdn_dot3(d1, d1), w = gdn_dot3(d2, d2);
    double p = gdn_dot3(a, d1), q = gdn_dot3(a, d2), r = gdn_dot3(d1, d2);
    double det = w * v - r * r;
    if (gdn_mpr_is_zero(det)) {
        *s = *t = -1.0;
    } else {
        *s = (q * r - w * p) / det;
        *t = (-*s * r - q) / w;
    }
    return gdn_mpr_non_negative(*s) && (gdn_mpr_nearly_equal(*s, 1) || *s < 1) &&
           gdn_mpr_non_negative(*t) && (gdn_mpr_nearly_equal(*t, 1) || *t < 1) &&
           (gdn_mpr_nearly_equal(*t + *s, 1) || *t + *s < 1);
}

// squared distance from the origin to segment (a, b); witness = closest point, *where its
// clamp (segment_clamp), *param its parameter along b - a
static double origin_segment_dist2(const double a[3], const double b[3], double witness[3],
                                   int* where, double* param) {
    double d[3], am[3];
    gdn_sub3(d, b, a);
    gdn_copy3(am, a);
    double t = -gdn_dot3(am, d) / gdn_dot3(d, d);
    *where = segment_clamp(t);
    *param = t;
    if (*where == 0) {
        gdn_copy3(witness, a);
    } else if (*where == 1) {
        gdn_copy3(witness, b);
    } else {
        gdn_addscl3(witness, a, d, t);
    }
    return gdn_dot3(witness, witness);
}

// squared distance from the origin to triangle (a, b, c) and the closest point: the interior
// minimizer when inside, else the closest of the three edges (libccd's case analysis)
double gdn_mpr_triangle_closest(const double a[3], const double b[3], const double c[3],
                                double witness[3], int* code, double param[2]) {
    double d1[3], d2[3], s, t;
    gdn_sub3(d1, b, a);
    gdn_sub3(d2, c, a);
    if (triangle_params(a, d1, d2, &s, &t)) {
        double e1[3], e2[3];
        gdn_scl3(e1, d1, s);
        gdn_scl3(e2, d2, t);
        gdn_copy3(witness, a);
        gdn_add3(witness, witness, e1);
        gdn_add3(witness, witness, e2);
        *code = 0;
        param[0] = s;
        param[1] = t;
        return gdn_dot3(witness, witness);
    }
    double w2[3], t2;
    int where;
    double dist = origin_segment_dist2(a, b, witness, &where, &param[0]);
    *code = 1 + where;
    double dist2 = origin_segment_dist2(a, c, w2, &where, &t2);
    if (dist2 < dist) {
        dist = dist2;
        gdn_copy3(witness, w2);
        *code = 4 + where;
        param[0] = t2;
    }
    dist2 = origin_segment_dist2(b, c, w2, &where, &t2);
    if (dist2 < dist) {
        dist = dist2;
        gdn_copy3(witness, w2);
        *code = 7 + where;
        param[0] = t2;
    }
    param[1] = 0;
    return dist;
}

// contact point weights: barycentric coordinates of the origin in the tetrahedron (v0, v1, v2,
// v3), or, when degenerate, of its projection on the portal along the portal normal
int gdn_mpr_portal_weights(const gdnMprPoint p[4], double b[4], double* sum) {
    double dir[3], vec[3];
    portal_dir(p, dir);
    gdn_cross3(vec, p[1].v, p[2].v);
    b[0] = gdn_dot3(vec, p[3].v);
    gdn_cross3(vec, p[3].v, p[2].v);
    b[1] = gdn_dot3(vec, p[0].v);
    gdn_cross3(vec, p[0].v, p[1].v);
    b[2] = gdn_dot3(vec, p[3].v);
    gdn_cross3(vec, p[2].v, p[1].v);
    b[3] = gdn_dot3(vec, p[0].v);
    *sum = b[0] + b[1] + b[2] + b[3];
    if (gdn_mpr_is_zero(*sum) || *sum < 0) {
        b[0] = 0;
        gdn_cross3(vec, p[2].v, p[3].v);
        b[1] = gdn_dot3(vec, dir);
        gdn_cross3(vec, p[3].v, p[1].v);
        b[2] = gdn_dot3(vec, dir);
        gdn_cross3(vec, p[1].v, p[2].v);
        b[3] = gdn_dot3(vec, dir);
        *sum = b[1] + b[2] + b[3];
        return 1;
    }
    return 0;
}

// the weights applied to the witness points of each shape; pos the mean of the two
void gdn_mpr_portal_witnesses(const gdnMprPoint p[4], const double b[4], double sum,
                              double w1[3], double w2[3], double pos[3]) {
    double inv = 1.0 / sum;
    gdn_zero3(w1);
    gdn_zero3(w2);
    for (int i = 0; i < 4; i++) {
        double t[3];
        gdn_scl3(t, p[i].v1, b[i]);
        gdn_add3(w1, w1, t);
        gdn_scl3(t, p[i].v2, b[i]);
        gdn_add3(w2, w2, t);
    }
    gdn_scl3(w1, w1, inv);
    gdn_scl3(w2, w2, inv);
    gdn_add3(pos, w1, w2);
    gdn_scl3(pos, pos, 0.5);
}

// Phase 3: expand the portal outward until the support gain reaches the tolerance or the
// iterations are used up
static void expand_to_tolerance(gdnConvexObj* o1, gdnConvexObj* o2, gdnMprPoint p[4],
                                int max_iterations, double tolerance) {
    double dir[3];
    gdnMprPoint v4;
    for (long iterations = 0;; iterations++) {
        portal_dir(p, dir);
        minkowski_support(o1, o2, dir, &v4);
        if (reached_tolerance(p, &v4, dir, tolerance) || iterations > max_iterations) {
            return;
        }
        expand_portal(p, &v4);
    }
}

int gdn_mpr_portal(gdnConvexObj* o1, gdnConvexObj* o2, int max_iterations, double tolerance,
                   gdnMprPoint p[4]) {
    int r = discover_portal(o1, o2, p);
    if (r < 0) {
        return -1;
    }
    if (r == 1 || r == 2) {
        return r;
    }
    if (refine_portal(o1, o2, p, tolerance) < 0) {
        return -1;
    }
    expand_to_tolerance(o1, o2, p, max_iterations, tolerance);
    return 0;
}

// depth and direction = the closest point of the final portal triangle to the origin; the
// contact point from the portal's barycentric coordinates
static void penetration(const gdnMprPoint p[4], gdnMprResult* res) {
    int code;
    double param[2];
    res->depth = sqrt(gdn_mpr_triangle_closest(p[1].v, p[2].v, p[3].v, res->dir, &code, param));
    if (gdn_mpr_is_zero(res->depth)) {
        gdn_zero3(res->dir);
    } else {
        gdn_mpr_unit(res->dir);
    }
    double b[4], sum, w1[3], w2[3];
    gdn_mpr_portal_weights(p, b, &sum);
    gdn_mpr_portal_witnesses(p, b, sum, w1, w2, res->pos);
}

int gdn_mpr_penetration(gdnConvexObj* o1, gdnConvexObj* o2, int max_iterations,
                        double tolerance, gdnMprResult* res) {
    gdnMprPoint p[4];
    int r = gdn_mpr_portal(o1, o2, max_iterations, tolerance, p);
    if (r < 0) {
        return 0;
    }

    // touching at v1, or origin on v0-v1: the contact is v1's witness midpoint
    if (r == 1 || r == 2) {
        gdn_add3(res->pos, p[1].v1, p[1].v2);
        gdn_scl3(res->pos, res->pos, 0.5);
        if (r == 1) {
            res->depth = 0;
            gdn_zero3(res->dir);
        } else {
            gdn_copy3(res->dir, p[1].v);
            res->depth = sqrt(gdn_dot3(res->dir, res->dir));
            gdn_mpr_unit(res->dir);
        }
        return 1;
    }
    penetration(p, res);
    return 1;
}
