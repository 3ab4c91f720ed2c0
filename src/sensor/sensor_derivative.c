// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of the sensors: each sensor's linear map from the body tangents xi_b
// (position) and eta_b (velocity) of kinematics_derivative.h, from dq, dv directly, and for the
// acceleration stage from the tangents of the body accelerations, the subtree forces and
// efc_force, written once as small blocks that the JVP applies and the VJP transposes.
#include <gradyn/sensor.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "collision/ray.h"
#include "constraint/constraint.h"
#include "constraint/rows_derivative.h"
#include "dynamics/com.h"
#include "dynamics/force_derivative.h"
#include "dynamics/rne_post.h"
#include "dynamics/transmission.h"
#include "gradient/activation_derivative.h"
#include "gradient/residual.h"
#include "gradient/step_constrained.h"
#include "gradient/step_derivative.h"
#include "kinematics/jacobian.h"
#include "kinematics/kinematics_derivative.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "kinematics/tendon_derivative.h"
#include "model/validate.h"
#include "sensor/sensor.h"

// Frames (kinematics_derivative.h): world axes about the world origin. For body b,
// xi_b = [om; t] moves an attached point x by om x x + t; V_b = [w; v0] its velocity (an
// attached point moves with w x x + v0); eta_b = [dw; dv0] the tangent of V_b. With [a] the
// cross-product matrix, an attached point p and its velocity v_p = w x p + v0:
//   dp   = [-[p] | I] xi_b
//   dv_p = [-[p] | I] eta_b + [-[w][p] | [w]] xi_b
//   d(R' y) = R' dy + R' [y] om       (R the body's rotation, y a world vector)
// Each sensor below is a sum of blocks K (dim x 6) times xi_b or eta_b, and of columns times
// dq_j or dv_j.

typedef struct {
    int adjoint;
    int dim;
    // tangent: inputs and the sensor's output; the acceleration stage's dA, dF (6 nbody: the
    // tangents of the body accelerations and subtree forces, below) and df (nefc: efc_force's)
    const double *xi, *eta, *dq, *dv, *du, *da;
    const double *dA, *dF, *df;
    double* out;
    // adjoint: the sensor's cotangent and the accumulated outputs
    const double* g;
    double *xibar, *etabar, *gq, *gv, *gu, *ga;
    double *Abar, *Fbar, *fbar;
} Lin;

// the body quantities a block multiplies
enum { KIND_XI = 0, KIND_ETA = 1, KIND_ACC = 2, KIND_FORCE = 3 };

// out += K x_b (tangent) or xbar_b += K' g (adjoint); kind: KIND_XI (xi), KIND_ETA (eta),
// KIND_ACC (dA), KIND_FORCE (dF: the world's F_0, the sum over all bodies, moves too)
static void emit_body(Lin* c, int b, int kind, const double* K) {
    if (b < 0 || (b == 0 && kind != KIND_FORCE)) {
        return; // the world does not move
    }
    if (!c->adjoint) {
        const double* x = (kind == KIND_XI    ? c->xi
                           : kind == KIND_ETA ? c->eta
                           : kind == KIND_ACC ? c->dA
                                              : c->dF) +
                          6 * b;
        for (int r = 0; r < c->dim; r++) {
            double s = 0;
            for (int k = 0; k < 6; k++) {
                s += K[6 * r + k] * x[k];
            }
            c->out[r] += s;
        }
    } else {
        double* xb = (kind == KIND_XI    ? c->xibar
                      : kind == KIND_ETA ? c->etabar
                      : kind == KIND_ACC ? c->Abar
                                         : c->Fbar) +
                     6 * b;
        for (int k = 0; k < 6; k++) {
            double s = 0;
            for (int r = 0; r < c->dim; r++) {
                s += K[6 * r + k] * c->g[r];
            }
            xb[k] += s;
        }
    }
}

// out += col dq_j (kind 0) or col dv_j (kind 1); adjoint: gq_j / gv_j += col' g
static void emit_dof(Lin* c, int j, int kind, const double* col) {
    if (!c->adjoint) {
        const double* x = kind ? c->dv : c->dq;
        if (x) {
            for (int r = 0; r < c->dim; r++) {
                c->out[r] += col[r] * x[j];
            }
        }
    } else {
        double* gx = kind ? c->gv : c->gq;
        double s = 0;
        for (int r = 0; r < c->dim; r++) {
            s += col[r] * c->g[r];
        }
        gx[j] += s;
    }
}

// out += coef du_i (a scalar sensor) with du actuator i's force-law input: its control, or
// its act (a stateful actuator: act index i - (nu - na)); adjoint: gu_i (or ga_j) += coef g
static void emit_ctrl(Lin* c, const gdnModel* m, int i, double coef) {
    const int first = m->nu - m->na;
    const int state = i >= first;
    const double* x = state ? c->da : c->du;
    double* gx = state ? c->ga : c->gu;
    const int k = state ? i - first : i;
    if (!c->adjoint) {
        if (x) {
            c->out[0] += coef * x[k];
        }
    } else if (gx) {
        gx[k] += coef * c->g[0];
    }
}

// out += coef df_r (a scalar sensor: a constraint force); adjoint: fbar_r += coef g
static void emit_efc(Lin* c, int r, double coef) {
    if (!c->adjoint) {
        c->out[0] += coef * c->df[r];
    } else {
        c->fbar[r] += coef * c->g[0];
    }
}

// ---------------------------------------------------------------- 3x3 blocks

// [a]: the cross-product matrix (row-major)
static void cross_matrix(double X[9], const double a[3]) {
    X[0] = 0, X[1] = -a[2], X[2] = a[1];
    X[3] = a[2], X[4] = 0, X[5] = -a[0];
    X[6] = -a[1], X[7] = a[0], X[8] = 0;
}

// C = A B
static void mul33(double C[9], const double A[9], const double B[9]) {
    gdn_mulmatmat3(C, A, B);
}

static void scale33(double A[9], double s) {
    for (int k = 0; k < 9; k++) {
        A[k] *= s;
    }
}

// K (3 x 6) = s [A | B] (A or B NULL: zero)
static void block(double K[18], const double* A, const double* B, double s) {
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) {
            K[6 * r + k] = A ? s * A[3 * r + k] : 0;
            K[6 * r + 3 + k] = B ? s * B[3 * r + k] : 0;
        }
    }
}

// K = R' K (R NULL: unchanged)
static void rotate_block(double K[18], const double* R) {
    if (!R) {
        return;
    }
    double T[18];
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 6; k++) {
            T[6 * r + k] = R[r] * K[k] + R[3 + r] * K[6 + k] + R[6 + r] * K[12 + k];
        }
    }
    memcpy(K, T, sizeof(T));
}

static const double kIdentity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// the blocks of dp (kind xi) for a point p of body b, rotated by R' and scaled: dp = [-[p] | I]
static void emit_point(Lin* c, int b, const double p[3], const double* R, double s) {
    double X[9], K[18];
    cross_matrix(X, p);
    scale33(X, -1);
    block(K, X, kIdentity, s);
    rotate_block(K, R);
    emit_body(c, b, 0, K);
}

// the blocks of dv_p for a point p of body b with velocity V (about the origin), R', scaled:
// [-[p] | I] eta + [-[w][p] | [w]] xi
static void emit_point_velocity(Lin* c, int b, const double p[3], const double V[6],
                                const double* R, double s) {
    double P[9], W[9], WP[9], K[18];
    cross_matrix(P, p);
    scale33(P, -1);
    block(K, P, kIdentity, s);
    rotate_block(K, R);
    emit_body(c, b, 1, K);
    cross_matrix(W, V);
    mul33(WP, W, P);
    block(K, WP, W, s);
    rotate_block(K, R);
    emit_body(c, b, 0, K);
}

// R' [y] om of body b (the rotation term of a vector y seen in the frame R of body b)
static void emit_rotation_term(Lin* c, int b, const double y[3], const double R[9], double s) {
    double Y[9], K[18];
    cross_matrix(Y, y);
    block(K, Y, NULL, s);
    rotate_block(K, R);
    emit_body(c, b, 0, K);
}

