// SPDX-License-Identifier: Apache-2.0
// Internal: tangents and adjoints of the raw contact geometry of the box pairs (plane-,
// sphere-, capsule-, box-box) and the general convex pairs (plane-mesh, MPR) with features held.
#ifndef GDN_COLLISION_BOX_DERIVATIVE_H
#define GDN_COLLISION_BOX_DERIVATIVE_H

#include <gradyn/gradyn.h>

#include "collision/convex_mpr.h"
#include "collision/narrowphase.h"

// contract: contact_derivative_pairs.h (gdnPairTangent, gdnPairTangentFn, gdnPairAdjointFn)
#include "collision/contact_derivative_pairs.h"

// Every function below takes the contact con as the collision stage left it (con->geom1,
// con->geom2 in table order, d->geom_xpos / geom_xmat at the state it was found at): x1, x2 are
// the twists of the bodies of geom1 / geom2 (world axes about the world origin, [angular;
// linear]; a geom point p moves by x[0:3] x p + x[3:6]), dsize1 / dsize2 tangents of their
// geom_size (NULL = 0). The tangent fills t; the adjoint accumulates into its outputs (NULL =
// not wanted).
//
// Which contact con is: a pair's contacts are re-derived from the poses with their features
// (the primal pair function's own branch decisions, read from its internal functions:
// box_box.h, box_capsule.h, convex_mpr.h), and con is the candidate whose
// (pos, dist) is nearest con's (max-norm), required within 1e-9 (1 + |pos|); contacts of one
// pair have distinct positions (box-box: the driver drops exact repeats), so the rule does not
// depend on the contact's index in d->contact. GDN_ERR_ARG when no candidate matches (con not
// produced by this pair at this state); GDN_ERR_UNSUPPORTED on a degenerate branch (a zero
// distance under a square root, a near-zero divisor).
//
// Each tangent is the exact derivative of the primal's arithmetic on the branch it took (its
// comparisons, clamps, minima and ties held): at a tie (two capsule ends equally close, two
// separating axes equal, a support direction exactly orthogonal to a box axis) it is the
// one-sided derivative of that branch. Known jumps of the primal itself: a box resting on a box
// with parallel faces sits at a tie of face and edge-pair axes, where MuJoCo 2.2.2's face points
// report dist = h / 2 and its edge points dist = h; MPR between polytopes changes its final
// portal (and its output by a finite amount) where a Minkowski edge lies in the search plane.
// The envelope identity d dist = n . (dp2(pos) - dp1(pos)) (motion only) holds for plane-box,
// plane-mesh, sphere-box with the center outside, capsule-box at a segment end, and box-box
// incident corners with the factor 1/2 (dist = h / 2); not for points that slide on a feature
// (clipped crossings, rectangle corners, edge-edge points, capsule second points, MPR).

// The tangent / adjoint entry points of the six pairs below are defined together in
// box_derivative_util.c from each pair's eval (gdn_*_eval further down).
gdnStatus gdn_plane_box_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                const double x1[6], const double x2[6], const double dsize1[3],
                                const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_plane_box_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                double size1bar[3], double size2bar[3]);

gdnStatus gdn_sphere_box_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const double x1[6], const double x2[6], const double dsize1[3],
                                 const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_sphere_box_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                 double size1bar[3], double size2bar[3]);

gdnStatus gdn_capsule_box_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  const double x1[6], const double x2[6], const double dsize1[3],
                                  const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_capsule_box_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                  double size1bar[3], double size2bar[3]);

gdnStatus gdn_box_box_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const double x1[6], const double x2[6], const double dsize1[3],
                              const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_box_box_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                              double size1bar[3], double size2bar[3]);

// General convex pairs (convex_derivative.c), features held:
//   plane-mesh (mjc_PlaneConvex): every contact is a mesh vertex (matched among all vertices);
//   MPR (mjc_Convex) between two polytopes (box, mesh): the final portal's support points are
//     held as the shapes' vertices (box corners move with the box's size), with the closest
//     feature of the portal triangle to the origin and the portal-position formula the primal
//     took, for margin 0 (a margin inflates the supports along the search directions: such
//     pairs go to the curved path below, the inflation a ball of radius margin / 2);
//   MPR with a curved shape (sphere, capsule, ellipsoid, cylinder against each other or a box
//     / mesh; convex_curved_derivative.c): the converged limit of the search (the ray's exit
//     from the Minkowski difference on the feature the final portal names: a point, a ruled
//     segment or a flat face), differentiated implicitly, then mjc_fixNormal's analytic
//     normals (ellipsoid fixed points by the implicit function theorem). The limit equals the
//     forward up to the MPR tolerance (O(sqrt(tolerance / curvature)) in the support points);
//     GDN_ERR_UNSUPPORTED on the configurations listed there (cylinder cap faces, ties and
//     feature boundaries, a singular limit, a forward far from the limit, a negative margin).
gdnStatus gdn_plane_mesh_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const double x1[6], const double x2[6], const double dsize1[3],
                                 const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_plane_mesh_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                 double size1bar[3], double size2bar[3]);
