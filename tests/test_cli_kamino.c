// SPDX-License-Identifier: Apache-2.0
// gradyn simulate --solver kamino: the status in every row (JSON and CSV), the summary on
// stderr, every Kamino setting as an option (reaching the model's settings, listed in the help
// with the library's defaults, bad values refused by name), the options that do not apply, the
// model-level selection and the other commands' refusal of it.
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gradyn/kamino.h>

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
        CHECK(cJSON_IsNumber(cJSON_GetObjectItem(st, "refactorizations")));
        CHECK(cJSON_GetObjectItem(st, "rho")->valuedouble > 0);
        const double z = cJSON_GetArrayItem(cJSON_GetObjectItem(row, "qpos"), 2)->valuedouble;
        CHECK(z > 0.1 - 2e-6 && z < 0.1 + 1e-9);
    }
    CHECK(cJSON_GetObjectItem(root, "unconverged_steps")->valueint == 0);
    cJSON_Delete(root);
    CHECK(strstr(run_err, "Kamino (PADMM): 200 steps, 0 unconverged") != NULL);
    CHECK(strstr(run_err, " refactorizations; final rho ") != NULL);
    return 0;
}

// CSV: the status columns after qvel, empty on step 0
static int test_simulate_csv(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 3 "
                  "--solver kamino --iterations 50 --tolerance 1e-8") == 0);
    CHECK(strstr(run_out, ",qvel5,converged,iterations,r_p,r_d,r_c,nrow,ncontact,"
                          "refactorizations,rho\n") != NULL);
    const char* row0 = strchr(run_out, '\n') + 1;
    const char* row1 = strchr(row0, '\n') + 1;
    CHECK(strncmp(strchr(row0, '\n') - 10, "0,,,,,,,,,", 10) == 0);
    // converged, within the 50 iterations given
    int commas = 0;
    const char* c = row1;
    for (; *c && commas < 14; c++) {
        commas += *c == ',';
    }
    CHECK(c[0] == '1' && c[1] == ',');
    CHECK(atoi(c + 2) >= 2 && atoi(c + 2) <= 50);

    // after ncontact (4): refactorizations (a count), then rho (a positive number)
    for (; *c && commas < 20; c++) {
        commas += *c == ',';
    }
    CHECK(c[0] == '4' && c[1] == ',');
    char* end = NULL;
    long refactorizations = strtol(c + 2, &end, 10);
    CHECK(end > c + 2 && *end == ',' && refactorizations >= 0);
    double rho = strtod(end + 1, &end);
    CHECK(*end == '\n' && rho > 0);
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

// every Kamino option, a value for it other than the default, and the gdnKaminoSettings field
// it sets (as the JSON's kamino_settings names it)
typedef struct optionCase {
    const char* option;
    const char* value;
    const char* field;
    double expected; // the field's value (on|off: 1|0; backend: its enum)
} optionCase;

static const optionCase option_cases[] = {
    {"--backend", "padmm", "backend", GDN_KAMINO_PADMM},
    {"--iterations", "37", "max_iterations", 37},
    {"--tol-primal", "2e-7", "tol_primal", 2e-7},
    {"--tol-dual", "3e-7", "tol_dual", 3e-7},
    {"--tol-compl", "4e-7", "tol_compl", 4e-7},
    {"--rho", "2", "rho", 2},
    {"--rho-bilateral", "0.5", "rho_bilateral", 0.5},
    {"--eta", "2e-5", "eta", 2e-5},
    {"--penalty-update", "off", "penalty_update", 0},
    {"--penalty-ratio", "20", "penalty_ratio", 20},
    {"--penalty-factor", "2", "penalty_factor", 2},
    {"--rho-min", "0.001", "rho_min", 0.001},
    {"--rho-max", "1000", "rho_max", 1000},
    {"--acceleration", "off", "acceleration", 0},
    {"--restart-factor", "0.5", "restart_factor", 0.5},
    {"--preconditioning", "off", "preconditioning", 0},
    {"--warmstart", "off", "warmstart", 0},
    {"--warmstart-scale", "0.25", "warmstart_scale", 0.25},
    {"--warmstart-scale-unilateral", "0.5", "warmstart_scale_unilateral", 0.5},
    {"--alpha", "0.02", "alpha", 0.02},
    {"--beta", "0.03", "beta", 0.03},
    {"--gamma", "0.04", "gamma", 0.04},
    {"--deadzone", "2e-6", "deadzone", 2e-6},
    {"--merge-distance", "2e-7", "merge_distance", 2e-7},
    {"--restitution", "0.3", "restitution", 0.3},
    {"--max-contacts", "8", "max_contacts", 8},
    {"--projection-iterations", "5", "projection_iterations", 5},
    {"--projection-tol", "1e-11", "projection_tol", 1e-11},
    {"--curvature-bias", "off", "curvature_bias", 0},
};
#define NOPTION_CASES ((int)(sizeof(option_cases) / sizeof(option_cases[0])))


