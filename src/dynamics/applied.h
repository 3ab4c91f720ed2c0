// SPDX-License-Identifier: Apache-2.0
// Applied forces in joint space: qfrc_applied plus Cartesian xfrc_applied mapped through J'.
#ifndef GDN_DYNAMICS_APPLIED_H
#define GDN_DYNAMICS_APPLIED_H

#include <gradyn/gradyn.h>

// qfrc += qfrc_applied + sum_b J_b' xfrc_applied[b], where xfrc_applied[b] = [force; torque] in
// the world frame acting at the body COM (xipos); needs kinematics
void gdn_applied_forces(const gdnModel* m, gdnData* d, double* qfrc);

#endif
