// SPDX-License-Identifier: Apache-2.0
// gradyn grad and gradcheck end to end: grad's JSON equals gdn_adjoint_rollout_gradient
// in-process bit for bit, gradcheck passes on small models and fails with --tol 0, bad inputs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/cli_run.h"
#include "runner/models.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_grad_tmp"

// captured output of the last run
static char* run_out = NULL;
static char* run_err = NULL;

static const char* const param_names[GDN_N_INERTIA_PARAMS] = {
    "mass", "com_x", "com_y", "com_z", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};


// write text to TMP_DIR/name and return the path (a ring of static buffers)
static const char* tmp_file(const char* name, const char* text) {
    return gdn_cli_tmp_file(TMP_DIR, name, text);
}


// run "gradyn ARGS" with stdout and stderr captured; exit code, or 128 + signal on a crash
static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}


// number of entries of a JSON array of numbers that differ from x (exact comparison; the CLI
// prints 17 significant digits, which round-trip); a missing or short array counts them all
static int count_mismatch(const cJSON* array, const double* x, int n) {
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != n) {
        fprintf(stderr, "array of %d expected\n", n);
        return n + 1;
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const cJSON* item = cJSON_GetArrayItem(array, i);
        if (!cJSON_IsNumber(item) || item->valuedouble != x[i]) {
            bad++;
        }
    }
    return bad;
}


// one grad run compared with the in-process gradient of the same problem
typedef struct gradCase {
    const char* model;        // under tests/models
    int steps, checkpoint;
    double qpos[8], qvel[8];  // initial state (nq, nv of the model)
    double ctrl_a, ctrl_b;    // u_t[i] = ctrl_a + ctrl_b * t * (i + 1), given as a schedule
    const char* body;
    double point[3], target[3];
    double effort, vel_weight;
    int penalty;              // --penalty 0,2000,20 when nonzero
} gradCase;

