// SPDX-License-Identifier: Apache-2.0
// Internal: the passive and actuator force stages without the public entries' checks (for the
// pipeline, which checked its inputs once), and the rotation-vector helpers shared by joint
// springs, energy and ball actuators.
#ifndef GDN_DYNAMICS_PASSIVE_H
#define GDN_DYNAMICS_PASSIVE_H

#include <gradyn/gradyn.h>

// gdn_passive and gdn_actuation for a model and data known to match
void gdn_passive_forces(const gdnModel* m, gdnData* d);
void gdn_actuator_forces(const gdnModel* m, gdnData* d);

// actuator i's force for an input (its clamped control, or its act), at a transmission length
// and velocity: the gain and bias laws and the force clamp (dynamics/actuation.c)
// out (nv) += moment_i' force: actuator i's moment row (the transmission's) times force
void gdn_actuator_moment_add(const gdnModel* m, const gdnData* d, double* out, int i,
                             double force);

double gdn_actuator_force_law(const gdnModel* m, int i, double input, double length,
                              double velocity);

// rotation vector of a unit quaternion, angle wrapped into (-pi, pi]:
//   res = axis * 2 atan2(|v|, w), minus 2 pi when that exceeds pi (MuJoCo's mju_quat2Vel, dt 1)
void gdn_quat2vel(double res[3], const double quat[4]);

// spring displacement of a quaternion: res with q_spring * exp(res) = q (MuJoCo's mju_subQuat)
void gdn_quat_spring_dif(double res[3], const double q[4], const double q_spring[4]);

#endif
