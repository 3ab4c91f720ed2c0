// SPDX-License-Identifier: Apache-2.0
// Internal: the per-pair contract of the contact geometry tangent (what each pair provides).
#ifndef GDN_COLLISION_CONTACT_DERIVATIVE_PAIRS_H
#define GDN_COLLISION_CONTACT_DERIVATIVE_PAIRS_H

#include <gradyn/gradyn.h>

#include "collision/contact_derivative.h"

// Geom order. A pair function is called by the driver with g1, g2 ordered by type
// (geom_type[g1] <= geom_type[g2], collision.c swaps them first) and the driver stores exactly
// that order in con->geom1, con->geom2. So x1 below is the twist of the body of con->geom1 =
// the table's g1 and x2 that of con->geom2 = the table's g2, the same as in
// gdn_contact_tangent: no swap anywhere. A contact whose geom types are out of table order was
// not made by the driver and is refused (GDN_ERR_ARG).
//
// Twists as contact_derivative.h: world axes about the world origin, [angular; linear]; a point
// p attached to the body moves by x[0:3] x p + x[3:6], a direction u by x[0:3] x u.
//
// Features held. Every pair derivative differentiates the branch its primal took at the current
// d->geom_xpos / d->geom_xmat / m->geom_size (clamps, flips, degenerate-direction fallbacks), and
// a pair that makes several contacts recomputes which of its candidate contacts con is, from the
// contact itself, never from its index in d->contact (the driver drops contacts beyond the margin
// and the buffer, so indices shift). The rule of the closed-form pairs: recompute every candidate
// the primal can make (plane-capsule: the two ends; plane-cylinder: bottom rim, top rim, the two
// triangle points; parallel capsule-capsule: the four end candidates) with its contact position,
// and take the one nearest con->pos (the first on a tie; candidates of one pair are O(size)
// apart, and two that coincide have the same tangent). Single-contact pairs have no choice.
// Where no derivative exists (sphere centres, or a capsule's segment points, coincident:
// dist = |c2 - c1| - r1 - r2 is not differentiable there) the tangent and the adjoint return
// GDN_ERR_UNSUPPORTED.

// clang-format off
// raw tangent of what a pair function writes: dist, pos, the normal frame[0:3] BEFORE the
// driver completes the frame, and the tangent hint frame[3:6] it wrote (0 when it wrote none)
typedef struct gdnPairTangent { double dist; double pos[3]; double normal[3]; double hint[3]; } gdnPairTangent;
typedef gdnStatus (*gdnPairTangentFn)(const gdnModel* m, const gdnData* d, const gdnContact* con,
        const double x1[6], const double x2[6], const double dsize1[3], const double dsize2[3], gdnPairTangent* t);
typedef gdnStatus (*gdnPairAdjointFn)(const gdnModel* m, const gdnData* d, const gdnContact* con,
        const gdnPairTangent* tbar, double x1bar[6], double x2bar[6], double size1bar[3], double size2bar[3]);
// clang-format on

// the primal tangent hint the pair function wrote into frame[3:6] for contact con (only pairs
// that write a nonzero hint provide one: the frame's tangent needs the hint's value, which the
// completed frame no longer holds). A pair without this function wrote a zero hint.
typedef void (*gdnPairHintFn)(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              double hint[3]);

// The completion of the frame (gdn_make_frame) and its tangent. frame: the completed contact
// frame (con->frame); hint: the primal hint the pair wrote (NULL = none); pt: the pair's raw
// tangent. The raw normal of every pair is unit, so normalization's tangent is the projection
// d n = (I - n n') d n_raw. Fills the whole t (dist, pos copied from pt).
void gdn_make_frame_tangent(const double frame[9], const double hint[3], const gdnPairTangent* pt,
                            gdnContactTangent* t);

// the adjoint: ptbar = (d t / d pt)' tbar (overwritten; its dist and pos are tbar's)
void gdn_make_frame_adjoint(const double frame[9], const double hint[3],
                            const gdnContactTangent* tbar, gdnPairTangent* ptbar);

// motion of an attached point p under twist x (NULL = 0): dp = x[0:3] x p + x[3:6]
static inline void gdn_twist_point(double dp[3], const double x[6], const double p[3]) {
    if (!x) {
        dp[0] = dp[1] = dp[2] = 0;
        return;
    }
    dp[0] = x[1] * p[2] - x[2] * p[1] + x[3];
    dp[1] = x[2] * p[0] - x[0] * p[2] + x[4];
    dp[2] = x[0] * p[1] - x[1] * p[0] + x[5];
}

