// SPDX-License-Identifier: Apache-2.0
// Every public call checks what it is given: data of another model, NULL arguments, a body out
// of range, options changed after load, non-finite states, a non-finite solve, time overflow.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "runner/cli_run.h"
#include "runner/models.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_public_checks_tmp"

// a model of tests/models (NULL after printing the loader's message)
// the state (time, qpos, qvel) of d, to check that a refused call left it unchanged
typedef struct Snapshot {
    double time;
    double q[64], v[64];
} Snapshot;

static void snapshot(const gdnModel* m, const gdnData* d, Snapshot* s) {
    s->time = d->time;
    memcpy(s->q, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(s->v, d->qvel, sizeof(double) * (size_t)m->nv);
}

// 1 when d's state is bit-identical to s (NaN entries compared by their bits)
static int unchanged(const gdnModel* m, const gdnData* d, const Snapshot* s) {
    return memcmp(&s->time, &d->time, sizeof(double)) == 0 &&
           memcmp(s->q, d->qpos, sizeof(double) * (size_t)m->nq) == 0 &&
           memcmp(s->v, d->qvel, sizeof(double) * (size_t)m->nv) == 0;
}

// x and y are the same double, bit for bit (NaN included)
static int same_bits(double x, double y) {
    return memcmp(&x, &y, sizeof(double)) == 0;
}

// ---------------------------------------------------------------- model signature

// data of one model used with another: every call taking (m, d) refuses (GDN_ERR_ARG) or, when
// void, does nothing; another copy of the same model shares the data
static int test_model_mismatch(void) {
    gdnModel* a = gdn_test_load_model_as_is("double_pendulum.xml");
    gdnModel* b = gdn_test_load_model_as_is("sol_stack.xml");
    gdnModel* a2 = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(a && b && a2);
    gdnData* da = NULL;
    CHECK(gdn_data_create(a, &da) == GDN_OK);
    da->qpos[0] = 0.3;
    da->qvel[1] = -0.7;
    Snapshot s;
    snapshot(a, da, &s);
    const double xpos = da->xpos[3];
    double big[4096] = {0};
    double result[6];

    CHECK(gdn_step(b, da) == GDN_ERR_ARG);
    CHECK(gdn_forward(b, da) == GDN_ERR_ARG);
    CHECK(gdn_inverse(b, da) == GDN_ERR_ARG);
    CHECK(gdn_collision(b, da) == GDN_ERR_ARG);
    CHECK(gdn_contact_force(b, da, 0, result) == GDN_ERR_ARG);
    CHECK(gdn_data_reset_keyframe(b, da, 0) == GDN_ERR_ARG);
    CHECK(gdn_step_jvp(b, da, NULL, NULL, NULL, NULL, NULL, big, big + 2048) == GDN_ERR_ARG);
    CHECK(gdn_step_vjp(b, da, NULL, NULL, big, big + 1024, NULL, NULL, NULL) == GDN_ERR_ARG);
    CHECK(gdn_transition_jacobians(b, da, big, NULL) == GDN_ERR_ARG);
    gdn_data_reset(b, da);
    gdn_kinematics(b, da);
    // the void stages: nothing written into da; outputs sized by b are NaN (rne, aba) or zero
    // (the Jacobians)
    const double qM0 = da->qM[0], passive0 = da->qfrc_passive[0], energy0 = da->energy[0];
    gdn_crb(b, da);
    gdn_passive(b, da);
    gdn_actuation(b, da);
    gdn_energy(b, da);
    for (int i = 0; i < b->nv; i++) {
        big[i] = 1;
    }
    gdn_rne(b, da, 1, big + 2048);
    gdn_aba(b, da, big, NULL, big + 1024);
    for (int i = 0; i < b->nv; i++) {
        CHECK(isnan(big[2048 + i]) && isnan(big[1024 + i]));
    }
    gdn_jac_body(b, da, big, big + 1024, 1);
    gdn_jac_body_com(b, da, big, NULL, 1);
    for (int i = 0; i < 3 * b->nv; i++) {
        CHECK(big[i] == 0 && big[1024 + i] == 0);
    }
    CHECK(same_bits(da->qM[0], qM0) && same_bits(da->qfrc_passive[0], passive0) &&
          same_bits(da->energy[0], energy0));
    CHECK(unchanged(a, da, &s));
    CHECK(da->xpos[3] == xpos);

    // the same sizes (another copy of the model) share the data
    CHECK(gdn_step(a2, da) == GDN_OK);
    CHECK(gdn_forward(a, da) == GDN_OK);

    // a model edit that changes the data's layout (the collision-mesh vertex count)
    const double verts[6] = {0, 0, 0, 0, 0, -0.1};
    CHECK(gdn_model_set_collision_mesh(a2, 1, verts, 2) == GDN_OK);
    snapshot(a, da, &s);
    CHECK(gdn_step(a2, da) == GDN_ERR_ARG);
    CHECK(gdn_forward(a2, da) == GDN_ERR_ARG);
    CHECK(unchanged(a, da, &s));

    gdn_data_free(da);
    gdn_model_free(a);
    gdn_model_free(a2);
    gdn_model_free(b);
    return 0;
}

// ---------------------------------------------------------------- NULL arguments

// NULL models, data and arrays: statuses or nothing, never a crash
static int test_null_arguments(void) {
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    double q[16] = {0}, v[16] = {0};
    gdn_data_reset(NULL, d);
    gdn_data_reset(m, NULL);
    gdn_data_reset(NULL, NULL);
    gdn_kinematics(NULL, d);
    gdn_kinematics(m, NULL);
    gdn_integrate_pos(NULL, q, v, 0.1);
    gdn_integrate_pos(m, NULL, v, 0.1);
    gdn_integrate_pos(m, q, NULL, 0.1);
    gdn_difference_pos(NULL, v, 0.1, q, q);
    gdn_difference_pos(m, NULL, 0.1, q, q);
    gdn_difference_pos(m, v, 0.1, NULL, q);
    gdn_normalize_quat(NULL, q);
    gdn_normalize_quat(m, NULL);
    gdn_inertia_params(NULL, q);
    gdn_inertia_from_params(NULL, NULL);
    CHECK(gdn_step(NULL, d) == GDN_ERR_ARG);
    CHECK(gdn_step(m, NULL) == GDN_ERR_ARG);
    CHECK(gdn_forward(NULL, d) == GDN_ERR_ARG);
    CHECK(gdn_inverse(m, NULL) == GDN_ERR_ARG);
    CHECK(gdn_collision(NULL, d) == GDN_ERR_ARG);
    CHECK(gdn_data_reset_keyframe(NULL, d, 0) == GDN_ERR_ARG);

    // the calls still work on good arguments afterwards
    gdn_data_reset(m, d);
    CHECK(gdn_step(m, d) == GDN_OK);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- body index

// gdn_body_inertia outside [0, nbody) (or a NULL model) fills zeros, reads nothing
static int test_body_inertia_range(void) {
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(m);
    const int bad[] = {-1, m->nbody, m->nbody + 1000000, -2147483647 - 1, 2147483647};
    for (int k = 0; k < (int)(sizeof(bad) / sizeof(bad[0])); k++) {
        gdnInertia in;
        memset(&in, 0x7f, sizeof(in));
        gdn_body_inertia(m, bad[k], &in);
        CHECK(in.mass == 0 && in.com[0] == 0 && in.com[2] == 0);
        for (int i = 0; i < 9; i++) {
            CHECK(in.inertia[i] == 0);
        }
    }
    gdnInertia in;
    gdn_body_inertia(NULL, 1, &in);
    CHECK(in.mass == 0);
    gdn_body_inertia(m, 1, NULL);
    gdn_body_inertia(m, 1, &in);
    CHECK(in.mass == m->body_mass[1] && in.mass > 0);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- options

// one option set out of range after load
typedef struct BadOption {
    const char* name;
    void (*apply)(gdnOption* o);
} BadOption;

static void opt_timestep_zero(gdnOption* o) { o->timestep = 0; }
static void opt_timestep_negative(gdnOption* o) { o->timestep = -0.002; }
static void opt_timestep_nan(gdnOption* o) { o->timestep = NAN; }
static void opt_timestep_inf(gdnOption* o) { o->timestep = INFINITY; }
static void opt_iterations(gdnOption* o) { o->iterations = -5; }
static void opt_tolerance_nan(gdnOption* o) { o->tolerance = NAN; }
static void opt_tolerance_negative(gdnOption* o) { o->tolerance = -1e-8; }
static void opt_solver(gdnOption* o) { o->solver = (gdnSolver)7; }
static void opt_cone(gdnOption* o) { o->cone = (gdnCone)2; }
static void opt_integrator(gdnOption* o) { o->integrator = (gdnIntegrator)3; }
static void opt_impratio(gdnOption* o) { o->impratio = 0; }
static void opt_impratio_nan(gdnOption* o) { o->impratio = NAN; }
static void opt_gravity(gdnOption* o) { o->gravity[2] = NAN; }
static void opt_mpr_iterations(gdnOption* o) { o->mpr_iterations = -1; }
static void opt_mpr_tolerance(gdnOption* o) { o->mpr_tolerance = NAN; }
static void opt_disableflags(gdnOption* o) { o->disableflags |= 1 << 20; }
static void opt_enableflags(gdnOption* o) { o->enableflags |= 1 << 9; }
static void opt_o_margin(gdnOption* o) {
    o->enableflags |= GDN_ENBL_OVERRIDE;
    o->o_margin = INFINITY;
}
static void opt_o_solref(gdnOption* o) {
    o->enableflags |= GDN_ENBL_OVERRIDE;
    o->o_solref[1] = NAN;
}
static void opt_o_solimp(gdnOption* o) {
    o->enableflags |= GDN_ENBL_OVERRIDE;
    o->o_solimp[3] = NAN;
}

static const BadOption kBadOptions[] = {
    {"timestep 0", opt_timestep_zero},      {"timestep < 0", opt_timestep_negative},
    {"timestep NaN", opt_timestep_nan},     {"timestep inf", opt_timestep_inf},
    {"iterations -5", opt_iterations},      {"tolerance NaN", opt_tolerance_nan},
    {"tolerance < 0", opt_tolerance_negative}, {"solver 7", opt_solver},
    {"cone 2", opt_cone},                   {"integrator 3", opt_integrator},
    {"impratio 0", opt_impratio},           {"impratio NaN", opt_impratio_nan},
    {"gravity NaN", opt_gravity},           {"mpr_iterations -1", opt_mpr_iterations},
    {"mpr_tolerance NaN", opt_mpr_tolerance}, {"unknown disable bit", opt_disableflags},
    {"unknown enable bit", opt_enableflags}, {"o_margin inf", opt_o_margin},
    {"o_solref NaN", opt_o_solref},         {"o_solimp NaN", opt_o_solimp},
};

// every bad option: gdn_step, gdn_forward, gdn_inverse and the derivatives refuse with
// GDN_ERR_ARG and leave the state as it was; the model's own options pass again afterwards
static int test_options_validated(void) {
    gdnModel* m = gdn_test_load_model_as_is("sol_box.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const gdnOption good = m->opt;
    double big[2048];
    for (int k = 0; k < (int)(sizeof(kBadOptions) / sizeof(kBadOptions[0])); k++) {
        gdn_data_reset(m, d);
        CHECK(gdn_step(m, d) == GDN_OK);
        kBadOptions[k].apply(&m->opt);
        Snapshot s;
        snapshot(m, d, &s);
        if (gdn_step(m, d) != GDN_ERR_ARG || gdn_forward(m, d) != GDN_ERR_ARG ||
            gdn_inverse(m, d) != GDN_ERR_ARG ||
            gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, big, big + 1024) != GDN_ERR_ARG ||
            gdn_step_vjp(m, d, NULL, NULL, big, NULL, NULL, NULL, NULL) != GDN_ERR_ARG ||
            gdn_transition_jacobians(m, d, big, NULL) != GDN_ERR_ARG) {
            fprintf(stderr, "option %s was accepted\n", kBadOptions[k].name);
            return 1;
        }
        CHECK(unchanged(m, d, &s));
        m->opt = good;
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- non-finite states

// gdn_forward applies gdn_step's check (the pipeline's): a non-finite qpos, qvel or ctrl is
// GDN_ERR_NONFINITE for both (with the matching warning counted), the state unchanged
static int test_forward_state_check(void) {
    gdnModel* m = gdn_test_load_model_as_is("pendulum.xml");
    CHECK(m && m->nu == 1);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        for (int which = 0; which < 3; which++) {
            gdn_data_reset(m, d);
            double* x = which == 0 ? d->qpos : (which == 1 ? d->qvel : d->ctrl);
            x[0] = bad[k];
            const int warning = which == 0 ? GDN_WARN_BADQPOS
                                           : (which == 1 ? GDN_WARN_BADQVEL : GDN_WARN_BADCTRL);
            Snapshot s;
            snapshot(m, d, &s);
            CHECK(gdn_forward(m, d) == GDN_ERR_NONFINITE);
            CHECK(d->warning[warning] == 1);
            CHECK(gdn_step(m, d) == GDN_ERR_NONFINITE);
            CHECK(d->warning[warning] == 2);
            // gdn_inverse reads qpos and qvel (and qacc), not ctrl
            CHECK(which == 2 || gdn_inverse(m, d) == GDN_ERR_NONFINITE);
            CHECK(unchanged(m, d, &s));
        }
    }
    gdn_data_reset(m, d);
    CHECK(gdn_forward(m, d) == GDN_OK);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- non-finite solve

// a finite but huge velocity into the box stack overflows the solver's cost: the residual is
// not finite, which every solver reports as GDN_ERR_NONFINITE (it used to be a step taken with
// the warm start's acceleration, reported only as "did not converge"); the state is unchanged
static int test_nonfinite_solve(void) {
    gdnModel* m = gdn_test_load_model_as_is("sol_stack.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const gdnSolver solvers[] = {GDN_SOL_NEWTON, GDN_SOL_CG, GDN_SOL_PGS};
    for (int s = 0; s < 3; s++) {
        for (int c = 0; c < 2; c++) {
            m->opt.solver = solvers[s];
            m->opt.cone = c ? GDN_CONE_ELLIPTIC : GDN_CONE_PYRAMIDAL;
            gdn_data_reset(m, d);
            for (int i = 0; i < 3; i++) {
                CHECK(gdn_step(m, d) == GDN_OK);
            }
            d->qvel[2] = -1e200;
            Snapshot snap;
            snapshot(m, d, &snap);
            const gdnStatus status = gdn_step(m, d);
            if (status != GDN_ERR_NONFINITE) {
                fprintf(stderr, "solver %d cone %d: %s, residual %g, nefc %d\n", s, c,
                        gdn_status_string(status), d->solver_residual, d->nefc);
                return 1;
            }
            CHECK(d->solver_converged == 0);
            CHECK(unchanged(m, d, &snap));
            CHECK(gdn_forward(m, d) == GDN_ERR_NONFINITE);
        }
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- time

// a step whose time + timestep is not finite is refused before anything changes
static int test_time_overflow(void) {
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const double times[] = {INFINITY, -INFINITY, NAN, DBL_MAX};
    m->opt.timestep = DBL_MAX; // a valid (finite, positive) option
    for (int k = 0; k < 4; k++) {
        gdn_data_reset(m, d);
        d->time = times[k];
        Snapshot s;
        snapshot(m, d, &s);
        CHECK(gdn_step(m, d) == GDN_ERR_NONFINITE);
        CHECK(unchanged(m, d, &s));
    }
    // the last finite time before overflow still steps
    gdn_data_reset(m, d);
    m->opt.timestep = 0.002;
    d->time = DBL_MAX;
    CHECK(gdn_step(m, d) == GDN_OK && d->time == DBL_MAX);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// gradyn simulate with a time that overflows: a non-zero exit and a message naming the step,
// no trajectory row with a null time
static int test_cli_time_overflow(void) {
    const char* model = gdn_cli_tmp_file(
        TMP_DIR, "big_step.xml",
        "<mujoco>\n<option timestep=\"1e308\"/>\n<worldbody>\n<body>\n"
        "<joint type=\"hinge\" axis=\"0 1 0\"/>\n"
        "<geom type=\"sphere\" size=\"0.1\" pos=\"0 0 -1\" mass=\"1\"/>\n"
        "</body>\n</worldbody>\n</mujoco>\n");
    const char* state = gdn_cli_tmp_file(TMP_DIR, "late.json", "{\"time\": 1.7e308}");
    char args[2048];
    snprintf(args, sizeof(args), "simulate '%s' --steps 3 --format json --state '%s'", model,
             state);
    char* out = NULL;
    char* err = NULL;
    const int code = gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &out, &err);
    int ok = code != 0 && code < 128 && strstr(err, "step 1") != NULL &&
             strstr(out, "null") == NULL;
    if (!ok) {
        fprintf(stderr, "exit %d\nstdout: %s\nstderr: %s\n", code, out, err);
    }
    free(out);
    free(err);
    CHECK(ok);
    return 0;
}

// ---------------------------------------------------------------- loaded options

// every test model's options as loaded pass the check (nothing the loader accepts is refused)
static int test_loaded_models_step(void) {
    static const char* const files[] = {
        "pendulum.xml", "double_pendulum.xml", "arm7.xml", "sol_stack.xml",
        "sol_frictionloss.xml", "cnstr_weld.xml", "scene_meshes.xml", "box_penalty.xml"};
    for (int k = 0; k < (int)(sizeof(files) / sizeof(files[0])); k++) {
        gdnModel* m = gdn_test_load_model_as_is(files[k]);
        CHECK(m);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        CHECK(gdn_forward(m, d) == GDN_OK);
        CHECK(gdn_step(m, d) == GDN_OK);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}

static const gdnTestCase cases[] = {
    {"model_mismatch", test_model_mismatch},
    {"null_arguments", test_null_arguments},
    {"body_inertia_range", test_body_inertia_range},
    {"options_validated", test_options_validated},
    {"forward_state_check", test_forward_state_check},
    {"nonfinite_solve", test_nonfinite_solve},
    {"time_overflow", test_time_overflow},
    {"cli_time_overflow", test_cli_time_overflow},
    {"loaded_models_step", test_loaded_models_step},
};

GDN_TEST_MAIN(cases)
