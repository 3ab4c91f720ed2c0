// SPDX-License-Identifier: Apache-2.0
// The issue-9 tables: derivatives through the constraint solve (constrained trajectory adjoint
// vs forward rollout, exact A, B vs mjd_transitionFD at states with contacts, per-step
// derivative cost). Kernels are benchKernel's, so --count and callgrind can run them too.
#ifndef GDN_BENCH_CONSTRAINED_H
#define GDN_BENCH_CONSTRAINED_H

#include "rows.h"

// one kernel, named for --count as MODEL/NAME/ENGINE
typedef struct benchCnstrKernel {
    const char* name;
    const char* what;
    int mujoco;            // 1: a MuJoCo kernel (engine "mujoco"), 0: gradyn
    int adjoint;           // 1: runs only on the models with adjoint rows (humanoid_floor)
    benchKernel* run;
} benchCnstrKernel;

extern const benchCnstrKernel bench_cnstr_kernels[];
extern const int bench_ncnstr_kernels;

// the models (name, path) and whether the adjoint rows run on each
extern const char* const bench_cnstr_model_names[];
extern const char* const bench_cnstr_model_paths[];
extern const int bench_cnstr_model_adjoint[];
extern const int bench_ncnstr_models;

// load model i of the list above in both engines with constraints on, its states (a MuJoCo
// rollout from qpos0, copied into both engines) and, for the adjoint model, its rollouts and
// tape; 0 on success, else -1 with a message
int bench_cnstr_load(benchModel* bm, int i, char* err, int err_size);
void bench_cnstr_free(benchModel* bm);

// print the three tables (batches of ~batch_seconds, interleaved, median); returns failures
int bench_cnstr_tables(int batches, double batch_seconds);

// --list lines and --count: 0 when MODEL/ROW/ENGINE is one of these kernels and ran, 1 on a
// load failure, 2 when the name is not one of them
void bench_cnstr_list(void);
int bench_cnstr_count(const char* model, const char* row, int mujoco, long calls);

#endif
