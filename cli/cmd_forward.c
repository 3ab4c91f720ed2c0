// SPDX-License-Identifier: Apache-2.0
// gradyn forward: forward dynamics at one state (with simulate's solver and disable options),
// printed as JSON with MuJoCo's field names: the constrained qacc and the smooth qacc_smooth.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "session.h"

const char cli_forward_usage[] =
    "usage: gradyn forward MODEL.xml " CLI_STATE_SYNOPSIS "\n" CLI_SOLVER_SYNOPSIS
    "Forward dynamics at one state, printed as JSON: time; qacc, the acceleration the step\n"
    "integrates (with the constraint forces); qacc_smooth, the unconstrained acceleration\n"
    "(qacc without constraint forces; equal to qacc when no constraint is active);\n"
    "qfrc_constraint; qM (dense nv x nv); qfrc_bias, qfrc_passive, qfrc_actuator,\n"
    "actuator_force; energy [potential, kinetic]; xpos (nbody x 3); and the constraint\n"
    "solve's ncon, nefc, solver_iter, solver_converged and solver_residual; with sensors,\n"
    "sensordata (nsensordata, MuJoCo's layout) and sensors: each sensor's values by name\n"
    "(unnamed ones as sensor<id>).\n";


// the results of gdn_forward and gdn_energy at the state in d
static void write_forward(cliJson* w, const gdnModel* m, const gdnData* d) {
    cli_json_begin_object(w, NULL);
    cli_json_double(w, "time", d->time);
    cli_json_numbers(w, "qacc", d->qacc, m->nv);
    cli_json_numbers(w, "qacc_smooth", d->qacc_smooth, m->nv);
    cli_json_numbers(w, "qfrc_constraint", d->qfrc_constraint, m->nv);
    cli_json_matrix(w, "qM", d->qM, m->nv, m->nv);
    cli_json_numbers(w, "qfrc_bias", d->qfrc_bias, m->nv);
    cli_json_numbers(w, "qfrc_passive", d->qfrc_passive, m->nv);
    cli_json_numbers(w, "qfrc_actuator", d->qfrc_actuator, m->nv);
    cli_json_numbers(w, "actuator_force", d->actuator_force, m->nu);
    cli_json_numbers(w, "energy", d->energy, 2);
    cli_json_matrix(w, "xpos", d->xpos, m->nbody, 3);
    cli_json_int(w, "ncon", d->ncon);
    cli_json_int(w, "nefc", d->nefc);
    cli_json_int(w, "solver_iter", d->solver_iter);
    cli_json_int(w, "solver_converged", d->solver_converged);
    cli_json_double(w, "solver_residual", d->solver_residual);
    if (m->nsensor > 0) {
        cli_json_numbers(w, "sensordata", d->sensordata, m->nsensordata);
        cli_json_begin_object(w, "sensors");
        for (int i = 0; i < m->nsensor; i++) {
            char key[32];
            const char* name = gdn_id2name(m, "sensor", i);
            if (!name || !name[0]) {
                snprintf(key, sizeof(key), "sensor%d", i);
                name = key;
            }
            cli_json_numbers(w, name, d->sensordata + m->sensor_adr[i], m->sensor_dim[i]);
        }
        cli_json_end_object(w);
    }
    cli_json_end_object(w);
}


int cli_forward(int argc, char** argv) {
    // arguments: the model path, --state, --key and the solver options
    const char* path = NULL;
    cliStateArgs args = {NULL, NULL};
    cliSolverArgs solver;
    cli_solver_args_init(&solver);
    for (int i = 1; i < argc; i++) {
        int consumed = cli_state_option(&args, "forward", argc, argv, &i);
        if (consumed == 0) {
            consumed = cli_solver_option(&solver, "forward", argc, argv, &i);
        }
        if (consumed < 0) {
            return CLI_EXIT_USAGE;
        }
        if (consumed) {
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_print_help("forward");
            return CLI_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("forward", "unknown option '%s'", argv[i]);
        }
        if (path) {
            return cli_usage_error("forward", "more than one model given");
        }
        path = argv[i];
    }
    if (!path) {
        return cli_usage_error("forward", "missing MODEL.xml");
    }

    cliSession s;
    int code = cli_session_open_solver(&s, path, &args, &solver);
    if (code != CLI_EXIT_OK) {
        return code;
    }

    // forward dynamics, then energy (computed whether or not the model enables it)
    gdnStatus status = gdn_forward(s.m, s.d);
    if (status != GDN_OK) {
        cli_session_close(&s);
        return cli_fail("forward dynamics failed: %s", gdn_status_string(status));
    }
    if (s.d->nefc > 0 && !s.d->solver_converged) {
        cli_warn_unconverged(s.m, 1, 1, s.d->solver_residual);
    }
    gdn_energy(s.m, s.d);

    cliJson w;
    cli_json_init(&w, stdout);
    write_forward(&w, s.m, s.d);
    cli_session_close(&s);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : cli_fail("cannot write the output");
}
