// SPDX-License-Identifier: Apache-2.0
// Golden hashes of the implicit integrator's paths: test_golden_paths' rollouts (Newton, CG,
// PGS x both cones) and derivative hash (JVP, VJP, A, B, the trajectory adjoint; a refusal's
// status is part of the hash) of every test model with m->opt.integrator = GDN_INT_IMPLICIT
// (runner/golden_paths.h). The same at -O0, -O2 and under sanitizers;
// `test_golden_implicit --print` prints the table from the current code.
#include <gradyn/gradyn.h>

#include "runner/golden_paths.h"

#include "golden_implicit_table.h"

int main(int argc, char** argv) {
    return gdn_golden_integrator_main(argc, argv, GDN_INT_IMPLICIT, "golden_implicit",
                                      "7 implicit paths", kGolden,
                                      (int)(sizeof(kGolden) / sizeof(kGolden[0])));
}
