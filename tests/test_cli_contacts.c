// SPDX-License-Identifier: Apache-2.0
// The contact commands end to end: gradyn contacts against MuJoCo 2.2.2's mj_collision (every
// printed field, overflow), and gradyn simulate's solver options (effects, reports, errors).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/cli_run.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_contacts_tmp"
#define HUMANOID_XML "/usr/share/mujoco/model/humanoid/humanoid.xml"

// a floor, three free bodies touching it and a lid on the crate at qpos0 (one named geom of each
// kind), and a keyframe that sinks them deeper
static const char scene_xml[] =
    "<mujoco>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='5 5 .1'/>\n"
    "    <body name='ball' pos='0 0 .099'><freejoint/>\n"
    "      <geom name='ball' type='sphere' size='.1' condim='6' friction='.8 .01 .002'/></body>\n"
    "    <body name='crate' pos='1 0 .095' euler='0 0 20'><freejoint/>\n"
    "      <geom name='crate' type='box' size='.1 .15 .1' margin='.01' gap='.002'/></body>\n"
    "    <body name='pill' pos='-1 0 .05' euler='0 90 0'><freejoint/>\n"
    "      <geom name='pill' type='capsule' size='.05 .2' solref='.01 .5'\n"
    "            solimp='.8 .9 .01 .4 3' condim='4'/></body>\n"
    "    <body name='lid' pos='1 0 .204'><freejoint/>\n"
    "      <geom type='cylinder' size='.08 .01' condim='1'/></body>\n"
    "  </worldbody>\n"
    "  <keyframe><key name='sunk' qpos='0 0 .05 1 0 0 0  1 0 .09 .984807753012208 0 0\n"
    "    .17364817766693  -1 0 .04 .707106781186548 0 .707106781186548 0  1 0 .2 1 0 0 0'/>\n"
    "  </keyframe>\n"
    "</mujoco>\n";

// captured output of the last run
static char* run_out = NULL;
static char* run_err = NULL;


// write text to TMP_DIR/name and return the path (a ring of static buffers)
static const char* tmp_file(const char* name, const char* text) {
    return gdn_cli_tmp_file(TMP_DIR, name, text);
}


// run "gradyn ARGS" with stdout and stderr captured; exit code, or 128 + signal on a crash
static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}

// run "gradyn COMMAND 'path'" the same way
static int run_cli_on(const char* command, const char* path) {
    return gdn_cli_run_on(GDN_CLI_PATH, TMP_DIR, command, path, &run_out, &run_err);
}


// largest |json[i] - x[i]| over n numbers (inf when the array is missing or short)
static double array_diff(const cJSON* array, const double* x, int n) {
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != n) {
        return (double)INFINITY;
    }
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const cJSON* item = cJSON_GetArrayItem(array, i);
        double value = cJSON_IsNumber(item) ? item->valuedouble : (double)NAN;
        double diff = fabs(value - x[i]);
        worst = diff == diff ? fmax(worst, diff) : (double)INFINITY;
    }
    return worst;
}


// every printed contact equals MuJoCo's (17 digits round-trip: exact up to the collision code's
// own agreement, 1e-12 here) and names the right geoms; returns the number of contacts or -1
static int compare_with_mujoco(const cJSON* root, const mjModel* mm, const mjData* md) {
    const cJSON* contacts = cJSON_GetObjectItem(root, "contacts");
    if (!cJSON_IsArray(contacts) || cJSON_GetObjectItem(root, "ncon")->valueint != md->ncon ||
        cJSON_GetArraySize(contacts) != md->ncon) {
        fprintf(stderr, "ncon: gradyn %d, MuJoCo %d\n",
                cJSON_GetObjectItem(root, "ncon")->valueint, md->ncon);
        return -1;
    }
    for (int i = 0; i < md->ncon; i++) {
        const cJSON* c = cJSON_GetArrayItem(contacts, i);
        const mjContact* mc = &md->contact[i];
        const char* name1 = mj_id2name(mm, mjOBJ_GEOM, mc->geom1);
        const char* name2 = mj_id2name(mm, mjOBJ_GEOM, mc->geom2);
        double dist = mc->dist, margin = mc->includemargin;
        double err = 0;
        err = fmax(err, array_diff(cJSON_GetObjectItem(c, "pos"), mc->pos, 3));
        err = fmax(err, array_diff(cJSON_GetObjectItem(c, "frame"), mc->frame, 9));
        err = fmax(err, array_diff(cJSON_GetObjectItem(c, "friction"), mc->friction, 5));
        err = fmax(err, array_diff(cJSON_GetObjectItem(c, "solref"), mc->solref, 2));
        err = fmax(err, array_diff(cJSON_GetObjectItem(c, "solimp"), mc->solimp, 5));
        err = fmax(err, fabs(cJSON_GetObjectItem(c, "dist")->valuedouble - dist));
        err = fmax(err, fabs(cJSON_GetObjectItem(c, "includemargin")->valuedouble - margin));
        int same_ids = cJSON_GetObjectItem(c, "geom1_id")->valueint == mc->geom1 &&
                       cJSON_GetObjectItem(c, "geom2_id")->valueint == mc->geom2 &&
                       cJSON_GetObjectItem(c, "dim")->valueint == mc->dim;
        const cJSON* g1 = cJSON_GetObjectItem(c, "geom1");
        const cJSON* g2 = cJSON_GetObjectItem(c, "geom2");
        int same_names = cJSON_IsString(g1) && cJSON_IsString(g2) &&
                         strcmp(g1->valuestring, name1 ? name1 : "") == 0 &&
                         strcmp(g2->valuestring, name2 ? name2 : "") == 0;
        if (!(err <= 1e-12) || !same_ids || !same_names) {
            fprintf(stderr, "contact %d: error %.3g, ids %d, names %d\n", i, err, same_ids,
                    same_names);
            return -1;
        }
    }
    return md->ncon;
}


