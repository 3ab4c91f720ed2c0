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

// the decisions of gdn_sphere_box_contact, shared with its derivative: clamped = local clamped
// into the box (axes with size > 0), side[i] = -1 / +1 where axis i was clamped to -+size, else
// 0; and for a center inside, the nearest face 0..5 (axis face / 2, the +size side when odd),
// first wins, with its distance *closest
void gdn_sphere_box_clamp(const double local[3], const double size[3], double clamped[3],
                          int side[3]);
int gdn_sphere_box_face(const double local[3], const double size[3], double* closest);

#endif
