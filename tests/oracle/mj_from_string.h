// SPDX-License-Identifier: Apache-2.0
// MJCF text through a temporary file under /tmp: MuJoCo 2.2.2's model of it, or just the file.
#ifndef GDN_TEST_ORACLE_MJ_FROM_STRING_H
#define GDN_TEST_ORACLE_MJ_FROM_STRING_H

#include <mujoco/mujoco.h>

// the size of a temporary file's path
#define GDN_ORACLE_TMP_PATH 32

// xml written to a fresh /tmp file whose path is returned in path (the caller removes it);
// 0 on success, else 1 with the reason printed
int gdn_oracle_tmp_xml(const char* xml, char path[GDN_ORACLE_TMP_PATH]);

// mj_loadXML of xml written to a fresh /tmp file (removed again; relative asset paths resolve
// against /tmp); NULL with the reason printed to stderr on failure
mjModel* gdn_oracle_mj_from_string(const char* xml);

#endif
