// SPDX-License-Identifier: Apache-2.0
// Tendon lengths, velocities and Jacobians (MuJoCo 2.2.2's mj_tendon and ten_velocity).
#include "kinematics/tendon.h"

#include <string.h>

// L = sum_k coef_k q_k,  Ldot = sum_k coef_k qdot_k  (path order)
void gdn_tendon_fixed_value(const gdnModel* m, int t, const double* qpos, const double* qvel,
                            double* length, double* velocity) {
    const int adr = m->tendon_adr[t], num = m->tendon_num[t];
    double L = 0, V = 0;
    for (int k = adr; k < adr + num; k++) {
        const int j = m->wrap_objid[k];
        const double coef = m->wrap_prm[k];
        if (qpos) {
            L += coef * qpos[m->jnt_qposadr[j]];
        }
        if (qvel) {
            V += coef * qvel[m->jnt_dofadr[j]];
        }
    }
    if (length) {
        *length = L;
    }
    if (velocity) {
        *velocity = V;
    }
}

int gdn_tendon_all_fixed(const gdnModel* m) {
    for (int t = 0; t < m->ntendon; t++) {
        if (m->tendon_num[t] > 0 && m->wrap_type[m->tendon_adr[t]] != GDN_WRAP_JOINT) {
            return 0;
        }
    }
    return 1;
}

void gdn_tendon(const gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    if (m->ntendon == 0) {
        return;
    }
    memset(d->ten_J, 0, sizeof(double) * (size_t)m->ntendon * (size_t)nv);
    int wcnt = 0;
    for (int t = 0; t < m->ntendon; t++) {
        d->ten_wrapadr[t] = wcnt;
        d->ten_wrapnum[t] = 0;
        const int adr = m->tendon_adr[t], num = m->tendon_num[t];
        // fixed: J(t, dof_k) = coef_k (a joint listed twice keeps its last coefficient, as
        // MuJoCo's assignment does; its length term counts twice)
        double* J = d->ten_J + (size_t)t * (size_t)nv;
        for (int k = adr; k < adr + num; k++) {
            J[m->jnt_dofadr[m->wrap_objid[k]]] = m->wrap_prm[k];
        }
        gdn_tendon_fixed_value(m, t, d->qpos, d->qvel, d->ten_length + t, d->ten_velocity + t);
    }
}
