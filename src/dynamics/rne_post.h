// SPDX-License-Identifier: Apache-2.0
// Internal: the body accelerations and interaction forces after the constraint solve (MuJoCo
// 2.2.2's mj_rnePostConstraint), for the acceleration-stage sensors.
#ifndef GDN_DYNAMICS_RNE_POST_H
#define GDN_DYNAMICS_RNE_POST_H

#include <gradyn/gradyn.h>

// In the com frame (docs/conventions.md), from the kinematics, d->cdof, d->cinert, qvel, qacc
// (nv: the solved acceleration) and the solved constraint forces in d:
//   cvel, cdof_dot     recomputed (mj_comVel)
//   cfrc_ext_b         xfrc_applied at xipos, minus / plus each contact's wrench on body 1 / 2
//                      at its point, plus / minus each connect and weld row force at its anchor
//                      on body 1 / 2 (MuJoCo 2.2.2's signs), moved to subtree_com of the root
//   cacc_b             = cacc_parent + sum_j cdof_dot_j qvel_j + sum_j cdof_j qacc_j,
//                        cacc_0 = [0; -gravity]
//   cfrc_int_b         = sum over the subtree of (cinert cacc + cvel x* (cinert cvel) - cfrc_ext)
void gdn_rne_post_constraint(const gdnModel* m, gdnData* d, const double* qacc);

// MuJoCo's mju_transformSpatial: a motion (flg_force 0) or force (1) vec about oldpos moved to
// newpos, then rotated into the frame rot (world-to-local by rot', NULL: world axes)
void gdn_transform_spatial(double res[6], const double vec[6], int flg_force,
                           const double newpos[3], const double oldpos[3], const double* rot);

#endif
