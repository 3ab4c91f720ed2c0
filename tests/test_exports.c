// SPDX-License-Identifier: Apache-2.0
// The shared library exports exactly the GDN_API functions of include/gradyn/*.h, all gdn_*.
#define _POSIX_C_SOURCE 200809L // popen, pclose
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/test.h"

#define MAX_NAMES 1024
#define MAX_NAME 128

// a set of names (small: linear search)
typedef struct Names {
    char name[MAX_NAMES][MAX_NAME];
    int n;
} Names;

static int names_find(const Names* s, const char* name) {
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->name[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

// add name unless present; -1 when the set is full or the name too long
static int names_add(Names* s, const char* name, size_t len) {
    if (len == 0 || len >= MAX_NAME || s->n == MAX_NAMES) {
        return -1;
    }
    char buf[MAX_NAME];
    memcpy(buf, name, len);
    buf[len] = '\0';
    if (names_find(s, buf) < 0) {
        memcpy(s->name[s->n++], buf, len + 1);
    }
    return 0;
}

static int is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

// every "GDN_API <type> name(" declaration of one header: the identifier right before the
// first '(' after GDN_API (declarations may span lines); the macro's own definition is skipped
static int parse_header(const char* path, Names* api) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    for (const char* p = strstr(text, "GDN_API"); p; p = strstr(p + 7, "GDN_API")) {
        if ((p > text && is_ident(p[-1])) || is_ident(p[7])) {
            continue;
        }
        // skip "#define GDN_API ..." and comments mentioning the macro
        const char* line = p;
        while (line > text && line[-1] != '\n') {
            line--;
        }
        while (*line == ' ') {
            line++;
        }
        if (line != p) {
            continue;
        }
        const char* paren = strchr(p, '(');
        const char* semi = strchr(p, ';');
        if (!paren || (semi && semi < paren)) {
            fprintf(stderr, "%s: GDN_API without a function declaration\n", path);
            return -1;
        }
        const char* end = paren;
        while (end > p && end[-1] == ' ') {
            end--;
        }
        const char* start = end;
        while (start > p && is_ident(start[-1])) {
            start--;
        }
        if (names_add(api, start, (size_t)(end - start)) != 0) {
            return -1;
        }
    }
    return 0;
}

// the defined dynamic symbols of the shared library (nm -D --defined-only)
static int exported_symbols(const char* lib, Names* out) {
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib);
    FILE* p = popen(cmd, "r");
    if (!p) {
        return -1;
    }
    char line[1024];
    while (fgets(line, sizeof(line), p)) {
        // "<address> <type> <name>"
        char addr[64], type[8], name[MAX_NAME];
        if (sscanf(line, "%63s %7s %127s", addr, type, name) != 3) {
            continue;
        }
        char* at = strchr(name, '@'); // versioned names
        if (at) {
            *at = '\0';
        }
        if (names_add(out, name, strlen(name)) != 0) {
            pclose(p);
            return -1;
        }
    }
    return pclose(p) == 0 ? 0 : -1;
}

// exported == declared, and every exported name is gdn_*
static int test_exports_match_api(void) {
    static Names api, exported;
    api.n = exported.n = 0;
    const char* dir_path = GDN_SOURCE_DIR "/include/gradyn";
    DIR* dir = opendir(dir_path);
    CHECK(dir != NULL);
    int headers = 0;
    for (struct dirent* e = readdir(dir); e; e = readdir(dir)) {
        size_t n = strlen(e->d_name);
        if (n < 2 || strcmp(e->d_name + n - 2, ".h") != 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
        CHECK(parse_header(path, &api) == 0);
        headers++;
    }
    closedir(dir);
    CHECK(headers >= 1);
    CHECK(exported_symbols(GDN_SHARED_LIB_PATH, &exported) == 0);
    printf("  %d GDN_API declarations in %d headers, %d symbols exported by %s\n", api.n,
           headers, exported.n, GDN_SHARED_LIB_PATH);
    int bad = 0;
    for (int i = 0; i < exported.n; i++) {
        if (strncmp(exported.name[i], "gdn_", 4) != 0) {
            fprintf(stderr, "  exported without the gdn_ prefix: %s\n", exported.name[i]);
            bad++;
        }
        if (names_find(&api, exported.name[i]) < 0) {
            fprintf(stderr, "  exported but not declared GDN_API: %s\n", exported.name[i]);
            bad++;
        }
    }
    for (int i = 0; i < api.n; i++) {
        if (names_find(&exported, api.name[i]) < 0) {
            fprintf(stderr, "  declared GDN_API but not exported: %s\n", api.name[i]);
            bad++;
        }
    }
    CHECK(bad == 0);
    CHECK(exported.n == api.n);
    return 0;
}

static const gdnTestCase cases[] = {
    {"exports_match_api", test_exports_match_api},
};

GDN_TEST_MAIN(cases)