// ---------------------------------------------------------------- sensors

// 1 when body b is in the subtree of body s
static int in_subtree(const gdnModel* m, int b, int s) {
    while (b > s) {
        b = m->body_parentid[b];
    }
    return b == s;
}

// the velocity of an attached point p of body b: w x p + v0
static void point_velocity(const double V[6], const double p[3], double v[3]) {
    gdn_cross3(v, V, p);
    gdn_add3(v, v, V + 3);
}

// the linear map of sensor i (a supported type); V: body velocities about the origin
static void sensor_linear(const gdnModel* m, const gdnData* d, int i, const double* V, Lin* c) {
    const int type = m->sensor_type[i], objtype = m->sensor_objtype[i];
    const int id = m->sensor_objid[i], reftype = m->sensor_reftype[i], refid = m->sensor_refid[i];
    const double *p = NULL, *R = NULL, *pr = NULL, *Rr = NULL;
    int b = -1, br = -1;
    if (objtype == GDN_OBJ_BODY || objtype == GDN_OBJ_XBODY || objtype == GDN_OBJ_GEOM ||
        objtype == GDN_OBJ_SITE) {
        gdn_sensor_frame(m, d, objtype, id, &p, &R);
        b = gdn_sensor_body(m, objtype, id);
    }
    if (refid >= 0) {
        gdn_sensor_frame(m, d, reftype, refid, &pr, &Rr);
        br = gdn_sensor_body(m, reftype, refid);
    }
    double K[24], X[9], col[4];
    switch (type) {
    case GDN_SENS_JOINTPOS:
    case GDN_SENS_JOINTVEL:
        col[0] = 1;
        emit_dof(c, m->jnt_dofadr[id], type == GDN_SENS_JOINTVEL, col);
        return;
    case GDN_SENS_ACTUATORPOS:
    case GDN_SENS_ACTUATORVEL:
        // a joint or joint-in-parent transmission on a hinge or slide: g0 q, g0 v
        col[0] = m->actuator_gear[6 * id];
        emit_dof(c, m->jnt_dofadr[m->actuator_trnid[2 * id]], type == GDN_SENS_ACTUATORVEL, col);
        return;
    case GDN_SENS_ACTUATORFRC: {
        // the actuator's own linearization (dynamics/force_derivative.h), ctrl included
        int dof;
        double cq[6], cv[6], cu;
        const int n = gdn_actuator_force_row(m, d, id, &dof, cq, cv, &cu);
        for (int k = 0; k < n; k++) {
            emit_dof(c, dof + k, 0, cq + k);
            emit_dof(c, dof + k, 1, cv + k);
        }
        emit_ctrl(c, m, id, cu);
        return;
    }
    case GDN_SENS_BALLANGVEL:
        for (int k = 0; k < 3; k++) {
            double e[3] = {0, 0, 0};
            e[k] = 1;
            emit_dof(c, m->jnt_dofadr[id] + k, 1, e);
        }
        return;
    case GDN_SENS_BALLQUAT: {
        // q (+) eps w = q exp(eps w / 2): dq = q (0, w / 2)
        const double* q = d->qpos + m->jnt_qposadr[id];
        for (int k = 0; k < 3; k++) {
            double e[4] = {0, 0, 0, 0};
            e[k + 1] = 0.5;
            gdn_mulquat(col, q, e);
            emit_dof(c, m->jnt_dofadr[id] + k, 0, col);
        }
        return;
    }
    case GDN_SENS_JOINTLIMITPOS:
    case GDN_SENS_JOINTLIMITVEL: {
        // efc_pos - margin has the tangent J dq (the limit row's Jacobian is the gradient of
        // its distance); a hinge or slide row's J is constant, so efc_vel = J v has J dv; a
        // ball's J = -n moves by dn = A dq: d(J v) = J dv - (A' v_ball) . dq
        const int r = gdn_sensor_limit_row(d, id);
        if (r < 0) {
            return;
        }
        const double* J = d->efc_J + (size_t)r * (size_t)m->nv;
        for (int k = 0; k < m->nv; k++) {
            if (J[k] != 0) {
                col[0] = J[k];
                emit_dof(c, k, type == GDN_SENS_JOINTLIMITVEL, col);
            }
        }
        if (type == GDN_SENS_JOINTLIMITVEL && m->jnt_type[id] == GDN_JNT_BALL) {
            double A[9];
            gdn_rows_ball_limit_motion(m, d, r, A);
            const int dof = m->jnt_dofadr[id];
            const double* v = d->qvel + dof;
            for (int k = 0; k < 3; k++) {
                col[0] = -(A[k] * v[0] + A[3 + k] * v[1] + A[6 + k] * v[2]);
                emit_dof(c, dof + k, 0, col);
            }
        }
        return;
    }
    case GDN_SENS_FRAMEPOS:
        // R_r' (p - p_r): R_r' [-[p] | I] xi_b + R_r' [[p] | -I] xi_r
        emit_point(c, b, p, Rr, 1);
        if (refid >= 0) {
            emit_point(c, br, p, Rr, -1);
        }
        return;
    case GDN_SENS_FRAMEXAXIS:
    case GDN_SENS_FRAMEYAXIS:
    case GDN_SENS_FRAMEZAXIS: {
        // da = om x a: R_r' [-[a] | 0] (xi_b - xi_r)
        const int k = type - GDN_SENS_FRAMEXAXIS;
        const double a[3] = {R[k], R[k + 3], R[k + 6]};
        cross_matrix(X, a);
        block(K, X, NULL, -1);
        rotate_block(K, Rr);
        emit_body(c, b, 0, K);
        if (refid >= 0) {
            block(K, X, NULL, 1);
            rotate_block(K, Rr);
            emit_body(c, br, 0, K);
        }
        return;
    }
    case GDN_SENS_FRAMEQUAT: {
        // conj(q_r) q perturbed: 0.5 conj(q_r) (0, om - om_r) q, one column per component
        double q[4], qr[4] = {1, 0, 0, 0}, t[4];
        gdn_sensor_xquat(m, d, objtype, id, q);
        if (refid >= 0) {
            gdn_sensor_xquat(m, d, reftype, refid, qr);
        }
        gdn_negquat(qr, qr);
        double C[12]; // 4 x 3
        for (int k = 0; k < 3; k++) {
            double e[4] = {0, 0, 0, 0};
            e[k + 1] = 0.5;
            gdn_mulquat(t, e, q);
            gdn_mulquat(t, qr, t);
            for (int r = 0; r < 4; r++) {
                C[3 * r + k] = t[r];
            }
        }
        for (int s = 0; s < 2; s++) {
            for (int r = 0; r < 4; r++) {
                for (int k = 0; k < 6; k++) {
                    K[6 * r + k] = k < 3 ? (s ? -C[3 * r + k] : C[3 * r + k]) : 0;
                }
            }
            emit_body(c, s ? br : b, 0, K);
            if (refid < 0) {
                break;
            }
        }
        return;
    }
    case GDN_SENS_MAGNETOMETER: {
        // R_s' B: R_s' [B] om
        emit_rotation_term(c, b, m->opt.magnetic, R, 1);
        return;
    }
    case GDN_SENS_SUBTREECOM:
    case GDN_SENS_SUBTREELINVEL: {
        // sum over the subtree of m_b / M times dc_b or dv_c(b)
        const double M = fmax(GDN_MINVAL, m->body_subtreemass[id]);
        for (int k = 1; k < m->nbody; k++) {
            if (m->body_mass[k] != 0 && in_subtree(m, k, id)) {
                if (type == GDN_SENS_SUBTREECOM) {
                    emit_point(c, k, d->xipos + 3 * k, NULL, m->body_mass[k] / M);
                } else {
                    emit_point_velocity(c, k, d->xipos + 3 * k, V + 6 * k, NULL,
                                        m->body_mass[k] / M);
                }
            }
        }
        return;
    }
    case GDN_SENS_SUBTREEANGMOM: {
        // L = sum_b (I_b w_b + m_b c_b x v_b) - M C x V over the subtree (C, V its COM and COM
        // velocity): the same value as MuJoCo's recursion about each subtree COM
        const double M = fmax(GDN_MINVAL, m->body_subtreemass[id]);
        double C[3] = {0, 0, 0}, Vs[3] = {0, 0, 0};
        for (int k = 1; k < m->nbody; k++) {
            if (in_subtree(m, k, id)) {
                double v[3];
                point_velocity(V + 6 * k, d->xipos + 3 * k, v);
                gdn_addscl3(C, C, d->xipos + 3 * k, m->body_mass[k] / M);
                gdn_addscl3(Vs, Vs, v, m->body_mass[k] / M);
            }
        }
        double XC[9], XV[9];
        cross_matrix(XC, C);
        cross_matrix(XV, Vs);
        for (int k = 1; k < m->nbody; k++) {
            if (!in_subtree(m, k, id)) {
                continue;
            }
            const double mk = m->body_mass[k];
            const double* ck = d->xipos + 3 * k;
            const double* w = V + 6 * k;
            double vc[3], Iw[3], I[9], T[9], D[9], P[9], Wm[9], WP[9], A[9], B[9];
            point_velocity(w, ck, vc);
            // I = R diag(inertia) R'
            const double* Rk = d->ximat + 9 * k;
            for (int r = 0; r < 3; r++) {
                for (int s = 0; s < 3; s++) {
                    T[3 * r + s] = Rk[3 * r + s] * m->body_inertia[3 * k + s];
                }
            }
            for (int r = 0; r < 3; r++) {
                for (int s = 0; s < 3; s++) {
                    I[3 * r + s] = T[3 * r] * Rk[3 * s] + T[3 * r + 1] * Rk[3 * s + 1] +
                                   T[3 * r + 2] * Rk[3 * s + 2];
                }
            }
            gdn_mulmat3(Iw, I, w);
            // d(I w) = I dw + (-[I w] + I [w]) om
            cross_matrix(Wm, w);
            cross_matrix(D, Iw);
            mul33(A, I, Wm);
            for (int r = 0; r < 9; r++) {
                A[r] -= D[r];
            }
            block(K, I, NULL, 1);
            emit_body(c, k, 1, K);
            block(K, A, NULL, 1);
            emit_body(c, k, 0, K);
            // d(m c x v_c) = m (-[v_c] dc + [c] dv_c), dc = [-[c] | I] xi,
            // dv_c = [-[c] | I] eta + [-[w][c] | [w]] xi; and -M (dC x V + C x dV) per body:
            // m ([V] dc - [C] dv_c)
            cross_matrix(P, ck);
            scale33(P, -1); // -[c]
            mul33(WP, Wm, P); // -[w][c]
            double Xv[9], Xc[9], E[9], F[9];
            cross_matrix(Xv, vc);
            cross_matrix(Xc, ck);
            for (int r = 0; r < 9; r++) {
                E[r] = XV[r] - Xv[r]; // [V] - [v_c] multiplies dc
                F[r] = Xc[r] - XC[r]; // [c] - [C] multiplies dv_c
            }
            // xi blocks: E [-[c] | I] + F [-[w][c] | [w]];  eta blocks: F [-[c] | I]
            mul33(A, E, P);
            mul33(T, F, WP);
            mul33(B, F, Wm);
            for (int r = 0; r < 9; r++) {
                A[r] += T[r];
                B[r] += E[r];
            }
            block(K, A, B, mk);
            emit_body(c, k, 0, K);
            mul33(A, F, P);
            block(K, A, F, mk);
            emit_body(c, k, 1, K);
        }
        return;
    }
    case GDN_SENS_GYRO:
    case GDN_SENS_VELOCIMETER: {
        // R_s' w: R_s' dw + R_s' [w] om;  R_s' v_p: R_s' dv_p + R_s' [v_p] om
        const double* Vb = V + 6 * b;
        if (type == GDN_SENS_GYRO) {
            block(K, kIdentity, NULL, 1);
            rotate_block(K, R);
            emit_body(c, b, 1, K);
            emit_rotation_term(c, b, Vb, R, 1);
        } else {
            double vp[3];
            point_velocity(Vb, p, vp);
            emit_point_velocity(c, b, p, Vb, R, 1);
            emit_rotation_term(c, b, vp, R, 1);
        }
        return;
    }
    case GDN_SENS_FRAMEANGVEL:
    case GDN_SENS_FRAMELINVEL: {
        const double* Vb = V + 6 * b;
        if (type == GDN_SENS_FRAMEANGVEL) {
            // R_r' (w - w_r) (+ R_r' [rel] om_r)
            block(K, kIdentity, NULL, 1);
            rotate_block(K, Rr);
            emit_body(c, b, 1, K);
            if (refid >= 0) {
                double rel[3]; // V of the world body is 0
                gdn_sub3(rel, Vb, V + 6 * br);
                block(K, kIdentity, NULL, -1);
                rotate_block(K, Rr);
                emit_body(c, br, 1, K);
                emit_rotation_term(c, br, rel, Rr, 1);
            }
            return;
        }
        emit_point_velocity(c, b, p, Vb, Rr, 1);
        if (refid >= 0 && br > 0) {
            // rel = v_p - v_pr + y x w_r, y = p - p_r; d out = R_r' d rel + R_r' [rel] om_r
            const double* Vr = V + 6 * br;
            double vp[3], vpr[3], y[3], rel[3], yw[3], Wr[9], Y[9], P[9], Pr[9];
            point_velocity(Vb, p, vp);
            point_velocity(Vr, pr, vpr);
            gdn_sub3(y, p, pr);
            gdn_cross3(yw, y, Vr);
            gdn_sub3(rel, vp, vpr);
            gdn_add3(rel, rel, yw);
            emit_point_velocity(c, br, pr, Vr, Rr, -1);
            // dy x w_r = -[w_r] (dp - dp_r)
            cross_matrix(Wr, Vr);
            cross_matrix(P, p);
            cross_matrix(Pr, pr);
            double A[9], B[9];
            mul33(A, Wr, P); // -[w_r] (-[p]) = [w_r][p]
            block(K, A, Wr, 1);
            for (int k = 0; k < 18; k++) {
                if (k % 6 >= 3) {
                    K[k] = -K[k]; // -[w_r] I
                }
            }
            rotate_block(K, Rr);
            emit_body(c, b, 0, K);
            mul33(B, Wr, Pr);
            block(K, B, Wr, -1);
            for (int k = 0; k < 18; k++) {
                if (k % 6 >= 3) {
                    K[k] = -K[k];
                }
            }
            rotate_block(K, Rr);
            emit_body(c, br, 0, K);
            // y x dw_r = [y] dw_r
            cross_matrix(Y, y);
            block(K, Y, NULL, 1);
            rotate_block(K, Rr);
            emit_body(c, br, 1, K);
            emit_rotation_term(c, br, rel, Rr, 1);
        }
        // (a reference frame on the world is fixed: R_r' dv_p alone)
        return;
    }
    case GDN_SENS_CLOCK:
    case GDN_SENS_USER:
    default:
        return; // constant in (q, v, u): zero (user sensors are zeros)
    }
}

