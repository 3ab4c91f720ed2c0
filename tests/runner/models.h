// SPDX-License-Identifier: Apache-2.0
// Test models and states: a tests/models file loaded (as is, or with constraints off), random q
// and v.
#ifndef GDN_TEST_RUNNER_MODELS_H
#define GDN_TEST_RUNNER_MODELS_H

#include <gradyn/gradyn.h>

// load file (relative to tests/models unless it starts with '/') with constraints disabled;
// prints the reason to stderr and returns NULL on failure
gdnModel* gdn_test_load_model(const char* file);

// the same with the model's own options (constraints as the file says)
gdnModel* gdn_test_load_model_as_is(const char* file);

// reset d, then qpos uniform in [-1, 1) with ball and free quaternions normalized
void gdn_test_random_qpos(const gdnModel* m, gdnData* d, unsigned long long* rng);

// gdn_test_random_qpos, then qvel uniform in [-2, 2)
void gdn_test_random_qpos_qvel(const gdnModel* m, gdnData* d, unsigned long long* rng);

#endif