// the field names of gdnKaminoSettings as include/gradyn/kamino.h declares them, one per
// names[k] (the identifier before each ';' of the struct, comments stripped); their count
static int settings_fields(char names[][64], int max) {
    char* header = gdn_cli_slurp(GDN_SOURCE_DIR "/include/gradyn/kamino.h");
    const char* begin = strstr(header, "typedef struct gdnKaminoSettings {");
    const char* end = begin ? strstr(begin, "} gdnKaminoSettings;") : NULL;
    int n = 0;
    for (const char* line = begin ? strchr(begin, '\n') + 1 : NULL; line && line < end;) {
        const char* eol = strchr(line, '\n');
        const char* comment = strstr(line, "//");
        const char* stop = comment && comment < eol ? comment : eol;
        const char* semi = memchr(line, ';', (size_t)(stop - line));
        if (semi && n < max) {
            const char* id = semi;
            while (id > line && (isalnum((unsigned char)id[-1]) || id[-1] == '_')) {
                id--;
            }
            size_t len = (size_t)(semi - id);
            if (len > 0 && len < 64) {
                memcpy(names[n], id, len);
                names[n][len] = '\0';
                n++;
            }
        }
        line = eol + 1;
    }
    free(header);
    return n;
}


// a field of the JSON's kamino_settings as a number (the backend by its enum)
static double settings_value(const cJSON* settings, const char* field) {
    const cJSON* x = cJSON_GetObjectItem(settings, field);
    if (cJSON_IsString(x)) {
        return strcmp(x->valuestring, "padmm") == 0 ? GDN_KAMINO_PADMM
               : strcmp(x->valuestring, "dvi") == 0 ? GDN_KAMINO_DVI
               : strcmp(x->valuestring, "lox") == 0 ? GDN_KAMINO_LOX
                                                    : -1;
    }
    return cJSON_IsNumber(x) ? x->valuedouble : (double)NAN;
}


// run simulate on the resting box with extra options, JSON output; the document's
// kamino_settings (root in *root, to be freed), NULL when the run failed
static const cJSON* run_settings(const char* options, cJSON** root) {
    char args[4096];
    snprintf(args, sizeof(args), "simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' "
             "--steps 2 --solver kamino --format json %s", options);
    *root = NULL;
    if (run_cli(args) != 0) {
        fprintf(stderr, "gradyn %s: %s", args, run_err);
        return NULL;
    }
    *root = cJSON_Parse(run_out);
    return cJSON_GetObjectItem(*root, "kamino_settings");
}


