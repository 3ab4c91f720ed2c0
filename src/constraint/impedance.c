// SPDX-License-Identifier: Apache-2.0
// solref / solimp to impedance, stiffness, damping and regularizer (MuJoCo 2.2.2's
// mj_makeImpedance): efc_KBIP, efc_R, efc_D, contact mu, rescaled efc_diagApprox.
#include <math.h>
#include <string.h>

#include "constraint/constraint.h"
#include "constraint/rows.h"

static double clamp_imp(double x) {
    return fmin(GDN_MAXIMP, fmax(GDN_MINIMP, x));
}

// solref and solimp of row i (override for contacts is applied by collision when it fills the
// contact), with MuJoCo's sanitation: mixed-sign solref -> (0.02, 1); timeconst >= 2 timestep
// unless GDN_DSBL_REFSAFE; solimp clamped
static void row_params(const gdnModel* m, const gdnData* d, int i, double solref[GDN_NREF],
                       double solimp[GDN_NIMP]) {
    int id = d->efc_id[i];
    const double *ref = NULL, *imp = NULL;
    switch (d->efc_type[i]) {
    case GDN_CNSTR_EQUALITY:
        ref = m->eq_solref + GDN_NREF * id;
        imp = m->eq_solimp + GDN_NIMP * id;
        break;
    case GDN_CNSTR_LIMIT_JOINT:
        ref = m->jnt_solref + GDN_NREF * id;
        imp = m->jnt_solimp + GDN_NIMP * id;
        break;
    case GDN_CNSTR_FRICTION_DOF:
        ref = m->dof_solref + GDN_NREF * id;
        imp = m->dof_solimp + GDN_NIMP * id;
        break;
    case GDN_CNSTR_LIMIT_TENDON:
        ref = m->tendon_solref_lim + GDN_NREF * id;
        imp = m->tendon_solimp_lim + GDN_NIMP * id;
        break;
    case GDN_CNSTR_FRICTION_TENDON:
        ref = m->tendon_solref_fri + GDN_NREF * id;
        imp = m->tendon_solimp_fri + GDN_NIMP * id;
        break;
    default:
        ref = d->contact[id].solref;
        imp = d->contact[id].solimp;
        break;
    }
    memcpy(solref, ref, sizeof(double) * GDN_NREF);
    memcpy(solimp, imp, sizeof(double) * GDN_NIMP);
    if ((solref[0] > 0) ^ (solref[1] > 0)) {
        solref[0] = 0.02;
        solref[1] = 1;
    }
    if (!(m->opt.disableflags & GDN_DSBL_REFSAFE) && solref[0] > 0) {
        solref[0] = fmax(solref[0], 2 * m->opt.timestep);
    }
    solimp[0] = clamp_imp(solimp[0]);
    solimp[1] = clamp_imp(solimp[1]);
    solimp[2] = fmax(0, solimp[2]);
    solimp[3] = clamp_imp(solimp[3]);
    solimp[4] = fmax(1, solimp[4]);
}

// the violation that drives the impedance and the rows sharing it: connect |pos[0..3)|, weld
// |(pos[0..3), torquescale pos[3..6))|, elliptic contact dim rows, pyramid 2 (dim - 1) rows,
// otherwise the row's own pos
static void row_violation(const gdnModel* m, const gdnData* d, int i, double* pos, int* dim) {
    int id = d->efc_id[i];
    *dim = 1;
    *pos = d->efc_pos[i];
    switch (d->efc_type[i]) {
    case GDN_CNSTR_CONTACT_ELLIPTIC:
        *dim = d->contact[id].dim;
        break;
    case GDN_CNSTR_CONTACT_PYRAMIDAL:
        *dim = 2 * (d->contact[id].dim - 1);
        break;
    case GDN_CNSTR_EQUALITY: {
        const double* p = d->efc_pos + i;
        if (m->eq_type[id] == GDN_EQ_WELD) {
            double ts = m->eq_data[GDN_NEQDATA * id + 10];
            double v[6] = {p[0], p[1], p[2], p[3] * ts, p[4] * ts, p[5] * ts};
            double s = 0;
            for (int k = 0; k < 6; k++) {
                s += v[k] * v[k];
            }
            *dim = 6;
            *pos = sqrt(s);
        } else if (m->eq_type[id] == GDN_EQ_CONNECT) {
            *dim = 3;
            *pos = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        }
        break;
    }
    default:
        break;
    }
}

// base^(power - 1); the default power 2 gives base^1 = base, which pow returns exactly (its
// error is below one ulp and the result is representable): the same bits without the call
static double pow_minus_one(double base, double power) {
    return power == 2 ? base : pow(base, power - 1);
}

