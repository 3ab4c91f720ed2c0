// SPDX-License-Identifier: Apache-2.0
// Internal: a spatial tendon's wrap around a sphere or an (infinite) cylinder geom (MuJoCo
// 2.2.2's mju_wrap semantics).
#ifndef GDN_KINEMATICS_TENDON_WRAP_H
#define GDN_KINEMATICS_TENDON_WRAP_H

// The shortest path from x0 to x1 around the geom at (xpos, xmat) of radius rad: in the geom's
// frame the problem is 2D (a sphere: the plane through its centre, x0 and x1; a cylinder: its
// cross-section, the axial coordinate then interpolated along the path), the path the two
// tangent lines and the arc between their tangent points. With a side point (side non-NULL):
// outside the circle it selects the tangent pair whose mid-direction is closest to it; inside
// (its projection within the radius) the path is the "inside" wrap through one point of the
// circle found by Newton's method on asin(A z) + asin(B z) - 2 asin(z) + G = 0. Without one
// the shorter pair wins. Returns the arc's length with the two tangent points in wpnt (world,
// 6 doubles), or -1 when the straight segment clears the geom (no wrap)
// info (NULL: not wanted): which branch the wrap took, for its derivative
typedef struct gdnWrapInfo {
    int inside;   // 1: the inside wrap (side point within the radius)
    int solved;   // the inside wrap's point is its Newton root's (0: no root found, the
                  // fallback point rad unit(mid-direction of the ends))
    double z;     // that root z (asin(A z) + asin(B z) - 2 asin(z) + G = 0 to the tolerance)
    int sol;      // the tangent pair chosen (0: sgn +1, 1: sgn -1; wrap_circle's i)
    int flip;     // the arc is 2 pi - the angle between the tangent points
    int parallel; // a sphere with x0, x1 parallel through its centre (the plane's fallback)
} gdnWrapInfo;

double gdn_tendon_wrap(double wpnt[6], const double x0[3], const double x1[3],
                       const double xpos[3], const double xmat[9], double rad, int cylinder,
                       const double* side, gdnWrapInfo* info);

// MuJoCo 2.2.2's stopping tolerance of the inside wrap's Newton solve (|f| <= 1e-6, at most 20
// iterations)
#define GDN_WRAP_INSIDE_TOL 1e-6

// gdn_tendon_wrap with another stopping tolerance of the inside wrap's solve (the tests' tighter
// evaluations; the primal is gdn_tendon_wrap)
double gdn_tendon_wrap_tol(double wpnt[6], const double x0[3], const double x1[3],
                           const double xpos[3], const double xmat[9], double rad, int cylinder,
                           const double* side, double inside_tol, gdnWrapInfo* info);

#endif
