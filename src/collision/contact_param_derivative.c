// SPDX-License-Identifier: Apache-2.0
// The adjoint of the collision stage's contact parameters (friction, solref, solimp) in the
// geoms' and explicit pairs' (collision.c's geom_params / pair_params).
#include "collision/contact_param_derivative.h"

#include <math.h>

#include "collision/collision.h"
#include "constraint/rows_param_derivative.h"
#include "math/vec.h"
#include "penalty/penalty.h"

int gdn_contact_pair(const gdnModel* m, const gdnContact* con, int* count) {
    int first = -1, n = 0;
    for (int p = 0; p < m->npair; p++) {
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

// a geom contact's friction cotangents (contact friction[5] = floor(f0, f0, f1, f2, f2) of the
// geoms' mixed (slide, spin, roll)) into geom_friction
static void geom_friction_vjp(const gdnModel* m, const gdnContact* con, const double* fbar,
                              double* gfr) {
    const int g1 = con->geom1, g2 = con->geom2;
    const int diff = m->geom_priority[g1] != m->geom_priority[g2];
    const int gp = m->geom_priority[g1] > m->geom_priority[g2] ? g1 : g2;
    const double bar[3] = {fbar[0] + fbar[1], fbar[2], fbar[3] + fbar[4]};
    for (int c = 0; c < 3; c++) {
        const double f1 = m->geom_friction[3 * g1 + c], f2 = m->geom_friction[3 * g2 + c];
        const int g = diff ? gp : (f1 >= f2 ? g1 : g2);
        const double v = diff ? m->geom_friction[3 * gp + c] : fmax(f1, f2);
        if (v >= GDN_MIN_MU) {
            gfr[3 * g + c] += bar[c];
        }
    }
}

// a geom contact's solref, solimp cotangents into geom_solref, geom_solimp
static void geom_sol_vjp(const gdnModel* m, const gdnContact* con, const double* rbar,
                         const double* ibar, double* gref, double* gimp) {
    const int g1 = con->geom1, g2 = con->geom2;
    if (m->geom_priority[g1] != m->geom_priority[g2]) {
        const int gp = m->geom_priority[g1] > m->geom_priority[g2] ? g1 : g2;
        for (int k = 0; gref && k < GDN_NREF; k++) {
            gref[GDN_NREF * gp + k] += rbar[k];
        }
        for (int k = 0; gimp && k < GDN_NIMP; k++) {
            gimp[GDN_NIMP * gp + k] += ibar[k];
        }
        return;
    }
    const double mix = solmix(m, g1, g2);
    const double* r1 = m->geom_solref + GDN_NREF * g1;
    const double* r2 = m->geom_solref + GDN_NREF * g2;
    for (int k = 0; gref && k < GDN_NREF; k++) {
        if (r1[0] > 0 && r2[0] > 0) {
            gref[GDN_NREF * g1 + k] += mix * rbar[k];
            gref[GDN_NREF * g2 + k] += (1 - mix) * rbar[k];
        } else {
            gref[GDN_NREF * (r1[k] <= r2[k] ? g1 : g2) + k] += rbar[k];
        }
    }
    for (int k = 0; gimp && k < GDN_NIMP; k++) {
        gimp[GDN_NIMP * g1 + k] += mix * ibar[k];
        gimp[GDN_NIMP * g2 + k] += (1 - mix) * ibar[k];
    }
}

gdnStatus gdn_contact_param_vjp(const gdnModel* m, const gdnData* d, const double* thetabar,
                                const gdnContactParamGradients* cp, const char** what) {
    const int override = (m->opt.enableflags & GDN_ENBL_OVERRIDE) != 0;
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        if (con->efc_address < 0) {
            continue;
        }
        const double* tb = thetabar + (size_t)c * GDN_CONTACT_NPARAM;
        const double* fbar = tb + GDN_CP_FRICTION;
        const double* rbar = tb + GDN_CP_SOLREF;
        const double* ibar = tb + GDN_CP_SOLIMP;
        int count = 0;
        const int p = gdn_contact_pair(m, con, &count);
        if (count > 1) {
            *what = "parameters of a contact whose geom pair two explicit pairs name";
            return GDN_ERR_UNSUPPORTED;
        }
        if (p >= 0) {
            for (int k = 0; cp->pair_friction && k < 5; k++) {
                if (m->pair_friction[5 * p + k] >= GDN_MIN_MU) {
                    cp->pair_friction[5 * p + k] += fbar[k];
                }
            }
            for (int k = 0; !override && cp->pair_solref && k < GDN_NREF; k++) {
                cp->pair_solref[GDN_NREF * p + k] += rbar[k];
            }
            for (int k = 0; !override && cp->pair_solimp && k < GDN_NIMP; k++) {
                cp->pair_solimp[GDN_NIMP * p + k] += ibar[k];
            }
            continue;
        }
        if (cp->geom_friction) {
            geom_friction_vjp(m, con, fbar, cp->geom_friction);
        }
        if (!override) {
            geom_sol_vjp(m, con, rbar, ibar, cp->geom_solref, cp->geom_solimp);
        }
    }
    return GDN_OK;
}

gdnStatus gdn_contact_size_admissible(const gdnModel* m, const gdnData* d, const char** what) {
    for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_inertial[g] && m->geom_bodyid[g] > 0) {
            *what = "geom size of a geom whose body's inertia comes from its geoms";
            return GDN_ERR_UNSUPPORTED;
        }
    }
    if (gdn_penalty_active(m)) {
        *what = "geom size under the penalty contact model";
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
