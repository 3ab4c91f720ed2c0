// SPDX-License-Identifier: Apache-2.0
// A contact's force in its contact frame from the solved constraint forces (mj_contactForce).
#include <gradyn/gradyn.h>

#include <string.h>

#include "constraint/constraint.h"
#include "model/validate.h"

// result = the contact's rows of efc_force, decoded from the pyramid's edges when the rows are
// pyramidal: each edge pair (J_n + mu_i J_ti, J_n - mu_i J_ti) with forces (f_2i, f_2i+1) acts
// as a normal force f_2i + f_2i+1 and a tangential one (f_2i - f_2i+1) mu_i; the row type (not
// the model's current cone option) says how the rows were built
void gdn_contact_force_rows(const gdnModel* m, const gdnData* d, int id, const double* f,
                            double result[6]) {
    (void)m;
    memset(result, 0, 6 * sizeof(double));
    const gdnContact* con = &d->contact[id];
    const int row = con->efc_address, dim = con->dim;
    if (row < 0 || row >= d->nefc || dim < 1 || dim > 6) {
        return;
    }
    const int pyramidal = d->efc_type[row] == GDN_CNSTR_CONTACT_PYRAMIDAL;
    if (row + (pyramidal ? 2 * (dim - 1) : dim) > d->nefc) {
        return;
    }
    f += row;
    if (!pyramidal) {
        // frictionless and elliptic rows are the frame's components themselves
        memcpy(result, f, (size_t)dim * sizeof(double));
        return;
    }
    for (int e = 0; e < 2 * (dim - 1); e++) {
        result[0] += f[e];
    }
    for (int i = 0; i < dim - 1; i++) {
        result[i + 1] = (f[2 * i] - f[2 * i + 1]) * con->friction[i];
    }
}

gdnStatus gdn_contact_force(const gdnModel* m, const gdnData* d, int id, double result[6]) {
    if (gdn_check_model_data(m, d) != GDN_OK || !result || id < 0 || id >= d->ncon) {
        return GDN_ERR_ARG;
    }
    gdn_contact_force_rows(m, d, id, d->efc_force, result);
    return GDN_OK;
}
