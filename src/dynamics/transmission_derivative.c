// SPDX-License-Identifier: Apache-2.0
// The linearization of the moving transmissions: length row, moment row and the moment's
// q-derivative (see transmission.h, gdn_transmission_linear).
#include "dynamics/transmission.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "collision/box_derivative.h"
#include "collision/contact_derivative.h"
#include "dynamics/force_derivative.h"
#include "dynamics/passive.h"
#include "kinematics/jacobian.h"
#include "kinematics/tendon_derivative.h"
#include "math/vec.h"

// the linearization point and, with xi / dS (NULL: none), the tangent e_c
typedef struct {
    const gdnModel* m;
    const gdnData* d;
    const double* S;  // world-origin axes (6 nv)
    const double* xi; // body twists under e_c (6 nbody) or NULL
    const double* dS; // axis motions under e_c (6 nv)
} tangent;

// c = S_ang x p + S_lin: the point Jacobian's column of the axis S at p
static void col_at(const double* Sk, const double p[3], double c[3]) {
    gdn_cross3(c, Sk, p);
    gdn_add3(c, c, Sk + 3);
}

// dc = dS_ang x p + S_ang x dp + dS_lin: its motion when p moves by dp
static void col_motion(const double* Sk, const double* dSk, const double p[3], const double dp[3],
                       double dc[3]) {
    double t[3];
    col_at(dSk, p, dc);
    gdn_cross3(t, Sk, dp);
    gdn_add3(dc, dc, t);
}

// the rigid motion of a point x on a body moving by the twist xb: xb_ang x x + xb_lin
static void rigid(const double* xb, const double x[3], double dx[3]) {
    gdn_cross3(dx, xb, x);
    gdn_add3(dx, dx, xb + 3);
}

// the motion of point p on body b (0 without a tangent)
static void point_motion(const tangent* t, int b, const double p[3], double dp[3]) {
    if (t->xi) {
        rigid(t->xi + 6 * b, p, dp);
    } else {
        gdn_zero3(dp);
    }
}

// the motion of a direction w fixed in body b: xi_b,ang x w
static void dir_motion(const tangent* t, int b, const double w[3], double dw[3]) {
    if (t->xi) {
        gdn_cross3(dw, t->xi + 6 * b, w);
    } else {
        gdn_zero3(dw);
    }
}

// out_k += sg (c_k(p) . wt + S_k,ang . wr) over the dofs moving body b; with a tangent its
// motion sg (dc_k . wt + c_k . dwt + dS_k,ang . wr + S_k,ang . dwr), the point p moving by dp
// (wt or wr may be NULL)
static void add_projection_at(const tangent* t, int b, const double p[3], const double dp[3],
                              const double* wt, const double* dwt, const double* wr,
                              const double* dwr, double sg, double* out, size_t stride) {
    for (int k = gdn_jac_last_dof(t->m, b); k >= 0; k = t->m->dof_parentid[k]) {
        const double* Sk = t->S + 6 * k;
        double c[3], dc[3], s = 0;
        col_at(Sk, p, c);
        if (!t->xi) {
            s = (wt ? gdn_dot3(c, wt) : 0) + (wr ? gdn_dot3(Sk, wr) : 0);
        } else {
            const double* dSk = t->dS + 6 * k;
            if (wt) {
                col_motion(Sk, dSk, p, dp, dc);
                s += gdn_dot3(dc, wt) + gdn_dot3(c, dwt);
            }
            if (wr) {
                s += gdn_dot3(dSk, wr) + gdn_dot3(Sk, dwr);
            }
        }
        out[(size_t)k * stride] += sg * s;
    }
}

// add_projection_at with p fixed on body b (dp its rigid motion)
static void add_projection(const tangent* t, int b, const double p[3], const double* wt,
                           const double* dwt, const double* wr, const double* dwr, double sg,
                           double* out, size_t stride) {
    double dp[3];
    point_motion(t, b, p, dp);
    add_projection_at(t, b, p, dp, wt, dwt, wr, dwr, sg, out, stride);
}

