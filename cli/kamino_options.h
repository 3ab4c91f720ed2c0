// SPDX-License-Identifier: Apache-2.0
// simulate's Kamino settings on the command line: one table of options over gdnKaminoSettings
// that parses them, prints their help with the library's defaults, builds the Kamino model
// (naming the options the library refuses) and writes the settings used as JSON.
#ifndef GDN_CLI_KAMINO_OPTIONS_H
#define GDN_CLI_KAMINO_OPTIONS_H

#include <stdio.h>

#include <gradyn/kamino.h>

#include "json_writer.h"
#include "session.h"

// room for the table's options (kamino_options.c checks its size against it)
#define CLI_KAMINO_MAX_OPTIONS 32

// the Kamino-only options given: the value text of each table row (NULL: not given; the last
// one wins when an option is repeated). --iterations and --tolerance are cliSolverArgs'
typedef struct cliKaminoArgs {
    const char* text[CLI_KAMINO_MAX_OPTIONS];
} cliKaminoArgs;

void cli_kamino_args_init(cliKaminoArgs* args);

// consume argv[*i] (and its value) when it is a Kamino-only option: 1 consumed, 0 not ours,
// -1 missing or malformed value (message printed, naming the option). Ranges are the
// library's to check (cli_kamino_model)
int cli_kamino_option(cliKaminoArgs* args, const char* command, int argc, char** argv, int* i);

// the first Kamino-only option given, NULL when none
const char* cli_kamino_first_given(const cliKaminoArgs* args);

// the Kamino model of m: gdn_kamino_settings_default, the model's kamino_restitution, then
// --iterations / --tolerance of solver, then the Kamino options (so --tol-primal given with
// --tolerance wins). Its warnings go to stderr. A refusal is printed: naming the options
// whose values the library refuses, with its message (CLI_EXIT_USAGE), or as the model's own
// error (CLI_EXIT_ERROR). Returns CLI_EXIT_OK with *km set, or that code
int cli_kamino_model(const gdnModel* m, const char* path, const cliSolverArgs* solver,
                     const cliKaminoArgs* args, gdnKaminoModel** km);

// "--rho 2, --eta 0.1": the settings options given (--iterations and --tolerance included),
// "" when none
void cli_kamino_given(const cliSolverArgs* solver, const cliKaminoArgs* args, char* out,
                      int size);

// the paragraph of simulate's help listing every Kamino setting with its default, read from
// gdn_kamino_settings_default
void cli_kamino_help(FILE* out);

// the settings as a JSON object under key: every field of gdnKaminoSettings by its name
void cli_kamino_settings_json(cliJson* w, const char* key, const gdnKaminoSettings* s);

// "padmm", "dvi", "lox" ("unknown" otherwise)
const char* cli_kamino_backend_name(int backend);

#endif
