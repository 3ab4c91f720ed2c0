// SPDX-License-Identifier: Apache-2.0
// What grad and gradcheck share: options, the rollout with the built-in target objective, a tape.
#ifndef GDN_CLI_GRAD_PROBLEM_H
#define GDN_CLI_GRAD_PROBLEM_H

#include <gradyn/adjoint.h>

#include "json_writer.h"
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
    double noise_ulps;     // gradcheck: the noise bound in ulp(J) (0: the default)
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
// with_check is nonzero. -1: help printed (cli_print_help, exit 0); else CLI_EXIT_OK or an exit
// code
int grad_parse_args(int argc, char** argv, int with_check, gradArgs* a);

// load the model (with the solver options and --nocontact / --noconstraint) and initial state,
// apply --penalty, build the rollout, objective and tape;
// CLI_EXIT_OK or an exit code after printing the error (p is then released)
int grad_problem_open(gradProblem* p, const gradArgs* a);

void grad_problem_close(gradProblem* p);

// seconds on a monotonic clock (differences only)
double grad_seconds(void);

// the options grad and gradcheck share, and what they mean (both usage texts)
#define GRAD_SYNOPSIS \
    "    [--steps T] [--body NAME|ID] [--point x,y,z] [--target x,y,z] [--weight w]\n" \
    "    [--effort w] [--vel-weight w] [--ctrl c1,...] " CLI_STATE_SYNOPSIS "\n" \
    "    [--penalty h,k,c] [--checkpoint K]\n" CLI_SOLVER_SYNOPSIS
#define GRAD_HELP \
    "J = weight |x_T - target|^2 + effort sum_t |u_t|^2 + vel-weight |v_T|^2 over a T-step\n" \
    "rollout (default T = 100), x the body point (--body, default the last body; --point in\n" \
    "the body frame, default its COM; --target, default where the point starts; --weight\n" \
    "default 1, --effort and --vel-weight default 0). --ctrl takes nu values (held for every\n" \
    "step) or T x nu values (row t for step t). --penalty h,k,c enables the penalty ground\n" \
    "contact (plane height, stiffness, damping); --checkpoint K keeps every K-th state and\n" \
    "replays segments (the same numbers bit for bit). Constrained rollouts (contacts, limits,\n" \
    "equalities, friction loss) are differentiated through the constraint solve, by default;\n" \
    "a step the library cannot differentiate (an unconverged solve, a contact pair without a\n" \
    "geometry derivative) is reported with its message and status, exit code 1, and\n" \
    "--noconstraint (or --nocontact) then differentiates the model without the rows.\n"

// print the library's refusal of a gradient: "gradyn: error: <what>: <message> (status NAME:
// text)" and, for GDN_ERR_UNSUPPORTED, a hint naming --noconstraint / --nocontact; returns
// CLI_EXIT_ERROR
int grad_library_error(const char* what, gdnStatus status, const char* message);

// the name of a status code ("GDN_ERR_UNSUPPORTED"; "status N" for a code this program does
// not know)
const char* grad_status_name(gdnStatus status, char* buf, int size);

// what the tape says of each step of the last rollout: the steps with contacts or constraint
// rows, their counts and solver report. Read right after the gradient (before anything else
// rolls out on the tape); with --checkpoint K > 1 only some records are readable (records < T)
typedef struct gradStepReport {
    long steps;        // T
    long records;      // step records the tape could return
    long constrained;  // records with contacts or rows
    long unconverged;  // records with rows whose solve did not converge
    int max_ncon, max_nefc;
    double* step;      // (constrained) t of each such record, then its ncon, nefc, solver_iter,
    double* ncon;      // solver_converged (doubles for the JSON writer's arrays)
    double* nefc;
    double* iter;
    double* converged;
    double* flags;             // the backward pass's GDN_DERIV_* flags of each such record
    double* state_margin;      // its deriv_state_margin
    double* activation_margin; // its deriv_activation_margin
    long flagged;              // records with flags
} gradStepReport;

// fill r from p's tape; 0 on success (1: out of memory, message printed)
int grad_step_report(gradProblem* p, gradStepReport* r);

// the report as the JSON member "step_flags", with the library's per-step derivative report
// (derivative_flags, state_margin, activation_margin)
void grad_step_report_write(cliJson* w, const gradStepReport* r);

void grad_step_report_free(gradStepReport* r);

// the solver options in effect as the JSON member "solver": solver and cone by name,
// iterations, tolerance, contact and constraint (1: enabled, 0: disabled by the flags)
void grad_write_solver(cliJson* w, const gdnModel* m);

// names of the 10 canonical inertia parameters, in packing order
extern const char* const grad_param_names[GDN_N_INERTIA_PARAMS];

#endif
