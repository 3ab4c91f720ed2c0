// SPDX-License-Identifier: Apache-2.0
// Demo timing: monotonic seconds and interleaved medians of rollout and gradient calls.
#define _POSIX_C_SOURCE 199309L
#include "demo_timing.h"

#include <stdlib.h>
#include <time.h>

double demo_now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

void demo_time_gradient(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                        gdnTape* tape, gdnAdjointGradients* g, int n, double* forward,
                        double* gradient) {
    double tf[64], tg[64];
    n = n < 1 ? 1 : n > 64 ? 64 : n;
    // interleaved so that both see the same machine load
    for (int k = 0; k < n; k++) {
        double J = 0;
        double t0 = demo_now_seconds();
        gdn_rollout_objective(m, r, obj, tape, &J, NULL, 0);
        double t1 = demo_now_seconds();
        gdn_adjoint_rollout_gradient(m, r, obj, tape, g, NULL, 0);
        tf[k] = t1 - t0;
        tg[k] = demo_now_seconds() - t1;
    }
    qsort(tf, (size_t)n, sizeof(double), cmp_double);
    qsort(tg, (size_t)n, sizeof(double), cmp_double);
    *forward = tf[n / 2];
    *gradient = tg[n / 2];
}
