// SPDX-License-Identifier: Apache-2.0
// The gradyn program as a new user meets it: --help lists every option of every command in
// whole sentences, numbers print in their shortest round-trip form, forward prints qacc_smooth
// and takes the solver options, info prints every option, the scripts answer --help.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>
#include <gradyn/gradyn.h>

#include "runner/cli_run.h"
#include "runner/models.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_usability_tmp"

static char* run_out = NULL;
static char* run_err = NULL;

static const char* const commands[] = {"info", "forward", "simulate", "contacts", "grad",
                                       "gradcheck", "view"};
#define NCOMMANDS 7

static const char* const cli_sources[] = {
    "main.c",         "cmd_info.c",      "cmd_forward.c",   "cmd_simulate.c", "cmd_contacts.c",
    "cmd_grad.c",     "cmd_gradcheck.c", "grad_problem.c",  "grad_problem.h", "session.c",
    "session.h",      "json_state.c",    "json_writer.c",   "branch_trace.c", "number_format.c",
    "kamino_options.c", "kamino_options.h", "cmd_view.c"};
#define NSOURCES (sizeof(cli_sources) / sizeof(cli_sources[0]))


static int run_cli(const char* args) {
    return gdn_cli_run(GDN_CLI_PATH, TMP_DIR, args, &run_out, &run_err);
}

// run "gradyn COMMAND 'path'" the same way
static int run_cli_on(const char* command, const char* path) {
    return gdn_cli_run_on(GDN_CLI_PATH, TMP_DIR, command, path, &run_out, &run_err);
}


// a heap copy of text (C17 has no strdup)
static char* copy_text(const char* text) {
    size_t n = strlen(text) + 1;
    char* out = malloc(n);
    if (out) {
        memcpy(out, text, n);
    }
    return out;
}


// the "--name" options quoted in the program's sources ("--steps", "--nocontact", ...), one
// per call: *cursor advances; 0 when there are no more
static int next_option(const char** cursor, char* option, size_t size) {
    for (const char* s = *cursor; (s = strstr(s, "\"--")) != NULL; s++) {
        size_t n = 1;
        while (islower((unsigned char)s[1 + n]) || s[1 + n] == '-') {
            n++;
        }
        if (s[1 + n] == '"' && n > 2 && n + 1 < size) {
            memcpy(option, s + 1, n);
            option[n] = '\0';
            *cursor = s + 1 + n;
            return 1;
        }
    }
    return 0;
}


// every option the sources parse is in gradyn --help, every command's own help is in it, and
// each command accepts every option its help lists (a value-taking option without its value
// says "needs a value", never "unknown option")
static int test_help_lists_every_option(void) {
    CHECK(run_cli("--help") == 0);
    char* help = copy_text(run_out);
    CHECK(help != NULL);
    int missing = 0;
    for (size_t f = 0; f < NSOURCES; f++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/cli/%s", GDN_SOURCE_DIR, cli_sources[f]);
        char* text = gdn_cli_slurp(path);
        CHECK(text[0] != '\0');
        const char* cursor = text;
        char option[64];
        while (next_option(&cursor, option, sizeof(option))) {
            if (!strstr(help, option)) {
                fprintf(stderr, "%s parses %s, gradyn --help does not list it\n",
                        cli_sources[f], option);
                missing++;
            }
        }
        free(text);
    }
    CHECK(missing == 0);

    // the list: simulate's three solvers, contacts --forces, grad's disable flags
    CHECK(strstr(help, "--solver newton|cg|pgs") != NULL);
    CHECK(strstr(help, "[--forces]") != NULL);
    for (int c = 0; c < NCOMMANDS; c++) {
        char args[160];
        snprintf(args, sizeof(args), "%s --help", commands[c]);
        CHECK(run_cli(args) == 0);
        CHECK(strncmp(run_out, "usage: gradyn ", 14) == 0);

        // the command's own usage (up to its first blank line) is in the whole help
        char* own = copy_text(run_out);
        CHECK(own != NULL);
        char* blank = strstr(own, "\n\n");
        if (blank) {
            blank[1] = '\0';
        }
        CHECK(strstr(help, own) != NULL);
        free(own);

        // each option of its help is accepted
        int solver_command =
            strcmp(commands[c], "info") != 0 && strcmp(commands[c], "view") != 0;
        CHECK(!solver_command ||
              (strstr(run_out, "--nocontact") && strstr(run_out, "--noconstraint") &&
               strstr(run_out, "--solver") && strstr(run_out, "--cone")));
        char* usage = copy_text(run_out);
        CHECK(usage != NULL);
        for (const char* s = usage; (s = strstr(s, "[--")) != NULL; s++) {
            char option[64];
            size_t n = strcspn(s + 1, " ]|");
            CHECK(n < sizeof(option));
            memcpy(option, s + 1, n);
            option[n] = '\0';
            snprintf(args, sizeof(args), "%s %s", commands[c], option);
            run_cli(args);
            if (strstr(run_err, "unknown option")) {
                fprintf(stderr, "gradyn %s: %s", args, run_err);
                missing++;
            }
        }
        free(usage);
    }
    CHECK(missing == 0);
    free(help);
    return 0;
}