// 1 when contact con comes from MPR with a curved shape or a margin: its tangent is the one of
// the search's converged limit, which the forward approximates to mpr_tolerance
int gdn_contact_mpr_limit(const gdnModel* m, const gdnContact* con);
gdnStatus gdn_convex_mpr_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const double x1[6], const double x2[6], const double dsize1[3],
                                 const double dsize2[3], gdnPairTangent* t);
gdnStatus gdn_convex_mpr_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                 double size1bar[3], double size2bar[3]);

// The tangent and adjoint of the pair function the table gives type1 <= type2 (NULL when this
// file set has none: the primitive pairs are elsewhere). MPR pairs get the MPR functions, which
// send curved shapes and nonzero margins to convex_curved_derivative.c.
gdnPairTangentFn gdn_box_pair_tangent_fn(int type1, int type2);
gdnPairAdjointFn gdn_box_pair_adjoint_fn(int type1, int type2);

// The feature a contact was matched to, for tests and diagnostics (-1: no match):
//   plane-box: the corner id (bit k: +size[k]);
//   sphere-box: 0 center outside the box, 1 inside;
//   capsule-box: 10 * (closest-feature type + 3) + sphere-box feature, plus 500 for the second
//     point (type: -3 / -1 a segment end against a face, 0..8 segment-edge clamp codes);
//   box-box: 10 * kind + point class, kind 0 face of box 1, 1 face of box 2, 2 edge-edge;
//     face point class 0 incident-edge crossing of a rectangle side, 1 rectangle corner inside
//     the incident face, 2 incident corner; edge-edge class 0 side crossing, 1 rectangle
//     corner, 2 parallelogram corner;
//   plane-mesh: the mesh vertex (index in the mesh);
//   MPR: 50 when the origin lies on segment v0-v1 (no portal), else the portal triangle's
//     closest feature (0 interior, 1 + 3 k + c: segment k = ab, ac, bc at its start (c = 0),
//     end (1) or interior (2)) plus 20 when the portal position used the projection fallback;
//   MPR with a curved shape: 200 + 100 k + the limit's closest-feature code (k = 0 a point,
//     1 a segment: its clamp 0 / 1 / 2, 2 a face: the triangle code above) + 50 for the
//     projection fallback on a point or face; a refused contact 100 + reason (1 a witness
//     that fits no model, e.g. a cylinder cap centre; 2 a degenerate portal; 3 the limit not
//     found (a cylinder cap face, a flat direction); 4 the ray tangent; 5 the ray on the
//     feature's boundary; 6 a support tie that changes the feature; 7 the normal along a
//     cylinder's axis; 8 the portal's witnesses far from the limit; 9 a singular tangent
//     system; 10 the closest point at a segment end; 11 zero depth; 12 the fallback decision
//     differs at the limit; 13 the projection fallback on a segment; 14 the contact far from
//     the limit; 15 a fixNormal branch boundary; 16 a zero combined normal; 17 a singular
//     fallback system; 18 the primal's ellipsoid normal iteration at its cap; 19 a cylinder cap
//     face against more than one point, or its closest point on the portal's edge; 20 a zero
//     size or a non-finite tangent), 198 the origin
//     on segment v0-v1, 199 a negative margin.
int gdn_box_pair_feature(const gdnModel* m, const gdnData* d, const gdnContact* con);

// ---- shared by the box pair derivatives (box_derivative_util.c) ----

// one direction of the pair's inputs: twists of geom1's and geom2's bodies, size tangents
typedef struct gdnBoxDir {
    double x1[6], x2[6], ds1[3], ds2[3];
} gdnBoxDir;

// dir from the (possibly NULL) tangent arguments
void gdn_box_dir_set(gdnBoxDir* dir, const double x1[6], const double x2[6],
                     const double dsize1[3], const double dsize2[3]);

// a pair's evaluation along one direction: the matched contact's tangent and feature
typedef gdnStatus (*gdnBoxEvalFn)(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  const gdnBoxDir* dir, gdnPairTangent* t, int* feature);

// the adjoint of a linear eval: x1bar_i += <t(e_i), tbar> over the 18 input basis directions
// (those of the wanted outputs only)
gdnStatus gdn_box_adjoint_by_columns(gdnBoxEvalFn eval, const gdnModel* m, const gdnData* d,
                                     const gdnContact* con, const gdnPairTangent* tbar,
                                     double x1bar[6], double x2bar[6], double size1bar[3],
                                     double size2bar[3]);