// ---------------------------------------------------------------- acceleration stage

// With A_b = [alpha; a_o] the acceleration of body b about the origin (MuJoCo's cacc moved
// there; gravity in A_0 = [0; -g]), F_b = [n_o; f] its subtree force about the origin
// (cfrc_int moved there), V_b = [w; v_o] and a point p of body b (v_p = w x p + v_o):
//   a_p   = a_o + alpha x p + w x v_p            (mj_objectAcceleration's linear part)
//   d a_p = [-[p] | I] dA_b + ([alpha] + [w][w]) [-[p] | I] xi_b
//           + [-[v_p] - [w][p] | [w]] eta_b
//   accelerometer R' a_p (+ R' [a_p] om), framelinacc a_p, frameangacc alpha ([I | 0] dA_b);
//   force  R' f:              R' [0 | I] dF_b + R' [f] om
//   torque R' (n_o - p x f):  R' [I | -[p]] dF_b + R' [f] [-[p] | I] xi_b + R' [n_p] om
// and touch, jointlimitfrc, tendonlimitfrc: linear in efc_force (df), with the contacts that
// count and the rows held. dA_b, dF_b and df come from the front (sensor_derivative below);
// dF_b's external wrenches are cfrc_ext's (a weld's rotation forces read as a torque).

// K = s M [-[p] | I] (M NULL: I), rotated by R' (NULL: world axes), onto kind
static void emit_point_map(Lin* c, int b, int kind, const double* M, const double p[3],
                           const double* R, double s) {
    double P[9], MP[9], K[18];
    cross_matrix(P, p);
    scale33(P, -1);
    if (M) {
        mul33(MP, M, P);
        block(K, MP, M, s);
    } else {
        block(K, P, kIdentity, s);
    }
    rotate_block(K, R);
    emit_body(c, b, kind, K);
}

