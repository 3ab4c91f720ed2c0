// SPDX-License-Identifier: Apache-2.0
// Kamino joint recovery: the MJCF joint coordinates qpos and velocities qvel of every body's
// joints from the body poses and twists, hinge angles unwrapped by 2 pi against the last qpos.
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "kamino/rot.h"
#include "math/vec.h"

#define TWO_PI 6.28318530717958647692

// angle nearest to prev among theta + 2 pi k
static double unwrap(double theta, double prev) {
    return theta + TWO_PI * nearbyint((prev - theta) / TWO_PI);
}

// the angle of a rotation about unit axis k (rotation vector e parallel to k)
static double angle_about(const double R[9], const double k[3]) {
    double q[4];
    gdn_kamino_mat2quat(q, R);
    double s = q[1] * k[0] + q[2] * k[1] + q[3] * k[2];
    return 2 * atan2(s, q[0]);
}

// quaternion of R with the sign nearest to prev
static void quat_cont(double q[4], const double R[9], const double* prev) {
    gdn_kamino_mat2quat(q, R);
    if (q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0) {
        for (int i = 0; i < 4; i++) {
            q[i] = -q[i];
        }
    }
}

// velocity of the world point p moving with body b (0 for static)
static void point_vel(const gdnKaminoModel* km, const gdnKWorld* w, int b, const double p[3],
                      double v[3]) {
    if (!km->moving[b]) {
        gdn_zero3(v);
        return;
    }
    const double* u = w->pub.body_u + 6 * b;
    double arm[3], c[3];
    gdn_sub3(arm, p, w->pub.body_pos + 3 * b);
    gdn_cross3(c, u + 3, arm);
    gdn_add3(v, u, c);
}

static void ang_vel(const gdnKaminoModel* km, const gdnKWorld* w, int b, double v[3]) {
    if (!km->moving[b]) {
        gdn_zero3(v);
    } else {
        gdn_copy3(v, w->pub.body_u + 6 * b + 3);
    }
}

// x = M^-1 b for a 3x3 row-major M (Cramer's rule); 0 when singular
static int solve3(double x[3], const double M[9], const double b[3]) {
    double c0[3] = {M[0], M[3], M[6]}, c1[3] = {M[1], M[4], M[7]}, c2[3] = {M[2], M[5], M[8]};
    double t[3];
    gdn_cross3(t, c1, c2);
    double det = gdn_dot3(c0, t);
    if (!(fabs(det) > 1e-300)) {
        return 0;
    }
    x[0] = gdn_dot3(b, t) / det;
    gdn_cross3(t, c2, c0);
    x[1] = gdn_dot3(b, t) / det;
    gdn_cross3(t, c0, c1);
    x[2] = gdn_dot3(b, t) / det;
    return 1;
}

