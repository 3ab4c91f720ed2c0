// SPDX-License-Identifier: Apache-2.0
// Internal: the rotation helpers of Kamino (A' B, the log map, matrix to quaternion).
#ifndef GDN_KAMINO_ROT_H
#define GDN_KAMINO_ROT_H

#include <math.h>

// R = A' B (3x3 row-major)
static inline void gdn_kamino_mulTmat(double R[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            R[3 * i + k] = A[i] * B[k] + A[3 + i] * B[3 + k] + A[6 + i] * B[6 + k];
        }
    }
}

// unit quaternion (w >= 0) of a rotation matrix (Shepperd's method)
static inline void gdn_kamino_mat2quat(double q[4], const double R[9]) {
    double tr = R[0] + R[4] + R[8];
    if (tr >= R[0] && tr >= R[4] && tr >= R[8]) {
        double s = 2 * sqrt(1 + tr);
        q[0] = 0.25 * s;
        q[1] = (R[7] - R[5]) / s;
        q[2] = (R[2] - R[6]) / s;
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (R[1] + R[3]) / s;
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] >= R[8]) {
        double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s;
        q[1] = (R[1] + R[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s;
        q[1] = (R[2] + R[6]) / s;
        q[2] = (R[5] + R[7]) / s;
        q[3] = 0.25 * s;
    }
    if (q[0] < 0) {
        q[0] = -q[0];
        q[1] = -q[1];
        q[2] = -q[2];
        q[3] = -q[3];
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) {
        q[i] /= n;
    }
}

// rotation vector of a unit quaternion with w >= 0 (angle in [0, pi])
static inline void gdn_kamino_logquat(double e[3], const double q[4]) {
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double f = s < 1e-12 ? 2 / q[0] : 2 * atan2(s, q[0]) / s;
    e[0] = f * q[1];
    e[1] = f * q[2];
    e[2] = f * q[3];
}

// rotation vector of a rotation matrix
static inline void gdn_kamino_logmat(double e[3], const double R[9]) {
    double q[4];
    gdn_kamino_mat2quat(q, R);
    gdn_kamino_logquat(e, q);
}

#endif
