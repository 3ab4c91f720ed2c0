// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 model compiled from MJCF text (through a temporary file under /tmp).
#ifndef GDN_TEST_ORACLE_MJ_FROM_STRING_H
#define GDN_TEST_ORACLE_MJ_FROM_STRING_H

#include <mujoco/mujoco.h>

// mj_loadXML of xml written to a fresh /tmp file (removed again; relative asset paths resolve
// against /tmp); NULL with the reason printed to stderr on failure
mjModel* gdn_oracle_mj_from_string(const char* xml);

#endif
