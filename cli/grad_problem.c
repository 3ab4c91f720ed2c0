// SPDX-License-Identifier: Apache-2.0
// Options, model, initial state, controls, objective and tape for grad and gradcheck.
#define _POSIX_C_SOURCE 200809L
#include "grad_problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char* const grad_param_names[GDN_N_INERTIA_PARAMS] = {
    "mass", "com_x", "com_y", "com_z", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};

// a whole finite decimal number; 0 on success
static int parse_double(const char* text, double* value) {
    char* end = NULL;
    errno = 0;
    double parsed = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(parsed)) {
        return 1;
    }
    *value = parsed;
    return 0;
}


// one option with a value; CLI_EXIT_OK, or an exit code after printing the problem
static int grad_option(gradArgs* a, const char* option, const char* value, int with_check) {
    const char* cmd = a->command;
    double x = 0;
    if (strcmp(option, "--steps") == 0) {
        if (cli_parse_int(value, 1, 100000000L, &a->steps) != 0) {
            return cli_usage_error(cmd, "--steps: '%s' is not an integer in [1, 1e8]", value);
        }
    } else if (strcmp(option, "--body") == 0) {
        a->body = value;
    } else if (strcmp(option, "--point") == 0) {
        a->point = value;
    } else if (strcmp(option, "--target") == 0) {
        a->target = value;
    } else if (strcmp(option, "--ctrl") == 0) {
        a->ctrl = value;
    } else if (strcmp(option, "--penalty") == 0) {
        a->penalty = value;
    } else if (strcmp(option, "--checkpoint") == 0) {
        if (cli_parse_int(value, 1, 100000000L, &a->checkpoint) != 0) {
            return cli_usage_error(cmd, "--checkpoint: '%s' is not a positive integer", value);
        }
    } else if (strcmp(option, "--weight") == 0 || strcmp(option, "--effort") == 0 ||
               strcmp(option, "--vel-weight") == 0) {
        if (parse_double(value, &x) != 0 || x < 0) {
            return cli_usage_error(cmd, "%s: '%s' is not a finite number >= 0", option, value);
        }
        double* slot = option[2] == 'w' ? &a->weight
                       : option[2] == 'e' ? &a->effort : &a->vel_weight;
        *slot = x;
    } else if (with_check && strcmp(option, "--eps") == 0) {
        if (parse_double(value, &a->eps) != 0 || !(a->eps > 0) || a->eps > 1) {
            return cli_usage_error(cmd, "--eps: '%s' is not a number in (0, 1]", value);
        }
    } else if (with_check && strcmp(option, "--tol") == 0) {
        if (parse_double(value, &a->tol) != 0 || a->tol < 0) {
            return cli_usage_error(cmd, "--tol: '%s' is not a finite number >= 0", value);
        }
    } else if (with_check && strcmp(option, "--noise-ulps") == 0) {
        if (parse_double(value, &a->noise_ulps) != 0 || a->noise_ulps < 0) {
            return cli_usage_error(cmd, "--noise-ulps: '%s' is not a finite number >= 0", value);
        }
    } else if (with_check && strcmp(option, "--blocks") == 0) {
        a->blocks = value;
    } else {
        return cli_usage_error(cmd, "unknown option '%s'", option);
    }
    return CLI_EXIT_OK;
}


int grad_parse_args(int argc, char** argv, int with_check, gradArgs* a) {
    memset(a, 0, sizeof(*a));
    cli_solver_args_init(&a->solver);
    a->command = argv[0];
    a->steps = 100;
    a->weight = 1.0;
    a->checkpoint = 1;
    a->tol = 1e-5;
    for (int i = 1; i < argc; i++) {
        const char* option = argv[i];
        int consumed = cli_state_option(&a->state, a->command, argc, argv, &i);
        if (consumed < 0) {
            return CLI_EXIT_USAGE;
        }
        if (consumed) {
            continue;
        }
        consumed = cli_solver_option(&a->solver, a->command, argc, argv, &i);
        if (consumed < 0) {
            return CLI_EXIT_USAGE;
        }
        if (consumed) {
            continue;
        }
        if (strcmp(option, "-h") == 0 || strcmp(option, "--help") == 0) {
            cli_print_help(a->command);
            return -1;
        }
        if (option[0] != '-' || option[1] == '\0') {
            if (a->path) {
                return cli_usage_error(a->command, "more than one model given");
            }
            a->path = option;
            continue;
        }
        if (i + 1 >= argc) {
            return cli_usage_error(a->command, "%s needs a value", option);
        }
        int code = grad_option(a, option, argv[++i], with_check);
        if (code != CLI_EXIT_OK) {
            return code;
        }
    }
    if (!a->path) {
        return cli_usage_error(a->command, "missing MODEL.xml");
    }
    return CLI_EXIT_OK;
}