// every field of gdnKaminoSettings has an option, and all of them at once reach the model's
// settings (the JSON's kamino_settings is gdn_kamino_model_settings of the model stepped)
static int test_every_setting_an_option(void) {
    char names[64][64];
    int nfield = settings_fields(names, 64);
    CHECK(nfield >= 25);
    for (int f = 0; f < nfield; f++) {
        int found = 0;
        for (int k = 0; k < NOPTION_CASES; k++) {
            found |= strcmp(option_cases[k].field, names[f]) == 0;
        }
        if (!found) {
            fprintf(stderr, "gdnKaminoSettings.%s has no case here (and maybe no option)\n",
                    names[f]);
        }
        CHECK(found);
    }

    // all options at once, each off its default
    char options[4096] = "";
    for (int k = 0; k < NOPTION_CASES; k++) {
        size_t len = strlen(options);
        snprintf(options + len, sizeof(options) - len, " %s %s", option_cases[k].option,
                 option_cases[k].value);
    }
    cJSON* root = NULL;
    const cJSON* settings = run_settings(options, &root);
    CHECK(settings != NULL);
    CHECK(cJSON_GetArraySize(settings) == nfield);
    for (int f = 0; f < nfield; f++) {
        CHECK(cJSON_GetObjectItem(settings, names[f]) != NULL);
    }
    gdnKaminoSettings d;
    gdn_kamino_settings_default(&d);
    for (int k = 0; k < NOPTION_CASES; k++) {
        const optionCase* o = &option_cases[k];
        if (settings_value(settings, o->field) != o->expected) {
            fprintf(stderr, "%s %s: kamino_settings.%s is %.17g\n", o->option, o->value,
                    o->field, settings_value(settings, o->field));
        }
        CHECK(settings_value(settings, o->field) == o->expected);
    }
    cJSON_Delete(root);

    // the switches back on
    settings = run_settings("--penalty-update on --acceleration on --preconditioning on "
                            "--warmstart on --rho-min 0.5", &root);
    CHECK(settings != NULL);
    CHECK(settings_value(settings, "penalty_update") == 1);
    CHECK(settings_value(settings, "acceleration") == 1);
    CHECK(settings_value(settings, "preconditioning") == 1);
    CHECK(settings_value(settings, "warmstart") == 1);
    CHECK(settings_value(settings, "rho_min") == 0.5);
    CHECK(settings_value(settings, "rho") == d.rho);
    cJSON_Delete(root);
    return 0;
}


// --tolerance sets the three tolerances, any of them given as well wins in either order; the
// model's kamino_restitution is the default --restitution overrides
static int test_tolerance_and_restitution(void) {
    cJSON* root = NULL;
    const cJSON* settings = run_settings("--tolerance 1e-9", &root);
    CHECK(settings != NULL);
    CHECK(settings_value(settings, "tol_primal") == 1e-9);
    CHECK(settings_value(settings, "tol_dual") == 1e-9);
    CHECK(settings_value(settings, "tol_compl") == 1e-9);
    cJSON_Delete(root);
    const char* orders[] = {"--tolerance 1e-9 --tol-dual 1e-5",
                            "--tol-dual 1e-5 --tolerance 1e-9"};
    for (int i = 0; i < 2; i++) {
        settings = run_settings(orders[i], &root);
        CHECK(settings != NULL);
        CHECK(settings_value(settings, "tol_primal") == 1e-9);
        CHECK(settings_value(settings, "tol_dual") == 1e-5);
        CHECK(settings_value(settings, "tol_compl") == 1e-9);
        cJSON_Delete(root);
    }

    // the bouncing ball's file sets e = 0.5
    for (int i = 0; i < 2; i++) {
        CHECK(run_cli(i == 0 ? "simulate '" GDN_TEST_MODELS "/kamino_scene_ball_bounce.xml' "
                               "--steps 1 --solver kamino --format json"
                             : "simulate '" GDN_TEST_MODELS "/kamino_scene_ball_bounce.xml' "
                               "--steps 1 --solver kamino --format json --restitution 0.2") ==
              0);
        root = cJSON_Parse(run_out);
        CHECK(root != NULL);
        CHECK(settings_value(cJSON_GetObjectItem(root, "kamino_settings"), "restitution") ==
              (i == 0 ? 0.5 : 0.2));
        cJSON_Delete(root);
    }
    return 0;
}


