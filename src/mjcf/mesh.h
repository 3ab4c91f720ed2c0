// SPDX-License-Identifier: Apache-2.0
// Mesh assets compiled as MuJoCo 2.2.2 compiles them: float vertices, hull, inertia, frame.
#ifndef GDN_MJCF_MESH_H
#define GDN_MJCF_MESH_H

#include "mjcf/spec.h"

// index of the mesh asset called name, -1 when there is none
int gdn_mjcf_mesh_find(const gdnSpec* spec, const char* name);

// compile every mesh asset (before the geoms): read the file or the inline data, hull graph
// for meshes used by colliding mesh geoms (and for meshes without faces), then MuJoCo's
// processing in its order and float32 arithmetic: v -= refpos, v = R(refquat)' v,
// v .* scale; centre of mass and inertia of the faces (pyramids from the area-weighted face
// centroid; |volume| unless exactmeshinertia); v -= com; v = R(principal)' v; aabb.
// A mesh whose volume or inertia is degenerate is reported only when a geom uses it (as
// MuJoCo does). 0 ok, -1 after an error (spec->diag)
int gdn_mjcf_compile_meshes(gdnSpec* spec);

// a geom that names a mesh, after its own frame is final: a mesh geom takes the mesh's frame
// (pos += R(quat) com, quat = quat * principal), size = aabb, meshid, mesh_volume (the
// exact volume, or 8 bx by bz of the inertia box by default) and mesh_boxsz; a primitive
// geom is fitted to the mesh's inertia box (MuJoCo's fitaabb="false" rule) and scaled by
// fitscale. 0 ok (also for a geom without a mesh), -1 after an error
int gdn_mjcf_mesh_geom(gdnSpec* spec, gdnSpecGeom* g);

// m->mesh_* <- the compiled meshes (vertices as the doubles of their floats), geom_dataid
// and the geom_rbound of mesh geoms (|aabb|). 0 ok, -1 after an error
int gdn_mjcf_fill_meshes(gdnSpec* spec, const int* geom_order, gdnModel* m);

#endif
