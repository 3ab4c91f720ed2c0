// SPDX-License-Identifier: Apache-2.0
// Small fixed-size math: 3-vectors, 3x3 row-major matrices, unit quaternions (w, x, y, z).
// Quaternion products are Hamilton products; R(q) maps local to parent coordinates.
#ifndef GDN_MATH_VEC_H
#define GDN_MATH_VEC_H

#include <math.h>

// MuJoCo's mjMINVAL: the smallest value in any denominator, pivot or norm (the one definition)
#define GDN_MINVAL 1e-15

// clang-format off
static inline void gdn_zero3(double r[3]) { r[0] = r[1] = r[2] = 0; }
static inline void gdn_copy3(double r[3], const double a[3]) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
static inline void gdn_copy4(double r[4], const double a[4]) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; r[3] = a[3]; }
static inline void gdn_add3(double r[3], const double a[3], const double b[3]) { r[0] = a[0]+b[0]; r[1] = a[1]+b[1]; r[2] = a[2]+b[2]; }
static inline void gdn_sub3(double r[3], const double a[3], const double b[3]) { r[0] = a[0]-b[0]; r[1] = a[1]-b[1]; r[2] = a[2]-b[2]; }
static inline void gdn_scl3(double r[3], const double a[3], double s) { r[0] = a[0]*s; r[1] = a[1]*s; r[2] = a[2]*s; }
static inline void gdn_addscl3(double r[3], const double a[3], const double b[3], double s) { r[0] = a[0]+b[0]*s; r[1] = a[1]+b[1]*s; r[2] = a[2]+b[2]*s; }
static inline double gdn_dot3(const double a[3], const double b[3]) { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2]; }
static inline double gdn_norm3(const double a[3]) { return sqrt(gdn_dot3(a, a)); }
static inline int gdn_is_zero3(const double a[3]) { return a[0] == 0 && a[1] == 0 && a[2] == 0; }
static inline int gdn_is_identity_quat(const double q[4]) { return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0; }
// clang-format on

// r = a x b (r may not alias a or b)
static inline void gdn_cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

// normalize in place, return the original norm; a near-zero vector becomes (1, 0, 0)
static inline double gdn_normalize3(double a[3]) {
    double n = gdn_norm3(a);
    if (n < GDN_MINVAL) {
        a[0] = 1;
        a[1] = a[2] = 0;
    } else {
        double s = 1 / n;
        a[0] *= s;
        a[1] *= s;
        a[2] *= s;
    }
    return n;
}

// normalize a quaternion in place, return the original norm; near-zero becomes identity
static inline double gdn_normalize4(double q[4]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n < GDN_MINVAL) {
        q[0] = 1;
        q[1] = q[2] = q[3] = 0;
    } else {
        double s = 1 / n;
        q[0] *= s;
        q[1] *= s;
        q[2] *= s;
        q[3] *= s;
    }
    return n;
}

// r = M a (M 3x3 row-major)
static inline void gdn_mulmat3(double r[3], const double M[9], const double a[3]) {
    double x = a[0], y = a[1], z = a[2];
    r[0] = M[0] * x + M[1] * y + M[2] * z;
    r[1] = M[3] * x + M[4] * y + M[5] * z;
    r[2] = M[6] * x + M[7] * y + M[8] * z;
}

// r = M' a
static inline void gdn_mulmat3T(double r[3], const double M[9], const double a[3]) {
    double x = a[0], y = a[1], z = a[2];
    r[0] = M[0] * x + M[3] * y + M[6] * z;
    r[1] = M[1] * x + M[4] * y + M[7] * z;
    r[2] = M[2] * x + M[5] * y + M[8] * z;
}

// R = A B (R may not alias)
static inline void gdn_mulmatmat3(double R[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            R[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
        }
    }
}

// r = q1 q2 (Hamilton product; r may alias)
static inline void gdn_mulquat(double r[4], const double a[4], const double b[4]) {
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w;
    r[1] = x;
    r[2] = y;
    r[3] = z;
}

// r = conj(q)
static inline void gdn_negquat(double r[4], const double q[4]) {
    r[0] = q[0];
    r[1] = -q[1];
    r[2] = -q[2];
    r[3] = -q[3];
}

// rotation matrix of a unit quaternion
static inline void gdn_quat2mat(double R[9], const double q[4]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double ww = w * w, xx = x * x, yy = y * y, zz = z * z;
    double wx = w * x, wy = w * y, wz = w * z, xy = x * y, xz = x * z, yz = y * z;
    R[0] = ww + xx - yy - zz;
    R[4] = ww - xx + yy - zz;
    R[8] = ww - xx - yy + zz;
    R[1] = 2 * (xy - wz);
    R[2] = 2 * (xz + wy);
    R[3] = 2 * (xy + wz);
    R[5] = 2 * (yz - wx);
    R[6] = 2 * (xz - wy);
    R[7] = 2 * (yz + wx);
}

// r = R(q) a
static inline void gdn_rotvecquat(double r[3], const double a[3], const double q[4]) {
    double R[9];
    gdn_quat2mat(R, q);
    gdn_mulmat3(r, R, a);
}

// quaternion of a rotation by angle about a unit axis
static inline void gdn_axisangle2quat(double q[4], const double axis[3], double angle) {
    if (angle == 0) {
        q[0] = 1;
        q[1] = q[2] = q[3] = 0;
        return;
    }
    double s = sin(angle * 0.5);
    q[0] = cos(angle * 0.5);
    q[1] = axis[0] * s;
    q[2] = axis[1] * s;
    q[3] = axis[2] * s;
}

// q <- normalize(q * exp(scale * omega)) where omega is a local angular velocity
// (the order of MuJoCo 2.2.2's mju_quatIntegrate: multiply, then normalize)
static inline void gdn_quat_integrate(double q[4], const double omega[3], double scale) {
    double axis[3], dq[4];
    gdn_copy3(axis, omega);
    double angle = scale * gdn_normalize3(axis);
    gdn_axisangle2quat(dq, axis, angle);
    gdn_mulquat(q, q, dq);
    gdn_normalize4(q);
}

// omega such that q2 = q1 * exp(omega) (angle in (-pi, pi])
static inline void gdn_quat_sub(double omega[3], const double q2[4], const double q1[4]) {
    double c[4], dq[4];
    gdn_negquat(c, q1);
    gdn_mulquat(dq, c, q2);
    if (dq[0] < 0) {
        dq[0] = -dq[0];
        dq[1] = -dq[1];
        dq[2] = -dq[2];
        dq[3] = -dq[3];
    }
    double s = sqrt(dq[1] * dq[1] + dq[2] * dq[2] + dq[3] * dq[3]);
    if (s < GDN_MINVAL) {
        omega[0] = 2 * dq[1];
        omega[1] = 2 * dq[2];
        omega[2] = 2 * dq[3];
        return;
    }
    double angle = 2 * atan2(s, dq[0]);
    omega[0] = dq[1] / s * angle;
    omega[1] = dq[2] / s * angle;
    omega[2] = dq[3] / s * angle;
}

#endif
