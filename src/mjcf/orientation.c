// SPDX-License-Identifier: Apache-2.0
// Orientation forms (quat, axisangle, xyaxes, zaxis, euler, fullinertia) to quaternions, and the
// Jacobi eigen-solver for inertia tensors, in MuJoCo 2.2.2's operation order.
#include "mjcf/orientation.h"

#include <math.h>

#include "math/vec.h"

double gdn_mj_normvec(double* v, int n) {
    double nrm = 0;
    for (int i = 0; i < n; i++) {
        nrm += v[i] * v[i];
    }
    if (nrm < GDN_MJ_EPS) {
        return 0;
    }
    nrm = sqrt(nrm);
    for (int i = 0; i < n; i++) {
        v[i] /= nrm;
    }
    return nrm;
}

// the engine's product (gdn_mulquat), then normalized
void gdn_mj_mulquat(double res[4], const double a[4], const double b[4]) {
    gdn_mulquat(res, a, b);
    gdn_mj_normvec(res, 4);
}

// quaternion from a rotation matrix given by columns c[0..2]: branch on the largest of
// w, x, y, z (Shepperd's method), then normalize
void gdn_mj_frame2quat(double q[4], const double x[3], const double y[3], const double z[3]) {
    const double* c[3] = {x, y, z}; // c[col][row]
    if (c[0][0] + c[1][1] + c[2][2] > 0) {
        q[0] = 0.5 * sqrt(1 + c[0][0] + c[1][1] + c[2][2]);
        q[1] = 0.25 * (c[1][2] - c[2][1]) / q[0];
        q[2] = 0.25 * (c[2][0] - c[0][2]) / q[0];
        q[3] = 0.25 * (c[0][1] - c[1][0]) / q[0];
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        q[1] = 0.5 * sqrt(1 + c[0][0] - c[1][1] - c[2][2]);
        q[0] = 0.25 * (c[1][2] - c[2][1]) / q[1];
        q[2] = 0.25 * (c[1][0] + c[0][1]) / q[1];
        q[3] = 0.25 * (c[2][0] + c[0][2]) / q[1];
    } else if (c[1][1] > c[2][2]) {
        q[2] = 0.5 * sqrt(1 - c[0][0] + c[1][1] - c[2][2]);
        q[0] = 0.25 * (c[2][0] - c[0][2]) / q[2];
        q[1] = 0.25 * (c[1][0] + c[0][1]) / q[2];
        q[3] = 0.25 * (c[2][1] + c[1][2]) / q[2];
    } else {
        q[3] = 0.5 * sqrt(1 - c[0][0] - c[1][1] + c[2][2]);
        q[0] = 0.25 * (c[0][1] - c[1][0]) / q[3];
        q[1] = 0.25 * (c[2][0] + c[0][2]) / q[3];
        q[2] = 0.25 * (c[2][1] + c[1][2]) / q[3];
    }
    gdn_mj_normvec(q, 4);
}

// axis = z x v normalized (x axis when parallel), angle = atan2(|z x v|, v_z)
void gdn_mj_z2quat(double q[4], const double v[3]) {
    q[1] = -v[1]; // (0,0,1) x v = (-v_y, v_x, 0)
    q[2] = v[0];
    q[3] = 0;
    double s = gdn_mj_normvec(q + 1, 3);
    if (s < 1e-10) {
        q[1] = 1;
        q[2] = q[3] = 0;
    }
    double angle = atan2(s, v[2]);
    q[0] = cos(angle / 2);
    q[1] *= sin(angle / 2);
    q[2] *= sin(angle / 2);
    q[3] *= sin(angle / 2);
}

void gdn_alt_clear(gdnSpecAlt* alt) {
    alt->axisangle[0] = NAN;
    alt->xyaxes[0] = NAN;
    alt->zaxis[0] = NAN;
    alt->euler[0] = NAN;
    alt->fullinertia[0] = NAN;
}

