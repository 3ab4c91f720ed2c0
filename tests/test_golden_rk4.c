// SPDX-License-Identifier: Apache-2.0
// Golden hashes of the RK4 integrator's paths: test_golden_paths' rollouts (Newton, CG, PGS x
// both cones) and derivative hash (JVP, VJP, A, B, the trajectory adjoint) of every test model
// with m->opt.integrator = GDN_INT_RK4 (runner/golden_paths.h). The same at -O0, -O2 and under
// sanitizers; `test_golden_rk4 --print` prints the table from the current code.
#include <gradyn/gradyn.h>

#include "runner/golden_paths.h"

#include "golden_rk4_table.h"

int main(int argc, char** argv) {
    return gdn_golden_integrator_main(argc, argv, GDN_INT_RK4, "golden_rk4", "7 RK4 paths",
                                      kGolden, (int)(sizeof(kGolden) / sizeof(kGolden[0])));
}
