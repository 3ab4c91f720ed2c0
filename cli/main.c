// SPDX-License-Identifier: Apache-2.0
// gradyn program entry: the usage text (every command's own, in full), --help/--version,
// dispatch to the subcommands.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "grad_problem.h"
#include "kamino_options.h"
#include "session.h"

// the paragraphs on options several commands share
enum { HELP_STATE = 1, HELP_SOLVER = 2, HELP_GRAD = 4 };
static const char* const shared_help[] = {CLI_STATE_HELP, CLI_SOLVER_HELP, GRAD_HELP};
#define NSHARED 3

// the commands in the order the help lists them
typedef struct cliCommand {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* usage;
    int shared; // HELP_* bits
    void (*more_help)(FILE* out); // a paragraph printed after the usage (NULL: none)
} cliCommand;

static const cliCommand commands[] = {
    {"info", cli_info, cli_info_usage, 0, NULL},
    {"forward", cli_forward, cli_forward_usage, HELP_STATE | HELP_SOLVER, NULL},
    {"simulate", cli_simulate, cli_simulate_usage, HELP_STATE | HELP_SOLVER, cli_kamino_help},
    {"contacts", cli_contacts, cli_contacts_usage, HELP_STATE | HELP_SOLVER, NULL},
    {"grad", cli_grad, cli_grad_usage, HELP_GRAD | HELP_STATE | HELP_SOLVER, NULL},
    {"gradcheck", cli_gradcheck, cli_gradcheck_usage, HELP_GRAD | HELP_STATE | HELP_SOLVER,
     NULL},
    {"view", cli_view, cli_view_usage, 0, NULL},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char usage_head[] =
    "usage: gradyn <command> MODEL.xml [options]\n"
    "       gradyn view MODEL.xml TRAJ.csv -o PAGE.html\n"
    "       gradyn <command> --help     (that command's help, as below)\n"
    "       gradyn --help | --version\n"
    "\n"
    "Commands: info, forward, simulate, contacts, grad, gradcheck, view. Each is described\n"
    "below with every option it takes; the options several commands share (the objective of\n"
    "grad and gradcheck, the initial state, the solver) are described after them.\n"
    "\n"
    "Every command that loads a model takes --accept-unsupported. Without it, a model using\n"
    "anything that changes the dynamics but gradyn does not simulate (springdamper,\n"
    "noslip_iterations, multiccd, fusestatic, height fields, shellinertia) is refused,\n"
    "naming the element and its file:line. With it the model loads, each such feature\n"
    "replaced by the substitute a warning on stderr names (e.g. \"no no-slip pass is run\").\n";

static const char usage_tail[] =
    "State files are JSON objects, every field optional: {\"qpos\": [nq numbers], \"qvel\": [nv],\n"
    "\"ctrl\": [nu], \"act\": [na], \"qfrc_applied\": [nv], \"time\": t}. Missing fields keep the defaults (the\n"
    "keyframe given by --key, else qpos0 and zeros); examples/states/ has some.\n"
    "\n"
    "Numbers are printed in the shortest form that reads back to the same double (0.005, not\n"
    "0.0050000000000000001); a non-finite value is printed as null.\n"
    "\n"
    "-h, --help prints this help (after a command: that command's help); --version prints the\n"
    "version. Errors go to stderr; the exit code is 0 on success, 1 on bad input, a failed\n"
    "step or a failed check, 2 on a bad command line.\n";


// the whole help: the head, every command's usage (and its own extra paragraph), the shared paragraphs once, the tail
static void print_usage(FILE* out) {
    fputs(usage_head, out);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        fputc('\n', out);
        fputs(commands[i].usage, out);
        if (commands[i].more_help) {
            fputc('\n', out);
            commands[i].more_help(out);
        }
    }
    for (int k = NSHARED - 1; k >= 0; k--) {
        fputc('\n', out);
        fputs(shared_help[k], out);
    }
    fputc('\n', out);
    fputs(usage_tail, out);
}


void cli_print_help(const char* command) {
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(command, commands[i].name) != 0) {
            continue;
        }
        fputs(commands[i].usage, stdout);
        if (commands[i].more_help) {
            fputc('\n', stdout);
            commands[i].more_help(stdout);
        }
        for (int k = NSHARED - 1; k >= 0; k--) {
            if (commands[i].shared & (1 << k)) {
                fputc('\n', stdout);
                fputs(shared_help[k], stdout);
            }
        }
        fputs("\n--accept-unsupported loads a model using what gradyn does not simulate, each "
              "feature\nreplaced by the substitute a warning names (gradyn --help lists "
              "them).\n",
              stdout);
    }
}


int cli_fail(const char* format, ...) {
    va_list args;
    va_start(args, format);
    fputs("gradyn: error: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return CLI_EXIT_ERROR;
}


int cli_usage_error(const char* command, const char* format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "gradyn %s: ", command);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n(see gradyn %s --help)\n", command);
    va_end(args);
    return CLI_EXIT_USAGE;
}


int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char* command = argv[1];

    // global flags
    if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0 ||
        strcmp(command, "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(command, "--version") == 0) {
        printf("gradyn %s\n", GDN_VERSION_STRING);
        return CLI_EXIT_OK;
    }

    // --accept-unsupported, taken by every command: removed here, read by the model loads
    int kept = 2;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--accept-unsupported") == 0) {
            cli_load_options.accept_unsupported = 1;
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = NULL;

    // subcommands receive argv from their own name on
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(command, commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "gradyn: unknown command '%s'\n\n", command);
    print_usage(stderr);
    return CLI_EXIT_USAGE;
}