// gimbal: Rrel = R(k1, q1) R(k2, q2) R(k3, q3) by Newton's method from the last angles (the
// branch nearest to them); qd from w_rel = P (k1 qd1 + R1 k2 qd2 + R1 R2 k3 qd3)
static void recover_gimbal(const gdnModel* m, int j0, const double P[9], const double Rrel[9],
                           const double wrel[3], double* qpos, double* qvel) {
    double k[3][3], q[3];
    for (int i = 0; i < 3; i++) {
        gdn_copy3(k[i], m->jnt_axis + 3 * (j0 + i));
        gdn_normalize3(k[i]);
        int a = m->jnt_qposadr[j0 + i];
        q[i] = qpos[a] - m->qpos0[a];
    }
    double Ri[3][9];
    for (int it = 0; it < 30; it++) {
        double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, T[9], quat[4];
        for (int i = 0; i < 3; i++) {
            gdn_axisangle2quat(quat, k[i], q[i]);
            gdn_quat2mat(Ri[i], quat);
            gdn_mulmatmat3(T, R, Ri[i]);
            memcpy(R, T, sizeof(T));
        }
        double E[9], e[3];
        gdn_kamino_mulTmat(E, R, Rrel);
        gdn_kamino_logmat(e, E);
        if (gdn_norm3(e) < 1e-15) {
            break;
        }
        // b_i: axis i in the final frame
        double B[9], b2[3], b1[3], t[3];
        gdn_copy3(b2, k[2]);
        gdn_mulmat3T(b1, Ri[2], k[1]);
        gdn_mulmat3T(t, Ri[1], k[0]);
        double b0[3];
        gdn_mulmat3T(b0, Ri[2], t);
        for (int r = 0; r < 3; r++) {
            B[3 * r + 0] = b0[r];
            B[3 * r + 1] = b1[r];
            B[3 * r + 2] = b2[r];
        }
        double dq[3];
        if (!solve3(dq, B, e)) {
            break;
        }
        for (int i = 0; i < 3; i++) {
            q[i] += dq[i];
        }
    }
    // rates: world axes a_i
    double quat[4], R1[9], R12[9], A[9], a0[3], a1[3], a2[3], t[3];
    gdn_axisangle2quat(quat, k[0], q[0]);
    gdn_quat2mat(R1, quat);
    gdn_axisangle2quat(quat, k[1], q[1]);
    gdn_quat2mat(A, quat);
    gdn_mulmatmat3(R12, R1, A);
    gdn_mulmat3(a0, P, k[0]);
    gdn_mulmat3(t, R1, k[1]);
    gdn_mulmat3(a1, P, t);
    gdn_mulmat3(t, R12, k[2]);
    gdn_mulmat3(a2, P, t);
    for (int r = 0; r < 3; r++) {
        A[3 * r + 0] = a0[r];
        A[3 * r + 1] = a1[r];
        A[3 * r + 2] = a2[r];
    }
    double qd[3] = {0, 0, 0};
    solve3(qd, A, wrel);
    for (int i = 0; i < 3; i++) {
        int a = m->jnt_qposadr[j0 + i];
        qpos[a] = m->qpos0[a] + q[i];
        qvel[m->jnt_dofadr[j0 + i]] = qd[i];
    }
}

