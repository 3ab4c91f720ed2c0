// SPDX-License-Identifier: Apache-2.0
// Internal: recursive Newton-Euler, the library's one implementation, in any frame of com.h
// (the sweep inline: each caller gets it specialized to its frame and outputs).
#ifndef GDN_DYNAMICS_RNE_H
#define GDN_DYNAMICS_RNE_H

#include <string.h>

#include <gradyn/gradyn.h>

#include "math/spatial.h"
#include "math/vec.h"

// The body accelerations and subtree forces of RNE from axes S, their rates Sdot (6 x nv),
// inertias I (10 x nbody) and velocities V (6 x nbody), all in one frame of com.h (the com
// frame of the primal or the world origin of the derivatives):
//   a_0 = [0; -g],  a_b = a_parent + sum_j (Sdot_j qvel_j + S_j qacc_j)  (qacc NULL: 0)
//   f_b = I_b a_b + (v_b x* (I_b v_b) - w_b),  F_b = sum of f over the subtree of b
// w (6 x nbody, NULL = none) are external wrenches in the same frame. A (6 x nbody) gets a_b,
// F (6 x nbody) gets F_b (the world row: 0); IA, IV (6 x nbody, NULL = not wanted) get I_b a_b
// and I_b v_b (the world row: 0)
// The order of the sum over a body's dofs j (the same value, other round-off with several
// dofs): GDN_RNE_BY_KIND adds every Sdot_j qvel_j, then every S_j qacc_j (the primal's
// gdn_rne); GDN_RNE_BY_DOF adds both terms of each dof in turn (the residual's derivatives,
// gradient/residual.c). Kept so that both stay bit for bit what they were.
enum { GDN_RNE_BY_KIND = 0, GDN_RNE_BY_DOF = 1 };

// (forward sweep parents first, backward sweep children first)
static inline void gdn_rne_sweep(const gdnModel* m, const gdnData* d, const double* S,
                                 const double* Sdot, const double* I, const double* V,
                                 const double* qacc, int order, const double* w, double* A,
                                 double* F, double* IA, double* IV) {
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

// gdn_rne on the stored com-frame quantities of the current kinematics (d->cdof, d->cinert:
// gdn_com_pos or ABA): the same result, bit for bit. Writes d->cvel, d->cdof_dot and, when
// flg_acc, d->cacc and d->cfrc_int (the bias pass flg_acc = 0 uses scratch for them)
void gdn_rne_com(const gdnModel* m, gdnData* d, int flg_acc, double* result);

#endif
