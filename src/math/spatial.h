// SPDX-License-Identifier: Apache-2.0
// Spatial algebra in the world frame: 6-vectors [angular; linear], body inertias, articulated
// inertias. Every quantity is expressed in world axes about one reference point per tree.
#ifndef GDN_MATH_SPATIAL_H
#define GDN_MATH_SPATIAL_H

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

// Layouts
//   motion vector   m = [w (3); v (3)]   v: linear velocity of the body point at the reference
//   force vector    f = [n (3); f (3)]   n: torque about the reference point
//   body inertia    cinert (10) = [I_xx I_yy I_zz I_xy I_xz I_yz, h (3), mass], I about the
//                   reference point, h = mass * (com - reference) (MuJoCo's cinert)
//   articulated     ai (36): a symmetric 6x6 matrix mapping motion to force, stored in full
//   inertia         (column-major, which for a symmetric matrix is also row-major)

// r = v x m: motion cross motion (v = [w; u], m = [mw; mv])
static inline void gdn_cross_motion(double r[6], const double v[6], const double m[6]) {
    r[0] = v[1] * m[2] - v[2] * m[1];
    r[1] = v[2] * m[0] - v[0] * m[2];
    r[2] = v[0] * m[1] - v[1] * m[0];
    r[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1];
    r[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2];
    r[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0];
}

// r = v x* f: motion cross force (v = [w; u], f = [n; f])
static inline void gdn_cross_force(double r[6], const double v[6], const double f[6]) {
    r[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4];
    r[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5];
    r[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3];
    r[3] = v[1] * f[5] - v[2] * f[4];
    r[4] = v[2] * f[3] - v[0] * f[5];
    r[5] = v[0] * f[4] - v[1] * f[3];
}

