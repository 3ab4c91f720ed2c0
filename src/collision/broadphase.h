// SPDX-License-Identifier: Apache-2.0
// Broad phase: the body pairs whose geoms may touch, sorted by signature (deterministic).
#ifndef GDN_COLLISION_BROADPHASE_H
#define GDN_COLLISION_BROADPHASE_H

#include <gradyn/gradyn.h>

// body-pair signature, b1 < b2: ((b1 + 1) << 16) + b2 + 1 (MuJoCo's, as pair/exclude_signature)
static inline int gdn_body_pair_signature(int b1, int b2) {
    return ((b1 + 1) << 16) + b2 + 1;
}

// Candidate body pairs as signatures, increasing, each once, written to pairs (room for
// nbody (nbody - 1) / 2); returns their number, or -1 when the arena is exhausted.
// The pairs (MuJoCo 2.2.2's mj_broadphase, with world-axis boxes instead of its covariance
// frame: both keep every pair whose bounding spheres + margins overlap):
//   - a collidable body (a geom with contype or conaffinity) that is the world with geoms, or
//     is welded to the world and has a plane, with every other body;
//   - collidable bodies b1, b2 > 0 whose boxes overlap as closed intervals in x, y and z
//     (nbody <= 64: every pair tested; larger models: sweep and prune along x, then y, z),
//     box = union over the body's geoms of geom_xpos +- (geom_rbound + geom_margin); when both
//     have exactly one geom, only if contype/conaffinity are compatible.
// Needs kinematics (geom_xpos).
int gdn_broadphase(const gdnModel* m, gdnData* d, int* pairs);

#endif
