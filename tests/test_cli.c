// SPDX-License-Identifier: Apache-2.0
// The gradyn program end to end: info sizes, forward agreeing with gdn_forward to the last
// printed digit, simulate row and column counts, and clean errors on bad input.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gradyn/gradyn.h>

#include "runner/cli_run.h"
#include "runner/models.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_tmp"
#define HUMANOID_XML "/usr/share/mujoco/model/humanoid/humanoid.xml"

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


// the value of a JSON array element as a double
static double item_double(const cJSON* array, int i) {
    const cJSON* item = cJSON_GetArrayItem(array, i);
    return cJSON_IsNumber(item) ? item->valuedouble : (double)NAN;
}


// load a model in-process
// info reports the same sizes as the loader, for a test model and MuJoCo's humanoid
static int test_info_sizes(void) {
    const char* models[] = {GDN_TEST_MODELS "/pendulum.xml", GDN_TEST_MODELS "/humanoid32.xml",
                            GDN_TEST_MODELS "/ball_chain.xml", HUMANOID_XML};
    for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
        CHECK(run_cli_on("info", models[k]) == 0);
        gdnModel* m = gdn_test_load_model_as_is(models[k]);
        CHECK(m != NULL);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        CHECK(cJSON_GetObjectItem(root, "nq")->valueint == m->nq);
        CHECK(cJSON_GetObjectItem(root, "nv")->valueint == m->nv);
        CHECK(cJSON_GetObjectItem(root, "nu")->valueint == m->nu);
        CHECK(cJSON_GetObjectItem(root, "nbody")->valueint == m->nbody);
        CHECK(cJSON_GetObjectItem(root, "timestep")->valuedouble == m->opt.timestep);
        const cJSON* bodies = cJSON_GetObjectItem(root, "bodies");
        CHECK(cJSON_GetArraySize(bodies) == m->nbody);
        for (int b = 0; b < m->nbody; b++) {
            const cJSON* body = cJSON_GetArrayItem(bodies, b);
            CHECK(cJSON_GetObjectItem(body, "mass")->valuedouble == m->body_mass[b]);
            CHECK(cJSON_GetObjectItem(body, "parent")->valueint == m->body_parentid[b]);
        }
        cJSON_Delete(root);
        gdn_model_free(m);
    }

    // MuJoCo's humanoid: 28 qpos, 27 dofs
    CHECK(run_cli("info '" HUMANOID_XML "'") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetObjectItem(root, "nq")->valueint == 28);
    CHECK(cJSON_GetObjectItem(root, "nv")->valueint == 27);
    cJSON_Delete(root);
    return 0;
}


// an unsimulated feature is refused by name; --accept-unsupported (any command, any
// position) loads it: the loader's warnings appear in info's JSON and on forward's stderr
static int test_warnings(void) {
    const char* path = tmp_file("warn.xml", "<mujoco>\n<option noslip_iterations=\"2\"/>\n"
                                "<worldbody>\n<body><joint type=\"ball\"/><geom size=\".1\"/>"
                                "</body>\n</worldbody>\n</mujoco>\n");
    CHECK(run_cli_on("info", path) == 1);
    CHECK(strstr(run_err,
                 "warn.xml:2: option: noslip_iterations > 0 (the no-slip post-pass) is not "
                 "simulated by gradyn"));
    CHECK(strstr(run_err, "--accept-unsupported"));
    CHECK(run_cli_on("info --accept-unsupported", path) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* warnings = cJSON_GetObjectItem(root, "warnings");
    CHECK(cJSON_GetArraySize(warnings) == 1);
    CHECK(strstr(cJSON_GetArrayItem(warnings, 0)->valuestring, "warn.xml:2"));
    CHECK(strstr(cJSON_GetArrayItem(warnings, 0)->valuestring, "noslip_iterations"));
    const cJSON* joint = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "bodies"), 1), "joints"),
        0);
    CHECK(strcmp(cJSON_GetObjectItem(joint, "type")->valuestring, "ball") == 0);
    CHECK(cJSON_GetObjectItem(root, "nq")->valueint == 4);
    cJSON_Delete(root);

    CHECK(run_cli_on("forward", path) == 1);
    CHECK(run_cli_on("forward --accept-unsupported", path) == 0);
    CHECK(strstr(run_err, "warning") && strstr(run_err, "noslip_iterations") &&
          strstr(run_err, "no no-slip pass is run"));

    // RK4 is simulated: no warning, info names it, and --integrator overrides the file's
    const char* rk4 = tmp_file("rk4.xml", "<mujoco>\n<option integrator=\"RK4\"/>\n"
                               "<worldbody>\n<body><joint type=\"ball\"/><geom size=\".1\"/>"
                               "</body>\n</worldbody>\n</mujoco>\n");
    CHECK(run_cli_on("info", rk4) == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "warnings")) == 0);
    const cJSON* opt = cJSON_GetObjectItem(root, "option");
    CHECK(strcmp(cJSON_GetObjectItem(opt, "integrator")->valuestring, "rk4") == 0);
    cJSON_Delete(root);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "info '%s' --integrator euler", rk4);
    CHECK(run_cli(cmd) != 0); // info takes no solver options: a usage error, never a crash
    // the implicit integrator is simulated too: no warning, info names it
    const char* imp = tmp_file("implicit.xml", "<mujoco>\n<option integrator=\"implicit\"/>\n"
                               "<worldbody>\n<body><joint type=\"ball\" damping=\"1\"/>"
                               "<geom size=\".1\"/></body>\n</worldbody>\n</mujoco>\n");
    CHECK(run_cli_on("info", imp) == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "warnings")) == 0);
    opt = cJSON_GetObjectItem(root, "option");
    CHECK(strcmp(cJSON_GetObjectItem(opt, "integrator")->valuestring, "implicit") == 0);
    cJSON_Delete(root);
    CHECK(run_cli_on("forward", imp) == 0);
    return 0;
}


