// SPDX-License-Identifier: Apache-2.0
// The issue-11 table: batched rollouts (gdn_rollout_batch) and batched gradients
// (gdn_adjoint_batch) on 1 and 2 threads, one-shot and on a gdnBatchPool, against MuJoCo 2.2.2's mj_step run the way
// mujoco.rollout runs it (one mjData per thread, entries claimed from a shared counter, every
// step's state recorded), on the humanoid state of the mujoco.rollout notebook.
#include "batch.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/batch.h>
#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "timer.h"

#define BATCH_MODEL "/usr/share/mujoco/model/humanoid/humanoid.xml"
#define BATCH_MAX_THREADS 2

// the cases: (nbatch, nstep). 256 x 5 is the notebook's nominal point; the others are its
// nstep sweep at sizes that fit two cores
#define BATCH_NCASE 3
static const int case_nbatch[BATCH_NCASE] = {256, 64, 8};
static const int case_nstep[BATCH_NCASE] = {5, 100, 1000};

// ---------------------------------------------------------------- the MuJoCo peer

// one MuJoCo batch: entries claimed by nthread workers, each with its own mjData
typedef struct mujocoBatch {
    const mjModel* m;
    mjData* data[BATCH_MAX_THREADS];
    int nbatch, nstep;
    const double *qpos0, *qvel0;
    double *qpos, *qvel; // (nbatch x (nstep + 1) x nq | nv)
    atomic_int next;
} mujocoBatch;

typedef struct mujocoWorker {
    mujocoBatch* job;
    int id;
} mujocoWorker;

// per entry: reset, set the initial state, nstep mj_step with zero controls, record each state
static void* mujoco_worker(void* arg) {
    mujocoWorker* w = arg;
    mujocoBatch* job = w->job;
    const mjModel* m = job->m;
    mjData* d = job->data[w->id];
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, rows = (size_t)job->nstep + 1;
    for (int b = atomic_fetch_add(&job->next, 1); b < job->nbatch;
         b = atomic_fetch_add(&job->next, 1)) {
        mj_resetData(m, d);
        memcpy(d->qpos, job->qpos0, sizeof(double) * nq);
        memcpy(d->qvel, job->qvel0, sizeof(double) * nv);
        double* qp = job->qpos + (size_t)b * rows * nq;
        double* qv = job->qvel + (size_t)b * rows * nv;
        memcpy(qp, d->qpos, sizeof(double) * nq);
        memcpy(qv, d->qvel, sizeof(double) * nv);
        for (int t = 0; t < job->nstep; t++) {
            mj_step(m, d);
            memcpy(qp + (size_t)(t + 1) * nq, d->qpos, sizeof(double) * nq);
            memcpy(qv + (size_t)(t + 1) * nv, d->qvel, sizeof(double) * nv);
        }
    }
    return NULL;
}

// run the MuJoCo batch on nthread threads (the caller is worker 0, as in gradyn's pool)
static void mujoco_batch_run(mujocoBatch* job, int nthread) {
    atomic_store(&job->next, 0);
    pthread_t threads[BATCH_MAX_THREADS];
    mujocoWorker workers[BATCH_MAX_THREADS];
    int started[BATCH_MAX_THREADS] = {0};
    for (int i = 0; i < nthread; i++) {
        workers[i].job = job;
        workers[i].id = i;
    }
    for (int i = 1; i < nthread; i++) {
        started[i] = pthread_create(&threads[i], NULL, mujoco_worker, &workers[i]) == 0;
    }
    mujoco_worker(&workers[0]);
    for (int i = 1; i < nthread; i++) {
        if (started[i]) {
            pthread_join(threads[i], NULL);
        }
    }
}

// ---------------------------------------------------------------- the table

// the start state of the notebook's humanoid benchmark: qvel[2] = 4 (a jump), then 2 s of
// steps with zero controls (gradyn's steps; both engines start from this qpos, qvel)
static int start_state(const gdnModel* m, double* qpos, double* qvel) {
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return -1;
    }
    gdn_data_reset(m, d);
    d->qvel[2] = 4;
    int rc = 0;
    while (d->time < 2.0 && rc == 0) {
        rc = gdn_step(m, d) == GDN_OK ? 0 : -1;
    }
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    gdn_data_free(d);
    return rc;
}