// every paragraph of gradyn --help and of each command's help ends a sentence
static int check_paragraphs(const char* text, const char* what) {
    const char* p = text;
    while (*p) {
        const char* end = strstr(p, "\n\n");
        const char* stop = end ? end : p + strlen(p);
        while (stop > p && (stop[-1] == '\n' || stop[-1] == ' ')) {
            stop--;
        }
        // a paragraph of synopsis lines only ("usage: ..." and indented lines) needs no period
        int synopsis = strncmp(p, "usage: ", 7) == 0;
        for (const char* line = p; synopsis && line < stop;) {
            synopsis = strncmp(line, "usage: ", 7) == 0 || line[0] == ' ';
            const char* eol = memchr(line, '\n', (size_t)(stop - line));
            line = eol ? eol + 1 : stop;
        }
        if (stop > p && !synopsis && stop[-1] != '.') {
            fprintf(stderr, "%s: a paragraph ends mid-sentence: ...%.*s\n", what,
                    (int)(stop - p > 60 ? 60 : stop - p), stop - (stop - p > 60 ? 60 : stop - p));
            return 1;
        }
        p = end ? end + 2 : stop + strlen(stop);
    }
    return 0;
}


static int test_help_paragraphs_end(void) {
    CHECK(run_cli("--help") == 0);
    CHECK(check_paragraphs(run_out, "gradyn --help") == 0);
    for (int c = 0; c < NCOMMANDS; c++) {
        char args[64];
        snprintf(args, sizeof(args), "%s -h", commands[c]);
        CHECK(run_cli(args) == 0);
        CHECK(check_paragraphs(run_out, args) == 0);
    }
    // the check itself fails on a paragraph that stops mid-sentence
    CHECK(check_paragraphs("usage: x\nsteps whose solve did not converge are counted\n\nok.",
                           "self-test") == 1);
    return 0;
}


// every number token of text (JSON or CSV) is printed in its shortest round-trip form; returns
// the count of tokens that are not (printing the first few)
static int count_long_numbers(const char* text, int* numbers) {
    int bad = 0;
    *numbers = 0;
    for (const char* s = text; *s; s++) {
        int starts = (isdigit((unsigned char)*s) || *s == '-') &&
                     (s == text || strchr(" [,:\n", s[-1]) != NULL);
        if (!starts) {
            continue;
        }
        char* end = NULL;
        double x = strtod(s, &end);
        if (end == s || (*end && !strchr(",]}\n ", *end))) {
            continue;
        }
        char want[40];
        gdn_cli_shortest(x, want, sizeof(want));
        size_t n = (size_t)(end - s);
        (*numbers)++;
        if (strlen(want) != n || strncmp(want, s, n) != 0) {
            if (bad++ < 3) {
                fprintf(stderr, "printed %.*s, shortest round-trip form %s\n", (int)n, s, want);
            }
        }
        s = end - 1;
    }
    return bad;
}


static int test_shortest_numbers(void) {
    // a model whose options are short decimals that 17 digits would spoil
    const char* model = gdn_cli_tmp_file(
        TMP_DIR, "short.xml",
        "<mujoco>\n<option timestep=\"0.005\" gravity=\"0 0 -9.81\" tolerance=\"1e-9\"/>\n"
        "<worldbody>\n<body pos=\"0 0 0.3\"><joint type=\"hinge\" axis=\"0 1 0\"/>"
        "<geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.01\" mass=\"0.1\"/></body>\n"
        "</worldbody>\n</mujoco>\n");
    CHECK(run_cli_on("info", model) == 0);
    CHECK(strstr(run_out, "\"timestep\": 0.005,") != NULL);
    CHECK(strstr(run_out, "\"gravity\": [0, 0, -9.81]") != NULL);
    CHECK(strstr(run_out, "\"tolerance\": 1e-09") != NULL);
    CHECK(strstr(run_out, "0.0050000000000000001") == NULL);
    int numbers = 0;
    CHECK(count_long_numbers(run_out, &numbers) == 0 && numbers > 20);

    // forward, simulate (CSV and JSON), contacts, grad: every number shortest
    const char* runs[] = {
        "forward '" GDN_TEST_MODELS "/arm7.xml' --state '" GDN_SOURCE_DIR
        "/examples/states/arm7.json'",
        "simulate '" GDN_TEST_MODELS "/double_pendulum.xml' --steps 20",
        "simulate '" GDN_TEST_MODELS "/sol_stack.xml' --steps 5 --format json",
        "contacts '" GDN_TEST_MODELS "/sol_stack.xml' --forces",
        "grad '" GDN_TEST_MODELS "/double_pendulum.xml' --steps 20",
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        CHECK(run_cli(runs[i]) == 0);
        CHECK(count_long_numbers(run_out, &numbers) == 0 && numbers > 5);
    }

    // no printf conversion of a double anywhere in the program but the one helper
    int conversions = 0;
    for (size_t f = 0; f < NSOURCES; f++) {
        if (strcmp(cli_sources[f], "number_format.c") == 0) {
            continue;
        }
        char path[512];
        snprintf(path, sizeof(path), "%s/cli/%s", GDN_SOURCE_DIR, cli_sources[f]);
        char* text = gdn_cli_slurp(path);
        for (const char* s = text; (s = strchr(s, '%')) != NULL; s++) {
            size_t n = strspn(s + 1, ".0123456789*");
            if (strchr("gefGEF", s[1 + n]) && s[1 + n] != '\0') {
                fprintf(stderr, "cli/%s prints a double with %%%.*s\n", cli_sources[f],
                        (int)n + 1, s + 1);
                conversions++;
            }
        }
        free(text);
    }
    CHECK(conversions == 0);
    return 0;
}