// JSON text of a state, numbers with 17 significant digits
static void state_json(const gdnModel* m, const gdnData* d, char* out, size_t size) {
    size_t used = (size_t)snprintf(out, size, "{\"time\": %.17g", d->time);
    const struct {
        const char* name;
        const double* x;
        int n;
    } fields[] = {{"qpos", d->qpos, m->nq}, {"qvel", d->qvel, m->nv}, {"ctrl", d->ctrl, m->nu}};
    for (size_t f = 0; f < 3; f++) {
        used += (size_t)snprintf(out + used, size - used, ", \"%s\": [", fields[f].name);
        for (int i = 0; i < fields[f].n; i++) {
            used += (size_t)snprintf(out + used, size - used, "%s%.17g", i ? ", " : "",
                                     fields[f].x[i]);
        }
        used += (size_t)snprintf(out + used, size - used, "]");
    }
    snprintf(out + used, size - used, "}\n");
}


// forward at random states prints exactly the doubles gdn_forward computes in-process
static int check_forward_model(const char* path, unsigned long long seed) {
    gdnModel* m = gdn_test_load_model_as_is(path);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int trial = 0; trial < 3; trial++) {
        // random state
        gdn_data_reset(m, d);
        for (int i = 0; i < m->nq; i++) {
            d->qpos[i] = m->qpos0[i] + gdn_test_uniform(&seed, -0.5, 0.5);
        }
        gdn_normalize_quat(m, d->qpos);
        for (int i = 0; i < m->nv; i++) {
            d->qvel[i] = gdn_test_uniform(&seed, -1.0, 1.0);
        }
        for (int i = 0; i < m->nu; i++) {
            d->ctrl[i] = gdn_test_uniform(&seed, -1.0, 1.0);
        }
        static char text[1 << 16];
        state_json(m, d, text, sizeof(text));
        const char* state_path = tmp_file("state.json", text);

        // in-process reference
        CHECK(gdn_forward(m, d) == GDN_OK);
        gdn_energy(m, d);

        // the program, once from a file and once from standard input
        char args[2048];
        snprintf(args, sizeof(args), trial == 1 ? "forward '%s' --state - < '%s'"
                                                : "forward '%s' --state '%s'", path, state_path);
        CHECK(run_cli(args) == 0);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* qacc = cJSON_GetObjectItem(root, "qacc");
        const cJSON* qM = cJSON_GetObjectItem(root, "qM");
        const cJSON* bias = cJSON_GetObjectItem(root, "qfrc_bias");
        const cJSON* energy = cJSON_GetObjectItem(root, "energy");
        const cJSON* xpos = cJSON_GetObjectItem(root, "xpos");
        CHECK(cJSON_GetArraySize(qacc) == m->nv && cJSON_GetArraySize(qM) == m->nv);
        CHECK(cJSON_GetArraySize(xpos) == m->nbody);
        for (int i = 0; i < m->nv; i++) {
            CHECK(item_double(qacc, i) == d->qacc[i]);
            CHECK(item_double(bias, i) == d->qfrc_bias[i]);
            for (int j = 0; j < m->nv; j++) {
                CHECK(item_double(cJSON_GetArrayItem(qM, i), j) == d->qM[i * m->nv + j]);
            }
        }
        CHECK(item_double(energy, 0) == d->energy[0] && item_double(energy, 1) == d->energy[1]);
        for (int b = 0; b < m->nbody; b++) {
            CHECK(item_double(cJSON_GetArrayItem(xpos, b), 2) == d->xpos[3 * b + 2]);
        }
        // sensors: the array and the by-name object, only when the model has sensors
        const cJSON* sd = cJSON_GetObjectItem(root, "sensordata");
        const cJSON* byname = cJSON_GetObjectItem(root, "sensors");
        CHECK((sd != NULL) == (m->nsensor > 0) && (byname != NULL) == (m->nsensor > 0));
        if (sd && byname) {
            CHECK(cJSON_GetArraySize(sd) == m->nsensordata);
            for (int i = 0; i < m->nsensordata; i++) {
                CHECK(item_double(sd, i) == d->sensordata[i]);
            }
            const int last = m->nsensor - 1;
            const cJSON* v = cJSON_GetObjectItem(byname, gdn_id2name(m, "sensor", last));
            CHECK(cJSON_GetArraySize(v) == m->sensor_dim[last]);
            CHECK(item_double(v, 0) == d->sensordata[m->sensor_adr[last]]);
        }
        cJSON_Delete(root);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}


