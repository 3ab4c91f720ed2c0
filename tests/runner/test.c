// SPDX-License-Identifier: Apache-2.0
// Tiny in-house test runner: the implementation behind tests/runner/test.h.
#include "runner/test.h"

#include <string.h>

double gdn_test_relerr(const double* a, const double* b, int n, double floor_) {
    double diff = 0, scale = floor_;
    for (int i = 0; i < n; i++) {
        double e = fabs(a[i] - b[i]);
        if (!(e == e)) {
            return INFINITY;
        }
        diff = fmax(diff, e);
        scale = fmax(scale, fabs(b[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

void gdn_test_print_worst(const double* a, const double* b, int n) {
    int worst = 0;
    double we = -1;
    for (int i = 0; i < n; i++) {
        double e = fabs(a[i] - b[i]);
        if (!(e <= we)) {
            we = e;
            worst = i;
        }
    }
    if (n > 0) {
        fprintf(stderr, "  worst index %d: %.17g vs %.17g\n", worst, a[worst], b[worst]);
    }
}

int gdn_test_main(int argc, char** argv, const gdnTestCase* cases, int ncases) {
    const char* filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    for (int i = 0; i < ncases; i++) {
        if (filter && !strstr(cases[i].name, filter)) {
            continue;
        }
        int rc = cases[i].fn();
        printf("%s %s\n", rc == 0 ? "ok  " : "FAIL", cases[i].name);
        fflush(stdout);
        if (rc == 0) {
            passed++;
        } else {
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

double gdn_test_uniform(unsigned long long* state, double lo, double hi) {
    unsigned long long x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    unsigned long long r = x * 2685821657736338717ULL;
    return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

unsigned long long gdn_test_fnv1a(unsigned long long h, const void* data, size_t n) {
    const unsigned char* p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
