// SPDX-License-Identifier: Apache-2.0
// The built-in objective: squared distance of a body point to a target at T, control effort.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "base/arena.h"
#include "kinematics/kinematics.h"
#include "math/vec.h"

// g = w |x - target|^2 + wv |v_T|^2, x = xpos_b + R_b point;
// dg/dq (tangent) = 2 w jacp' (x - target),  dg/dv = 2 wv v_T
static gdnStatus target_terminal(const gdnModel* m, gdnData* s, int t, void* user,
                                 double* value, double* gqpos, double* gqvel, double* gctrl) {
    (void)t;
    (void)gctrl;
    const gdnTargetObjective* spec = user;
    const int nv = m->nv, b = spec->body;
    gdn_kinematics_bodies(m, s); // body frames, anchors and axes: all gdn_jac reads
    double x[3], e[3];
    gdn_mulmat3(x, s->xmat + 9 * b, spec->point);
    gdn_add3(x, x, s->xpos + 3 * b);
    gdn_sub3(e, x, spec->target);
    double vv = 0;
    for (int i = 0; i < nv; i++) {
        vv += s->qvel[i] * s->qvel[i];
    }
    *value = spec->weight * gdn_dot3(e, e) + spec->vel_weight * vv;
    if (gqpos) {
        size_t mark = gdn_arena_mark(s);
        double* jacp = gdn_arena_doubles(s, 3 * (size_t)nv);
        if (!jacp) {
            gdn_arena_reset(s, mark);
            return GDN_ERR_MEMORY;
        }
        gdn_jac(m, s, jacp, NULL, x, b);
        for (int i = 0; i < nv; i++) {
            gqpos[i] = 2 * spec->weight *
                       (jacp[i] * e[0] + jacp[nv + i] * e[1] + jacp[2 * nv + i] * e[2]);
        }
        gdn_arena_reset(s, mark);
    }
    if (gqvel) {
        for (int i = 0; i < nv; i++) {
            gqvel[i] = 2 * spec->vel_weight * s->qvel[i];
        }
    }
    return GDN_OK;
}

// l = wu |u_t|^2,  dl/du = 2 wu u_t
static gdnStatus target_running(const gdnModel* m, gdnData* s, int t, void* user,
                                double* value, double* gqpos, double* gqvel, double* gctrl) {
    (void)t;
    (void)gqpos;
    (void)gqvel;
    const gdnTargetObjective* spec = user;
    double uu = 0;
    for (int i = 0; i < m->nu; i++) {
        uu += s->ctrl[i] * s->ctrl[i];
    }
    *value = spec->ctrl_weight * uu;
    for (int i = 0; gctrl && i < m->nu; i++) {
        gctrl[i] = 2 * spec->ctrl_weight * s->ctrl[i];
    }
    return GDN_OK;
}

gdnStatus gdn_objective_target(const gdnModel* m, const gdnTargetObjective* spec,
                               gdnObjective* obj) {
    if (!m || !spec || !obj) {
        return GDN_ERR_ARG;
    }
    if (spec->body < 1 || spec->body >= m->nbody) {
        return GDN_ERR_ARG;
    }
    const double values[] = {spec->point[0],  spec->point[1],  spec->point[2],
                             spec->target[0], spec->target[1], spec->target[2],
                             spec->weight,    spec->ctrl_weight, spec->vel_weight};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        if (!isfinite(values[i])) {
            return GDN_ERR_ARG;
        }
    }
    memset(obj, 0, sizeof(*obj));
    obj->terminal.fn = target_terminal;
    obj->terminal.user = (void*)(uintptr_t)spec;
    obj->terminal.grad_tangent = 1;
    if (spec->ctrl_weight != 0 && m->nu > 0) {
        obj->running.fn = target_running;
        obj->running.user = (void*)(uintptr_t)spec;
        obj->running.grad_tangent = 1;
    }
    return GDN_OK;
}