// a JSON array's element i
static double item(const cJSON* array, int i) {
    const cJSON* x = cJSON_GetArrayItem(array, i);
    return cJSON_IsNumber(x) ? x->valuedouble : (double)NAN;
}


// forward's qacc and qacc_smooth equal gdn_forward's with the same solver options, bit for bit
static int check_forward(const char* model, const char* options, int solver, int cone,
                         int disable) {
    gdnModel* m = gdn_test_load_model_as_is(model);
    CHECK(m != NULL);
    if (solver >= 0) {
        m->opt.solver = solver;
    }
    if (cone >= 0) {
        m->opt.cone = cone;
    }
    m->opt.disableflags |= disable;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    CHECK(gdn_forward(m, d) == GDN_OK);

    char args[1024];
    snprintf(args, sizeof(args), "forward '%s' %s", model, options);
    CHECK(run_cli(args) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* qacc = cJSON_GetObjectItem(root, "qacc");
    const cJSON* smooth = cJSON_GetObjectItem(root, "qacc_smooth");
    CHECK(cJSON_GetArraySize(qacc) == m->nv && cJSON_GetArraySize(smooth) == m->nv);
    for (int i = 0; i < m->nv; i++) {
        CHECK(item(qacc, i) == d->qacc[i]);
        CHECK(item(smooth, i) == d->qacc_smooth[i]);
    }
    CHECK(cJSON_GetObjectItem(root, "ncon")->valueint == d->ncon);
    CHECK(cJSON_GetObjectItem(root, "nefc")->valueint == d->nefc);
    CHECK(cJSON_GetObjectItem(root, "solver_iter")->valueint == d->solver_iter);
    int differ = 0;
    for (int i = 0; i < m->nv; i++) {
        differ += d->qacc[i] != d->qacc_smooth[i];
    }
    CHECK(d->nefc == 0 ? differ == 0 : differ > 0);
    cJSON_Delete(root);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}


static int test_forward_solver_options(void) {
    const char* stack = GDN_TEST_MODELS "/sol_stack.xml";
    CHECK(check_forward(stack, "", -1, -1, 0) == 0);
    CHECK(check_forward(stack, "--solver pgs --cone elliptic", GDN_SOL_PGS, GDN_CONE_ELLIPTIC,
                        0) == 0);
    CHECK(check_forward(stack, "--solver cg", GDN_SOL_CG, -1, 0) == 0);
    CHECK(check_forward(stack, "--nocontact", -1, -1, GDN_DSBL_CONTACT) == 0);
    CHECK(check_forward(stack, "--noconstraint", -1, -1, GDN_DSBL_CONSTRAINT) == 0);

    // the stack has contacts: constrained and smooth accelerations differ
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/sol_stack.xml'") == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL && cJSON_GetObjectItem(root, "ncon")->valueint > 0);
    cJSON_Delete(root);
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/sol_stack.xml' --solver qp") == 2);
    CHECK(strstr(run_err, "--solver") != NULL);
    CHECK(run_cli("forward '" GDN_TEST_MODELS "/sol_stack.xml' --iterations 1 --tolerance 0") ==
          0);
    CHECK(strstr(run_err, "did not converge") != NULL);
    return 0;
}


// info prints every option, by name where MJCF names them
static int test_info_options(void) {
    const char* model = gdn_cli_tmp_file(
        TMP_DIR, "options.xml",
        "<mujoco>\n<option solver=\"CG\" cone=\"elliptic\" iterations=\"37\" tolerance=\"1e-7\" "
        "impratio=\"2\">\n<flag contact=\"disable\" energy=\"enable\"/>\n</option>\n"
        "<worldbody>\n<body><joint type=\"slide\" axis=\"0 0 1\"/><geom size=\"0.1\"/></body>\n"
        "</worldbody>\n</mujoco>\n");
    CHECK(run_cli_on("info", model) == 0);
    cJSON* root = cJSON_Parse(run_out);
    CHECK(root != NULL);
    const cJSON* o = cJSON_GetObjectItem(root, "option");
    CHECK(o != NULL);
    CHECK(strcmp(cJSON_GetObjectItem(o, "solver")->valuestring, "cg") == 0);
    CHECK(strcmp(cJSON_GetObjectItem(o, "cone")->valuestring, "elliptic") == 0);
    CHECK(cJSON_GetObjectItem(o, "iterations")->valueint == 37);
    CHECK(cJSON_GetObjectItem(o, "tolerance")->valuedouble == 1e-7);
    CHECK(cJSON_GetObjectItem(o, "impratio")->valuedouble == 2);
    const cJSON* disabled = cJSON_GetObjectItem(o, "disabled");
    CHECK(cJSON_GetArraySize(disabled) == 1);
    CHECK(strcmp(cJSON_GetArrayItem(disabled, 0)->valuestring, "contact") == 0);
    const cJSON* enabled = cJSON_GetObjectItem(o, "enabled");
    CHECK(cJSON_GetArraySize(enabled) == 1);
    CHECK(strcmp(cJSON_GetArrayItem(enabled, 0)->valuestring, "energy") == 0);
    const char* fields[] = {"timestep", "gravity", "integrator", "mpr_iterations",
                            "mpr_tolerance", "o_margin", "o_solref", "o_solimp"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        CHECK(cJSON_GetObjectItem(o, fields[i]) != NULL);
    }
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "penalty"), "stiffness") != NULL);
    cJSON_Delete(root);
    return 0;
}


