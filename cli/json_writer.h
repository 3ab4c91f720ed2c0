// SPDX-License-Identifier: Apache-2.0
// Streaming JSON writer shared by the subcommands and the viewer's page: commas, indentation
// (or none), shortest round-trip numbers (number_format.h).
#ifndef GDN_CLI_JSON_WRITER_H
#define GDN_CLI_JSON_WRITER_H

#include <stddef.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

// objects and arrays opened with begin_* put one member per line; number arrays written with
// cli_json_numbers stay on one line. key is the member name inside an object, NULL elsewhere.
// A compact writer puts no white space anywhere (and no newline after the outermost value); a
// script-safe one also escapes < > & in strings as \u00XX, so the text may sit inside an HTML
// <script> element (gradyn view's page)
typedef struct cliJson {
    FILE* out;
    int depth;                        // open containers
    int count[CLI_JSON_MAX_DEPTH];    // members written so far at each depth
    int compact;                      // no newlines, indentation or spaces
    int script_safe;                  // < > & escaped in strings
} cliJson;

// an indented writer
void cli_json_init(cliJson* w, FILE* out);
// a compact, script-safe writer (JSON inside an HTML <script> element)
void cli_json_init_script(cliJson* w, FILE* out);
void cli_json_begin_object(cliJson* w, const char* key);
void cli_json_end_object(cliJson* w);
void cli_json_begin_array(cliJson* w, const char* key);
void cli_json_end_array(cliJson* w);

// scalars; a non-finite double is written as null (JSON has no NaN)
void cli_json_double(cliJson* w, const char* key, double value);
void cli_json_int(cliJson* w, const char* key, long value);
void cli_json_string(cliJson* w, const char* key, const char* value); // NULL: null
void cli_json_null(cliJson* w, const char* key);

// [x0, x1, ...] on one line
void cli_json_numbers(cliJson* w, const char* key, const double* x, size_t n);

// [i0, i1, ...] on one line
void cli_json_ints(cliJson* w, const char* key, const int* x, size_t n);

// rows x cols row-major matrix as an array of rows, one row per line
void cli_json_matrix(cliJson* w, const char* key, const double* x, int rows, int cols);

// one array element per line of text (e.g. the loader's warnings)
void cli_json_lines(cliJson* w, const char* key, const char* text);

// a double in its shortest round-trip form (cli_format_double); non-finite: null
void cli_write_double(FILE* out, double value);

#endif
