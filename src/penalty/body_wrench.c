// SPDX-License-Identifier: Apache-2.0
// Body velocities and the generalized force of body wrenches, both about the world origin.
#include "penalty/body_wrench.h"

#include <string.h>

#include "kinematics/jacobian.h"

// S_j = [jr; jr x (0 - anchor)]: the point-Jacobian column evaluated at the world origin
void gdn_dof_motion_axis(const gdnModel* m, const gdnData* d, int dof, double S[6]) {
    static const double origin[3] = {0, 0, 0};
    gdn_jac_dof_column(m, d, dof, origin, S + 3, S);
}

// forward pass in body id order (a parent's id is smaller than its children's)
void gdn_body_velocities(const gdnModel* m, const gdnData* d, double* V) {
    memset(V, 0, 6 * sizeof(double));
    for (int b = 1; b < m->nbody; b++) {
        double* Vb = V + 6 * b;
        memcpy(Vb, V + 6 * m->body_parentid[b], 6 * sizeof(double));
        const int adr = m->body_dofadr[b], num = m->body_dofnum[b];
        for (int j = adr; j < adr + num; j++) {
            double S[6];
            gdn_dof_motion_axis(m, d, j, S);
            for (int k = 0; k < 6; k++) {
                Vb[k] += S[k] * d->qvel[j];
            }
        }
    }
}

// backward pass: subtree sums from the leaves, then one dot product per dof
void gdn_body_wrench_qfrc(const gdnModel* m, const gdnData* d, const double* W, double* scratch,
                          double* qfrc) {
    double* Wsub = scratch;
    memcpy(Wsub, W, 6 * sizeof(double) * (size_t)m->nbody);
    for (int b = m->nbody - 1; b > 0; b--) {
        double* parent = Wsub + 6 * m->body_parentid[b];
        const double* child = Wsub + 6 * b;
        for (int k = 0; k < 6; k++) {
            parent[k] += child[k];
        }
    }
    for (int j = 0; j < m->nv; j++) {
        double S[6];
        gdn_dof_motion_axis(m, d, j, S);
        const double* Wb = Wsub + 6 * m->dof_bodyid[j];
        qfrc[j] += S[0] * Wb[0] + S[1] * Wb[1] + S[2] * Wb[2] + S[3] * Wb[3] + S[4] * Wb[4] +
                   S[5] * Wb[5];
    }
}
