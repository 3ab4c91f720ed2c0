// SPDX-License-Identifier: Apache-2.0
// The adjoint of the collision stage's contact parameters (friction, solref, solimp) in the
// geoms' and explicit pairs' (collision.c's geom_params / pair_params).
#include "collision/contact_param_derivative.h"

#include <math.h>
#include <string.h>

#include "collision/collision.h"
#include "constraint/rows_param_derivative.h"
#include "dynamics/fluid.h"
#include "math/vec.h"
#include "penalty/penalty.h"

int gdn_contact_pair(const gdnModel* m, const gdnContact* con, int* count) {
    int first = -1, n = 0;
    // collision="dynamic": no contact comes from an explicit pair
    const int npair = m->opt.collision == GDN_COL_DYNAMIC ? 0 : m->npair;
    for (int p = 0; p < npair; p++) {
        const int a = m->pair_geom1[p], b = m->pair_geom2[p];
        if ((a == con->geom1 && b == con->geom2) || (a == con->geom2 && b == con->geom1)) {
            first = first < 0 ? p : first;
            n++;
        }
    }
    if (count) {
        *count = n;
    }
    return first;
}

// solmix weight of geom1 (collision.c's rule)
static double solmix(const gdnModel* m, int g1, int g2) {
    const double s1 = m->geom_solmix[g1], s2 = m->geom_solmix[g2];
    if (s1 >= GDN_MINVAL && s2 >= GDN_MINVAL) {
        return s1 / (s1 + s2);
    }
    if (s1 < GDN_MINVAL && s2 < GDN_MINVAL) {
        return 0.5;
    }
    return s1 < GDN_MINVAL ? 0.0 : 1.0;
}

// One link of a contact parameter k (0 .. 11: friction[5], solref[2], solimp[5]) to a model
// parameter: d theta_k += w d model[arr][idx]
enum { ARR_GFR, ARR_GREF, ARR_GIMP, ARR_PFR, ARR_PREF, ARR_PIMP };
typedef struct {
    int k, arr, idx;
    double w;
} paramLink;

static int add_link(paramLink* L, int n, int k, int arr, int idx, double w) {
    L[n].k = k;
    L[n].arr = arr;
    L[n].idx = idx;
    L[n].w = w;
    return n + 1;
}

// the links of contact con (at most 19); -1 when its explicit pair is ambiguous
static int contact_links(const gdnModel* m, const gdnContact* con, paramLink* L) {
    const int override = (m->opt.enableflags & GDN_ENBL_OVERRIDE) != 0;
    const int g1 = con->geom1, g2 = con->geom2;
    int count = 0, n = 0;
    const int p = gdn_contact_pair(m, con, &count);
    if (count > 1) {
        return -1;
    }
    if (p >= 0) {
        // an explicit pair: its own values (friction floored at GDN_MIN_MU)
        for (int k = 0; k < 5; k++) {
            if (m->pair_friction[5 * p + k] >= GDN_MIN_MU) {
                n = add_link(L, n, GDN_CP_FRICTION + k, ARR_PFR, 5 * p + k, 1);
            }
        }
        for (int k = 0; !override && k < GDN_NREF; k++) {
            n = add_link(L, n, GDN_CP_SOLREF + k, ARR_PREF, GDN_NREF * p + k, 1);
        }
        for (int k = 0; !override && k < GDN_NIMP; k++) {
            n = add_link(L, n, GDN_CP_SOLIMP + k, ARR_PIMP, GDN_NIMP * p + k, 1);
        }
        return n;
    }
    // friction: contact (f0, f0, f1, f2, f2) of the higher-priority geom's or the max of the
    // geoms' (slide, spin, roll), floored
    const int diff = m->geom_priority[g1] != m->geom_priority[g2];
    const int gp = m->geom_priority[g1] > m->geom_priority[g2] ? g1 : g2;
    static const int kComp[5] = {0, 0, 1, 2, 2};
    for (int k = 0; k < 5; k++) {
        const int c = kComp[k];
        const double f1 = m->geom_friction[3 * g1 + c], f2 = m->geom_friction[3 * g2 + c];
        const int g = diff ? gp : (f1 >= f2 ? g1 : g2);
        if (m->geom_friction[3 * g + c] >= GDN_MIN_MU) {
            n = add_link(L, n, GDN_CP_FRICTION + k, ARR_GFR, 3 * g + c, 1);
        }
    }
    if (override) {
        return n;
    }
    if (diff) {
        for (int k = 0; k < GDN_NREF; k++) {
            n = add_link(L, n, GDN_CP_SOLREF + k, ARR_GREF, GDN_NREF * gp + k, 1);
        }
        for (int k = 0; k < GDN_NIMP; k++) {
            n = add_link(L, n, GDN_CP_SOLIMP + k, ARR_GIMP, GDN_NIMP * gp + k, 1);
        }
        return n;
    }
    // solref: the solmix blend when both time constants are > 0, else the elementwise min;
    // solimp: the blend
    const double mix = solmix(m, g1, g2);
    const double* r1 = m->geom_solref + GDN_NREF * g1;
    const double* r2 = m->geom_solref + GDN_NREF * g2;
    for (int k = 0; k < GDN_NREF; k++) {
        if (r1[0] > 0 && r2[0] > 0) {
            n = add_link(L, n, GDN_CP_SOLREF + k, ARR_GREF, GDN_NREF * g1 + k, mix);
            n = add_link(L, n, GDN_CP_SOLREF + k, ARR_GREF, GDN_NREF * g2 + k, 1 - mix);
        } else {
            const int g = r1[k] <= r2[k] ? g1 : g2;
            n = add_link(L, n, GDN_CP_SOLREF + k, ARR_GREF, GDN_NREF * g + k, 1);
        }
    }
    for (int k = 0; k < GDN_NIMP; k++) {
        n = add_link(L, n, GDN_CP_SOLIMP + k, ARR_GIMP, GDN_NIMP * g1 + k, mix);
        n = add_link(L, n, GDN_CP_SOLIMP + k, ARR_GIMP, GDN_NIMP * g2 + k, 1 - mix);
    }
    return n;
}