// the timed calls of one case: median seconds over batches of each engine and thread count
typedef struct batchTimes {
    double gradyn[BATCH_MAX_THREADS];  // gdn_rollout_batch
    double grad[BATCH_MAX_THREADS];    // gdn_adjoint_batch
    double mujoco[BATCH_MAX_THREADS];  // the mj_step peer
    double max_qpos_diff;              // max |qpos_gradyn - qpos_mujoco| over the batch
    int failed;
} batchTimes;

// buffers of one case
typedef struct batchBuffers {
    double *qpos0, *qvel0, *ctrl, *qpos, *qvel, *mqpos, *mqvel, *cqpos, *cqvel;
    double *J, *gq0, *gv0, *gctrl;
    gdnBatchStatus* status;
} batchBuffers;

static void buffers_free(batchBuffers* b) {
    free(b->qpos0); free(b->qvel0); free(b->ctrl); free(b->qpos); free(b->qvel);
    free(b->mqpos); free(b->mqvel); free(b->cqpos); free(b->cqvel); free(b->J);
    free(b->gq0); free(b->gv0); free(b->gctrl); free(b->status);
    memset(b, 0, sizeof(*b));
}

// allocate the buffers of nbatch x nstep; the initial states all equal (q0, v0) as in the
// notebook; the cotangents pick J = sum of the final qpos and qvel; 0 on success
static int buffers_alloc(batchBuffers* b, const gdnModel* m, int nbatch, int nstep,
                         const double* q0, const double* v0) {
    memset(b, 0, sizeof(*b));
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nu = (size_t)m->nu;
    const size_t B = (size_t)nbatch, rows = (size_t)nstep + 1;
    b->qpos0 = malloc(sizeof(double) * B * nq);
    b->qvel0 = malloc(sizeof(double) * B * nv);
    b->ctrl = calloc(B * (size_t)nstep * nu + 1, sizeof(double));
    b->qpos = malloc(sizeof(double) * B * rows * nq);
    b->qvel = malloc(sizeof(double) * B * rows * nv);
    b->mqpos = malloc(sizeof(double) * B * rows * nq);
    b->mqvel = malloc(sizeof(double) * B * rows * nv);
    b->cqpos = calloc(B * rows * nq, sizeof(double));
    b->cqvel = calloc(B * rows * nv, sizeof(double));
    b->J = malloc(sizeof(double) * B);
    b->gq0 = malloc(sizeof(double) * B * nq);
    b->gv0 = malloc(sizeof(double) * B * nv);
    b->gctrl = malloc(sizeof(double) * (B * (size_t)nstep * nu + 1));
    b->status = malloc(sizeof(gdnBatchStatus) * B);
    if (!b->qpos0 || !b->qvel0 || !b->ctrl || !b->qpos || !b->qvel || !b->mqpos || !b->mqvel ||
        !b->cqpos || !b->cqvel || !b->J || !b->gq0 || !b->gv0 || !b->gctrl || !b->status) {
        buffers_free(b);
        return -1;
    }
    for (size_t e = 0; e < B; e++) {
        memcpy(b->qpos0 + e * nq, q0, sizeof(double) * nq);
        memcpy(b->qvel0 + e * nv, v0, sizeof(double) * nv);
        for (size_t i = 0; i < nq; i++) {
            b->cqpos[(e * rows + rows - 1) * nq + i] = 1;
        }
        for (size_t i = 0; i < nv; i++) {
            b->cqvel[(e * rows + rows - 1) * nv + i] = 1;
        }
    }
    return 0;
}

// every entry GDN_OK?
static int all_ok(const gdnBatchStatus* s, int n) {
    for (int i = 0; i < n; i++) {
        if (s[i].status != GDN_OK) {
            return 0;
        }
    }
    return 1;
}