// --body: a name or an id in 1 .. nbody-1; default the last body. -1 when invalid
static int resolve_body(const gdnModel* m, const char* body) {
    if (!body) {
        return m->nbody - 1;
    }
    long id = 0;
    if (cli_parse_int(body, 1, m->nbody - 1L, &id) == 0) {
        return (int)id;
    }
    int named = gdn_name2id(m, "body", body);
    return named >= 1 ? named : -1;
}


// --penalty h,k,c enables penalty contact; CLI_EXIT_OK or an exit code
static int apply_penalty(gdnModel* m, const char* text) {
    double hkc[3];
    char err[CLI_ERR_SIZE];
    if (cli_parse_list(text, hkc, 3, err, (int)sizeof(err)) != 0) {
        return cli_fail("--penalty '%s': %s (want height,stiffness,damping)", text, err);
    }
    if (gdn_model_set_penalty(m, 1, hkc[0], hkc[1], hkc[2]) != GDN_OK) {
        return cli_fail("--penalty '%s': stiffness and damping must be >= 0", text);
    }
    return CLI_EXIT_OK;
}


// the control schedule: --ctrl with nu values (held) or T*nu values, else the initial ctrl
static int fill_controls(gradProblem* p, const gradArgs* a) {
    const int nu = p->s.m->nu;
    const long T = a->steps;
    if (a->ctrl && nu == 0) {
        return cli_fail("--ctrl: the model has no actuators");
    }
    if (a->ctrl) {
        int commas = 0;
        for (const char* c = a->ctrl; *c; c++) {
            commas += *c == ',';
        }
        char err[CLI_ERR_SIZE];
        long n = commas + 1L == (long)nu * T && T > 1 ? (long)nu * T : nu;
        if (cli_parse_list(a->ctrl, p->ctrl, (int)n, err, (int)sizeof(err)) != 0) {
            return cli_fail("--ctrl: %s (want %d values, or steps x %d = %ld)", err, nu, nu,
                            (long)nu * T);
        }
        if (n == (long)nu * T) {
            return CLI_EXIT_OK;
        }
        for (long t = 1; t < T; t++) {
            memcpy(p->ctrl + t * nu, p->ctrl, sizeof(double) * (size_t)nu);
        }
        return CLI_EXIT_OK;
    }
    for (long t = 0; t < T; t++) {
        memcpy(p->ctrl + t * nu, p->s.d->ctrl, sizeof(double) * (size_t)nu);
    }
    return CLI_EXIT_OK;
}


// the objective: body, point, target (default: the point at q0), weights
static int build_objective(gradProblem* p, const gradArgs* a) {
    gdnModel* m = p->s.m;
    gdnTargetObjective* spec = &p->spec;
    char err[CLI_ERR_SIZE];
    spec->body = resolve_body(m, a->body);
    if (spec->body < 1) {
        return cli_fail("--body %s: no such body (ids 1 .. %d or a name)",
                        a->body ? a->body : "(default)", m->nbody - 1);
    }
    memcpy(spec->point, m->body_ipos + 3 * spec->body, sizeof(spec->point));
    if (a->point && cli_parse_list(a->point, spec->point, 3, err, (int)sizeof(err)) != 0) {
        return cli_fail("--point '%s': %s", a->point, err);
    }
    if (a->target) {
        if (cli_parse_list(a->target, spec->target, 3, err, (int)sizeof(err)) != 0) {
            return cli_fail("--target '%s': %s", a->target, err);
        }
    } else {
        // default target: where the point starts
        gdnData* d = p->s.d;
        gdn_kinematics(m, d);
        const double* R = d->xmat + 9 * spec->body;
        for (int i = 0; i < 3; i++) {
            spec->target[i] = d->xpos[3 * spec->body + i] + R[3 * i] * spec->point[0] +
                              R[3 * i + 1] * spec->point[1] + R[3 * i + 2] * spec->point[2];
        }
    }
    spec->weight = a->weight;
    spec->ctrl_weight = a->effort;
    spec->vel_weight = a->vel_weight;
    if (gdn_objective_target(m, spec, &p->obj) != GDN_OK) {
        return cli_fail("invalid objective");
    }
    return CLI_EXIT_OK;
}