// site transmission without a reference site: M_k = c_k(p) . R g[0:3] + S_k,ang . R g[3:6]
// (or its motion into out with the tangent)
static void site_eval(const tangent* t, int i, double* out, size_t stride) {
    const gdnModel* m = t->m;
    const int site = m->actuator_trnid[2 * i], b = m->site_bodyid[site];
    const double* gear = m->actuator_gear + 6 * i;
    double p[3], R[9], wt[3], wr[3], dwt[3], dwr[3];
    gdn_site_frame(m, t->d, site, p, R);
    gdn_mulmat3(wt, R, gear);
    gdn_mulmat3(wr, R, gear + 3);
    dir_motion(t, b, wt, dwt);
    dir_motion(t, b, wr, dwr);
    add_projection(t, b, p, wt, dwt, wr, dwr, 1, out, stride);
}

// site transmission with a reference site r: M_k = (c_k(p) - c_k(p_r)) . R_r g[0:3] +
// (S_k,ang - S_k,ang [r]) . R_r g[3:6], the wrench turning with r's body
static void refsite_eval(const tangent* t, int i, double* out, size_t stride) {
    const gdnModel* m = t->m;
    const int site = m->actuator_trnid[2 * i], ref = m->actuator_trnid[2 * i + 1];
    const int b = m->site_bodyid[site], br = m->site_bodyid[ref];
    const double* gear = m->actuator_gear + 6 * i;
    double p[3], R[9], pr[3], Rr[9], w[3], dw[3];
    gdn_site_frame(m, t->d, site, p, R);
    gdn_site_frame(m, t->d, ref, pr, Rr);
    if (!gdn_is_zero3(gear)) {
        gdn_mulmat3(w, Rr, gear);
        dir_motion(t, br, w, dw);
        add_projection(t, b, p, w, dw, NULL, NULL, 1, out, stride);
        add_projection(t, br, pr, w, dw, NULL, NULL, -1, out, stride);
    }
    if (!gdn_is_zero3(gear + 3)) {
        gdn_mulmat3(w, Rr, gear + 3);
        dir_motion(t, br, w, dw);
        add_projection(t, b, p, NULL, NULL, w, dw, 1, out, stride);
        add_projection(t, br, pr, NULL, NULL, w, dw, -1, out, stride);
    }
}

// the reference-site length and its row:
//   L = (p - p_r) . R_r g[0:3] + log(qd) . g[3:6],  qd = qb^-1 qa,  qa = site_quat * xquat_b,
//   dL_k = (c_k(p) - c_k(p_r)) . w + (p - p_r) . (S_k,ang [r] x w) + u . (da_k - R(qd)' db_k),
//   w = R_r g[0:3], u = Jinv(log qd)' g[3:6], da_k = xmat_b' S_k,ang, db_k = xmat_br' S_k,ang
//   (under a world rotation omega of body b, qa moves to qa exp(xmat_b' omega))
static double refsite_length(const tangent* t, int i, double* lrow) {
    const gdnModel* m = t->m;
    const gdnData* d = t->d;
    const int site = m->actuator_trnid[2 * i], ref = m->actuator_trnid[2 * i + 1];
    const int b = m->site_bodyid[site], br = m->site_bodyid[ref];
    const double* gear = m->actuator_gear + 6 * i;
    double p[3], R[9], pr[3], Rr[9], vec[3], length = 0;
    gdn_site_frame(m, d, site, p, R);
    gdn_site_frame(m, d, ref, pr, Rr);
    if (!gdn_is_zero3(gear)) {
        double w[3], dif[3];
        gdn_sub3(dif, p, pr);
        gdn_mulmat3T(vec, Rr, dif);
        length += gdn_dot3(vec, gear);
        gdn_mulmat3(w, Rr, gear);
        add_projection(t, b, p, w, NULL, NULL, NULL, 1, lrow, 1);
        add_projection(t, br, pr, w, NULL, NULL, NULL, -1, lrow, 1);
        for (int k = gdn_jac_last_dof(m, br); k >= 0; k = m->dof_parentid[k]) {
            double c[3];
            gdn_cross3(c, t->S + 6 * k, w);
            lrow[k] += gdn_dot3(dif, c);
        }
    }
    if (!gdn_is_zero3(gear + 3)) {
        double qa[4], qb[4], conj[4], qd[4], Jinv[9], Rd[9], u[3], ua[3], ub[3], tmp[3];
        gdn_mulquat(qa, m->site_quat + 4 * site, d->xquat + 4 * b);
        gdn_mulquat(qb, m->site_quat + 4 * ref, d->xquat + 4 * br);
        gdn_negquat(conj, qb);
        gdn_mulquat(qd, conj, qa);
        gdn_quat2vel(vec, qd);
        length += gdn_dot3(vec, gear + 3);
        gdn_so3_right_jacobian_inv(vec, Jinv);
        gdn_mulmat3T(u, Jinv, gear + 3);
        // u . da_k = (xmat_b u) . S_k,ang;  u . R(qd)' db_k = (xmat_br R(qd) u) . S_k,ang
        gdn_mulmat3(ua, d->xmat + 9 * b, u);
        gdn_quat2mat(Rd, qd);
        gdn_mulmat3(tmp, Rd, u);
        gdn_mulmat3(ub, d->xmat + 9 * br, tmp);
        add_projection(t, b, p, NULL, NULL, ua, NULL, 1, lrow, 1);
        add_projection(t, br, pr, NULL, NULL, ub, NULL, -1, lrow, 1);
    }
    return length;
}

