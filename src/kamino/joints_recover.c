// SPDX-License-Identifier: Apache-2.0
// Kamino joint recovery: the MJCF joint coordinates qpos and velocities qvel of every body's
// joints from the body poses and twists, hinge angles unwrapped by 2 pi against the last qpos.
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "kamino/rot.h"
#include "math/vec.h"

#define TWO_PI 6.28318530717958647692

static double dot6(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

static double row_vel(const gdnKRow* r, const double* u) {
    double v = 0;
    if (r->a >= 0) {
        v += dot6(r->ja, u + 6 * r->a);
    }
    if (r->b >= 0) {
        v += dot6(r->jb, u + 6 * r->b);
    }
    return v;
}

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
        default:
            break; // gimbal: not recovered yet (qpos, qvel keep their reset values)
        }
    }
    (void)row_vel;
}
