// SPDX-License-Identifier: Apache-2.0
// Wall-clock timing for the demos: a monotonic clock and the rollout vs gradient medians.
#ifndef GDN_EXAMPLE_DEMO_TIMING_H
#define GDN_EXAMPLE_DEMO_TIMING_H

#include <gradyn/adjoint.h>

// seconds on a monotonic clock
double demo_now_seconds(void);

// median seconds of one gdn_rollout_objective (*forward) and of one
// gdn_adjoint_rollout_gradient (*gradient, forward + backward) at the given inputs, n runs of
// each interleaved (n at most 64)
void demo_time_gradient(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                        gdnTape* tape, gdnAdjointGradients* g, int n, double* forward,
                        double* gradient);

#endif
