// SPDX-License-Identifier: Apache-2.0
// Timing several kernels on one model: batches interleaved kernel by kernel, median per call.
#ifndef GDN_BENCH_INTERLEAVE_H
#define GDN_BENCH_INTERLEAVE_H

#include "rows.h"

#define BENCH_MAX_INTERLEAVED 8

// n kernels (n <= BENCH_MAX_INTERLEAVED), batches of ~batch_seconds each, the kernel order
// rotating per batch; median[k] seconds per call, spread[k] = IQR / median. 0 on success
int bench_time_interleaved(benchKernel* const* kernels, int n, benchModel* bm, int batches,
                           double batch_seconds, double* median, double* spread);

#endif
