// SPDX-License-Identifier: Apache-2.0
// Internal: install the convex meshes of a model at once (model producers: loader, test oracle).
#ifndef GDN_MODEL_MESH_MODEL_H
#define GDN_MODEL_MESH_MODEL_H

#include <gradyn/gradyn.h>

// one mesh as its producer holds it
typedef struct gdnMeshInput {
    int nvert;          // vertices
    const double* vert; // (nvert x 3) in the mesh frame
    int nface;          // triangles
    const int* face;    // (nface x 3) vertex ids
    int ngraph;         // ints of the hull graph (0: none)
    const int* graph;   // mesh_graph layout (include/gradyn/model.h)
} gdnMeshInput;

// m->mesh_* <- copies of the nmesh meshes (one allocation, mesh_buffer_; replaces any earlier
// one). GDN_ERR_ARG for a negative count or an index out of range, GDN_ERR_MEMORY when
// allocation fails (the model is then unchanged)
gdnStatus gdn_model_set_meshes(gdnModel* m, int nmesh, const gdnMeshInput* meshes);

#endif
