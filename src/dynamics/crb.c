// SPDX-License-Identifier: Apache-2.0
// Composite rigid body algorithm: the dense joint-space inertia matrix d->qM.
#include <string.h>

#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"

// crb_b = sum of cinert over the subtree of b (leaf to root);
// M(i, j) = cdof_j' crb_(body of i) cdof_i for every ancestor dof j of dof i (j = i included),
// M(i, i) += armature_i; entries between dofs on different branches are zero
void gdn_crb(const gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* cdof = gdn_arena_doubles(d, 6 * (size_t)nv);
    double* crb = gdn_arena_doubles(d, 10 * (size_t)m->nbody);
    if (!cdof || !crb) {
        gdn_arena_reset(d, mark);
        return;
    }
    gdn_com_dofs(m, d, cdof);
    gdn_com_inertias(m, d, crb);
    for (int b = m->nbody - 1; b > 0; b--) {
        int p = m->body_parentid[b];
        if (p > 0) {
            for (int i = 0; i < 10; i++) {
                crb[10 * p + i] += crb[10 * b + i];
            }
        }
    }

    double* M = d->qM;
    memset(M, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    for (int i = nv - 1; i >= 0; i--) {
        double force[6];
        gdn_cinert_mul(force, crb + 10 * m->dof_bodyid[i], cdof + 6 * i);
        M[(size_t)i * nv + i] = m->dof_armature[i] + gdn_dot6(cdof + 6 * i, force);
        for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
            double mij = gdn_dot6(cdof + 6 * j, force);
            M[(size_t)i * nv + j] = mij;
            M[(size_t)j * nv + i] = mij;
        }
    }
    gdn_arena_reset(d, mark);
}
