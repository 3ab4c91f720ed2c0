// SPDX-License-Identifier: Apache-2.0
// Recursive Newton-Euler: bias forces C(q, v) and inverse dynamics M qacc + C(q, v).
#include "dynamics/rne.h"

#include <math.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"
#include "math/vec.h"

// forward:  a_0 = [0; -g],  a_b = a_parent + sum_j (cdof_dot_j qvel_j + cdof_j qacc_j)
//           f_b = I_b a_b + v_b x* (I_b v_b)
// backward: f_parent += f_b
// result_i = cdof_i' f_(body of i) (+ armature_i qacc_i when flg_acc, so that the result is
// M qacc + C with the armature in M; MuJoCo's mj_rne leaves the armature term to mj_inverse)
// (with cdof and cinert given; scratch cdof_dot, cvel, cacc, cfrc)
static void rne_from(const gdnModel* m, gdnData* d, int flg_acc, double* result,
                     const double* cdof, const double* cinert, double* cdof_dot, double* cvel,
                     double* cacc, double* cfrc) {
    const int nv = m->nv, nbody = m->nbody;
    gdn_com_vel(m, d, cdof, cvel, cdof_dot);

    for (int i = 0; i < 6; i++) {
        cacc[i] = 0;
        cfrc[i] = 0;
    }
    if (!(m->opt.disableflags & GDN_DSBL_GRAVITY)) {
        gdn_scl3(cacc + 3, m->opt.gravity, -1);
    }
    for (int b = 1; b < nbody; b++) {
        double* a = cacc + 6 * b;
        const double* ap = cacc + 6 * m->body_parentid[b];
        for (int i = 0; i < 6; i++) {
            a[i] = ap[i];
        }
        int dof0 = m->body_dofadr[b];
        for (int k = 0; k < m->body_dofnum[b]; k++) {
            gdn_addscl6(a, a, cdof_dot + 6 * (dof0 + k), d->qvel[dof0 + k]);
        }
        if (flg_acc) {
            for (int k = 0; k < m->body_dofnum[b]; k++) {
                gdn_addscl6(a, a, cdof + 6 * (dof0 + k), d->qacc[dof0 + k]);
            }
        }
        double iv[6], vxiv[6];
        const double* v = cvel + 6 * b;
        double* f = cfrc + 6 * b;
        gdn_cinert_mul(f, cinert + 10 * b, a);
        gdn_cinert_mul(iv, cinert + 10 * b, v);
        gdn_cross_force(vxiv, v, iv);
        for (int i = 0; i < 6; i++) {
            f[i] += vxiv[i];
        }
    }
    for (int b = nbody - 1; b > 0; b--) {
        int p = m->body_parentid[b];
        if (p > 0) {
            for (int i = 0; i < 6; i++) {
                cfrc[6 * p + i] += cfrc[6 * b + i];
            }
        }
    }
    for (int i = 0; i < nv; i++) {
        result[i] = gdn_dot6(cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i]);
        if (flg_acc) {
            result[i] += m->dof_armature[i] * d->qacc[i];
        }
    }
}

// result = NaN: the output when the arena is short (the arena counted the warning), so that a
// step reports GDN_ERR_NONFINITE instead of using stale bias forces
static void rne_unavailable(const gdnModel* m, double* result) {
    for (int i = 0; i < m->nv; i++) {
        result[i] = NAN;
    }
}

void gdn_rne(const gdnModel* m, gdnData* d, int flg_acc, double* result) {
    size_t mark = gdn_arena_mark(d);
    double* cdof = gdn_arena_doubles(d, 6 * (size_t)m->nv);
    double* cinert = gdn_arena_doubles(d, 10 * (size_t)m->nbody);
    if (cdof && cinert) {
        gdn_com_dofs(m, d, cdof);
        gdn_com_inertias(m, d, cinert);
        gdn_rne_com(m, d, flg_acc, result, cdof, cinert);
    } else {
        rne_unavailable(m, result);
    }
    gdn_arena_reset(d, mark);
}

void gdn_rne_com(const gdnModel* m, gdnData* d, int flg_acc, double* result, const double* cdof,
                 const double* cinert) {
    const size_t nv = (size_t)m->nv, nbody = (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* cdof_dot = gdn_arena_doubles(d, 6 * nv);
    double* cvel = gdn_arena_doubles(d, 6 * nbody);
    double* cacc = gdn_arena_doubles(d, 6 * nbody);
    double* cfrc = gdn_arena_doubles(d, 6 * nbody);
    if (cdof_dot && cvel && cacc && cfrc) {
        rne_from(m, d, flg_acc, result, cdof, cinert, cdof_dot, cvel, cacc, cfrc);
    } else {
        rne_unavailable(m, result);
    }
    gdn_arena_reset(d, mark);
}
