// SPDX-License-Identifier: Apache-2.0
// The benchmark rows: for each quantity, the gradyn call sequence and its MuJoCo counterpart.
#ifndef GDN_BENCH_ROWS_H
#define GDN_BENCH_ROWS_H

#include "engines.h"

// one timed call: load random state s into one engine, then compute the row's quantity
typedef void benchKernel(benchModel* bm, int s);

// the output a row produces, compared between the engines before timing
typedef enum benchOutput {
    BENCH_OUT_XPOS,          // body positions (nbody x 3)
    BENCH_OUT_QFRC_INVERSE,  // M a + C (nv)
    BENCH_OUT_QM,            // dense joint-space inertia (nv x nv)
    BENCH_OUT_QACC,          // acceleration (nv)
    BENCH_OUT_NEXT_STATE     // qpos and qvel after one step (nq + nv)
} benchOutput;

typedef struct benchRow {
    const char* name;      // short name (table, --count)
    const char* gradyn;    // what the gradyn kernel calls
    const char* mujoco;    // what the MuJoCo kernel calls
    benchKernel* run_gradyn;
    benchKernel* run_mujoco;
    benchOutput output;
} benchRow;

extern const benchRow bench_rows[];
extern const int bench_nrows;

#endif
