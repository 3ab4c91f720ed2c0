// SPDX-License-Identifier: Apache-2.0
// Internal: the tree intermediates (dof motion axes, body inertias, body velocities) about a
// reference point per tree: MuJoCo's com frame, or the world origin of the derivatives.
#ifndef GDN_DYNAMICS_COM_H
#define GDN_DYNAMICS_COM_H

#include <gradyn/gradyn.h>

// Frames (docs/conventions.md): a spatial quantity of body b (and of its dofs) is in world axes
// about a reference point, [angular; linear]. With com != 0 the point is subtree_com of b's
// tree root (body_rootid), MuJoCo's "com" frame of d->cdof, d->cinert, d->cvel, d->cdof_dot,
// d->cacc and d->cfrc_int; with com == 0 it is the world origin (the derivatives' frame,
// gradient/body_tangent.h). Everything needs kinematics.

// S (6 x nv): the motion axis of every dof (gdn_dof_axis, kinematics/jacobian.h)
void gdn_dof_axes_about(const gdnModel* m, const gdnData* d, int com, double* S);

// cinert (10 x nbody): each body's inertia about the reference point (world body zero)
void gdn_body_inertias_about(const gdnModel* m, const gdnData* d, int com, double* cinert);

// the position stage of the tree (MuJoCo's mj_comPos after the kinematics): d->cdof, d->cinert
void gdn_com_pos(const gdnModel* m, gdnData* d);

// the velocities in the frame of the axes S (6 x nv, either frame above):
//   cvel (6 x nbody): v_0 = 0, v_b = v_parent + sum_j S_j qvel_j over the body's dofs in order;
//   cdof_dot (6 x nv): cdof_dot_j = v_(before j) x S_j, with v_(before j) the velocity of the
//   frame the axis is fixed in (0 for the constant free translation axes; NULL = not wanted);
//   vpre (6 x nv, NULL = not wanted): that v_(before j)
void gdn_com_vel(const gdnModel* m, const gdnData* d, const double* S, double* cvel,
                 double* cdof_dot, double* vpre);

#endif
