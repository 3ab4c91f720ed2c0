// SPDX-License-Identifier: Apache-2.0
// Streaming JSON writer: separators and indentation tracked per nesting depth; compact and
// script-safe (inside an HTML <script>) for gradyn view's page.
#include "json_writer.h"

#include <string.h>

#include "number_format.h"


void cli_write_double(FILE* out, double value) {
    char text[CLI_NUMBER_SIZE];
    fputs(cli_format_double(text, value), out);
}


// escaped JSON string literal: quotes, backslashes and control characters (and < > & for a
// script-safe writer, so no "</script>" can end the element early)
static void write_string_literal(const cliJson* w, const char* s, size_t len) {
    FILE* out = w->out;
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c < 0x20 || (w->script_safe && (c == '<' || c == '>' || c == '&'))) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}


// separator, newline and indentation before a member (neither in compact mode), then "key":
// when inside an object
static void begin_member(cliJson* w, const char* key) {
    if (w->depth > 0) {
        if (w->depth <= CLI_JSON_MAX_DEPTH) {
            if (w->count[w->depth - 1] > 0) {
                fputc(',', w->out);
            }
            w->count[w->depth - 1]++;
        }
        if (!w->compact) {
            fputc('\n', w->out);
            for (int i = 0; i < w->depth; i++) {
                fputs("  ", w->out);
            }
        }
    }
    if (key) {
        write_string_literal(w, key, strlen(key));
        fputs(w->compact ? ":" : ": ", w->out);
    }
}


// open a container; depth beyond the limit still nests correctly, only commas are tracked
static void open_container(cliJson* w, const char* key, char bracket) {
    begin_member(w, key);
    fputc(bracket, w->out);
    if (w->depth < CLI_JSON_MAX_DEPTH) {
        w->count[w->depth] = 0;
    }
    w->depth++;
}


static void close_container(cliJson* w, char bracket) {
    w->depth--;
    if (!w->compact && w->depth < CLI_JSON_MAX_DEPTH && w->count[w->depth] > 0) {
        fputc('\n', w->out);
        for (int i = 0; i < w->depth; i++) {
            fputs("  ", w->out);
        }
    }
    fputc(bracket, w->out);
    if (w->depth == 0 && !w->compact) {
        fputc('\n', w->out);
    }
}


void cli_json_init(cliJson* w, FILE* out) {
    memset(w, 0, sizeof(*w));
    w->out = out;
}


void cli_json_init_script(cliJson* w, FILE* out) {
    cli_json_init(w, out);
    w->compact = 1;
    w->script_safe = 1;
}


void cli_json_begin_object(cliJson* w, const char* key) {
    open_container(w, key, '{');
}


void cli_json_end_object(cliJson* w) {
    close_container(w, '}');
}


void cli_json_begin_array(cliJson* w, const char* key) {
    open_container(w, key, '[');
}


void cli_json_end_array(cliJson* w) {
    close_container(w, ']');
}


void cli_json_double(cliJson* w, const char* key, double value) {
    begin_member(w, key);
    cli_write_double(w->out, value);
}


void cli_json_int(cliJson* w, const char* key, long value) {
    begin_member(w, key);
    fprintf(w->out, "%ld", value);
}


void cli_json_string(cliJson* w, const char* key, const char* value) {
    begin_member(w, key);
    if (value) {
        write_string_literal(w, value, strlen(value));
    } else {
        fputs("null", w->out);
    }
}


void cli_json_null(cliJson* w, const char* key) {
    begin_member(w, key);
    fputs("null", w->out);
}


void cli_json_numbers(cliJson* w, const char* key, const double* x, size_t n) {
    begin_member(w, key);
    fputc('[', w->out);
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            fputs(w->compact ? "," : ", ", w->out);
        }
        cli_write_double(w->out, x[i]);
    }
    fputc(']', w->out);
}


void cli_json_ints(cliJson* w, const char* key, const int* x, size_t n) {
    begin_member(w, key);
    fputc('[', w->out);
    for (size_t i = 0; i < n; i++) {
        fprintf(w->out, i > 0 ? (w->compact ? ",%d" : ", %d") : "%d", x[i]);
    }
    fputc(']', w->out);
}


void cli_json_matrix(cliJson* w, const char* key, const double* x, int rows, int cols) {
    cli_json_begin_array(w, key);
    for (int r = 0; r < rows; r++) {
        cli_json_numbers(w, NULL, x + (size_t)r * (size_t)cols, (size_t)cols);
    }
    cli_json_end_array(w);
}


void cli_json_lines(cliJson* w, const char* key, const char* text) {
    cli_json_begin_array(w, key);
    const char* line = text ? text : "";
    while (*line) {
        const char* end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0) {
            begin_member(w, NULL);
            write_string_literal(w, line, len);
        }
        line += len;
        if (*line == '\n') {
            line++;
        }
    }
    cli_json_end_array(w);
}
