// SPDX-License-Identifier: Apache-2.0
// A gdnModel copied from MuJoCo's compiled mjModel (tests only: isolates dynamics from loading).
#ifndef GDN_TEST_FROM_MUJOCO_H
#define GDN_TEST_FROM_MUJOCO_H

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

// every gdnModel field that mjModel has, copied (mjtByte and float arrays converted); fields
// added to gdnModel later stay zero until listed here. NULL on allocation failure; free with
// gdn_model_free
gdnModel* gdn_model_from_mujoco(const mjModel* m);

#endif