static int check_grad_case(const gradCase* k) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, k->model);
    gdnModel* m = gdn_test_load_model_as_is(path);
    CHECK(m != NULL);
    if (k->penalty) {
        CHECK(gdn_model_set_penalty(m, 1, 0.0, 2000.0, 20.0) == GDN_OK);
    }
    // the gradient is of the smooth + penalty step: constraint rows off (--noconstraint)
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    const int T = k->steps, nu = m->nu, nv = m->nv;

    // the state file and the control schedule, printed with 17 digits
    char state[1024], ctrl_arg[65536] = "";
    int len = snprintf(state, sizeof(state), "{\"qpos\": [");
    for (int i = 0; i < m->nq; i++) {
        len += snprintf(state + len, sizeof(state) - (size_t)len, "%s%.17g", i ? ", " : "",
                        k->qpos[i]);
    }
    len += snprintf(state + len, sizeof(state) - (size_t)len, "], \"qvel\": [");
    for (int i = 0; i < nv; i++) {
        len += snprintf(state + len, sizeof(state) - (size_t)len, "%s%.17g", i ? ", " : "",
                        k->qvel[i]);
    }
    snprintf(state + len, sizeof(state) - (size_t)len, "]}");
    double* ctrl = calloc((size_t)(T * nu) + 1, sizeof(double));
    CHECK(ctrl != NULL);
    size_t clen = 0;
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < nu; i++) {
            char v[40];
            snprintf(v, sizeof(v), "%.17g", k->ctrl_a + k->ctrl_b * t * (i + 1));
            ctrl[t * nu + i] = strtod(v, NULL);
            clen += (size_t)snprintf(ctrl_arg + clen, sizeof(ctrl_arg) - clen, "%s%s",
                                     clen ? "," : "", v);
        }
    }

    // the command line
    char args[70000];
    snprintf(args, sizeof(args), "grad '%s' --state '%s' --steps %d --checkpoint %d "
             "--body %s --point %.17g,%.17g,%.17g --target %.17g,%.17g,%.17g --effort %.17g "
             "--vel-weight %.17g --noconstraint %s %s%s", path,
             tmp_file("grad_state.json", state), T, k->checkpoint, k->body, k->point[0],
             k->point[1], k->point[2], k->target[0], k->target[1], k->target[2], k->effort,
             k->vel_weight,
             k->penalty ? "--penalty 0,2000,20" : "", nu ? "--ctrl " : "", nu ? ctrl_arg : "");
    int code = run_cli(args);
    if (code != 0) {
        fprintf(stderr, "grad exit %d: %s\n", code, run_err);
    }
    CHECK(code == 0);

    // the same problem in-process (full tape: gradients are bit-identical to checkpointing)
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = k->qpos;
    r.qvel0 = k->qvel;
    r.ctrl = nu ? ctrl : NULL;
    gdnTargetObjective spec = {0};
    spec.body = gdn_name2id(m, "body", k->body);
    memcpy(spec.point, k->point, sizeof(spec.point));
    memcpy(spec.target, k->target, sizeof(spec.target));
    spec.weight = 1.0;
    spec.ctrl_weight = k->effort;
    spec.vel_weight = k->vel_weight;
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    size_t np = (size_t)m->nbody * GDN_N_INERTIA_PARAMS;
    double* buf = calloc(2 * (size_t)nv + (size_t)(T * nu) + np + 3 * (size_t)m->nvert + 1,
                         sizeof(double));
    CHECK(buf != NULL);
    gdnAdjointGradients g = {0, buf, buf + nv, nu ? buf + 2 * nv : NULL, buf + 2 * nv + T * nu,
                             buf + 2 * nv + T * nu + np};
    char err[512];
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &g, err, sizeof(err)) == GDN_OK);

    // every block, exactly
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_GetObjectItem(root, "J")->valuedouble == g.J);
    CHECK(count_mismatch(cJSON_GetObjectItem(root, "dJ_dqpos0"), g.qpos0, nv) == 0);
    CHECK(count_mismatch(cJSON_GetObjectItem(root, "dJ_dqvel0"), g.qvel0, nv) == 0);
    const cJSON* gu = cJSON_GetObjectItem(root, "dJ_dctrl");
    CHECK(cJSON_GetArraySize(gu) == (nu ? T : 0));
    for (int t = 0; nu && t < T; t++) {
        CHECK(count_mismatch(cJSON_GetArrayItem(gu, t), g.ctrl + t * nu, nu) == 0);
    }
    const cJSON* gp = cJSON_GetObjectItem(root, "dJ_dparams");
    CHECK(cJSON_GetArraySize(gp) == m->nbody - 1);
    for (int b = 1; b < m->nbody; b++) {
        const cJSON* body = cJSON_GetArrayItem(gp, b - 1);
        CHECK(cJSON_GetObjectItem(body, "id")->valueint == b);
        CHECK(strcmp(cJSON_GetObjectItem(body, "body")->valuestring,
                     gdn_id2name(m, "body", b)) == 0);
        for (int p = 0; p < GDN_N_INERTIA_PARAMS; p++) {
            CHECK(cJSON_GetObjectItem(body, param_names[p])->valuedouble ==
                  g.param[b * GDN_N_INERTIA_PARAMS + p]);
        }
    }
    const cJSON* gv = cJSON_GetObjectItem(root, "dJ_dverts");
    int nonzero = 0;
    for (int i = 0; i < cJSON_GetArraySize(gv); i++) {
        const cJSON* body = cJSON_GetArrayItem(gv, i);
        int b = cJSON_GetObjectItem(body, "id")->valueint;
        CHECK(b >= 1 && b < m->nbody);
        const cJSON* rows = cJSON_GetObjectItem(body, "verts");
        CHECK(cJSON_GetArraySize(rows) == m->body_vertnum[b]);
        for (int v = 0; v < m->body_vertnum[b]; v++) {
            const double* gvert = g.vert + 3 * (m->body_vertadr[b] + v);
            CHECK(count_mismatch(cJSON_GetArrayItem(rows, v), gvert, 3) == 0);
            nonzero += gvert[0] != 0 || gvert[1] != 0 || gvert[2] != 0;
        }
    }
    CHECK(!k->penalty || nonzero > 0); // the penalty case does touch the ground
    CHECK(g.J > 0);

    cJSON_Delete(root);
    free(buf);
    free(ctrl);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}


