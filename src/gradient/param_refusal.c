// SPDX-License-Identifier: Apache-2.0
// The models whose inertia-parameter derivative is refused, and why.
#include "gradient/param_refusal.h"

#include "dynamics/fluid.h"

const char* gdn_param_refusal(const gdnModel* m) {
    if (gdn_fluid_active(m)) {
        return GDN_FLUID_PARAM_REFUSAL;
    }
    for (int i = 0; i < m->nu; i++) {
        // a muscle gain or bias whose peak force is scale / acc0 (m->opt's actuation on or off:
        // the model's law, not the step's flag)
        const int gain = m->actuator_gaintype[i] == GDN_GAIN_MUSCLE &&
                         m->actuator_gainprm[GDN_NGAIN * i + 2] < 0;
        const int bias = m->actuator_biastype[i] == GDN_BIAS_MUSCLE &&
                         m->actuator_biasprm[GDN_NBIAS * i + 2] < 0;
        if (gain || bias) {
            return GDN_MUSCLE_PARAM_REFUSAL;
        }
    }
    return NULL;
}
