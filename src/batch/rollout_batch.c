// SPDX-License-Identifier: Apache-2.0
// The rollout batch: one gdn_step loop per entry, entries spread over a batch pool's workers
// (gdn_batch_pool_rollout_full; gdn_rollout_batch_full on a pool made for the call; the calls
// without _full are them without act0, act and sensordata).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/batch.h>

#include "base/status.h"
#include "batch/check.h"
#include "batch/pool.h"
#include "batch/workspace.h"

// the call's inputs, outputs and per-worker data
typedef struct rollout_job {
    const gdnModel* const* models;
    int nmodel, T;
    const double *qpos0, *qvel0, *act0, *ctrl;
    double *qpos, *qvel, *act, *sensordata; // act, sensordata: NULL when not wanted
    int* ncon;
    gdnBatchStatus* status;
    gdnBatchWorker* workers; // the pool's: each one's data
} rollout_job;

// 1 when every x[i] is finite
static int all_finite(const double* x, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

// entry b on worker w: reset the worker's data, load x_0, step T times recording each state
// (and each step's sensordata); a failing step ends the entry with NaN rows after it
static void rollout_entry(void* arg, int w, int b) {
    const rollout_job* job = arg;
    const gdnModel* m = gdn_batch_model(job->models, job->nmodel, b);
    const int nq = m->nq, nv = m->nv, nu = m->nu, na = m->na, ns = m->nsensordata, T = job->T;
    gdnData* d = job->workers[w].data;
    double* qpos = job->qpos + (size_t)b * (size_t)(T + 1) * (size_t)nq;
    double* qvel = job->qvel + (size_t)b * (size_t)(T + 1) * (size_t)nv;
    double* act = job->act && na > 0 ? job->act + (size_t)b * (size_t)(T + 1) * (size_t)na
                                     : NULL;
    double* sens = job->sensordata && ns > 0
                       ? job->sensordata + (size_t)b * (size_t)T * (size_t)ns
                       : NULL;
    int* ncon = job->ncon ? job->ncon + (size_t)b * (size_t)(T + 1) : NULL;
    const double* ctrl = nu > 0 ? job->ctrl + (size_t)b * (size_t)T * (size_t)nu : NULL;
    gdnBatchStatus* s = job->status + b;

    // x_0 on a data as gdn_data_create leaves it (zero warm start, applied forces, time), with
    // act0 when given (else the reset's zeros)
    gdn_data_reset(m, d);
    memcpy(d->qpos, job->qpos0 + (size_t)b * (size_t)nq, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, job->qvel0 + (size_t)b * (size_t)nv, sizeof(double) * (size_t)nv);
    if (job->act0 && na > 0) {
        memcpy(d->act, job->act0 + (size_t)b * (size_t)na, sizeof(double) * (size_t)na);
    }
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)nv);
    if (act) {
        memcpy(act, d->act, sizeof(double) * (size_t)na);
    }
    gdn_batch_report(s, GDN_OK, -1, "");

    // the steps: row t + 1 after step t
    int t = 0;
    for (; t < T; t++) {
        if (nu > 0) {
            memcpy(d->ctrl, ctrl + (size_t)t * (size_t)nu, sizeof(double) * (size_t)nu);
        }
        gdnStatus st = gdn_step(m, d);
        if (st == GDN_OK && !(all_finite(d->qpos, nq) && all_finite(d->qvel, nv) &&
                              all_finite(d->act, na))) {
            st = GDN_ERR_NONFINITE;
        }
        if (st != GDN_OK) {
            char msg[GDN_BATCH_MESSAGE_SIZE];
            snprintf(msg, sizeof(msg), "entry %d: step %d: gdn_step failed (%s)%s", b, t,
                     gdn_status_string(st),
                     st == GDN_ERR_NONFINITE ? ": the state or acceleration is not finite (the "
                                               "rollout diverged)"
                                             : "");
            gdn_batch_report(s, st, t, msg);
            break;
        }
        if (ncon) {
            ncon[t] = d->ncon;
        }
        memcpy(qpos + (size_t)(t + 1) * (size_t)nq, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(qvel + (size_t)(t + 1) * (size_t)nv, d->qvel, sizeof(double) * (size_t)nv);
        if (act) {
            memcpy(act + (size_t)(t + 1) * (size_t)na, d->act, sizeof(double) * (size_t)na);
        }
        // the sensors step t computed at x_t
        if (sens) {
            memcpy(sens + (size_t)t * (size_t)ns, d->sensordata, sizeof(double) * (size_t)ns);
        }
    }
    if (t < T) {
        // failed at step t: rows t + 1 .. T are NaN (ncon t .. T: -1, sensordata t .. T-1 NaN)
        gdn_batch_fill_nan(qpos + (size_t)(t + 1) * (size_t)nq, (size_t)(T - t) * (size_t)nq);
        gdn_batch_fill_nan(qvel + (size_t)(t + 1) * (size_t)nv, (size_t)(T - t) * (size_t)nv);
        if (act) {
            gdn_batch_fill_nan(act + (size_t)(t + 1) * (size_t)na, (size_t)(T - t) * (size_t)na);
        }
        if (sens) {
            gdn_batch_fill_nan(sens + (size_t)t * (size_t)ns, (size_t)(T - t) * (size_t)ns);
        }
        for (int i = t; ncon && i <= T; i++) {
            ncon[i] = -1;
        }
        return;
    }
    // the contacts at x_T
    if (ncon) {
        ncon[T] = gdn_forward(m, d) == GDN_OK ? d->ncon : -1;
    }
}

