// SPDX-License-Identifier: Apache-2.0
// Contact rows (MuJoCo 2.2.2): frictionless (1 row), pyramidal (2 (dim - 1) rows) or elliptic
// (dim rows) from the relative velocity Jacobian rotated into the contact frame.
#include <string.h>

#include "constraint/constraint.h"
#include "constraint/rows.h"
#include "kinematics/jacobian.h"

// rows a contact adds
static int contact_rows(int dim, int pyramidal) {
    return dim == 1 ? 1 : (pyramidal ? 2 * (dim - 1) : dim);
}

// the columns where the two bodies' Jacobians at a common point can differ: the dofs on exactly
// one of the two chains to the root (a shared ancestor dof moves the point of both bodies alike,
// so its column of J2 - J1 is x - x = 0). Both chains run through decreasing dof indices: merge
// them; which[k] = 1 (body 1 only) or 2 (body 2 only). Returns the number of columns.
static int chain_difference(const gdnModel* m, int b1, int b2, int* cols, int* which) {
    int n = 0;
    int a = gdn_jac_last_dof(m, b1), b = gdn_jac_last_dof(m, b2);
    while (a >= 0 || b >= 0) {
        if (a == b) {
            // the rest of both chains is shared
            break;
        }
        if (a > b) {
            cols[n] = a;
            which[n++] = 1;
            a = m->dof_parentid[a];
        } else {
            cols[n] = b;
            which[n++] = 2;
            b = m->dof_parentid[b];
        }
    }
    return n;
}

// jc (dim x nv): rows of frame times (J2 - J1) at the contact point; rows 0-2 translational
// (normal, tangent 1, tangent 2), rows 3.. rotational (frame rows 0.. : spin, roll 1, roll 2).
// Only the columns of chain_difference are nonzero: per column, dif = J2 - J1 with the absent
// body's column 0, row(c) = f . dif. Returns the column count (cols: their indices).
static int contact_jacobian(const gdnModel* m, const gdnData* d, const gdnContact* con,
                            double* jc, int* cols, int* which) {
    int nv = m->nv, dim = con->dim;
    int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
    int ncol = chain_difference(m, b1, b2, cols, which);
    memset(jc, 0, sizeof(double) * (size_t)dim * (size_t)nv);
    int ntran = dim > 1 ? 3 : 1;
    for (int k = 0; k < ncol; k++) {
        int c = cols[k];
        double jp[3], jr[3], difp[3], difr[3];
        gdn_jac_dof_column(m, d, c, con->pos, jp, jr);
        for (int r = 0; r < 3; r++) {
            difp[r] = which[k] == 2 ? jp[r] - 0.0 : 0.0 - jp[r];
            difr[r] = which[k] == 2 ? jr[r] - 0.0 : 0.0 - jr[r];
        }
        for (int r = 0; r < dim; r++) {
            const double* f = con->frame + 3 * (r < 3 ? r : r - 3);
            const double* dif = r < ntran ? difp : difr;
            jc[(size_t)r * (size_t)nv + (size_t)c] = f[0] * dif[0] + f[1] * dif[1] + f[2] * dif[2];
        }
    }
    return ncol;
}

void gdn_rows_contact(const gdnModel* m, gdnData* d, double* scratch) {
    int nv = m->nv, pyramidal = m->opt.cone == GDN_CONE_PYRAMIDAL, full = 0;
    double* jc = scratch;            // 6 nv: contact-frame Jacobian
    double* pair = scratch + 6 * nv; // 2 nv: pyramid edge pairs
    int* cols = (int*)(void*)(scratch + 8 * nv); // nv: nonzero columns, then which body (nv)
    int* which = cols + nv;
    int* ascending = (int*)(void*)(scratch + 9 * nv); // nv: the columns in increasing order
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
        int ncol = contact_jacobian(m, d, con, jc, cols, which);
        for (int k = 0; k < ncol; k++) {
            ascending[k] = cols[ncol - 1 - k];
        }
        if (dim == 1) {
            gdn_rows_add_sparse(m, d, jc, ascending, ncol, &con->dist, &con->includemargin, 0,
                                1, GDN_CNSTR_CONTACT_FRICTIONLESS, i);
        } else if (pyramidal) {
            // edge pair k: J0 + mu_k Jk, J0 - mu_k Jk
            double pos[2] = {con->dist, con->dist};
            double margin[2] = {con->includemargin, con->includemargin};
            memset(pair, 0, sizeof(double) * 2 * (size_t)nv);
            for (int k = 1; k < dim; k++) {
                double mu = con->friction[k - 1];
                const double* j0 = jc;
                const double* jk = jc + (size_t)k * (size_t)nv;
                for (int n = 0; n < ncol; n++) {
                    int c = cols[n];
                    pair[c] = j0[c] + mu * jk[c];
                    pair[nv + c] = j0[c] + -mu * jk[c];
                }
                gdn_rows_add_sparse(m, d, pair, ascending, ncol, pos, margin, 0, 2,
                                    GDN_CNSTR_CONTACT_PYRAMIDAL, i);
            }
        } else {
            double pos[6] = {con->dist, 0, 0, 0, 0, 0};
            double margin[6] = {con->includemargin, 0, 0, 0, 0, 0};
            gdn_rows_add_sparse(m, d, jc, ascending, ncol, pos, margin, 0, dim,
                                GDN_CNSTR_CONTACT_ELLIPTIC, i);
        }
    }
}
