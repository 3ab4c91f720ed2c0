// SPDX-License-Identifier: Apache-2.0
// The velocity tangent of the bias force C(q, v) = RNE(q, v, a = 0) (rne_vel.h).
#include "dynamics/rne_vel.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/com.h"
#include "math/spatial.h"

gdnStatus gdn_rne_vel_prepare(const gdnModel* m, gdnData* d, gdnRneVel* w) {
    const size_t nb = (size_t)m->nbody, nv = (size_t)(m->nv > 0 ? m->nv : 1);
    double* block = gdn_arena_doubles(d, 30 * nb + 6 * nv);
    w->moving = gdn_arena_ints(d, nb);
    if (!block || !w->moving) {
        return GDN_ERR_MEMORY;
    }
    w->V = block;
    w->IV = block + 6 * nb;
    w->eta = block + 12 * nb;
    w->dA = block + 18 * nb;
    w->dF = block + 24 * nb;
    w->Sdot = block + 30 * nb;
    gdn_com_vel(m, d, d->cdof, w->V, w->Sdot, NULL);
    memset(w->IV, 0, 6 * sizeof(double));
    for (int b = 1; b < m->nbody; b++) {
        gdn_cinert_mul(w->IV + 6 * b, d->cinert + 10 * b, w->V + 6 * b);
    }
    return GDN_OK;
}

void gdn_rne_vel_jvp(const gdnModel* m, const gdnData* d, gdnRneVel* w, const double* dv,
                     double* out) {
    const double* S = d->cdof;
    memset(w->eta, 0, 6 * sizeof(double));
    memset(w->dA, 0, 6 * sizeof(double));
    memset(w->dF, 0, 6 * sizeof(double));
    w->moving[0] = 0;
    // forward: the velocity and acceleration tangents, group by group as gdn_com_vel (a body
    // with no moving dof at or above it has eta = dA = df = 0)
    for (int b = 1; b < m->nbody; b++) {
        double* eta = w->eta + 6 * b;
        double* dA = w->dA + 6 * b;
        int moving = w->moving[m->body_parentid[b]];
        for (int j = 0; j < m->body_dofnum[b] && !moving; j++) {
            moving = dv[m->body_dofadr[b] + j] != 0;
        }
        w->moving[b] = moving;
        if (!moving) {
            memset(eta, 0, 6 * sizeof(double));
            memset(dA, 0, 6 * sizeof(double));
            memset(w->dF + 6 * b, 0, 6 * sizeof(double));
            continue;
        }
        memcpy(eta, w->eta + 6 * m->body_parentid[b], 6 * sizeof(double));
        memcpy(dA, w->dA + 6 * m->body_parentid[b], 6 * sizeof(double));
        const int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        for (int k = 0; k < ndof;) {
            int dof = dof0 + k;
            const int type = m->jnt_type[m->dof_jntid[dof]];
            int nrot = 1;
            if (type == GDN_JNT_FREE) {
                // constant translation axes: Sdot = dSdot = 0
                for (int t = 0; t < 3; t++) {
                    gdn_addscl6(eta, eta, S + 6 * (dof + t), dv[dof + t]);
                }
                dof += 3;
                k += 3;
                nrot = 3;
            } else if (type == GDN_JNT_BALL) {
                nrot = 3;
            }
            // dSdot_j = eta_before x S_j for every axis of the group
            for (int t = 0; t < nrot; t++) {
                double dSdot[6];
                gdn_cross_motion(dSdot, eta, S + 6 * (dof + t));
                gdn_addscl6(dA, dA, dSdot, d->qvel[dof + t]);
                gdn_addscl6(dA, dA, w->Sdot + 6 * (dof + t), dv[dof + t]);
            }
            for (int t = 0; t < nrot; t++) {
                gdn_addscl6(eta, eta, S + 6 * (dof + t), dv[dof + t]);
            }
            k += nrot;
        }
        // df = I dA + eta x* (I V) + V x* (I eta)
        double* df = w->dF + 6 * b;
        double t1[6], t2[6];
        gdn_cinert_mul(df, d->cinert + 10 * b, dA);
        gdn_cross_force(t1, eta, w->IV + 6 * b);
        gdn_add6(df, df, t1);
        gdn_cinert_mul(t1, d->cinert + 10 * b, eta);
        gdn_cross_force(t2, w->V + 6 * b, t1);
        gdn_add6(df, df, t2);
    }
    // backward: subtree sums
    for (int b = m->nbody - 1; b > 0; b--) {
        const int p = m->body_parentid[b];
        if (p > 0) {
            gdn_add6(w->dF + 6 * p, w->dF + 6 * p, w->dF + 6 * b);
        }
    }
    for (int i = 0; i < m->nv; i++) {
        out[i] = gdn_dot6(S + 6 * i, w->dF + 6 * m->dof_bodyid[i]);
    }
}

gdnStatus gdn_rne_vel_dense(const gdnModel* m, gdnData* d, double scale, double* D, int ld) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    gdnRneVel w;
    double* e = gdn_arena_doubles(d, 2 * (size_t)nv);
    if (!e || gdn_rne_vel_prepare(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* col = e + nv;
    memset(e, 0, sizeof(double) * (size_t)nv);
    // column k: the tangent along e_k
    for (int k = 0; k < nv; k++) {
        e[k] = 1;
        gdn_rne_vel_jvp(m, d, &w, e, col);
        e[k] = 0;
        for (int i = 0; i < nv; i++) {
            D[(size_t)i * (size_t)ld + (size_t)k] += scale * col[i];
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
