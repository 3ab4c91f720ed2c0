// SPDX-License-Identifier: Apache-2.0
// The gradient batch: one trajectory adjoint of a linear objective per entry, on a batch pool's
// workers (gdn_batch_pool_adjoint_full; gdn_adjoint_batch_full on a pool made for the call; the
// calls without _full are them without act0 and sensor cotangents).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/batch.h>
#include <gradyn/sensor.h>

#include "base/status.h"
#include "batch/check.h"
#include "batch/pool.h"
#include "batch/workspace.h"
#include "gradient/tape.h"
#include "math/vec.h"

// the linear objective of one entry:
//   J = sum_t <cq_t, qpos_t> + <cv_t, qvel_t> + <ca_t, act_t> (+ sum_{t<T} <cs_t, s_t>)
typedef struct linear_cost {
    const double* cq;    // (T + 1) x nq, NULL: zero
    const double* cv;    // (T + 1) x nv, NULL: zero
    const double* ca;    // (T + 1) x na, NULL: zero
    const double* cs;    // T x nsensordata, NULL: zero (then the term is linear_cost_fn)
    const double* qpos0; // the raw qpos0 (row 0 of the rollout)
    int T;
    gdnTape* tape;       // the entry's tape: the act gradient goes to its cost_a (tape.h)
    double *sq, *sv, *sa, *su; // (nv, nv, na, nu) the sensor VJP's gradients (sensor_cost_fn)
    char* why;           // (why_size) the sensor VJP's refusal (gdn_sensor_refusal), "" none
    int why_size;
} linear_cost;

// the act term <ca_t, act_t>: its value into *v and, when a gradient is wanted, ca_t as the
// term's act gradient (the tape's internal channel, which the adjoint adds to lambda's act
// part; tape.h)
static void act_term(const gdnModel* m, const linear_cost* c, const gdnData* s, int t,
                     int want_grad, double* v) {
    const int na = m->na;
    if (!c->ca || na == 0) {
        return;
    }
    const double* ca = c->ca + (size_t)t * (size_t)na;
    for (int i = 0; i < na; i++) {
        *v += ca[i] * s->act[i];
    }
    if (want_grad) {
        memcpy(c->tape->cost_a, ca, sizeof(double) * (size_t)na);
        c->tape->cost_a_set = 1;
    }
}

// one term of the linear objective at time t. Row 0's qpos is the raw input itself, whose
// gradient the caller adds (cq_0, outside the steps' tangent space), so its gqpos stays zero
static gdnStatus linear_cost_fn(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                                double* gqpos, double* gqvel, double* gctrl) {
    (void)gctrl;
    const linear_cost* c = user;
    const int nq = m->nq, nv = m->nv;
    const double* q = t == 0 ? c->qpos0 : s->qpos;
    double v = 0;
    if (c->cq) {
        const double* cq = c->cq + (size_t)t * (size_t)nq;
        for (int i = 0; i < nq; i++) {
            v += cq[i] * q[i];
        }
        if (gqpos && t > 0) {
            memcpy(gqpos, cq, sizeof(double) * (size_t)nq);
        }
    }
    if (c->cv) {
        const double* cv = c->cv + (size_t)t * (size_t)nv;
        for (int i = 0; i < nv; i++) {
            v += cv[i] * s->qvel[i];
        }
        if (gqvel) {
            memcpy(gqvel, cv, sizeof(double) * (size_t)nv);
        }
    }
    act_term(m, c, s, t, gqvel != NULL, &v);
    *value = v;
    return GDN_OK;
}

