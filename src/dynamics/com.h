// SPDX-License-Identifier: Apache-2.0
// Internal: world-frame motion axes, body inertias and velocities about each tree's COM.
#ifndef GDN_DYNAMICS_COM_H
#define GDN_DYNAMICS_COM_H

#include <gradyn/gradyn.h>

// Every spatial quantity of body b (and of its dofs) is expressed in world axes about the
// reference point subtree_com[body_rootid[b]], MuJoCo's "com" frame. Needs kinematics.

// cdof (6 x nv): the motion axis of each dof (hinge: [axis; axis x (ref - anchor)], slide:
// [0; axis], ball and free rotation: the body's xmat columns through the anchor, free
// translation: the world axes)
void gdn_com_dofs(const gdnModel* m, const gdnData* d, double* cdof);

// cinert (10 x nbody): each body's inertia about the reference point (world body zero)
void gdn_com_inertias(const gdnModel* m, const gdnData* d, double* cinert);

// cvel (6 x nbody): body velocities; cdof_dot (6 x nv): the time derivative of each motion
// axis, cdof_dot_j = v_(before j) x cdof_j with v_(before j) the velocity of the frame the
// axis is fixed in (free translation axes are constant)
void gdn_com_vel(const gdnModel* m, const gdnData* d, const double* cdof, double* cvel,
                 double* cdof_dot);

#endif