// simulate MODEL --steps steps (JSON, every row) with options: the status fields summed over
// the steps (iterations, refactorizations, converged); 0 on success
static int run_status(const char* model, const char* options, long steps, long* iterations,
                      long* refactorizations, long* converged) {
    char args[2048];
    snprintf(args, sizeof(args), "simulate '%s' --steps %ld --solver kamino --format json %s",
             model, steps, options);
    CHECK(run_cli(args) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* rows = cJSON_GetObjectItem(root, "trajectory");
    CHECK(cJSON_GetArraySize(rows) == steps + 1);
    *iterations = *refactorizations = *converged = 0;
    for (int k = 1; k <= steps; k++) {
        const cJSON* st = cJSON_GetObjectItem(cJSON_GetArrayItem(rows, k), "kamino_status");
        CHECK(st != NULL);
        *iterations += cJSON_GetObjectItem(st, "iterations")->valueint;
        *refactorizations += cJSON_GetObjectItem(st, "refactorizations")->valueint;
        *converged += cJSON_GetObjectItem(st, "converged")->valueint;
    }
    cJSON_Delete(root);
    return 0;
}


// the options change the solve as their settings say: --iterations 1 caps every step
// (reported unconverged), --rho-bilateral 1 puts the four-bar's joint rows back into the
// iterations (more of them), --penalty-update off never refactorizes
static int test_option_effects(void) {
    const char* box = GDN_TEST_MODELS "/kamino_scene_box_rest.xml";
    const char* fourbar = GDN_TEST_MODELS "/kamino_mech_fourbar.xml";
    long it = 0, refac = 0, conv = 0;
    CHECK(run_status(box, "--iterations 1", 5, &it, &refac, &conv) == 0);
    CHECK(it == 5 && conv == 0);
    CHECK(strstr(run_err, "5 steps, 5 unconverged") != NULL);

    long it0 = 0, it1 = 0;
    CHECK(run_status(fourbar, "", 20, &it0, &refac, &conv) == 0);
    CHECK(conv == 20);
    CHECK(run_status(fourbar, "--rho-bilateral 1", 20, &it1, &refac, &conv) == 0);
    CHECK(conv == 20);
    fprintf(stderr, "four-bar, 20 steps: %ld iterations, %ld with --rho-bilateral 1\n", it0,
            it1);
    CHECK(it1 != it0);

    CHECK(run_status(box, "", 20, &it, &refac, &conv) == 0);
    CHECK(refac > 0);
    CHECK(strstr(run_err, "; 0 refactorizations;") == NULL);
    CHECK(run_status(box, "--penalty-update off", 20, &it, &refac, &conv) == 0);
    CHECK(refac == 0 && conv == 20);
    CHECK(strstr(run_err, "; 0 refactorizations; final rho 1 to 1") != NULL);
    return 0;
}


// bad values: refused with exit code 2 before any output, the message naming the option and,
// for a value out of range, giving the library's reason; never a crash
static int test_bad_values(void) {
    const struct {
        const char* options;
        const char* says[2];
    } cases[] = {
        {"--rho -1", {"--rho -1: kamino: ", "rho > 0"}},
        {"--rho abc", {"--rho: 'abc' is not a finite number", ""}},
        {"--rho nan", {"--rho: 'nan' is not a finite number", ""}},
        {"--rho", {"--rho needs a value", ""}},
        {"--backend dvi", {"--backend dvi: kamino: ", "not implemented"}},
        {"--backend lox", {"--backend lox: kamino: ", "not implemented"}},
        {"--backend qp", {"--backend: 'qp' is not padmm, dvi or lox", ""}},
        {"--warmstart yes", {"--warmstart: 'yes' is not on or off", ""}},
        {"--max-contacts 1.5", {"--max-contacts: '1.5' is not a whole number", ""}},
        {"--max-contacts -1", {"--max-contacts -1: kamino: ", "max_contacts"}},
        {"--iterations 0", {"--iterations 0: kamino: ", "max_iterations"}},
        {"--alpha 2", {"--alpha 2: kamino: ", "alpha"}},
        {"--restitution 1.5", {"--restitution 1.5: kamino: ", "restitution"}},
        {"--projection-tol 0", {"--projection-tol 0: kamino: ", "projection_tol"}},
        {"--eta 0", {"--eta 0: kamino: ", "eta"}},
        {"--warmstart-scale 2", {"--warmstart-scale 2: kamino: ", "warmstart_scale"}},
        {"--penalty-factor 1", {"--penalty-factor 1: kamino: ", "penalty_factor"}},
        // valid alone, refused together: the one that is refused alone is named
        {"--rho 1.5 --rho-min 2", {"--rho-min 2: kamino: ", "rho_min <= rho"}},
        // each valid alone: both are named
        {"--rho-min 0.7 --rho 0.5", {"--rho 0.5, --rho-min 0.7: kamino: ", "rho_min <= rho"}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char args[1024];
        snprintf(args, sizeof(args), "simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' "
                 "--steps 2 --solver kamino --format json %s", cases[i].options);
        int code = run_cli(args);
        if (code != 2 || !strstr(run_err, cases[i].says[0]) ||
            !strstr(run_err, cases[i].says[1])) {
            fprintf(stderr, "%s: exit %d, stderr: %s", cases[i].options, code, run_err);
        }
        CHECK(code == 2);
        CHECK(strstr(run_err, cases[i].says[0]) != NULL);
        CHECK(strstr(run_err, cases[i].says[1]) != NULL);
        CHECK(run_out[0] == '\0');
    }

    // extreme values of every option: accepted, refused or a failed step, never a crash
    const char* extremes[] = {"-1", "0", "-0", "1e308", "1e-320", "2147483647"};
    for (int k = 0; k < NOPTION_CASES; k++) {
        for (size_t e = 0; e < sizeof(extremes) / sizeof(extremes[0]); e++) {
            char args[1024];
            snprintf(args, sizeof(args), "simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest"
                     ".xml' --steps 2 --solver kamino %s %s", option_cases[k].option,
                     extremes[e]);
            int code = run_cli(args);
            if (code < 0 || code > 2) {
                fprintf(stderr, "%s: exit %d\n", args, code);
            }
            CHECK(code >= 0 && code <= 2);
        }
    }
    return 0;
}


// Kamino's settings need Kamino: refused under MuJoCo's formulation (by default or by
// --solver on a file that selects Kamino), taken on a file that selects Kamino
static int test_options_need_kamino(void) {
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 2 "
                  "--rho 2") == 2);
    CHECK(strstr(run_err, "--rho needs Kamino") != NULL);
    CHECK(run_out[0] == '\0');
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_cli_select.xml' --steps 2 "
                  "--solver newton --warmstart off") == 2);
    CHECK(strstr(run_err, "--warmstart needs Kamino") != NULL);
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_cli_select.xml' --steps 2 "
                  "--warmstart off --format json") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    CHECK(settings_value(cJSON_GetObjectItem(root, "kamino_settings"), "warmstart") == 0);
    cJSON_Delete(root);
    // the other commands do not take them
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --rho 2") == 2);
    // --iterations and --tolerance stay MuJoCo's options too
    CHECK(run_cli("simulate '" GDN_TEST_MODELS "/kamino_scene_box_rest.xml' --steps 2 "
                  "--iterations 5 --tolerance 1e-9") == 0);
    return 0;
}


