// SPDX-License-Identifier: Apache-2.0
// Internal: the checks every batch call makes before anything runs, and per-entry reporting.
#ifndef GDN_BATCH_CHECK_H
#define GDN_BATCH_CHECK_H

#include <gradyn/batch.h>

// the sizes every model of a batch (and of a pool's calls) must share
typedef struct gdnBatchSizes {
    int nq, nv, nu, nbody, njnt, ngeom, nsite, nvert, nconmax, njmax, npair, nexclude, neq,
        nmesh, nmeshvert, nmeshface, nmeshgraph, na, nmocap, ntendon, nwrap, nsensor,
        nsensordata;
} gdnBatchSizes;

// the sizes of m
void gdn_batch_sizes_of(const gdnModel* m, gdnBatchSizes* s);

// models, nmodel, nbatch, T, nthread, the inputs (NULL, sizes, overflow of
// nbatch (T + 1) max(nq, nv, nu, na, nsensordata, 1) elements, finite values of qpos0, qvel0, ctrl); the
// message names the entry; with pool non-NULL (a pool's call) models[0] must have its sizes
// too. GDN_ERR_ARG or GDN_ERR_NONFINITE, GDN_OK
gdnStatus gdn_batch_check(const gdnModel* const* models, int nmodel, int nbatch, int T,
                          int nthread, const double* qpos0, const double* qvel0,
                          const double* ctrl, const gdnBatchSizes* pool, char* err,
                          int err_size);

// GDN_ERR_NONFINITE naming the entry, row and column of the first non-finite value of an
// [nbatch][rows][cols] array (name for the message), else GDN_OK
gdnStatus gdn_batch_check_finite(const char* name, const double* x, int nbatch, int rows,
                                 int cols, char* err, int err_size);

// the model of entry b
static inline const gdnModel* gdn_batch_model(const gdnModel* const* models, int nmodel, int b) {
    return models[nmodel == 1 ? 0 : b];
}

// status[b] = (st, step, message)
void gdn_batch_report(gdnBatchStatus* s, gdnStatus st, int step, const char* message);

// n NaNs into x
void gdn_batch_fill_nan(double* x, size_t n);

#endif
