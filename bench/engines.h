// SPDX-License-Identifier: Apache-2.0
// One model loaded in both engines (gradyn and MuJoCo 2.2.2) with a shared set of random states.
#ifndef GDN_BENCH_ENGINES_H
#define GDN_BENCH_ENGINES_H

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

typedef struct benchModel {
    char name[64];      // short name used in the table and in --count
    char path[1024];    // MJCF file
    gdnModel* gm;       // gradyn model and data
    gdnData* gd;
    mjModel* mm;        // MuJoCo model and data
    mjData* md;
    int nq, nv, nu;     // sizes (identical in both engines, checked at load)
    int nstates;        // number of random states
    double* qpos;       // (nstates x nq) configurations
    double* qvel;       // (nstates x nv) velocities
    double* ctrl;       // (nstates x nu) controls inside ctrlrange
    double* force;      // (nstates x nv) joint forces (ABA input) and accelerations (RNEA input)
    double* scratch;    // (nv) per-call scratch of the MuJoCo rows
    gdnData** gd_pre;   // (nstates) gradyn data with kinematics done at state s (aba_pre row)
    mjData** md_pre;    // (nstates) MuJoCo data after mj_kinematics + mj_comPos at state s
    struct benchDeriv* deriv; // derivative-table context (bench_deriv_setup), NULL otherwise
    struct benchCnstr* cnstr; // constrained-derivative context (bench_cnstr_load), NULL otherwise
} benchModel;

// where gradyn's model comes from: its own MJCF loader, or a copy of MuJoCo's compiled model
// (tests/oracle/from_mujoco.c: isolates dynamics speed from any loader difference)
typedef enum benchSource { BENCH_SOURCE_XML = 0, BENCH_SOURCE_MUJOCO = 1 } benchSource;

// load path into both engines with constraints (contacts, limits) disabled and energy off, and
// draw nstates random states from seed; 0 on success, else -1 with a message in err
int bench_model_load(benchModel* bm, const char* name, const char* path, benchSource source,
                     int nstates, unsigned long long seed, char* err, int err_size);

void bench_model_free(benchModel* bm);

// copy state s (time 0, qpos, qvel, ctrl) into the gradyn data / the MuJoCo data
void bench_state_gradyn(benchModel* bm, int s);
void bench_state_mujoco(benchModel* bm, int s);

#endif
