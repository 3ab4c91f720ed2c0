// SPDX-License-Identifier: Apache-2.0
// Wall-clock timing for the benchmark: a monotonic clock and the median of samples.
#ifndef GDN_BENCH_TIMER_H
#define GDN_BENCH_TIMER_H

// seconds from CLOCK_MONOTONIC (an arbitrary origin; only differences mean anything)
double bench_now(void);

// median of x[0..n); sorts x in place
double bench_median(double* x, int n);

// q-quantile (0 <= q <= 1, linear interpolation) of x[0..n) already sorted ascending
double bench_quantile_sorted(const double* x, int n, double q);

#endif
