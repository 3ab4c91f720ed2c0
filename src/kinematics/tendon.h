// SPDX-License-Identifier: Apache-2.0
// Internal: tendon lengths, velocities and Jacobians (MuJoCo 2.2.2's mj_tendon: fixed tendons,
// spatial tendons through sites and pulleys).
#ifndef GDN_KINEMATICS_TENDON_H
#define GDN_KINEMATICS_TENDON_H

#include <gradyn/gradyn.h>

// ten_length, ten_velocity, ten_J (dense ntendon x nv), ten_wrapadr, ten_wrapnum, wrap_obj,
// wrap_xpos of every tendon at d->qpos, d->qvel (needs the site frames). A fixed tendon's
// length is sum_k coef_k q_k over its joints (hinge or slide: the loader refuses others), its
// Jacobian coef_k at each joint's dof (constant), its velocity ten_J qvel; it has no path
// points. A spatial tendon's length is sum over its segments of |p1 - p0| / divisor, its
// Jacobian the segments' unit directions times the difference of the point Jacobians, over the
// divisor (segments within one body add length, no Jacobian). Arena: 6 nv doubles for spatial
// tendons (exhausted: NaN tendons, GDN_WARN_ARENA counted)
void gdn_tendon(const gdnModel* m, gdnData* d);

// a fixed tendon's length and velocity at (qpos, qvel) (either may be NULL: that output 0),
// in the order gdn_tendon sums them: the derivatives read the primal's values from here,
// whatever d's tendon arrays hold (a replayed step may not have refreshed them)
void gdn_tendon_fixed_value(const gdnModel* m, int t, const double* qpos, const double* qvel,
                            double* length, double* velocity);

// 1 when every tendon is fixed (a constant ten_J)
int gdn_tendon_all_fixed(const gdnModel* m);

#endif
