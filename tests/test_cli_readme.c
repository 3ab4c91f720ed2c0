// SPDX-License-Identifier: Apache-2.0
// The README's command-line examples run as written: every "gradyn ..." line of the sh block
// under "## Command line" runs in a scratch directory that sees the repository's files, with
// the built gradyn first on PATH, and exits 0 (a redirected output file is not empty).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "runner/cli_run.h"
#include "runner/test.h"

#define TMP_DIR GDN_BINARY_DIR "/test_cli_readme_tmp"

// the directory of the built program
static void cli_dir(char* out, size_t size) {
    snprintf(out, size, "%s", GDN_CLI_PATH);
    char* slash = strrchr(out, '/');
    if (slash) {
        *slash = '\0';
    }
}


// the lines of the first ```sh block after "## Command line" that start with "gradyn "
static int readme_lines(char lines[][1024], int max) {
    char* readme = gdn_cli_slurp(GDN_SOURCE_DIR "/README.md");
    const char* section = strstr(readme, "\n## Command line\n");
    const char* block = section ? strstr(section, "```sh\n") : NULL;
    const char* end = block ? strstr(block + 6, "```") : NULL;
    int n = 0;
    for (const char* s = block ? block + 6 : NULL; s && s < end && n < max;) {
        const char* eol = strchr(s, '\n');
        size_t len = (size_t)(eol - s);
        if (strncmp(s, "gradyn ", 7) == 0 && len < 1024) {
            memcpy(lines[n], s, len);
            lines[n][len] = '\0';
            n++;
        }
        s = eol + 1;
    }
    free(readme);
    return n;
}


static int test_readme_examples(void) {
    char lines[32][1024];
    int n = readme_lines(lines, 32);
    CHECK(n >= 8);

    // the scratch directory: the repository's folders the examples name, linked
    char dir[1024], command[8192];
    cli_dir(dir, sizeof(dir));
    snprintf(command, sizeof(command), "rm -rf '%s' && mkdir -p '%s' && for f in tests examples "
             "docs cli; do ln -s '%s/'$f '%s/'$f; done", TMP_DIR, TMP_DIR, GDN_SOURCE_DIR,
             TMP_DIR);
    CHECK(system(command) == 0);

    int failures = 0;
    for (int i = 0; i < n; i++) {
        // the line exactly as written, gradyn from PATH, its output in a log
        char quoted[2048];
        size_t q = 0;
        for (const char* s = lines[i]; *s && q + 5 < sizeof(quoted); s++) {
            if (*s == '\'') {
                memcpy(quoted + q, "'\\''", 4);
                q += 4;
            } else {
                quoted[q++] = *s;
            }
        }
        quoted[q] = '\0';
        snprintf(command, sizeof(command), "cd '%s' && PATH='%s':\"$PATH\" sh -c '%s' "
                 "> '%s/line%d.out' 2> '%s/line%d.err'", TMP_DIR, dir, quoted, TMP_DIR, i,
                 TMP_DIR, i);
        int status = system(command);
        int code = status == -1 ? -1 : WEXITSTATUS(status);
        if (code != 0) {
            char path[1200];
            snprintf(path, sizeof(path), "%s/line%d.err", TMP_DIR, i);
            char* err = gdn_cli_slurp(path);
            fprintf(stderr, "README line exits %d: %s\n%s", code, lines[i], err);
            free(err);
            failures++;
            continue;
        }

        // a redirected output is not empty
        const char* redirect = strchr(lines[i], '>');
        if (redirect) {
            char file[256] = "", path[1400];
            sscanf(redirect + 1, " %255s", file);
            snprintf(path, sizeof(path), "%s/%s", TMP_DIR, file);
            char* text = gdn_cli_slurp(path);
            if (strlen(text) < 100) {
                fprintf(stderr, "README line wrote no output to %s: %s\n", file, lines[i]);
                failures++;
            }
            free(text);
        }
        printf("  ran: %s\n", lines[i]);
    }
    CHECK(failures == 0);

    // the state files the examples use are shipped
    char* text = gdn_cli_slurp(GDN_SOURCE_DIR "/examples/states/arm7.json");
    CHECK(strstr(text, "\"qpos\"") != NULL);
    free(text);
    text = gdn_cli_slurp(GDN_SOURCE_DIR "/examples/states/humanoid_fallen.json");
    CHECK(strstr(text, "\"qvel\"") != NULL);
    free(text);
    return 0;
}


static const gdnTestCase cases[] = {
    {"readme_examples", test_readme_examples},
};
GDN_TEST_MAIN(cases)
