// SPDX-License-Identifier: Apache-2.0
// Sphere-box contact from explicit poses: shared by sphere-box and capsule-box.
#ifndef GDN_COLLISION_BOX_SPHERE_H
#define GDN_COLLISION_BOX_SPHERE_H

#include <gradyn/contact.h>

// contact between a sphere (center, radius) and a box (center box_pos, rotation box_mat,
// half-sizes size) when their distance is <= margin: writes con[0] (dist, pos, normal from the
// sphere to the box, zero tangent hint) and returns 1, else returns 0 (MuJoCo 2.2.2's _SphereBox)
int gdn_sphere_box_contact(gdnContact* con, double margin, const double center[3], double radius,
                           const double box_pos[3], const double box_mat[9],
                           const double size[3]);

#endif
