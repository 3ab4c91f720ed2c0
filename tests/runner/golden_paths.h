// SPDX-License-Identifier: Apache-2.0
// The golden path hashes shared by the Euler and RK4 tables: 1000-step rollouts per solver and
// cone, and the derivative hash (JVP, VJP, A, B, the trajectory adjoint).
#ifndef GDN_TEST_RUNNER_GOLDEN_PATHS_H
#define GDN_TEST_RUNNER_GOLDEN_PATHS_H

#include <stdint.h>

#include <gradyn/gradyn.h>

// the test models of the golden path tables (Euler and RK4), in table order
extern const char* const gdn_golden_models[];
extern const int gdn_golden_nmodels;

// one committed row: a model, its six rollout hashes (Newton, CG, PGS x pyramidal, elliptic)
// and its derivative hash
typedef struct GoldenRow {
    const char* model;
    uint64_t rollout[6];
    uint64_t derivative;
} GoldenRow;

// a test model by name (tests/models/<name>.xml), with its own options; NULL on failure
gdnModel* gdn_golden_load(const char* name);

// FNV-1a over every step of a 1000-step rollout (qpos, qvel, qacc, the rows' forces and
// states, the iteration count, each step's status) under one solver and cone, from keyframe 0
// (else qpos0) with a small deterministic velocity and controls redrawn every 50 steps
uint64_t gdn_golden_rollout_hash(gdnModel* m, int solver, int cone);

// FNV-1a over A, B, one JVP and one VJP with every channel at 5 states of a 100-step rollout
// (constraints disabled; penalty models keep the penalty contact), then a 60-step trajectory
// adjoint of the target objective with full and checkpointed tapes
uint64_t gdn_golden_derivative_hash(gdnModel* m);

// the seven hashes of a model under an integrator: the six rollouts (Newton, CG, PGS x
// pyramidal, elliptic), then the derivative hash; 0 on success
int gdn_golden_compute(const char* name, int integrator, uint64_t* hash);

// a golden path test's main: every model of gdn_golden_models under integrator against the
// committed rows (nrow of them), `--print` printing the table; name is the test case, what
// the summary's ("7 RK4 paths"); returns the process exit code
int gdn_golden_integrator_main(int argc, char** argv, int integrator, const char* name,
                               const char* what, const GoldenRow* rows, int nrow);

#endif
