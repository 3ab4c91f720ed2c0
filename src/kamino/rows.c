// SPDX-License-Identifier: Apache-2.0
// Kamino joint rows: body frames from the COM state, the residual and the world-frame Jacobian
// row (linear first, at the COM) of every joint block and loop closure, the DoF row of a lone
// hinge / slide (limits, actuators, joint velocity).
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "kamino/rot.h"
#include "math/vec.h"

// the world inverse inertias of the moving bodies from rcom
static void body_inertias(const gdnKaminoModel* km, gdnKWorld* w) {
    for (int b = 1; b < km->nbody; b++) {
        if (km->moving[b]) {
            gdn_kamino_iinv_world(km, w, b, w->iinv + 9 * b);
        }
    }
    w->frames_valid = 1;
}

void gdn_kamino_body_frames(const gdnKaminoModel* km, gdnKWorld* w) {
    gdn_kamino_body_poses(km, w);
    body_inertias(km, w);
}

void gdn_kamino_body_frames_update(const gdnKaminoModel* km, gdnKWorld* w) {
    const size_t nb = (size_t)km->nbody;
    if (memcmp(w->frame_pos, w->pub.body_pos, 3 * nb * sizeof(double)) != 0 ||
        memcmp(w->frame_quat, w->pub.body_quat, 4 * nb * sizeof(double)) != 0) {
        gdn_kamino_body_frames(km, w);
    } else if (!w->frames_valid) {
        body_inertias(km, w); // the poses are current (a residual evaluation made them)
    }
}

void gdn_kamino_body_poses(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    const size_t nbody = (size_t)km->nbody;
    memcpy(w->frame_pos, w->pub.body_pos, 3 * nbody * sizeof(double));
    memcpy(w->frame_quat, w->pub.body_quat, 4 * nbody * sizeof(double));
    w->frames_valid = 0;
    for (int b = 1; b < km->nbody; b++) {
        if (!km->moving[b]) {
            continue;
        }
        double* R = w->rcom + 9 * b;
        double* X = w->xmat + 9 * b;
        const double* Ri = km->irot + 9 * b;
        double v[3];
        gdn_quat2mat(R, w->pub.body_quat + 4 * b);
        // X = R Ri'
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 3; k++) {
                X[3 * i + k] = R[3 * i + 0] * Ri[3 * k + 0] + R[3 * i + 1] * Ri[3 * k + 1] +
                               R[3 * i + 2] * Ri[3 * k + 2];
            }
        }
        gdn_mulmat3(v, X, m->body_ipos + 3 * b);
        gdn_sub3(w->xpos + 3 * b, w->pub.body_pos + 3 * b, v);
    }
}

// the row body of an MJCF body: itself when moving, -1 (no velocity) otherwise
static int rb(const gdnKaminoModel* km, int b) {
    return km->moving[b] ? b : -1;
}

// translational row along world direction d: follower a at point pa, base b at point pb
static void trans_row(gdnKRow* r, const gdnKWorld* w, int a, int b, const double d[3],
                      const double pa[3], const double pb[3]) {
    double arm[3];
    memset(r, 0, sizeof(*r));
    r->a = a;
    r->b = b;
    gdn_copy3(r->ja, d);
    if (a >= 0) {
        gdn_sub3(arm, pa, w->pub.body_pos + 3 * a);
        gdn_cross3(r->ja + 3, arm, d);
    }
    if (b >= 0) {
        gdn_sub3(arm, pb, w->pub.body_pos + 3 * b);
        gdn_cross3(r->jb + 3, arm, d);
        gdn_scl3(r->jb + 3, r->jb + 3, -1);
        gdn_scl3(r->jb, d, -1);
    }
}

// rotational row about world direction d (follower +, base -)
static void rot_row(gdnKRow* r, int a, int b, const double d[3]) {
    memset(r, 0, sizeof(*r));
    r->a = a;
    r->b = b;
    gdn_copy3(r->ja + 3, d);
    if (b >= 0) {
        gdn_scl3(r->jb + 3, d, -1);
    }
}

// column c of a 3x3 row-major matrix
static void col(double v[3], const double M[9], int c) {
    v[0] = M[c];
    v[1] = M[3 + c];
    v[2] = M[6 + c];
}

