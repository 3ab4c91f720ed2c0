// SPDX-License-Identifier: Apache-2.0
// The canonical 10-parameter inertia packing [m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz].
#include <string.h>

#include <gradyn/gradyn.h>

#include "math/vec.h"

// I_body = R(iquat) diag(inertia) R(iquat)', COM = ipos; all zeros for a NULL model or b outside
// [0, nbody) (nothing for a NULL out)
void gdn_body_inertia(const gdnModel* m, int b, gdnInertia* out) {
    if (!out) {
        return;
    }
    if (!m || b < 0 || b >= m->nbody) {
        memset(out, 0, sizeof(*out));
        return;
    }
    double R[9];
    const double* d = m->body_inertia + 3 * b;
    gdn_quat2mat(R, m->body_iquat + 4 * b);
    out->mass = m->body_mass[b];
    gdn_copy3(out->com, m->body_ipos + 3 * b);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            out->inertia[3 * i + j] =
                R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                R[3 * i + 2] * d[2] * R[3 * j + 2];
        }
    }
    // exact symmetry
    out->inertia[3] = out->inertia[1];
    out->inertia[6] = out->inertia[2];
    out->inertia[7] = out->inertia[5];
}

// a NULL argument: nothing happens
void gdn_inertia_params(const gdnInertia* in, double p[GDN_N_INERTIA_PARAMS]) {
    if (!in || !p) {
        return;
    }
    p[0] = in->mass;
    p[1] = in->com[0];
    p[2] = in->com[1];
    p[3] = in->com[2];
    p[4] = in->inertia[0];
    p[5] = in->inertia[4];
    p[6] = in->inertia[8];
    p[7] = in->inertia[1];
    p[8] = in->inertia[2];
    p[9] = in->inertia[5];
}

// a NULL argument: nothing happens
void gdn_inertia_from_params(const double p[GDN_N_INERTIA_PARAMS], gdnInertia* out) {
    if (!p || !out) {
        return;
    }
    out->mass = p[0];
    out->com[0] = p[1];
    out->com[1] = p[2];
    out->com[2] = p[3];
    out->inertia[0] = p[4];
    out->inertia[4] = p[5];
    out->inertia[8] = p[6];
    out->inertia[1] = out->inertia[3] = p[7];
    out->inertia[2] = out->inertia[6] = p[8];
    out->inertia[5] = out->inertia[7] = p[9];
}