// slider-crank: with a = z of the slider site s, v = p_c - p_s, s' = a . v, D = s'^2 + r^2 - v.v
//   D > 0: gv = a (1 - s'/sD) + v / sD, ga = v (1 - s'/sD)  (sD = sqrt D);  else gv = a, ga = v
//   M_k = g0 (ga . A_k + gv . V_k),  A_k = S_k,ang x a [s],  V_k = c_k(p_c) [c] - c_k(p_s) [s];
// with the tangent (da = omega_s x a, dv = dp_c - dp_s, ds = da . v + a . dv,
// dD = 2 s' ds - 2 v . dv, dsD = dD / (2 sD), t = s'/sD, dt = (ds - t dsD) / sD):
//   dgv = da (1 - t) - a dt + dv / sD - v dsD / sD^2,  dga = dv (1 - t) - v dt  (D > 0)
//   dgv = da, dga = dv (D <= 0);  dM_k = g0 (dga . A_k + ga . dA_k + dgv . V_k + gv . dV_k)
// Returns L (gear included)
static double slider_crank_eval(const tangent* t, int i, double* out, size_t stride) {
    const gdnModel* m = t->m;
    const int crank = m->actuator_trnid[2 * i], slider = m->actuator_trnid[2 * i + 1];
    const int bc = m->site_bodyid[crank], bs = m->site_bodyid[slider];
    const double g0 = m->actuator_gear[6 * i], r = m->actuator_cranklength[i];
    double pc[3], Rc[9], ps[3], Rs[9], a[3], v[3], gv[3], ga[3];
    gdn_site_frame(m, t->d, crank, pc, Rc);
    gdn_site_frame(m, t->d, slider, ps, Rs);
    a[0] = Rs[2];
    a[1] = Rs[5];
    a[2] = Rs[8];
    gdn_sub3(v, pc, ps);
    const double s = gdn_dot3(v, a);
    const double D = s * s + r * r - gdn_dot3(v, v);
    const int root = D > 0;
    const double sd = root ? sqrt(D) : 0;
    const double tt = root ? s / sd : 0;
    double L = s - sd;
    if (root) {
        gdn_scl3(gv, a, 1 - tt);
        gdn_addscl3(gv, gv, v, 1 / sd);
        gdn_scl3(ga, v, 1 - tt);
    } else {
        L = s;
        gdn_copy3(gv, a);
        gdn_copy3(ga, v);
    }
    double da[3], dpc[3], dps[3], dv[3], dgv[3], dga[3];
    dir_motion(t, bs, a, da);
    point_motion(t, bc, pc, dpc);
    point_motion(t, bs, ps, dps);
    gdn_sub3(dv, dpc, dps);
    if (t->xi && root) {
        const double ds = gdn_dot3(da, v) + gdn_dot3(a, dv);
        const double dD = 2 * s * ds - 2 * gdn_dot3(v, dv);
        const double dsd = dD / (2 * sd);
        const double dt = (ds - tt * dsd) / sd;
        gdn_scl3(dgv, da, 1 - tt);
        gdn_addscl3(dgv, dgv, a, -dt);
        gdn_addscl3(dgv, dgv, dv, 1 / sd);
        gdn_addscl3(dgv, dgv, v, -dsd / (sd * sd));
        gdn_scl3(dga, dv, 1 - tt);
        gdn_addscl3(dga, dga, v, -dt);
    } else {
        gdn_copy3(dgv, da);
        gdn_copy3(dga, dv);
    }
    // the crank's point columns: + V_k, the slider's: - V_k and A_k
    for (int e = 0; e < 2; e++) {
        const int body = e ? bs : bc;
        const double* p = e ? ps : pc;
        const double* dp = e ? dps : dpc;
        const double sg = e ? -1 : 1;
        for (int k = gdn_jac_last_dof(m, body); k >= 0; k = m->dof_parentid[k]) {
            const double* Sk = t->S + 6 * k;
            double c[3], val;
            col_at(Sk, p, c);
            if (!t->xi) {
                val = sg * gdn_dot3(gv, c);
                if (e) {
                    double A[3];
                    gdn_cross3(A, Sk, a);
                    val += gdn_dot3(ga, A);
                }
            } else {
                double dc[3];
                col_motion(Sk, t->dS + 6 * k, p, dp, dc);
                val = sg * (gdn_dot3(dgv, c) + gdn_dot3(gv, dc));
                if (e) {
                    double A[3], dA[3], tmp[3];
                    gdn_cross3(A, Sk, a);
                    gdn_cross3(dA, t->dS + 6 * k, a);
                    gdn_cross3(tmp, Sk, da);
                    gdn_add3(dA, dA, tmp);
                    val += gdn_dot3(dga, A) + gdn_dot3(ga, dA);
                }
            }
            out[(size_t)k * stride] += g0 * val;
        }
    }
    return L * g0;
}