void gdn_kamino_recover_joints(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    double* qpos = w->pub.qpos;
    double* qvel = w->pub.qvel;
    for (int ji = 0; ji < km->njoint; ji++) {
        const gdnKJoint* j = km->joint + ji;
        if (j->jnt0 < 0 || j->njnt == 0) {
            continue;
        }
        int F = j->body, B = j->base;
        const double* RF = w->xmat + 9 * F;
        const double* RB = w->xmat + 9 * B;
        double P[9], Rrel[9], wF[3], wB[3], wrel[3];
        gdn_mulmatmat3(P, RB, j->R0); // base frame of the joint coordinates
        gdn_kamino_mulTmat(Rrel, P, RF);
        ang_vel(km, w, F, wF);
        ang_vel(km, w, B, wB);
        gdn_sub3(wrel, wF, wB);
        // origin of F relative to where it sits at zero joint values, in the frame P
        double o0[3], dl[3], dw[3], vF[3], vB[3], dv[3], dvl[3];
        gdn_mulmat3(o0, RB, j->p0);
        gdn_add3(o0, o0, w->xpos + 3 * B);
        gdn_sub3(dw, w->xpos + 3 * F, o0);
        gdn_mulmat3T(dl, P, dw);
        point_vel(km, w, F, w->xpos + 3 * F, vF);
        point_vel(km, w, B, w->xpos + 3 * F, vB);
        gdn_sub3(dv, vF, vB);
        gdn_mulmat3T(dvl, P, dv);
        int j0 = j->jnt0, qa = m->jnt_qposadr[j0], va = m->jnt_dofadr[j0];
        switch (j->type) {
        case GDN_KAMINO_FREE: {
            gdn_copy3(qpos + qa, w->xpos + 3 * F);
            quat_cont(qpos + qa + 3, RF, qpos + qa + 3);
            point_vel(km, w, F, w->xpos + 3 * F, qvel + va);
            gdn_mulmat3T(qvel + va + 3, RF, wF);
            break;
        }
        case GDN_KAMINO_SPHERICAL:
            quat_cont(qpos + qa, Rrel, qpos + qa);
            gdn_mulmat3T(qvel + va, RF, wrel);
            break;
        case GDN_KAMINO_REVOLUTE:
        case GDN_KAMINO_PRISMATIC:
        case GDN_KAMINO_CYLINDRICAL: {
            double k[3];
            gdn_copy3(k, m->jnt_axis + 3 * j0);
            gdn_normalize3(k);
            double kw[3];
            gdn_mulmat3(kw, P, k);
            for (int t = 0; t < j->njnt; t++) {
                int jn = j0 + t, a = m->jnt_qposadr[jn], v = m->jnt_dofadr[jn];
                if (m->jnt_type[jn] == GDN_JNT_HINGE) {
                    double th = angle_about(Rrel, k);
                    qpos[a] = m->qpos0[a] + unwrap(th, qpos[a] - m->qpos0[a]);
                    qvel[v] = gdn_dot3(kw, wrel);
                } else {
                    // the anchor's displacement along the axis (the anchor sits on the axis line)
                    double pa[3], pz[3], d[3], va3[3], vb3[3];
                    gdn_mulmat3(pa, RF, j->anchor);
                    gdn_add3(pa, pa, w->xpos + 3 * F);
                    gdn_mulmat3(pz, j->R0, j->anchor);
                    gdn_add3(pz, pz, j->p0);
                    gdn_mulmat3(d, RB, pz);
                    gdn_add3(pz, d, w->xpos + 3 * B);
                    gdn_sub3(d, pa, pz);
                    qpos[a] = m->qpos0[a] + gdn_dot3(kw, d);
                    point_vel(km, w, F, pa, va3);
                    point_vel(km, w, B, pa, vb3);
                    gdn_sub3(d, va3, vb3);
                    qvel[v] = gdn_dot3(kw, d);
                }
            }
            break;
        }
        case GDN_KAMINO_UNIVERSAL: {
            double k1[3], k2[3], v[3], a[3], b[3], c[3];
            gdn_copy3(k1, m->jnt_axis + 3 * j0);
            gdn_normalize3(k1);
            gdn_copy3(k2, j->axis2);
            gdn_mulmat3(v, Rrel, k2);
            gdn_addscl3(a, k2, k1, -gdn_dot3(k1, k2));
            gdn_addscl3(b, v, k1, -gdn_dot3(k1, v));
            gdn_cross3(c, a, b);
            double q1 = atan2(gdn_dot3(k1, c), gdn_dot3(a, b));
            double r1[4], r1m[9], R2[9];
            gdn_axisangle2quat(r1, k1, q1);
            gdn_quat2mat(r1m, r1);
            gdn_kamino_mulTmat(R2, r1m, Rrel);
            double q2 = angle_about(R2, k2);
            int a1 = qa, a2 = m->jnt_qposadr[j0 + 1];
            qpos[a1] = m->qpos0[a1] + unwrap(q1, qpos[a1] - m->qpos0[a1]);
            qpos[a2] = m->qpos0[a2] + unwrap(q2, qpos[a2] - m->qpos0[a2]);
            // w_rel = k1w qd1 + k2w qd2 (least squares)
            double k1w[3], k2w[3];
            gdn_mulmat3(k1w, P, k1);
            gdn_mulmat3(k2w, RF, k2);
            double g11 = gdn_dot3(k1w, k1w), g12 = gdn_dot3(k1w, k2w), g22 = gdn_dot3(k2w, k2w);
            double r1v = gdn_dot3(k1w, wrel), r2v = gdn_dot3(k2w, wrel);
            double det = g11 * g22 - g12 * g12;
            qvel[va] = (g22 * r1v - g12 * r2v) / det;
            qvel[m->jnt_dofadr[j0 + 1]] = (g11 * r2v - g12 * r1v) / det;
            break;
        }
        case GDN_KAMINO_CARTESIAN: {
            // dl = sum k_i (q_i - q0_i): Cramer's rule on the axes
            const double* k0 = m->jnt_axis + 3 * j0;
            const double* k1 = k0 + 3;
            const double* k2 = k0 + 6;
            double c12[3], c20[3], c01[3];
            gdn_cross3(c12, k1, k2);
            gdn_cross3(c20, k2, k0);
            gdn_cross3(c01, k0, k1);
            double det = gdn_dot3(k0, c12);
            const double* cc[3] = {c12, c20, c01};
            for (int t = 0; t < 3; t++) {
                int a = m->jnt_qposadr[j0 + t];
                qpos[a] = m->qpos0[a] + gdn_dot3(cc[t], dl) / det;
                qvel[m->jnt_dofadr[j0 + t]] = gdn_dot3(cc[t], dvl) / det;
            }
            break;
        }
        case GDN_KAMINO_GIMBAL:
            recover_gimbal(m, j0, P, Rrel, wrel, qpos, qvel);
            break;
        default:
            break;
        }
    }
}
