// SPDX-License-Identifier: Apache-2.0
// Body velocities and body wrenches in world axes about the world origin
// (kinematics/kinematics_derivative.h).
#ifndef GDN_DYNAMICS_BODY_WRENCH_H
#define GDN_DYNAMICS_BODY_WRENCH_H

#include <gradyn/gradyn.h>

// V (6 x nbody): body spatial velocities [w; v_O] about the world origin (gdn_com_vel on the
// world-origin axes, which go to S, 6 x nv); an attached point x moves with xdot = w x x + v_O;
// needs kinematics
void gdn_body_velocities(const gdnModel* m, const gdnData* d, double* S, double* V);

// qfrc[j] += S_j' Wsub_body(j), Wsub_b = sum of W over the subtree of b: the generalized force
// sum_b J_b' W_b of the wrenches W (6 x nbody, [torque about the origin; force], world), S_j
// the world-origin axis of dof j (gdn_dof_axis). scratch: 6 * nbody doubles (may not alias
// W); needs kinematics
void gdn_body_wrench_qfrc(const gdnModel* m, const gdnData* d, const double* W, double* scratch,
                          double* qfrc);

#endif
