// SPDX-License-Identifier: Apache-2.0
// What forward and simulate share: load the model, create data, set the initial state from
// --key and --state, the solver options, and parse numeric command-line values.
#ifndef GDN_CLI_SESSION_H
#define GDN_CLI_SESSION_H

#include "cli.h"

// a loaded model, its data, and the loader's warnings
typedef struct cliSession {
    gdnModel* m;
    gdnData* d;
    char warnings[CLI_WARN_SIZE];
} cliSession;

// constraint-solver options (simulate): each field -1 (or 0 for the flags) when not given
typedef struct cliSolverArgs {
    int solver;        // gdnSolver, -1: the model's
    int cone;          // gdnCone, -1: the model's
    long iterations;   // -1: the model's
    double tolerance;  // < 0: the model's
    int nocontact;     // 1: set GDN_DSBL_CONTACT
    int noconstraint;  // 1: set GDN_DSBL_CONSTRAINT
} cliSolverArgs;

// options that choose the initial state; NULL when not given
typedef struct cliStateArgs {
    const char* state_path; // --state FILE or "-"
    const char* key;        // --key index or name
} cliStateArgs;

// the "not given" values of every solver option
void cli_solver_args_init(cliSolverArgs* args);

// consume argv[*i] (and its value) when it is --solver, --cone, --iterations, --tolerance,
// --nocontact or --noconstraint: 1 consumed, 0 not ours, -1 bad or missing value (printed)
int cli_solver_option(cliSolverArgs* args, const char* command, int argc, char** argv, int* i);

// write the given options into the model's gdnOption
void cli_solver_apply(const cliSolverArgs* args, gdnModel* m);

// load path into s (m only); print the loader's error and return CLI_EXIT_ERROR on failure
int cli_session_load(cliSession* s, const char* path);

// load path, create data, reset to the keyframe (or qpos0), then read the state file;
// loader warnings go to stderr. Returns CLI_EXIT_OK or an exit code after printing the error
int cli_session_open(cliSession* s, const char* path, const cliStateArgs* args);

// the same, with the solver options (NULL: none) written into the model before the data is
// created
int cli_session_open_solver(cliSession* s, const char* path, const cliStateArgs* args,
                            const cliSolverArgs* solver);

void cli_session_close(cliSession* s);

// consume argv[*i] (and its value) when it is --state or --key: 1 consumed, 0 not ours,
// -1 missing value (message printed)
int cli_state_option(cliStateArgs* args, const char* command, int argc, char** argv, int* i);

// parse a whole decimal integer in [lo, hi]; 0 on success
int cli_parse_int(const char* text, long lo, long hi, long* value);

// parse exactly n comma-separated finite numbers; 0 on success, else err says why
int cli_parse_list(const char* text, double* out, int n, char* err, int err_size);

#endif
