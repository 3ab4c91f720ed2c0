// SPDX-License-Identifier: Apache-2.0
// gradyn contacts: kinematics and collision at one state, the contacts printed as JSON (with
// --forces: after the constraint solve, each contact's force in its frame too).
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "session.h"

const char cli_contacts_usage[] =
    "usage: gradyn contacts MODEL.xml " CLI_STATE_SYNOPSIS " [--forces]\n" CLI_SOLVER_SYNOPSIS
    "Runs kinematics and MuJoCo's collision at one state and prints every contact as JSON: the\n"
    "geom names and ids, then mjContact's dist, pos, frame (normal, then two tangents), dim,\n"
    "friction, solref, solimp and includemargin, in detection order; ncon_overflow when the\n"
    "contact buffer was too small. --forces runs the forward dynamics (with the solver\n"
    "options) and adds each contact's force in its frame (normal, tangent1, tangent2, torsion,\n"
    "roll1, roll2; MuJoCo's mj_contactForce) and the solve's nefc, solver_iter and\n"
    "solver_converged.\n";


// one contact: the geoms by name and id, then MuJoCo's mjContact fields, then its force (when
// forces is set)
static void write_contact(cliJson* w, const gdnModel* m, const gdnData* d, int id, int forces) {
    const gdnContact* c = &d->contact[id];
    cli_json_begin_object(w, NULL);
    cli_json_string(w, "geom1", gdn_id2name(m, "geom", c->geom1));
    cli_json_string(w, "geom2", gdn_id2name(m, "geom", c->geom2));
    cli_json_int(w, "geom1_id", c->geom1);
    cli_json_int(w, "geom2_id", c->geom2);
    cli_json_double(w, "dist", c->dist);
    cli_json_numbers(w, "pos", c->pos, 3);
    cli_json_numbers(w, "frame", c->frame, 9);
    cli_json_int(w, "dim", c->dim);
    cli_json_numbers(w, "friction", c->friction, 5);
    cli_json_numbers(w, "solref", c->solref, GDN_NREF);
    cli_json_numbers(w, "solimp", c->solimp, GDN_NIMP);
    cli_json_double(w, "includemargin", c->includemargin);
    if (forces) {
        double f[6];
        gdn_contact_force(m, d, id, f);
        cli_json_numbers(w, "force", f, 6);
    }
    cli_json_end_object(w);
}


// the document: time, ncon, ncon_overflow when nonzero, the solve's report (forces), the
// contacts in detection order
static void write_contacts(cliJson* w, const gdnModel* m, const gdnData* d, int forces) {
    cli_json_begin_object(w, NULL);
    cli_json_double(w, "time", d->time);
    cli_json_int(w, "ncon", d->ncon);
    if (d->ncon_overflow) {
        cli_json_int(w, "ncon_overflow", d->ncon_overflow);
    }
    if (forces) {
        cli_json_int(w, "nefc", d->nefc);
        cli_json_int(w, "solver_iter", d->solver_iter);
        cli_json_int(w, "solver_converged", d->solver_converged);
    }
    cli_json_begin_array(w, "contacts");
    for (int i = 0; i < d->ncon; i++) {
        write_contact(w, m, d, i, forces);
    }
    cli_json_end_array(w);
    cli_json_end_object(w);
}


int cli_contacts(int argc, char** argv) {
    // arguments: the model path, --state, --key, --forces and the solver options
    const char* path = NULL;
    cliStateArgs args = {NULL, NULL};
    cliSolverArgs solver;
    cli_solver_args_init(&solver);
    int forces = 0;
    for (int i = 1; i < argc; i++) {
        int consumed = cli_state_option(&args, "contacts", argc, argv, &i);
        if (consumed == 0) {
            consumed = cli_solver_option(&solver, "contacts", argc, argv, &i);
        }
        if (consumed < 0) {
            return CLI_EXIT_USAGE;
        }
        if (consumed) {
            continue;
        }
        if (strcmp(argv[i], "--forces") == 0) {
            forces = 1;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_print_help("contacts");
            return CLI_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("contacts", "unknown option '%s'", argv[i]);
        }
        if (path) {
            return cli_usage_error("contacts", "more than one model given");
        }
        path = argv[i];
    }
    if (!path) {
        return cli_usage_error("contacts", "missing MODEL.xml");
    }

    cliSession s;
    int code = cli_session_open_solver(&s, path, &args, &solver);
    if (code != CLI_EXIT_OK) {
        return code;
    }

    // geom poses, then MuJoCo's collision pass; or the whole forward dynamics for the forces
    gdnStatus status = GDN_OK;
    if (forces) {
        status = gdn_forward(s.m, s.d);
    } else {
        gdn_kinematics(s.m, s.d);
        status = gdn_collision(s.m, s.d);
    }
    if (status != GDN_OK) {
        cli_session_close(&s);
        return cli_fail("%s failed: %s", forces ? "forward dynamics" : "collision",
                        gdn_status_string(status));
    }
    if (forces && s.d->nefc > 0 && !s.d->solver_converged) {
        cli_warn_unconverged(s.m, 1, 1, s.d->solver_residual);
    }

    cliJson w;
    cli_json_init(&w, stdout);
    write_contacts(&w, s.m, s.d, forces);
    cli_session_close(&s);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : cli_fail("cannot write the output");
}
