// SPDX-License-Identifier: Apache-2.0
// gradyn view: the page holds the bundle and the data the player needs (per-frame body poses
// equal to the trajectory's, every geom, meshes, contacts, --every), and bad input (missing
// files, a bad CSV line, a column count that does not match the model) is reported with the
// file, the line and exit code 1; a bad command line gives exit code 2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "runner/cli_run.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_view_tmp"
#define BALL GDN_SOURCE_DIR "/tests/viewer/falling_ball.xml"
#define ALL_GEOMS GDN_SOURCE_DIR "/tests/viewer/all_geoms.xml"

static char* run_out = NULL;
static char* run_err = NULL;
static int no_player = -1; // 1 when this gradyn was built without the player bundle

static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}


// whether the program has its player; when not, prints why once
static int player_missing(void) {
    if (no_player < 0) {
        const char* csv = gdn_cli_tmp_file(TMP_DIR, "probe.csv", "time,qpos0\n0,0\n");
        char args[512];
        snprintf(args, sizeof(args), "view '%s' '%s' -o '%s/probe.html'", BALL, csv, TMP_DIR);
        run_cli(args);
        no_player = strstr(run_err, "built without the viewer's player") != NULL;
        if (no_player) {
            printf("  gradyn was built without the player bundle; view's checks reduce to the "
                   "refusal: %s", run_err);
        }
    }
    return no_player;
}


// the JSON the page embeds for the player (NULL when absent or not JSON)
static cJSON* page_data(const char* html_path, int* has_bundle) {
    char* html = gdn_cli_slurp(html_path);
    const char* open = "<script id=\"gradyn-data\" type=\"application/json\">";
    char* start = strstr(html, open);
    cJSON* root = NULL;
    *has_bundle = strstr(html, "gradynViewer") != NULL && strstr(html, "Three.js Authors");
    if (start) {
        start += strlen(open);
        char* end = strstr(start, "</script>");
        if (end) {
            *end = '\0';
            root = cJSON_Parse(start);
        }
    }
    free(html);
    return root;
}


// the n numbers of a JSON array member (0 when the member is missing or of another length)
static int json_numbers(const cJSON* object, const char* key, double* out, int n) {
    const cJSON* array = cJSON_GetObjectItem(object, key);
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != n) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        out[i] = cJSON_GetArrayItem(array, i)->valuedouble;
    }
    return 1;
}


// the falling ball's page: 51 frames whose ball pose is the CSV's qpos (free joint: xpos and
// xquat are qpos), the world at rest, both geoms, the bundle
static int test_view_ball(void) {
    if (player_missing()) {
        CHECK(strstr(run_err, "gradyn: error: view: ") == run_err);
        return 0;
    }
    char args[1024];
    snprintf(args, sizeof(args), "simulate '%s' --steps 250 --every 5 --format csv -o '%s/ball.csv'",
             BALL, TMP_DIR);
    CHECK(run_cli(args) == 0);
    snprintf(args, sizeof(args), "view '%s' '%s/ball.csv' -o '%s/ball.html'", BALL, TMP_DIR,
             TMP_DIR);
    CHECK(run_cli(args) == 0);
    CHECK(strstr(run_err, "51 frames, 2 bodies, 2 geoms") != NULL);
    int has_bundle = 0;
    cJSON* root = page_data(TMP_DIR "/ball.html", &has_bundle);
    CHECK(root != NULL);
    CHECK(has_bundle);
    CHECK(cJSON_GetObjectItem(root, "nframe")->valueint == 51);
    CHECK(cJSON_GetObjectItem(root, "nbody")->valueint == 2);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "geoms")) == 2);
    CHECK(cJSON_GetObjectItem(root, "contacts") == NULL);
    const cJSON* ball = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "geoms"), 1);
    CHECK(cJSON_GetObjectItem(ball, "type")->valueint == 2); // sphere
    CHECK(cJSON_GetObjectItem(ball, "body")->valueint == 1);
    double rgba[4];
    CHECK(json_numbers(ball, "rgba", rgba, 4));
    CHECK(rgba[0] == 1 && rgba[1] == 0 && rgba[2] == 0 && rgba[3] == 1);

    static double xpos[51 * 2 * 3], xquat[51 * 2 * 4], time[51];
    CHECK(json_numbers(root, "xpos", xpos, 51 * 2 * 3));
    CHECK(json_numbers(root, "xquat", xquat, 51 * 2 * 4));
    CHECK(json_numbers(root, "time", time, 51));

    // every row of the CSV against the page: a free body's pose is its qpos, and both files
    // print shortest round-trip numbers, so they are equal bit for bit
    char* csv = gdn_cli_slurp(TMP_DIR "/ball.csv");
    char* line = strchr(csv, '\n') + 1;
    for (int f = 0; f < 51; f++) {
        double q[8];
        CHECK(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &q[0], &q[1], &q[2], &q[3], &q[4],
                     &q[5], &q[6], &q[7]) == 8);
        CHECK(time[f] == q[0]);
        for (int k = 0; k < 3; k++) {
            CHECK(xpos[6 * f + 3 + k] == q[1 + k]);
            CHECK(xpos[6 * f + k] == 0); // the world
        }
        for (int k = 0; k < 4; k++) {
            CHECK(xquat[8 * f + 4 + k] == q[4 + k]);
        }
        line = strchr(line, '\n') + 1;
    }
    CHECK(xpos[50 * 6 + 5] < 0.2); // it has landed by 0.5 s
    free(csv);
    cJSON_Delete(root);
    return 0;
}