// time one case: nbatches rounds, each running every engine x thread count once in an order
// that alternates per round; medians
static batchTimes time_case(const gdnModel* gm, mujocoBatch* mb, batchBuffers* b, int nbatch,
                            int nstep, int nbatches) {
    batchTimes r;
    memset(&r, 0, sizeof(r));
    const gdnModel* models[1] = {gm};
    gdnBatchGradients out = {0};
    out.J = b->J;
    out.qpos0 = b->gq0;
    out.qvel0 = b->gv0;
    out.ctrl = b->gctrl;
    mb->nbatch = nbatch;
    mb->nstep = nstep;
    mb->qpos0 = b->qpos0;
    mb->qvel0 = b->qvel0;
    mb->qpos = b->mqpos;
    mb->qvel = b->mqvel;
    double* samples = malloc(sizeof(double) * (size_t)nbatches * 3 * BATCH_MAX_THREADS);
    if (!samples) {
        r.failed = 1;
        return r;
    }
    for (int round = 0; round < nbatches; round++) {
        for (int k = 0; k < 3 * BATCH_MAX_THREADS; k++) {
            int slot = round % 2 ? 3 * BATCH_MAX_THREADS - 1 - k : k;
            int engine = slot / BATCH_MAX_THREADS, nthread = 1 + slot % BATCH_MAX_THREADS;
            double t0 = bench_now();
            if (engine == 0) {
                r.failed |= gdn_rollout_batch(models, 1, nbatch, nstep, b->qpos0, b->qvel0,
                                              b->ctrl, nthread, b->qpos, b->qvel, NULL,
                                              b->status, NULL, 0) != GDN_OK ||
                            !all_ok(b->status, nbatch);
            } else if (engine == 1) {
                r.failed |= gdn_adjoint_batch(models, 1, nbatch, nstep, b->qpos0, b->qvel0,
                                              b->ctrl, b->cqpos, b->cqvel, nthread, &out,
                                              b->status, NULL, 0) != GDN_OK ||
                            !all_ok(b->status, nbatch);
            } else {
                mujoco_batch_run(mb, nthread);
            }
            samples[(size_t)slot * (size_t)nbatches + (size_t)round] = bench_now() - t0;
        }
    }
    for (int slot = 0; slot < 3 * BATCH_MAX_THREADS; slot++) {
        double med = bench_median(samples + (size_t)slot * (size_t)nbatches, nbatches);
        int engine = slot / BATCH_MAX_THREADS, t = slot % BATCH_MAX_THREADS;
        (engine == 0 ? r.gradyn : engine == 1 ? r.grad : r.mujoco)[t] = med;
    }
    free(samples);
    // the two engines' trajectories (the last rollout of each)
    const size_t n = (size_t)nbatch * (size_t)(nstep + 1) * (size_t)gm->nq;
    for (size_t i = 0; i < n; i++) {
        double dq = fabs(b->qpos[i] - b->mqpos[i]);
        r.max_qpos_diff = dq > r.max_qpos_diff ? dq : r.max_qpos_diff;
    }
    return r;
}

