// SPDX-License-Identifier: Apache-2.0
// Golden hash tables: one model's hashes against its committed row, and a row printed as C.
#ifndef GDN_TEST_RUNNER_GOLDEN_H
#define GDN_TEST_RUNNER_GOLDEN_H

#include <stdint.h>

// the solver paths' names in table order (Newton, CG, PGS x pyramidal, elliptic), then
// "derivatives"
extern const char* const gdn_test_golden_path[7];

// the number of j < n with got[j] != want[j], each printed on stderr with the model and
// gdn_test_golden_path[j]
int gdn_test_golden_mismatches(const char* model, const uint64_t* got, const uint64_t* want,
                               int n);

// print `    {"model",\n     {h0, h1, h2,\n      h3, h4, h5}` then tail (the table's layout)
void gdn_test_golden_print_row(const char* model, const uint64_t hash[6], const char* tail);

#endif
