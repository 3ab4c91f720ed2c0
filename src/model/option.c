// SPDX-License-Identifier: Apache-2.0
// Physics options: MuJoCo 2.2.2's defaults for every gdnOption field.
#include "model/model_alloc.h"

#include <string.h>

#include <gradyn/contact.h>

void gdn_option_default(gdnOption* opt) {
    memset(opt, 0, sizeof(*opt));
    opt->timestep = 0.002;
    opt->gravity[2] = -9.81;
    opt->integrator = GDN_INT_EULER;
    opt->solver = GDN_SOL_NEWTON;
    opt->iterations = 100;
    opt->tolerance = 1e-8;
    opt->cone = GDN_CONE_PYRAMIDAL;
    opt->impratio = 1;
    opt->mpr_iterations = 50;
    opt->mpr_tolerance = 1e-6;
    opt->o_solref[0] = 0.02;
    opt->o_solref[1] = 1;
    const double solimp[GDN_NIMP] = {0.9, 0.95, 0.001, 0.5, 2};
    memcpy(opt->o_solimp, solimp, sizeof(solimp));
    opt->magnetic[1] = -0.5;
}
