// SPDX-License-Identifier: Apache-2.0
// gradyn grad and gradcheck on what a user meets: the error floor that scales with the
// round-off of J, branch changes between the +eps and -eps samples reported instead of a huge
// error, constrained models differentiated by default (a refusal reported with its
// status), --nocontact / --noconstraint, and the step_flags of the JSON.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "runner/cli_run.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_gradcheck_tmp"

static char* run_out = NULL;
static char* run_err = NULL;


static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}


static const cJSON* member(const cJSON* object, const char* name) {
    return cJSON_GetObjectItem(object, name);
}


// the block object named name in a gradcheck report
static const cJSON* block(const cJSON* root, const char* name) {
    const cJSON* blocks = member(root, "blocks");
    for (int i = 0; i < cJSON_GetArraySize(blocks); i++) {
        const cJSON* b = cJSON_GetArrayItem(blocks, i);
        if (strcmp(member(b, "block")->valuestring, name) == 0) {
            return b;
        }
    }
    return NULL;
}


// the box falls flat onto its penalty floor, spinning about nothing: its angular-velocity
// entries have a gradient of round-off size (1e-21) and a difference that is exactly 0. Without
// the round-off floor that block's relative error is 1 (it fails: the old floor of 1e-9 |J| in
// the denominator hid it only because |J| happened to be large enough); with it, 0
static int test_noise_floor(void) {
    const char* run = "gradcheck '" GDN_TEST_MODELS "/box_penalty.xml' --steps 300 "
                      "--noconstraint --blocks qvel0";
    CHECK(run_cli(run) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* b = block(root, "qvel0");
    CHECK(b != NULL);
    double J = member(root, "J")->valuedouble;
    double g = member(b, "grad_norm_inf")->valuedouble;
    double err = member(b, "max_abs_error")->valuedouble;
    double noise = member(b, "noise")->valuedouble;
    CHECK(g > 0 && g < 1e-15);                          // a round-off-sized gradient
    CHECK(member(b, "raw_rel_error")->valuedouble == 1); // |g - D| / max(|D|, |g|), D = 0
    CHECK(err <= noise);
    CHECK(member(b, "rel_error")->valuedouble == 0);
    CHECK(strcmp(member(root, "result")->valuestring, "pass") == 0);
    // the bound is 64 ulp(max(|J|, |J+|, |J-|)) / h, h = 1e-6
    CHECK(member(root, "noise_ulps")->valuedouble == 64);
    double ulp = nextafter(J, 1.0) - J;
    CHECK(noise >= 64 * ulp / 1e-6 * 0.99 && noise <= 64 * 2 * ulp / 1e-6);
    CHECK(strstr(run_err, "below its noise bound") != NULL);
    cJSON_Delete(root);

    // --noise-ulps 1e-300 (no floor): the same block fails on round-off
    char args[1024];
    snprintf(args, sizeof(args), "%s --noise-ulps 1e-300", run);
    CHECK(run_cli(args) == 1);
    CHECK(strstr(run_err, "exceeds --tol") != NULL);
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/pendulum.xml' --noise-ulps -1") == 2);
    return 0;
}


// a real mismatch still fails: a step so large that truncation dominates, no branch involved
static int test_fails_on_truncation(void) {
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/double_pendulum.xml' --steps 40 "
                  "--target 0.3,0.1,-0.9 --ctrl 0.2,-0.4 --eps 0.2 --blocks qpos0,qvel0,ctrl") ==
          1);
    CHECK(strstr(run_err, "exceeds --tol") != NULL);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(strcmp(member(root, "result")->valuestring, "fail") == 0);
    CHECK(member(root, "branch_changes")->valueint == 0);
    CHECK(member(root, "worst_rel_error")->valuedouble > 1e-3);
    cJSON_Delete(root);
    return 0;
}


