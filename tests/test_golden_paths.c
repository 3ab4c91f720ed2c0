// SPDX-License-Identifier: Apache-2.0
// Golden hashes of every solver path and every derivative: 1000-step rollouts of each test model
// under Newton, CG and PGS with both cones (FNV-1a over qpos, qvel, qacc, efc_force and the
// solver report after every step), and the step derivatives (JVP, VJP, A, B, the trajectory
// adjoint) on the smooth and penalty models.
//
// The hashes must be the same at -O0, -O2 and under sanitizers (-ffp-contract=off, no
// fast-math, controls from integer arithmetic). A refactor that keeps the physics keeps every
// hash; a change that alters arithmetic must update the table with a note saying why.
// `test_golden_paths --print` prints the table from the current code.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/golden.h"
#include "runner/golden_paths.h"
#include "runner/models.h"
#include "runner/test.h"


#include "golden_paths_table.h"

// the model's six rollout hashes (Newton, CG, PGS x pyramidal, elliptic), then its derivative
// hash
static int compute(const char* name, uint64_t* hash) {
    return gdn_golden_compute(name, GDN_INT_EULER, hash);
}

// committed row i: its six rollout hashes, then its derivative hash
static const char* committed(int i, uint64_t* hash) {
    memcpy(hash, kGolden[i].rollout, sizeof(kGolden[i].rollout));
    hash[6] = kGolden[i].derivative;
    return kGolden[i].model;
}


// every model's seven hashes equal the committed table
int main(int argc, char** argv) {
    const gdnTestGolden table = {gdn_golden_models, gdn_golden_nmodels,
                                 (int)(sizeof(kGolden) / sizeof(kGolden[0])), 7, "7 paths",
                                 compute, committed};
    return gdn_test_golden_main(argc, argv, "golden_paths", &table);
}
