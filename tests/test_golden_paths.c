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

static const char* const kModels[] = {
    "adj_ball",        "adj_box",          "adj_chain2",          "adj_flywheel",
    "adj_free_leg",    "adj_free_spin",    "adj_rpf",             "arm7",
    "ball_chain",      "box_penalty",      "box_spin",            "cnstr_box",
    "cnstr_fourbar",   "cnstr_frictionloss", "cnstr_pendulum",    "cnstr_sphere",
    "cnstr_weld",      "double_pendulum",  "humanoid32",          "pendulum",
    "scene_drop_box",  "scene_drop_capsule", "scene_drop_cylinder", "scene_drop_sphere",
    "scene_meshes",    "scene_slide",      "scene_slide_elliptic", "scene_tip",
    "slider",          "sol_box",          "sol_fourbar",         "sol_frictionloss",
    "sol_pendulum_limit", "sol_stack",
};
#define NMODEL ((int)(sizeof(kModels) / sizeof(kModels[0])))

// one row of the table: a model, its six rollout hashes (Newton, CG, PGS x pyramidal,
// elliptic) and its derivative hash
typedef struct GoldenRow {
    const char* model;
    uint64_t rollout[6];
    uint64_t derivative;
} GoldenRow;

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

static const gdnTestGolden kTable = {kModels, NMODEL, (int)(sizeof(kGolden) / sizeof(kGolden[0])),
                                     7, "7 paths", compute, committed};

// every model's seven hashes equal the committed table
int main(int argc, char** argv) {
    return gdn_test_golden_main(argc, argv, "golden_paths", &kTable);
}