// a spatial vector of body b about the subtree COM of its root (cacc, cfrc_int) moved to the
// origin (force: 1 for a force, 0 for a motion)
static void about_origin(const gdnModel* m, const gdnData* d, const double* x, int b, int force,
                         double r[6]) {
    static const double origin[3] = {0, 0, 0};
    gdn_transform_spatial(r, x, force, origin, d->subtree_com + 3 * m->body_rootid[b], NULL);
}

// The torque of a site on the world body: MuJoCo sums the trees' cfrc_int into the world's,
// each about its own root's subtree COM c_r, and reads the sum about c_0 = subtree_com[0]:
//   torque = R' (sum_r (n_r - c_r x f_r) - (p - c_0) x f_0)   (n_r, f_r: F_r about the origin)
// with dc = sum over the subtree of m_k / M dx_k, dx_k = [-[x_k] | I] xi_k (x_k = xipos):
//   d = R' (sum_r ([I | -[c_r]] dF_r + [f_r] dc_r) - [p - c_0] df_0 - [f_0] dc_0)
static void world_torque_linear(const gdnModel* m, const gdnData* d, const double p[3],
                                const double* R, Lin* c) {
    double K[18], X[9], P[9], y[3];
    for (int r = 1; r < m->nbody; r++) {
        if (m->body_parentid[r] != 0) {
            continue;
        }
        const double* cr = d->subtree_com + 3 * r;
        const double* fr = d->cfrc_int + 6 * r + 3;
        const double Mr = fmax(GDN_MINVAL, m->body_subtreemass[r]);
        cross_matrix(P, cr);
        scale33(P, -1);
        block(K, kIdentity, P, 1);
        rotate_block(K, R);
        emit_body(c, r, KIND_FORCE, K);
        cross_matrix(X, fr);
        for (int k = r; k < m->nbody; k++) {
            if (m->body_mass[k] != 0 && in_subtree(m, k, r)) {
                emit_point_map(c, k, KIND_XI, X, d->xipos + 3 * k, R, m->body_mass[k] / Mr);
            }
        }
    }
    const double* c0 = d->subtree_com;
    const double* f0 = d->cfrc_int + 3;
    const double M0 = fmax(GDN_MINVAL, m->body_subtreemass[0]);
    gdn_sub3(y, p, c0);
    cross_matrix(P, y);
    block(K, NULL, P, -1);
    rotate_block(K, R);
    emit_body(c, 0, KIND_FORCE, K);
    cross_matrix(X, f0);
    for (int k = 1; k < m->nbody; k++) {
        if (m->body_mass[k] != 0) {
            emit_point_map(c, k, KIND_XI, X, d->xipos + 3 * k, R, -m->body_mass[k] / M0);
        }
    }
}

// the linear map of acceleration-stage sensor i (not actuatorfrc); unit: nefc zeros (scratch
// for touch's decoding, restored)
static void acc_sensor_linear(const gdnModel* m, const gdnData* d, int i, const double* V,
                              double* unit, Lin* c) {
    const int type = m->sensor_type[i], id = m->sensor_objid[i];
    double K[18], P[9], X[9];
    switch (type) {
    case GDN_SENS_ACCELEROMETER:
    case GDN_SENS_FRAMELINACC:
    case GDN_SENS_FRAMEANGACC: {
        const int objtype = type == GDN_SENS_ACCELEROMETER ? GDN_OBJ_SITE : m->sensor_objtype[i];
        const double *p, *R;
        gdn_sensor_frame(m, d, objtype, id, &p, &R);
        const int b = gdn_sensor_body(m, objtype, id);
        if (type == GDN_SENS_FRAMEANGACC) {
            block(K, kIdentity, NULL, 1);
            emit_body(c, b, KIND_ACC, K);
            return;
        }
        const double* Rs = type == GDN_SENS_ACCELEROMETER ? R : NULL;
        const double* w = V + 6 * b;
        double A[6], vp[3], ap[3], t[3], Wm[9], M[9], E[9];
        about_origin(m, d, d->cacc + 6 * b, b, 0, A);
        point_velocity(w, p, vp);
        gdn_cross3(ap, A, p);
        gdn_add3(ap, ap, A + 3);
        gdn_cross3(t, w, vp);
        gdn_add3(ap, ap, t);
        emit_point_map(c, b, KIND_ACC, NULL, p, Rs, 1);
        // ([alpha] + [w][w]) dp
        cross_matrix(Wm, w);
        cross_matrix(X, A);
        mul33(M, Wm, Wm);
        for (int k = 0; k < 9; k++) {
            M[k] += X[k];
        }
        emit_point_map(c, b, KIND_XI, M, p, Rs, 1);
        // [-[v_p] - [w][p] | [w]] eta
        cross_matrix(P, p);
        mul33(E, Wm, P);
        cross_matrix(X, vp);
        for (int k = 0; k < 9; k++) {
            E[k] = -X[k] - E[k];
        }
        block(K, E, Wm, 1);
        rotate_block(K, Rs);
        emit_body(c, b, KIND_ETA, K);
        if (Rs) {
            emit_rotation_term(c, b, ap, Rs, 1);
        }
        return;
    }
    case GDN_SENS_FORCE:
    case GDN_SENS_TORQUE: {
        const int b = m->site_bodyid[id];
        const double* p = d->site_xpos + 3 * id;
        const double* R = d->site_xmat + 9 * id;
        double F[6];
        about_origin(m, d, d->cfrc_int + 6 * b, b, 1, F);
        if (type == GDN_SENS_FORCE) {
            block(K, NULL, kIdentity, 1);
            rotate_block(K, R);
            emit_body(c, b, KIND_FORCE, K);
            emit_rotation_term(c, b, F + 3, R, 1);
            return;
        }
        if (b == 0) {
            world_torque_linear(m, d, p, R, c);
            return;
        }
        double np[3], t[3];
        gdn_cross3(t, p, F + 3);
        gdn_sub3(np, F, t);
        cross_matrix(P, p);
        scale33(P, -1);
        block(K, kIdentity, P, 1);
        rotate_block(K, R);
        emit_body(c, b, KIND_FORCE, K);
        cross_matrix(X, F + 3);
        emit_point_map(c, b, KIND_XI, X, p, R, 1);
        emit_rotation_term(c, b, np, R, 1);
        return;
    }
    case GDN_SENS_TOUCH:
        // the normal force of each contact that counts, linear in the contact's rows (their
        // coefficients: the decoding of gdn_contact_force applied to unit forces)
        for (int j = 0; j < d->ncon; j++) {
            if (!gdn_sensor_touch_counts(m, d, id, j)) {
                continue;
            }
            const gdnContact* con = &d->contact[j];
            const int row = con->efc_address;
            const int n = d->efc_type[row] == GDN_CNSTR_CONTACT_PYRAMIDAL ? 2 * (con->dim - 1)
                                                                          : con->dim;
            for (int r = row; r < row + n && r < d->nefc; r++) {
                double res[6];
                unit[r] = 1;
                gdn_contact_force_rows(m, d, j, unit, res);
                unit[r] = 0;
                if (res[0] != 0) {
                    emit_efc(c, r, res[0]);
                }
            }
        }
        return;
    case GDN_SENS_JOINTLIMITFRC:
    case GDN_SENS_TENDONLIMITFRC: {
        const int r = type == GDN_SENS_JOINTLIMITFRC
                          ? gdn_sensor_limit_row(d, id)
                          : gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_TENDON, id);
        if (r >= 0) {
            emit_efc(c, r, 1);
        }
        return;
    }
    default:
        return;
    }
}

