// SPDX-License-Identifier: Apache-2.0
// Internal: ray casting against geoms (MuJoCo 2.2.2's mj_ray, mju_rayGeom, mj_rayMesh).
#ifndef GDN_COLLISION_RAY_H
#define GDN_COLLISION_RAY_H

#include <gradyn/gradyn.h>

// the distance x >= 0 along the ray pnt + x vec (vec not necessarily unit: x in its units) to
// a primitive of type (plane, sphere, capsule, ellipsoid, cylinder, box) at pos with
// orientation mat and geom sizes; -1 when the ray misses (or for another type)
double gdn_ray_geom(const double pos[3], const double mat[9], const double size[3],
                    const double pnt[3], const double vec[3], int type);

// the nearest geom hit by the ray, over every geom except those of body bodyexclude and the
// transparent ones (rgba alpha 0), static geoms included (mj_ray with no group mask and
// flg_static 1); its distance, -1 when nothing is hit; *geomid its id (-1). Meshes by their
// triangles after the bounding box; height fields are not loaded by gradyn
double gdn_ray(const gdnModel* m, const gdnData* d, const double pnt[3], const double vec[3],
               int bodyexclude, int* geomid);

// the triangle (a mesh_face index) of mesh geom `geom` the ray hits nearest, -1 for a miss or
// another geom type
int gdn_ray_mesh_face(const gdnModel* m, const gdnData* d, int geom, const double pnt[3],
                      const double vec[3]);

#endif
