// SPDX-License-Identifier: Apache-2.0
// Internal: 3D convex hull of a point set (quickhull) and MuJoCo's hull-graph layout.
#ifndef GDN_COLLISION_HULL_H
#define GDN_COLLISION_HULL_H

#include <gradyn/gradyn.h>

// a triangulated convex hull; ids index the input points
typedef struct gdnHull {
    int nvert; // hull vertices
    int* vert; // (nvert) input point ids, ascending
    int nface; // triangles
    int* face; // (nface x 3) input point ids, counter-clockwise seen from outside
} gdnHull;

// hull of n points (n x 3). Points within a relative 1e-10 of the hull's extent of a face plane
// count as on it (duplicates and coplanar points are never vertices twice). GDN_ERR_MODEL with
// the cause in cause when fewer than 4 points, non-finite, all coincident, collinear or
// coplanar (no volume); GDN_ERR_MEMORY. Free with gdn_hull_free
gdnStatus gdn_hull_build(const double* points, int n, gdnHull* hull, char* cause,
                         int cause_size);

void gdn_hull_free(gdnHull* hull);

// ints of the hull graph: 2 + 3 nvert + 6 nface
int gdn_hull_graph_size(const gdnHull* hull);

// the graph in model.h's mesh_graph layout (vertex ids = input point ids); graph holds
// gdn_hull_graph_size ints
void gdn_hull_graph(const gdnHull* hull, int* graph);

#endif