// allocate the rollout inputs and copy the initial state
static int build_rollout(gradProblem* p, const gradArgs* a) {
    const gdnModel* m = p->s.m;
    const gdnData* d = p->s.d;
    size_t nctrl = (size_t)m->nu * (size_t)a->steps;
    p->qpos0 = malloc(sizeof(double) * (size_t)m->nq + 1);
    p->qvel0 = malloc(sizeof(double) * (size_t)m->nv + 1);
    p->qfrc_applied = malloc(sizeof(double) * (size_t)m->nv + 1);
    p->ctrl = malloc(sizeof(double) * nctrl + 1);
    if (!p->qpos0 || !p->qvel0 || !p->qfrc_applied || !p->ctrl) {
        return cli_fail("out of memory (%ld steps)", a->steps);
    }
    memcpy(p->qpos0, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(p->qvel0, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(p->qfrc_applied, d->qfrc_applied, sizeof(double) * (size_t)m->nv);
    int code = fill_controls(p, a);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    gdn_rollout_init(m, (int)a->steps, &p->r);
    p->r.qpos0 = p->qpos0;
    p->r.qvel0 = p->qvel0;
    p->r.ctrl = m->nu > 0 ? p->ctrl : NULL;
    p->r.qfrc_applied = p->qfrc_applied;
    return CLI_EXIT_OK;
}


int grad_problem_open(gradProblem* p, const gradArgs* a) {
    memset(p, 0, sizeof(*p));
    int code = cli_session_open_solver(&p->s, a->path, &a->state, &a->solver);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    if (a->penalty) {
        code = apply_penalty(p->s.m, a->penalty);
    }
    if (code == CLI_EXIT_OK) {
        code = build_rollout(p, a);
    }
    if (code == CLI_EXIT_OK) {
        code = build_objective(p, a);
    }
    if (code == CLI_EXIT_OK) {
        char err[CLI_ERR_SIZE] = "";
        gdnStatus st = gdn_tape_create(p->s.m, (int)a->steps, (int)a->checkpoint, &p->tape,
                                       err, (int)sizeof(err));
        if (st != GDN_OK) {
            code = cli_fail("tape: %s (%s)", err, gdn_status_string(st));
        }
    }
    if (code != CLI_EXIT_OK) {
        grad_problem_close(p);
    }
    return code;
}


void grad_problem_close(gradProblem* p) {
    gdn_tape_free(p->tape);
    cli_session_close(&p->s);
    free(p->qpos0);
    free(p->qvel0);
    free(p->qfrc_applied);
    free(p->ctrl);
    memset(p, 0, sizeof(*p));
}


double grad_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


const char* grad_status_name(gdnStatus status, char* buf, int size) {
    static const char* const names[] = {"GDN_OK",        "GDN_ERR_IO",        "GDN_ERR_PARSE",
                                        "GDN_ERR_MODEL", "GDN_ERR_ARG",       "GDN_ERR_NONFINITE",
                                        "GDN_ERR_MEMORY", "GDN_ERR_UNSUPPORTED"};
    if ((unsigned)status < sizeof(names) / sizeof(names[0])) {
        snprintf(buf, (size_t)size, "%s", names[status]);
    } else {
        snprintf(buf, (size_t)size, "status %d", (int)status);
    }
    return buf;
}


int grad_library_error(const char* what, gdnStatus status, const char* message) {
    char name[32];
    cli_fail("%s: %s (status %s: %s)", what, message && message[0] ? message : "failed",
             grad_status_name(status, name, (int)sizeof(name)), gdn_status_string(status));
    // (rows can be switched off; a wrapping tendon cannot)
    if (status == GDN_ERR_UNSUPPORTED && !(message && strstr(message, "tendon wrapping"))) {
        fputs("gradyn: hint: --noconstraint (or --nocontact when only contacts are active) "
              "differentiates the model without its constraint rows\n", stderr);
    }
    return CLI_EXIT_ERROR;
}


int grad_step_report(gradProblem* p, gradStepReport* r) {
    memset(r, 0, sizeof(*r));
    const long T = p->r.nstep;
    r->steps = T;
    double* buf = calloc(8 * (size_t)T + 1, sizeof(double));
    if (!buf) {
        return cli_fail("out of memory (step report of %ld steps)", T);
    }
    r->step = buf;
    r->ncon = buf + T;
    r->nefc = buf + 2 * T;
    r->iter = buf + 3 * T;
    r->converged = buf + 4 * T;
    r->flags = buf + 5 * T;
    r->state_margin = buf + 6 * T;
    r->activation_margin = buf + 7 * T;

    // every record the tape returns; a constrained one is listed
    for (long t = 0; t < T; t++) {
        gdnTapeStep rec;
        if (gdn_tape_step(p->tape, (int)t, &rec) != GDN_OK) {
            continue;
        }
        r->records++;
        if (rec.ncon == 0 && rec.nefc == 0) {
            continue;
        }
        long k = r->constrained++;
        r->step[k] = (double)t;
        r->ncon[k] = rec.ncon;
        r->nefc[k] = rec.nefc;
        r->iter[k] = rec.solver_iter;
        r->converged[k] = rec.solver_converged;
        r->flags[k] = rec.deriv_flags;
        r->state_margin[k] = rec.deriv_state_margin;
        r->activation_margin[k] = rec.deriv_activation_margin;
        r->flagged += rec.deriv_flags != 0;
        r->unconverged += rec.nefc > 0 && !rec.solver_converged;
        r->max_ncon = rec.ncon > r->max_ncon ? rec.ncon : r->max_ncon;
        r->max_nefc = rec.nefc > r->max_nefc ? rec.nefc : r->max_nefc;
    }
    return CLI_EXIT_OK;
}


void grad_step_report_write(cliJson* w, const gradStepReport* r) {
    const int n = (int)r->constrained;
    cli_json_begin_object(w, "step_flags");
    cli_json_int(w, "steps", r->steps);
    cli_json_int(w, "records", r->records);
    cli_json_int(w, "constrained_steps", r->constrained);
    cli_json_int(w, "unconverged_steps", r->unconverged);
    cli_json_int(w, "max_ncon", r->max_ncon);
    cli_json_int(w, "max_nefc", r->max_nefc);
    cli_json_numbers(w, "step", r->step, n);
    cli_json_numbers(w, "ncon", r->ncon, n);
    cli_json_numbers(w, "nefc", r->nefc, n);
    cli_json_numbers(w, "solver_iter", r->iter, n);
    cli_json_numbers(w, "solver_converged", r->converged, n);
    // the library's per-step derivative report (derivative.h: 1 one-sided, 2 a row near a
    // state boundary, 4 a row near its inclusion margin, 8 a curved MPR contact at its
    // converged limit, 16 an inexact solve, 32 an inside wrap at its root) from the backward
    // pass; the margins
    // (+inf printed as null: no such row)
    cli_json_int(w, "flagged_steps", r->flagged);
    cli_json_numbers(w, "derivative_flags", r->flags, n);
    cli_json_numbers(w, "state_margin", r->state_margin, n);
    cli_json_numbers(w, "activation_margin", r->activation_margin, n);
    cli_json_end_object(w);
}


void grad_step_report_free(gradStepReport* r) {
    free(r->step);
    memset(r, 0, sizeof(*r));
}


void grad_write_solver(cliJson* w, const gdnModel* m) {
    const gdnOption* o = &m->opt;
    cli_json_begin_object(w, "solver");
    cli_json_string(w, "integrator", cli_integrator_name(o->integrator));
    cli_json_string(w, "solver", cli_solver_name(o->solver));
    cli_json_string(w, "cone", cli_cone_name(o->cone));
    cli_json_int(w, "iterations", o->iterations);
    cli_json_double(w, "tolerance", o->tolerance);
    cli_json_int(w, "contact", !(o->disableflags & (GDN_DSBL_CONSTRAINT | GDN_DSBL_CONTACT)));
    cli_json_int(w, "constraint", !(o->disableflags & GDN_DSBL_CONSTRAINT));
    cli_json_end_object(w);
}
