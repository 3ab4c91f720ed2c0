// SPDX-License-Identifier: Apache-2.0
// The gradyn command-line program: subcommand entry points and error reporting.
#ifndef GDN_CLI_H
#define GDN_CLI_H

#include <gradyn/gradyn.h>

// room for one error or a block of loader warnings
#define CLI_ERR_SIZE 1024
#define CLI_WARN_SIZE 8192

// exit codes: 0 success, 1 runtime or input error, 2 bad command line
#define CLI_EXIT_OK 0
#define CLI_EXIT_ERROR 1
#define CLI_EXIT_USAGE 2

// how every command loads its model: --accept-unsupported (any position, removed from argv
// by main) sets accept_unsupported
extern gdnLoadOptions cli_load_options;

// subcommands; argv[0] is the subcommand name, options follow
int cli_info(int argc, char** argv);
int cli_forward(int argc, char** argv);
int cli_simulate(int argc, char** argv);
int cli_contacts(int argc, char** argv);
int cli_grad(int argc, char** argv);
int cli_gradcheck(int argc, char** argv);
int cli_view(int argc, char** argv);

// each subcommand's own usage text: the synopsis with every option, then sentences saying what
// the command does and prints (the shared options' paragraphs are added by cli_print_help)
extern const char cli_info_usage[];
extern const char cli_forward_usage[];
extern const char cli_simulate_usage[];
extern const char cli_contacts_usage[];
extern const char cli_grad_usage[];
extern const char cli_gradcheck_usage[];
extern const char cli_view_usage[];

// the command's help on stdout: its usage (and its own extra paragraph: simulate's Kamino
// settings), then the paragraphs on the options it shares with other commands (the state, the
// solver, grad's objective)
void cli_print_help(const char* command);

// print "gradyn: error: <message>" on stderr and return CLI_EXIT_ERROR
int cli_fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

// print "gradyn <command>: <message>" and a hint to --help on stderr; return CLI_EXIT_USAGE
int cli_usage_error(const char* command, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

#endif