static int test_forward_matches_library(void) {
    CHECK(check_forward_model(GDN_TEST_MODELS "/arm7.xml", 11) == 0);
    CHECK(check_forward_model(GDN_TEST_MODELS "/humanoid32.xml", 12) == 0);
    CHECK(check_forward_model(GDN_TEST_MODELS "/ball_chain.xml", 13) == 0);
    CHECK(check_forward_model(HUMANOID_XML, 14) == 0);
    CHECK(check_forward_model(GDN_TEST_MODELS "/sensors_chain.xml", 15) == 0);
    return 0;
}


// number of lines and the number of comma-separated fields of each line (-1 if they differ)
static int count_csv(const char* text, int* columns) {
    int lines = 0;
    *columns = 0;
    for (const char* line = text; *line;) {
        int fields = 1;
        const char* c = line;
        for (; *c && *c != '\n'; c++) {
            fields += (*c == ',');
        }
        *columns = (lines == 0 || *columns == fields) ? fields : -1;
        lines++;
        line = *c ? c + 1 : c;
    }
    return lines;
}


// simulate: header + N + 1 rows of 1 + nq + nv columns; the last row equals N library steps
static int test_simulate_rows(void) {
    const char* path = GDN_TEST_MODELS "/humanoid32.xml";
    gdnModel* m = gdn_test_load_model_as_is(path);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    for (int step = 0; step < 50; step++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }

    // CSV to standard output
    int columns = 0;
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/humanoid32.xml' --steps 50") == 0);
    CHECK(count_csv(run_out, &columns) == 1 + 51);
    CHECK(columns == 1 + m->nq + m->nv);
    CHECK(strncmp(run_out, "time,qpos0,", 11) == 0);
    const char* last = run_out + strlen(run_out) - 1;
    while (last > run_out && last[-1] != '\n') {
        last--;
    }
    char* cursor = NULL;
    CHECK(strtod(last, &cursor) == d->time);
    for (int i = 0; i < m->nq; i++) {
        CHECK(strtod(cursor + 1, &cursor) == d->qpos[i]);
    }
    for (int i = 0; i < m->nv; i++) {
        CHECK(strtod(cursor + 1, &cursor) == d->qvel[i]);
    }

    // --every 20: steps 0, 20, 40 and the last, 50
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/humanoid32.xml' --steps 50 --every 20") == 0);
    CHECK(count_csv(run_out, &columns) == 1 + 4);

    // JSON to a file
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/pendulum.xml' --steps 7 --format json "
                  "--ctrl 0.5 --output '" TMP_DIR "/traj.json'") == 0);
    char* text = gdn_cli_slurp(TMP_DIR "/traj.json");
    cJSON* root = cJSON_Parse(text);
    free(text);
    CHECK(root != NULL);
    const cJSON* trajectory = cJSON_GetObjectItem(root, "trajectory");
    CHECK(cJSON_GetArraySize(trajectory) == 8);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(trajectory, 7), "qpos")) == 1);
    CHECK(cJSON_GetObjectItem(root, "error") == NULL);
    cJSON_Delete(root);

    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}


// a bad input: exit code 1 (bad input) or 2 (bad command line), no crash, and a message
// containing cause
static int expect_error(const char* args, const char* cause) {
    int code = run_cli(args);
    if ((code != 1 && code != 2) || !strstr(run_err, cause)) {
        fprintf(stderr, "gradyn %s\n  exit %d, stderr: %s  (expected '%s')\n", args, code,
                run_err, cause);
        return 1;
    }
    return 0;
}


