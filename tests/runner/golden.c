// SPDX-License-Identifier: Apache-2.0
// Golden hash tables: every model's hashes against its committed row, and the table printed as C.
#include "runner/golden.h"

#include <stdio.h>
#include <string.h>

#include "runner/test.h"

static const char* const kPath[GDN_TEST_GOLDEN_MAX] = {
    "newton/pyramidal", "newton/elliptic", "cg/pyramidal", "cg/elliptic",
    "pgs/pyramidal",    "pgs/elliptic",    "derivatives"};

// model by model: the computed hashes against the row's, a line per mismatch
int gdn_test_golden_check(const gdnTestGolden* g) {
    int failures = 0;
    CHECK(g->nrow == g->nmodel);
    CHECK(g->nhash >= 6 && g->nhash <= GDN_TEST_GOLDEN_MAX);
    for (int i = 0; i < g->nmodel; i++) {
        uint64_t got[GDN_TEST_GOLDEN_MAX], want[GDN_TEST_GOLDEN_MAX];
        CHECK(g->compute(g->model[i], got) == 0);
        CHECK(strcmp(g->committed(i, want), g->model[i]) == 0);
        for (int j = 0; j < g->nhash; j++) {
            if (got[j] != want[j]) {
                fprintf(stderr, "%s %s: hash 0x%016llx, expected 0x%016llx\n", g->model[i],
                        kPath[j], (unsigned long long)got[j], (unsigned long long)want[j]);
                failures++;
            }
        }
    }
    printf("%d models x %s, %d hash mismatches\n", g->nmodel, g->what, failures);
    CHECK(failures == 0);
    return 0;
}

// `    {"model",\n     {h0, h1, h2,\n      h3, h4, h5}` then each further hash on its own line
int gdn_test_golden_print(const gdnTestGolden* g) {
    if (g->nhash < 6 || g->nhash > GDN_TEST_GOLDEN_MAX) {
        return 1;
    }
    for (int i = 0; i < g->nmodel; i++) {
        uint64_t hash[GDN_TEST_GOLDEN_MAX];
        if (g->compute(g->model[i], hash) != 0) {
            return 1;
        }
        printf("    {\"%s\",\n     {", g->model[i]);
        for (int j = 0; j < 6; j++) {
            printf("0x%016llxULL%s", (unsigned long long)hash[j],
                   j == 5 ? "}" : j == 2 ? ",\n      " : ", ");
        }
        for (int j = 6; j < g->nhash; j++) {
            printf(",\n     0x%016llxULL", (unsigned long long)hash[j]);
        }
        printf("},\n");
        fflush(stdout);
    }
    return 0;
}

// the table gdn_test_golden_main runs (one per process)
static const gdnTestGolden* g_golden;

static int golden_case(void) {
    return gdn_test_golden_check(g_golden);
}

// --print, or the one case through the runner
int gdn_test_golden_main(int argc, char** argv, const char* name, const gdnTestGolden* g) {
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        return gdn_test_golden_print(g);
    }
    g_golden = g;
    const gdnTestCase cases[] = {{name, golden_case}};
    return gdn_test_main(argc, argv, cases, 1);
}
