// SPDX-License-Identifier: Apache-2.0
// Internal: parked worker threads that run a loop over batch entries (the caller is worker 0).
#ifndef GDN_BATCH_POOL_H
#define GDN_BATCH_POOL_H

// one entry's work on worker w (0 .. nworker - 1): the worker owns its own scratch
typedef void (*gdnBatchTask)(void* ctx, int worker, int entry);

// the worker count for a requested nthread (0: the online cores) and nbatch entries: at least
// 1, at most nbatch and GDN_BATCH_MAX_THREADS
int gdn_batch_workers(int nthread, int nbatch);

// nworker - 1 pthreads parked on a condition variable between runs, plus the calling thread
typedef struct gdnBatchThreads gdnBatchThreads;

// start the threads of nworker workers (1 .. GDN_BATCH_MAX_THREADS; worker 0 is the caller of
// each run, so nworker - 1 pthreads). When a thread cannot be created the pool keeps the ones
// that started (gdn_batch_threads_count says how many workers it has). NULL when the pool's
// own memory or its mutex / condition variables cannot be had
gdnBatchThreads* gdn_batch_threads_create(int nworker);

// the workers of the pool, the caller included (>= 1)
int gdn_batch_threads_count(const gdnBatchThreads* p);

// run task(ctx, w, e) for every entry e in [0, n) exactly once on workers w < nuse (at most
// the pool's count): the caller works as worker 0, the parked threads of workers 1 .. nuse - 1
// are woken and each takes the next unclaimed entry (an atomic counter) until none is left.
// Returns when every entry has run and every woken thread is parked again. Not reentrant: one
// run at a time per pool (the batch workspace's busy flag guarantees it)
void gdn_batch_threads_run(gdnBatchThreads* p, int nuse, int n, gdnBatchTask task, void* ctx);

// stop and join the threads, free the pool; NULL is ignored
void gdn_batch_threads_free(gdnBatchThreads* p);

#endif