// the MPC case: many small calls (nbatch x nstep = 8 x 20), one-shot calls (threads and
// per-thread data made per call) vs a gdnBatchPool made once; median seconds per call over
// `batches` rounds of `calls` calls each. out[engine][threads]: engine 0 one-shot rollout,
// 1 pool rollout, 2 one-shot gradient, 3 pool gradient
#define SMALL_NBATCH 8
#define SMALL_NSTEP 20
static int time_small_calls(const gdnModel* gm, batchBuffers* b, int batches, int calls,
                            double out[4][BATCH_MAX_THREADS]) {
    const gdnModel* models[1] = {gm};
    gdnBatchGradients g = {0};
    g.J = b->J;
    g.qpos0 = b->gq0;
    g.qvel0 = b->gv0;
    g.ctrl = b->gctrl;
    gdnBatchPool* pools[BATCH_MAX_THREADS] = {NULL};
    double* samples = malloc(sizeof(double) * (size_t)batches * 4 * BATCH_MAX_THREADS);
    int failed = samples == NULL;
    for (int t = 0; t < BATCH_MAX_THREADS && !failed; t++) {
        failed |= gdn_batch_pool_create(gm, t + 1, &pools[t], NULL, 0) != GDN_OK;
    }
    for (int round = 0; round < batches && !failed; round++) {
        for (int k = 0; k < 4 * BATCH_MAX_THREADS; k++) {
            int slot = round % 2 ? 4 * BATCH_MAX_THREADS - 1 - k : k;
            int engine = slot / BATCH_MAX_THREADS, t = slot % BATCH_MAX_THREADS;
            double t0 = bench_now();
            for (int c = 0; c < calls; c++) {
                gdnStatus st;
                if (engine == 0) {
                    st = gdn_rollout_batch(models, 1, SMALL_NBATCH, SMALL_NSTEP, b->qpos0,
                                           b->qvel0, b->ctrl, t + 1, b->qpos, b->qvel, NULL,
                                           b->status, NULL, 0);
                } else if (engine == 1) {
                    st = gdn_batch_pool_rollout(pools[t], models, 1, SMALL_NBATCH, SMALL_NSTEP,
                                                b->qpos0, b->qvel0, b->ctrl, b->qpos, b->qvel,
                                                NULL, b->status, NULL, 0);
                } else if (engine == 2) {
                    st = gdn_adjoint_batch(models, 1, SMALL_NBATCH, SMALL_NSTEP, b->qpos0,
                                           b->qvel0, b->ctrl, b->cqpos, b->cqvel, t + 1, &g,
                                           b->status, NULL, 0);
                } else {
                    st = gdn_batch_pool_adjoint(pools[t], models, 1, SMALL_NBATCH, SMALL_NSTEP,
                                                b->qpos0, b->qvel0, b->ctrl, b->cqpos,
                                                b->cqvel, &g, b->status, NULL, 0);
                }
                failed |= st != GDN_OK || !all_ok(b->status, SMALL_NBATCH);
            }
            samples[(size_t)slot * (size_t)batches + (size_t)round] =
                (bench_now() - t0) / calls;
        }
    }
    for (int slot = 0; slot < 4 * BATCH_MAX_THREADS && !failed; slot++) {
        out[slot / BATCH_MAX_THREADS][slot % BATCH_MAX_THREADS] =
            bench_median(samples + (size_t)slot * (size_t)batches, batches);
    }
    for (int t = 0; t < BATCH_MAX_THREADS; t++) {
        gdn_batch_pool_free(pools[t]);
    }
    free(samples);
    return failed;
}

