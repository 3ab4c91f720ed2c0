// SPDX-License-Identifier: Apache-2.0
// The models whose inertia-parameter derivative is refused, and why.
#include "gradient/param_refusal.h"

#include "dynamics/fluid.h"

const char* gdn_param_refusal(const gdnModel* m) {
    if (gdn_fluid_uses_box(m)) {
        return GDN_FLUID_PARAM_REFUSAL;
    }
    return NULL;
}