// body (adhesion), over the contacts j touching the body that its primal row counts (N of
// them; transmission.c, body_row), with n_j = frame row 0, p_j = pos, b1 / b2 the bodies of
// geom1 / geom2:
//   M_k = -(1/N) sum_j n_j . (c_k(p_j) [b2] - c_k(p_j) [b1])
// (an included contact's normal row of efc_J, the mean of a pyramid's edge rows being that
// row; a contact in the gap the same expression). With the tangent, at the fixed contact set
// (dp_j, dn_j: gdn_contact_tangent of contact j under the twists xi_b1, xi_b2):
//   dM_k = -(1/N) sum_j [dn_j . (c_k [b2] - c_k [b1]) + n_j . (dc_k [b2] - dc_k [b1])],
//   dc_k = dS_k,ang x p_j + S_k,ang x dp_j + dS_k,lin (col_motion: the contact point slides,
//   it is not fixed on either body). Returns 0, or -1 when a contact's pair has no geometry
// tangent (nothing guaranteed in out)
static int body_eval(const tangent* t, int i, double* out, size_t stride) {
    const gdnModel* m = t->m;
    const gdnData* d = t->d;
    const int body = m->actuator_trnid[2 * i];
    int count = 0;
    for (int j = 0; j < d->ncon; j++) {
        count += gdn_transmission_body_counts(m, body, d->contact + j);
    }
    if (!count) {
        return 0;
    }
    const double scl = -1.0 / count;
    for (int j = 0; j < d->ncon; j++) {
        const gdnContact* con = d->contact + j;
        const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
        if (!gdn_transmission_body_counts(m, body, con) ||
            (con->exclude == 0 && con->efc_address < 0)) {
            continue;
        }
        if (!t->xi) {
            add_projection_at(t, b2, con->pos, NULL, con->frame, NULL, NULL, NULL, scl, out,
                              stride);
            add_projection_at(t, b1, con->pos, NULL, con->frame, NULL, NULL, NULL, -scl, out,
                              stride);
            continue;
        }
        gdnContactTangent ct;
        if (gdn_contact_tangent(m, d, con, t->xi + 6 * b1, t->xi + 6 * b2, NULL, NULL, &ct) !=
            GDN_OK) {
            return -1;
        }
        add_projection_at(t, b2, con->pos, ct.pos, con->frame, ct.frame, NULL, NULL, scl, out,
                          stride);
        add_projection_at(t, b1, con->pos, ct.pos, con->frame, ct.frame, NULL, NULL, -scl, out,
                          stride);
    }
    return 0;
}

