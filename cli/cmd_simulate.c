// SPDX-License-Identifier: Apache-2.0
// gradyn simulate: N semi-implicit Euler steps, trajectory (time, qpos, qvel) as CSV or JSON,
// with the constraint solver's options and a count of the steps whose solve did not converge;
// MuJoCo's formulation or Kamino (--solver kamino, or the model's <custom> gradyn_solver).
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/kamino.h>

#include "cli.h"
#include "json_writer.h"
#include "kamino_options.h"
#include "number_format.h"
#include "session.h"

const char cli_simulate_usage[] =
    "usage: gradyn simulate MODEL.xml --steps N " CLI_STATE_SYNOPSIS " [--ctrl c1,c2,...]\n"
    "    [--format csv|json] [--output|-o FILE] [--every K]\n" CLI_SOLVER_SYNOPSIS
    "    [Kamino settings (listed below): --rho R, --penalty-update on|off, ...]\n"
    "Runs N steps of MuJoCo's step (collision, the constraint solve, semi-implicit Euler) and\n"
    "writes the trajectory: time, qpos, qvel (and act when the model has activation states) of\n"
    "step 0, of every K-th step and of the last step\n"
    "(N/K + 1 rows when K divides N), as CSV (a header row, then one row per step) or JSON\n"
    "(each row also gives the step's ncon, nefc, solver_iter and solver_converged), to standard\n"
    "output or --output FILE (- for standard output). --ctrl holds nu controls for every\n"
    "step (default: the state's).\n"
    "Steps whose constraint solve did not converge are counted on stderr and in the JSON\n"
    "(unconverged_steps), never hidden.\n"
    "With Kamino (--solver kamino, or a model whose <custom> gradyn_solver is kamino) each\n"
    "row also gives the step's status: converged, iterations, r_p, r_d, r_c (PADMM's\n"
    "residuals, docs/kamino.md), the rows and contacts, the penalty updates\n"
    "(refactorizations) and the final penalty rho (JSON: kamino_status; CSV: columns\n"
    "converged, iterations, r_p, r_d, r_c, nrow, ncontact, refactorizations, rho after qvel);\n"
    "the JSON's kamino_settings gives every setting used. stderr gets a summary: unconverged\n"
    "steps, median and largest iterations, largest residuals, total refactorizations and the\n"
    "range of the final rho. The Kamino settings below set the backend; the joint\n"
    "coordinates are recovered from the body poses. Joints are Kamino's rows, so there\n"
    "--noconstraint drops contacts, limits and loop closures but keeps the joints.\n";

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
    cliKaminoArgs kamino; // Kamino's settings
} simulateArgs;

// where the trajectory goes, in either format
typedef struct trajectoryWriter {
    FILE* out;
    int json;
    cliJson w;
    long unconverged;      // steps with constraint rows whose solve did not converge
    double worst_residual; // the largest final residual among them
    int kamino;            // rows carry Kamino's status
} trajectoryWriter;