// MuJoCo's contacts of the model at path, at qpos0 or at the given qpos (nq, NULL: qpos0)
static int mujoco_contacts(const char* path, const double* qpos, mjModel** mm, mjData** md) {
    char err[512] = "";
    *mm = mj_loadXML(path, NULL, err, sizeof(err));
    if (!*mm) {
        fprintf(stderr, "mj_loadXML %s: %s\n", path, err);
        return 1;
    }
    *md = mj_makeData(*mm);
    if (qpos) {
        memcpy((*md)->qpos, qpos, sizeof(double) * (size_t)(*mm)->nq);
    }
    mj_kinematics(*mm, *md);
    mj_collision(*mm, *md);
    return 0;
}


// the scene at qpos0: sphere (condim 6), box with margin and gap, capsule with its own solref /
// solimp (condim 4), a cylinder on the box (condim 1)
static int test_contacts_scene(void) {
    const char* path = tmp_file("scene.xml", scene_xml);
    CHECK(run_cli_on("contacts", path) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetObjectItem(root, "ncon_overflow") == NULL);
    mjModel* mm = NULL;
    mjData* md = NULL;
    CHECK(mujoco_contacts(path, NULL, &mm, &md) == 0);
    int ncon = compare_with_mujoco(root, mm, md);
    printf("  scene: %d contacts equal MuJoCo's\n", ncon);
    CHECK(ncon >= 7); // sphere 1, box-plane 4, capsule-plane >= 1, cylinder-box >= 1
    cJSON_Delete(root);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return 0;
}


