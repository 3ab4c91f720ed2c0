// SPDX-License-Identifier: Apache-2.0
// Internal building blocks of the closed-form pairs (plane-sphere, sphere-sphere at given poses,
// the nearest points of two segments), shared by the primal pairs and their derivatives.
#ifndef GDN_COLLISION_PRIMITIVE_H
#define GDN_COLLISION_PRIMITIVE_H

#include <gradyn/contact.h>

// plane (origin pos1, normal = z column of mat1) against a sphere of the given radius centred
// at pos2: 0 or 1 contact written to con (normal, dist, pos; frame[3:6] zeroed)
int gdn_plane_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                        const double* pos2, double radius);

// one contact of the plane normal n at the point p on geom2's surface, distance dist:
// pos = p - n dist / 2 (the midpoint between p and its projection on the plane), frame[3:6] 0
void gdn_plane_contact(gdnContact* con, const double n[3], const double p[3], double dist);

// sphere (pos1, r1) against sphere (pos2, r2): 0 or 1 contact; normal from 1 to 2, or, for
// coincident centres, unit(z1 x z2) with z the third columns of mat1 and mat2 (then (1, 0, 0)
// when those are parallel)
int gdn_sphere_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                         double r1, const double* pos2, const double* mat2, double r2);

// the support point of an ellipsoid (centre pos2, rotation mat2, semi-axes size) in the
// direction -n: l = mat2' (-n), s1 = D l, u = s1 / |s1| (len = |s1|; (1, 0, 0) below MINVAL),
// s = D u (D = diag(size)), x = pos2 + mat2 s
typedef struct gdnEllipsoidSupport {
    double l[3], s1[3], len, u[3], s[3], x[3];
} gdnEllipsoidSupport;

void gdn_ellipsoid_support(gdnEllipsoidSupport* e, const double n[3], const double* pos2,
                           const double* mat2, const double* size);

// A cylinder (centre pos2, rotation mat2, radius r, half height h) against a plane (origin
// pos1, normal n): z2 its axis, a = s z2 with s = -1 when n . z2 > 0, pa = n . a, height =
// n . (pos2 - pos1), rim = r q / |q| with q = a pa - n (r x2 when |q| < MINVAL: degenerate),
// A = h a, PA = h pa, shat = unit(rim x A) (srlen = |rim x A|).
typedef struct gdnPlaneCylinder {
    double n[3], z2[3], x2axis[3], a[3], s, pa, height, q[3], qlen, rim[3], proj_rim, A[3], PA;
    double r, h, sr[3], srlen, shat[3];
    int degenerate;
} gdnPlaneCylinder;

void gdn_plane_cylinder_setup(gdnPlaneCylinder* c, const double* pos1, const double* mat1,
                              const double* pos2, const double* mat2, double r, double h);

// candidate k of the primal's order (0 bottom rim, 1 top rim, 2 / 3 the inscribed triangle's
// other bottom points): its distance and point on the cylinder
void gdn_plane_cylinder_point(const gdnPlaneCylinder* c, const double* pos2, int k, double* dist,
                              double point[3]);

// the parameter x in [-1, 1] of the point p + x a of a segment nearest a point q, e = q - p:
// clamp(a . e / a . a); *interior 1 when the clamp did not act
double gdn_segment_point_param(const double a[3], const double e[3], int* interior);

// The nearest points p_i + x_i a_i (x_i in [-1, 1]) of two segments (capsule-capsule): the
// lines' normal equations [ma mb; mb mc] [x1; x2] = [u; v] with ma = a1.a1, mb = -a1.a2,
// mc = a2.a2, u = -a1.e, v = a2.e, e = p1 - p2, det = ma mc - mb^2. Each parameter's kind says
// how it was found: SOLVE from the 2x2 solve, CONST a clamped end (+-1), GIVEN
// x1 = (u - s1 mb) / ma given x2 = s1, or x2 = (v - s2 mb) / mc given x1 = s2.
enum { GDN_SEG_SOLVE, GDN_SEG_CONST, GDN_SEG_GIVEN };

typedef struct gdnSegmentPair {
    double ma, mb, mc, u, v, det;
    double x1, x2, s1, s2; // parameters; s_i the other parameter given to a GIVEN x_i
    int kind1, kind2;
} gdnSegmentPair;

// the normal equations of segments with axes a1, a2 and e = p1 - p2 (s1 = s2 = 0)
void gdn_segment_pair_setup(gdnSegmentPair* q, const double a1[3], const double a2[3],
                            const double e[3]);

// general position (|det| >= MINVAL): solve, clamp x1 then re-solve x2, clamp x2 then re-solve
// and clamp x1 (MuJoCo 2.2.2's cascade)
void gdn_segment_pair_solve(gdnSegmentPair* q);

// parallel axes: candidate j of the primal's order, (1, x2 | 1), (-1, x2 | -1), (x1 | 1, 1),
// (x1 | -1, -1), the given parameter clamped
void gdn_segment_pair_parallel(gdnSegmentPair* q, int j);

#endif
