// SPDX-License-Identifier: Apache-2.0
// Running the gradyn program from a test: scratch files, captured stdout/stderr, exit code.
#include "runner/cli_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>


// mkdir -p dir, remembering the last directory made; 0 on success
static int ensure_dir(const char* dir) {
    static char made[512] = "";
    if (strcmp(made, dir) == 0) {
        return 0;
    }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
    if (system(cmd) != 0) {
        return -1;
    }
    snprintf(made, sizeof(made), "%s", dir);
    return 0;
}


// whole file as a NUL-terminated heap string, growing the buffer by doubling
char* gdn_cli_slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    size_t cap = 1 << 16, len = 0;
    char* text = malloc(cap);
    if (!text) {
        abort();
    }
    while (f) {
        len += fread(text + len, 1, cap - len - 1, f);
        if (len + 1 < cap) {
            break;
        }
        cap *= 2;
        text = realloc(text, cap);
        if (!text) {
            abort();
        }
    }
    text[len] = '\0';
    if (f) {
        fclose(f);
    }
    return text;
}


// dir/name <- text
const char* gdn_cli_tmp_file(const char* dir, const char* name, const char* text) {
    static char paths[8][512];
    static int next = 0;
    char* path = paths[next++ % 8];
    if (ensure_dir(dir) != 0) {
        return "";
    }
    snprintf(path, 512, "%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}


// status of system() -> exit code, 128 + signal, or -1
int gdn_cli_run(const char* cli, const char* dir, const char* args, char** out, char** err) {
    if (ensure_dir(dir) != 0) {
        return -1;
    }
    size_t size = strlen(cli) + strlen(args) + 2 * strlen(dir) + 64;
    char* cmd = malloc(size);
    if (!cmd) {
        abort();
    }
    snprintf(cmd, size, "'%s' %s >'%s/out.txt' 2>'%s/err.txt'", cli, args, dir, dir);
    int status = system(cmd);
    free(cmd);

    char path[600];
    free(*out);
    free(*err);
    snprintf(path, sizeof(path), "%s/out.txt", dir);
    *out = gdn_cli_slurp(path);
    snprintf(path, sizeof(path), "%s/err.txt", dir);
    *err = gdn_cli_slurp(path);
    if (status == -1) {
        return -1;
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

// the arguments with the path quoted
int gdn_cli_run_on(const char* cli, const char* dir, const char* command, const char* path,
                   char** out, char** err) {
    size_t size = strlen(command) + strlen(path) + 4;
    char* args = malloc(size);
    if (!args) {
        abort();
    }
    snprintf(args, size, "%s '%s'", command, path);
    int code = gdn_cli_run(cli, dir, args, out, err);
    free(args);
    return code;
}

void gdn_cli_shortest(double x, char* out, size_t size) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, x);
        if (strtod(out, NULL) == x) {
            return;
        }
    }
}