// which acceleration-stage sensors (not actuatorfrc) sensor i is: 0 none, 1 a function of
// efc_force alone (touch, the limit forces), 2 of the body accelerations (accelerometer,
// framelinacc, frameangacc), 3 of the subtree forces (force, torque)
static int acc_kind(const gdnModel* m, int i) {
    switch (m->sensor_type[i]) {
    case GDN_SENS_TOUCH:
    case GDN_SENS_JOINTLIMITFRC:
    case GDN_SENS_TENDONLIMITFRC:
        return 1;
    case GDN_SENS_ACCELEROMETER:
    case GDN_SENS_FRAMELINACC:
    case GDN_SENS_FRAMEANGACC:
        return 2;
    case GDN_SENS_FORCE:
    case GDN_SENS_TORQUE:
        return 3;
    default:
        return 0;
    }
}

// the tendon of a tendon-valued sensor: its own (tendonpos, vel, limitpos, limitvel) or its
// actuator's tendon transmission (actuatorpos, vel); -1 for any other sensor
static int sensor_tendon(const gdnModel* m, int i) {
    const int type = m->sensor_type[i], id = m->sensor_objid[i];
    switch (type) {
    case GDN_SENS_TENDONPOS:
    case GDN_SENS_TENDONVEL:
    case GDN_SENS_TENDONLIMITPOS:
    case GDN_SENS_TENDONLIMITVEL:
        return id;
    case GDN_SENS_ACTUATORPOS:
    case GDN_SENS_ACTUATORVEL:
        return m->actuator_trntype[id] == GDN_TRN_TENDON ? m->actuator_trnid[2 * id] : -1;
    default:
        return -1;
    }
}

// A tendon-valued sensor: s L (position) or s Ldot = s J v (velocity), with L the tendon's
// length and J its Jacobian row at the state (kinematics/tendon_derivative.h, DJ its
// q-derivative):
//   d(s L) = s J dq,   d(s J v) = s (J dv + (DJ' v) . dq)
// s = gear for an actuator, +-1 for a limit row (efc_J = s J; no row: the sensor is 0), else 1.
// -1 for a tendon without a linearization (an inside wrap without a root), 0 otherwise
static int tendon_sensor_linear(const gdnModel* m, gdnData* d, int i, gdnTendonWork* w,
                                Lin* c) {
    const int type = m->sensor_type[i], t = sensor_tendon(m, i), nv = m->nv;
    const int velocity = type == GDN_SENS_TENDONVEL || type == GDN_SENS_TENDONLIMITVEL ||
                         type == GDN_SENS_ACTUATORVEL;
    double L, V, s = 1;
    if (gdn_tendon_linear(m, d, w->S, t, &L, &V, w->J, w->DJ, w->scratch) < 0) {
        return -1;
    }
    if (type == GDN_SENS_ACTUATORPOS || type == GDN_SENS_ACTUATORVEL) {
        s = m->actuator_gear[6 * m->sensor_objid[i]];
    } else if (type == GDN_SENS_TENDONLIMITPOS || type == GDN_SENS_TENDONLIMITVEL) {
        const int r = gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_TENDON, t);
        if (r < 0) {
            return 0;
        }
        double dot = 0;
        const double* Jr = d->efc_J + (size_t)r * (size_t)nv;
        for (int k = 0; k < nv; k++) {
            dot += Jr[k] * w->J[k];
        }
        s = dot < 0 ? -1 : 1;
    }
    if (velocity) {
        gdn_tendon_dj_mul_t(nv, w->DJ, d->qvel, w->w);
    }
    for (int k = 0; k < nv; k++) {
        double col = s * w->J[k];
        emit_dof(c, k, velocity, &col);
        if (velocity) {
            col = s * w->w[k];
            emit_dof(c, k, 0, &col);
        }
    }
    return 0;
}

// 1 for actuatorpos / vel on a transmission whose length is not g0 q (dynamics/transmission.h:
// gdn_transmission_general: slider-crank, site, body at its fixed contact set, a joint or
// joint-in-parent on a ball or free joint)
static int sensor_on_transmission(const gdnModel* m, int i) {
    const int type = m->sensor_type[i];
    return (type == GDN_SENS_ACTUATORPOS || type == GDN_SENS_ACTUATORVEL) &&
           gdn_transmission_general(m, m->sensor_objid[i]);
}

// an actuatorfrc sensor of an actuator on a tendon, site, slider-crank, joint-in-parent or
// body transmission (the joint ones take gdn_actuator_force_row's short rows)
static int sensor_force_full(const gdnModel* m, int i) {
    const int id = m->sensor_objid[i];
    return m->sensor_type[i] == GDN_SENS_ACTUATORFRC && m->actuator_trntype[id] != GDN_TRN_JOINT;
}

// its linearization as full rows (dynamics/force_derivative.h): d force = cq . dq + cv . dv +
// cu du; rows (2 nv) scratch; -1 for a tendon wrapping inside or a body transmission's
// contact without a geometry tangent
static int force_full_linear(const gdnModel* m, gdnData* d, int i, gdnTransmissionWork* w,
                             double* rows, Lin* c) {
    const int nv = m->nv, id = m->sensor_objid[i];
    double cu;
    if (gdn_actuator_force_full(m, d, id, w, rows, rows + nv, &cu) < 0) {
        return -1;
    }
    for (int k = 0; k < nv; k++) {
        emit_dof(c, k, 0, rows + k);
        emit_dof(c, k, 1, rows + nv + k);
    }
    emit_ctrl(c, m, id, cu);
    return 0;
}

// Such a sensor: the actuator's length or velocity g M v, with (up to the factor g of
// gdn_transmission_linear) l its length row, M its moment row, H = dM/dq:
//   d length = g l . dq,   d (g M v) = g (M . dv + (H' v) . dq)
// -1 when the linearization is refused (a body transmission's contact without a geometry
// tangent: GDN_TRN_BODY_WHAT)
static int transmission_sensor_linear(const gdnModel* m, gdnData* d, int i,
                                      gdnTransmissionWork* w, Lin* c) {
    const int nv = m->nv, velocity = m->sensor_type[i] == GDN_SENS_ACTUATORVEL;
    double L, V, g;
    if (gdn_transmission_linear(m, d, w->S, m->sensor_objid[i], &L, &V, w->lrow, w->M,
                                velocity ? w->H : NULL, &g, w->scratch) < 0) {
        return -1;
    }
    if (velocity) {
        gdn_tendon_dj_mul_t(nv, w->H, d->qvel, w->w);
    }
    for (int k = 0; k < nv; k++) {
        double col = g * (velocity ? w->M[k] : w->lrow[k]);
        emit_dof(c, k, velocity, &col);
        if (velocity) {
            col = g * w->w[k];
            emit_dof(c, k, 0, &col);
        }
    }
    return 0;
}

