// SPDX-License-Identifier: Apache-2.0
// Interleaved batches of several kernels, median per-call time and relative spread.
#include "interleave.h"

#include <math.h>
#include <stdlib.h>

#include "timer.h"

// seconds for calls of kernel, cycling through the random states
static double time_calls(benchKernel* kernel, benchModel* bm, long calls) {
    double t0 = bench_now();
    for (long i = 0; i < calls; i++) {
        kernel(bm, (int)(i % bm->nstates));
    }
    return bench_now() - t0;
}

// calls per batch so that a batch lasts about target seconds (after a warm-up)
static long calls_for(benchKernel* kernel, benchModel* bm, double target) {
    time_calls(kernel, bm, 2);
    long n = 1;
    double t = time_calls(kernel, bm, n);
    while (t < target / 8 && n < (1L << 30)) {
        n *= 2;
        t = time_calls(kernel, bm, n);
    }
    long k = (long)ceil((double)n * target / fmax(t, 1e-9));
    return k < 1 ? 1 : k;
}

int bench_time_interleaved(benchKernel* const* kernels, int n, benchModel* bm, int batches,
                           double batch_seconds, double* median, double* spread) {
    if (n < 1 || n > BENCH_MAX_INTERLEAVED || batches < 1) {
        return -1;
    }
    long calls[BENCH_MAX_INTERLEAVED];
    double* samples = malloc(sizeof(double) * (size_t)(n * batches));
    if (!samples) {
        return -1;
    }
    for (int k = 0; k < n; k++) {
        calls[k] = calls_for(kernels[k], bm, batch_seconds);
    }
    for (int b = 0; b < batches; b++) {
        for (int j = 0; j < n; j++) {
            int k = (b + j) % n;
            samples[k * batches + b] = time_calls(kernels[k], bm, calls[k]) / (double)calls[k];
        }
    }
    for (int k = 0; k < n; k++) {
        double* s = samples + k * batches;
        median[k] = bench_median(s, batches);
        spread[k] = (bench_quantile_sorted(s, batches, 0.75) -
                     bench_quantile_sorted(s, batches, 0.25)) / median[k];
    }
    free(samples);
    return 0;
}