// the pairs' evaluations (box_*_derivative.c): the tangent along dir and the matched feature
gdnStatus gdn_plane_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                             const gdnBoxDir* dir, gdnPairTangent* t, int* feature);
gdnStatus gdn_sphere_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature);
gdnStatus gdn_capsule_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                               const gdnBoxDir* dir, gdnPairTangent* t, int* feature);
gdnStatus gdn_box_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                           const gdnBoxDir* dir, gdnPairTangent* t, int* feature);
gdnStatus gdn_plane_mesh_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature);
gdnStatus gdn_convex_mpr_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature);

// motion of a point p attached to a body with twist x: dp = x[0:3] x p + x[3:6]
void gdn_box_point_motion(double dp[3], const double x[6], const double p[3]);

// GDN_OK when m, d, con are given, con's geoms are valid ids and the table sends their types
// to the collision function fn; else GDN_ERR_ARG
gdnStatus gdn_box_check(const gdnModel* m, const gdnData* d, const gdnContact* con,
                        gdnCollideFn fn);

// the margin the driver passed to the pair function of con's geoms (override, explicit pair,
// or the larger geom margin)
double gdn_box_pair_margin(const gdnModel* m, int g1, int g2);

// match score of a candidate (dist, pos) against con: max-norm difference; and the tolerance
double gdn_box_match_score(const gdnContact* con, double dist, const double pos[3]);
double gdn_box_match_tol(const gdnContact* con);

// one candidate contact with its tangent along one direction
typedef struct gdnBoxCand {
    double dist, pos[3], normal[3];
    gdnPairTangent t;
    int feature;
    int degenerate; // the tangent does not exist on this branch (GDN_ERR_UNSUPPORTED if chosen)
} gdnBoxCand;

// keep cand in *best when it matches con better (best->feature < 0: none yet)
void gdn_box_keep_nearest(gdnBoxCand* best, double* best_score, const gdnContact* con,
                          const gdnBoxCand* cand);

// the status of the chosen candidate: GDN_ERR_ARG without a match within tolerance,
// GDN_ERR_UNSUPPORTED on a degenerate branch; copies its tangent and feature
gdnStatus gdn_box_finish(const gdnBoxCand* best, double best_score, const gdnContact* con,
                         gdnPairTangent* t, int* feature);

// sphere-box (collision/box_sphere.c) with tangents: sphere center c (tangent dc), radius r
// (dr); box at b (db) with rotation R turning at angular rate w, half-sizes s (ds). Returns 1 and
// fills cand (feature 0: center outside, 1: inside) when the primal returns a contact, else 0
int gdn_sphere_box_candidate(gdnBoxCand* cand, double margin, const double c[3],
                             const double dc[3], double r, double dr, const double b[3],
                             const double db[3], const double R[9], const double w[3],
                             const double s[3], const double ds[3]);

// ---- MPR output tangents shared by the polytope and the curved paths (convex_derivative.c) ----

// tangents of a portal's support points (v = v1 - v2) and their witnesses on each shape
typedef struct gdnMprPortalTangent {
    double v[4][3], v1[4][3], v2[4][3];
} gdnMprPortalTangent;

// d unit(v) = (dv - u (u . dv)) / |v| (u = unit(v), len = |v|)
void gdn_mpr_unit_tangent(double du[3], const double u[3], const double dv[3], double len);

// tangent of the origin's closest point on segment (a, b) at the clamp where (0: a, 1: b,
// 2: interior at parameter t)
void gdn_mpr_segment_witness_tangent(const double a[3], const double b[3], const double da[3],
                                     const double db[3], int where, double t, double dw[3]);

// the origin's closest point w on triangle (a, b, c) (gdn_mpr_triangle_closest, *code its case)
// and its tangent
void gdn_mpr_triangle_witness(const double a[3], const double b[3], const double c[3],
                              const double da[3], const double db[3], const double dc[3],
                              double w[3], double dw[3], int* code);

// the primal's portal contact point (gdn_mpr_portal_weights / _witnesses) and its tangent;
// returns 1 when the projection fallback was taken
int gdn_mpr_portal_position(const gdnMprPoint p[4], const gdnMprPortalTangent* dp, double pos[3],
                            double dpos[3]);

// MPR with a curved shape (sphere, capsule, ellipsoid, cylinder; convex_curved_derivative.c):
// the tangent of the converged limit of the search, called by gdn_convex_mpr_eval
gdnStatus gdn_convex_curved_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const gdnBoxDir* dir, gdnPairTangent* t, int* feature);

// the converged limit that gdn_convex_curved_eval differentiates, for tests: dist, pos and the
// fixed normal of the limit (limit[0], [1:4], [4:7]); the status as the eval's
gdnStatus gdn_convex_curved_limit(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  double limit[7]);

#endif
