// SPDX-License-Identifier: Apache-2.0
// gradyn info: sizes, every option, body tree, actuators, keyframes and loader warnings as JSON.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "session.h"


const char cli_info_usage[] =
    "usage: gradyn info MODEL.xml\n"
    "Prints the model as JSON: its sizes (nq, nv, nu, nbody, njnt, ngeom, nsite, nkey, nmesh,\n"
    "nvert, nsensor, nsensordata), every physics option (\"option\": timestep, gravity,\n"
    "integrator, solver, cone, iterations, tolerance, impratio, mpr_iterations, mpr_tolerance,\n"
    "box_edge_bias, density, viscosity, wind, the disable and enable flags as masks and by\n"
    "name, the override margin, solref and solimp, the magnetic field), the penalty ground"
    " contact (enabled, height, stiffness, damping), qpos0, the body tree (id, name, parent,\n"
    "mass, pos, quat and joints of each body), the actuators, the keyframes and the loader's\n"
    "warnings.\n";


static const char* joint_type_name(int type) {
    switch (type) {
    case GDN_JNT_FREE:
        return "free";
    case GDN_JNT_BALL:
        return "ball";
    case GDN_JNT_SLIDE:
        return "slide";
    case GDN_JNT_HINGE:
        return "hinge";
    default:
        return "unknown";
    }
}


// the joints of body b, in qpos order
static void write_joints(cliJson* w, const gdnModel* m, int b) {
    cli_json_begin_array(w, "joints");
    for (int j = m->body_jntadr[b]; j >= 0 && j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
        cli_json_begin_object(w, NULL);
        cli_json_int(w, "id", j);
        cli_json_string(w, "name", gdn_id2name(m, "joint", j));
        cli_json_string(w, "type", joint_type_name(m->jnt_type[j]));
        cli_json_int(w, "qposadr", m->jnt_qposadr[j]);
        cli_json_int(w, "dofadr", m->jnt_dofadr[j]);
        cli_json_numbers(w, "axis", m->jnt_axis + 3 * j, 3);
        cli_json_end_object(w);
    }
    cli_json_end_array(w);
}


// one object per body, world first; parent is the parent's id (MuJoCo: the world's is 0)
static void write_bodies(cliJson* w, const gdnModel* m) {
    cli_json_begin_array(w, "bodies");
    for (int b = 0; b < m->nbody; b++) {
        int parent = m->body_parentid[b];
        cli_json_begin_object(w, NULL);
        cli_json_int(w, "id", b);
        cli_json_string(w, "name", gdn_id2name(m, "body", b));
        cli_json_int(w, "parent", parent);
        cli_json_string(w, "parent_name", b == 0 ? "" : gdn_id2name(m, "body", parent));
        cli_json_double(w, "mass", m->body_mass[b]);
        cli_json_numbers(w, "pos", m->body_pos + 3 * b, 3);
        cli_json_numbers(w, "quat", m->body_quat + 4 * b, 4);
        write_joints(w, m, b);
        cli_json_end_object(w);
    }
    cli_json_end_array(w);
}


static void write_actuators(cliJson* w, const gdnModel* m) {
    cli_json_begin_array(w, "actuators");
    for (int a = 0; a < m->nu; a++) {
        int target = m->actuator_trnid[2 * a];
        const int type = m->actuator_trntype[a];
        // the target's kind: a tendon, a site (slider-crank: the crank site; site), else a joint
        const char* kind = type == GDN_TRN_TENDON ? "tendon"
                           : (type == GDN_TRN_SLIDERCRANK || type == GDN_TRN_SITE) ? "site"
                                                                                    : "joint";
        const char* target_name = gdn_id2name(m, kind, target);
        char key[32];
        snprintf(key, sizeof(key), "%s_name", kind);
        cli_json_begin_object(w, NULL);
        cli_json_int(w, "id", a);
        cli_json_string(w, "name", gdn_id2name(m, "actuator", a));
        cli_json_int(w, kind, target);
        cli_json_string(w, key, target_name ? target_name : "");
        cli_json_double(w, "gear", m->actuator_gear[6 * a]);
        if (m->actuator_ctrllimited[a]) {
            cli_json_numbers(w, "ctrlrange", m->actuator_ctrlrange + 2 * a, 2);
        } else {
            cli_json_null(w, "ctrlrange");
        }
        cli_json_end_object(w);
    }
    cli_json_end_array(w);
}


// the names of the set bits of a flag mask (names[k] is bit k), as a JSON array
static void write_flag_names(cliJson* w, const char* key, int mask, const char* const* names,
                             int count) {
    cli_json_begin_array(w, key);
    for (int k = 0; k < count; k++) {
        if ((mask & (1 << k)) && names[k]) {
            cli_json_string(w, NULL, names[k]);
        }
    }
    cli_json_end_array(w);
}


