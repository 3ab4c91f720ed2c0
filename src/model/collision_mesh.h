// SPDX-License-Identifier: Apache-2.0
// Internal: install every body's collision mesh at once (model producers such as the loader).
#ifndef GDN_MODEL_COLLISION_MESH_H
#define GDN_MODEL_COLLISION_MESH_H

#include <gradyn/gradyn.h>

// vert_pos <- a copy of verts (sum(body_vertnum) x 3, grouped by body in body order),
// body_vertadr / body_vertnum / nvert filled. GDN_ERR_ARG for a negative count or a total
// beyond INT_MAX / 3, GDN_ERR_MEMORY when allocation fails (the model is then unchanged)
gdnStatus gdn_model_set_vertices(gdnModel* m, const double* verts, const int* body_vertnum);

#endif