static inline double gdn_dot6(const double a[6], const double b[6]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// r = a + s b (r may alias a or b); elementwise, so the SSE2 pairs give the scalar results
static inline void gdn_addscl6(double r[6], const double a[6], const double b[6], double s) {
#if defined(__SSE2__)
    __m128d vs = _mm_set1_pd(s);
    __m128d r0 = _mm_add_pd(_mm_loadu_pd(a), _mm_mul_pd(vs, _mm_loadu_pd(b)));
    __m128d r1 = _mm_add_pd(_mm_loadu_pd(a + 2), _mm_mul_pd(vs, _mm_loadu_pd(b + 2)));
    __m128d r2 = _mm_add_pd(_mm_loadu_pd(a + 4), _mm_mul_pd(vs, _mm_loadu_pd(b + 4)));
    _mm_storeu_pd(r, r0);
    _mm_storeu_pd(r + 2, r1);
    _mm_storeu_pd(r + 4, r2);
#else
    for (int i = 0; i < 6; i++) {
        r[i] = a[i] + s * b[i];
    }
#endif
}

// r = a + b (r may alias a or b)
static inline void gdn_add6(double r[6], const double a[6], const double b[6]) {
#if defined(__SSE2__)
    __m128d r0 = _mm_add_pd(_mm_loadu_pd(a), _mm_loadu_pd(b));
    __m128d r1 = _mm_add_pd(_mm_loadu_pd(a + 2), _mm_loadu_pd(b + 2));
    __m128d r2 = _mm_add_pd(_mm_loadu_pd(a + 4), _mm_loadu_pd(b + 4));
    _mm_storeu_pd(r, r0);
    _mm_storeu_pd(r + 2, r1);
    _mm_storeu_pd(r + 4, r2);
#else
    for (int i = 0; i < 6; i++) {
        r[i] = a[i] + b[i];
    }
#endif
}

// r = a s (r may alias a)
static inline void gdn_scl6(double r[6], const double a[6], double s) {
#if defined(__SSE2__)
    __m128d vs = _mm_set1_pd(s);
    __m128d r0 = _mm_mul_pd(_mm_loadu_pd(a), vs);
    __m128d r1 = _mm_mul_pd(_mm_loadu_pd(a + 2), vs);
    __m128d r2 = _mm_mul_pd(_mm_loadu_pd(a + 4), vs);
    _mm_storeu_pd(r, r0);
    _mm_storeu_pd(r + 2, r1);
    _mm_storeu_pd(r + 4, r2);
#else
    for (int i = 0; i < 6; i++) {
        r[i] = a[i] * s;
    }
#endif
}

// cinert of a body: principal moments `inertia` in the frame with rotation R (local to world),
// COM at offset = com - reference, mass:  I = R diag(inertia) R' - mass [offset]x [offset]x
static inline void gdn_cinert(double r[10], const double inertia[3], const double R[9],
                              const double offset[3], double mass) {
    // T = diag(inertia) R'
    double t0 = R[0] * inertia[0], t1 = R[3] * inertia[0], t2 = R[6] * inertia[0];
    double t3 = R[1] * inertia[1], t4 = R[4] * inertia[1], t5 = R[7] * inertia[1];
    double t6 = R[2] * inertia[2], t7 = R[5] * inertia[2], t8 = R[8] * inertia[2];
    double x = offset[0], y = offset[1], z = offset[2];
    r[0] = R[0] * t0 + R[1] * t3 + R[2] * t6 + mass * (y * y + z * z);
    r[1] = R[3] * t1 + R[4] * t4 + R[5] * t7 + mass * (x * x + z * z);
    r[2] = R[6] * t2 + R[7] * t5 + R[8] * t8 + mass * (x * x + y * y);
    r[3] = R[0] * t1 + R[1] * t4 + R[2] * t7 - mass * x * y;
    r[4] = R[0] * t2 + R[1] * t5 + R[2] * t8 - mass * x * z;
    r[5] = R[3] * t2 + R[4] * t5 + R[5] * t8 - mass * y * z;
    r[6] = mass * x;
    r[7] = mass * y;
    r[8] = mass * z;
    r[9] = mass;
}

// r = cinert m:  [I w + h x v; m v - h x w]
static inline void gdn_cinert_mul(double r[6], const double c[10], const double m[6]) {
    r[0] = c[0] * m[0] + c[3] * m[1] + c[4] * m[2] + c[7] * m[5] - c[8] * m[4];
    r[1] = c[3] * m[0] + c[1] * m[1] + c[5] * m[2] + c[8] * m[3] - c[6] * m[5];
    r[2] = c[4] * m[0] + c[5] * m[1] + c[2] * m[2] + c[6] * m[4] - c[7] * m[3];
    r[3] = c[9] * m[3] + c[8] * m[1] - c[7] * m[2];
    r[4] = c[9] * m[4] + c[6] * m[2] - c[8] * m[0];
    r[5] = c[9] * m[5] + c[7] * m[0] - c[6] * m[1];
}

// articulated inertia of a rigid body: [I, [h]x; -[h]x, mass * identity] (h x v = [h]x v)
static inline void gdn_ainert_from_cinert(double* restrict ai, const double* restrict c) {
    const double m = c[9], hx = c[6], hy = c[7], hz = c[8];
    // columns 0-2: [I; -[h]x] (column j of -[h]x is e_j x h)
    ai[0] = c[0], ai[1] = c[3], ai[2] = c[4], ai[3] = 0, ai[4] = -hz, ai[5] = hy;
    ai[6] = c[3], ai[7] = c[1], ai[8] = c[5], ai[9] = hz, ai[10] = 0, ai[11] = -hx;
    ai[12] = c[4], ai[13] = c[5], ai[14] = c[2], ai[15] = -hy, ai[16] = hx, ai[17] = 0;
    // columns 3-5: [[h]x; mass * identity]
    ai[18] = 0, ai[19] = hz, ai[20] = -hy, ai[21] = m, ai[22] = 0, ai[23] = 0;
    ai[24] = -hz, ai[25] = 0, ai[26] = hx, ai[27] = 0, ai[28] = m, ai[29] = 0;
    ai[30] = hy, ai[31] = -hx, ai[32] = 0, ai[33] = 0, ai[34] = 0, ai[35] = m;
}

// The three kernels of ABA's backward pass work on pairs of doubles: SSE2 (part of the x86-64
// baseline) when available, plain loops otherwise. Both give identical results: every lane
// does the same multiply and add in the same order.

#if defined(__SSE2__)
// (r0, r1, r2) += col * mj: one column of a 6x6 times a scalar, in three pairs
static inline void ainert_madd_col(__m128d* r0, __m128d* r1, __m128d* r2, const double* col,
                                   double mj) {
    __m128d s = _mm_set1_pd(mj);
    *r0 = _mm_add_pd(*r0, _mm_mul_pd(_mm_loadu_pd(col), s));
    *r1 = _mm_add_pd(*r1, _mm_mul_pd(_mm_loadu_pd(col + 2), s));
    *r2 = _mm_add_pd(*r2, _mm_mul_pd(_mm_loadu_pd(col + 4), s));
}

// col -= suj u (u in three pairs)
static inline void ainert_downdate_col(double* col, __m128d u0, __m128d u1, __m128d u2,
                                       double suj) {
    __m128d s = _mm_set1_pd(suj);
    _mm_storeu_pd(col, _mm_sub_pd(_mm_loadu_pd(col), _mm_mul_pd(s, u0)));
    _mm_storeu_pd(col + 2, _mm_sub_pd(_mm_loadu_pd(col + 2), _mm_mul_pd(s, u1)));
    _mm_storeu_pd(col + 4, _mm_sub_pd(_mm_loadu_pd(col + 4), _mm_mul_pd(s, u2)));
}

// parent_col += child_col
static inline void ainert_add_col(double* restrict parent, const double* restrict child) {
    _mm_storeu_pd(parent, _mm_add_pd(_mm_loadu_pd(parent), _mm_loadu_pd(child)));
    _mm_storeu_pd(parent + 2, _mm_add_pd(_mm_loadu_pd(parent + 2), _mm_loadu_pd(child + 2)));
    _mm_storeu_pd(parent + 4, _mm_add_pd(_mm_loadu_pd(parent + 4), _mm_loadu_pd(child + 4)));
}
#endif

// r = ai m, as a sum of columns: r = sum_j ai[:, j] m_j (columns added in order 0..5)
static inline void gdn_ainert_mul(double* restrict r, const double* restrict ai,
                                  const double* restrict m) {
#if defined(__SSE2__)
    __m128d s = _mm_set1_pd(m[0]);
    __m128d r0 = _mm_mul_pd(_mm_loadu_pd(ai), s);
    __m128d r1 = _mm_mul_pd(_mm_loadu_pd(ai + 2), s);
    __m128d r2 = _mm_mul_pd(_mm_loadu_pd(ai + 4), s);
    ainert_madd_col(&r0, &r1, &r2, ai + 6, m[1]);
    ainert_madd_col(&r0, &r1, &r2, ai + 12, m[2]);
    ainert_madd_col(&r0, &r1, &r2, ai + 18, m[3]);
    ainert_madd_col(&r0, &r1, &r2, ai + 24, m[4]);
    ainert_madd_col(&r0, &r1, &r2, ai + 30, m[5]);
    _mm_storeu_pd(r, r0);
    _mm_storeu_pd(r + 2, r1);
    _mm_storeu_pd(r + 4, r2);
#else
    double acc[6];
    for (int i = 0; i < 6; i++) {
        acc[i] = ai[i] * m[0];
    }
    for (int j = 1; j < 6; j++) {
        for (int i = 0; i < 6; i++) {
            acc[i] += ai[6 * j + i] * m[j];
        }
    }
    for (int i = 0; i < 6; i++) {
        r[i] = acc[i];
    }
#endif
}

// ai -= s u u' (u a force-like 6-vector; the symmetric rank-one downdate of ABA):
// ai[i][j] -= (s u_j) u_i
static inline void gdn_ainert_downdate(double* restrict ai, const double* restrict u, double s) {
#if defined(__SSE2__)
    __m128d u0 = _mm_loadu_pd(u), u1 = _mm_loadu_pd(u + 2), u2 = _mm_loadu_pd(u + 4);
    ainert_downdate_col(ai, u0, u1, u2, s * u[0]);
    ainert_downdate_col(ai + 6, u0, u1, u2, s * u[1]);
    ainert_downdate_col(ai + 12, u0, u1, u2, s * u[2]);
    ainert_downdate_col(ai + 18, u0, u1, u2, s * u[3]);
    ainert_downdate_col(ai + 24, u0, u1, u2, s * u[4]);
    ainert_downdate_col(ai + 30, u0, u1, u2, s * u[5]);
#else
    for (int j = 0; j < 6; j++) {
        double suj = s * u[j];
        for (int i = 0; i < 6; i++) {
            ai[6 * j + i] -= suj * u[i];
        }
    }
#endif
}

#if defined(__SSE2__)
// one column of gdn_ainert_downdate_fold: col -= suj u, parent_col += col, r += col mj
static inline void ainert_fold_col(double* restrict parent, const double* restrict col,
                                   __m128d u0, __m128d u1, __m128d u2, double suj,
                                   __m128d* r0, __m128d* r1, __m128d* r2, double mj,
                                   int first) {
    __m128d s = _mm_set1_pd(suj), t = _mm_set1_pd(mj);
    __m128d c0 = _mm_sub_pd(_mm_loadu_pd(col), _mm_mul_pd(s, u0));
    __m128d c1 = _mm_sub_pd(_mm_loadu_pd(col + 2), _mm_mul_pd(s, u1));
    __m128d c2 = _mm_sub_pd(_mm_loadu_pd(col + 4), _mm_mul_pd(s, u2));
    _mm_storeu_pd(parent, _mm_add_pd(_mm_loadu_pd(parent), c0));
    _mm_storeu_pd(parent + 2, _mm_add_pd(_mm_loadu_pd(parent + 2), c1));
    _mm_storeu_pd(parent + 4, _mm_add_pd(_mm_loadu_pd(parent + 4), c2));
    if (first) {
        *r0 = _mm_mul_pd(c0, t);
        *r1 = _mm_mul_pd(c1, t);
        *r2 = _mm_mul_pd(c2, t);
    } else {
        *r0 = _mm_add_pd(*r0, _mm_mul_pd(c0, t));
        *r1 = _mm_add_pd(*r1, _mm_mul_pd(c1, t));
        *r2 = _mm_add_pd(*r2, _mm_mul_pd(c2, t));
    }
}
#endif

// the last elimination of a body folded into its parent, in one sweep over the columns:
//   ai' = ai - s u u',  r = ai' m,  parent += ai'
// (the same operations, in the same order, as gdn_ainert_downdate, gdn_ainert_mul and
// gdn_ainert_add in turn; ai itself is left unchanged)
static inline void gdn_ainert_downdate_fold(double* restrict parent, double* restrict r,
                                            const double* restrict ai,
                                            const double* restrict u, double s,
                                            const double* restrict m) {
#if defined(__SSE2__)
    __m128d u0 = _mm_loadu_pd(u), u1 = _mm_loadu_pd(u + 2), u2 = _mm_loadu_pd(u + 4);
    __m128d r0, r1, r2;
    ainert_fold_col(parent, ai, u0, u1, u2, s * u[0], &r0, &r1, &r2, m[0], 1);
    ainert_fold_col(parent + 6, ai + 6, u0, u1, u2, s * u[1], &r0, &r1, &r2, m[1], 0);
    ainert_fold_col(parent + 12, ai + 12, u0, u1, u2, s * u[2], &r0, &r1, &r2, m[2], 0);
    ainert_fold_col(parent + 18, ai + 18, u0, u1, u2, s * u[3], &r0, &r1, &r2, m[3], 0);
    ainert_fold_col(parent + 24, ai + 24, u0, u1, u2, s * u[4], &r0, &r1, &r2, m[4], 0);
    ainert_fold_col(parent + 30, ai + 30, u0, u1, u2, s * u[5], &r0, &r1, &r2, m[5], 0);
    _mm_storeu_pd(r, r0);
    _mm_storeu_pd(r + 2, r1);
    _mm_storeu_pd(r + 4, r2);
#else
    double acc[6];
    for (int j = 0; j < 6; j++) {
        double suj = s * u[j];
        for (int i = 0; i < 6; i++) {
            double a = ai[6 * j + i] - suj * u[i];
            parent[6 * j + i] += a;
            acc[i] = j == 0 ? a * m[0] : acc[i] + a * m[j];
        }
    }
    for (int i = 0; i < 6; i++) {
        r[i] = acc[i];
    }
#endif
}

// parent += child (two articulated inertias)
static inline void gdn_ainert_add(double* restrict parent, const double* restrict child) {
#if defined(__SSE2__)
    ainert_add_col(parent, child);
    ainert_add_col(parent + 6, child + 6);
    ainert_add_col(parent + 12, child + 12);
    ainert_add_col(parent + 18, child + 18);
    ainert_add_col(parent + 24, child + 24);
    ainert_add_col(parent + 30, child + 30);
#else
    for (int i = 0; i < 36; i++) {
        parent[i] += child[i];
    }
#endif
}

#endif
