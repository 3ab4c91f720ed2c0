// SPDX-License-Identifier: Apache-2.0
// Internal: a fork-join loop over batch entries on pthreads (the caller is worker 0).
#ifndef GDN_BATCH_POOL_H
#define GDN_BATCH_POOL_H

// one entry's work on worker w (0 .. nworker - 1): the worker owns its own scratch
typedef void (*gdnBatchTask)(void* ctx, int worker, int entry);

// the worker count for a requested nthread (0: the online cores) and nbatch entries: at least
// 1, at most nbatch and GDN_BATCH_MAX_THREADS
int gdn_batch_workers(int nthread, int nbatch);

// run task(ctx, w, e) for every entry e in [0, n) once, on nworker threads: the calling thread
// and nworker - 1 pthreads, each taking the next unclaimed entry (an atomic counter) until none
// is left; returns after every entry ran. When a thread cannot be created the others take its
// share (every entry still runs exactly once)
void gdn_batch_run(int nworker, int n, gdnBatchTask task, void* ctx);

#endif
