// SPDX-License-Identifier: Apache-2.0
// The issue-3 tables: adjoint gradient vs forward rollout, transition Jacobians vs
// mjd_transitionFD. Kernels are benchKernel's, so --count and callgrind can run them too.
#ifndef GDN_BENCH_DERIVATIVE_H
#define GDN_BENCH_DERIVATIVE_H

#include "rows.h"

// one derivative kernel, named for --count as MODEL/NAME/ENGINE
typedef struct benchDerivKernel {
    const char* name;
    const char* what;
    int mujoco;            // 1: a MuJoCo kernel (engine "mujoco"), 0: gradyn
    benchKernel* run;
} benchDerivKernel;

extern const benchDerivKernel bench_deriv_kernels[];
extern const int bench_nderiv_kernels;

// the models of the derivative tables (name, path)
extern const char* const bench_deriv_model_names[];
extern const char* const bench_deriv_model_paths[];
extern const int bench_nderiv_models;

// prepare bm (loaded by bench_model_load) for the derivative kernels: rollouts, tape, penalty
// plane, Jacobian buffers; 0 on success, else -1 with a message
int bench_deriv_setup(benchModel* bm, char* err, int err_size);
void bench_deriv_free(benchModel* bm);

// print both tables (batches of ~batch_seconds, interleaved, median); returns failures
int bench_deriv_tables(int batches, double batch_seconds, int nstates,
                       unsigned long long seed);

#endif
