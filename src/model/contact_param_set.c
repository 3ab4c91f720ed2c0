// SPDX-License-Identifier: Apache-2.0
// Setters of contact parameters: geom and explicit-pair friction, solref and solimp (no model
// constant derives from them, so the edit is the whole refresh).
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "math/vecn.h"

// n finite, non-negative values
static int valid_friction(const double* f, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(f[i]) || f[i] < 0) {
            return 0;
        }
    }
    return 1;
}

// (timeconst > 0, dampratio > 0) or the direct form (-stiffness <= 0, -damping <= 0): the mixed
// forms are the ones the constraint rows replace by the default (0.02, 1), as MuJoCo does
static int valid_solref(const double* s, int n) {
    return gdn_all_finite(s, n) && (s[0] > 0) == (s[1] > 0);
}

// dmin, dmax, midpoint in [0, 1], width >= 0, power >= 1, all finite
static int valid_solimp(const double* s, int n) {
    return gdn_all_finite(s, n) && s[0] >= 0 && s[0] <= 1 && s[1] >= 0 && s[1] <= 1 &&
           s[2] >= 0 && s[3] >= 0 && s[3] <= 1 && s[4] >= 1;
}

// row i (of count rows, width values each) of array = value, when i is in range and the value
// passes valid; GDN_ERR_ARG and nothing changed otherwise
static gdnStatus set_row(double* array, int i, int count, const double* value, int width,
                         int (*valid)(const double*, int)) {
    if (!value || i < 0 || i >= count || !valid(value, width)) {
        return GDN_ERR_ARG;
    }
    memcpy(array + (size_t)width * (size_t)i, value, (size_t)width * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_geom_friction(gdnModel* m, int g, const double friction[3]) {
    return m ? set_row(m->geom_friction, g, m->ngeom, friction, 3, valid_friction) : GDN_ERR_ARG;
}

gdnStatus gdn_model_set_geom_solref(gdnModel* m, int g, const double solref[GDN_NREF]) {
    return m ? set_row(m->geom_solref, g, m->ngeom, solref, GDN_NREF, valid_solref) : GDN_ERR_ARG;
}

gdnStatus gdn_model_set_geom_solimp(gdnModel* m, int g, const double solimp[GDN_NIMP]) {
    return m ? set_row(m->geom_solimp, g, m->ngeom, solimp, GDN_NIMP, valid_solimp) : GDN_ERR_ARG;
}

gdnStatus gdn_model_set_pair_friction(gdnModel* m, int p, const double friction[5]) {
    return m ? set_row(m->pair_friction, p, m->npair, friction, 5, valid_friction) : GDN_ERR_ARG;
}

gdnStatus gdn_model_set_pair_solref(gdnModel* m, int p, const double solref[GDN_NREF]) {
    return m ? set_row(m->pair_solref, p, m->npair, solref, GDN_NREF, valid_solref) : GDN_ERR_ARG;
}

gdnStatus gdn_model_set_pair_solimp(gdnModel* m, int p, const double solimp[GDN_NIMP]) {
    return m ? set_row(m->pair_solimp, p, m->npair, solimp, GDN_NIMP, valid_solimp) : GDN_ERR_ARG;
}