// a unit normal (world) of geom g's surface at the world point h on it (a primitive: the
// face, side or cap h lies on; a mesh: the triangle the ray p + x a hit, its sign free: the
// rangefinder's formula is even in n); 0 for a height field or a degenerate triangle
static int surface_normal(const gdnModel* m, const gdnData* d, int g, const double h[3],
                          const double p[3], const double a[3], double n[3]) {
    const double* c = d->geom_xpos + 3 * g;
    const double* R = d->geom_xmat + 9 * g;
    const double* s = m->geom_size + 3 * g;
    double w[3], l[3], nl[3] = {0, 0, 0};
    gdn_sub3(w, h, c);
    gdn_mulmat3T(l, R, w); // the point in the geom frame
    switch (m->geom_type[g]) {
    case GDN_GEOM_PLANE:
        nl[2] = 1;
        break;
    case GDN_GEOM_SPHERE:
        gdn_copy3(nl, l);
        break;
    case GDN_GEOM_CAPSULE: {
        // the nearest point of the axis segment [-s1, s1] to l, then radial
        const double z = l[2] > s[1] ? s[1] : (l[2] < -s[1] ? -s[1] : l[2]);
        nl[0] = l[0], nl[1] = l[1], nl[2] = l[2] - z;
        break;
    }
    case GDN_GEOM_ELLIPSOID:
        for (int k = 0; k < 3; k++) {
            nl[k] = l[k] / (s[k] * s[k]);
        }
        break;
    case GDN_GEOM_CYLINDER: {
        // the cap when l is nearer the cap plane than the side
        const double rad = sqrt(l[0] * l[0] + l[1] * l[1]);
        if (fabs(fabs(l[2]) - s[1]) < fabs(rad - s[0])) {
            nl[2] = l[2] > 0 ? 1 : -1;
        } else {
            nl[0] = l[0], nl[1] = l[1];
        }
        break;
    }
    case GDN_GEOM_MESH: {
        const int f = gdn_ray_mesh_face(m, d, g, p, a);
        const int mesh = m->geom_dataid[g];
        if (f < 0 || mesh < 0) {
            return 0;
        }
        const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
        const int* tri = m->mesh_face + 3 * f;
        double e1[3], e2[3];
        gdn_sub3(e1, vert + 3 * tri[1], vert + 3 * tri[0]);
        gdn_sub3(e2, vert + 3 * tri[2], vert + 3 * tri[0]);
        gdn_cross3(nl, e1, e2);
        break;
    }
    case GDN_GEOM_BOX: {
        // the face whose plane l is nearest
        int k = 0;
        double best = INFINITY;
        for (int ax = 0; ax < 3; ax++) {
            const double gap = fabs(fabs(l[ax]) - s[ax]);
            if (gap < best) {
                best = gap;
                k = ax;
            }
        }
        nl[k] = l[k] > 0 ? 1 : -1;
        break;
    }
    default:
        return 0;
    }
    gdn_mulmat3(n, R, nl);
    const double len = sqrt(gdn_dot3(n, n));
    if (!(len > 0)) {
        return 0;
    }
    gdn_scl3(n, n, 1 / len);
    return 1;
}

// The rangefinder: x the distance along the site's z axis a from its origin p to the hit h =
// p + x a on geom g. h stays on g's surface (normal n) as both move rigidly with their bodies:
//   n . (dh_site + a dx - dh_geom) = 0,  dh_b = [-[h] | I] xi_b  (h attached to body b)
//   dx = (n . dh_geom - n . dh_site) / (n . a),  n' [-[h] | I] = [(h x n)' | n']
// A miss (-1) is constant. -1 for a hit without a derivative (a grazing ray, a height field)
static int rangefinder_linear(const gdnModel* m, const gdnData* d, int i, Lin* c) {
    const int site = m->sensor_objid[i];
    const double* R = d->site_xmat + 9 * site;
    const double a[3] = {R[2], R[5], R[8]};
    const double* p = d->site_xpos + 3 * site;
    int g = -1;
    const double x = gdn_ray(m, d, p, a, m->site_bodyid[site], &g);
    if (x < 0 || g < 0) {
        return 0;
    }
    double h[3], n[3], hn[3], K[6];
    for (int k = 0; k < 3; k++) {
        h[k] = p[k] + x * a[k];
    }
    if (!surface_normal(m, d, g, h, p, a, n)) {
        return -1;
    }
    const double na = gdn_dot3(n, a);
    if (!(fabs(na) > 1e-12)) {
        return -1;
    }
    gdn_cross3(hn, h, n);
    for (int k = 0; k < 3; k++) {
        K[k] = hn[k] / na;
        K[3 + k] = n[k] / na;
    }
    emit_body(c, m->geom_bodyid[g], 0, K);
    for (int k = 0; k < 6; k++) {
        K[k] = -K[k];
    }
    emit_body(c, m->site_bodyid[site], 0, K);
    return 0;
}

int gdn_sensor_refusal(const gdnModel* m, const gdnData* d, char* msg, int msg_size) {
    static const char* const type_names[] = {
        "touch",          "accelerometer",  "velocimeter",    "gyro",          "force",
        "torque",         "magnetometer",   "rangefinder",    "jointpos",      "jointvel",
        "tendonpos",      "tendonvel",      "actuatorpos",    "actuatorvel",   "actuatorfrc",
        "ballquat",       "ballangvel",     "jointlimitpos",  "jointlimitvel", "jointlimitfrc",
        "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "framepos",      "framequat",
        "framexaxis",     "frameyaxis",     "framezaxis",     "framelinvel",   "frameangvel",
        "framelinacc",    "frameangacc",    "subtreecom",     "subtreelinvel", "subtreeangmom",
        "clock",          "user"};
    if (msg && msg_size > 0) {
        msg[0] = 0;
    }
    if (gdn_check_model_data(m, d) != GDN_OK || d->sensor_refused < 0 ||
        d->sensor_refused >= m->nsensor) {
        return -1;
    }
    const int i = d->sensor_refused, type = m->sensor_type[i];
    // the cause: what the sensor's linearization refused (sensor_derivative's dispatch)
    // (a tendon's or an actuator's on a tendon: the wrap; an actuator's on a body: its contacts)
    const char* cause = GDN_TENDON_WRAP_WHAT;
    if (type == GDN_SENS_RANGEFINDER) {
        cause = "its ray hits a surface without a derivative there (a grazing ray)";
    } else if ((type == GDN_SENS_ACTUATORPOS || type == GDN_SENS_ACTUATORVEL ||
                type == GDN_SENS_ACTUATORFRC) &&
               m->actuator_trntype[m->sensor_objid[i]] == GDN_TRN_BODY) {
        cause = GDN_TRN_BODY_WHAT;
    }
    if (msg && msg_size > 0) {
        const char* name = gdn_id2name(m, "sensor", i);
        snprintf(msg, (size_t)msg_size, "sensor %d '%s' (%s): no derivative at this state: %s", i,
                 name ? name : "", type >= 0 && type <= GDN_SENS_USER ? type_names[type] : "?",
                 cause);
    }
    return i;
}

// 1 when sensor i's value sits on its cutoff (clamped: derivative 0)
static int clamped(const gdnModel* m, const gdnData* d, int i, int k) {
    const double c = m->sensor_cutoff[i], x = d->sensordata[m->sensor_adr[i] + k];
    return c > 0 && (x == c || (m->sensor_datatype[i] == GDN_DATATYPE_REAL && x == -c));
}

// The acceleration stage's share of the front (the model has a sensor acc_kind names):
// the tangents of qacc and efc_force at the solve gdn_forward left in d (the step derivatives'
// implicit differentiation, gradient/step_derivative.h), then those of the body accelerations
// A_b and subtree forces F_b (the residual's sweep, gradient/residual.h, at a = qacc with the
// external wrenches' tangent dW: the frozen-force tangent of the rows' body wrenches, contacts
// and connects, plus their wrenches at df). The adjoint (accStage_vjp) is its transpose.
typedef struct {
    int kinds;            // bit k: a sensor of acc_kind k
    gdnConstrainedLinear L; // the solve's linearization (d->nefc > 0)
    double *dqacc, *df, *dui, *dA, *dF, *dW, *xi2, *etax, *djar0, *dlogD, *dr, *unit;
} accStage;