// [x]_x (row-major): [x]_x y = x cross y
static void skew(const double x[3], double K[9]) {
    K[0] = 0;
    K[1] = -x[2];
    K[2] = x[1];
    K[3] = x[2];
    K[4] = 0;
    K[5] = -x[0];
    K[6] = -x[1];
    K[7] = x[0];
    K[8] = 0;
}

// a joint or joint-in-parent transmission, its moment on the joint's dofs:
//   hinge, slide: length g0 q, moment g0, lrow g0
//   ball, free:   the rotational gear ga (g for joint, R(q)' g for joint-in-parent), moment
//                 [g[0:3],] ga; joint-in-parent's ga moves by d ga = ga x dq (dq the local
//                 rotation tangent): H's block on the rotation dofs is [ga]_x (joint: H = 0);
//                 the ball's length log(q) . ga = log(q) . g (R(q) fixes log(q)), so
//                 lrow = Jinv(log q)' g; the free joint's length is 0
static double joint_linear(const gdnModel* m, const gdnData* d, int i, double* lrow, double* M,
                           double* H) {
    const int jnt = m->actuator_trnid[2 * i], nv = m->nv, type = m->jnt_type[jnt];
    const int dof = m->jnt_dofadr[jnt];
    const double* gear = m->actuator_gear + 6 * i;
    const double* q = d->qpos + m->jnt_qposadr[jnt];
    if (type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE) {
        M[dof] = lrow[dof] = gear[0];
        return gear[0] * q[0];
    }
    const int ball = type == GDN_JNT_BALL, rot = dof + (ball ? 0 : 3);
    const int inparent = m->actuator_trntype[i] == GDN_TRN_JOINTINPARENT;
    const double* g = ball ? gear : gear + 3;
    const double* qr = ball ? q : q + 3;
    double conj[4], ga[3], K[9], theta[3], Jinv[9];
    gdn_copy3(ga, g);
    if (inparent) {
        gdn_negquat(conj, qr);
        gdn_rotvecquat(ga, g, conj);
    }
    if (!ball) {
        gdn_copy3(M + dof, gear);
    }
    gdn_copy3(M + rot, ga);
    if (H && inparent) {
        skew(ga, K);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                H[(size_t)(rot + r) * (size_t)nv + (size_t)(rot + c)] = K[3 * r + c];
            }
        }
    }
    if (!ball) {
        return 0;
    }
    gdn_quat2vel(theta, q);
    gdn_so3_right_jacobian_inv(theta, Jinv);
    gdn_mulmat3T(lrow + dof, Jinv, g);
    return gdn_dot3(theta, ga);
}

