// SPDX-License-Identifier: Apache-2.0
// Running the gradyn program from a test: scratch files, captured stdout/stderr, exit code.
#ifndef GDN_TEST_RUNNER_CLI_RUN_H
#define GDN_TEST_RUNNER_CLI_RUN_H

#include <stddef.h>

// whole file as a NUL-terminated heap string ("" when unreadable); the caller frees it
char* gdn_cli_slurp(const char* path);

// write text to dir/name (dir created when missing) and return the path (a ring of 8 static
// buffers, so up to 8 returned paths stay valid at once)
const char* gdn_cli_tmp_file(const char* dir, const char* name, const char* text);

// run "'cli' ARGS" with stdout and stderr captured in dir/out.txt and dir/err.txt, replace *out
// and *err (freed first) with their text; returns the exit code, 128 + signal on a crash, -1
// when the command could not run
int gdn_cli_run(const char* cli, const char* dir, const char* args, char** out, char** err);

// gdn_cli_run of "COMMAND 'path'": one subcommand on one model file
int gdn_cli_run_on(const char* cli, const char* dir, const char* command, const char* path,
                   char** out, char** err);

// out = the shortest of %.15g, %.16g, %.17g that reads back to x (the CLI's number form)
void gdn_cli_shortest(double x, char* out, size_t size);

#endif