// contacts --forces: each contact's "force" is gdn_contact_force after gdn_forward with the same
// solver options (every printed digit), and equals mj_contactForce after mj_forward from the
// same (zero) warm start to 1e-8 of the largest force with MuJoCo's iteration count (PGS stops
// at its 100 sweeps here, as MuJoCo's does). CG is compared with the library only: its
// improvement test stops it far from the minimum, where its iterate amplifies the last-bit
// differences of M and the bias forces (1.8e-5 here, where MuJoCo's own CG moves by 6.5e-5
// after a 1e-12 change of the ball's height). Without --forces there is no "force"; a bad solver
// option is a command-line error.
static int test_contacts_forces(void) {
    const char* path = tmp_file("scene_forces.xml", scene_xml);
    const struct {
        const char* options;
        int solver, cone, vs_mujoco;
    } runs[] = {{"", mjSOL_NEWTON, mjCONE_PYRAMIDAL, 1},
                {"--cone elliptic", mjSOL_NEWTON, mjCONE_ELLIPTIC, 1},
                {"--solver pgs --cone elliptic", mjSOL_PGS, mjCONE_ELLIPTIC, 1},
                {"--solver cg", mjSOL_CG, mjCONE_PYRAMIDAL, 0}};
    char args[1024], err[512] = "";
    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        snprintf(args, sizeof(args), "contacts '%s' --forces %s", path, runs[k].options);
        CHECK(run_cli(args) == 0);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* contacts = cJSON_GetObjectItem(root, "contacts");

        // the library with the same options (the enum values are MuJoCo's)
        gdnModel* m = NULL;
        CHECK(gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0) == GDN_OK);
        m->opt.solver = runs[k].solver;
        m->opt.cone = runs[k].cone;
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        gdn_data_reset(m, d);
        CHECK(gdn_forward(m, d) == GDN_OK);
        CHECK(cJSON_GetArraySize(contacts) == d->ncon && d->ncon > 0);
        CHECK(cJSON_GetObjectItem(root, "nefc")->valueint == d->nefc);
        CHECK(cJSON_GetObjectItem(root, "solver_iter")->valueint == d->solver_iter);
        CHECK(cJSON_GetObjectItem(root, "solver_converged")->valueint == d->solver_converged);
        for (int c = 0; c < d->ncon; c++) {
            double f[6];
            CHECK(gdn_contact_force(m, d, c, f) == GDN_OK);
            const cJSON* force = cJSON_GetObjectItem(cJSON_GetArrayItem(contacts, c), "force");
            CHECK(array_diff(force, f, 6) == 0);
        }

        // MuJoCo
        mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
        CHECK(mm != NULL);
        mm->opt.solver = runs[k].solver;
        mm->opt.cone = runs[k].cone;
        mjData* md = mj_makeData(mm);
        mj_forward(mm, md);
        double scale = 1e-9, worst = 0;
        for (int i = 0; i < md->nefc; i++) {
            scale = fmax(scale, fabs(md->efc_force[i]));
        }
        for (int c = 0; c < md->ncon && c < d->ncon; c++) {
            double f[6];
            mj_contactForce(mm, md, c, f);
            const cJSON* force = cJSON_GetObjectItem(cJSON_GetArrayItem(contacts, c), "force");
            worst = gdn_oracle_worst(worst, array_diff(force, f, 6) / scale);
        }
        printf("  contacts --forces %s: %d contacts equal gdn_contact_force's; largest force "
               "%.4g N, mj_contactForce %.2e of it away (solver_iter %d, MuJoCo %d)\n",
               runs[k].options, d->ncon, scale, worst, d->solver_iter, md->solver_iter);
        if (runs[k].vs_mujoco) {
            CHECK(md->ncon == d->ncon && md->solver_iter == d->solver_iter);
            CHECK(worst <= 1e-8);
        }
        cJSON_Delete(root);
        mj_deleteData(md);
        mj_deleteModel(mm);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    CHECK(run_cli_on("contacts", path) == 0 && strstr(run_out, "\"force\"") == NULL);
    snprintf(args, sizeof(args), "contacts '%s' --forces --solver lcp", path);
    CHECK(run_cli(args) == 2 && strstr(run_err, "--solver"));
    return 0;
}


// --state and --key choose the configuration: humanoid.xml lowered into its floor by a state
// file, and the scene's keyframe; the contacts equal MuJoCo's in both
static int test_contacts_state_and_key(void) {
    mjModel* mm = NULL;
    mjData* md = NULL;
    char err[512] = "";
    mjModel* probe = mj_loadXML(HUMANOID_XML, NULL, err, sizeof(err));
    CHECK(probe != NULL);
    int nq = probe->nq;
    double* qpos = malloc(sizeof(double) * (size_t)nq);
    CHECK(qpos != NULL);
    memcpy(qpos, probe->qpos0, sizeof(double) * (size_t)nq);
    qpos[2] = 0.9; // feet below the floor
    mj_deleteModel(probe);

    // the state file: qpos only
    char state[8192];
    size_t used = (size_t)snprintf(state, sizeof(state), "{\"qpos\": [");
    for (int i = 0; i < nq; i++) {
        used += (size_t)snprintf(state + used, sizeof(state) - used, "%s%.17g", i ? ", " : "",
                                 qpos[i]);
    }
    snprintf(state + used, sizeof(state) - used, "]}\n");
    const char* state_path = tmp_file("humanoid_state.json", state);
    char args[2048];
    snprintf(args, sizeof(args), "contacts '%s' --state '%s'", HUMANOID_XML, state_path);
    CHECK(run_cli(args) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(mujoco_contacts(HUMANOID_XML, qpos, &mm, &md) == 0);
    int ncon = compare_with_mujoco(root, mm, md);
    printf("  humanoid lowered by 0.5 m: %d contacts equal MuJoCo's\n", ncon);
    CHECK(ncon > 0);
    cJSON_Delete(root);

    mj_deleteData(md);
    mj_deleteModel(mm);

    // the scene's keyframe, by index and by name
    const char* path = tmp_file("scene_key.xml", scene_xml);
    CHECK(mujoco_contacts(path, NULL, &mm, &md) == 0);
    CHECK(mm->nkey == 1);
    mj_resetDataKeyframe(mm, md, 0);
    mj_kinematics(mm, md);
    mj_collision(mm, md);
    const char* keys[2] = {"0", "sunk"};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof(args), "contacts '%s' --key %s", path, keys[k]);
        CHECK(run_cli(args) == 0);
        root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        CHECK(compare_with_mujoco(root, mm, md) == md->ncon);
        cJSON_Delete(root);
    }
    printf("  scene keyframe 'sunk': %d contacts equal MuJoCo's\n", md->ncon);
    CHECK(md->ncon >= 8);
    mj_deleteData(md);
    mj_deleteModel(mm);
    free(qpos);
    return 0;
}


