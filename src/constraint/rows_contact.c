// SPDX-License-Identifier: Apache-2.0
// Contact rows (MuJoCo 2.2.2): frictionless (1 row), pyramidal (2 (dim - 1) rows) or elliptic
// (dim rows) from the relative velocity Jacobian rotated into the contact frame.
#include <string.h>

#include "constraint/constraint.h"
#include "constraint/rows.h"

// rows a contact adds
static int contact_rows(int dim, int pyramidal) {
    return dim == 1 ? 1 : (pyramidal ? 2 * (dim - 1) : dim);
}

// jc (dim x nv): rows of frame times (J2 - J1) at the contact point; rows 0-2 translational
// (normal, tangent 1, tangent 2), rows 3.. rotational (frame rows 0.. : spin, roll 1, roll 2)
static void contact_jacobian(const gdnModel* m, gdnData* d, const gdnContact* con, double* jc,
                             double* s) {
    int nv = m->nv, dim = con->dim;
    int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
    double *j1p = s, *j2p = s + 3 * nv, *j1r = s + 6 * nv, *j2r = s + 9 * nv;
    gdn_jac(m, d, j1p, dim > 3 ? j1r : NULL, con->pos, b1);
    gdn_jac(m, d, j2p, dim > 3 ? j2r : NULL, con->pos, b2);
    for (int k = 0; k < 3 * nv; k++) {
        j1p[k] = j2p[k] - j1p[k];
    }
    if (dim > 3) {
        for (int k = 0; k < 3 * nv; k++) {
            j1r[k] = j2r[k] - j1r[k];
        }
    }
    int ntran = dim > 1 ? 3 : 1;
    for (int r = 0; r < dim; r++) {
        const double* f = con->frame + 3 * (r < 3 ? r : r - 3);
        const double* dif = r < ntran ? j1p : j1r;
        double* row = jc + (size_t)r * (size_t)nv;
        for (int c = 0; c < nv; c++) {
            row[c] = f[0] * dif[c] + f[1] * dif[nv + c] + f[2] * dif[2 * nv + c];
        }
    }
}

void gdn_rows_contact(const gdnModel* m, gdnData* d, double* scratch) {
    int nv = m->nv, pyramidal = m->opt.cone == GDN_CONE_PYRAMIDAL, full = 0;
    double* jc = scratch;            // 6 nv: contact-frame Jacobian
    double* work = scratch + 6 * nv; // 12 nv: body Jacobians, then pyramid edge pairs
    for (int i = 0; i < d->ncon; i++) {
        gdnContact* con = d->contact + i;
        con->efc_address = -1;
        if (con->exclude) {
            continue;
        }
        int dim = con->dim, size = contact_rows(dim, pyramidal);
        if (full || d->nefc + size > d->maxefc) {
            d->nefc_overflow += size;
            full = 1;
            continue;
        }
        if (nv == 0) {
            con->exclude = 4;
            continue;
        }
        con->efc_address = d->nefc;
        contact_jacobian(m, d, con, jc, work);
        if (dim == 1) {
            gdn_rows_add(m, d, jc, &con->dist, &con->includemargin, 0, 1,
                         GDN_CNSTR_CONTACT_FRICTIONLESS, i);
        } else if (pyramidal) {
            // edge pair k: J0 + mu_k Jk, J0 - mu_k Jk
            double pos[2] = {con->dist, con->dist};
            double margin[2] = {con->includemargin, con->includemargin};
            double* pair = work;
            for (int k = 1; k < dim; k++) {
                double mu = con->friction[k - 1];
                const double* j0 = jc;
                const double* jk = jc + (size_t)k * (size_t)nv;
                for (int c = 0; c < nv; c++) {
                    pair[c] = j0[c] + mu * jk[c];
                    pair[nv + c] = j0[c] + -mu * jk[c];
                }
                gdn_rows_add(m, d, pair, pos, margin, 0, 2, GDN_CNSTR_CONTACT_PYRAMIDAL, i);
            }
        } else {
            double pos[6] = {con->dist, 0, 0, 0, 0, 0};
            double margin[6] = {con->includemargin, 0, 0, 0, 0, 0};
            gdn_rows_add(m, d, jc, pos, margin, 0, dim, GDN_CNSTR_CONTACT_ELLIPTIC, i);
        }
    }
}
