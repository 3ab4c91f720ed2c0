// SPDX-License-Identifier: Apache-2.0
// Internal: the models whose inertia-parameter derivative (dparam, gparam, dJ/dpi) is refused.
#ifndef GDN_GRADIENT_PARAM_REFUSAL_H
#define GDN_GRADIENT_PARAM_REFUSAL_H

#include <gradyn/gradyn.h>

// the reason the inertia-parameter channel of m is refused (the fluid's inertia-box law at a
// body with two equal principal moments: GDN_FLUID_PARAM_REFUSAL, dynamics/fluid.h), NULL when
// it is not (the muscles scaled by actuator_acc0 are
// differentiated through acc0: constraint/setconst_derivative.h)
const char* gdn_param_refusal(const gdnModel* m);

#endif