// a contact buffer of 3 (<size nconmax>): the first 3 contacts printed, the rest counted in
// ncon_overflow, and they are MuJoCo's first 3
static int test_contacts_overflow(void) {
    char xml[sizeof(scene_xml) + 64];
    const char* body = strstr(scene_xml, "  <worldbody>");
    snprintf(xml, sizeof(xml), "<mujoco>\n  <size nconmax='3'/>\n%s", body);
    const char* path = tmp_file("overflow.xml", xml);
    const char* full = tmp_file("full.xml", scene_xml);
    CHECK(run_cli_on("contacts", full) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    int total = cJSON_GetObjectItem(root, "ncon")->valueint;
    cJSON_Delete(root);

    CHECK(run_cli_on("contacts", path) == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetObjectItem(root, "ncon")->valueint == 3);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "contacts")) == 3);
    const cJSON* overflow = cJSON_GetObjectItem(root, "ncon_overflow");
    CHECK(cJSON_IsNumber(overflow) && overflow->valueint == total - 3);
    mjModel* mm = NULL;
    mjData* md = NULL;
    CHECK(mujoco_contacts(full, NULL, &mm, &md) == 0);
    md->ncon = 3; // compare the first three
    CHECK(compare_with_mujoco(root, mm, md) == 3);
    printf("  nconmax 3: 3 printed, ncon_overflow %d of %d\n", overflow->valueint, total);
    cJSON_Delete(root);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return 0;
}


// bad command lines exit 2, bad input exits 1, --help exits 0; none crash
static int test_contacts_errors(void) {
    const char* path = tmp_file("scene_err.xml", scene_xml);
    char args[1024];
    CHECK(run_cli("contacts") == 2);
    CHECK(strstr(run_err, "missing MODEL.xml"));
    snprintf(args, sizeof(args), "contacts '%s' --bogus", path);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof(args), "contacts '%s' '%s'", path, path);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof(args), "contacts '%s' --key", path);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof(args), "contacts '%s' --key 3", path);
    CHECK(run_cli(args) == 1);
    CHECK(run_cli("contacts /nonexistent/model.xml") == 1);
    snprintf(args, sizeof(args), "contacts '%s' --state /nonexistent/state.json", path);
    CHECK(run_cli(args) == 1);
    CHECK(run_cli("contacts --help") == 0 && strstr(run_out, "usage: gradyn contacts"));
    CHECK(run_cli("--help") == 0 && strstr(run_out, "contacts MODEL.xml"));
    CHECK(strstr(run_out, "--nocontact") && strstr(run_out, "--cone"));
    return 0;
}


// simulate's solver options: bad values are command-line errors (exit 2) that name the option
static int test_simulate_option_errors(void) {
    const char* path = tmp_file("scene_opt.xml", scene_xml);
    const struct {
        const char* options;
        const char* message;
    } cases[] = {
        {"--solver lcp", "--solver"},      {"--solver", "--solver needs a value"},
        {"--cone round", "--cone"},        {"--iterations -1", "--iterations"},
        {"--iterations x", "--iterations"}, {"--tolerance -1e-3", "--tolerance"},
        {"--tolerance nan", "--tolerance"}, {"--tolerance", "needs a value"},
    };
    char args[1024];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(args, sizeof(args), "simulate '%s' --steps 2 %s", path, cases[k].options);
        int code = run_cli(args);
        if (code != 2 || !strstr(run_err, cases[k].message)) {
            fprintf(stderr, "%s: exit %d, stderr %s\n", cases[k].options, code, run_err);
            return 1;
        }
    }
    snprintf(args, sizeof(args), "simulate '%s' --help", path);
    CHECK(run_cli(args) == 0 && strstr(run_out, "--noconstraint"));

    // every option accepted together
    snprintf(args, sizeof(args), "simulate '%s' --steps 2 --solver newton --cone elliptic "
             "--iterations 50 --tolerance 1e-10 --nocontact --noconstraint", path);
    CHECK(run_cli(args) == 0);
    return 0;
}

