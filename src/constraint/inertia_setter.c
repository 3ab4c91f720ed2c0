// SPDX-License-Identifier: Apache-2.0
// gdn_model_set_body_inertia: the model-layer write, then the constraint weights at qpos0.
#include <gradyn/gradyn.h>

#include "constraint/constraint.h"
#include "model/inertia_set.h"

gdnStatus gdn_model_set_body_inertia(gdnModel* m, int b, const gdnInertia* in) {
    gdnBodyInertiaSave save;
    gdnStatus st = gdn_model_write_body_inertia(m, b, in, &save);
    if (st != GDN_OK) {
        return st;
    }
    // stat_meaninertia, body_invweight0, dof_invweight0 by the loader's own function
    st = gdn_constraint_reweigh_body(m, b, &save);
    if (st != GDN_OK) {
        return st;
    }
    gdn_model_body_geoms_explicit(m, b);
    return GDN_OK;
}

gdnStatus gdn_constraint_reweigh_body(gdnModel* m, int b, const gdnBodyInertiaSave* save) {
    gdnStatus st = gdn_constraint_set_weights(m);
    if (st != GDN_OK) {
        gdn_model_restore_body_inertia(m, b, save);
    }
    return st;
}
