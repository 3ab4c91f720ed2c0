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
#include <gradyn/gradyn.h>

#include "runner/golden_paths.h"

#include "golden_paths_table.h"

// every model's seven hashes (six rollouts, one derivative) equal the committed table
int main(int argc, char** argv) {
    return gdn_golden_integrator_main(argc, argv, GDN_INT_EULER, "golden_paths", "7 paths",
                                      kGolden, (int)(sizeof(kGolden) / sizeof(kGolden[0])));
}
