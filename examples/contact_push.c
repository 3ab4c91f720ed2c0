// SPDX-License-Identifier: Apache-2.0
// The pushed-box problem: scene, knots to controls, objective, and its gradient by the adjoint.
#include "contact_push.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// the interpolation of step t between knots: u_t = (1 - w) x_k + w x_{k+1}
static void knot_of_step(const pushProblem* p, int t, int* k, double* w) {
    double s = (double)t * (double)(p->nknot - 1) / (double)(p->nstep - 1);
    int i = (int)floor(s);
    i = i < 0 ? 0 : i > p->nknot - 2 ? p->nknot - 2 : i;
    *k = i;
    *w = s - i;
}

// terminal cost: w_pos |p_T - target|^2 + w_vel |v_T|^2 + w_yaw wz_T^2 (qpos coordinates)
static gdnStatus terminal_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                               double* gqpos, double* gqvel, double* gctrl) {
    (void)m;
    (void)t;
    (void)gctrl;
    const pushProblem* p = user;
    double J = 0;
    for (int i = 0; i < 2; i++) {
        double e = p->box_origin[i] + s->qpos[p->qadr[i]] - p->target[i];
        J += p->w_pos * e * e;
        if (gqpos) {
            gqpos[p->qadr[i]] = 2 * p->w_pos * e;
        }
    }
    for (int i = 0; i < 4; i++) {
        double w = i < 3 ? p->w_vel : p->w_yaw, v = s->qvel[p->vadr[i]];
        J += w * v * v;
        if (gqvel) {
            gqvel[p->vadr[i]] = 2 * w * v;
        }
    }
    *value = J;
    return GDN_OK;
}

// running cost: control effort w_ctrl h |u_t|^2
static gdnStatus effort_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                             double* gqpos, double* gqvel, double* gctrl) {
    (void)t;
    (void)gqpos;
    (void)gqvel;
    const pushProblem* p = user;
    const double w = p->w_ctrl * m->opt.timestep;
    double J = 0;
    for (int i = 0; i < m->nu; i++) {
        J += w * s->ctrl[i] * s->ctrl[i];
        if (gctrl) {
            gctrl[i] = 2 * w * s->ctrl[i];
        }
    }
    *value = J;
    return GDN_OK;
}

// qpos and qvel addresses of the named joint; -1 when absent
static int joint_addresses(const gdnModel* m, const char* name, int* qadr, int* vadr) {
    int j = gdn_name2id(m, "joint", name);
    if (j < 0) {
        return -1;
    }
    *qadr = m->jnt_qposadr[j];
    *vadr = m->jnt_dofadr[j];
    return 0;
}

