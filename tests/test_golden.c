// SPDX-License-Identifier: Apache-2.0
// Determinism: a 1000-step humanoid32 rollout hashed bit for bit (FNV-1a over qpos and qvel).
//
// The expected hash must be the same at -O0, -O2 and under sanitizers: the library is built
// with -ffp-contract=off and without -ffast-math, and the controls come from integer
// arithmetic (xorshift), not from libm. A change in any arithmetic of the step changes the
// hash: update GOLDEN_HASH only with a note saying why the trajectory changed.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "runner/test.h"

#define NSTEP 1000
#define GOLDEN_HASH 0xf7711f0845f0d516ULL

// humanoid32 from its keyframe with a small deterministic velocity, controls redrawn every
// 50 steps in [-0.5, 0.5]; returns the hash of qpos and qvel after every step
static int golden_rollout(uint64_t* hash) {
    char err[1024] = "";
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(GDN_TEST_MODELS "/humanoid32.xml", &m, err, (int)sizeof(err), NULL, 0) ==
          GDN_OK);
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_data_reset_keyframe(m, d, 0) == GDN_OK);
    unsigned long long rng = 0x243F6A8885A308D3ULL;
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(&rng, -0.5, 0.5);
    }
    uint64_t h = GDN_TEST_FNV_OFFSET;
    for (int k = 0; k < NSTEP; k++) {
        if (k % 50 == 0) {
            for (int i = 0; i < m->nu; i++) {
                d->ctrl[i] = gdn_test_uniform(&rng, -0.5, 0.5);
            }
        }
        CHECK(gdn_step(m, d) == GDN_OK);
        h = gdn_test_fnv1a(h, d->qpos, sizeof(double) * (size_t)m->nq);
        h = gdn_test_fnv1a(h, d->qvel, sizeof(double) * (size_t)m->nv);
    }
    printf("humanoid32: %d steps, time %.17g, qpos[2] %.17g, hash 0x%016llx\n", NSTEP, d->time,
           d->qpos[2], (unsigned long long)h);
    gdn_data_free(d);
    gdn_model_free(m);
    *hash = h;
    return 0;
}

// the hash equals the committed constant
static int test_golden_hash(void) {
    uint64_t h = 0;
    CHECK(golden_rollout(&h) == 0);
    if (h != GOLDEN_HASH) {
        fprintf(stderr, "hash 0x%016llx, expected 0x%016llx\n", (unsigned long long)h,
                (unsigned long long)GOLDEN_HASH);
    }
    CHECK(h == GOLDEN_HASH);
    return 0;
}

// two rollouts in one process are identical (no hidden state between calls)
static int test_repeatable(void) {
    uint64_t a = 0, b = 1;
    CHECK(golden_rollout(&a) == 0);
    CHECK(golden_rollout(&b) == 0);
    CHECK(a == b);
    return 0;
}

static const gdnTestCase cases[] = {
    {"golden_hash", test_golden_hash},
    {"repeatable", test_repeatable},
};
GDN_TEST_MAIN(cases)
