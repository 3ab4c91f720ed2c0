// SPDX-License-Identifier: Apache-2.0
// Internal: the MPR portal search (collision/convex_mpr.c) and libccd's tolerance tests, shared
// by the primal gdn_mpr_penetration and the derivative of the polytope pairs, which reads the
// search's final portal (its support points with their per-shape witness vertices).
#ifndef GDN_COLLISION_CONVEX_MPR_H
#define GDN_COLLISION_CONVEX_MPR_H

#include <float.h>
#include <math.h>

#include "collision/convex.h"
#include "math/vec.h"

// libccd's double-precision epsilon for "is zero" and "equal" tests
#define GDN_MPR_EPS DBL_EPSILON

// a support point of the Minkowski difference: v = v1 - v2, v1 on obj1, v2 on obj2
typedef struct gdnMprPoint {
    double v[3], v1[3], v2[3];
} gdnMprPoint;

// |x| below eps
static inline int gdn_mpr_is_zero(double x) { return fabs(x) < GDN_MPR_EPS; }

// |a - b| below eps absolute, or below eps relative to the larger magnitude
static inline int gdn_mpr_nearly_equal(double a, double b) {
    double ab = fabs(a - b);
    if (ab < GDN_MPR_EPS) {
        return 1;
    }
    double fa = fabs(a), fb = fabs(b);
    return ab < GDN_MPR_EPS * (fb > fa ? fb : fa);
}

// not strictly behind the origin: dot >= 0 up to eps
static inline int gdn_mpr_non_negative(double dot) {
    return gdn_mpr_is_zero(dot) || dot > 0;
}

// v <- v / |v| (multiplication by the reciprocal, no zero guard: callers ensure |v| > 0)
static inline void gdn_mpr_unit(double v[3]) {
    double k = 1.0 / sqrt(gdn_dot3(v, v));
    gdn_scl3(v, v, k);
}

// squared distance from the origin to triangle (a, b, c) and the closest point (libccd's case
// analysis): *code 0 the interior point a + s (b - a) + t (c - a), param = (s, t); else the
// nearest edge, code 1 + 3 e + where for edge e = ab, ac, bc (in that order of preference on
// ties) with where 0 / 1 / 2 the closest point at the edge's first end / second end / inside,
// param[0] its parameter along the edge
double gdn_mpr_triangle_closest(const double a[3], const double b[3], const double c[3],
                                double witness[3], int* code, double param[2]);

// the contact point of a final portal: weights b of the support points (barycentric
// coordinates of the origin in the tetrahedron v0..v3, or, when their sum is not positive, of
// its projection on the portal face along the portal normal: b0 = 0), their sum; returns 1
// when that fallback was taken
int gdn_mpr_portal_weights(const gdnMprPoint p[4], double b[4], double* sum);

// the weighted witness points w1 (on obj1), w2 (on obj2) and their mean pos
void gdn_mpr_portal_witnesses(const gdnMprPoint p[4], const double b[4], double sum,
                              double w1[3], double w2[3], double pos[3]);

// The MPR search of obj1 - obj2 as libccd 2.1 runs it: portal discovery, refinement, then
// expansion until the support gain is below tolerance or iterations are used up. Returns
// -1: no intersection (outside, or refinement failed); 1: the origin is v1 (touching);
// 2: the origin is on segment v0-v1 (p[0], p[1] set); 0: p[0..3] is the final portal
int gdn_mpr_portal(gdnConvexObj* obj1, gdnConvexObj* obj2, int max_iterations,
                   double tolerance, gdnMprPoint p[4]);

#endif
