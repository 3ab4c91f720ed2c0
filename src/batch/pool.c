// SPDX-License-Identifier: Apache-2.0
// Parked worker threads for the batch calls: woken per run by a generation counter under a
// mutex, entries claimed from an atomic counter, the caller joining in as worker 0.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
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

// one parked thread: its pool and its worker index (1 .. nworker - 1)
typedef struct pool_thread {
    gdnBatchThreads* pool;
    pthread_t id;
    int index;
} pool_thread;

struct gdnBatchThreads {
    pthread_mutex_t lock;
    pthread_cond_t wake;      // signalled (broadcast) when a run starts or the pool stops
    pthread_cond_t done;      // signalled when the last woken thread finishes its share
    int nthread;              // pthreads that started (workers 1 .. nthread)
    pool_thread* threads;     // nworker - 1 slots, nthread of them started
    // the current run, written under lock before generation moves
    unsigned long generation; // runs started; a thread works once per new value
    int stop;                 // 1: the threads exit
    int running;              // threads still working on the current run
    gdnBatchTask task;
    void* ctx;
    int n, nuse;
    atomic_int next;          // the next unclaimed entry
};

// claim entries of the current run until none is left
static void claim_entries(gdnBatchThreads* p, int worker) {
    for (;;) {
        const int e = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (e >= p->n) {
            return;
        }
        p->task(p->ctx, worker, e);
    }
}

// a parked thread: wait for a new generation (or stop), work on it when its index is in use,
// report, park again
static void* thread_main(void* arg) {
    pool_thread* t = arg;
    gdnBatchThreads* p = t->pool;
    // generation 0 is the pool's state before its first run (a run may start before this
    // thread first takes the lock: it then sees generation 1 and works on it)
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->stop) {
            pthread_cond_wait(&p->wake, &p->lock);
        }
        if (p->stop) {
            break;
        }
        seen = p->generation;
        const int work = t->index < p->nuse;
        pthread_mutex_unlock(&p->lock);
        if (work) {
            claim_entries(p, t->index);
        }
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

gdnBatchThreads* gdn_batch_threads_create(int nworker) {
    if (nworker < 1) {
        nworker = 1;
    }
    if (nworker > GDN_BATCH_MAX_THREADS) {
        nworker = GDN_BATCH_MAX_THREADS;
    }
    gdnBatchThreads* p = calloc(1, sizeof(*p));
    pool_thread* threads = nworker > 1 ? calloc((size_t)(nworker - 1), sizeof(*threads)) : NULL;
    if (!p || (nworker > 1 && !threads)) {
        free(p);
        free(threads);
        return NULL;
    }
    // the lock and the two condition variables
    int ok_lock = pthread_mutex_init(&p->lock, NULL) == 0;
    int ok_wake = pthread_cond_init(&p->wake, NULL) == 0;
    int ok_done = pthread_cond_init(&p->done, NULL) == 0;
    if (!ok_lock || !ok_wake || !ok_done) {
        if (ok_lock) pthread_mutex_destroy(&p->lock);
        if (ok_wake) pthread_cond_destroy(&p->wake);
        if (ok_done) pthread_cond_destroy(&p->done);
        free(threads);
        free(p);
        return NULL;
    }
    p->threads = threads;
    atomic_init(&p->next, 0);
    // workers 1 .. nworker - 1, stopping at the first thread that cannot be created (the
    // workers' indices stay contiguous)
    for (int i = 0; i < nworker - 1; i++) {
        threads[i].pool = p;
        threads[i].index = i + 1;
        if (pthread_create(&threads[i].id, NULL, thread_main, &threads[i]) != 0) {
            break;
        }
        p->nthread = i + 1;
    }
    return p;
}

int gdn_batch_threads_count(const gdnBatchThreads* p) {
    return p ? p->nthread + 1 : 1;
}

void gdn_batch_threads_run(gdnBatchThreads* p, int nuse, int n, gdnBatchTask task, void* ctx) {
    if (nuse > p->nthread + 1) {
        nuse = p->nthread + 1;
    }
    // publish the run and wake the parked threads (only those below nuse claim entries)
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->ctx = ctx;
    p->n = n;
    p->nuse = nuse;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->running = p->nthread;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    // the caller is worker 0
    claim_entries(p, 0);
    // wait until every woken thread is done (its writes are visible after the lock)
    pthread_mutex_lock(&p->lock);
    while (p->running > 0) {
        pthread_cond_wait(&p->done, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

void gdn_batch_threads_free(gdnBatchThreads* p) {
    if (!p) {
        return;
    }
    // stop, then join
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthread; i++) {
        pthread_join(p->threads[i].id, NULL);
    }
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}
