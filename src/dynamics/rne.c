// SPDX-License-Identifier: Apache-2.0
// Recursive Newton-Euler: bias forces C(q, v) and inverse dynamics M qacc + C(q, v).
#include "dynamics/rne.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"
#include "math/vec.h"

// forward sweep parents first, backward sweep children first (rne.h)
void gdn_rne_sweep(const gdnModel* m, const gdnData* d, const double* S, const double* Sdot,
                   const double* I, const double* V, const double* qacc, int order,
                   const double* w, double* A, double* F, double* IA, double* IV) {
    const int nbody = m->nbody;
    memset(A, 0, 6 * sizeof(double));
    memset(F, 0, 6 * sizeof(double));
    if (IA) {
        memset(IA, 0, 6 * sizeof(double));
    }
    if (IV) {
        memset(IV, 0, 6 * sizeof(double));
    }
    if (!(m->opt.disableflags & GDN_DSBL_GRAVITY)) {
        gdn_scl3(A + 3, m->opt.gravity, -1);
    }
    for (int b = 1; b < nbody; b++) {
        double* a = A + 6 * b;
        memcpy(a, A + 6 * m->body_parentid[b], 6 * sizeof(double));
        const int dof0 = m->body_dofadr[b], dof1 = dof0 + m->body_dofnum[b];
        for (int k = dof0; k < dof1; k++) {
            gdn_addscl6(a, a, Sdot + 6 * k, d->qvel[k]);
            if (qacc && order == GDN_RNE_BY_DOF) {
                gdn_addscl6(a, a, S + 6 * k, qacc[k]);
            }
        }
        for (int k = dof0; qacc && order == GDN_RNE_BY_KIND && k < dof1; k++) {
            gdn_addscl6(a, a, S + 6 * k, qacc[k]);
        }
        double iv_local[6], vxiv[6];
        const double* v = V + 6 * b;
        double* f = F + 6 * b;
        double* iv = IV ? IV + 6 * b : iv_local;
        gdn_cinert_mul(f, I + 10 * b, a);
        if (IA) {
            memcpy(IA + 6 * b, f, 6 * sizeof(double));
        }
        gdn_cinert_mul(iv, I + 10 * b, v);
        gdn_cross_force(vxiv, v, iv);
        if (w) {
            for (int i = 0; i < 6; i++) {
                f[i] += vxiv[i] - w[6 * b + i];
            }
        } else {
            for (int i = 0; i < 6; i++) {
                f[i] += vxiv[i];
            }
        }
    }
    for (int b = nbody - 1; b > 0; b--) {
        int p = m->body_parentid[b];
        if (p > 0) {
            gdn_add6(F + 6 * p, F + 6 * p, F + 6 * b);
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
    gdn_com_pos(m, d);
    gdn_rne_com(m, d, flg_acc, result);
}

// velocities, the sweep, then result_i = cdof_i' F_(body of i) (+ armature_i qacc_i when
// flg_acc, so that the result is M qacc + C with the armature in M; MuJoCo's mj_rne leaves the
// armature term to mj_inverse)
void gdn_rne_com(const gdnModel* m, gdnData* d, int flg_acc, double* result) {
    const size_t nbody = (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* cacc = d->cacc;
    double* cfrc = d->cfrc_int;
    if (!flg_acc) {
        cacc = gdn_arena_doubles(d, 12 * nbody);
        cfrc = cacc ? cacc + 6 * nbody : NULL;
    }
    if (!cacc) {
        rne_unavailable(m, result);
        gdn_arena_reset(d, mark);
        return;
    }
    gdn_com_vel(m, d, d->cdof, d->cvel, d->cdof_dot, NULL);
    gdn_rne_sweep(m, d, d->cdof, d->cdof_dot, d->cinert, d->cvel, flg_acc ? d->qacc : NULL,
                  GDN_RNE_BY_KIND, NULL, cacc, cfrc, NULL, NULL);
    for (int i = 0; i < m->nv; i++) {
        result[i] = gdn_dot6(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i]);
        if (flg_acc) {
            result[i] += m->dof_armature[i] * d->qacc[i];
        }
    }
    gdn_arena_reset(d, mark);
}