// every geom type and a mesh, --contacts, --every 7 (every 7th row and the last), - for stdout
static int test_view_all_geoms(void) {
    if (player_missing()) {
        return 0;
    }
    char args[1024];
    snprintf(args, sizeof(args), "simulate '%s' --key swing --steps 200 --every 2 --format csv "
             "-o '%s/all.csv'", ALL_GEOMS, TMP_DIR);
    CHECK(run_cli(args) == 0); // 101 rows
    snprintf(args, sizeof(args), "view '%s' '%s/all.csv' --every 7 --contacts -o '%s/all.html'",
             ALL_GEOMS, TMP_DIR, TMP_DIR);
    CHECK(run_cli(args) == 0);
    int has_bundle = 0;
    cJSON* root = page_data(TMP_DIR "/all.html", &has_bundle);
    CHECK(root != NULL);
    const int nframe = 15 + 1; // rows 0, 7, ..., 98 and the last, 100
    CHECK(cJSON_GetObjectItem(root, "nframe")->valueint == nframe);
    double time[16];
    CHECK(json_numbers(root, "time", time, nframe));
    CHECK_NEAR(time[1], 0.028, 1e-9, 1e-12);
    CHECK_NEAR(time[nframe - 1], 0.4, 1e-9, 1e-12);
    const cJSON* geoms = cJSON_GetObjectItem(root, "geoms");
    int seen[8] = {0};
    for (int g = 0; g < cJSON_GetArraySize(geoms); g++) {
        int type = cJSON_GetObjectItem(cJSON_GetArrayItem(geoms, g), "type")->valueint;
        CHECK(type >= 0 && type < 8);
        seen[type]++;
    }
    CHECK(seen[0] == 1 && seen[2] == 1 && seen[3] == 2 && seen[4] == 1 && seen[5] == 1 &&
          seen[6] == 2 && seen[7] == 1);
    const cJSON* mesh = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "meshes"), 0);
    CHECK(mesh != NULL);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(mesh, "vert")) == 12);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(mesh, "face")) == 12);

    // contacts: frame starts, positions; the bodies rest on the plane by the end
    const cJSON* contacts = cJSON_GetObjectItem(root, "contacts");
    CHECK(contacts != NULL);
    double start[17];
    CHECK(json_numbers(contacts, "start", start, nframe + 1));
    CHECK(start[0] == 0 && start[1] == 0); // nothing touches at first
    CHECK(start[nframe] - start[nframe - 1] >= 5);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(contacts, "pos")) == 3 * (int)start[nframe]);
    cJSON_Delete(root);

    // the page on standard output is the same page
    snprintf(args, sizeof(args), "view '%s' '%s/all.csv' --every 7 --contacts -o -", ALL_GEOMS,
             TMP_DIR);
    CHECK(run_cli(args) == 0);
    char* file = gdn_cli_slurp(TMP_DIR "/all.html");
    CHECK(strcmp(file, run_out) == 0);
    free(file);
    return 0;
}


// view's help and command-line errors (exit 2)
static int test_view_usage(void) {
    CHECK(run_cli("view --help") == 0);
    CHECK(strncmp(run_out, "usage: gradyn view MODEL.xml TRAJ.csv", 37) == 0);
    CHECK(strstr(run_out, "docs/viewer.md") != NULL);
    CHECK(run_cli("view") == 2);
    CHECK(strstr(run_err, "missing MODEL.xml") != NULL);
    CHECK(run_cli("view '" BALL "'") == 2);
    CHECK(strstr(run_err, "missing TRAJ.csv") != NULL);
    CHECK(run_cli("view '" BALL "' t.csv") == 2);
    CHECK(strstr(run_err, "missing --output") != NULL);
    CHECK(run_cli("view '" BALL "' t.csv -o x.html --every 0") == 2);
    CHECK(strstr(run_err, "--every: '0'") != NULL);
    CHECK(run_cli("view '" BALL "' t.csv -o x.html --bogus") == 2);
    CHECK(strstr(run_err, "unknown option '--bogus'") != NULL);
    CHECK(run_cli("view '" BALL "' t.csv u.csv -o x.html") == 2);
    CHECK(run_cli("view '" BALL "' t.csv -o") == 2);
    CHECK(strstr(run_err, "-o needs a value") != NULL);
    return 0;
}


// one bad input: exit code 1 and the message contains expect
static int bad_input(const char* model, const char* csv_text, const char* expect) {
    const char* csv = csv_text ? gdn_cli_tmp_file(TMP_DIR, "bad.csv", csv_text) : NULL;
    char args[1024];
    snprintf(args, sizeof(args), "view '%s' '%s' -o '%s/bad.html'", model, csv_text ? csv :
             TMP_DIR "/absent.csv", TMP_DIR);
    int code = run_cli(args);
    if (code != 1 || !strstr(run_err, expect)) {
        fprintf(stderr, "expected exit 1 and '%s', got %d: %s", expect, code, run_err);
        return 1;
    }
    return 0;
}


