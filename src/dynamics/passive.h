// SPDX-License-Identifier: Apache-2.0
// Internal: the rotation-vector helpers shared by joint springs, energy and ball actuators.
#ifndef GDN_DYNAMICS_PASSIVE_H
#define GDN_DYNAMICS_PASSIVE_H

// rotation vector of a unit quaternion, angle wrapped into (-pi, pi]:
//   res = axis * 2 atan2(|v|, w), minus 2 pi when that exceeds pi (MuJoCo's mju_quat2Vel, dt 1)
void gdn_quat2vel(double res[3], const double quat[4]);

// spring displacement of a quaternion: res with q_spring * exp(res) = q (MuJoCo's mju_subQuat)
void gdn_quat_spring_dif(double res[3], const double q[4], const double q_spring[4]);

#endif