// a control held exactly at its ctrlrange limit: every +eps sample is clamped. gradcheck names
// the sample, the step and the clamp, leaves the entries out, and calls the block inconclusive
static int test_branch_ctrl_clamp(void) {
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/pendulum.xml' --steps 30 --ctrl 5 "
                  "--blocks ctrl") == 1);
    CHECK(strstr(run_err, "inconclusive") != NULL);
    CHECK(strstr(run_err, "ctrlrange") != NULL);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(strcmp(member(root, "result")->valuestring, "inconclusive") == 0);
    CHECK(member(root, "branch_changes")->valueint == 30);
    const cJSON* b = block(root, "ctrl");
    CHECK(member(b, "branch_changes")->valueint == 30 && member(b, "checked")->valueint == 0);
    const cJSON* list = member(root, "branch_change_list");
    CHECK(cJSON_GetArraySize(list) == 20);
    for (int i = 0; i < 20; i++) {
        const cJSON* n = cJSON_GetArrayItem(list, i);
        char entry[32];
        snprintf(entry, sizeof(entry), "ctrl[%d][0]", i);
        CHECK(strcmp(member(n, "entry")->valuestring, entry) == 0);
        CHECK(strcmp(member(n, "sample")->valuestring, "+eps") == 0);
        CHECK(member(n, "step")->valueint == i);
        CHECK(strcmp(member(n, "change")->valuestring,
                     "ctrl[0]: inside ctrlrange -> above ctrlrange") == 0);
    }
    cJSON_Delete(root);

    // just inside the limit (5 - 1e-3, eps 1e-6): no branch change, and the block passes
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/pendulum.xml' --steps 30 --ctrl 4.999 "
                  "--blocks ctrl") == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL && member(root, "branch_changes")->valueint == 0);
    cJSON_Delete(root);
    return 0;
}


// penalty contact: moving a corner of the falling box by eps = 1e-3 moves the step at which it
// first lies below the plane, where its force jumps by c |v_z|; those entries are reported as
// branch changes (a penalty vertex entering), the others still checked
static int test_branch_penalty_vertex(void) {
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/box_penalty.xml' --steps 300 --noconstraint "
                  "--blocks verts --eps 1e-3") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* b = block(root, "verts");
    int changes = member(b, "branch_changes")->valueint;
    CHECK(changes > 0 && changes < 24);
    CHECK(member(b, "checked")->valueint == 24 - changes);
    const cJSON* first = cJSON_GetArrayItem(member(root, "branch_change_list"), 0);
    CHECK(strstr(member(first, "change")->valuestring, "penalty vertex") != NULL);
    CHECK(strstr(member(first, "entry")->valuestring, ".z") != NULL);
    CHECK(member(first, "step")->valueint > 50); // after the fall, at the landing
    CHECK(strstr(run_err, "took another branch") != NULL);
    cJSON_Delete(root);

    // without the replay the same differences are huge: the raw error of a z entry
    // (fd_norm_inf of the checked entries stays small, the left-out ones are not in it)
    return 0;
}


// a constrained model is differentiated by default (box_penalty's box lands on its floor:
// contacts and the penalty skin): grad succeeds with the constrained steps and their
// derivative report in step_flags, gradcheck passes; a contact without a derivative (an
// ellipsoid centred on a box: MPR's origin on the segment between the centres) is refused with
// the library's message and a hint
static int test_constrained_default(void) {
    const char* runs[] = {
        "grad '" GDN_TEST_MODELS "/box_penalty.xml' --steps 200 --target 0.3,0.1,-0.4",
        "gradcheck '" GDN_TEST_MODELS "/box_penalty.xml' --steps 200 --target 0.3,0.1,-0.4",
    };
    for (int i = 0; i < 2; i++) {
        CHECK(run_cli(runs[i]) == 0);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* flags = member(root, "step_flags");
        const int n = member(flags, "constrained_steps")->valueint;
        CHECK(n > 0);
        CHECK(cJSON_GetArraySize(member(flags, "derivative_flags")) == n);
        CHECK(cJSON_GetArraySize(member(flags, "state_margin")) == n);
        CHECK(cJSON_GetArraySize(member(flags, "activation_margin")) == n);
        if (i == 1) {
            CHECK(strcmp(member(root, "result")->valuestring, "pass") == 0);
            CHECK(cJSON_IsNull(member(root, "note"))); // no curved MPR contact
        }
        cJSON_Delete(root);
    }
    // a capsule end on a mesh slab (curved MPR): flagged 8 on its steps, and the note says
    // which geometry the gradient is of
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/curved_step_capsule.xml' --steps 5") == 0);
    {
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* flags = member(root, "step_flags");
        CHECK(member(flags, "constrained_steps")->valueint > 0);
        CHECK(((int)cJSON_GetArrayItem(member(flags, "derivative_flags"), 0)->valuedouble &
               GDN_DERIV_MPR_LIMIT) != 0);
        CHECK(strstr(member(root, "note")->valuestring, "converged limit") != NULL);
        CHECK(strcmp(member(root, "result")->valuestring, "pass") == 0);
        cJSON_Delete(root);
    }
    CHECK(run_cli("grad '" GDN_TEST_MODELS "/tangent_box_unsupported.xml' --steps 100") == 1);
    CHECK(strstr(run_err, "no derivative through") != NULL);
    CHECK(strstr(run_err, "(status GDN_ERR_UNSUPPORTED: unsupported)") != NULL);
    CHECK(strstr(run_err, "hint: --noconstraint") != NULL);
    CHECK(run_out[0] == '\0');
    return 0;
}


