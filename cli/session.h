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
    int onesided;      // 1: set GDN_ENBL_ONESIDED
    int kamino;        // 1: --solver kamino (only where kamino_ok)
    int kamino_ok;     // set by a command that runs Kamino (simulate) before parsing
    int integrator;    // gdnIntegrator, -1: the model's
} cliSolverArgs;

// options that choose the initial state; NULL when not given
typedef struct cliStateArgs {
    const char* state_path; // --state FILE or "-"
    const char* key;        // --key index or name
} cliStateArgs;

// the solver and disable options every command that steps or solves takes (simulate, forward,
// contacts, grad, gradcheck): the synopsis and one paragraph saying what they do, shared by
// every usage text so that no command describes them differently
#define CLI_SOLVER_SYNOPSIS \
    "    [--solver newton|cg|pgs|kamino] [--cone pyramidal|elliptic] [--iterations N]\n" \
    "    [--tolerance T] [--nocontact] [--noconstraint] [--onesided]\n" \
    "    [--integrator euler|rk4|implicit]\n"
#define CLI_SOLVER_HELP \
    "Solver options (default: the model's <option>): --solver picks MuJoCo's Newton, CG or\n" \
    "PGS solve, --cone the friction cone, --iterations the maximum solver iterations,\n" \
    "--tolerance the solver tolerance; --nocontact disables contacts (GDN_DSBL_CONTACT),\n" \
    "--noconstraint every constraint: contacts, limits, equalities, friction loss\n" \
    "(GDN_DSBL_CONSTRAINT); --onesided lets a derivative of a step whose solve did not\n" \
    "converge return the derivative of the branch the solver stopped on, flagged, instead of\n" \
    "refusing it (GDN_ENBL_ONESIDED). --solver kamino (simulate only) runs the Kamino\n" \
    "maximal-coordinate hard-contact solver instead (docs/kamino.md), --iterations and\n" \
    "--tolerance then its PADMM's; a model whose <custom> gradyn_solver is kamino runs it by\n" \
    "default in simulate, and the other commands refuse it unless --solver names MuJoCo's.\n" \
    "--integrator picks MuJoCo's semi-implicit Euler or RK4 (<option integrator>); every\n" \
    "derivative differentiates the integrator the step runs.\n"

// the options that choose the initial state (every command but info)
#define CLI_STATE_SYNOPSIS "[--state FILE|-] [--key K]"
#define CLI_STATE_HELP \
    "The initial state: --key K resets to keyframe K (an index or a name; default qpos0 at\n" \
    "rest), then --state FILE sets the fields its JSON object gives (- reads standard input).\n"

// the "not given" values of every solver option
void cli_solver_args_init(cliSolverArgs* args);

// consume argv[*i] (and its value) when it is --solver, --cone, --iterations, --tolerance,
// --integrator, --nocontact, --noconstraint or --onesided: 1 consumed, 0 not ours, -1 bad or
// missing value (printed)
int cli_solver_option(cliSolverArgs* args, const char* command, int argc, char** argv, int* i);

// the command-line names of a solver and a cone code ("newton", "elliptic"; "unknown")
const char* cli_solver_name(int solver);

// "euler", "rk4" ("unknown" for another code)
const char* cli_integrator_name(int integrator);
const char* cli_cone_name(int cone);

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

// "gradyn: warning: the constraint solver did not converge in n of total steps (largest final
// residual r; --iterations N, --tolerance T)" on stderr (with total 1: "did not converge")
void cli_warn_unconverged(const gdnModel* m, long n, long total, double residual);

// consume argv[*i] (and its value) when it is --state or --key: 1 consumed, 0 not ours,
// -1 missing value (message printed)
int cli_state_option(cliStateArgs* args, const char* command, int argc, char** argv, int* i);

// parse a whole decimal integer in [lo, hi]; 0 on success
int cli_parse_int(const char* text, long lo, long hi, long* value);

// parse exactly n comma-separated finite numbers; 0 on success, else err says why
int cli_parse_list(const char* text, double* out, int n, char* err, int err_size);

#endif