// the linear objective with sensor cotangents, gradients in the tangent space (grad_tangent 1):
// the state terms as linear_cost_fn (cq_t mapped by gdn_qpos_grad_to_tangent at qpos_t before
// gdn_forward normalizes the scratch), then for t < T the sensors gdn_forward computes at
// (x_t, ctrl_t) at the step's time, <cs_t, s_t>, and gdn_sensor_vjp_act's gradients added (the
// act part through the tape's internal channel)
static gdnStatus sensor_cost_fn(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                                double* gqpos, double* gqvel, double* gctrl) {
    const linear_cost* c = user;
    const int nq = m->nq, nv = m->nv, nu = m->nu, na = m->na, ns = m->nsensordata;
    const double* q = t == 0 ? c->qpos0 : s->qpos;
    const int want = gqvel != NULL;
    double v = 0;
    // the state terms
    if (c->cq) {
        const double* cq = c->cq + (size_t)t * (size_t)nq;
        for (int i = 0; i < nq; i++) {
            v += cq[i] * q[i];
        }
        if (gqpos && t > 0) {
            gdn_qpos_grad_to_tangent(m, s->qpos, cq, gqpos);
        }
    }
    if (c->cv) {
        const double* cv = c->cv + (size_t)t * (size_t)nv;
        for (int i = 0; i < nv; i++) {
            v += cv[i] * s->qvel[i];
        }
        if (gqvel) {
            memcpy(gqvel, cv, sizeof(double) * (size_t)nv);
        }
    }
    act_term(m, c, s, t, want, &v);
    // the sensors of step t (none at the terminal state)
    if (t < c->T && ns > 0) {
        double time = 0;
        for (int k = 0; k < t; k++) {
            time += m->opt.timestep; // gdn_step's time, one h per step
        }
        s->time = time;
        gdnStatus st = gdn_forward(m, s);
        if (st != GDN_OK) {
            return st;
        }
        const double* cs = c->cs + (size_t)t * (size_t)ns;
        for (int i = 0; i < ns; i++) {
            v += cs[i] * s->sensordata[i];
        }
        if (want) {
            st = gdn_sensor_vjp_act(m, s, cs, c->sq, c->sv, na > 0 ? c->sa : NULL, c->su);
            if (st != GDN_OK) {
                gdn_sensor_refusal(m, s, c->why, c->why_size);
                return st;
            }
            for (int i = 0; gqpos && i < nv; i++) {
                gqpos[i] += c->sq[i];
            }
            for (int i = 0; i < nv; i++) {
                gqvel[i] += c->sv[i];
            }
            for (int i = 0; gctrl && i < nu; i++) {
                gctrl[i] += c->su[i];
            }
            // the act part: added to ca_t's (or alone)
            if (na > 0) {
                if (!c->tape->cost_a_set) {
                    memset(c->tape->cost_a, 0, sizeof(double) * (size_t)na);
                }
                for (int i = 0; i < na; i++) {
                    c->tape->cost_a[i] += c->sa[i];
                }
                c->tape->cost_a_set = 1;
            }
        }
    }
    *value = v;
    return GDN_OK;
}

// one worker's tape and its buffers (carved from gdnBatchWorker.buf)
typedef struct adjoint_worker {
    gdnTape* tape;
    double* qpos_in;  // (nq) the qpos0 handed to the adjoint
    double* qpos_n;   // (nq) qpos0 normalized
    double* g_tan;    // (nv) the steps' tangent gradient of x_0
    double* g_row0;   // (nv) cq_0 in the tangent space
    double *sq, *sv, *sa, *su; // (nv, nv, na, nu) the sensor VJP's gradients
} adjoint_worker;

// worker k's tape and buffers
static adjoint_worker worker_view(const gdnModel* m, const gdnBatchWorker* k) {
    adjoint_worker w = {.tape = k->tape, .qpos_in = k->buf};
    w.qpos_n = w.qpos_in + m->nq;
    w.g_tan = w.qpos_n + m->nq;
    w.g_row0 = w.g_tan + m->nv;
    w.sq = w.g_row0 + m->nv;
    w.sv = w.sq + m->nv;
    w.sa = w.sv + m->nv;
    w.su = w.sa + m->na;
    return w;
}

typedef struct adjoint_job {
    const gdnModel* const* models;
    int nmodel, T;
    const double *qpos0, *qvel0, *act0, *ctrl, *cqpos, *cqvel, *cact, *csens;
    const gdnBatchGradients* out;
    gdnBatchStatus* status;
    gdnBatchWorker* workers; // the pool's: each one's tape and buffers
} adjoint_job;

