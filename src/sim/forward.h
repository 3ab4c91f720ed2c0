// SPDX-License-Identifier: Apache-2.0
// Internal: the smooth (non-bias) generalized forces shared by gdn_forward and gdn_step.
#ifndef GDN_SIM_FORWARD_H
#define GDN_SIM_FORWARD_H

#include <gradyn/gradyn.h>

// fills d->qfrc_passive, the actuator outputs and
//   tau = qfrc_passive + qfrc_actuator + qfrc_applied + sum_b J_b' xfrc_applied_b;
// needs kinematics
void gdn_smooth_forces(const gdnModel* m, gdnData* d, double* tau);

// 1 when every entry of x (n) is finite
int gdn_all_finite(const double* x, int n);

#endif
