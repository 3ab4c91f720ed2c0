// SPDX-License-Identifier: Apache-2.0
// Body velocities and body wrenches in world axes about the world origin (gradient/body_tangent.h).
#ifndef GDN_PENALTY_BODY_WRENCH_H
#define GDN_PENALTY_BODY_WRENCH_H

#include <gradyn/gradyn.h>

// motion axis of dof j in world axes about the world origin: S_j = [jr; jp(origin)] with jr, jp
// the point-Jacobian columns of gdn_jac_dof_column; needs kinematics
void gdn_dof_motion_axis(const gdnModel* m, const gdnData* d, int dof, double S[6]);

// V (6 x nbody): body spatial velocities [w; v_O], V_0 = 0, V_b = V_parent(b) + sum_j S_j qvel_j
// over the dofs of b; an attached point x moves with xdot = w x x + v_O; needs kinematics
void gdn_body_velocities(const gdnModel* m, const gdnData* d, double* V);

// qfrc[j] += S_j' Wsub_body(j), Wsub_b = sum of W over the subtree of b: the generalized force
// sum_b J_b' W_b of the wrenches W (6 x nbody, [torque about the origin; force], world).
// scratch: 6 * nbody doubles (may not alias W); needs kinematics
void gdn_body_wrench_qfrc(const gdnModel* m, const gdnData* d, const double* W, double* scratch,
                          double* qfrc);

#endif