int push_problem_init(pushProblem* p, const char* model_path, int nstep, int nknot,
                      int settle_steps) {
    memset(p, 0, sizeof(*p));
    if (nstep < 2 || nknot < 2) {
        snprintf(p->err, sizeof(p->err), "need at least 2 steps and 2 knots");
        return -1;
    }
    if (gdn_load_xml(model_path, &p->m, p->err, (int)sizeof(p->err), NULL, 0) != GDN_OK) {
        return -1;
    }
    gdnModel* m = p->m;
    const char* box[4] = {"box_x", "box_y", "box_z", "box_yaw"};
    int v = 0;
    for (int i = 0; i < 4; i++) {
        if (joint_addresses(m, box[i], &p->qadr[i], &p->vadr[i]) != 0) {
            snprintf(p->err, sizeof(p->err), "%s: no joint '%s'", model_path, box[i]);
            return -1;
        }
    }
    if (joint_addresses(m, "pusher_x", &p->pusher_qadr[0], &v) != 0 ||
        joint_addresses(m, "pusher_y", &p->pusher_qadr[1], &v) != 0 || m->nu != 2) {
        snprintf(p->err, sizeof(p->err), "%s: not the push_box scene", model_path);
        return -1;
    }
    if (gdn_name2id(m, "body", "box") < 0 || gdn_name2id(m, "body", "pusher") < 0) {
        snprintf(p->err, sizeof(p->err), "%s: no body 'box' or 'pusher'", model_path);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        p->box_origin[i] = m->body_pos[3 * gdn_name2id(m, "body", "box") + i];
        p->pusher_origin[i] = m->body_pos[3 * gdn_name2id(m, "body", "pusher") + i];
    }
    p->nstep = nstep;
    p->nknot = nknot;
    p->nx = 2 * nknot;
    p->target[0] = 0.45;
    p->target[1] = 0.12;
    p->w_pos = 10;
    p->w_vel = 1;
    p->w_yaw = 0.01;
    p->w_ctrl = 1e-4;
    p->ctrl_max = 8;

    // the initial state: the scene at rest after settle_steps with zero controls
    p->qpos0 = calloc((size_t)(m->nq + m->nv), sizeof(double));
    p->ctrl = calloc((size_t)(2 * nstep * m->nu), sizeof(double));
    gdnData* d = NULL;
    if (!p->qpos0 || !p->ctrl || gdn_data_create(m, &d) != GDN_OK) {
        gdn_data_free(d);
        snprintf(p->err, sizeof(p->err), "out of memory");
        return -1;
    }
    p->qvel0 = p->qpos0 + m->nq;
    p->gctrl = p->ctrl + nstep * m->nu;
    gdn_data_reset(m, d);
    for (int t = 0; t < settle_steps; t++) {
        if (gdn_step(m, d) != GDN_OK) {
            gdn_data_free(d);
            snprintf(p->err, sizeof(p->err), "settling failed at step %d", t);
            return -1;
        }
    }
    memcpy(p->qpos0, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(p->qvel0, d->qvel, sizeof(double) * (size_t)m->nv);
    gdn_data_free(d);

    // rollout, objective, tape, gradient outputs
    gdn_rollout_init(m, nstep, &p->r);
    p->r.qpos0 = p->qpos0;
    p->r.qvel0 = p->qvel0;
    p->r.ctrl = p->ctrl;
    p->obj.terminal = (gdnCost){terminal_cost, p, 0};
    p->obj.running = (gdnCost){effort_cost, p, 0};
    p->g.ctrl = p->gctrl;
    if (gdn_tape_create(m, nstep, 1, &p->tape, p->err, (int)sizeof(p->err)) != GDN_OK) {
        return -1;
    }
    return 0;
}

void push_problem_free(pushProblem* p) {
    gdn_tape_free(p->tape);
    gdn_model_free(p->m);
    free(p->qpos0);
    free(p->ctrl);
    memset(p, 0, sizeof(*p));
}

void push_initial_guess(const pushProblem* p, double* x) {
    for (int k = 0; k < p->nknot; k++) {
        x[2 * k] = 4 * k < p->nknot ? p->ctrl_max / 3 : 0;
        x[2 * k + 1] = 4 * k < p->nknot ? p->ctrl_max / 16 : 0;
    }
}

// the control schedule from the knots
static void knots_to_ctrl(pushProblem* p, const double* x) {
    for (int t = 0; t < p->nstep; t++) {
        int k;
        double w;
        knot_of_step(p, t, &k, &w);
        for (int i = 0; i < 2; i++) {
            p->ctrl[2 * t + i] = (1 - w) * x[2 * k + i] + w * x[2 * (k + 1) + i];
        }
    }
}

double push_objective(void* user, const double* x, double* grad) {
    pushProblem* p = user;
    knots_to_ctrl(p, x);
    p->evaluations++;
    if (!grad) {
        double J = NAN;
        if (gdn_rollout_objective(p->m, &p->r, &p->obj, p->tape, &J, p->err,
                                  (int)sizeof(p->err)) != GDN_OK) {
            return NAN;
        }
        return J;
    }
    if (gdn_adjoint_rollout_gradient(p->m, &p->r, &p->obj, p->tape, &p->g, p->err,
                                     (int)sizeof(p->err)) != GDN_OK) {
        return NAN;
    }
    p->backward_passes++;

    // dJ/dx_k = sum over the steps t next to knot k of (its weight) dJ/du_t
    memset(grad, 0, sizeof(double) * (size_t)p->nx);
    for (int t = 0; t < p->nstep; t++) {
        int k;
        double w;
        knot_of_step(p, t, &k, &w);
        for (int i = 0; i < 2; i++) {
            grad[2 * k + i] += (1 - w) * p->gctrl[2 * t + i];
            grad[2 * (k + 1) + i] += w * p->gctrl[2 * t + i];
        }
    }
    return p->g.J;
}

int push_paths(pushProblem* p, const double* x, double* box, double* pusher) {
    if (!isfinite(push_objective(p, x, NULL))) {
        return -1;
    }
    double* q = malloc(sizeof(double) * (size_t)p->m->nq);
    if (!q) {
        return -1;
    }
    for (int t = 0; t <= p->nstep; t++) {
        gdn_tape_state(p->tape, t, q, NULL);
        for (int i = 0; i < 2; i++) {
            if (box) {
                box[2 * t + i] = p->box_origin[i] + q[p->qadr[i]];
            }
            if (pusher) {
                pusher[2 * t + i] = p->pusher_origin[i] + q[p->pusher_qadr[i]];
            }
        }
    }
    free(q);
    return 0;
}