// the workers' data made, the entries run (every argument checked)
static gdnStatus pool_rollout(gdnBatchPool* pool, const rollout_job* proto, int nbatch,
                              char* err, int err_size) {
    // a data on each worker the call uses, made for models[0] (every model has its sizes)
    const int nuse = gdn_batch_pool_use(pool, nbatch);
    gdnStatus st = gdn_batch_pool_need_data(pool, proto->models[0], nuse, err, err_size);
    if (st != GDN_OK) {
        return st;
    }
    rollout_job job = *proto;
    job.workers = pool->workers;
    gdn_batch_threads_run(pool->threads, nuse, nbatch, rollout_entry, &job);
    return GDN_OK;
}

// the checks beyond gdn_batch_check's: the outputs present, act0 finite
static gdnStatus check_rollout_args(const gdnModel* m, int nbatch, const double* act0,
                                    const double* qpos, const double* qvel,
                                    const gdnBatchStatus* status, char* err, int err_size) {
    if (!qpos || !qvel || !status) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL qpos, qvel or status output");
    }
    if (act0 && m->na > 0) {
        return gdn_batch_check_finite("act0", act0, nbatch, 1, m->na, err, err_size);
    }
    return GDN_OK;
}

gdnStatus gdn_batch_pool_rollout_full(gdnBatchPool* pool, const gdnModel* const* models,
                                      int nmodel, int nbatch, int T, const double* qpos0,
                                      const double* qvel0, const double* act0,
                                      const double* ctrl, double* qpos, double* qvel,
                                      double* act, double* sensordata, int* ncon,
                                      gdnBatchStatus* status, char* err, int err_size) {
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
        st = check_rollout_args(models[0], nbatch, act0, qpos, qvel, status, err, err_size);
    }
    if (st == GDN_OK) {
        rollout_job job = {.models = models, .nmodel = nmodel, .T = T, .qpos0 = qpos0,
                           .qvel0 = qvel0, .act0 = act0, .ctrl = ctrl, .qpos = qpos,
                           .qvel = qvel, .act = act, .sensordata = sensordata, .ncon = ncon,
                           .status = status};
        st = pool_rollout(pool, &job, nbatch, err, err_size);
    }
    gdn_batch_pool_release(pool);
    return st;
}

gdnStatus gdn_batch_pool_rollout(gdnBatchPool* pool, const gdnModel* const* models, int nmodel,
                                 int nbatch, int T, const double* qpos0, const double* qvel0,
                                 const double* ctrl, double* qpos, double* qvel, int* ncon,
                                 gdnBatchStatus* status, char* err, int err_size) {
    return gdn_batch_pool_rollout_full(pool, models, nmodel, nbatch, T, qpos0, qvel0, NULL, ctrl,
                                       qpos, qvel, NULL, NULL, ncon, status, err, err_size);
}

gdnStatus gdn_rollout_batch_full(const gdnModel* const* models, int nmodel, int nbatch, int T,
                                 const double* qpos0, const double* qvel0, const double* act0,
                                 const double* ctrl, int nthread, double* qpos, double* qvel,
                                 double* act, double* sensordata, int* ncon,
                                 gdnBatchStatus* status, char* err, int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    gdnStatus st = gdn_batch_check(models, nmodel, nbatch, T, nthread, qpos0, qvel0, ctrl, NULL,
                                   err, err_size);
    if (st == GDN_OK) {
        st = check_rollout_args(models[0], nbatch, act0, qpos, qvel, status, err, err_size);
    }
    if (st != GDN_OK) {
        return st;
    }
    // a pool for this call only: its threads and data, run once, freed
    gdnBatchPool* pool = NULL;
    st = gdn_batch_pool_make(models[0], gdn_batch_workers(nthread, nbatch), &pool, err, err_size);
    if (st == GDN_OK) {
        rollout_job job = {.models = models, .nmodel = nmodel, .T = T, .qpos0 = qpos0,
                           .qvel0 = qvel0, .act0 = act0, .ctrl = ctrl, .qpos = qpos,
                           .qvel = qvel, .act = act, .sensordata = sensordata, .ncon = ncon,
                           .status = status};
        st = pool_rollout(pool, &job, nbatch, err, err_size);
    }
    gdn_batch_pool_free(pool);
    return st;
}

gdnStatus gdn_rollout_batch(const gdnModel* const* models, int nmodel, int nbatch, int T,
                            const double* qpos0, const double* qvel0, const double* ctrl,
                            int nthread, double* qpos, double* qvel, int* ncon,
                            gdnBatchStatus* status, char* err, int err_size) {
    return gdn_rollout_batch_full(models, nmodel, nbatch, T, qpos0, qvel0, NULL, ctrl, nthread,
                                  qpos, qvel, NULL, NULL, ncon, status, err, err_size);
}
