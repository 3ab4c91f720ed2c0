// SPDX-License-Identifier: Apache-2.0
// gradyn simulate: N semi-implicit Euler steps, trajectory (time, qpos, qvel) as CSV or JSON,
// with the constraint solver's options and a count of the steps whose solve did not converge.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "number_format.h"
#include "session.h"

const char cli_simulate_usage[] =
    "usage: gradyn simulate MODEL.xml --steps N " CLI_STATE_SYNOPSIS " [--ctrl c1,c2,...]\n"
    "    [--format csv|json] [--output|-o FILE] [--every K]\n" CLI_SOLVER_SYNOPSIS
    "Runs N steps of MuJoCo's step (collision, the constraint solve, semi-implicit Euler) and\n"
    "writes the trajectory: time, qpos, qvel of step 0, of every K-th step and of the last step\n"
    "(N/K + 1 rows when K divides N), as CSV (a header row, then one row per step) or JSON\n"
    "(each row also gives the step's ncon, nefc, solver_iter and solver_converged), to standard\n"
    "output or --output FILE (- for standard output). --ctrl holds nu controls for every\n"
    "step (default: the state's).\n"
    "Steps whose constraint solve did not converge are counted on stderr and in the JSON\n"
    "(unconverged_steps), never hidden.\n";

// command-line options of simulate
typedef struct simulateArgs {
    const char* path;
    cliStateArgs state;
    long steps;        // -1 until given
    long every;
    int json;          // 0: CSV, 1: JSON
    const char* output;
    const char* ctrl;  // comma-separated controls, NULL to keep the state's
    cliSolverArgs solver;
} simulateArgs;

// where the trajectory goes, in either format
typedef struct trajectoryWriter {
    FILE* out;
    int json;
    cliJson w;
    long unconverged;      // steps with constraint rows whose solve did not converge
    double worst_residual; // the largest final residual among them
} trajectoryWriter;


// CSV header row or the opening of the JSON document
static void trajectory_begin(trajectoryWriter* t, const gdnModel* m, const simulateArgs* a) {
    if (t->json) {
        cli_json_init(&t->w, t->out);
        cli_json_begin_object(&t->w, NULL);
        cli_json_string(&t->w, "model", a->path);
        cli_json_int(&t->w, "nq", m->nq);
        cli_json_int(&t->w, "nv", m->nv);
        cli_json_double(&t->w, "timestep", m->opt.timestep);
        cli_json_int(&t->w, "steps", a->steps);
        cli_json_int(&t->w, "every", a->every);
        cli_json_begin_array(&t->w, "trajectory");
        return;
    }
    fputs("time", t->out);
    for (int i = 0; i < m->nq; i++) {
        fprintf(t->out, ",qpos%d", i);
    }
    for (int i = 0; i < m->nv; i++) {
        fprintf(t->out, ",qvel%d", i);
    }
    fputc('\n', t->out);
}


// one row: time, qpos, qvel
static void trajectory_row(trajectoryWriter* t, const gdnModel* m, const gdnData* d,
                           long step) {
    if (t->json) {
        cli_json_begin_object(&t->w, NULL);
        cli_json_int(&t->w, "step", step);
        cli_json_double(&t->w, "time", d->time);
        cli_json_numbers(&t->w, "qpos", d->qpos, m->nq);
        cli_json_numbers(&t->w, "qvel", d->qvel, m->nv);
        if (step > 0) {
            cli_json_int(&t->w, "ncon", d->ncon);
            cli_json_int(&t->w, "nefc", d->nefc);
            cli_json_int(&t->w, "solver_iter", d->solver_iter);
            cli_json_int(&t->w, "solver_converged", d->solver_converged);
        }
        cli_json_end_object(&t->w);
        return;
    }
    cli_write_double(t->out, d->time);
    for (int i = 0; i < m->nq; i++) {
        fputc(',', t->out);
        cli_write_double(t->out, d->qpos[i]);
    }
    for (int i = 0; i < m->nv; i++) {
        fputc(',', t->out);
        cli_write_double(t->out, d->qvel[i]);
    }
    fputc('\n', t->out);
}


// close the JSON document (with the error, if any, so it stays valid); CSV needs nothing
static void trajectory_end(trajectoryWriter* t, const char* error) {
    if (!t->json) {
        return;
    }
    cli_json_end_array(&t->w);
    cli_json_int(&t->w, "unconverged_steps", t->unconverged);
    if (error) {
        cli_json_string(&t->w, "error", error);
    }
    cli_json_end_object(&t->w);
}


