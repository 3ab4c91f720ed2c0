// SPDX-License-Identifier: Apache-2.0
// Penalty-contact test set-up: collision skins from a model's geoms and a plane under them.
#ifndef GDN_TEST_RUNNER_SKINS_H
#define GDN_TEST_RUNNER_SKINS_H

#include <gradyn/gradyn.h>

// skins from the geoms (box corners, capsule end points, sphere centres, at most 64 per body)
// and penalty contact with the plane `above` over the lowest vertex at qpos0, so contact is
// active from t = 0; returns 1 on success, 0 on failure
int gdn_test_add_skins_and_penalty(gdnModel* m, double above, double stiffness, double damping);

#endif
