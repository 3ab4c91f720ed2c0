// SPDX-License-Identifier: Apache-2.0
// Spatial algebra in the world frame: 6-vectors [angular; linear], body inertias, articulated
// inertias. Every quantity is expressed in world axes about one reference point per tree.
#ifndef GDN_MATH_SPATIAL_H
#define GDN_MATH_SPATIAL_H

// Layouts
//   motion vector   m = [w (3); v (3)]   v: linear velocity of the body point at the reference
//   force vector    f = [n (3); f (3)]   n: torque about the reference point
//   body inertia    cinert (10) = [I_xx I_yy I_zz I_xy I_xz I_yz, h (3), mass], I about the
//                   reference point, h = mass * (com - reference) (MuJoCo's cinert)
//   articulated     ai (21) = [A (6, symmetric as I), B (9, row-major), C (6, symmetric)] with
//   inertia         the force of a motion m being [A w + B v; B' w + C v]

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

// r = a + s b (r may alias a)
static inline void gdn_addscl6(double r[6], const double a[6], const double b[6], double s) {
    for (int i = 0; i < 6; i++) {
        r[i] = a[i] + s * b[i];
    }
}

// motion axis of a rotation about `axis` through a point at offset = reference - point:
// [axis; axis x offset]
static inline void gdn_dof_rotation(double r[6], const double axis[3], const double offset[3]) {
    r[0] = axis[0];
    r[1] = axis[1];
    r[2] = axis[2];
    r[3] = axis[1] * offset[2] - axis[2] * offset[1];
    r[4] = axis[2] * offset[0] - axis[0] * offset[2];
    r[5] = axis[0] * offset[1] - axis[1] * offset[0];
}

// motion axis of a translation along `axis`: [0; axis]
static inline void gdn_dof_translation(double r[6], const double axis[3]) {
    r[0] = r[1] = r[2] = 0;
    r[3] = axis[0];
    r[4] = axis[1];
    r[5] = axis[2];
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

// articulated inertia of a rigid body: A = I, B = [h]x, C = mass * identity
static inline void gdn_ainert_from_cinert(double ai[21], const double c[10]) {
    for (int i = 0; i < 6; i++) {
        ai[i] = c[i];
    }
    ai[6] = 0;
    ai[7] = -c[8];
    ai[8] = c[7];
    ai[9] = c[8];
    ai[10] = 0;
    ai[11] = -c[6];
    ai[12] = -c[7];
    ai[13] = c[6];
    ai[14] = 0;
    ai[15] = ai[16] = ai[17] = c[9];
    ai[18] = ai[19] = ai[20] = 0;
}

// r = ai m:  [A w + B v; B' w + C v]
static inline void gdn_ainert_mul(double r[6], const double ai[21], const double m[6]) {
    const double* A = ai;
    const double* B = ai + 6;
    const double* C = ai + 15;
    double w0 = m[0], w1 = m[1], w2 = m[2], v0 = m[3], v1 = m[4], v2 = m[5];
    r[0] = A[0] * w0 + A[3] * w1 + A[4] * w2 + B[0] * v0 + B[1] * v1 + B[2] * v2;
    r[1] = A[3] * w0 + A[1] * w1 + A[5] * w2 + B[3] * v0 + B[4] * v1 + B[5] * v2;
    r[2] = A[4] * w0 + A[5] * w1 + A[2] * w2 + B[6] * v0 + B[7] * v1 + B[8] * v2;
    r[3] = B[0] * w0 + B[3] * w1 + B[6] * w2 + C[0] * v0 + C[3] * v1 + C[4] * v2;
    r[4] = B[1] * w0 + B[4] * w1 + B[7] * w2 + C[3] * v0 + C[1] * v1 + C[5] * v2;
    r[5] = B[2] * w0 + B[5] * w1 + B[8] * w2 + C[4] * v0 + C[5] * v1 + C[2] * v2;
}

// ai -= s u u' (u a force-like 6-vector; the symmetric rank-one downdate of ABA)
static inline void gdn_ainert_downdate(double ai[21], const double u[6], double s) {
    double su[6];
    for (int i = 0; i < 6; i++) {
        su[i] = s * u[i];
    }
    ai[0] -= su[0] * u[0];
    ai[1] -= su[1] * u[1];
    ai[2] -= su[2] * u[2];
    ai[3] -= su[0] * u[1];
    ai[4] -= su[0] * u[2];
    ai[5] -= su[1] * u[2];
    for (int i = 0; i < 3; i++) {
        ai[6 + 3 * i] -= su[i] * u[3];
        ai[7 + 3 * i] -= su[i] * u[4];
        ai[8 + 3 * i] -= su[i] * u[5];
    }
    ai[15] -= su[3] * u[3];
    ai[16] -= su[4] * u[4];
    ai[17] -= su[5] * u[5];
    ai[18] -= su[3] * u[4];
    ai[19] -= su[3] * u[5];
    ai[20] -= su[4] * u[5];
}

#endif
