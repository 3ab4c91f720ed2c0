// SPDX-License-Identifier: Apache-2.0
// Inline math on vectors of any length n (SSE2 pairs where it helps; each lane the scalar op) and
// the finiteness test of an array.
#ifndef GDN_MATH_VECN_H
#define GDN_MATH_VECN_H

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

// 1 when every entry of x (n) is finite: x - x is 0 for a finite x and NaN for an infinite or
// NaN one, so one branch serves the whole array
static inline int gdn_all_finite(const double* x, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += x[i] - x[i];
    }
    return sum == 0;
}

// y = s x (n entries; y may alias x): each entry the scalar product s * x_c
static inline void gdn_scl_n(double* y, const double* x, double s, int n) {
    int c = 0;
#if defined(__SSE2__)
    __m128d s2 = _mm_set1_pd(s);
    for (; c + 2 <= n; c += 2) {
        _mm_storeu_pd(y + c, _mm_mul_pd(s2, _mm_loadu_pd(x + c)));
    }
#endif
    for (; c < n; c++) {
        y[c] = s * x[c];
    }
}

#endif
