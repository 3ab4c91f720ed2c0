// SPDX-License-Identifier: Apache-2.0
// Applied forces in joint space (qfrc_applied plus Cartesian xfrc_applied mapped through J')
// and the force sum of the smooth dynamics.
#ifndef GDN_DYNAMICS_APPLIED_H
#define GDN_DYNAMICS_APPLIED_H

#include <gradyn/gradyn.h>

// qfrc += qfrc_applied + sum_b J_b' xfrc_applied[b], where xfrc_applied[b] = [force; torque] in
// the world frame acting at the body COM (xipos); needs kinematics
void gdn_applied_forces(const gdnModel* m, gdnData* d, double* qfrc);

// the force sum of the smooth dynamics without contact: refreshes d->qfrc_passive and the
// actuator outputs (gdn_passive, gdn_actuation), then
//   tau = qfrc_passive + qfrc_actuator + qfrc_applied + sum_b J_b' xfrc_applied[b]
// (tau: nv, overwritten); needs kinematics. The step adds the penalty contact (sim/pipeline.c),
// the residual its wrenches W (gradient/residual.c)
void gdn_force_sum(const gdnModel* m, gdnData* d, double* tau);

#endif
