// SPDX-License-Identifier: Apache-2.0
// Test models and states: the implementation behind tests/runner/models.h.
#include "runner/models.h"

#include <stdio.h>

#include "runner/test.h"

gdnModel* gdn_test_load_model_as_is(const char* file) {
    char path[1024], err[1024] = "";
    if (file[0] == '/') {
        snprintf(path, sizeof(path), "%s", file);
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    }
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, gdn_status_string(st), err);
        return NULL;
    }
    return m;
}

gdnModel* gdn_test_load_model(const char* file) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    if (m) {
        m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    }
    return m;
}

void gdn_test_random_qpos(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    gdn_data_reset(m, d);
    for (int i = 0; i < m->nq; i++) {
        d->qpos[i] = gdn_test_uniform(rng, -1, 1);
    }
    gdn_normalize_quat(m, d->qpos);
}

void gdn_test_random_qpos_qvel(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    gdn_test_random_qpos(m, d, rng);
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(rng, -2, 2);
    }
}
