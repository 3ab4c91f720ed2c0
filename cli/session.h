// SPDX-License-Identifier: Apache-2.0
// What forward and simulate share: load the model, create data, set the initial state from
// --key and --state, and parse numeric command-line values.
#ifndef GDN_CLI_SESSION_H
#define GDN_CLI_SESSION_H

#include "cli.h"

// a loaded model, its data, and the loader's warnings
typedef struct cliSession {
    gdnModel* m;
    gdnData* d;
    char warnings[CLI_WARN_SIZE];
} cliSession;

// options that choose the initial state; NULL when not given
typedef struct cliStateArgs {
    const char* state_path; // --state FILE or "-"
    const char* key;        // --key index or name
} cliStateArgs;

// load path into s (m only); print the loader's error and return CLI_EXIT_ERROR on failure
int cli_session_load(cliSession* s, const char* path);

// load path, create data, reset to the keyframe (or qpos0), then read the state file;
// loader warnings go to stderr. Returns CLI_EXIT_OK or an exit code after printing the error
int cli_session_open(cliSession* s, const char* path, const cliStateArgs* args);

void cli_session_close(cliSession* s);

// consume argv[*i] (and its value) when it is --state or --key: 1 consumed, 0 not ours,
// -1 missing value (message printed)
int cli_state_option(cliStateArgs* args, const char* command, int argc, char** argv, int* i);

// parse a whole decimal integer in [lo, hi]; 0 on success
int cli_parse_int(const char* text, long lo, long hi, long* value);

// parse exactly n comma-separated finite numbers; 0 on success, else err says why
int cli_parse_list(const char* text, double* out, int n, char* err, int err_size);

#endif
