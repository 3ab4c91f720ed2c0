// SPDX-License-Identifier: Apache-2.0
// Composite rigid body algorithm: the dense joint-space inertia matrix d->qM.
#include <gradyn/gradyn.h>

#include "dynamics/crb.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"
#include "model/validate.h"

// crb (10 x nbody, cinert on entry) becomes the composite inertias: crb_b = sum of cinert over
// the subtree of b (leaf to root); then M(i, j) = cdof_j' crb_(body of i) cdof_i for every
// ancestor dof j of dof i (j = i included), M(i, i) += armature_i; entries between dofs on
// different branches are zero. Only the entries between dofs of one tree (from its root dof,
// the root-most ancestor, to i) are written: the others are zero from the allocation and no
// other code writes them (crb_unavailable poisons only the diagonal)
static void crb_from(const gdnModel* m, gdnData* d, const double* cdof, double* crb) {
    const int nv = m->nv;
    for (int b = m->nbody - 1; b > 0; b--) {
        int p = m->body_parentid[b];
        if (p > 0) {
            for (int i = 0; i < 10; i++) {
                crb[10 * p + i] += crb[10 * b + i];
            }
        }
    }

    // row i, columns root <= j < i from i - 1 down (root: the root-most ancestor of i, the last
    // column written, after which the chain ends): an ancestor dof (the chain of dof_parentid,
    // whose indices decrease) gets its entry, every other column a zero (no memset of all of
    // M); each written to (i, j) and (j, i)
    double* M = d->qM;
    for (int i = nv - 1; i >= 0; i--) {
        double force[6];
        double* row = M + (size_t)i * nv;
        double* column = M + i;
        gdn_cinert_mul(force, crb + 10 * m->dof_bodyid[i], cdof + 6 * i);
        row[i] = m->dof_armature[i] + gdn_dot6(cdof + 6 * i, force);
        int ancestor = m->dof_parentid[i];
        for (int j = i - 1; ancestor >= 0; j--) {
            double mij = 0;
            if (j == ancestor) {
                mij = gdn_dot6(cdof + 6 * j, force);
                ancestor = m->dof_parentid[j];
            }
            row[j] = mij;
            column[(size_t)j * nv] = mij;
        }
    }
}

// diag(qM) = NaN: the result when the arena is short (the arena counted the warning). A NaN
// diagonal is enough for a step to report GDN_ERR_NONFINITE instead of using a stale M (every
// solve with M divides by or factors its diagonal); the entries off the diagonal are left as
// they are, so those between dof trees stay the zeros crb_from relies on
static void crb_unavailable(const gdnModel* m, gdnData* d) {
    const size_t nv = (size_t)m->nv;
    for (size_t i = 0; i < nv; i++) {
        d->qM[i * nv + i] = NAN;
    }
}

void gdn_crb(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        return;
    }
    gdn_com_pos(m, d);
    gdn_crb_com(m, d);
}

void gdn_crb_com(const gdnModel* m, gdnData* d) {
    size_t mark = gdn_arena_mark(d);
    double* crb = gdn_arena_doubles(d, 10 * (size_t)m->nbody);
    if (crb) {
        memcpy(crb, d->cinert, sizeof(double) * 10 * (size_t)m->nbody);
        crb_from(m, d, d->cdof, crb);
    } else {
        crb_unavailable(m, d);
    }
    gdn_arena_reset(d, mark);
}
