// SPDX-License-Identifier: Apache-2.0
// Golden hash tables: every model's hashes against its committed row, and the table printed as C.
#ifndef GDN_TEST_RUNNER_GOLDEN_H
#define GDN_TEST_RUNNER_GOLDEN_H

#include <stdint.h>

#define GDN_TEST_GOLDEN_MAX 7

// a golden table: per model nhash hashes (the six solver paths, Newton, CG, PGS x pyramidal,
// elliptic, then optionally "derivatives") computed by the test, and the committed rows
typedef struct gdnTestGolden {
    const char* const* model; // (nmodel) in table order
    int nmodel;
    int nrow;                 // rows in the committed table (must equal nmodel)
    int nhash;                // hashes per model, 6 or 7
    const char* what;         // the summary: "<nmodel> models x <what>, <n> hash mismatches"
    // model's hashes into hash (nhash); 0 on success
    int (*compute)(const char* model, uint64_t* hash);
    // committed row i's hashes into hash (nhash); returns its model name
    const char* (*committed)(int i, uint64_t* hash);
} gdnTestGolden;

// every model computed and compared with its committed row (a line on stderr per mismatch),
// the summary printed; a test function: 0 when every hash matches
int gdn_test_golden_check(const gdnTestGolden* g);

// print every model's row as C in the committed table's layout (`--print`); 0 on success
int gdn_test_golden_print(const gdnTestGolden* g);

// a golden test's main: `--print` prints the table, otherwise gdn_test_main with the one case
// `name` (gdn_test_golden_check of g); returns the process exit code
int gdn_test_golden_main(int argc, char** argv, const char* name, const gdnTestGolden* g);

#endif
