// SPDX-License-Identifier: Apache-2.0
// Internal: the collision skin of one primitive geom (its body-frame points for penalty contact),
// shared by the loader and the geom-size setter so both give the same doubles.
#ifndef GDN_MODEL_GEOM_SKIN_H
#define GDN_MODEL_GEOM_SKIN_H

#include <gradyn/model.h>

#define GDN_GEOM_SKIN_MAX 16 // points of the largest primitive skin (cylinder: 2 rims of 8)

// 1 when a geom gets a skin: on a body (not the world), colliding (contype or conaffinity), and
// neither a plane nor a height field
int gdn_geom_skinned(int body, int contype, int conaffinity, int type);

// the skin of a primitive geom in the body frame, pos + R(quat) p for its shape points p
// (docs/contact_penalty.md): box 8 corners; sphere, ellipsoid the 6 points +-size_k e_k;
// capsule the 2 poles and 4 points around each end; cylinder 8 points on each rim. Writes
// out (GDN_GEOM_SKIN_MAX x 3) and returns the count; 0 for a plane or height field, -1 for a
// mesh (its skin is its compiled vertices)
int gdn_geom_skin_points(int type, const double size[3], const double pos[3],
                         const double quat[4], double* out);

#endif