// run a shell command line, stdout+stderr into *out; its exit status
static int run_shell(const char* command, char** out) {
    char line[4096];
    const int n = snprintf(line, sizeof(line), "%s > '%s/sh.txt' 2>&1", command, TMP_DIR);
    if (n < 0 || (size_t)n >= sizeof(line)) {
        return -1; // a command line this long is the test's own bug
    }
    gdn_cli_tmp_file(TMP_DIR, "sh.txt", "");
    int status = system(line);
    free(*out);
    *out = gdn_cli_slurp(TMP_DIR "/sh.txt");
    return status == -1 ? -1 : WEXITSTATUS(status);
}


// both scripts answer --help (without building anything); demo.sh builds the command line and
// says where it is, and its simulator header no longer claims "no contacts"
static int test_scripts(void) {
    char* out = NULL;
    const char* scripts[] = {"demo.sh", "test.sh"};
    for (int i = 0; i < 2; i++) {
        char command[1024];
        snprintf(command, sizeof(command), "bash '%s/scripts/%s' --help", GDN_SOURCE_DIR,
                 scripts[i]);
        CHECK(run_shell(command, &out) == 0);
        CHECK(strncmp(out, "usage: scripts/", 15) == 0);
        CHECK(strstr(out, "Environment:") != NULL);
    }
    char* demo = gdn_cli_slurp(GDN_SOURCE_DIR "/scripts/demo.sh");
    CHECK(strstr(demo, "gradyn_demo gradyn") != NULL);       // the CLI is a build target
    CHECK(strstr(demo, "== gradyn command line: $build/gradyn") != NULL);
    CHECK(strstr(demo, "no contacts") == NULL);
    CHECK(strstr(demo, "gdn_build ") != NULL);                // progress while building
    free(demo);
    char* test = gdn_cli_slurp(GDN_SOURCE_DIR "/scripts/test.sh");
    CHECK(strstr(test, "gdn_build ") != NULL);
    free(test);

    // the progress helper prints cmake's "Built target" lines while the build runs
    char command[2048];
    snprintf(command, sizeof(command),
             "bash -c \"source '%s/scripts/build_progress.sh'; gdn_build '%s/progress.log' "
             "check '%s' --target gradyn\"", GDN_SOURCE_DIR, TMP_DIR, GDN_BINARY_DIR);
    CHECK(run_shell(command, &out) == 0);
    CHECK(strstr(out, "check: ") && strstr(out, "Built target gradyn") &&
          strstr(out, "build done"));
    free(out);
    return 0;
}


static const gdnTestCase cases[] = {
    {"help_lists_every_option", test_help_lists_every_option},
    {"help_paragraphs_end", test_help_paragraphs_end},
    {"shortest_numbers", test_shortest_numbers},
    {"forward_solver_options", test_forward_solver_options},
    {"info_options", test_info_options},
    {"scripts", test_scripts},
};
GDN_TEST_MAIN(cases)