// d(x), x = |pos - margin| / width: dmin + y(x) (dmax - dmin) with y = a x^p below the
// midpoint and 1 - b (1 - x)^p above it (a, b make y continuous), saturated outside [0, 1]
void gdn_impedance(const double solimp[GDN_NIMP], double pos, double margin, double* imp,
                   double* imp_deriv) {
    double dmin = solimp[0], dmax = solimp[1], width = solimp[2];
    double mid = solimp[3], power = solimp[4];
    if (dmin == dmax || width <= GDN_MINVAL) {
        *imp = 0.5 * (dmin + dmax);
        *imp_deriv = 0;
        return;
    }
    double x = (pos - margin) / width;
    double sgn = 1;
    if (x < 0) {
        x = -x;
        sgn = -1;
    }
    if (x >= 1 || x <= 0) {
        *imp = x >= 1 ? dmax : dmin;
        *imp_deriv = 0;
        return;
    }
    double y, dy;
    if (power == 1) {
        y = x;
        dy = 1;
    } else if (x <= mid) {
        double a = 1 / pow_minus_one(mid, power);
        y = a * pow(x, power);
        dy = power * a * pow_minus_one(x, power);
    } else {
        double b = 1 / pow_minus_one(1 - mid, power);
        y = 1 - b * pow(1 - x, power);
        dy = power * b * pow_minus_one(1 - x, power);
    }
    *imp = dmin + y * (dmax - dmin);
    *imp_deriv = dy * sgn * (dmax - dmin) / width;
}

void gdn_rows_impedance(const gdnModel* m, gdnData* d) {
    int nefc = d->nefc;
    double *R = d->efc_R, *kbip = d->efc_KBIP;

    // R = (1 - d) / d diagApprox; K, B from solref (standard or direct); I = d, P = d'
    for (int i = 0; i < nefc; i++) {
        double solref[GDN_NREF], solimp[GDN_NIMP], pos, imp, impP;
        int dim;
        row_params(m, d, i, solref, solimp);
        row_violation(m, d, i, &pos, &dim);
        gdn_impedance(solimp, pos, d->efc_margin[i], &imp, &impP);
        double dmax = solimp[1];
        for (int j = 0; j < dim; j++) {
            int r = i + j, type = d->efc_type[r];
            double* k = kbip + 4 * r;
            R[r] = fmax(GDN_MINVAL, (1 - imp) * d->efc_diagApprox[r] / imp);
            if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON ||
                (type == GDN_CNSTR_CONTACT_ELLIPTIC && j > 0)) {
                k[0] = 0;
            } else if (solref[0] > 0) {
                // K = 1 / (dmax^2 timeconst^2 dampratio^2)
                k[0] = 1 / fmax(GDN_MINVAL,
                                dmax * dmax * solref[0] * solref[0] * solref[1] * solref[1]);
            } else {
                k[0] = -solref[0] / fmax(GDN_MINVAL, dmax * dmax);
            }
            if (solref[1] > 0) {
                k[1] = 2 / fmax(GDN_MINVAL, dmax * solref[0]); // B = 2 / (dmax timeconst)
            } else {
                k[1] = -solref[1] / fmax(GDN_MINVAL, dmax);
            }
            k[2] = imp;
            k[3] = impP;
        }
        i += dim - 1;
    }

    // frictional contacts: R_friction = R_normal / impratio, mu = friction[0] sqrt(R1 / R0);
    // elliptic: R_j mu_j^2 = R_1 mu_1^2; pyramidal: every edge R = 2 mu^2 R_normal
    for (int i = d->ne + d->nf; i < nefc; i++) {
        int type = d->efc_type[i];
        if (type != GDN_CNSTR_CONTACT_PYRAMIDAL && type != GDN_CNSTR_CONTACT_ELLIPTIC) {
            continue;
        }
        gdnContact* con = d->contact + d->efc_id[i];
        int dim = con->dim;
        const double* fr = con->friction;
        R[i + 1] = R[i] / fmax(GDN_MINVAL, m->opt.impratio);
        con->mu = fr[0] * sqrt(R[i + 1] / R[i]);
        if (type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            for (int j = 1; j < dim - 1; j++) {
                R[i + j + 1] = R[i + 1] * fr[0] * fr[0] / (fr[j] * fr[j]);
            }
            i += dim - 1;
        } else {
            double rpy = 2 * con->mu * con->mu * R[i];
            for (int j = 0; j < 2 * (dim - 1); j++) {
                R[i + j] = rpy;
            }
            i += 2 * (dim - 1) - 1;
        }
    }

    // D = 1 / R; diagApprox such that R = (1 - I) / I diagApprox
    for (int i = 0; i < nefc; i++) {
        d->efc_D[i] = 1 / R[i];
        d->efc_diagApprox[i] = R[i] * kbip[4 * i + 2] / (1 - kbip[4 * i + 2]);
    }
}
