// SPDX-License-Identifier: Apache-2.0
// The integrator table (issue 12): Euler and RK4 steps, gradyn vs MuJoCo, and the RK4 adjoint.
#ifndef GDN_BENCH_INTEGRATOR_H
#define GDN_BENCH_INTEGRATOR_H

// print both tables: per-step time of gdn_step and mj_step rollouts (steps steps) under Euler
// and RK4 on four scenes, then the trajectory adjoint's gradient / rollout time ratio under
// Euler and RK4; medians of `batches` interleaved batches. Returns the failures
int bench_integrator_table(int batches, int steps);

#endif