// grad prints exactly what gdn_adjoint_rollout_gradient returns: pendulum, double pendulum
// (schedule, effort, velocity weight), arm7 sagging onto the ground with penalty contact and a
// checkpointed tape
static int test_grad_matches_library(void) {
    const gradCase cases[] = {
        {"pendulum.xml", 120, 1, {0.7}, {-0.3}, 0.5, 0.01, "rod", {0, 0, -0.5},
         {0.3, 0.0, -0.4}, 0.01, 0.0, 0},
        {"double_pendulum.xml", 80, 1, {0.4, -0.2}, {0.5, 0.1}, -0.3, 0.02, "lower",
         {0.02, 0, -0.3}, {0.5, 0.0, -0.6}, 0.05, 0.1, 0},
        {"arm7.xml", 150, 7, {0.2, 1.3, -0.3, 1.2, 0.5, 0.2, -0.1}, {0}, 0.0, 0.001, "hand",
         {0, 0, 0.1}, {0.4, 0.2, 0.1}, 0.001, 0.0, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (check_grad_case(&cases[i]) != 0) {
            fprintf(stderr, "case %s\n", cases[i].model);
            return 1;
        }
    }
    return 0;
}


// the report's worst error and result fields
static int check_report(int expect_pass) {
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* blocks = cJSON_GetObjectItem(root, "blocks");
    CHECK(cJSON_GetArraySize(blocks) == 5);
    double worst = cJSON_GetObjectItem(root, "worst_rel_error")->valuedouble;
    for (int k = 0; k < 5; k++) {
        double e = cJSON_GetObjectItem(cJSON_GetArrayItem(blocks, k), "rel_error")->valuedouble;
        CHECK(e <= worst);
    }
    const char* result = cJSON_GetObjectItem(root, "result")->valuestring;
    CHECK(strcmp(result, expect_pass ? "pass" : "fail") == 0);
    CHECK(!expect_pass || worst <= 1e-5);
    cJSON_Delete(root);
    return 0;
}


// gradcheck passes on small models (all five blocks, one with penalty contact) and fails
// when the step is so large that the difference is wrong
static int test_gradcheck(void) {
    const char* runs[] = {
        "'" GDN_TEST_MODELS "/pendulum.xml' --steps 60 --target 0.3,0,-0.4 --ctrl 0.5 "
        "--effort 0.01",
        "'" GDN_TEST_MODELS "/double_pendulum.xml' --steps 40 --target 0.3,0.1,-0.9 "
        "--ctrl 0.2,-0.4 --vel-weight 0.01",
        "'" GDN_TEST_MODELS "/box_penalty.xml' --steps 200 --target 0.3,0.1,-0.4 --noconstraint",
    };
    char args[2048];
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        snprintf(args, sizeof(args), "gradcheck %s", runs[i]);
        int code = run_cli(args);
        if (code != 0) {
            fprintf(stderr, "%s\n%s%s\n", args, run_out, run_err);
        }
        CHECK(code == 0);
        CHECK(check_report(1) == 0);
        // a step so large that truncation dominates fails (the box's falls are a branch
        // change at that size instead, test_cli_gradcheck)
        if (i < 2) {
            snprintf(args, sizeof(args), "gradcheck %s --eps 0.2 --blocks qpos0,qvel0,ctrl",
                     runs[i]);
            CHECK(run_cli(args) == 1);
            CHECK(strstr(run_err, "exceeds --tol") != NULL);
        }
    }
    return 0;
}


// a bad input: exit code 1 or 2, no crash, a message on stderr containing needle
static int expect_error(const char* args, const char* needle) {
    int code = run_cli(args);
    if ((code != 1 && code != 2) || !strstr(run_err, needle)) {
        fprintf(stderr, "gradyn %s: exit %d, stderr '%s' (wanted '%s')\n", args, code, run_err,
                needle);
        return 1;
    }
    return 0;
}


static int test_bad_inputs(void) {
    const char* pend = "'" GDN_TEST_MODELS "/pendulum.xml'";
    const char* nan_state = tmp_file("nan.json", "{\"qpos\": [1e999]}");
    struct {
        const char* fmt;
        const char* needle;
    } cases[] = {
        {"grad", "missing MODEL.xml"},
        {"grad %s --steps 0", "--steps"},
        {"grad %s --steps x", "--steps"},
        {"grad %s --body nosuch", "--body nosuch"},
        {"grad %s --body 0", "--body 0"},
        {"grad %s --target 1,2", "--target"},
        {"grad %s --target 1,2,nan", "--target"},
        {"grad %s --point 1,2,3,4", "--point"},
        {"grad %s --ctrl 1,2", "--ctrl"},
        {"grad %s --effort -1", "--effort"},
        {"grad %s --penalty 0,-1,0", "--penalty"},
        {"grad %s --penalty 0,1", "--penalty"},
        {"grad %s --checkpoint 0", "--checkpoint"},
        {"grad %s --frobnicate 1", "unknown option"},
        {"grad %s --steps", "needs a value"},
        {"grad %s --key 3", "--key"},
        {"grad /nonexistent/model.xml", "model.xml"},
        {"gradcheck %s --tol -1", "--tol"},
        {"gradcheck %s --eps 0", "--eps"},
        {"gradcheck %s --blocks qpos0,nope", "--blocks"},
        {"grad %s --eps 1e-6", "unknown option"},
    };
    int failures = 0;
    char args[2048];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(args, sizeof(args), cases[i].fmt, pend);
        failures += expect_error(args, cases[i].needle);
    }
    snprintf(args, sizeof(args), "grad %s --state '%s'", pend, nan_state);
    failures += expect_error(args, "nan.json");
    CHECK(failures == 0);
    return 0;
}


// --help of both commands exits 0 with the usage on stdout
static int test_help(void) {
    CHECK(run_cli("grad --help") == 0);
    CHECK(strstr(run_out, "usage: gradyn grad") != NULL);
    CHECK(run_cli("gradcheck -h") == 0);
    CHECK(strstr(run_out, "usage: gradyn gradcheck") != NULL);
    CHECK(run_cli("--help") == 0);
    CHECK(strstr(run_out, "gradcheck MODEL.xml") != NULL);
    return 0;
}


static const gdnTestCase cases[] = {
    {"grad_matches_library", test_grad_matches_library},
    {"gradcheck", test_gradcheck},
    {"bad_inputs", test_bad_inputs},
    {"help", test_help},
};
GDN_TEST_MAIN(cases)