// every field of gdnOption (MJCF <option>), solver and cone by name, flags as masks and names,
// then the penalty ground contact
static void write_options(cliJson* w, const gdnModel* m) {
    static const char* const disable_names[] = {
        "constraint", "equality", "frictionloss", "limit",        "contact",  "passive",
        "gravity",    "clampctrl", "warmstart",   "filterparent", "actuation", "refsafe",
        "sensor"};
    // bit k's name; bit 8 is gradyn's GDN_ENBL_ONESIDED (bits 2, 4..7 MuJoCo's, unused here)
    static const char* const enable_names[] = {"override", "energy", NULL, "sensornoise", NULL,
                                               NULL,       NULL,     NULL, "onesided"};
    const gdnOption* o = &m->opt;
    cli_json_begin_object(w, "option");
    cli_json_double(w, "timestep", o->timestep);
    cli_json_numbers(w, "gravity", o->gravity, 3);
    cli_json_string(w, "integrator", cli_integrator_name(o->integrator));
    cli_json_string(w, "solver", cli_solver_name(o->solver));
    cli_json_string(w, "cone", cli_cone_name(o->cone));
    cli_json_int(w, "iterations", o->iterations);
    cli_json_double(w, "tolerance", o->tolerance);
    cli_json_double(w, "impratio", o->impratio);
    cli_json_int(w, "mpr_iterations", o->mpr_iterations);
    cli_json_double(w, "mpr_tolerance", o->mpr_tolerance);
    cli_json_double(w, "box_edge_bias", o->box_edge_bias);
    cli_json_double(w, "density", o->density);
    cli_json_double(w, "viscosity", o->viscosity);
    cli_json_numbers(w, "wind", o->wind, 3);
    cli_json_int(w, "disableflags", o->disableflags);
    write_flag_names(w, "disabled", o->disableflags, disable_names, 13);
    cli_json_int(w, "enableflags", o->enableflags);
    write_flag_names(w, "enabled", o->enableflags, enable_names, 9);
    cli_json_double(w, "o_margin", o->o_margin);
    cli_json_numbers(w, "o_solref", o->o_solref, GDN_NREF);
    cli_json_numbers(w, "o_solimp", o->o_solimp, GDN_NIMP);
    cli_json_numbers(w, "magnetic", o->magnetic, 3);
    cli_json_end_object(w);

    cli_json_begin_object(w, "penalty");
    cli_json_int(w, "enabled", m->penalty.enabled);
    cli_json_double(w, "height", m->penalty.height);
    cli_json_double(w, "stiffness", m->penalty.stiffness);
    cli_json_double(w, "damping", m->penalty.damping);
    cli_json_end_object(w);
}


static void write_keyframes(cliJson* w, const gdnModel* m) {
    cli_json_begin_array(w, "keyframes");
    for (int k = 0; k < m->nkey; k++) {
        cli_json_begin_object(w, NULL);
        cli_json_int(w, "id", k);
        cli_json_string(w, "name", gdn_id2name(m, "key", k));
        cli_json_double(w, "time", m->key_time[k]);
        cli_json_end_object(w);
    }
    cli_json_end_array(w);
}


int cli_info(int argc, char** argv) {
    // arguments: exactly one model path
    const char* path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_print_help("info");
            return CLI_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("info", "unknown option '%s'", argv[i]);
        }
        if (path) {
            return cli_usage_error("info", "more than one model given");
        }
        path = argv[i];
    }
    if (!path) {
        return cli_usage_error("info", "missing MODEL.xml");
    }

    cliSession s;
    int code = cli_session_load(&s, path);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    const gdnModel* m = s.m;

    // sizes and options at the top level, then the tree
    cliJson w;
    cli_json_init(&w, stdout);
    cli_json_begin_object(&w, NULL);
    cli_json_string(&w, "model", path);
    cli_json_int(&w, "nq", m->nq);
    cli_json_int(&w, "nv", m->nv);
    cli_json_int(&w, "nu", m->nu);
    cli_json_int(&w, "na", m->na);
    cli_json_int(&w, "nbody", m->nbody);
    cli_json_int(&w, "njnt", m->njnt);
    cli_json_int(&w, "ngeom", m->ngeom);
    cli_json_int(&w, "nsite", m->nsite);
    cli_json_int(&w, "nkey", m->nkey);
    cli_json_int(&w, "nmesh", m->nmesh);
    cli_json_int(&w, "nvert", m->nvert);
    cli_json_int(&w, "nsensor", m->nsensor);
    cli_json_int(&w, "nsensordata", m->nsensordata);
    cli_json_double(&w, "timestep", m->opt.timestep);
    cli_json_numbers(&w, "gravity", m->opt.gravity, 3);
    cli_json_int(&w, "disableflags", m->opt.disableflags);
    cli_json_int(&w, "enableflags", m->opt.enableflags);
    write_options(&w, m);
    cli_json_numbers(&w, "qpos0", m->qpos0, m->nq);
    write_bodies(&w, m);
    write_actuators(&w, m);
    write_keyframes(&w, m);
    cli_json_lines(&w, "warnings", s.warnings);
    cli_json_end_object(&w);

    cli_session_close(&s);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : cli_fail("cannot write the output");
}