// motion of an attached direction u under twist x (NULL = 0): du = x[0:3] x u
static inline void gdn_twist_dir(double du[3], const double x[6], const double u[3]) {
    if (!x) {
        du[0] = du[1] = du[2] = 0;
        return;
    }
    du[0] = x[1] * u[2] - x[2] * u[1];
    du[1] = x[2] * u[0] - x[0] * u[2];
    du[2] = x[0] * u[1] - x[1] * u[0];
}

// adjoint of gdn_twist_point: xbar[0:3] += p x dpbar, xbar[3:6] += dpbar (xbar NULL: nothing)
static inline void gdn_twist_point_adjoint(double xbar[6], const double p[3],
                                           const double dpbar[3]) {
    if (!xbar) {
        return;
    }
    xbar[0] += p[1] * dpbar[2] - p[2] * dpbar[1];
    xbar[1] += p[2] * dpbar[0] - p[0] * dpbar[2];
    xbar[2] += p[0] * dpbar[1] - p[1] * dpbar[0];
    xbar[3] += dpbar[0];
    xbar[4] += dpbar[1];
    xbar[5] += dpbar[2];
}

// adjoint of gdn_twist_dir: xbar[0:3] += u x dubar
static inline void gdn_twist_dir_adjoint(double xbar[6], const double u[3], const double dubar[3]) {
    if (!xbar) {
        return;
    }
    xbar[0] += u[1] * dubar[2] - u[2] * dubar[1];
    xbar[1] += u[2] * dubar[0] - u[0] * dubar[2];
    xbar[2] += u[0] * dubar[1] - u[1] * dubar[0];
}

// the candidate rule above, one candidate at a time: 1 (and *best = its squared distance) when
// the candidate's contact position pos is strictly nearer con->pos than *best (start: INFINITY)
static inline int gdn_candidate_nearer(const gdnContact* con, const double pos[3], double* best) {
    double gap[3] = {pos[0] - con->pos[0], pos[1] - con->pos[1], pos[2] - con->pos[2]};
    double g = gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2];
    if (g < *best) {
        *best = g;
        return 1;
    }
    return 0;
}

// size tangent component i (NULL = 0)
static inline double gdn_dsize_at(const double ds[3], int i) {
    return ds ? ds[i] : 0;
}

// size cotangent accumulation (NULL = not wanted)
static inline void gdn_size_bar_add(double sbar[3], int i, double v) {
    if (sbar) {
        sbar[i] += v;
    }
}

// closed-form pairs: plane against sphere, capsule, ellipsoid, cylinder
// (primitive_plane_derivative.c)
gdnStatus gdn_tangent_plane_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                   const double x1[6], const double x2[6], const double dsize1[3],
                                   const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_adjoint_plane_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                   const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                   double size1bar[3], double size2bar[3]);
gdnStatus gdn_tangent_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const double x1[6], const double x2[6],
                                    const double dsize1[3], const double dsize2[3],
                                    gdnPairTangent* t);
gdnStatus gdn_adjoint_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                    double size1bar[3], double size2bar[3]);
void gdn_hint_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                            double hint[3]);
gdnStatus gdn_tangent_plane_ellipsoid(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const double x1[6], const double x2[6],
                                      const double dsize1[3], const double dsize2[3],
                                      gdnPairTangent* t);
gdnStatus gdn_adjoint_plane_ellipsoid(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnPairTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]);
gdnStatus gdn_tangent_plane_cylinder(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const double x1[6], const double x2[6],
                                     const double dsize1[3], const double dsize2[3],
                                     gdnPairTangent* t);
gdnStatus gdn_adjoint_plane_cylinder(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const gdnPairTangent* tbar, double x1bar[6],
                                     double x2bar[6], double size1bar[3], double size2bar[3]);

// closed-form pairs: sphere-sphere, sphere-capsule, capsule-capsule
// (primitive_sphere_derivative.c)
gdnStatus gdn_tangent_sphere_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const double x1[6], const double x2[6],
                                    const double dsize1[3], const double dsize2[3],
                                    gdnPairTangent* t);
gdnStatus gdn_adjoint_sphere_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                    double size1bar[3], double size2bar[3]);
gdnStatus gdn_tangent_sphere_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const double x1[6], const double x2[6],
                                     const double dsize1[3], const double dsize2[3],
                                     gdnPairTangent* t);
gdnStatus gdn_adjoint_sphere_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const gdnPairTangent* tbar, double x1bar[6],
                                     double x2bar[6], double size1bar[3], double size2bar[3]);
gdnStatus gdn_tangent_capsule_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const double x1[6], const double x2[6],
                                      const double dsize1[3], const double dsize2[3],
                                      gdnPairTangent* t);
gdnStatus gdn_adjoint_capsule_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnPairTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]);

#endif