static gdnStatus acc_stage_alloc(const gdnModel* m, gdnData* d, accStage* a) {
    const size_t nv = (size_t)m->nv + 1, nb6 = 6 * (size_t)m->nbody;
    const size_t ne = (size_t)d->nefc + 1, nu = (size_t)m->nu + 1;
    const size_t n = 2 * nv + 4 * ne + nu + 5 * nb6;
    double* x = gdn_arena_doubles(d, n);
    if (!x) {
        return GDN_ERR_MEMORY;
    }
    memset(x, 0, sizeof(double) * n);
    a->dqacc = x;
    a->dr = a->dqacc + nv;
    a->df = a->dr + nv;
    a->djar0 = a->df + ne;
    a->dlogD = a->djar0 + ne;
    a->dui = a->dlogD + ne;
    a->dA = a->dui + nu;
    a->dF = a->dA + nb6;
    a->dW = a->dF + nb6;
    a->xi2 = a->dW + nb6;
    a->etax = a->xi2 + nb6;
    a->unit = a->etax + nb6; // ne zeros (touch's decoding)
    return GDN_OK;
}

// the checks and the linearization: GDN_ERR_UNCONVERGED / UNSUPPORTED / SINGULAR as the step
// derivatives (d->deriv_* their report)
static gdnStatus acc_stage_begin(const gdnModel* m, gdnData* d, accStage* a) {
    const char* what = NULL;
    gdn_deriv_report_clear(d);
    gdnStatus st = acc_stage_alloc(m, d, a);
    if (st == GDN_OK && d->nefc > 0) {
        st = gdn_constrained_admissible(m, d);
        if (st == GDN_OK) {
            st = gdn_constrained_linearize_forward(m, d, &a->L, &what);
        }
    }
    return st;
}

// the tangent: c's dA, dF, df from (dq, dv, dctrl, dact) and the body tangents xi, eta
static gdnStatus acc_stage_jvp(const gdnModel* m, gdnData* d, accStage* a, const double* dq,
                               const double* dv, const double* du, const double* dact,
                               const double* xi, const double* eta, Lin* c) {
    const char* what = NULL;
    const int wrench = (a->kinds & 8) && d->nefc > 0;
    gdn_actuator_input_tangent(m, du, dact, a->dui);
    gdnStatus st = gdn_forward_accel_jvp(m, d, &a->L, dq, dv, a->dui, a->dqacc, a->df, &what);
    if (st == GDN_OK && wrench) {
        // dW: cfrc_ext's rows (contacts, connects, welds as MuJoCo reads them) moving at fixed
        // forces, then at df
        a->L.lin.mj_weld_torque = 1;
        gdn_body_tangent_jvp_axes(m, d, a->L.S, a->L.x, dq, NULL, a->xi2, a->etax);
        st = gdn_rows_jvp(m, d, &a->L.lin, xi, eta, a->etax, dq, dv, NULL, a->djar0, a->dlogD,
                          a->dW, NULL);
        gdn_rows_wrench_of(m, d, &a->L.lin, a->df, a->dW, NULL);
        a->L.lin.mj_weld_torque = 0;
    }
    if (st == GDN_OK && (a->kinds & 12)) {
        gdnResidualDirection dir = {dq, dv, a->dqacc, NULL, NULL, wrench ? a->dW : NULL,
                                    xi, eta, NULL};
        st = gdn_residual_jvp_bodies(m, d, d->qacc, NULL, &dir, a->dr, a->dA, a->dF);
    }
    c->dA = a->dA;
    c->dF = a->dF;
    c->df = a->df;
    return st;
}

