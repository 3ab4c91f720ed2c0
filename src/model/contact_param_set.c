// SPDX-License-Identifier: Apache-2.0
// Setters of contact parameters: geom and explicit-pair friction, solref and solimp (no model
// constant derives from them, so the edit is the whole refresh).
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

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
static int valid_solref(const double s[GDN_NREF]) {
    if (!isfinite(s[0]) || !isfinite(s[1])) {
        return 0;
    }
    return (s[0] > 0) == (s[1] > 0);
}

// dmin, dmax, midpoint in [0, 1], width >= 0, power >= 1, all finite
static int valid_solimp(const double s[GDN_NIMP]) {
    for (int i = 0; i < GDN_NIMP; i++) {
        if (!isfinite(s[i])) {
            return 0;
        }
    }
    return s[0] >= 0 && s[0] <= 1 && s[1] >= 0 && s[1] <= 1 && s[2] >= 0 && s[3] >= 0 &&
           s[3] <= 1 && s[4] >= 1;
}

gdnStatus gdn_model_set_geom_friction(gdnModel* m, int g, const double friction[3]) {
    if (!m || !friction || g < 0 || g >= m->ngeom || !valid_friction(friction, 3)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->geom_friction + 3 * g, friction, 3 * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_geom_solref(gdnModel* m, int g, const double solref[GDN_NREF]) {
    if (!m || !solref || g < 0 || g >= m->ngeom || !valid_solref(solref)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->geom_solref + GDN_NREF * g, solref, GDN_NREF * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_geom_solimp(gdnModel* m, int g, const double solimp[GDN_NIMP]) {
    if (!m || !solimp || g < 0 || g >= m->ngeom || !valid_solimp(solimp)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->geom_solimp + GDN_NIMP * g, solimp, GDN_NIMP * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_pair_friction(gdnModel* m, int p, const double friction[5]) {
    if (!m || !friction || p < 0 || p >= m->npair || !valid_friction(friction, 5)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->pair_friction + 5 * p, friction, 5 * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_pair_solref(gdnModel* m, int p, const double solref[GDN_NREF]) {
    if (!m || !solref || p < 0 || p >= m->npair || !valid_solref(solref)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->pair_solref + GDN_NREF * p, solref, GDN_NREF * sizeof(double));
    return GDN_OK;
}

gdnStatus gdn_model_set_pair_solimp(gdnModel* m, int p, const double solimp[GDN_NIMP]) {
    if (!m || !solimp || p < 0 || p >= m->npair || !valid_solimp(solimp)) {
        return GDN_ERR_ARG;
    }
    memcpy(m->pair_solimp + GDN_NIMP * p, solimp, GDN_NIMP * sizeof(double));
    return GDN_OK;
}
