// SPDX-License-Identifier: Apache-2.0
// Hyper-dual numbers x = a + b e1 + c e2 + d e1 e2 (e1^2 = e2^2 = 0): one evaluation of a smooth
// f gives f, its two directional derivatives and the mixed second derivative exactly,
//   f(x + u e1 + v e2) = f + f'u e1 + f'v e2 + (f''[u, v]) e1 e2  (no step, no truncation).
#ifndef GDN_MATH_HYPERDUAL_H
#define GDN_MATH_HYPERDUAL_H

#include <math.h>

typedef struct gdnHd {
    double a, b, c, d; // value, e1, e2, e1 e2 parts
} gdnHd;

static inline gdnHd gdn_hd(double a) { return (gdnHd){a, 0, 0, 0}; }
static inline gdnHd gdn_hd_add(gdnHd x, gdnHd y) {
    return (gdnHd){x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d};
}
static inline gdnHd gdn_hd_sub(gdnHd x, gdnHd y) {
    return (gdnHd){x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d};
}
static inline gdnHd gdn_hd_scl(gdnHd x, double s) {
    return (gdnHd){x.a * s, x.b * s, x.c * s, x.d * s};
}
// (x y): the e1 e2 part collects both cross terms
static inline gdnHd gdn_hd_mul(gdnHd x, gdnHd y) {
    return (gdnHd){x.a * y.a, x.a * y.b + x.b * y.a, x.a * y.c + x.c * y.a,
                   x.a * y.d + x.b * y.c + x.c * y.b + x.d * y.a};
}
// g(x) for a scalar g with g(a) = g0, g'(a) = g1, g''(a) = g2
static inline gdnHd gdn_hd_apply(gdnHd x, double g0, double g1, double g2) {
    return (gdnHd){g0, g1 * x.b, g1 * x.c, g1 * x.d + g2 * x.b * x.c};
}
// x / y (y.a != 0), from z y = x part by part (its value the double quotient x.a / y.a)
static inline gdnHd gdn_hd_div(gdnHd x, gdnHd y) {
    const double a = x.a / y.a;
    const double b = (x.b - a * y.b) / y.a;
    const double c = (x.c - a * y.c) / y.a;
    return (gdnHd){a, b, c, (x.d - b * y.c - c * y.b - a * y.d) / y.a};
}
// sqrt(x), x.a > 0 (0 at x.a <= 0: the derivatives do not exist there)
static inline gdnHd gdn_hd_sqrt(gdnHd x) {
    if (!(x.a > 0)) {
        return gdn_hd(0);
    }
    const double s = sqrt(x.a);
    return gdn_hd_apply(x, s, 0.5 / s, -0.25 / (s * x.a));
}
// max(x, lo) for a constant lo, on the value's branch
static inline gdnHd gdn_hd_fmax(gdnHd x, double lo) { return x.a > lo ? x : gdn_hd(lo); }
// 3-vectors
static inline void gdn_hd_cross3(gdnHd r[3], const gdnHd a[3], const gdnHd b[3]) {
    const gdnHd r0 = gdn_hd_sub(gdn_hd_mul(a[1], b[2]), gdn_hd_mul(a[2], b[1]));
    const gdnHd r1 = gdn_hd_sub(gdn_hd_mul(a[2], b[0]), gdn_hd_mul(a[0], b[2]));
    const gdnHd r2 = gdn_hd_sub(gdn_hd_mul(a[0], b[1]), gdn_hd_mul(a[1], b[0]));
    r[0] = r0;
    r[1] = r1;
    r[2] = r2;
}
static inline gdnHd gdn_hd_dot3(const gdnHd a[3], const gdnHd b[3]) {
    return gdn_hd_add(gdn_hd_add(gdn_hd_mul(a[0], b[0]), gdn_hd_mul(a[1], b[1])),
                      gdn_hd_mul(a[2], b[2]));
}
// r = M a, r = M' a (M 3 x 3 row-major)
static inline void gdn_hd_mulmat3(gdnHd r[3], const gdnHd M[9], const gdnHd a[3]) {
    for (int i = 0; i < 3; i++) {
        r[i] = gdn_hd_add(gdn_hd_add(gdn_hd_mul(M[3 * i], a[0]), gdn_hd_mul(M[3 * i + 1], a[1])),
                          gdn_hd_mul(M[3 * i + 2], a[2]));
    }
}
static inline void gdn_hd_mulmat3T(gdnHd r[3], const gdnHd M[9], const gdnHd a[3]) {
    for (int i = 0; i < 3; i++) {
        r[i] = gdn_hd_add(gdn_hd_add(gdn_hd_mul(M[i], a[0]), gdn_hd_mul(M[3 + i], a[1])),
                          gdn_hd_mul(M[6 + i], a[2]));
    }
}

#endif
