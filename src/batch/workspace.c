// SPDX-License-Identifier: Apache-2.0
// The batch pool: parked threads and per-worker gdnData / tapes that persist across calls,
// allocated on first need and grown only when a call needs more steps (docs/batch.md).
#include <stdlib.h>

#include <gradyn/batch.h>

#include "base/status.h"
#include "batch/workspace.h"

gdnStatus gdn_batch_pool_make(const gdnModel* m, int nworker, gdnBatchPool** out, char* err,
                              int err_size) {
    *out = NULL;
    gdnBatchPool* pool = calloc(1, sizeof(*pool));
    if (!pool) {
        return gdn_fail(GDN_ERR_MEMORY, err, err_size, "cannot allocate a batch pool");
    }
    gdn_batch_sizes_of(m, &pool->sizes);
    atomic_init(&pool->busy, 0);
    // the threads first: their count (fewer when the system refuses some) sizes the slots
    pool->threads = gdn_batch_threads_create(nworker);
    pool->nworker = gdn_batch_threads_count(pool->threads);
    pool->workers = pool->threads ? calloc((size_t)pool->nworker, sizeof(gdnBatchWorker)) : NULL;
    if (!pool->workers) {
        gdn_batch_threads_free(pool->threads);
        free(pool);
        return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                        "cannot start the %d worker threads of a batch pool", nworker);
    }
    pool->nalloc = 3; // the pool, its threads' block, the worker slots
    *out = pool;
    return GDN_OK;
}

gdnStatus gdn_batch_pool_create(const gdnModel* m, int nthread, gdnBatchPool** pool, char* err,
                                int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    if (!pool) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "gdn_batch_pool_create: NULL pool pointer");
    }
    *pool = NULL;
    if (!m) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "gdn_batch_pool_create: NULL model");
    }
    if (nthread < 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "gdn_batch_pool_create: nthread must be >= 0 (got %d)", nthread);
    }
    // 0: one worker per online core; at most GDN_BATCH_MAX_THREADS
    return gdn_batch_pool_make(m, gdn_batch_workers(nthread, GDN_BATCH_MAX_THREADS), pool, err,
                               err_size);
}

void gdn_batch_pool_free(gdnBatchPool* pool) {
    if (!pool) {
        return;
    }
    // the threads are parked (no call runs: the caller owns the pool): join them, then free
    gdn_batch_threads_free(pool->threads);
    for (int w = 0; w < pool->nworker; w++) {
        gdn_data_free(pool->workers[w].data);
        gdn_tape_free(pool->workers[w].tape);
        free(pool->workers[w].buf);
    }
    free(pool->workers);
    free(pool);
}

int gdn_batch_pool_nthread(const gdnBatchPool* pool) {
    return pool ? pool->nworker : 0;
}

size_t gdn_batch_pool_allocations(const gdnBatchPool* pool) {
    return pool ? pool->nalloc : 0;
}

int gdn_batch_pool_use(const gdnBatchPool* pool, int nbatch) {
    return nbatch < pool->nworker ? nbatch : pool->nworker;
}

gdnStatus gdn_batch_pool_acquire(gdnBatchPool* pool, char* err, int err_size) {
    // 0 -> 1, or another call holds the pool
    int idle = 0;
    if (!atomic_compare_exchange_strong(&pool->busy, &idle, 1)) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "the batch pool is busy: another call is running on it (a pool runs "
                        "one call at a time; use one pool per calling thread)");
    }
    return GDN_OK;
}

void gdn_batch_pool_release(gdnBatchPool* pool) {
    atomic_store(&pool->busy, 0);
}

gdnStatus gdn_batch_pool_need_data(gdnBatchPool* pool, const gdnModel* m, int nuse, char* err,
                                   int err_size) {
    for (int w = 0; w < nuse; w++) {
        gdnBatchWorker* k = pool->workers + w;
        if (k->data) {
            continue;
        }
        if (gdn_data_create(m, &k->data) != GDN_OK) {
            return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                            "cannot allocate the data of batch worker %d", w);
        }
        pool->nalloc++;
    }
    return GDN_OK;
}

gdnStatus gdn_batch_pool_need_tapes(gdnBatchPool* pool, const gdnModel* m, int T, int nuse,
                                    char* err, int err_size) {
    gdnTapeOptions opt;
    gdn_tape_options_init(m, T, 1, &opt);
    const size_t nbuf = 2 * (size_t)m->nq + 4 * (size_t)m->nv + (size_t)m->na + (size_t)m->nu;
    for (int w = 0; w < nuse; w++) {
        gdnBatchWorker* k = pool->workers + w;
        // the small buffers: qpos0 as handed to the adjoint, normalized, two tangent gradients,
        // the sensor VJP's three gradients
        if (!k->buf) {
            k->buf = malloc(sizeof(double) * (nbuf > 0 ? nbuf : 1));
            if (!k->buf) {
                return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                                "cannot allocate the buffers of batch worker %d", w);
            }
            pool->nalloc++;
        }
        // the tape: kept when it is long enough and reserves enough per step
        if (k->tape && k->tape_steps >= T && k->tape_reserve >= opt.solve_bytes_per_step) {
            continue;
        }
        // grown: at least as long and reserving at least as much as before, the new tape made
        // before the old one goes (a failure leaves the worker as it was)
        gdnTapeOptions grow = opt;
        if (k->tape_steps > grow.max_steps) {
            grow.max_steps = k->tape_steps;
        }
        if (k->tape_reserve > grow.solve_bytes_per_step) {
            grow.solve_bytes_per_step = k->tape_reserve;
        }
        gdnTape* tape = NULL;
        gdnStatus st = gdn_tape_create_opt(m, &grow, &tape, err, err_size);
        if (st != GDN_OK) {
            if (st == GDN_ERR_MEMORY) {
                return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                                "cannot allocate the tape of batch worker %d for %d steps", w,
                                grow.max_steps);
            }
            return st;
        }
        gdn_tape_free(k->tape);
        k->tape = tape;
        k->tape_steps = grow.max_steps;
        k->tape_reserve = grow.solve_bytes_per_step;
        pool->nalloc++;
    }
    return GDN_OK;
}