// world base joint frame A = RB R0 Rj and the two anchor points of joint block j
static void block_frame(const gdnKaminoModel* km, const gdnKWorld* w, const gdnKJoint* j,
                        double A[9], double pF[3], double pB[3]) {
    const double* RB = w->xmat + 9 * j->base;
    const double* RF = w->xmat + 9 * j->body;
    double v[3];
    gdn_mulmatmat3(A, RB, j->R0Rj);
    gdn_mulmat3(v, RF, j->anchor);
    gdn_add3(pF, w->xpos + 3 * j->body, v);
    gdn_mulmat3(v, RB, j->anchor0);
    gdn_add3(pB, w->xpos + 3 * j->base, v);
    (void)km;
}

// The curvature of the residuals: c = d^2 r / dt^2 along the motion at constant twists (the
// COM at constant v, the orientation turning at constant omega: the Euler step's own motion),
// so r(h) = r + h J u + h^2 / 2 c + O(h^3). A vector a fixed in a body turning at omega has
// a' = omega x a and a'' = omega x (omega x a); a body point p moves at v + omega x (p - x)
// with acceleration omega x (omega x (p - x)). Every row of a block is a . g, a one of the
// block's axes (turning with the base at wB, or fixed in the world), so
//   c = a'' . g + 2 a' . g' + a . g'' = a . k,  k = (g x wB) x wB + 2 g' x wB + g''
// (a' . g = a . (g x wB)): one vector k per block, a dot product per row.
static const double kamino_zero6[6] = {0, 0, 0, 0, 0, 0};

// the twist (linear, angular) and COM of MJCF body b (zeros for a static body)
static const double* twist_of(const gdnKaminoModel* km, const gdnKWorld* w, int b,
                              const double** com) {
    if (b >= 0 && km->moving[b]) {
        *com = w->pub.body_pos + 3 * b;
        return w->pub.body_u + 6 * b;
    }
    *com = kamino_zero6;
    return kamino_zero6;
}

// k = (g x wB) x wB + 2 g1 x wB + g2 for a vector g with derivatives g1, g2 (see above)
static void curvature_vector(const double wB[3], const double g[3], const double g1[3],
                             const double g2[3], double k[3]) {
    double t[3], tt[3], u[3];
    gdn_cross3(t, g, wB);
    gdn_cross3(tt, t, wB);
    gdn_cross3(u, g1, wB);
    for (int i = 0; i < 3; i++) {
        k[i] = tt[i] + 2 * u[i] + g2[i];
    }
}

// translational rows a . (pF - pB): g = pF - pB, g' = vF - vB, g'' = accF - accB (wB: the
// axes' turn rate, zero for world axes)
static void trans_curvature(const double* uF, const double* xF, const double* uB,
                            const double* xB, const double pF[3], const double pB[3],
                            const double wB[3], double k[3]) {
    double armF[3], armB[3], g[3], g1[3], g2[3], vF[3], vB[3], aF[3], aB[3];
    gdn_sub3(armF, pF, xF);
    gdn_sub3(armB, pB, xB);
    gdn_cross3(vF, uF + 3, armF);
    gdn_cross3(aF, uF + 3, vF);
    gdn_cross3(vB, uB + 3, armB);
    gdn_cross3(aB, uB + 3, vB);
    for (int i = 0; i < 3; i++) {
        g[i] = pF[i] - pB[i];
        g1[i] = (uF[i] + vF[i]) - (uB[i] + vB[i]);
        g2[i] = aF[i] - aB[i];
    }
    curvature_vector(wB, g, g1, g2, k);
}

// hinge rows a . (b x f), b turning with the base (wB), f with the follower (wF):
// g = b x f, g' = b' x f + b x f', g'' = b'' x f + 2 b' x f' + b x f''
static void hinge_curvature(const double wB[3], const double wF[3], const double b[3],
                            const double f[3], double k[3]) {
    double b1[3], b2[3], f1[3], f2[3], g[3], g1[3], g2[3], t[3], t2[3];
    gdn_cross3(b1, wB, b);
    gdn_cross3(b2, wB, b1);
    gdn_cross3(f1, wF, f);
    gdn_cross3(f2, wF, f1);
    gdn_cross3(g, b, f);
    gdn_cross3(g1, b1, f);
    gdn_cross3(t, b, f1);
    gdn_add3(g1, g1, t);
    gdn_cross3(g2, b2, f);
    gdn_cross3(t, b1, f1);
    gdn_cross3(t2, b, f2);
    for (int i = 0; i < 3; i++) {
        g2[i] += 2 * t[i] + t2[i];
    }
    curvature_vector(wB, g, g1, g2, k);
}