// the entry's output arrays NaN
static void fail_outputs(const adjoint_job* job, const gdnModel* m, int b) {
    const gdnBatchGradients* o = job->out;
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, T = (size_t)job->T;
    if (o->J) o->J[b] = NAN;
    if (o->qpos0) gdn_batch_fill_nan(o->qpos0 + (size_t)b * nq, nq);
    if (o->qpos0_tangent) gdn_batch_fill_nan(o->qpos0_tangent + (size_t)b * nv, nv);
    if (o->qvel0) gdn_batch_fill_nan(o->qvel0 + (size_t)b * nv, nv);
    if (o->ctrl) gdn_batch_fill_nan(o->ctrl + (size_t)b * T * (size_t)m->nu, T * (size_t)m->nu);
    if (o->act0) gdn_batch_fill_nan(o->act0 + (size_t)b * (size_t)m->na, (size_t)m->na);
    // the per-entry parameter arrays and their doubles per entry
    const struct {
        double* x;
        size_t n;
    } params[] = {{o->param, (size_t)m->nbody * GDN_N_INERTIA_PARAMS},
                  {o->vert, 3 * (size_t)m->nvert},
                  {o->geom_friction, 3 * (size_t)m->ngeom},
                  {o->geom_solref, 2 * (size_t)m->ngeom},
                  {o->geom_solimp, 5 * (size_t)m->ngeom},
                  {o->geom_size, 3 * (size_t)m->ngeom},
                  {o->pair_friction, 5 * (size_t)m->npair},
                  {o->pair_solref, 2 * (size_t)m->npair},
                  {o->pair_solimp, 5 * (size_t)m->npair}};
    for (size_t k = 0; k < sizeof(params) / sizeof(params[0]); k++) {
        if (params[k].x) {
            gdn_batch_fill_nan(params[k].x + (size_t)b * params[k].n, params[k].n);
        }
    }
}

// row b of a per-entry array of n doubles per entry (NULL stays NULL)
static double* entry_row(double* x, int b, size_t n) {
    return x ? x + (size_t)b * n : NULL;
}

// qpos0 of entry b into w->qpos_in: as given when every quaternion is unit within
// GDN_ADJOINT_QUAT_TOL, else normalized; GDN_ERR_ARG (message in msg) for a vanishing one
static gdnStatus prepare_qpos0(const gdnModel* m, const double* x, adjoint_worker* w, char* msg,
                               int msg_size) {
    memcpy(w->qpos_in, x, sizeof(double) * (size_t)m->nq);
    memcpy(w->qpos_n, x, sizeof(double) * (size_t)m->nq);
    gdn_normalize_quat(m, w->qpos_n);
    int off = 0;
    for (int j = 0; j < m->njnt; j++) {
        const int type = m->jnt_type[j];
        if (type != GDN_JNT_FREE && type != GDN_JNT_BALL) {
            continue;
        }
        const double* q = x + m->jnt_qposadr[j] + (type == GDN_JNT_FREE ? 3 : 0);
        const double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(r >= GDN_MINVAL)) {
            return gdn_fail(GDN_ERR_ARG, msg, msg_size,
                            "qpos0: quaternion of joint %d has norm %g: no gradient", j, r);
        }
        off |= !(fabs(r - 1) <= GDN_ADJOINT_QUAT_TOL);
    }
    if (off) {
        memcpy(w->qpos_in, w->qpos_n, sizeof(double) * (size_t)m->nq);
    }
    return GDN_OK;
}

