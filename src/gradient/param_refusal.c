// SPDX-License-Identifier: Apache-2.0
// The models whose inertia-parameter derivative is refused, and why.
#include "gradient/param_refusal.h"

#include "dynamics/fluid.h"

const char* gdn_param_refusal(const gdnModel* m) {
    return gdn_fluid_param_refusal(m);
}