// log-map rows e_i = log(A' R_F Rj)_i about the axes of A: at e = 0 the relative rotation
// exp(-t wB) exp(t wF) = exp(t d + t^2 / 2 (d x wB) + ...), d = wF - wB (Baker-Campbell-
// Hausdorff), so k = d x wB (the terms of order e are dropped: the rows hold to the projection
// tolerance, and a constant relative rotation, d = 0, has c = 0 exactly)
static void log_curvature(const double wB[3], const double wF[3], double k[3]) {
    double d[3];
    gdn_sub3(d, wF, wB);
    gdn_cross3(k, d, wB);
}

void gdn_kamino_block_rows(const gdnKaminoModel* km, const gdnKWorld* w, int ji, double* r,
                           gdnKRow* rows, double* curv) {
    const gdnKJoint* j = km->joint + ji;
    int a = rb(km, j->body), b = rb(km, j->base), n = 0;
    double A[9], pF[3], pB[3], d[3], e[3], ax[3];
    const double *comF = NULL, *comB = NULL;
    const double* uF = curv ? twist_of(km, w, j->body, &comF) : NULL;
    const double* uB = curv ? twist_of(km, w, j->base, &comB) : NULL;
    double kc[3] = {0, 0, 0}; // the block's curvature vector (above)
#define NEXT (rows + n)
    if (j->type == GDN_KJ_CONNECT || j->type == GDN_KJ_WELD) {
        const double* R1 = w->xmat + 9 * j->body;
        const double* R2 = w->xmat + 9 * j->base;
        double p1[3], p2[3];
        gdn_mulmat3(p1, R1, j->anchor);
        gdn_add3(p1, p1, w->xpos + 3 * j->body);
        gdn_mulmat3(p2, R2, j->anchorB);
        gdn_add3(p2, p2, w->xpos + 3 * j->base);
        gdn_sub3(d, p1, p2);
        if (curv) {
            trans_curvature(uF, comF, uB, comB, p1, p2, kamino_zero6, kc);
        }
        for (int i = 0; i < 3; i++) {
            double u[3] = {i == 0, i == 1, i == 2};
            if (rows) {
                trans_row(NEXT, w, a, b, u, p1, p2);
            }
            if (curv) {
                curv[n] = kc[i];
            }
            r[n++] = d[i];
        }
        if (j->type == GDN_KJ_WELD) {
            double F[9], Rrel[9];
            gdn_mulmatmat3(F, R1, j->Rj);
            gdn_kamino_mulTmat(Rrel, R2, F);
            gdn_kamino_logmat(e, Rrel);
            if (curv) {
                log_curvature(uB + 3, uF + 3, kc);
            }
            for (int i = 0; i < 3; i++) {
                col(ax, R2, i);
                if (rows) {
                    rot_row(NEXT, a, b, ax);
                }
                if (curv) {
                    curv[n] = gdn_dot3(ax, kc);
                }
                r[n++] = e[i];
            }
        }
        return;
    }
    block_frame(km, w, j, A, pF, pB);
    gdn_sub3(d, pF, pB);
    int t = j->type;
    // translations along the base joint frame's constrained axes
    int tfirst = -1;
    if (t == GDN_KAMINO_FIXED || t == GDN_KAMINO_REVOLUTE || t == GDN_KAMINO_SPHERICAL ||
        t == GDN_KAMINO_UNIVERSAL || t == GDN_KAMINO_GIMBAL) {
        tfirst = 0;
    } else if (t == GDN_KAMINO_PRISMATIC || t == GDN_KAMINO_CYLINDRICAL) {
        tfirst = 1;
    }
    if (tfirst >= 0) {
        if (curv) {
            trans_curvature(uF, comF, uB, comB, pF, pB, uB + 3, kc);
        }
        for (int i = tfirst; i < 3; i++) {
            col(ax, A, i);
            if (rows) {
                trans_row(NEXT, w, a, b, ax, pF, pF);
            }
            if (curv) {
                curv[n] = gdn_dot3(ax, kc);
            }
            r[n++] = gdn_dot3(ax, d);
        }
    }
    // rotations
    if (t == GDN_KAMINO_FIXED || t == GDN_KAMINO_PRISMATIC || t == GDN_KAMINO_CARTESIAN) {
        double F[9], Rrel[9];
        gdn_mulmatmat3(F, w->xmat + 9 * j->body, j->Rj);
        gdn_kamino_mulTmat(Rrel, A, F);
        gdn_kamino_logmat(e, Rrel);
        if (curv) {
            log_curvature(uB + 3, uF + 3, kc);
        }
        for (int i = 0; i < 3; i++) {
            col(ax, A, i);
            if (rows) {
                rot_row(NEXT, a, b, ax);
            }
            if (curv) {
                curv[n] = gdn_dot3(ax, kc);
            }
            r[n++] = e[i];
        }
    } else if (t == GDN_KAMINO_REVOLUTE || t == GDN_KAMINO_CYLINDRICAL) {
        double xB[3], xF[3], c[3], k[3];
        col(xB, A, 0);
        col(k, j->Rj, 0);
        gdn_mulmat3(xF, w->xmat + 9 * j->body, k);
        gdn_cross3(c, xB, xF);
        if (curv) {
            hinge_curvature(uB + 3, uF + 3, xB, xF, kc);
        }
        for (int i = 1; i < 3; i++) {
            col(ax, A, i);
            if (rows) {
                rot_row(NEXT, a, b, ax);
            }
            if (curv) {
                curv[n] = gdn_dot3(ax, kc);
            }
            r[n++] = gdn_dot3(ax, c);
        }
    } else if (t == GDN_KAMINO_UNIVERSAL) {
        double u[3], v[3], c[3];
        col(u, A, 0);
        gdn_mulmat3(v, w->xmat + 9 * j->body, j->axis2);
        gdn_cross3(c, v, u);
        if (rows) {
            rot_row(NEXT, a, b, c);
        }
        if (curv) {
            // r = u . v with u turning with the base, v with the follower: g = v, and
            // r'' = u . k for g' = wF x v, g'' = wF x (wF x v)
            double v1[3], v2[3];
            gdn_cross3(v1, uF + 3, v);
            gdn_cross3(v2, uF + 3, v1);
            curvature_vector(uB + 3, v, v1, v2, kc);
            curv[n] = gdn_dot3(u, kc);
        }
        r[n++] = gdn_dot3(u, v) - j->k12;
    }
#undef NEXT
}