// entry b on worker wi: the adjoint of its linear objective, then the qpos0 gradients in both
// conventions from the steps' tangent gradient and row 0's cotangent
static void adjoint_entry(void* arg, int wi, int b) {
    const adjoint_job* job = arg;
    const gdnModel* m = gdn_batch_model(job->models, job->nmodel, b);
    const int nq = m->nq, nv = m->nv, nu = m->nu, T = job->T;
    adjoint_worker wv = worker_view(m, job->workers + wi);
    adjoint_worker* w = &wv;
    const gdnBatchGradients* o = job->out;
    gdnBatchStatus* s = job->status + b;
    char msg[GDN_BATCH_MESSAGE_SIZE], full[GDN_BATCH_MESSAGE_SIZE + 32],
        why[GDN_BATCH_MESSAGE_SIZE - 32] = "";
    msg[0] = '\0';
    const double* x0 = job->qpos0 + (size_t)b * (size_t)nq;
    const double* cq = job->cqpos ? job->cqpos + (size_t)b * (size_t)(T + 1) * (size_t)nq : NULL;
    const double* cv = job->cqvel ? job->cqvel + (size_t)b * (size_t)(T + 1) * (size_t)nv : NULL;
    const int ns = m->nsensordata, na = m->na;
    const double* ca = job->cact && na > 0
                           ? job->cact + (size_t)b * (size_t)(T + 1) * (size_t)na
                           : NULL;
    const double* cs = job->csens && ns > 0
                           ? job->csens + (size_t)b * (size_t)T * (size_t)ns
                           : NULL;

    gdnStatus st = prepare_qpos0(m, x0, w, msg, (int)sizeof(msg));
    double J = NAN;
    if (st == GDN_OK) {
        // the rollout and the objective
        gdnRollout r;
        gdn_rollout_init(m, T, &r);
        r.qpos0 = w->qpos_in;
        r.qvel0 = job->qvel0 + (size_t)b * (size_t)nv;
        r.ctrl = nu > 0 ? job->ctrl + (size_t)b * (size_t)T * (size_t)nu : NULL;
        r.act0 = job->act0 && m->na > 0 ? job->act0 + (size_t)b * (size_t)m->na : NULL;
        linear_cost c = {.cq = cq, .cv = cv, .ca = ca, .cs = cs, .qpos0 = x0, .T = T,
                         .tape = w->tape, .sq = w->sq, .sv = w->sv, .sa = w->sa, .su = w->su,
                         .why = why, .why_size = (int)sizeof(why)};
        // without sensor cotangents the qpos-coordinate objective of gdn_adjoint_batch
        gdnCostFn fn = cs ? sensor_cost_fn : linear_cost_fn;
        const int tangent = cs != NULL;
        gdnObjective obj = {.terminal = {fn, &c, tangent}, .running = {fn, &c, tangent}};
        // the gradients straight into the entry's output rows
        gdnAdjointGradients g;
        memset(&g, 0, sizeof(g));
        g.qpos0 = w->g_tan;
        g.qvel0 = o->qvel0 ? o->qvel0 + (size_t)b * (size_t)nv : NULL;
        g.ctrl = o->ctrl ? o->ctrl + (size_t)b * (size_t)T * (size_t)nu : NULL;
        g.act0 = entry_row(o->act0, b, (size_t)m->na);
        g.param = entry_row(o->param, b, (size_t)m->nbody * GDN_N_INERTIA_PARAMS);
        g.vert = entry_row(o->vert, b, 3 * (size_t)m->nvert);
        g.geom_friction = entry_row(o->geom_friction, b, 3 * (size_t)m->ngeom);
        g.geom_solref = entry_row(o->geom_solref, b, 2 * (size_t)m->ngeom);
        g.geom_solimp = entry_row(o->geom_solimp, b, 5 * (size_t)m->ngeom);
        g.geom_size = entry_row(o->geom_size, b, 3 * (size_t)m->ngeom);
        g.pair_friction = entry_row(o->pair_friction, b, 5 * (size_t)m->npair);
        g.pair_solref = entry_row(o->pair_solref, b, 2 * (size_t)m->npair);
        g.pair_solimp = entry_row(o->pair_solimp, b, 5 * (size_t)m->npair);
        st = gdn_adjoint_rollout_gradient(m, &r, &obj, w->tape, &g, msg, (int)sizeof(msg));
        J = g.J;
    }
    if (st != GDN_OK) {
        int step = -1;
        if (sscanf(msg, "step %d", &step) != 1) {
            step = -1;
        }
        // a sensor's refusal replaces the cost callback's generic message
        if (why[0]) {
            snprintf(full, sizeof(full), "entry %d: step %d: %s", b, step, why);
        } else {
            snprintf(full, sizeof(full), "entry %d: %s", b, msg);
        }
        gdn_batch_report(s, st, step, full);
        fail_outputs(job, m, b);
        return;
    }
    // dJ/dqpos0: the steps' share pulled back to raw coordinates (or kept tangent), plus cq_0
    if (o->J) {
        o->J[b] = J;
    }
    if (o->qpos0) {
        double* gq = o->qpos0 + (size_t)b * (size_t)nq;
        gdn_tangent_grad_to_qpos(m, x0, w->g_tan, gq);
        for (int i = 0; cq && i < nq; i++) {
            gq[i] += cq[i];
        }
    }
    if (o->qpos0_tangent) {
        double* gt = o->qpos0_tangent + (size_t)b * (size_t)nv;
        memcpy(gt, w->g_tan, sizeof(double) * (size_t)nv);
        if (cq) {
            gdn_qpos_grad_to_tangent(m, w->qpos_n, cq, w->g_row0);
            for (int i = 0; i < nv; i++) {
                gt[i] += w->g_row0[i];
            }
        }
    }
    gdn_batch_report(s, GDN_OK, -1, "");
}

