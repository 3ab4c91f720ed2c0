// SPDX-License-Identifier: Apache-2.0
// Applied forces in joint space (qfrc_applied plus J' xfrc_applied for every loaded body) and
// the force sum of the smooth dynamics.
#include "dynamics/applied.h"
#include "dynamics/passive.h"

#include "kinematics/jacobian.h"

// qfrc += qfrc_applied; then for each body b > 0 with a nonzero wrench [f; t] at xipos_b:
//   qfrc[j] += jp_j . f + jr_j . t  for each dof j on the chain from b to the root
// (the columns come one at a time, so no Jacobian is stored and zero rows cost one test)
void gdn_applied_forces(const gdnModel* m, gdnData* d, double* qfrc) {
    for (int i = 0; i < m->nv; i++) {
        qfrc[i] += d->qfrc_applied[i];
    }
    for (int b = 1; b < m->nbody; b++) {
        const double* f = d->xfrc_applied + 6 * b;
        const double* t = f + 3;
        if (f[0] == 0 && f[1] == 0 && f[2] == 0 && t[0] == 0 && t[1] == 0 && t[2] == 0) {
            continue;
        }
        const double* point = d->xipos + 3 * b;
        for (int da = gdn_jac_last_dof(m, b); da >= 0; da = m->dof_parentid[da]) {
            double jp[3], jr[3];
            gdn_jac_dof_column(m, d, da, point, jp, jr);
            qfrc[da] += jp[0] * f[0] + jp[1] * f[1] + jp[2] * f[2];
            qfrc[da] += jr[0] * t[0] + jr[1] * t[1] + jr[2] * t[2];
        }
    }
}

void gdn_force_sum(const gdnModel* m, gdnData* d, double* tau) {
    gdn_passive_forces(m, d);
    gdn_actuator_forces(m, d);
    for (int i = 0; i < m->nv; i++) {
        tau[i] = d->qfrc_passive[i] + d->qfrc_actuator[i];
    }
    gdn_applied_forces(m, d, tau);
}
