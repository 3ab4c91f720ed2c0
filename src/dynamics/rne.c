// SPDX-License-Identifier: Apache-2.0
// Recursive Newton-Euler: bias forces C(q, v) and inverse dynamics M qacc + C(q, v).
#include "dynamics/rne.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "model/validate.h"


// result = NaN: the output when the arena is short (the arena counted the warning), so that a
// step reports GDN_ERR_NONFINITE instead of using stale bias forces
static void rne_unavailable(const gdnModel* m, double* result) {
    for (int i = 0; i < m->nv; i++) {
        result[i] = NAN;
    }
}

void gdn_rne(const gdnModel* m, gdnData* d, int flg_acc, double* result) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        for (int i = 0; m && result && i < m->nv; i++) {
            result[i] = NAN;
        }
        return;
    }
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