// the checks beyond gdn_batch_check's: the outputs present, act0 and the cotangents finite
static gdnStatus check_gradient_args(const gdnModel* m, int nbatch, int T, const double* act0,
                                     const double* cqpos, const double* cqvel,
                                     const double* cact, const double* csens,
                                     const gdnBatchGradients* out,
                                     const gdnBatchStatus* status, char* err, int err_size) {
    if (!out || !status) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL out or status");
    }
    gdnStatus st = GDN_OK;
    if (act0 && m->na > 0) {
        st = gdn_batch_check_finite("act0", act0, nbatch, 1, m->na, err, err_size);
    }
    if (st == GDN_OK && cqpos) {
        st = gdn_batch_check_finite("cqpos", cqpos, nbatch, T + 1, m->nq, err, err_size);
    }
    if (st == GDN_OK && cqvel) {
        st = gdn_batch_check_finite("cqvel", cqvel, nbatch, T + 1, m->nv, err, err_size);
    }
    if (st == GDN_OK && cact && m->na > 0) {
        st = gdn_batch_check_finite("cact", cact, nbatch, T + 1, m->na, err, err_size);
    }
    if (st == GDN_OK && csens && m->nsensordata > 0) {
        st = gdn_batch_check_finite("csensordata", csens, nbatch, T, m->nsensordata, err,
                                    err_size);
    }
    return st;
}

// the workers' tapes made or grown, the entries run (every argument checked)
static gdnStatus pool_adjoint(gdnBatchPool* pool, const adjoint_job* proto, int nbatch,
                              char* err, int err_size) {
    // a full tape for T steps and the small buffers on each worker the call uses
    const int nuse = gdn_batch_pool_use(pool, nbatch);
    gdnStatus st = gdn_batch_pool_need_tapes(pool, proto->models[0], proto->T, nuse, err,
                                             err_size);
    if (st != GDN_OK) {
        return st;
    }
    adjoint_job job = *proto;
    job.workers = pool->workers;
    gdn_batch_threads_run(pool->threads, nuse, nbatch, adjoint_entry, &job);
    return GDN_OK;
}

