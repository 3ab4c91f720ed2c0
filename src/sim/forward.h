// SPDX-License-Identifier: Apache-2.0
// Internal: the smooth (non-bias) generalized forces shared by gdn_forward and gdn_step.
#ifndef GDN_SIM_FORWARD_H
#define GDN_SIM_FORWARD_H

#include <gradyn/gradyn.h>

// fills d->qfrc_passive, the actuator outputs and
//   tau = qfrc_passive + qfrc_actuator + qfrc_applied + sum_b J_b' xfrc_applied_b
//         (+ qfrc_penalty when m->penalty.enabled, contact/penalty.h);
// needs kinematics. GDN_ERR_ARG / GDN_ERR_MEMORY from the penalty stage (data created for
// another vertex count, arena exhausted), and then tau is NaN
gdnStatus gdn_smooth_forces(const gdnModel* m, gdnData* d, double* tau);

// 1 when every entry of x (n) is finite
int gdn_all_finite(const double* x, int n);

#endif
