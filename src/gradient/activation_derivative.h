// SPDX-License-Identifier: Apache-2.0
// Internal: the activation part of a step's derivatives (docs/derivatives.md). The force laws'
// derivatives (dynamics/force_derivative.h) take one input tangent per actuator, du: its
// control's for a stateless actuator, its act's for a stateful one; these functions build that
// vector from (dctrl, dact), split its cotangent back, and differentiate the update
//   act' = clamp(act + h act_dot(c, act)),  c = the clamped control (0 after a bad one).
#ifndef GDN_GRADIENT_ACTIVATION_DERIVATIVE_H
#define GDN_GRADIENT_ACTIVATION_DERIVATIVE_H

#include <gradyn/gradyn.h>

// du (nu) = dctrl on the stateless actuators, dact on the stateful ones (NULL inputs: zero)
void gdn_actuator_input_tangent(const gdnModel* m, const double* dctrl, const double* dact,
                                double* du);

// the update's partials at d's act and ctrl: per activation j (actuator i = nu - na + j)
//   d act'_j = keep_j (ga_j d act_j + gc_j d ctrl_i),  ga = 1 + h d act_dot / d act,
//   gc = h d act_dot / d c (0 where ctrlrange clamps the control or every control is bad)
// into ga, gc (na each); keep (na) = 0 where actrange holds act'
void gdn_act_update_partials(const gdnModel* m, const gdnData* d, double* ga, double* gc,
                             double* keep);

// act_dot (value, na; NULL: not wanted) at d's act and ctrl, as the actuation stage computes
// it, and its partials: fa (na) = d act_dot / d act, fc (na) = d act_dot / d ctrl (0 where
// ctrlrange clamps the control, every control is bad or actuation is off)
void gdn_act_dot_partials(const gdnModel* m, const gdnData* d, double* value, double* fa,
                          double* fc);

// dact_next (na) = the update's tangent; ga, gc, keep from gdn_act_update_partials
void gdn_act_update_jvp(const gdnModel* m, const double* ga, const double* gc,
                        const double* keep, const double* dctrl, const double* dact,
                        double* dact_next);

// the cotangents from gu (nu, the force laws' input cotangent) and gact_next (na, NULL: 0):
// gctrl (nu) = gu on the stateless actuators, the update's share on the stateful ones;
// gact (na) = gu of its actuator + the update's share. Either output may be NULL; gctrl must
// not alias gu.
void gdn_act_update_vjp(const gdnModel* m, const double* ga, const double* gc,
                        const double* keep, const double* gu, const double* gact_next,
                        double* gctrl, double* gact);

#endif