const char* gdn_mj_alt_set(gdnSpecAlt* alt, double quat[4], double inertia[3], int degree,
                           const char* eulerseq) {
    // axisangle: q = (cos(a/2), sin(a/2) axis)
    if (!isnan(alt->axisangle[0])) {
        double* aa = alt->axisangle;
        if (degree) {
            aa[3] = aa[3] / 180.0 * GDN_MJ_PI;
        }
        if (gdn_mj_normvec(aa, 3) < GDN_MJ_EPS) {
            return "axisangle too small";
        }
        double half = aa[3] / 2;
        quat[0] = cos(half);
        quat[1] = sin(half) * aa[0];
        quat[2] = sin(half) * aa[1];
        quat[3] = sin(half) * aa[2];
    }

    // xyaxes: Gram-Schmidt on x, y; z = x cross y
    if (!isnan(alt->xyaxes[0])) {
        double* x = alt->xyaxes;
        double* y = alt->xyaxes + 3;
        if (gdn_mj_normvec(x, 3) < GDN_MJ_EPS) {
            return "xaxis too small";
        }
        double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        y[0] -= x[0] * d;
        y[1] -= x[1] * d;
        y[2] -= x[2] * d;
        if (gdn_mj_normvec(y, 3) < GDN_MJ_EPS) {
            return "yaxis too small";
        }
        double z[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                       x[0] * y[1] - x[1] * y[0]};
        if (gdn_mj_normvec(z, 3) < GDN_MJ_EPS) {
            return "cross(xaxis, yaxis) too small";
        }
        gdn_mj_frame2quat(quat, x, y, z);
    }

    // zaxis: minimal rotation from (0, 0, 1)
    if (!isnan(alt->zaxis[0])) {
        if (gdn_mj_normvec(alt->zaxis, 3) < GDN_MJ_EPS) {
            return "zaxis too small";
        }
        gdn_mj_z2quat(quat, alt->zaxis);
    }

    // fullinertia [ixx iyy izz ixy ixz iyz]: principal axes and moments
    if (!isnan(alt->fullinertia[0])) {
        const double* f = alt->fullinertia;
        double full[9] = {f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
        double eigval[3], q[4];
        gdn_mj_eig3(eigval, q, full);
        for (int i = 0; i < 4; i++) {
            quat[i] = q[i];
        }
        if (inertia) {
            for (int i = 0; i < 3; i++) {
                inertia[i] = eigval[i];
            }
        }
        if (eigval[2] < GDN_MJ_EPS) {
            return "inertia must have positive eigenvalues";
        }
    }

    // euler: lower-case axes rotate with the frame (post-multiply), upper-case are fixed
    if (!isnan(alt->euler[0])) {
        double* e = alt->euler;
        if (degree) {
            for (int i = 0; i < 3; i++) {
                e[i] = e[i] / 180.0 * GDN_MJ_PI;
            }
        }
        quat[0] = 1;
        quat[1] = quat[2] = quat[3] = 0;
        for (int i = 0; i < 3; i++) {
            double rot[4] = {cos(e[i] / 2), 0, 0, 0}, tmp[4];
            double sa = sin(e[i] / 2);
            char axis = eulerseq[i];
            if (axis == 'x' || axis == 'X') {
                rot[1] = sa;
            } else if (axis == 'y' || axis == 'Y') {
                rot[2] = sa;
            } else if (axis == 'z' || axis == 'Z') {
                rot[3] = sa;
            } else {
                return "euler sequence can only contain x, y, z, X, Y, Z";
            }
            if (axis == 'x' || axis == 'y' || axis == 'z') {
                gdn_mj_mulquat(tmp, quat, rot);
            } else {
                gdn_mj_mulquat(tmp, rot, quat);
            }
            for (int k = 0; k < 4; k++) {
                quat[k] = tmp[k];
            }
        }
        gdn_mj_normvec(quat, 4);
    }
    return NULL;
}

void gdn_mj_eig3(double eigval[3], double quat[4], const double mat[9]) {
    const double eig_eps = 1e-12;
    double R[9], tmp[9], D[9], rot[4], prod[4];
    quat[0] = 1;
    quat[1] = quat[2] = quat[3] = 0;

    // Jacobi sweeps: D = R' mat R with R = R(quat); rotate away the largest off-diagonal
    for (int iter = 0; iter < 500; iter++) {
        gdn_quat2mat(R, quat);
        for (int i = 0; i < 3; i++) {
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (int k = 0; k < 3; k++) {
                    s += R[3 * k + i] * mat[3 * k + c];
                }
                tmp[3 * i + c] = s;
            }
        }
        for (int i = 0; i < 3; i++) {
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (int k = 0; k < 3; k++) {
                    s += tmp[3 * i + k] * R[3 * k + c];
                }
                D[3 * i + c] = s;
            }
        }
        eigval[0] = D[0];
        eigval[1] = D[4];
        eigval[2] = D[8];

        // largest off-diagonal (row rk, column ck) and the axis rotk of the plane rotation
        int rk, ck, rotk;
        if (fabs(D[1]) > fabs(D[2]) && fabs(D[1]) > fabs(D[5])) {
            rk = 0;
            ck = 1;
            rotk = 2;
        } else if (fabs(D[2]) > fabs(D[5])) {
            rk = 0;
            ck = 2;
            rotk = 1;
        } else {
            rk = 1;
            ck = 2;
            rotk = 0;
        }
        if (fabs(D[3 * rk + ck]) < eig_eps) {
            break;
        }

        // 2x2 symmetric Schur: tan of the rotation angle t, cosine c
        double tau = (D[4 * ck] - D[4 * rk]) / (2 * D[3 * rk + ck]);
        double t;
        if (tau >= 0) {
            t = 1.0 / (tau + sqrt(1 + tau * tau));
        } else {
            t = -1.0 / (-tau + sqrt(1 + tau * tau));
        }
        double c = 1.0 / sqrt(1 + t * t);
        if (c > 1.0 - eig_eps) {
            break;
        }

        // the rotation as a quaternion about axis rotk, accumulated on the right
        rot[1] = rot[2] = rot[3] = 0;
        rot[rotk + 1] = tau >= 0 ? -sqrt(0.5 - 0.5 * c) : sqrt(0.5 - 0.5 * c);
        if (rotk == 1) {
            rot[rotk + 1] = -rot[rotk + 1];
        }
        rot[0] = sqrt(1.0 - rot[rotk + 1] * rot[rotk + 1]);
        gdn_normalize4(rot);
        gdn_mulquat(prod, quat, rot);
        for (int k = 0; k < 4; k++) {
            quat[k] = prod[k];
        }
        gdn_normalize4(quat);
    }

    // sort decreasing (bubble sort on pairs 0, 1, 0), rotating the frame by 90 degrees per swap
    for (int j = 0; j < 3; j++) {
        int j1 = j % 2;
        if (eigval[j1] < eigval[j1 + 1]) {
            double t = eigval[j1];
            eigval[j1] = eigval[j1 + 1];
            eigval[j1 + 1] = t;
            rot[0] = 0.707106781186548;
            rot[1] = rot[2] = rot[3] = 0;
            rot[(j1 + 2) % 3 + 1] = rot[0];
            gdn_mulquat(prod, quat, rot);
            for (int k = 0; k < 4; k++) {
                quat[k] = prod[k];
            }
            gdn_normalize4(quat);
        }
    }
}