// the adjoint: from c's Abar, Fbar (6 nbody), fbar (nefc) ACCUMULATE xibar, etabar (6 nbody),
// gq, gv (nv) and gu (nu, NULL: not wanted), gact (na, NULL: not wanted)
static gdnStatus acc_stage_vjp(const gdnModel* m, gdnData* d, accStage* a, Lin* c, double* gq,
                               double* gv, double* gu, double* gact) {
    const char* what = NULL;
    const int nv = m->nv, nu = m->nu, nb6 = 6 * m->nbody;
    const int wrench = (a->kinds & 8) && d->nefc > 0;
    // reused blocks: abar (dqacc), y = 0 (dr), Wbar (dW), xibar2 / etabar2 (dA / dF: their
    // covectors are Abar, Fbar), etaxbar (etax), gui (dui)
    double* abar = a->dqacc;
    double* Wbar = a->dW;
    double* xb2 = a->xi2;
    double* etaxbar = a->etax;
    double* gui = a->dui;
    memset(abar, 0, sizeof(double) * (size_t)nv);
    memset(a->dr, 0, sizeof(double) * (size_t)nv);
    memset(gui, 0, sizeof(double) * (size_t)nu);
    gdnStatus st = GDN_OK;
    if (a->kinds & 12) {
        gdnResidualAdjoint out = {gq, gv, abar, NULL, NULL, wrench ? Wbar : NULL,
                                  xb2, a->dA, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        st = gdn_residual_vjp_seeded(m, d, d->qacc, NULL, a->dr, c->Abar, c->Fbar, &out);
        for (int k = 0; k < nb6; k++) {
            c->xibar[k] += xb2[k];
            c->etabar[k] += a->dA[k];
        }
    }
    if (st == GDN_OK && wrench) {
        memset(etaxbar, 0, sizeof(double) * (size_t)nb6);
        a->L.lin.mj_weld_torque = 1;
        st = gdn_rows_vjp(m, d, &a->L.lin, NULL, NULL, Wbar, NULL, c->xibar, c->etabar, etaxbar,
                          gq, gv);
        gdn_rows_wrench_of_vjp(m, d, &a->L.lin, Wbar, c->fbar);
        a->L.lin.mj_weld_torque = 0;
        if (st == GDN_OK) {
            st = gdn_body_tangent_vjp_axes(m, d, a->L.S, a->L.x, NULL, etaxbar, gq, NULL);
        }
    }
    if (st == GDN_OK) {
        st = gdn_forward_accel_vjp(m, d, &a->L, abar, c->fbar, gq, gv, gui, &what);
    }
    // the force laws' input cotangent: a stateless actuator's control, a stateful one's act
    const int first = nu - m->na;
    for (int i = 0; st == GDN_OK && i < nu; i++) {
        if (i < first && gu) {
            gu[i] += gui[i];
        } else if (i >= first && gact) {
            gact[i - first] += gui[i];
        }
    }
    return st;
}

// every public entry starts with no refusal recorded (gdn_sensor_refusal: -1 until a sensor is
// refused at the state, also when the call fails its argument checks)
static void refusal_clear(gdnData* d) {
    if (d) {
        d->sensor_refused = -1;
    }
}

// the shared front: checks, then S, V, and (tangent) xi, eta in scratch
static gdnStatus sensor_derivative(const gdnModel* m, gdnData* d, int adjoint, const double* dq,
                                   const double* dv, const double* du, const double* da,
                                   double* ds, const double* gs, double* gq, double* gv,
                                   double* gu, double* ga) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    const int nv = m->nv, nb = m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* S = gdn_arena_doubles(d, 6 * (size_t)nv + 1);
    double* V = gdn_arena_doubles(d, 6 * (size_t)nb);
    double* xi = gdn_arena_doubles(d, 6 * (size_t)nb);
    double* eta = gdn_arena_doubles(d, 6 * (size_t)nb);
    double* gqv = gdn_arena_doubles(d, 2 * (size_t)nv + 1);
    // the outputs (dsensordata; gu, gact) accumulate here and are written only on success: a
    // refusal writes nothing
    const size_t ns = (size_t)m->nsensordata, nu = (size_t)m->nu, na = (size_t)m->na;
    double* out = gdn_arena_doubles(d, ns + nu + na + 1);
    if (!S || !V || !xi || !eta || !gqv || !out) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_dof_axes_about(m, d, 0, S);
    gdn_com_vel(m, d, S, V, NULL, NULL);
    // the tendon linearization's scratch when a sensor reads a tendon
    gdnTendonWork tw;
    int any_tendon = 0;
    for (int i = 0; i < m->nsensor; i++) {
        any_tendon |= sensor_tendon(m, i) >= 0;
    }
    if (any_tendon && gdn_tendon_work_alloc(m, d, &tw) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    // and the transmission linearization's when one reads a moving transmission
    gdnTransmissionWork trw;
    int any_trn = 0;
    for (int i = 0; i < m->nsensor; i++) {
        any_trn |= sensor_on_transmission(m, i) || sensor_force_full(m, i);
    }
    double* rows = any_trn ? gdn_arena_doubles(d, 2 * (size_t)nv + 1) : NULL;
    if (any_trn && (!rows || gdn_transmission_work_alloc(m, d, &trw) != GDN_OK)) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    // and the acceleration stage's when a sensor reads qacc or efc_force
    accStage acc;
    memset(&acc, 0, sizeof(acc));
    for (int i = 0; i < m->nsensor; i++) {
        acc.kinds |= acc_kind(m, i) ? 1 << acc_kind(m, i) : 0;
    }
    if (acc.kinds) {
        gdnStatus st = acc_stage_begin(m, d, &acc);
        if (st != GDN_OK) {
            gdn_arena_reset(d, mark);
            return st;
        }
    }
    // the covectors of the acceleration stage (adjoint): Abar, Fbar (6 nbody), fbar (nefc)
    double* accbar = NULL;
    if (acc.kinds && adjoint) {
        accbar = gdn_arena_doubles(d, 12 * (size_t)nb + (size_t)d->nefc + 1);
        if (!accbar) {
            gdn_arena_reset(d, mark);
            return GDN_ERR_MEMORY;
        }
        memset(accbar, 0, sizeof(double) * (12 * (size_t)nb + (size_t)d->nefc + 1));
    }
    Lin c;
    memset(&c, 0, sizeof(c));
    c.adjoint = adjoint;
    if (!adjoint) {
        gdn_body_tangent_jvp(m, d, dq, dv, xi, eta);
        c.xi = xi;
        c.eta = eta;
        c.dq = dq;
        c.dv = dv;
        c.du = du;
        c.da = da;
        if (acc.kinds) {
            gdnStatus st = acc_stage_jvp(m, d, &acc, dq, dv, du, da, xi, eta, &c);
            if (st != GDN_OK) {
                gdn_arena_reset(d, mark);
                return st;
            }
        }
        memset(out, 0, sizeof(double) * ns);
    } else {
        memset(xi, 0, sizeof(double) * 6 * (size_t)nb);
        memset(eta, 0, sizeof(double) * 6 * (size_t)nb);
        memset(gqv, 0, sizeof(double) * 2 * (size_t)nv);
        c.xibar = xi;
        c.etabar = eta;
        c.gq = gqv;
        c.gv = gqv + nv;
        c.gu = gu ? out + ns : NULL;
        c.ga = ga ? out + ns + nu : NULL;
        if (accbar) {
            c.Abar = accbar;
            c.Fbar = accbar + 6 * (size_t)nb;
            c.fbar = accbar + 12 * (size_t)nb;
        }
        memset(out + ns, 0, sizeof(double) * (nu + na));
    }
    for (int i = 0; i < m->nsensor; i++) {
        const int adr = m->sensor_adr[i], dim = m->sensor_dim[i];
        double g[4];
        int any = 0;
        c.dim = dim;
        if (!adjoint) {
            c.out = out + adr;
        } else {
            if (dim > 4) {
                continue; // user sensors only (zeros)
            }
            for (int k = 0; k < dim; k++) {
                g[k] = clamped(m, d, i, k) ? 0 : gs[adr + k];
                any |= g[k] != 0;
            }
            if (!any) {
                continue;
            }
            c.g = g;
        }
        if (m->sensor_type[i] == GDN_SENS_USER) {
            continue;
        }
        if (sensor_tendon(m, i) >= 0) {
            if (tendon_sensor_linear(m, d, i, &tw, &c) < 0) {
                gdn_arena_reset(d, mark);
                d->sensor_refused = i;
                return GDN_ERR_UNSUPPORTED; // GDN_TENDON_WRAP_WHAT
            }
        } else if (sensor_on_transmission(m, i)) {
            if (transmission_sensor_linear(m, d, i, &trw, &c) < 0) {
                gdn_arena_reset(d, mark);
                d->sensor_refused = i;
                return GDN_ERR_UNSUPPORTED; // GDN_TRN_BODY_WHAT
            }
        } else if (sensor_force_full(m, i)) {
            if (force_full_linear(m, d, i, &trw, rows, &c) < 0) {
                gdn_arena_reset(d, mark);
                d->sensor_refused = i;
                return GDN_ERR_UNSUPPORTED; // GDN_TENDON_WRAP_WHAT, GDN_TRN_BODY_WHAT
            }
        } else if (m->sensor_type[i] == GDN_SENS_RANGEFINDER) {
            if (rangefinder_linear(m, d, i, &c) < 0) {
                gdn_arena_reset(d, mark);
                d->sensor_refused = i;
                return GDN_ERR_UNSUPPORTED; // a grazing ray
            }
        } else if (acc_kind(m, i)) {
            acc_sensor_linear(m, d, i, V, acc.unit, &c);
        } else {
            sensor_linear(m, d, i, V, &c);
        }
        if (!adjoint) {
            for (int k = 0; k < dim; k++) {
                if (clamped(m, d, i, k)) {
                    out[adr + k] = 0;
                }
            }
        }
    }
    if (adjoint) {
        // the acceleration stage's covectors back to (q, v, u, act), then the body cotangents
        // through the kinematics, plus the direct dof terms
        if (acc.kinds) {
            gdnStatus st = acc_stage_vjp(m, d, &acc, &c, gqv, gqv + nv, c.gu, c.ga);
            if (st != GDN_OK) {
                gdn_arena_reset(d, mark);
                return st;
            }
        }
        double* tq = gq ? gq : gdn_arena_doubles(d, (size_t)nv + 1);
        double* tv = gv ? gv : gdn_arena_doubles(d, (size_t)nv + 1);
        if (!tq || !tv) {
            gdn_arena_reset(d, mark);
            return GDN_ERR_MEMORY;
        }
        memcpy(tq, gqv, sizeof(double) * (size_t)nv);
        memcpy(tv, gqv + nv, sizeof(double) * (size_t)nv);
        gdn_body_tangent_vjp(m, d, xi, eta, tq, tv);
        if (gu) {
            memcpy(gu, out + ns, sizeof(double) * nu);
        }
        if (ga) {
            memcpy(ga, out + ns + nu, sizeof(double) * na);
        }
    } else if (ns > 0) {
        memcpy(ds, out, sizeof(double) * ns);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_sensor_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                         const double* du, double* dsensordata) {
    refusal_clear(d);
    if (!dsensordata && m && m->nsensordata > 0) {
        return GDN_ERR_ARG;
    }
    return sensor_derivative(m, d, 0, dq, dv, du, NULL, dsensordata, NULL, NULL, NULL, NULL,
                             NULL);
}

gdnStatus gdn_sensor_jvp_act(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                             const double* dact, const double* du, double* dsensordata) {
    refusal_clear(d);
    if (!dsensordata && m && m->nsensordata > 0) {
        return GDN_ERR_ARG;
    }
    return sensor_derivative(m, d, 0, dq, dv, du, dact, dsensordata, NULL, NULL, NULL, NULL,
                             NULL);
}

gdnStatus gdn_sensor_vjp(const gdnModel* m, gdnData* d, const double* gsensordata, double* gq,
                         double* gv, double* gu) {
    refusal_clear(d);
    if (!gsensordata && m && m->nsensordata > 0) {
        return GDN_ERR_ARG;
    }
    return sensor_derivative(m, d, 1, NULL, NULL, NULL, NULL, NULL, gsensordata, gq, gv, gu,
                             NULL);
}

gdnStatus gdn_sensor_vjp_act(const gdnModel* m, gdnData* d, const double* gsensordata,
                             double* gq, double* gv, double* gact, double* gu) {
    refusal_clear(d);
    if (!gsensordata && m && m->nsensordata > 0) {
        return GDN_ERR_ARG;
    }
    return sensor_derivative(m, d, 1, NULL, NULL, NULL, NULL, NULL, gsensordata, gq, gv, gu,
                             gact);
}
