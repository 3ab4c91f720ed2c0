// SPDX-License-Identifier: Apache-2.0
// Internal building blocks of the closed-form pairs (plane-sphere, sphere-sphere at given poses).
#ifndef GDN_COLLISION_PRIMITIVE_H
#define GDN_COLLISION_PRIMITIVE_H

#include <gradyn/contact.h>

// plane (origin pos1, normal = z column of mat1) against a sphere of the given radius centred
// at pos2: 0 or 1 contact written to con (normal, dist, pos; frame[3:6] zeroed)
int gdn_plane_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                        const double* pos2, double radius);

// sphere (pos1, r1) against sphere (pos2, r2): 0 or 1 contact; normal from 1 to 2, or, for
// coincident centres, unit(z1 x z2) with z the third columns of mat1 and mat2 (then (1, 0, 0)
// when those are parallel)
int gdn_sphere_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                         double r1, const double* pos2, const double* mat2, double r2);

#endif