// the model array arr of cp (NULL: not wanted / no direction)
static double* link_array(const gdnContactParamGradients* cp, int arr) {
    switch (arr) {
    case ARR_GFR:
        return cp->geom_friction;
    case ARR_GREF:
        return cp->geom_solref;
    case ARR_GIMP:
        return cp->geom_solimp;
    case ARR_PFR:
        return cp->pair_friction;
    case ARR_PREF:
        return cp->pair_solref;
    default:
        return cp->pair_solimp;
    }
}

static const char kAmbiguous[] = "parameters of a contact whose geom pair two explicit pairs name";

gdnStatus gdn_contact_param_vjp(const gdnModel* m, const gdnData* d, const double* thetabar,
                                const gdnContactParamGradients* cp, const char** what) {
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        if (con->efc_address < 0) {
            continue;
        }
        paramLink L[24];
        const int n = contact_links(m, con, L);
        if (n < 0) {
            *what = kAmbiguous;
            return GDN_ERR_UNSUPPORTED;
        }
        const double* tb = thetabar + (size_t)c * GDN_CONTACT_NPARAM;
        for (int l = 0; l < n; l++) {
            double* a = link_array(cp, L[l].arr);
            if (a) {
                a[L[l].idx] += L[l].w * tb[L[l].k];
            }
        }
    }
    return GDN_OK;
}

gdnStatus gdn_contact_param_jvp(const gdnModel* m, const gdnData* d,
                                const gdnContactParamGradients* dir, double* dtheta,
                                const char** what) {
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        double* dt = dtheta + (size_t)c * GDN_CONTACT_NPARAM;
        memset(dt, 0, sizeof(double) * GDN_CONTACT_NPARAM);
        if (con->efc_address < 0) {
            continue;
        }
        paramLink L[24];
        const int n = contact_links(m, con, L);
        if (n < 0) {
            *what = kAmbiguous;
            return GDN_ERR_UNSUPPORTED;
        }
        for (int l = 0; l < n; l++) {
            const double* a = link_array(dir, L[l].arr);
            if (a) {
                dt[L[l].k] += L[l].w * a[L[l].idx];
            }
        }
    }
    return GDN_OK;
}

gdnStatus gdn_contact_size_admissible(const gdnModel* m, const gdnData* d, const char** what) {
    if (gdn_penalty_active(m)) {
        *what = "geom size under the penalty contact model";
        return GDN_ERR_UNSUPPORTED;
    }
    if (gdn_fluid_uses_ellipsoid(m)) {
        *what = GDN_FLUID_SIZE_REFUSAL;
        return GDN_ERR_UNSUPPORTED;
    }
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        const int t1 = m->geom_type[con->geom1], t2 = m->geom_type[con->geom2];
        if (con->efc_address >= 0 && (t1 == GDN_GEOM_MESH || t1 == GDN_GEOM_HFIELD ||
                                      t2 == GDN_GEOM_MESH || t2 == GDN_GEOM_HFIELD)) {
            *what = "geom size of a mesh or height-field geom";
            return GDN_ERR_UNSUPPORTED;
        }
    }
    return GDN_OK;
}
