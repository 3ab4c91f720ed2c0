// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent of mjc_fixNormal's analytic normal of one curved geom at a contact
// point (collision/convex_normal.c's per-geom step), for the curved MPR derivative.
#ifndef GDN_COLLISION_CONVEX_CURVED_NORMAL_DERIVATIVE_H
#define GDN_COLLISION_CONVEX_CURVED_NORMAL_DERIVATIVE_H

// one geom at its world pose with its tangents: a point attached to it moves by x[0:3] x p +
// x[3:6]; ds its geom_size tangent
typedef struct gdnCurvedGeom {
    int type;
    const double *p, *R, *size;
    const double* x;  // body twist (6)
    const double* ds; // geom size tangent (3)
} gdnCurvedGeom;

// the analytic outward normal of geom s at the world point pos (tangent dpos), the MPR normal
// nrm (world, outward of s) on entry as the primal takes it: *out (unit, world) and its tangent.
// Sphere, capsule (the segment's clamp held), cylinder side, ellipsoid (inside: the fixed point
// of the primal's ray iteration; outside: the root of its Newton), each differentiated at its
// exact fixed point by the implicit function theorem. Returns 1 processed, 0 not processed (the
// primal leaves the normal), -1 refused (within 1e-9 of a branch boundary, or no fixed point)
int gdn_curved_fixed_normal(const gdnCurvedGeom* s, const double pos[3], const double dpos[3],
                            const double nrm[3], double out[3], double dout[3]);

// the branch the primal's step takes for geom s at the world point pos: capsule clamp region
// (1, 2, 3), ellipsoid inside / outside (4, 5), else 0
int gdn_curved_fixed_branch(const gdnCurvedGeom* s, const double pos[3]);

#endif