// CSV header row or the opening of the JSON document (with Kamino's settings ks, if any)
static void trajectory_begin(trajectoryWriter* t, const gdnModel* m, const simulateArgs* a,
                             const gdnKaminoSettings* ks) {
    if (t->json) {
        cli_json_init(&t->w, t->out);
        cli_json_begin_object(&t->w, NULL);
        cli_json_string(&t->w, "model", a->path);
        cli_json_int(&t->w, "nq", m->nq);
        cli_json_int(&t->w, "nv", m->nv);
        cli_json_double(&t->w, "timestep", m->opt.timestep);
        cli_json_int(&t->w, "steps", a->steps);
        cli_json_int(&t->w, "every", a->every);
        if (ks) {
            cli_kamino_settings_json(&t->w, "kamino_settings", ks);
        }
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
    // the activations of a model with stateful actuators (gradyn's step: Kamino has none)
    for (int i = 0; !t->kamino && i < m->na; i++) {
        fprintf(t->out, ",act%d", i);
    }
    if (t->kamino) {
        fputs(",converged,iterations,r_p,r_d,r_c,nrow,ncontact,refactorizations,rho", t->out);
    }
    fputc('\n', t->out);
}


// one row: time, qpos, qvel, then MuJoCo's solver report (d) or Kamino's status (ks); step 0 has
// neither
static void trajectory_row(trajectoryWriter* t, const gdnModel* m, double time,
                           const double* qpos, const double* qvel, const gdnData* d,
                           const gdnKaminoStatus* ks, long step) {
    if (t->json) {
        cli_json_begin_object(&t->w, NULL);
        cli_json_int(&t->w, "step", step);
        cli_json_double(&t->w, "time", time);
        cli_json_numbers(&t->w, "qpos", qpos, m->nq);
        cli_json_numbers(&t->w, "qvel", qvel, m->nv);
        if (d && m->na > 0) {
            cli_json_numbers(&t->w, "act", d->act, m->na);
        }
        if (step > 0 && d) {
            cli_json_int(&t->w, "ncon", d->ncon);
            cli_json_int(&t->w, "nefc", d->nefc);
            cli_json_int(&t->w, "solver_iter", d->solver_iter);
            cli_json_int(&t->w, "solver_converged", d->solver_converged);
        }
        if (step > 0 && ks) {
            cli_json_begin_object(&t->w, "kamino_status");
            cli_json_int(&t->w, "converged", ks->converged);
            cli_json_int(&t->w, "iterations", ks->iterations);
            cli_json_double(&t->w, "r_p", ks->r_p);
            cli_json_double(&t->w, "r_d", ks->r_d);
            cli_json_double(&t->w, "r_c", ks->r_c);
            cli_json_int(&t->w, "nrow", ks->nrow);
            cli_json_int(&t->w, "nbilateral", ks->nbilateral);
            cli_json_int(&t->w, "nlimit", ks->nlimit);
            cli_json_int(&t->w, "ncontact", ks->ncontact);
            cli_json_int(&t->w, "ncontact_overflow", ks->ncontact_overflow);
            cli_json_int(&t->w, "refactorizations", ks->refactorizations);
            cli_json_double(&t->w, "rho", ks->rho);
            cli_json_end_object(&t->w);
        }
        cli_json_end_object(&t->w);
        return;
    }
    cli_write_double(t->out, time);
    for (int i = 0; i < m->nq; i++) {
        fputc(',', t->out);
        cli_write_double(t->out, qpos[i]);
    }
    for (int i = 0; i < m->nv; i++) {
        fputc(',', t->out);
        cli_write_double(t->out, qvel[i]);
    }
    for (int i = 0; d && i < m->na; i++) {
        fputc(',', t->out);
        cli_write_double(t->out, d->act[i]);
    }
    if (t->kamino) {
        // step 0 has no solve: empty fields
        if (ks && step > 0) {
            fprintf(t->out, ",%d,%d,", ks->converged, ks->iterations);
            cli_write_double(t->out, ks->r_p);
            fputc(',', t->out);
            cli_write_double(t->out, ks->r_d);
            fputc(',', t->out);
            cli_write_double(t->out, ks->r_c);
            fprintf(t->out, ",%d,%d,%d,", ks->nrow, ks->ncontact, ks->refactorizations);
            cli_write_double(t->out, ks->rho);
        } else {
            fputs(",,,,,,,,,", t->out);
        }
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
    a->solver.kamino_ok = 1;
    cli_kamino_args_init(&a->kamino);
    for (int i = 1; i < argc; i++) {
        const char* option = argv[i];
        int consumed = cli_state_option(&a->state, "simulate", argc, argv, &i);
        if (consumed == 0) {
            consumed = cli_solver_option(&a->solver, "simulate", argc, argv, &i);
        }
        if (consumed == 0) {
            consumed = cli_kamino_option(&a->kamino, "simulate", argc, argv, &i);
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
    if (a->solver.kamino && (a->solver.cone >= 0 || a->solver.onesided)) {
        return cli_usage_error("simulate", "--solver kamino: %s does not apply (Kamino's "
                               "contacts are Coulomb cones; it has no derivatives yet)",
                               a->solver.cone >= 0 ? "--cone" : "--onesided");
    }
    return CLI_EXIT_OK;
}


// step s.d forward a->steps times, writing rows; CLI_EXIT_OK or the failed step's error
static int run_steps(cliSession* s, const simulateArgs* a, trajectoryWriter* t) {
    trajectory_row(t, s->m, s->d->time, s->d->qpos, s->d->qvel, s->d, NULL, 0);
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
            trajectory_row(t, s->m, s->d->time, s->d->qpos, s->d->qvel, s->d, NULL, step);
        }
    }
    trajectory_end(t, NULL);
    if (t->unconverged) {
        cli_warn_unconverged(s->m, t->unconverged, a->steps, t->worst_residual);
    }
    return CLI_EXIT_OK;
}


// qsort order of doubles
static int compare_doubles(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}


// Kamino: one world of km from the session's state (its joint coordinates), a->steps steps,
// the status of each in the rows and a summary on stderr; CLI_EXIT_OK or the failed step's
// error
static int run_kamino(cliSession* s, const simulateArgs* a, trajectoryWriter* t,
                      const gdnKaminoModel* km) {
    const gdnModel* m = s->m;
    gdnKaminoData* kd = NULL;
    gdnStatus status = gdn_kamino_data_create(km, 1, &kd);
    if (status == GDN_OK) {
        status = gdn_kamino_reset(km, kd, NULL, s->d->qpos, s->d->qvel);
    }
    gdnKaminoWorld* w = status == GDN_OK ? gdn_kamino_world(kd, 0) : NULL;
    double* iters = status == GDN_OK ? malloc(sizeof(double) * (size_t)(a->steps + 1)) : NULL;
    if (!w || !iters) {
        char message[CLI_ERR_SIZE];
        snprintf(message, sizeof(message), "Kamino: cannot create the world: %s",
                 gdn_status_string(status != GDN_OK ? status : GDN_ERR_MEMORY));
        free(iters);
        gdn_kamino_data_free(kd);
        trajectory_end(t, message);
        return cli_fail("%s", message);
    }
    memcpy(w->ctrl, s->d->ctrl, sizeof(double) * (size_t)m->nu);
    trajectory_row(t, m, w->time, w->qpos, w->qvel, NULL, &w->status, 0);
    double worst[3] = {0, 0, 0};
    double rho_lo = INFINITY, rho_hi = -INFINITY;
    long refactorizations = 0;
    int code = CLI_EXIT_OK;
    for (long step = 1; step <= a->steps; step++) {
        status = gdn_kamino_step(km, kd);
        if (status != GDN_OK) {
            // a bad argument of a step is a setting the backend refuses: name the ones given
            char message[CLI_ERR_SIZE], given[CLI_ERR_SIZE / 2];
            char time[CLI_NUMBER_SIZE];
            cli_kamino_given(&a->solver, &a->kamino, given, (int)sizeof(given));
            snprintf(message, sizeof(message), "Kamino step %ld (from time %s) failed: %s%s%s%s",
                     step, cli_format_double(time, w->time), gdn_status_string(status),
                     status == GDN_ERR_ARG && given[0] ? " (the backend refuses the settings; "
                                                         "given: " : "",
                     status == GDN_ERR_ARG ? given : "",
                     status == GDN_ERR_ARG && given[0] ? ")" : "");
            trajectory_end(t, message);
            code = cli_fail("%s", message);
            break;
        }
        const gdnKaminoStatus* ks = &w->status;
        t->unconverged += !ks->converged;
        iters[step - 1] = ks->iterations;
        worst[0] = ks->r_p > worst[0] ? ks->r_p : worst[0];
        worst[1] = ks->r_d > worst[1] ? ks->r_d : worst[1];
        worst[2] = ks->r_c > worst[2] ? ks->r_c : worst[2];
        refactorizations += ks->refactorizations;
        if (isfinite(ks->rho)) {
            rho_lo = ks->rho < rho_lo ? ks->rho : rho_lo;
            rho_hi = ks->rho > rho_hi ? ks->rho : rho_hi;
        }
        if (step % a->every == 0 || step == a->steps) {
            trajectory_row(t, m, w->time, w->qpos, w->qvel, NULL, ks, step);
        }
    }
    if (code == CLI_EXIT_OK) {
        trajectory_end(t, NULL);
        if (a->steps > 0) {
            // the per-step status summary
            qsort(iters, (size_t)a->steps, sizeof(double), compare_doubles);
            char rp[CLI_NUMBER_SIZE], rd[CLI_NUMBER_SIZE], rc[CLI_NUMBER_SIZE];
            char lo[CLI_NUMBER_SIZE], hi[CLI_NUMBER_SIZE];
            fprintf(stderr,
                    "gradyn: Kamino (PADMM): %ld steps, %ld unconverged; iterations median %ld, "
                    "largest %ld; largest r_p %s, r_d %s, r_c %s; %ld refactorizations; final "
                    "rho %s to %s\n",
                    a->steps, t->unconverged, (long)iters[(a->steps - 1) / 2],
                    (long)iters[a->steps - 1],
                    cli_format_double(rp, worst[0]), cli_format_double(rd, worst[1]),
                    cli_format_double(rc, worst[2]), refactorizations,
                    cli_format_double(lo, rho_lo), cli_format_double(hi, rho_hi));
        }
    }
    free(iters);
    gdn_kamino_data_free(kd);
    return code;
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

    // Kamino: by --solver kamino or the model's choice; its settings need it. Its model is
    // built (the settings checked) before any output
    int kamino = a.solver.kamino || (s.m->opt.gradyn_solver == 1 && a.solver.solver < 0);
    const char* kamino_option = cli_kamino_first_given(&a.kamino);
    if (!kamino && kamino_option) {
        cli_session_close(&s);
        return cli_usage_error("simulate", "%s needs Kamino: give --solver kamino, or a model "
                               "whose <custom> gradyn_solver is kamino (without --solver "
                               "newton, cg or pgs)", kamino_option);
    }
    gdnKaminoModel* km = NULL;
    if (kamino) {
        code = cli_kamino_model(s.m, a.path, &a.solver, &a.kamino, &km);
        if (code != CLI_EXIT_OK) {
            cli_session_close(&s);
            return code;
        }
    }

    // output file or standard output
    int to_stdout = !a.output || strcmp(a.output, "-") == 0;
    trajectoryWriter t = {to_stdout ? stdout : fopen(a.output, "w"), a.json, {0}, 0, 0.0, 0};
    if (!t.out) {
        gdn_kamino_model_free(km);
        cli_session_close(&s);
        return cli_fail("%s: cannot open output file: %s", a.output, strerror(errno));
    }

    t.kamino = kamino;
    trajectory_begin(&t, s.m, &a, km ? gdn_kamino_model_settings(km) : NULL);
    code = kamino ? run_kamino(&s, &a, &t, km) : run_steps(&s, &a, &t);
    gdn_kamino_model_free(km);
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