void gdn_mj_globalinertia(double global[6], const double local[3], const double quat[4]) {
    double m[9];
    gdn_quat2mat(m, quat);
    double t[9] = {m[0] * local[0], m[3] * local[0], m[6] * local[0],
                   m[1] * local[1], m[4] * local[1], m[7] * local[1],
                   m[2] * local[2], m[5] * local[2], m[8] * local[2]};
    global[0] = m[0] * t[0] + m[1] * t[3] + m[2] * t[6];
    global[1] = m[3] * t[1] + m[4] * t[4] + m[5] * t[7];
    global[2] = m[6] * t[2] + m[7] * t[5] + m[8] * t[8];
    global[3] = m[0] * t[1] + m[1] * t[4] + m[2] * t[7];
    global[4] = m[0] * t[2] + m[1] * t[5] + m[2] * t[8];
    global[5] = m[3] * t[2] + m[4] * t[5] + m[5] * t[8];
}

void gdn_mj_offcenter(double res[6], double mass, const double d[3]) {
    res[0] = mass * (d[1] * d[1] + d[2] * d[2]);
    res[1] = mass * (d[0] * d[0] + d[2] * d[2]);
    res[2] = mass * (d[0] * d[0] + d[1] * d[1]);
    res[3] = -mass * d[0] * d[1];
    res[4] = -mass * d[0] * d[2];
    res[5] = -mass * d[1] * d[2];
}
