// SPDX-License-Identifier: Apache-2.0
// Internal: the models whose inertia-parameter derivative (dparam, gparam, dJ/dpi) is refused.
#ifndef GDN_GRADIENT_PARAM_REFUSAL_H
#define GDN_GRADIENT_PARAM_REFUSAL_H

#include <gradyn/gradyn.h>

// A muscle with force < 0 has the peak force scale / actuator_acc0, and acc0 = |M^-1 moment|
// at qpos0 moves with the inertias (the inertia setters recompute it, as MuJoCo's mj_setConst
// does): that share of the derivative is not written
#define GDN_MUSCLE_PARAM_REFUSAL \
    "inertia-parameter derivative of a muscle's force scale (force < 0: scale / actuator_acc0)"

// the reason the inertia-parameter channel of m is refused (the fluid law's
// GDN_FLUID_PARAM_REFUSAL, GDN_MUSCLE_PARAM_REFUSAL), NULL when it is not
const char* gdn_param_refusal(const gdnModel* m);

#endif
