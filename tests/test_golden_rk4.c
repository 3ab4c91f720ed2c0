// SPDX-License-Identifier: Apache-2.0
// Golden hashes of the RK4 integrator's paths: test_golden_paths' rollouts (Newton, CG, PGS x
// both cones) and derivative hash (JVP, VJP, A, B, the trajectory adjoint) of every test model
// with m->opt.integrator = GDN_INT_RK4 (runner/golden_paths.h). The same at -O0, -O2 and under
// sanitizers; `test_golden_rk4 --print` prints the table from the current code.
#include <stdint.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "runner/golden.h"
#include "runner/golden_paths.h"
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

// one row: a model, its six RK4 rollout hashes and its RK4 derivative hash
typedef struct GoldenRow {
    const char* model;
    uint64_t rollout[6];
    uint64_t derivative;
} GoldenRow;

#include "golden_rk4_table.h"


static int compute(const char* name, uint64_t* hash) {
    return gdn_golden_compute(name, GDN_INT_RK4, hash);
}

static const char* committed(int i, uint64_t* hash) {
    memcpy(hash, kGolden[i].rollout, sizeof(kGolden[i].rollout));
    hash[6] = kGolden[i].derivative;
    return kGolden[i].model;
}

static const gdnTestGolden kTable = {kModels, NMODEL, (int)(sizeof(kGolden) / sizeof(kGolden[0])),
                                     7, "7 RK4 paths", compute, committed};

int main(int argc, char** argv) {
    return gdn_test_golden_main(argc, argv, "golden_rk4", &kTable);
}