// missing files, bad lines, columns of another model: the file, the line and the cause
static int test_view_errors(void) {
    if (player_missing()) {
        return 0;
    }
    const char* head = "time,qpos0,qpos1,qpos2,qpos3,qpos4,qpos5,qpos6,qvel0\n";
    char text[512];
    CHECK(bad_input(BALL, NULL, "absent.csv: cannot open") == 0);
    CHECK(bad_input(GDN_SOURCE_DIR "/tests/viewer/absent.xml", "time\n", "absent.xml") == 0);
    CHECK(bad_input(BALL, "", "empty file") == 0);
    CHECK(bad_input(BALL, head, "no rows after the header") == 0);
    snprintf(text, sizeof(text), "%s0,0,0,1,1,0,0,0,0\n0.1,0,0,abc,1,0,0,0,0\n", head);
    CHECK(bad_input(BALL, text, "bad.csv:3: qpos2: 'abc' is not a finite number") == 0);
    snprintf(text, sizeof(text), "%s0,0,0,1,1,0,0,0,0\n0.1,0,0,1,1\n", head);
    CHECK(bad_input(BALL, text, "bad.csv:3: 5 fields, the header has 9") == 0);
    snprintf(text, sizeof(text), "%snan,0,0,1,1,0,0,0,0\n", head);
    CHECK(bad_input(BALL, text, "bad.csv:2: time: 'nan' is not a finite number") == 0);
    CHECK(bad_input(BALL, "time,qpos0,qpos1\n0,1,2\n",
                    "bad.csv:1: the header names 2 qpos columns, the model has nq = 7") == 0);
    CHECK(bad_input(BALL, "qpos0,qpos1\n0,1\n", "bad.csv:1: the header has no 'time' column") ==
          0);
    CHECK(bad_input(BALL, "time,qpos0,qpos1,qpos2,qpos3,qpos4,qpos5,qpos9\n0,0,0,0,1,0,0,0\n",
                    "the header names 7 qpos columns, the model has nq = 7") == 0);
    // a CRLF file and a blank last line are fine
    snprintf(text, sizeof(text), "time,qpos0,qpos1,qpos2,qpos3,qpos4,qpos5,qpos6\r\n"
             "0,0,0,1,1,0,0,0\r\n\n");
    const char* csv = gdn_cli_tmp_file(TMP_DIR, "crlf.csv", text);
    char args[1024];
    snprintf(args, sizeof(args), "view '%s' '%s' -o '%s/crlf.html'", BALL, csv, TMP_DIR);
    CHECK(run_cli(args) == 0);
    snprintf(args, sizeof(args), "view '%s' '%s' -o '%s/no/such/dir/x.html'", BALL, csv, TMP_DIR);
    CHECK(run_cli(args) == 1);
    CHECK(strstr(run_err, "cannot write") != NULL);
    return 0;
}


// names end up in the page's JSON escaped so that none can close its script element: a geom
// named a</script><b>&"q round-trips through the page's data
static int test_view_script_safe(void) {
    if (player_missing()) {
        return 0;
    }
    const char* xml = gdn_cli_tmp_file(TMP_DIR, "named.xml",
        "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>"
        "<body pos=\"0 0 0.2\"><freejoint/>"
        "<geom name=\"a&lt;/script&gt;&lt;b&gt;&amp;&quot;q\" type=\"sphere\" size=\"0.1\"/>"
        "</body></worldbody></mujoco>\n");
    char args[1024];
    snprintf(args, sizeof(args), "simulate '%s' --steps 4 --format csv -o '%s/named.csv'", xml,
             TMP_DIR);
    CHECK(run_cli(args) == 0);
    snprintf(args, sizeof(args), "view '%s' '%s/named.csv' -o '%s/named.html'", xml, TMP_DIR,
             TMP_DIR);
    CHECK(run_cli(args) == 0);
    char* html = gdn_cli_slurp(TMP_DIR "/named.html");
    CHECK(strstr(html, "a\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\\"q") != NULL);
    free(html);
    int has_bundle = 0;
    cJSON* root = page_data(TMP_DIR "/named.html", &has_bundle);
    CHECK(root != NULL);
    const cJSON* ball = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "geoms"), 1);
    const cJSON* name = cJSON_GetObjectItem(ball, "name");
    CHECK(cJSON_IsString(name) && strcmp(name->valuestring, "a</script><b>&\"q") == 0);
    cJSON_Delete(root);
    return 0;
}


static const gdnTestCase cases[] = {
    {"view_ball", test_view_ball},
    {"view_all_geoms", test_view_all_geoms},
    {"view_usage", test_view_usage},
    {"view_errors", test_view_errors},
    {"view_script_safe", test_view_script_safe},
};

GDN_TEST_MAIN(cases)
