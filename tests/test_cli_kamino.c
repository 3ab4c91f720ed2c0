// SPDX-License-Identifier: Apache-2.0
// gradyn simulate --solver kamino: the status in every row (JSON and CSV), the summary on
// stderr, the options that do not apply, the model-level selection and the other commands'
// refusal of it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "runner/cli_run.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_kamino_tmp"

static char* run_out = NULL;
static char* run_err = NULL;

static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}

// JSON rows of a resting box: every step converged, 4 contacts (12 rows), the box still at
// z = 0.1 (the dead zone lets it sink 1e-6 m at most); the summary line on stderr
static int test_simulate_json(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 200 "
                  "--every 100 --solver kamino --format json") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* rows = cJSON_GetObjectItem(root, "trajectory");
    CHECK(cJSON_GetArraySize(rows) == 3);
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "kamino_status") == NULL);
    for (int k = 1; k < 3; k++) {
        const cJSON* row = cJSON_GetArrayItem(rows, k);
        const cJSON* st = cJSON_GetObjectItem(row, "kamino_status");
        CHECK(st != NULL);
        CHECK(cJSON_GetObjectItem(st, "converged")->valueint == 1);
        CHECK(cJSON_GetObjectItem(st, "ncontact")->valueint == 4);
        CHECK(cJSON_GetObjectItem(st, "nrow")->valueint == 12);
        CHECK(cJSON_GetObjectItem(st, "iterations")->valueint >= 2);
        CHECK(cJSON_GetObjectItem(st, "r_p")->valuedouble <= 1e-6);
        const double z = cJSON_GetArrayItem(cJSON_GetObjectItem(row, "qpos"), 2)->valuedouble;
        CHECK(z > 0.1 - 2e-6 && z < 0.1 + 1e-9);
    }
    CHECK(cJSON_GetObjectItem(root, "unconverged_steps")->valueint == 0);
    cJSON_Delete(root);
    CHECK(strstr(run_err, "Kamino (PADMM): 200 steps, 0 unconverged") != NULL);
    return 0;
}

// CSV: the status columns after qvel, empty on step 0
static int test_simulate_csv(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 3 "
                  "--solver kamino --iterations 50 --tolerance 1e-8") == 0);
    CHECK(strstr(run_out, ",qvel5,converged,iterations,r_p,r_d,r_c,nrow,ncontact\n") != NULL);
    const char* row0 = strchr(run_out, '\n') + 1;
    const char* row1 = strchr(row0, '\n') + 1;
    CHECK(strncmp(strchr(row0, '\n') - 7, ",,,,,,,", 7) == 0);
    // converged, within the 50 iterations given
    int commas = 0;
    const char* c = row1;
    for (; *c && commas < 14; c++) {
        commas += *c == ',';
    }
    CHECK(c[0] == '1' && c[1] == ',');
    CHECK(atoi(c + 2) >= 2 && atoi(c + 2) <= 50);
    return 0;
}

// options that do not apply to Kamino, and commands that do not run it
static int test_refusals(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 3 "
                  "--solver kamino --cone elliptic") == 2);
    CHECK(strstr(run_err, "--cone does not apply") != NULL);
    CHECK(run_cli("grad '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 3 "
                  "--solver kamino") == 2);
    CHECK(strstr(run_err, "only simulate runs Kamino") != NULL);
    return 0;
}

// a model that selects Kamino: simulate runs it (status columns), forward refuses it unless
// --solver names MuJoCo's formulation
static int test_model_selection(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_cli_select.xml' --steps 2") == 0);
    CHECK(strstr(run_out, ",converged,iterations,") != NULL);
    CHECK(strstr(run_err, "Kamino (PADMM): 2 steps") != NULL);
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/kamino_cli_select.xml'") == 1);
    CHECK(strstr(run_err, "selects the Kamino solver") != NULL);
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/kamino_cli_select.xml' --solver newton") == 0);
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_cli_select.xml' --steps 2 "
                  "--solver newton") == 0);
    CHECK(strstr(run_out, "converged") == NULL);
    return 0;
}

static const gdnTestCase cases[] = {
    {"simulate_json", test_simulate_json},
    {"simulate_csv", test_simulate_csv},
    {"refusals", test_refusals},
    {"model_selection", test_model_selection},
};
GDN_TEST_MAIN(cases)
