// SPDX-License-Identifier: Apache-2.0
// A fork-join loop over batch entries: the caller plus pthreads pulling entries from a counter.
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <gradyn/batch.h>

#include "batch/pool.h"

int gdn_batch_workers(int nthread, int nbatch) {
    long n = nthread;
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
    }
    if (n > nbatch) {
        n = nbatch;
    }
    if (n > GDN_BATCH_MAX_THREADS) {
        n = GDN_BATCH_MAX_THREADS;
    }
    return n < 1 ? 1 : (int)n;
}

// the loop's shared state
typedef struct pool_job {
    gdnBatchTask task;
    void* ctx;
    int n;
    atomic_int next;
} pool_job;

// one worker's share of the job
typedef struct pool_worker {
    pool_job* job;
    int index;
} pool_worker;

// claim entries until none is left
static void* worker_main(void* arg) {
    pool_worker* w = arg;
    pool_job* job = w->job;
    for (;;) {
        int e = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (e >= job->n) {
            break;
        }
        job->task(job->ctx, w->index, e);
    }
    return NULL;
}

void gdn_batch_run(int nworker, int n, gdnBatchTask task, void* ctx) {
    if (nworker < 1) {
        nworker = 1;
    }
    if (nworker > GDN_BATCH_MAX_THREADS) {
        nworker = GDN_BATCH_MAX_THREADS;
    }
    pool_job job = {.task = task, .ctx = ctx, .n = n};
    atomic_init(&job.next, 0);
    pool_worker workers[GDN_BATCH_MAX_THREADS];
    pthread_t threads[GDN_BATCH_MAX_THREADS];
    int started[GDN_BATCH_MAX_THREADS];
    // fork: workers 1 .. nworker - 1 on their own threads
    for (int w = 0; w < nworker; w++) {
        workers[w].job = &job;
        workers[w].index = w;
        started[w] = 0;
        if (w > 0) {
            started[w] = pthread_create(&threads[w], NULL, worker_main, &workers[w]) == 0;
        }
    }
    // worker 0 is the caller
    worker_main(&workers[0]);
    // join
    for (int w = 1; w < nworker; w++) {
        if (started[w]) {
            pthread_join(threads[w], NULL);
        }
    }
}