static int test_bad_inputs(void) {
    const char* pendulum = "'" GDN_TEST_MODELS "/pendulum.xml'";
    char args[2048];
    int failures = 0;

    // model files
    failures += expect_error("info '" TMP_DIR "/missing.xml'", "missing.xml");
    const char* bad_xml = tmp_file("bad.xml", "<mujoco>\n<worldbody>\n<body name=\"a\">\n");
    snprintf(args, sizeof(args), "info '%s'", bad_xml);
    failures += expect_error(args, "bad.xml");
    const char* bad_number = tmp_file("badnum.xml", "<mujoco>\n<worldbody>\n<body>\n"
                                      "<joint type=\"hinge\" axis=\"0 1 zz\"/>\n"
                                      "<geom size=\"0.1\"/>\n</body>\n</worldbody>\n</mujoco>\n");
    snprintf(args, sizeof(args), "forward '%s'", bad_number);
    failures += expect_error(args, "badnum.xml:4");

    // state files: each with the word the message must contain
    const struct {
        const char* json;
        const char* cause;
    } states[] = {
        {"{\"qpos\": [0.1, ", "malformed JSON"},
        {"{\"qpos\": [0.1, 0.2, 0.3]}", "qpos: expected 1 number, got 3"},
        {"{\"qvel\": [NaN]}", "NaN"},
        {"{\"qvel\": [1e999]}", "non-finite"},
        {"{\"ctrl\": [\"x\"]}", "ctrl[0]: not a number"},
        {"{\"qpso\": [0]}", "unknown field 'qpso'"},
        {"{\"qpos\": [0], \"qpos\": [1]}", "twice"},
        {"[0.1]", "expected a JSON object"},
        {"{\"time\": null}", "time"},
        {"", "unexpected end"},
    };
    for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
        const char* path = tmp_file("bad_state.json", states[k].json);
        snprintf(args, sizeof(args), "forward %s --state '%s'", pendulum, path);
        failures += expect_error(args, states[k].cause);
        snprintf(args, sizeof(args), "simulate %s --steps 3 --state '%s'", pendulum, path);
        failures += expect_error(args, states[k].cause);
    }
    snprintf(args, sizeof(args), "forward %s --state '%s/none.json'", pendulum, TMP_DIR);
    failures += expect_error(args, "none.json");

    // command lines
    snprintf(args, sizeof(args), "simulate %s", pendulum);
    failures += expect_error(args, "--steps");
    snprintf(args, sizeof(args), "simulate %s --steps ten", pendulum);
    failures += expect_error(args, "--steps");
    snprintf(args, sizeof(args), "simulate %s --steps 3 --ctrl 1,2", pendulum);
    failures += expect_error(args, "--ctrl");
    snprintf(args, sizeof(args), "simulate %s --steps 3 --ctrl nan", pendulum);
    failures += expect_error(args, "--ctrl");
    snprintf(args, sizeof(args), "simulate %s --steps 3 --format xml", pendulum);
    failures += expect_error(args, "--format");
    snprintf(args, sizeof(args), "forward %s --key 0", pendulum);
    failures += expect_error(args, "keyframe");
    snprintf(args, sizeof(args), "forward %s --bogus", pendulum);
    failures += expect_error(args, "--bogus");
    failures += expect_error("frobnicate", "frobnicate");
    failures += expect_error("info", "MODEL");
    CHECK(failures == 0);

    // help and version succeed
    CHECK(run_cli("--help") == 0 && strstr(run_out, "simulate"));
    CHECK(run_cli("--version") == 0 && strstr(run_out, GDN_VERSION_STRING));
    return 0;
}


// a state that overflows reports the failing step and still ends the JSON document cleanly
static int test_nonfinite_step(void) {
    const char* path = tmp_file("huge.json", "{\"qvel\": [1e200, 1e200]}");
    char args[2048];
    snprintf(args, sizeof(args), "simulate '%s/double_pendulum.xml' --steps 5 --format json "
             "--state '%s'", GDN_TEST_MODELS, path);
    CHECK(expect_error(args, "step 1") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(root, "error")));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "trajectory")) == 1);
    cJSON_Delete(root);
    return 0;
}


static const gdnTestCase cases[] = {
    {"info_sizes", test_info_sizes},
    {"warnings", test_warnings},
    {"forward_matches_library", test_forward_matches_library},
    {"simulate_rows", test_simulate_rows},
    {"bad_inputs", test_bad_inputs},
    {"nonfinite_step", test_nonfinite_step},
};
GDN_TEST_MAIN(cases)