int gdn_transmission_linear(const gdnModel* m, const gdnData* d, const double* S, int i,
                            double* L, double* V, double* lrow, double* M, double* H,
                            double* scale, double* scratch) {
    const int nv = m->nv;
    const size_t n = (size_t)nv;
    const double g0 = m->actuator_gear[6 * i];
    memset(lrow, 0, sizeof(double) * n);
    memset(M, 0, sizeof(double) * n);
    if (H) {
        memset(H, 0, sizeof(double) * n * n);
    }
    *scale = 1;
    const int type = m->actuator_trntype[i];
    double length = 0;
    if (type == GDN_TRN_TENDON) {
        // the tendon's J, DJ, with the factor gear
        double l, v;
        if (gdn_tendon_linear(m, d, S, m->actuator_trnid[2 * i], &l, &v, M, H, scratch) < 0) {
            return -1;
        }
        memcpy(lrow, M, sizeof(double) * n);
        *scale = g0;
        *L = l * g0;
        *V = v * g0;
        return 0;
    }
    if (type == GDN_TRN_JOINT || type == GDN_TRN_JOINTINPARENT) {
        length = joint_linear(m, d, i, lrow, M, H);
    } else {
        // slider-crank, site and body: the rows at the point, then H column by column under
        // e_c (the body's at its fixed contact set; length 0)
        tangent t = {m, d, S, NULL, NULL};
        const int ref = type == GDN_TRN_SITE && m->actuator_trnid[2 * i + 1] >= 0;
        if (type == GDN_TRN_BODY) {
            body_eval(&t, i, M, 1);
        } else if (type == GDN_TRN_SLIDERCRANK) {
            length = slider_crank_eval(&t, i, M, 1);
            memcpy(lrow, M, sizeof(double) * n);
        } else if (ref) {
            refsite_eval(&t, i, M, 1);
            length = refsite_length(&t, i, lrow);
        } else {
            site_eval(&t, i, M, 1);
        }
        double* xi = scratch;
        double* dS = scratch + 6 * (size_t)m->nbody;
        for (int c = 0; H && c < nv; c++) {
            gdn_unit_tangent(m, d, S, c, xi, dS);
            tangent tc = {m, d, S, xi, dS};
            double* col = H + c;
            if (type == GDN_TRN_BODY) {
                if (body_eval(&tc, i, col, n) < 0) {
                    return -1;
                }
            } else if (type == GDN_TRN_SLIDERCRANK) {
                slider_crank_eval(&tc, i, col, n);
            } else if (ref) {
                refsite_eval(&tc, i, col, n);
            } else {
                site_eval(&tc, i, col, n);
            }
        }
    }
    double v = 0;
    for (size_t k = 0; k < n; k++) {
        v += M[k] * d->qvel[k];
    }
    *L = length;
    *V = v;
    return 0;
}

int gdn_transmission_body_mpr_limit(const gdnModel* m, const gdnData* d) {
    for (int i = 0; i < m->nu; i++) {
        if (m->actuator_trntype[i] != GDN_TRN_BODY) {
            continue;
        }
        for (int j = 0; j < d->ncon; j++) {
            if (gdn_transmission_body_counts(m, m->actuator_trnid[2 * i], d->contact + j) &&
                gdn_contact_mpr_limit(m, d->contact + j)) {
                return 1;
            }
        }
    }
    return 0;
}

const char* gdn_transmission_body_refusal(const gdnModel* m, const gdnData* d) {
    for (int i = 0; i < m->nu; i++) {
        if (m->actuator_trntype[i] != GDN_TRN_BODY) {
            continue;
        }
        const int body = m->actuator_trnid[2 * i];
        for (int j = 0; j < d->ncon; j++) {
            const gdnContact* con = d->contact + j;
            gdnContactTangent ct;
            if (gdn_transmission_body_counts(m, body, con) &&
                gdn_contact_tangent(m, d, con, NULL, NULL, NULL, NULL, &ct) != GDN_OK) {
                return GDN_TRN_BODY_WHAT;
            }
        }
    }
    return NULL;
}

gdnStatus gdn_transmission_work_alloc(const gdnModel* m, gdnData* d, gdnTransmissionWork* w) {
    const size_t n = (size_t)m->nv;
    w->S = gdn_arena_doubles(d, 6 * n + 6 * ((size_t)m->nbody + n) + 4 * n + n * n + 1);
    if (!w->S) {
        return GDN_ERR_MEMORY;
    }
    w->scratch = w->S + 6 * n;
    w->lrow = w->scratch + 6 * ((size_t)m->nbody + n);
    w->M = w->lrow + n;
    w->w = w->M + n;
    w->u = w->w + n;
    w->H = w->u + n;
    gdn_dof_axes_about(m, d, 0, w->S);
    return GDN_OK;
}
