// SPDX-License-Identifier: Apache-2.0
// Internal: 3D convex hull of a point set (Qhull) in MuJoCo's hull-graph layout.
#ifndef GDN_MODEL_HULL_H
#define GDN_MODEL_HULL_H

#include <gradyn/gradyn.h>

// a triangulated convex hull and its vertex adjacency, in the mesh_graph layout of model.h:
//   graph = [nvert, nface, edgeadr (nvert), vert (nvert), edge (nvert + 3 nface),
//            face (3 nface)]
// vert and face hold input point ids; edge holds, for each hull vertex in turn, the local
// (index into vert) ids of its neighbours followed by -1. The order is Qhull's (the vertex list,
// each vertex's facet set, each facet's vertex set), which is the order MuJoCo 2.2.2's graph has:
// the hill-climbing support search of the convex collision visits vertices in this order, so
// ties resolve as MuJoCo's do.
typedef struct gdnHull {
    int nvert;  // hull vertices
    int nface;  // triangles
    int* graph; // gdn_hull_graph_size ints
    int* vert;  // (nvert) input point ids, inside graph
    int* face;  // (nface x 3) input point ids, counter-clockwise seen from outside, inside graph
} gdnHull;

// hull of n points (n x 3) by Qhull with options "Qt" (triangulated output), as MuJoCo builds
// its mesh graphs. GDN_ERR_MODEL with the cause in cause when there are fewer than 4 points,
// non-finite ones, or no volume (all coincident, collinear or coplanar), or when Qhull reports
// an error (its message is kept); GDN_ERR_MEMORY. Free with gdn_hull_free
gdnStatus gdn_hull_build(const double* points, int n, gdnHull* hull, char* cause,
                         int cause_size);

void gdn_hull_free(gdnHull* hull);

// ints of the hull graph: 2 + 3 nvert + 6 nface
int gdn_hull_graph_size(const gdnHull* hull);

// copy of the graph (gdn_hull_graph_size ints)
void gdn_hull_graph(const gdnHull* hull, int* graph);

#endif