// the last trajectory row of a JSON simulate output; NULL when absent
static const cJSON* last_row(const cJSON* root) {
    const cJSON* rows = cJSON_GetObjectItem(root, "trajectory");
    int n = cJSON_GetArraySize(rows);
    return n > 0 ? cJSON_GetArrayItem(rows, n - 1) : NULL;
}


// `simulate --steps 100 OPTIONS` equals 100 gdn_step calls on the model with opt set as given
// (every printed digit of qpos and qvel, the contact count and the solver iterations)
static int simulate_equals_library(const char* path, const char* options, int solver, int cone) {
    char args[1024];
    snprintf(args, sizeof(args), "simulate '%s' --steps 100 --every 100 --format json %s "
             "--iterations 60 --tolerance 1e-9", path, options);
    CHECK(run_cli(args) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0) == GDN_OK);
    m->opt.solver = solver;
    m->opt.cone = cone;
    m->opt.iterations = 60;
    m->opt.tolerance = 1e-9;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    for (int i = 0; i < 100; i++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    const cJSON* row = last_row(root);
    CHECK(row != NULL);
    CHECK(array_diff(cJSON_GetObjectItem(row, "qpos"), d->qpos, m->nq) == 0);
    CHECK(array_diff(cJSON_GetObjectItem(row, "qvel"), d->qvel, m->nv) == 0);
    CHECK(cJSON_GetObjectItem(row, "ncon")->valueint == d->ncon && d->ncon > 0);
    CHECK(cJSON_GetObjectItem(row, "solver_iter")->valueint == d->solver_iter);
    double ball_z = d->qpos[2];
    printf("  %s: 100 steps equal gdn_step's; ball at z %.6f, %d contacts, %d iterations\n",
           options, ball_z, d->ncon, d->solver_iter);
    CHECK(fabs(ball_z - 0.1) < 2e-3);
    cJSON_Delete(root);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// simulate's options change the step as the library does: the elliptic cone and the CG and PGS
// solvers give gdn_step's trajectory with opt set; --nocontact and --noconstraint let the ball
// fall through the floor; 1 iteration at tolerance 1e-15 is reported unconverged
static int test_simulate_contact_options(void) {
    const char* path = tmp_file("scene_sim.xml", scene_xml);
    char args[1024];
    CHECK(simulate_equals_library(path, "--cone elliptic", GDN_SOL_NEWTON,
                                  GDN_CONE_ELLIPTIC) == 0);
    CHECK(simulate_equals_library(path, "--solver cg", GDN_SOL_CG, GDN_CONE_PYRAMIDAL) == 0);
    CHECK(simulate_equals_library(path, "--solver pgs --cone elliptic", GDN_SOL_PGS,
                                  GDN_CONE_ELLIPTIC) == 0);

    // without contacts (or any constraint) the ball falls through the floor: 0.5 g t^2 in 0.3 s
    const char* off[2] = {"--nocontact", "--noconstraint"};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof(args), "simulate '%s' --steps 150 --every 150 --format json %s",
                 path, off[k]);
        CHECK(run_cli(args) == 0);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* row = last_row(root);
        CHECK(row != NULL);
        double z = cJSON_GetArrayItem(cJSON_GetObjectItem(row, "qpos"), 2)->valuedouble;
        printf("  %s: ball at z %.4f after 0.3 s, ncon %d\n", off[k], z,
               cJSON_GetObjectItem(row, "ncon")->valueint);
        CHECK(z < 0.099 - 0.4);
        CHECK(cJSON_GetObjectItem(row, "ncon")->valueint == 0);
        cJSON_Delete(root);
    }

    // an unconverged solve is reported on stderr and in the JSON
    snprintf(args, sizeof(args), "simulate '%s' --steps 20 --format json --iterations 1 "
             "--tolerance 1e-15", path);
    CHECK(run_cli(args) == 0);
    CHECK(strstr(run_err, "did not converge"));
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    int unconverged = cJSON_GetObjectItem(root, "unconverged_steps")->valueint;
    printf("  --iterations 1 --tolerance 1e-15: %d of 20 steps reported unconverged\n",
           unconverged);
    CHECK(unconverged > 0);
    cJSON_Delete(root);
    return 0;
}

static const gdnTestCase cases[] = {
    {"contacts_scene", test_contacts_scene},
    {"contacts_state_and_key", test_contacts_state_and_key},
    {"contacts_overflow", test_contacts_overflow},
    {"contacts_errors", test_contacts_errors},
    {"contacts_forces", test_contacts_forces},
    {"simulate_option_errors", test_simulate_option_errors},
    {"simulate_contact_options", test_simulate_contact_options},
};

GDN_TEST_MAIN(cases)
