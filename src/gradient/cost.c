// SPDX-License-Identifier: Apache-2.0
// Objective terms: callback evaluation and the qpos-coordinate to tangent gradient map.
#include <math.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "base/status.h"
#include "gradient/cost.h"
#include "math/vec.h"
#include "math/vecn.h"

// quaternion block: g_k = <gq, 0.5 q (x) [0, e_k]>.  With q (x) [0, e] = [-q_v . e,
// q_w e + q_v x e] this is g = 0.5 (q_w gq_v - gq_w q_v + gq_v x q_v)
static void quat_grad_to_tangent(const double q[4], const double gq[4], double g[3]) {
    double c[3];
    gdn_cross3(c, gq + 1, q + 1);
    for (int k = 0; k < 3; k++) {
        g[k] = 0.5 * (q[0] * gq[1 + k] - gq[0] * q[1 + k] + c[k]);
    }
}

void gdn_qpos_grad_to_tangent(const gdnModel* m, const double* qpos, const double* g_qpos,
                              double* g_tangent) {
    for (int j = 0; j < m->njnt; j++) {
        const double* q = qpos + m->jnt_qposadr[j];
        const double* gq = g_qpos + m->jnt_qposadr[j];
        double* g = g_tangent + m->jnt_dofadr[j];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            gdn_copy3(g, gq);
            quat_grad_to_tangent(q + 3, gq + 3, g + 3);
            break;
        case GDN_JNT_BALL:
            quat_grad_to_tangent(q, gq, g);
            break;
        default:
            g[0] = gq[0];
            break;
        }
    }
}

gdnStatus gdn_cost_eval(const gdnModel* m, gdnTape* tape, const gdnCost* c, int t,
                        const double* qpos, const double* qvel, const double* act,
                        const double* ctrl, double* value, int want_grad, int want_ctrl,
                        char* err, int err_size) {
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    const char* which = ctrl ? "running cost" : "terminal cost";
    gdnData* s = tape->scratch;
    memcpy(s->qpos, qpos, sizeof(double) * (size_t)nq);
    memcpy(s->qvel, qvel, sizeof(double) * (size_t)nv);
    memcpy(s->act, act, sizeof(double) * (size_t)m->na);
    if (ctrl && nu > 0) {
        memcpy(s->ctrl, ctrl, sizeof(double) * (size_t)nu);
    }
    // the gradient as returned: nq qpos coordinates, or nv tangent coordinates directly
    double* gq = NULL;
    double* gv = NULL;
    double* gu = NULL;
    if (want_grad) {
        gq = c->grad_tangent ? tape->cost_qt : tape->cost_q;
        gv = tape->cost_v;
        memset(gq, 0, sizeof(double) * (size_t)(c->grad_tangent ? nv : nq));
        memset(gv, 0, sizeof(double) * (size_t)nv);
        if (want_ctrl && ctrl && nu > 0) {
            gu = tape->cost_u;
            memset(gu, 0, sizeof(double) * (size_t)nu);
        }
        // an internal term's act gradient (tape.h): none unless the term writes it
        memset(tape->cost_a, 0, sizeof(double) * (size_t)m->na);
    }
    tape->cost_a_set = 0;
    *value = 0;
    gdnStatus st = c->fn(m, s, t, c->user, value, gq, gv, gu);
    if (st != GDN_OK) {
        return gdn_fail(st, err, err_size, "step %d: %s callback failed (%s)", t, which,
                        gdn_status_string(st));
    }
    int finite = isfinite(*value);
    if (want_grad) {
        finite = finite && gdn_all_finite(gq, c->grad_tangent ? nv : nq) && gdn_all_finite(gv, nv) &&
                 (!gu || gdn_all_finite(gu, nu)) &&
                 (!tape->cost_a_set || gdn_all_finite(tape->cost_a, m->na));
        if (finite && !c->grad_tangent) {
            gdn_qpos_grad_to_tangent(m, qpos, tape->cost_q, tape->cost_qt);
        }
    }
    if (!finite) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "step %d: %s is not finite", t, which);
    }
    return GDN_OK;
}
