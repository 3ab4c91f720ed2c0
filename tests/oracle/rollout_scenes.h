// SPDX-License-Identifier: Apache-2.0
// The contact rollout scenes: MJCF scenes stepped in both engines with constraints enabled.
#ifndef GDN_TEST_ORACLE_ROLLOUT_SCENES_H
#define GDN_TEST_ORACLE_ROLLOUT_SCENES_H

#include "oracle/oracle.h"

// a scene: model file and initial state (added to the model's qpos0 / zero qvel)
typedef struct gdnRolloutScene {
    const char* name;
    const char* file;   // under tests/models, or an absolute path
    double qvel0[6];    // first six qvel (free joint: linear world, angular local)
    double qpos_hinge;  // nonzero: qpos[0] of a hinge
} gdnRolloutScene;

// test_contact_rollout's scenes, in its order: four primitives dropped on a plane, a box sliding
// (both cones), a box tipping over an edge, a five-box stack, a pendulum swinging into its
// joint limit, a four-bar closed by an equality connect, and MuJoCo's humanoid falling
extern const gdnRolloutScene gdn_oracle_rollout_scenes[];
extern const int gdn_oracle_rollout_nscenes;

// the scene with this name (NULL when none)
const gdnRolloutScene* gdn_oracle_rollout_scene(const char* name);

// file (under tests/models, or absolute) in both engines (gdn_oracle_load) with constraints
// enabled in both; 0 on success, else printed and o freed
int gdn_oracle_load_constrained(gdnOracle* o, const char* file);

// both datas reset, then the scene's initial state set in MuJoCo's and copied to gradyn's
void gdn_oracle_rollout_init(gdnOracle* o, const gdnRolloutScene* s);

// gdn_oracle_load_constrained of the scene's file, then its initial state; 0 on success
int gdn_oracle_rollout_open(gdnOracle* o, const gdnRolloutScene* s);

#endif
