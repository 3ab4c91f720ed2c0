// SPDX-License-Identifier: Apache-2.0
// Wall-clock timing for the benchmark: a monotonic clock and the median of samples.
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <time.h>

#include "timer.h"

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// x[floor(p)] + frac(p) (x[floor(p) + 1] - x[floor(p)]), p = q (n - 1)
double bench_quantile_sorted(const double* x, int n, double q) {
    if (n <= 0) {
        return 0.0;
    }
    double p = q * (double)(n - 1);
    int i = (int)p;
    if (i >= n - 1) {
        return x[n - 1];
    }
    return x[i] + (p - (double)i) * (x[i + 1] - x[i]);
}

double bench_median(double* x, int n) {
    qsort(x, (size_t)n, sizeof(double), compare_doubles);
    return bench_quantile_sorted(x, n, 0.5);
}