gdnStatus gdn_batch_pool_adjoint_full(gdnBatchPool* pool, const gdnModel* const* models,
                                      int nmodel, int nbatch, int T, const double* qpos0,
                                      const double* qvel0, const double* act0,
                                      const double* ctrl, const double* cqpos,
                                      const double* cqvel, const double* cact,
                                      const double* csensordata,
                                      const gdnBatchGradients* out, gdnBatchStatus* status,
                                      char* err, int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    if (!pool) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL batch pool");
    }
    // one call at a time, then the inputs (models of the pool's sizes) and the run
    gdnStatus st = gdn_batch_pool_acquire(pool, err, err_size);
    if (st != GDN_OK) {
        return st;
    }
    st = gdn_batch_check(models, nmodel, nbatch, T, 0, qpos0, qvel0, ctrl, &pool->sizes, err,
                         err_size);
    if (st == GDN_OK) {
        st = check_gradient_args(models[0], nbatch, T, act0, cqpos, cqvel, cact, csensordata,
                                 out, status, err, err_size);
    }
    if (st == GDN_OK) {
        adjoint_job job = {.models = models, .nmodel = nmodel, .T = T, .qpos0 = qpos0,
                           .qvel0 = qvel0, .act0 = act0, .ctrl = ctrl, .cqpos = cqpos,
                           .cqvel = cqvel, .cact = cact, .csens = csensordata, .out = out,
                           .status = status};
        st = pool_adjoint(pool, &job, nbatch, err, err_size);
    }
    gdn_batch_pool_release(pool);
    return st;
}

gdnStatus gdn_batch_pool_adjoint(gdnBatchPool* pool, const gdnModel* const* models, int nmodel,
                                 int nbatch, int T, const double* qpos0, const double* qvel0,
                                 const double* ctrl, const double* cqpos, const double* cqvel,
                                 const gdnBatchGradients* out, gdnBatchStatus* status,
                                 char* err, int err_size) {
    return gdn_batch_pool_adjoint_full(pool, models, nmodel, nbatch, T, qpos0, qvel0, NULL, ctrl,
                                       cqpos, cqvel, NULL, NULL, out, status, err, err_size);
}

gdnStatus gdn_adjoint_batch_full(const gdnModel* const* models, int nmodel, int nbatch, int T,
                                 const double* qpos0, const double* qvel0, const double* act0,
                                 const double* ctrl, const double* cqpos, const double* cqvel,
                                 const double* cact, const double* csensordata, int nthread,
                                 const gdnBatchGradients* out, gdnBatchStatus* status, char* err,
                                 int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    gdnStatus st = gdn_batch_check(models, nmodel, nbatch, T, nthread, qpos0, qvel0, ctrl, NULL,
                                   err, err_size);
    if (st == GDN_OK) {
        st = check_gradient_args(models[0], nbatch, T, act0, cqpos, cqvel, cact, csensordata,
                                 out, status, err, err_size);
    }
    if (st != GDN_OK) {
        return st;
    }
    // a pool for this call only: its threads and tapes, run once, freed
    gdnBatchPool* pool = NULL;
    st = gdn_batch_pool_make(models[0], gdn_batch_workers(nthread, nbatch), &pool, err, err_size);
    if (st == GDN_OK) {
        adjoint_job job = {.models = models, .nmodel = nmodel, .T = T, .qpos0 = qpos0,
                           .qvel0 = qvel0, .act0 = act0, .ctrl = ctrl, .cqpos = cqpos,
                           .cqvel = cqvel, .cact = cact, .csens = csensordata, .out = out,
                           .status = status};
        st = pool_adjoint(pool, &job, nbatch, err, err_size);
    }
    gdn_batch_pool_free(pool);
    return st;
}

gdnStatus gdn_adjoint_batch(const gdnModel* const* models, int nmodel, int nbatch, int T,
                            const double* qpos0, const double* qvel0, const double* ctrl,
                            const double* cqpos, const double* cqvel, int nthread,
                            const gdnBatchGradients* out, gdnBatchStatus* status, char* err,
                            int err_size) {
    return gdn_adjoint_batch_full(models, nmodel, nbatch, T, qpos0, qvel0, NULL, ctrl, cqpos,
                                  cqvel, NULL, NULL, nthread, out, status, err, err_size);
}
