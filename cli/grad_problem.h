// SPDX-License-Identifier: Apache-2.0
// What grad and gradcheck share: options, the rollout with the built-in target objective, a tape.
#ifndef GDN_CLI_GRAD_PROBLEM_H
#define GDN_CLI_GRAD_PROBLEM_H

#include <gradyn/adjoint.h>

#include "session.h"

// command-line options of grad and gradcheck (gradcheck adds --eps, --tol, --blocks)
typedef struct gradArgs {
    const char* command;   // "grad" or "gradcheck" (messages)
    const char* path;
    cliStateArgs state;
    cliSolverArgs solver;  // --nocontact, --noconstraint, --solver, --cone, --iterations,
                           // --tolerance (written into the model before the data is created)
    long steps;            // T (default 100)
    const char* body;      // --body NAME or id (default: the last body)
    const char* point;     // --point x,y,z in the body frame (default: the COM)
    const char* target;    // --target x,y,z (default: the point's world position at q0)
    double weight;         // --weight (default 1)
    double effort;         // --effort: control-effort weight (default 0)
    double vel_weight;     // --vel-weight (default 0)
    const char* ctrl;      // --ctrl: nu values (constant) or T*nu values (schedule)
    const char* penalty;   // --penalty h,k,c
    long checkpoint;       // --checkpoint K (default 1: full tape)
    double eps;            // gradcheck: FD step (0: default)
    double tol;            // gradcheck: pass/fail tolerance
    const char* blocks;    // gradcheck: comma list of blocks (NULL: all)
} gradArgs;

// the loaded problem: model, rollout inputs, objective, tape
typedef struct gradProblem {
    cliSession s;
    gdnRollout r;
    double* qpos0;              // (nq)
    double* qvel0;              // (nv)
    double* ctrl;               // (T x nu)
    double* qfrc_applied;       // (nv) from the state file
    gdnTargetObjective spec;
    gdnObjective obj;
    gdnTape* tape;
} gradProblem;

// parse argv (argv[0] is the command name); gradcheck options are accepted when
// with_check is nonzero. -1: help printed (exit 0); else CLI_EXIT_OK or an exit code
int grad_parse_args(int argc, char** argv, int with_check, const char* usage, gradArgs* a);

// load the model (with the solver options and --nocontact / --noconstraint) and initial state,
// apply --penalty, build the rollout, objective and tape;
// CLI_EXIT_OK or an exit code after printing the error (p is then released)
int grad_problem_open(gradProblem* p, const gradArgs* a);

void grad_problem_close(gradProblem* p);

// seconds on a monotonic clock (differences only)
double grad_seconds(void);

// appended to the refusal of a constrained rollout (GDN_ERR_UNSUPPORTED)
#define CLI_CONSTRAINT_HINT \
    "; --noconstraint (or --nocontact when only contacts are active) differentiates without them"

// names of the 10 canonical inertia parameters, in packing order
extern const char* const grad_param_names[GDN_N_INERTIA_PARAMS];

#endif
