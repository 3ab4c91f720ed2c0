// SPDX-License-Identifier: Apache-2.0
// Golden hash tables: one model's hashes against its committed row, and a row printed as C.
#include "runner/golden.h"

#include <stdio.h>

const char* const gdn_test_golden_path[7] = {"newton/pyramidal", "newton/elliptic",
                                             "cg/pyramidal",     "cg/elliptic",
                                             "pgs/pyramidal",    "pgs/elliptic",
                                             "derivatives"};

// compare entry by entry, a line per mismatch
int gdn_test_golden_mismatches(const char* model, const uint64_t* got, const uint64_t* want,
                               int n) {
    int failures = 0;
    for (int j = 0; j < n; j++) {
        if (got[j] != want[j]) {
            fprintf(stderr, "%s %s: hash 0x%016llx, expected 0x%016llx\n", model,
                    gdn_test_golden_path[j], (unsigned long long)got[j],
                    (unsigned long long)want[j]);
            failures++;
        }
    }
    return failures;
}

// three hashes a line, as the tables are laid out
void gdn_test_golden_print_row(const char* model, const uint64_t hash[6], const char* tail) {
    printf("    {\"%s\",\n     {", model);
    for (int j = 0; j < 6; j++) {
        printf("0x%016llxULL%s", (unsigned long long)hash[j],
               j == 5 ? "}" : j == 2 ? ",\n      " : ", ");
    }
    printf("%s", tail);
}