int bench_batch_table(int batches) {
    char err[512] = "";
    gdnModel* gm = NULL;
    mjModel* mm = NULL;
    mujocoBatch mb;
    memset(&mb, 0, sizeof(mb));
    int failures = 0;
    if (gdn_load_xml(BATCH_MODEL, &gm, err, sizeof(err), NULL, 0) != GDN_OK ||
        !(mm = mj_loadXML(BATCH_MODEL, NULL, err, sizeof(err)))) {
        printf("\nbatch table: cannot load %s: %s\n", BATCH_MODEL, err);
        gdn_model_free(gm);
        return 1;
    }
    mb.m = mm;
    for (int i = 0; i < BATCH_MAX_THREADS; i++) {
        mb.data[i] = mj_makeData(mm);
    }
    double* q0 = malloc(sizeof(double) * (size_t)gm->nq);
    double* v0 = malloc(sizeof(double) * (size_t)gm->nv);
    if (!q0 || !v0 || start_state(gm, q0, v0)) {
        printf("\nbatch table: the start state failed\n");
        failures = 1;
        goto done;
    }
    printf("\n### Batched rollouts and gradients (issue 11): humanoid.xml, 1 and 2 threads\n\n");
    printf("Start state: the mujoco.rollout notebook's humanoid benchmark (qvel[2] = 4, then 2 s "
           "of steps), zero controls, every step's state recorded by both engines. MuJoCo: "
           "mj_step on one mjData per thread, entries claimed from a shared counter (what "
           "mujoco.rollout does; MuJoCo 2.2.2 has no rollout module). gradient: "
           "gdn_adjoint_batch of J = sum of the final qpos and qvel (a forward pass with the "
           "tape, then the adjoint). Median of %d rounds, not pinned.\n\n", batches);
    printf("| nbatch x nstep | threads | gradyn rollout ms | MuJoCo ms | gradyn / MuJoCo | "
           "gradyn ksteps/s | gradient ms | gradient / rollout |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    double diff[BATCH_NCASE] = {0};
    for (int c = 0; c < BATCH_NCASE; c++) {
        batchBuffers b;
        if (buffers_alloc(&b, gm, case_nbatch[c], case_nstep[c], q0, v0)) {
            printf("| %d x %d | out of memory |\n", case_nbatch[c], case_nstep[c]);
            failures++;
            continue;
        }
        batchTimes r = time_case(gm, &mb, &b, case_nbatch[c], case_nstep[c], batches);
        double steps = (double)case_nbatch[c] * case_nstep[c];
        for (int t = 0; t < BATCH_MAX_THREADS; t++) {
            printf("| %d x %d | %d | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f |\n",
                   case_nbatch[c], case_nstep[c], t + 1, 1e3 * r.gradyn[t], 1e3 * r.mujoco[t],
                   r.gradyn[t] / r.mujoco[t], 1e-3 * steps / r.gradyn[t], 1e3 * r.grad[t],
                   r.grad[t] / r.gradyn[t]);
        }
        printf("| %d x %d | 2 vs 1 | %.2fx | %.2fx | | | %.2fx | |\n", case_nbatch[c],
               case_nstep[c], r.gradyn[0] / r.gradyn[1], r.mujoco[0] / r.mujoco[1],
               r.grad[0] / r.grad[1]);
        if (r.failed) {
            printf("| %d x %d | a gradyn entry failed |\n", case_nbatch[c], case_nstep[c]);
            failures++;
        }
        diff[c] = r.max_qpos_diff;
        buffers_free(&b);
    }
    // the small repeated calls: one-shot vs the pool
    batchBuffers sb;
    double small[4][BATCH_MAX_THREADS] = {{0}};
    if (buffers_alloc(&sb, gm, SMALL_NBATCH, SMALL_NSTEP, q0, v0) ||
        time_small_calls(gm, &sb, batches, 40, small)) {
        printf("\nsmall repeated calls: failed\n");
        failures++;
    } else {
        printf("\nMany small calls (the MPC case: %d x %d per call, 40 calls per round), per "
               "call, one-shot calls (threads, data and tapes made per call) vs a gdnBatchPool "
               "made once (parked threads, data and tapes kept):\n\n",
               SMALL_NBATCH, SMALL_NSTEP);
        printf("| threads | rollout one-shot ms | rollout pool ms | pool speedup | gradient "
               "one-shot ms | gradient pool ms | pool speedup |\n|---|---|---|---|---|---|---|\n");
        for (int t = 0; t < BATCH_MAX_THREADS; t++) {
            printf("| %d | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx |\n", t + 1,
                   1e3 * small[0][t], 1e3 * small[1][t], small[0][t] / small[1][t],
                   1e3 * small[2][t], 1e3 * small[3][t], small[2][t] / small[3][t]);
        }
    }
    buffers_free(&sb);
    printf("\nmax |qpos gradyn - qpos MuJoCo| over each batch:");
    for (int c = 0; c < BATCH_NCASE; c++) {
        printf(" %d x %d: %.1e%s", case_nbatch[c], case_nstep[c], diff[c],
               c + 1 < BATCH_NCASE ? ";" : "\n");
    }
done:
    free(q0);
    free(v0);
    for (int i = 0; i < BATCH_MAX_THREADS; i++) {
        if (mb.data[i]) {
            mj_deleteData(mb.data[i]);
        }
    }
    mj_deleteModel(mm);
    gdn_model_free(gm);
    return failures;
}