void gdn_kamino_joint_residuals(const gdnKaminoModel* km, gdnKWorld* w) {
    for (int j = 0; j < km->njoint; j++) {
        gdn_kamino_block_rows(km, w, j, w->resid + km->joint[j].row0, NULL, NULL);
    }
}

void gdn_kamino_joint_rows(const gdnKaminoModel* km, gdnKWorld* w) {
    for (int j = 0; j < km->njoint; j++) {
        const gdnKJoint* jb = km->joint + j;
        gdn_kamino_block_rows(km, w, j, w->resid + jb->row0, w->rows + jb->row0,
                              km->s.curvature_bias ? w->curv + jb->row0 : NULL);
        for (int i = 0; i < jb->nrow; i++) {
            w->row_kind[jb->row0 + i] = 0;
            w->row_id[jb->row0 + i] = jb->row0 + i;
        }
    }
    const size_t nb = (size_t)km->nbody;
    memcpy(w->rows_pos, w->pub.body_pos, 3 * nb * sizeof(double));
    memcpy(w->rows_quat, w->pub.body_quat, 4 * nb * sizeof(double));
    memcpy(w->rows_u, w->pub.body_u, 6 * nb * sizeof(double));
    w->rows_valid = 1;
}

void gdn_kamino_joint_rows_update(const gdnKaminoModel* km, gdnKWorld* w) {
    const size_t nb = (size_t)km->nbody;
    if (!w->rows_valid || memcmp(w->rows_pos, w->pub.body_pos, 3 * nb * sizeof(double)) != 0 ||
        memcmp(w->rows_quat, w->pub.body_quat, 4 * nb * sizeof(double)) != 0 ||
        memcmp(w->rows_u, w->pub.body_u, 6 * nb * sizeof(double)) != 0) {
        gdn_kamino_joint_rows(km, w);
    }
}

void gdn_kamino_dof_row(const gdnKaminoModel* km, const gdnKWorld* w, int ji, gdnKRow* row) {
    const gdnKJoint* j = km->joint + ji;
    double A[9], pF[3], pB[3], k[3];
    block_frame(km, w, j, A, pF, pB);
    col(k, A, 0);
    if (j->type == GDN_KAMINO_PRISMATIC) {
        trans_row(row, w, rb(km, j->body), rb(km, j->base), k, pF, pF);
    } else {
        rot_row(row, rb(km, j->body), rb(km, j->base), k);
    }
}
