// SPDX-License-Identifier: Apache-2.0
// Internal: support functions of convex geoms and the MPR penetration query (MuJoCo 2.2.2's
// mjc_Convex path through libccd's ccdMPRPenetration, re-implemented).
#ifndef GDN_COLLISION_CONVEX_H
#define GDN_COLLISION_CONVEX_H

#include <gradyn/gradyn.h>

// one convex shape in the world: a geom at its world pose, inflated by margin / 2
typedef struct gdnConvexObj {
    const gdnModel* m;
    const double* pos; // world position (3)
    const double* mat; // world orientation (9, row-major, columns = geom axes)
    int geom;          // geom id (type, size, mesh data)
    double margin;     // the support point moves by dir * margin / 2
    int meshindex;     // last support vertex of a mesh (graph-local id with a graph), else -1
} gdnConvexObj;

// support point of obj in the world direction dir (unit): the shape's farthest point along dir,
// plus dir * margin / 2, in world coordinates. Sphere, capsule, ellipsoid, cylinder, box, mesh
// as MuJoCo's mjccd_support (meshes: hill-climbing over mesh_graph when present, else every
// vertex); records the mesh vertex in obj->meshindex
void gdn_convex_support(gdnConvexObj* obj, const double dir[3], double out[3]);

// MPR options and result
typedef struct gdnMprResult {
    double depth;  // penetration depth of the inflated shapes along dir
    double dir[3]; // unit direction from obj1 to obj2 (zero when the contact is touching)
    double pos[3]; // contact point: the mean of the two shapes' witness points
} gdnMprResult;

// Minkowski Portal Refinement penetration of obj1 and obj2 (centres = their world positions),
// libccd 2.1's algorithm step for step: portal discovery, refinement, then expansion until the
// support gain is below tolerance or iterations are used up. Returns 1 when the shapes
// intersect (res filled), 0 when they do not
int gdn_mpr_penetration(gdnConvexObj* obj1, gdnConvexObj* obj2, int max_iterations,
                        double tolerance, gdnMprResult* res);

// the outward normal of geom g at the local point pos (nrm holds the local MPR normal on entry,
// the analytic normal on return, not normalized): mjc_fixNormal's per-geom step. Returns 1 when
// an analytic normal was found; *settled 0 when an ellipsoid's iteration stopped at its cap
// (not at its fixed point)
int gdn_convex_local_normal(const gdnModel* m, int g, const double pos[3], double nrm[3],
                            int* settled);

// MuJoCo's mjc_fixNormal: replace the MPR normal by the analytic surface normal of a sphere,
// capsule, ellipsoid or cylinder side at the contact point (averaged when both geoms have one)
void gdn_convex_fix_normal(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2);

#endif