// --nocontact and --noconstraint as in simulate: the box has no joint limits or equalities, so
// both remove every row; step_flags then lists no constrained step and no derivative flags
static int test_disable_flags(void) {
    const char* flags[] = {"--nocontact", "--noconstraint"};
    for (int i = 0; i < 2; i++) {
        char args[1024];
        snprintf(args, sizeof(args), "grad '%s/box_penalty.xml' --steps 200 --target "
                 "0.3,0.1,-0.4 %s", GDN_TEST_MODELS, flags[i]);
        CHECK(run_cli(args) == 0);
        cJSON* root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        const cJSON* solver = member(root, "solver");
        CHECK(member(solver, "contact")->valueint == 0);
        CHECK(member(solver, "constraint")->valueint == (i == 0));
        const cJSON* f = member(root, "step_flags");
        CHECK(member(f, "steps")->valueint == 200 && member(f, "records")->valueint == 200);
        CHECK(member(f, "constrained_steps")->valueint == 0);
        CHECK(cJSON_GetArraySize(member(f, "step")) == 0);
        CHECK(cJSON_GetArraySize(member(f, "derivative_flags")) == 0);
        cJSON_Delete(root);
    }

    // the solver options are accepted too and reported
    CHECK(run_cli("grad '" GDN_TEST_MODELS "/pendulum.xml' --steps 10 --solver cg --cone "
                  "elliptic --iterations 7 --tolerance 1e-6") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* solver = member(root, "solver");
    CHECK(strcmp(member(solver, "solver")->valuestring, "cg") == 0);
    CHECK(strcmp(member(solver, "cone")->valuestring, "elliptic") == 0);
    CHECK(member(solver, "iterations")->valueint == 7);
    CHECK(member(solver, "tolerance")->valuedouble == 1e-6);
    cJSON_Delete(root);

    // gradcheck's report carries the same step_flags
    CHECK(run_cli("gradcheck '" GDN_TEST_MODELS "/pendulum.xml' --steps 10 --nocontact") == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(cJSON_IsArray(member(member(root, "step_flags"), "derivative_flags")));
    CHECK(member(member(root, "step_flags"), "records")->valueint == 10);
    cJSON_Delete(root);

    // with a checkpointed tape only some records are readable, and the report says how many
    CHECK(run_cli("grad '" GDN_TEST_MODELS "/pendulum.xml' --steps 10 --checkpoint 4") == 0);
    root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    int records = member(member(root, "step_flags"), "records")->valueint;
    CHECK(records > 0 && records < 10);
    cJSON_Delete(root);
    return 0;
}


static const gdnTestCase cases[] = {
    {"noise_floor", test_noise_floor},
    {"fails_on_truncation", test_fails_on_truncation},
    {"branch_ctrl_clamp", test_branch_ctrl_clamp},
    {"branch_penalty_vertex", test_branch_penalty_vertex},
    {"constrained_default", test_constrained_default},
    {"disable_flags", test_disable_flags},
};
GDN_TEST_MAIN(cases)
