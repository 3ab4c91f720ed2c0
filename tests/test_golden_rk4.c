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


#include "golden_rk4_table.h"


static int compute(const char* name, uint64_t* hash) {
    return gdn_golden_compute(name, GDN_INT_RK4, hash);
}

static const char* committed(int i, uint64_t* hash) {
    memcpy(hash, kGolden[i].rollout, sizeof(kGolden[i].rollout));
    hash[6] = kGolden[i].derivative;
    return kGolden[i].model;
}

int main(int argc, char** argv) {
    const gdnTestGolden table = {gdn_golden_models, gdn_golden_nmodels,
                                 (int)(sizeof(kGolden) / sizeof(kGolden[0])), 7, "7 RK4 paths",
                                 compute, committed};
    return gdn_test_golden_main(argc, argv, "golden_rk4", &table);
}
