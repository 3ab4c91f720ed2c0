// SPDX-License-Identifier: Apache-2.0
// Reading a simulation state (qpos, qvel, ctrl, qfrc_applied, time) from JSON with cJSON.
#ifndef GDN_CLI_JSON_STATE_H
#define GDN_CLI_JSON_STATE_H

#include <stddef.h>

#include <gradyn/gradyn.h>

// parse a JSON object {"qpos": [nq], "qvel": [nv], "ctrl": [nu], "qfrc_applied": [nv],
// "time": t}; every field is optional and absent fields keep their value in d. Arrays must
// have exactly the model's length and hold finite numbers; unknown or repeated fields are
// errors. name labels messages ("name:line: cause"). On error d may be partly written.
gdnStatus cli_parse_state(const char* text, size_t len, const char* name, const gdnModel* m,
                          gdnData* d, char* err, int err_size);

// read the file at path ("-": standard input) and parse it as above
gdnStatus cli_read_state(const char* path, const gdnModel* m, gdnData* d, char* err,
                         int err_size);

#endif
