// SPDX-License-Identifier: Apache-2.0
// Tiny in-house test runner: checks with tolerances, a test table, "N passed, N failed".
#ifndef GDN_TEST_H
#define GDN_TEST_H

#include <math.h>
#include <stdio.h>

typedef int gdnTestFn(void);
typedef struct gdnTestCase {
    const char* name;
    gdnTestFn* fn;
} gdnTestCase;

// fail the current test unless cond holds
#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

// fail unless |a - b| <= atol + rtol * max(|a|, |b|) (NaN always fails)
#define CHECK_NEAR(a, b, rtol, atol)                                                      \
    do {                                                                                  \
        double a_ = (a), b_ = (b);                                                        \
        if (!(fabs(a_ - b_) <= (atol) + (rtol) * fmax(fabs(a_), fabs(b_)))) {             \
            fprintf(stderr, "%s:%d: %s = %.17g, %s = %.17g (diff %.3g)\n", __FILE__,      \
                    __LINE__, #a, a_, #b, b_, fabs(a_ - b_));                             \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

// fail unless the relative error ||a - b||_inf / max(||b||_inf, floor) <= tol; prints the
// first worst index
#define CHECK_ARRAY_REL(a, b, n, tol, floor_)                                             \
    do {                                                                                  \
        double err_ = gdn_test_relerr((a), (b), (n), (floor_));                           \
        if (!(err_ <= (tol))) {                                                           \
            fprintf(stderr, "%s:%d: %s vs %s: relative error %.3g > %.3g\n", __FILE__,   \
                    __LINE__, #a, #b, err_, (double)(tol));                               \
            gdn_test_print_worst((a), (b), (n));                                          \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

// ||a - b||_inf / max(||b||_inf, floor); NaN anywhere gives +inf
double gdn_test_relerr(const double* a, const double* b, int n, double floor_);

// print the index with the largest |a - b|
void gdn_test_print_worst(const double* a, const double* b, int n);

// run every case whose name contains argv[1] (all when absent); print "ok"/"FAIL" per case and
// "N passed, N failed"; return the process exit code
int gdn_test_main(int argc, char** argv, const gdnTestCase* cases, int ncases);

// 64-bit FNV-1a over n bytes, continuing from h (start from GDN_TEST_FNV_OFFSET): the golden
// hashes of bit-for-bit results
#define GDN_TEST_FNV_OFFSET 0xcbf29ce484222325ULL
unsigned long long gdn_test_fnv1a(unsigned long long h, const void* data, size_t n);

// deterministic pseudo-random numbers (xorshift64*), uniform in [lo, hi)
double gdn_test_uniform(unsigned long long* state, double lo, double hi);

#define GDN_TEST_MAIN(cases)                                                  \
    int main(int argc, char** argv) {                                         \
        return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0]))); \
    }

#endif
