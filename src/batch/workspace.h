// SPDX-License-Identifier: Apache-2.0
// Internal: the batch pool's state (gdnBatchPool of include/gradyn/batch.h): parked threads,
// per-worker data and tapes grown on demand, the busy flag, an allocation counter for tests.
#ifndef GDN_BATCH_WORKSPACE_H
#define GDN_BATCH_WORKSPACE_H

#include <stdatomic.h>
#include <stddef.h>

#include <gradyn/batch.h>

#include "batch/check.h"
#include "batch/pool.h"

// one worker's memory, each part allocated on its first use and kept
typedef struct gdnBatchWorker {
    gdnData* data;       // rollout calls: one gdnData for the pool's sizes
    gdnTape* tape;       // gradient calls: a full tape for tape_steps steps
    int tape_steps;      // the tape's max_steps (0: no tape)
    size_t tape_reserve; // the solve reserve per step slot it was created with
    double* buf;         // gradient calls: 2 nq + 4 nv + na + nu doubles (adjoint_batch.c)
} gdnBatchWorker;

struct gdnBatchPool {
    gdnBatchSizes sizes;      // of the creation model: every call's models must have them
    gdnBatchThreads* threads; // workers 1 .. nworker - 1 (worker 0 is the caller)
    int nworker;              // the workers, caller included
    gdnBatchWorker* workers;  // (nworker)
    atomic_int busy;          // 1 while a call runs (a second call is refused)
    size_t nalloc;            // allocations made since creation (create included)
};

// the pool of nworker workers (1 .. GDN_BATCH_MAX_THREADS; fewer when threads cannot be
// started) for models of m's sizes: threads started, no data or tape yet. GDN_ERR_MEMORY
gdnStatus gdn_batch_pool_make(const gdnModel* m, int nworker, gdnBatchPool** pool, char* err,
                              int err_size);

// take the pool for one call: GDN_ERR_ARG (message in err) when another call holds it
gdnStatus gdn_batch_pool_acquire(gdnBatchPool* pool, char* err, int err_size);
void gdn_batch_pool_release(gdnBatchPool* pool);

// workers 0 .. nuse - 1 get a gdnData (for m, of the pool's sizes) unless they have one.
// GDN_ERR_MEMORY (the ones made so far are kept)
gdnStatus gdn_batch_pool_need_data(gdnBatchPool* pool, const gdnModel* m, int nuse, char* err,
                                   int err_size);

// workers 0 .. nuse - 1 get a tape for T steps whose solve reserve per step slot is at least
// gdn_tape_options_init(m, T, 1)'s, and their buffers: a worker's tape is replaced only when
// it has fewer steps or a smaller reserve. GDN_ERR_MEMORY (a worker keeps its old tape then)
gdnStatus gdn_batch_pool_need_tapes(gdnBatchPool* pool, const gdnModel* m, int T, int nuse,
                                    char* err, int err_size);

// the workers a call of nbatch entries uses: min(nworker, nbatch)
int gdn_batch_pool_use(const gdnBatchPool* pool, int nbatch);

// allocations the pool made since its creation (its own memory, threads' slots, data, tapes,
// buffers): repeated calls that need nothing new leave it unchanged (tests/test_batch.c)
size_t gdn_batch_pool_allocations(const gdnBatchPool* pool);

#endif