// parse the options; CLI_EXIT_OK or an exit code after printing the problem
static int parse_simulate_args(int argc, char** argv, simulateArgs* a) {
    memset(a, 0, sizeof(*a));
    a->steps = -1;
    a->every = 1;
    cli_solver_args_init(&a->solver);
    for (int i = 1; i < argc; i++) {
        const char* option = argv[i];
        int consumed = cli_state_option(&a->state, "simulate", argc, argv, &i);
        if (consumed == 0) {
            consumed = cli_solver_option(&a->solver, "simulate", argc, argv, &i);
        }
        if (consumed < 0) {
            return CLI_EXIT_USAGE;
        }
        if (consumed) {
            continue;
        }
        if (strcmp(option, "-h") == 0 || strcmp(option, "--help") == 0) {
            cli_print_help("simulate");
            exit(CLI_EXIT_OK);
        }
        if (option[0] != '-' || option[1] == '\0') {
            if (a->path) {
                return cli_usage_error("simulate", "more than one model given");
            }
            a->path = option;
            continue;
        }

        // every other option takes a value
        if (i + 1 >= argc) {
            return cli_usage_error("simulate", "%s needs a value", option);
        }
        const char* value = argv[++i];
        if (strcmp(option, "--steps") == 0) {
            if (cli_parse_int(value, 0, 1000000000L, &a->steps) != 0) {
                return cli_usage_error("simulate", "--steps: '%s' is not an integer in "
                                       "[0, 1e9]", value);
            }
        } else if (strcmp(option, "--every") == 0) {
            if (cli_parse_int(value, 1, 1000000000L, &a->every) != 0) {
                return cli_usage_error("simulate", "--every: '%s' is not a positive integer",
                                       value);
            }
        } else if (strcmp(option, "--format") == 0) {
            if (strcmp(value, "csv") != 0 && strcmp(value, "json") != 0) {
                return cli_usage_error("simulate", "--format: '%s' is not csv or json", value);
            }
            a->json = strcmp(value, "json") == 0;
        } else if (strcmp(option, "--output") == 0 || strcmp(option, "-o") == 0) {
            a->output = value;
        } else if (strcmp(option, "--ctrl") == 0) {
            a->ctrl = value;
        } else {
            return cli_usage_error("simulate", "unknown option '%s'", option);
        }
    }
    if (!a->path) {
        return cli_usage_error("simulate", "missing MODEL.xml");
    }
    if (a->steps < 0) {
        return cli_usage_error("simulate", "missing --steps N");
    }
    return CLI_EXIT_OK;
}


// step s.d forward a->steps times, writing rows; CLI_EXIT_OK or the failed step's error
static int run_steps(cliSession* s, const simulateArgs* a, trajectoryWriter* t) {
    trajectory_row(t, s->m, s->d, 0);
    for (long step = 1; step <= a->steps; step++) {
        gdnStatus status = gdn_step(s->m, s->d);
        if (status != GDN_OK) {
            char message[CLI_ERR_SIZE];
            char time[CLI_NUMBER_SIZE];
            snprintf(message, sizeof(message), "step %ld (from time %s) failed: %s", step,
                     cli_format_double(time, s->d->time), gdn_status_string(status));
            trajectory_end(t, message);
            return cli_fail("%s", message);
        }

        // an unconverged solve is reported, never hidden
        if (s->d->nefc > 0 && !s->d->solver_converged) {
            t->unconverged++;
            if (!(t->worst_residual >= s->d->solver_residual)) {
                t->worst_residual = s->d->solver_residual;
            }
        }
        if (step % a->every == 0 || step == a->steps) {
            trajectory_row(t, s->m, s->d, step);
        }
    }
    trajectory_end(t, NULL);
    if (t->unconverged) {
        cli_warn_unconverged(s->m, t->unconverged, a->steps, t->worst_residual);
    }
    return CLI_EXIT_OK;
}


int cli_simulate(int argc, char** argv) {
    simulateArgs a;
    int code = parse_simulate_args(argc, argv, &a);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    cliSession s;
    code = cli_session_open_solver(&s, a.path, &a.state, &a.solver);
    if (code != CLI_EXIT_OK) {
        return code;
    }

    // constant controls from --ctrl override the state file's
    if (a.ctrl) {
        char err[CLI_ERR_SIZE];
        int nu = s.m->nu;
        if (cli_parse_list(a.ctrl, s.d->ctrl, nu, err, (int)sizeof(err)) != 0) {
            cli_session_close(&s);
            return cli_fail("--ctrl '%s': %s (the model has %d actuators)", a.ctrl, err, nu);
        }
    }

    // output file or standard output
    int to_stdout = !a.output || strcmp(a.output, "-") == 0;
    trajectoryWriter t = {to_stdout ? stdout : fopen(a.output, "w"), a.json, {0}, 0, 0.0};
    if (!t.out) {
        cli_session_close(&s);
        return cli_fail("%s: cannot open output file: %s", a.output, strerror(errno));
    }

    trajectory_begin(&t, s.m, &a);
    code = run_steps(&s, &a, &t);
    cli_session_close(&s);

    // a write error (full disk, closed pipe) is an error too
    int write_failed = fflush(t.out) != 0 || ferror(t.out);
    if (!to_stdout) {
        write_failed |= fclose(t.out) != 0;
    }
    if (write_failed && code == CLI_EXIT_OK) {
        code = cli_fail("%s: write error", to_stdout ? "<stdout>" : a.output);
    }
    return code;
}