// simulate --help lists every option, its row ending with gdn_kamino_settings_default's value
static int test_help_defaults(void) {
    CHECK(run_cli("simulate --help") == 0);
    gdnKaminoSettings d;
    gdn_kamino_settings_default(&d);
    for (int k = 0; k < NOPTION_CASES; k++) {
        const optionCase* o = &option_cases[k];
        char row[128];
        snprintf(row, sizeof(row), "\n  %s ", o->option);
        const char* start = strstr(run_out, row);
        if (!start) {
            fprintf(stderr, "simulate --help has no row for %s\n", o->option);
        }
        CHECK(start != NULL);
        const char* next = strstr(start + 1, "\n  --");
        const char* blank = strstr(start + 1, "\n\n");
        const char* stop = next && (!blank || next < blank) ? next : blank;
        CHECK(stop != NULL);

        // the default of its field, as the CLI prints it
        char want[64];
        const char* f = o->field;
        double x = strcmp(f, "max_iterations") == 0          ? d.max_iterations
                   : strcmp(f, "tol_primal") == 0            ? d.tol_primal
                   : strcmp(f, "tol_dual") == 0              ? d.tol_dual
                   : strcmp(f, "tol_compl") == 0             ? d.tol_compl
                   : strcmp(f, "rho") == 0                   ? d.rho
                   : strcmp(f, "rho_bilateral") == 0         ? d.rho_bilateral
                   : strcmp(f, "eta") == 0                   ? d.eta
                   : strcmp(f, "penalty_update") == 0        ? d.penalty_update
                   : strcmp(f, "penalty_ratio") == 0         ? d.penalty_ratio
                   : strcmp(f, "penalty_factor") == 0        ? d.penalty_factor
                   : strcmp(f, "rho_min") == 0               ? d.rho_min
                   : strcmp(f, "rho_max") == 0               ? d.rho_max
                   : strcmp(f, "acceleration") == 0          ? d.acceleration
                   : strcmp(f, "restart_factor") == 0        ? d.restart_factor
                   : strcmp(f, "preconditioning") == 0       ? d.preconditioning
                   : strcmp(f, "warmstart") == 0             ? d.warmstart
                   : strcmp(f, "warmstart_scale") == 0       ? d.warmstart_scale
                   : strcmp(f, "warmstart_scale_unilateral") == 0 ? d.warmstart_scale_unilateral
                   : strcmp(f, "alpha") == 0                 ? d.alpha
                   : strcmp(f, "beta") == 0                  ? d.beta
                   : strcmp(f, "gamma") == 0                 ? d.gamma
                   : strcmp(f, "deadzone") == 0              ? d.deadzone
                   : strcmp(f, "merge_distance") == 0        ? d.merge_distance
                   : strcmp(f, "restitution") == 0           ? d.restitution
                   : strcmp(f, "max_contacts") == 0          ? d.max_contacts
                   : strcmp(f, "projection_iterations") == 0 ? d.projection_iterations
                   : strcmp(f, "projection_tol") == 0        ? d.projection_tol
                   : strcmp(f, "curvature_bias") == 0        ? d.curvature_bias
                                                             : (double)NAN;
        int is_switch = strstr(o->option, "update") || strcmp(o->option, "--acceleration") == 0 ||
                        strcmp(o->option, "--preconditioning") == 0 ||
                        strcmp(o->option, "--warmstart") == 0 ||
                        strcmp(o->option, "--curvature-bias") == 0;
        char tail[80];
        if (strcmp(f, "backend") == 0) {
            snprintf(tail, sizeof(tail), "(%s).", d.backend == GDN_KAMINO_PADMM ? "padmm" : "?");
        } else if (is_switch) {
            snprintf(tail, sizeof(tail), "(%s).", x != 0 ? "on" : "off");
        } else {
            gdn_cli_shortest(x, want, sizeof(want));
            snprintf(tail, sizeof(tail), "%s).", want);
        }
        size_t n = strlen(tail);
        if (!((size_t)(stop - start) > n && strncmp(stop - n, tail, n) == 0)) {
            fprintf(stderr, "simulate --help: the row of %s does not end with %s: %.*s\n",
                    o->option, tail, (int)(stop - start), start);
        }
        CHECK((size_t)(stop - start) > n && strncmp(stop - n, tail, n) == 0);
    }
    CHECK(strstr(run_out, "\n  --tolerance T ") != NULL);
    return 0;
}

static const gdnTestCase cases[] = {
    {"simulate_json", test_simulate_json},
    {"simulate_csv", test_simulate_csv},
    {"refusals", test_refusals},
    {"model_selection", test_model_selection},
    {"every_setting_an_option", test_every_setting_an_option},
    {"tolerance_and_restitution", test_tolerance_and_restitution},
    {"option_effects", test_option_effects},
    {"bad_values", test_bad_values},
    {"options_need_kamino", test_options_need_kamino},
    {"help_defaults", test_help_defaults},
};
GDN_TEST_MAIN(cases)
