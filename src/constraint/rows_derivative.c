// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of the constraint rows at a solved step: J(q) x, aref, D, the wrenches.
#include "constraint/rows_derivative.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "collision/contact_derivative.h"
#include "constraint/constraint.h"
#include "constraint/solver.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "kinematics/tendon_derivative.h"
#include "math/vec.h"

static const double kIdentity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// one row as rows_derivative.h describes it
typedef struct {
    int body[2];         // body sites (body rows)
    double sign[2];      // sigma_s
    double p[2][3];      // p_s (world)
    const double* frame; // the rows a, b combine (contact frame; identity for connect)
    double ca[3];        // a = sum_k ca_k frame row k
    double cb[3];        // b = sum_k cb_k frame row k
    int dof;             // dof-type rows: the (first) dof, else -1
    int ndof;            // dof-type rows: 1, or 3 for a ball joint's limit
    int tendon;          // tendon rows (limit, friction loss): the tendon, else -1
    int jrow;            // 1 when the row's J is its row of efc_J, with no body sites: tendon
                         // rows and joint / tendon equalities (constraint.h)
    int pos_moves;       // a J row whose pos moves by J dq (tendon limits, joint / tendon
                         // equalities); its violation is its pos
    int djrow;           // a J row whose J moves with q (a spatial tendon's row, a joint /
                         // tendon equality with obj2 or on a spatial tendon): its DJ = d J / dq
                         // (nv x nv) at lin->tDJ + djrow nv^2; -1 for a constant J
    int contact;         // contact rows: the contact, else -1
    int eqrow;           // equality rows: the row within the equality (connect 0..2, weld
                         // 0..5), else -1
    int weld;            // 1 for a weld's rows
    int normal;          // 1 when the row's pos is the contact dist (else 0 for contacts)
    double fbuf[9];      // a weld rotation row's frame: rows b_r (below)
} rowSite;

// 1 for a weld's rotation row whose body wrench is MuJoCo's cfrc_ext torque (mj_weld_torque)
static inline int mj_weld_rotation(const gdnRowsLinear* lin, const rowSite* s) {
    return lin->mj_weld_torque && s->weld && s->eqrow >= 3;
}

// A weld's orientation error e = conj(q2) q1 relpose (pos rows 3-5 = its vector part) and its
// rotation rows: J_r u = w . b_r with w = w_1(u) - w_2(u) and
//   b_r = B e_r,  B = 0.5 ts R2 (e0 I + [ev]x)   (ts = torquescale, R2 = body 2's xmat)
// Under the body twists (x1, x2), with Delta = R2' (x1_ang - x2_ang):
//   de0 = -0.5 Delta . ev,  dev = 0.5 (e0 Delta + Delta x ev),
//   dB = 0.5 ts ([x2_ang]x R2 C + R2 (de0 I + [dev]x)),  C = e0 I + [ev]x
typedef struct {
    double e[4];  // the error quaternion
    double R2[9]; // body 2's rotation
    double RC[9]; // R2 C
    double ts;    // torquescale
} weldFrame;

static void weld_frame(const gdnModel* m, const gdnData* d, int id, weldFrame* w) {
    const double* data = m->eq_data + GDN_NEQDATA * id;
    const int b1 = m->eq_obj1id[id], b2 = m->eq_obj2id[id];
    double q1rel[4], q2neg[4];
    gdn_mulquat(q1rel, d->xquat + 4 * b1, data + 6);
    gdn_negquat(q2neg, d->xquat + 4 * b2);
    gdn_mulquat(w->e, q2neg, q1rel);
    memcpy(w->R2, d->xmat + 9 * b2, sizeof(w->R2));
    w->ts = data[10];
    const double* ev = w->e + 1;
    const double C[9] = {w->e[0], -ev[2], ev[1], ev[2], w->e[0], -ev[0], -ev[1], ev[0], w->e[0]};
    gdn_mulmatmat3(w->RC, w->R2, C);
}

// frame rows b_r (r = 0..2) = columns of B = 0.5 ts R2 C
static void weld_rows(const weldFrame* w, double frame[9]) {
    for (int r = 0; r < 3; r++) {
        for (int j = 0; j < 3; j++) {
            frame[3 * r + j] = 0.5 * w->ts * w->RC[3 * j + r];
        }
    }
}

// the tangent of the frame rows (dframe) and of ev (dev) under the twists x1, x2
static void weld_tangent(const weldFrame* w, const double* x1, const double* x2,
                         double dframe[9], double dev[3]) {
    const double* ev = w->e + 1;
    double dw[3], Delta[3], t[3];
    gdn_sub3(dw, x1, x2);
    gdn_mulmat3T(Delta, w->R2, dw);
    const double de0 = -0.5 * gdn_dot3(Delta, ev);
    gdn_cross3(t, Delta, ev);
    for (int k = 0; k < 3; k++) {
        dev[k] = 0.5 * (w->e[0] * Delta[k] + t[k]);
    }
    const double dC[9] = {de0, -dev[2], dev[1], dev[2], de0, -dev[0], -dev[1], dev[0], de0};
    double R2dC[9];
    gdn_mulmatmat3(R2dC, w->R2, dC);
    for (int r = 0; r < 3; r++) {
        // column r: x2_ang x (R2 C)_r + (R2 dC)_r
        double col[3] = {w->RC[r], w->RC[3 + r], w->RC[6 + r]};
        gdn_cross3(t, x2, col);
        for (int j = 0; j < 3; j++) {
            dframe[3 * r + j] = 0.5 * w->ts * (t[j] + R2dC[3 * j + r]);
        }
    }
}

// the adjoint of weld_tangent: x1bar, x2bar (angular parts) += from dframebar, devbar
static void weld_tangent_adjoint(const weldFrame* w, const double dframebar[9],
                                 const double devbar_in[3], double* x1bar, double* x2bar) {
    const double* ev = w->e + 1;
    const double h = 0.5 * w->ts;
    double Cbar[9] = {0}, t[3];
    // frame row r = h (x2 x (RC)_r + (R2 dC)_r):  x2bar += h (RC)_r x dframebar_r,
    // dCbar = h R2' [dframebar rows as columns]
    for (int r = 0; r < 3; r++) {
        double col[3] = {w->RC[r], w->RC[3 + r], w->RC[6 + r]};
        double g[3] = {h * dframebar[3 * r], h * dframebar[3 * r + 1], h * dframebar[3 * r + 2]};
        gdn_cross3(t, col, g);
        gdn_add3(x2bar, x2bar, t);
        double u[3];
        gdn_mulmat3T(u, w->R2, g);
        for (int j = 0; j < 3; j++) {
            Cbar[3 * j + r] += u[j];
        }
    }
    // dC = de0 I + [dev]x
    const double de0bar = Cbar[0] + Cbar[4] + Cbar[8];
    double devbar[3] = {devbar_in[0] + Cbar[7] - Cbar[5], devbar_in[1] + Cbar[2] - Cbar[6],
                        devbar_in[2] + Cbar[3] - Cbar[1]};
    // de0 = -0.5 Delta . ev,  dev = 0.5 (e0 Delta + Delta x ev)
    double Deltabar[3];
    gdn_cross3(t, ev, devbar);
    for (int k = 0; k < 3; k++) {
        Deltabar[k] = -0.5 * ev[k] * de0bar + 0.5 * (w->e[0] * devbar[k] + t[k]);
    }
    // Delta = R2' (x1 - x2)
    double wbar[3];
    gdn_mulmat3(wbar, w->R2, Deltabar);
    gdn_add3(x1bar, x1bar, wbar);
    gdn_sub3(x2bar, x2bar, wbar);
}

// the violation weights of an equality group: viol = |v|, v = pos (connect) or
// (pos_0..2, ts pos_3..5) (weld); u_k = d viol / d pos_k (0 at v = 0)
static void equality_weights(const gdnModel* m, const gdnData* d, int first, int weld,
                             double u[6]) {
    const double* pos = d->efc_pos + first;
    const double ts = weld ? m->eq_data[GDN_NEQDATA * d->efc_id[first] + 10] : 0;
    const int n = weld ? 6 : 3;
    double s = 0;
    for (int k = 0; k < n; k++) {
        const double v = k < 3 ? pos[k] : ts * pos[k];
        s += v * v;
    }
    const double norm = sqrt(s);
    for (int k = 0; k < 6; k++) {
        u[k] = k < n && norm > 0 ? (k < 3 ? pos[k] : ts * ts * pos[k]) / norm : 0;
    }
}

// world point of a body-frame point: p = xpos + xmat local
static void body_point(const gdnData* d, int body, const double local[3], double p[3]) {
    gdn_mulmat3(p, d->xmat + 9 * body, local);
    gdn_add3(p, p, d->xpos + 3 * body);
}

// first row of the group of row i (consecutive rows of one constraint: same type and id)
static int group_first(const gdnData* d, int i) {
    while (i > 0 && d->efc_type[i - 1] == d->efc_type[i] && d->efc_id[i - 1] == d->efc_id[i]) {
        i--;
    }
    return i;
}

// the site of row i; 0, or -1 with *what naming a row kind without a derivative yet
static int row_site(const gdnModel* m, const gdnData* d, int i, rowSite* s, const char** what) {
    memset(s, 0, sizeof(*s));
    s->dof = s->contact = s->eqrow = s->tendon = s->djrow = -1;
    s->ndof = 1;
    s->frame = kIdentity;
    const int id = d->efc_id[i];
    switch (d->efc_type[i]) {
    case GDN_CNSTR_CONTACT_FRICTIONLESS:
    case GDN_CNSTR_CONTACT_PYRAMIDAL:
    case GDN_CNSTR_CONTACT_ELLIPTIC: {
        const gdnContact* con = d->contact + id;
        const int j = i - con->efc_address;
        s->contact = id;
        s->body[0] = m->geom_bodyid[con->geom1];
        s->body[1] = m->geom_bodyid[con->geom2];
        s->sign[0] = -1;
        s->sign[1] = 1;
        gdn_copy3(s->p[0], con->pos);
        gdn_copy3(s->p[1], con->pos);
        s->frame = con->frame;
        if (d->efc_type[i] == GDN_CNSTR_CONTACT_FRICTIONLESS) {
            s->ca[0] = 1;
            s->normal = 1;
        } else if (d->efc_type[i] == GDN_CNSTR_CONTACT_PYRAMIDAL) {
            // edge pair k = j / 2 + 1: J_0 + mu_k J_k, then J_0 - mu_k J_k
            const int k = j / 2 + 1;
            const double mu = (j % 2 == 0 ? 1 : -1) * con->friction[k - 1];
            s->ca[0] = 1;
            if (k < 3) {
                s->ca[k] = mu;
            } else {
                s->cb[k - 3] = mu;
            }
            s->normal = 1;
        } else if (j < 3) {
            s->ca[j] = 1;
            s->normal = j == 0;
        } else {
            s->cb[j - 3] = 1;
        }
        return 0;
    }
    case GDN_CNSTR_EQUALITY: {
        if (gdn_eq_is_scalar(m->eq_type[id])) {
            // joint / tendon: J = J1 - P'(dif) J2 on any dofs, d pos = J dq
            s->jrow = s->pos_moves = 1;
            return 0;
        }
        // connect: anchors data[0..3) on body 1, data[3..6) on body 2; weld: data[3..6) on
        // body 1, data[0..3) on body 2, then the rotation rows
        const double* data = m->eq_data + GDN_NEQDATA * id;
        s->weld = m->eq_type[id] == GDN_EQ_WELD;
        s->eqrow = i - group_first(d, i);
        s->body[0] = m->eq_obj1id[id];
        s->body[1] = m->eq_obj2id[id];
        s->sign[0] = 1;
        s->sign[1] = -1;
        body_point(d, s->body[0], data + (s->weld ? 3 : 0), s->p[0]);
        body_point(d, s->body[1], data + (s->weld ? 0 : 3), s->p[1]);
        if (s->eqrow < 3) {
            s->ca[s->eqrow] = 1;
        } else {
            weldFrame w;
            weld_frame(m, d, id, &w);
            weld_rows(&w, s->fbuf);
            s->frame = s->fbuf;
            s->cb[s->eqrow - 3] = 1;
        }
        return 0;
    }
    case GDN_CNSTR_LIMIT_JOINT:
        s->dof = m->jnt_dofadr[id];
        s->ndof = m->jnt_type[id] == GDN_JNT_BALL ? 3 : 1;
        return 0;
    case GDN_CNSTR_FRICTION_DOF:
        s->dof = id;
        return 0;
    case GDN_CNSTR_LIMIT_TENDON:
    case GDN_CNSTR_FRICTION_TENDON:
        s->tendon = id;
        s->jrow = 1;
        s->pos_moves = d->efc_type[i] == GDN_CNSTR_LIMIT_TENDON;
        return 0;
    default:
        *what = "constraint row kind";
        return -1;
    }
}

// A J row (J_i the row of efc_J: tendon rows, joint / tendon equalities; a moving J_i
// changes by DJ_i dq, which adds (DJ_i dq) . x to djar0, (DJ_i dq) . v to d vel and f DJ_i dq
// to the frozen force J_i' f, below): d vel = J_i dv; a tendon limit's pos =
// dist = -side (L - range) moves by d pos = J_i dq (its J is -side ten_J), and so does its
// violation; so does an equality's pos = x1 - r1 - c0 - P(dif) (J = J1 - P' J2); a
// friction-loss row has pos 0. With dv = 0:
//   djar0_i = -d aref_i = K (imp' (pos - margin) + imp) J_i dq =: tq_i J_i dq,
//   dlogD_i = c_i imp' J_i dq =: tl_i J_i dq
static void tendon_row_coefs(const gdnData* d, const gdnRowsLinear* lin, int i, int pos_moves,
                             double* tq, double* tl) {
    const double* kbip = d->efc_KBIP + 4 * i;
    if (!pos_moves) {
        *tq = *tl = 0;
        return;
    }
    *tq = kbip[0] * (kbip[3] * (d->efc_pos[i] - d->efc_margin[i]) + kbip[2]);
    *tl = lin->c[i] * kbip[3];
}

// A joint / tendon equality's DJ = d J / dq for its row J = J1 - P'(dif) J2 (constraint.h):
//   DJ = DJ1 - P'(dif) DJ2 - P''(dif) J2 J2',  P'' = 2 c2 + 6 c3 dif + 12 c4 dif^2
// (DJ_k a spatial tendon's motion, gdn_tendon_linear; 0 for a joint or a fixed tendon; no
// obj2: DJ = DJ1). w: the tendon work arrays. 0, or -1 when a tendon's linearization is
// refused (GDN_TENDON_WRAP_WHAT)
static int eq_scalar_dj(const gdnModel* m, const gdnData* d, int id, gdnTendonWork* w,
                        double* DJ) {
    const int nv = m->nv, joint = m->eq_type[id] == GDN_EQ_JOINT;
    const int o1 = m->eq_obj1id[id], o2 = m->eq_obj2id[id];
    const double* c = m->eq_data + GDN_NEQDATA * id;
    const size_t n = (size_t)nv;
    double L, V;
    if (joint) {
        memset(DJ, 0, sizeof(double) * n * n);
    } else if (gdn_tendon_linear(m, d, w->S, o1, &L, &V, w->J, DJ, w->scratch) < 0) {
        return -1;
    }
    if (o2 < 0) {
        return 0;
    }
    const double dif = joint ? d->qpos[m->jnt_qposadr[o2]] - m->qpos0[m->jnt_qposadr[o2]]
                             : d->ten_length[o2] - m->tendon_length0[o2];
    const double deriv = c[1] + 2 * c[2] * dif + 3 * c[3] * dif * dif +
                         4 * c[4] * dif * dif * dif;
    const double curv = 2 * c[2] + 6 * c[3] * dif + 12 * c[4] * dif * dif;
    if (joint) {
        const size_t k = (size_t)m->jnt_dofadr[o2];
        DJ[k * n + k] -= curv;
        return 0;
    }
    if (gdn_tendon_linear(m, d, w->S, o2, &L, &V, w->J, w->DJ, w->scratch) < 0) {
        return -1;
    }
    const double* J2 = d->ten_J + (size_t)o2 * n;
    for (size_t r = 0; r < n; r++) {
        for (size_t k = 0; k < n; k++) {
            DJ[r * n + k] -= deriv * w->DJ[r * n + k] + curv * J2[r] * J2[k];
        }
    }
    return 0;
}

// r = sum_k c_k frame row k
static void combine_rows(double r[3], const double* frame, const double c[3]) {
    for (int e = 0; e < 3; e++) {
        r[e] = c[0] * frame[e] + c[1] * frame[3 + e] + c[2] * frame[6 + e];
    }
}

// frame rows' cotangent += c_k rbar (the adjoint of combine_rows)
static void combine_rows_adjoint(double* framebar, const double c[3], const double rbar[3]) {
    for (int k = 0; k < 3; k++) {
        if (c[k] != 0) {
            gdn_addscl3(framebar + 3 * k, framebar + 3 * k, rbar, c[k]);
        }
    }
}

// The tangent of a . (w x p + v) + b . w for the twist T = (w, v) moving by dT, the point by dp
// and the directions by da, db:
//   da . (w x p + v) + a . (dw x p + w x dp + dv) + db . w + b . dw
static double site_motion(const double a[3], const double b[3], const double da[3],
                          const double db[3], const double T[6], const double dT[6],
                          const double p[3], const double dp[3]) {
    double vel[3], dvel[3], t[3];
    gdn_cross3(vel, T, p);
    gdn_add3(vel, vel, T + 3);
    gdn_cross3(dvel, dT, p);
    gdn_cross3(t, T, dp);
    gdn_add3(dvel, dvel, t);
    gdn_add3(dvel, dvel, dT + 3);
    return gdn_dot3(da, vel) + gdn_dot3(a, dvel) + gdn_dot3(db, T) + gdn_dot3(b, dT);
}

// the adjoint of site_motion for the cotangent sbar of its value: dabar, dbbar, dTbar, dpbar +=
static void site_motion_adjoint(const double a[3], const double b[3], const double T[6],
                                const double p[3], double sbar, double dabar[3],
                                double dbbar[3], double dTbar[6], double dpbar[3]) {
    double vel[3], g[3], t[3];
    gdn_cross3(vel, T, p);
    gdn_add3(vel, vel, T + 3);
    gdn_addscl3(dabar, dabar, vel, sbar);
    gdn_addscl3(dbbar, dbbar, T, sbar);
    gdn_scl3(g, a, sbar);
    // (dw x p) . g = dw . (p x g);  (w x dp) . g = dp . (g x w)
    gdn_cross3(t, p, g);
    gdn_add3(dTbar, dTbar, t);
    gdn_addscl3(dTbar, dTbar, b, sbar);
    gdn_add3(dTbar + 3, dTbar + 3, g);
    gdn_cross3(t, g, T);
    gdn_add3(dpbar, dpbar, t);
}

// dp = x[0:3] x p + x[3:6]: the motion of a point attached to a body moving by twist x
static void point_motion(double dp[3], const double x[6], const double p[3]) {
    gdn_cross3(dp, x, p);
    gdn_add3(dp, dp, x + 3);
}

// A ball limit's row J = -n on the ball's dofs, n the unit rotation vector psi / theta of the
// joint quaternion. Under the local rotation dq (gdn_integrate_pos), d psi = Jr^-1(psi) dq, so
//   d theta = n . dq,   dn = A dq,  A = 0.5 cot(theta / 2) (I - n n') + 0.5 [n]x
// (n is Jr^-1's eigenvector of eigenvalue 1 and (I - n n') [psi]x^2 = -theta^2 (I - n n')).
// The matrix A (row-major) of the row's joint; 0 when theta is 0 (no direction to move)
void gdn_rows_ball_limit_motion(const gdnModel* m, const gdnData* d, int i, double A[9]) {
    const int id = d->efc_id[i], dof = m->jnt_dofadr[id];
    const double* J = d->efc_J + (size_t)i * (size_t)m->nv + (size_t)dof;
    const double n[3] = {-J[0], -J[1], -J[2]};
    const double range = fmax(m->jnt_range[2 * id], m->jnt_range[2 * id + 1]);
    const double theta = range - d->efc_pos[i];
    memset(A, 0, 9 * sizeof(double));
    if (!(theta > 0)) {
        return;
    }
    const double c = 0.5 / tan(0.5 * theta);
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) {
            A[3 * r + k] = c * ((r == k) - n[r] * n[k]);
        }
    }
    // + 0.5 [n]x
    A[1] -= 0.5 * n[2];
    A[2] += 0.5 * n[1];
    A[3] += 0.5 * n[2];
    A[5] -= 0.5 * n[0];
    A[6] -= 0.5 * n[1];
    A[7] += 0.5 * n[0];
}

// How far the linearized step is from another branch, from jar = J x - aref and the states
// the primal update just left in d: the smallest relative distance of a row's jar to a state
// boundary (one-sided rows: jar = 0; friction loss: jar = -+R frictionloss; an elliptic
// contact: its zones N = mu T and mu N + T = 0 in the cone space, rel. to |N| + mu T), and the
// smallest |pos - margin| of a contact or limit row (inclusion)
static void lin_margins(const gdnModel* m, const gdnData* d, const double* jar,
                        gdnRowsLinear* lin) {
    (void)m;
    double state = INFINITY, act = INFINITY;
    for (int i = 0; i < d->nefc; i++) {
        const int type = d->efc_type[i];
        const double scale = fabs(jar[i] + d->efc_aref[i]) + fabs(d->efc_aref[i]) + 1e-300;
        if (type == GDN_CNSTR_LIMIT_JOINT || type == GDN_CNSTR_LIMIT_TENDON ||
            type == GDN_CNSTR_CONTACT_FRICTIONLESS ||
            type == GDN_CNSTR_CONTACT_PYRAMIDAL || type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            act = fmin(act, fabs(d->efc_pos[i] - d->efc_margin[i]));
        }
        if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
            const double Rf = d->efc_R[i] * d->efc_frictionloss[i];
            state = fmin(state, fmin(fabs(jar[i] - Rf), fabs(jar[i] + Rf)) / (scale + Rf));
        } else if (type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            const gdnContact* con = d->contact + d->efc_id[i];
            const double mu = con->mu;
            double N = mu * jar[i], T2 = 0;
            for (int j = 1; j < con->dim; j++) {
                const double u = con->friction[j - 1] * jar[i + j];
                T2 += u * u;
            }
            const double T = sqrt(T2), sc = fabs(N) + mu * T + 1e-300;
            state = fmin(state, fmin(fabs(N - mu * T), fabs(mu * N + T)) / sc);
            i += con->dim - 1;
        } else if (type != GDN_CNSTR_EQUALITY) {
            state = fmin(state, fabs(jar[i]) / scale);
        }
    }
    lin->state_margin = state;
    lin->activation_margin = act;
}

gdnStatus gdn_rows_linear_build(const gdnModel* m, gdnData* d, const double* S, const double* x,
                                gdnRowsLinear* lin, const char** what) {
    const int nefc = d->nefc, nv = m->nv;
    const size_t ne = (size_t)(nefc > 0 ? nefc : 1), nb6 = 6 * (size_t)m->nbody;
    *what = NULL;
    lin->a = gdn_arena_doubles(d, 13 * ne + 2 * nb6); // a, b (3), Hs (6), c (1); Tx, Tv
    lin->hs_kind = gdn_arena_ints(d, 2 * ne);
    // scratch: the xi output of the twist sweeps, jar, the saved forces
    double* scratch = gdn_arena_doubles(d, nb6 + 2 * ne + (size_t)nv);
    if (!lin->a || !lin->hs_kind || !scratch) {
        return GDN_ERR_MEMORY;
    }
    lin->b = lin->a + 3 * ne;
    lin->Hs = lin->b + 3 * ne;
    lin->c = lin->Hs + 6 * ne;
    lin->Tx = lin->c + ne;
    lin->Tv = lin->Tx + nb6;
    lin->x = x;
    lin->mj_weld_torque = 0;
    lin->sizebar = NULL;
    lin->dsize = NULL;

    // every row supported: its site (kept: every direction reads it) and directions
    rowSite* site = (rowSite*)(void*)gdn_arena_doubles(
        d, ne * (sizeof(rowSite) / sizeof(double) + 1));
    if (!site) {
        return GDN_ERR_MEMORY;
    }
    lin->site = site;
    int nspatial = 0;
    for (int i = 0; i < nefc; i++) {
        rowSite* s = site + i;
        if (row_site(m, d, i, s, what) != 0) {
            return GDN_ERR_UNSUPPORTED;
        }
        combine_rows(lin->a + 3 * i, s->frame, s->ca);
        combine_rows(lin->b + 3 * i, s->frame, s->cb);
        if (s->tendon >= 0 && gdn_tendon_is_spatial(m, s->tendon)) {
            s->djrow = nspatial++;
        } else if (s->jrow && s->tendon < 0) {
            // a joint / tendon equality: J moves unless it is one joint or one fixed tendon
            const int id = d->efc_id[i], o1 = m->eq_obj1id[id];
            if (m->eq_obj2id[id] >= 0 ||
                (m->eq_type[id] == GDN_EQ_TENDON && gdn_tendon_is_spatial(m, o1))) {
                s->djrow = nspatial++;
            }
        }
    }
    // the moving J rows' DJ_i: a spatial tendon row's sign_i DJ (sign_i: the row's J is ten_J
    // or -ten_J), an equality's eq_scalar_dj
    lin->tDJ = NULL;
    if (nspatial > 0) {
        const size_t n = (size_t)nv;
        lin->tDJ = gdn_arena_doubles(d, (size_t)nspatial * n * n);
        size_t mark = gdn_arena_mark(d);
        gdnTendonWork w;
        if (!lin->tDJ || gdn_tendon_work_alloc(m, d, &w) != GDN_OK) {
            return GDN_ERR_MEMORY;
        }
        for (int i = 0; i < nefc; i++) {
            const rowSite* s = site + i;
            if (s->djrow < 0) {
                continue;
            }
            double L, V;
            double* DJ = lin->tDJ + (size_t)s->djrow * n * n;
            if (s->tendon < 0) {
                if (eq_scalar_dj(m, d, d->efc_id[i], &w, DJ) < 0) {
                    *what = GDN_TENDON_WRAP_WHAT;
                    return GDN_ERR_UNSUPPORTED;
                }
                continue;
            }
            if (gdn_tendon_linear(m, d, w.S, s->tendon, &L, &V, w.J, DJ, w.scratch) < 0) {
                *what = GDN_TENDON_WRAP_WHAT;
                return GDN_ERR_UNSUPPORTED;
            }
            const double* Ji = d->efc_J + (size_t)i * n;
            const double* Jt = d->ten_J + (size_t)s->tendon * n;
            int kmax = 0;
            for (int k = 1; k < nv; k++) {
                kmax = fabs(Jt[k]) > fabs(Jt[kmax]) ? k : kmax;
            }
            if (nv > 0 && Ji[kmax] != Jt[kmax]) {
                for (size_t k = 0; k < n * n; k++) {
                    DJ[k] = -DJ[k];
                }
            }
        }
        gdn_arena_reset(d, mark);
    }
    // every included contact's pair has a geometry derivative
    for (int k = 0; k < d->ncon; k++) {
        const gdnContact* con = d->contact + k;
        gdnContactTangent t;
        if (con->efc_address >= 0 &&
            gdn_contact_tangent(m, d, con, NULL, NULL, NULL, NULL, &t) != GDN_OK) {
            *what = "contact pair";
            return GDN_ERR_UNSUPPORTED;
        }
    }
    // body twists of x and of v: V_b(q, u) = sum over the path of S_j u_j
    gdn_body_tangent_jvp_axes(m, d, S, d->qvel, NULL, x, scratch, lin->Tx);
    gdn_body_tangent_jvp_axes(m, d, S, d->qvel, NULL, d->qvel, scratch, lin->Tv);

    // H_s from the primal update's states at jar = J x - aref (d's forces, states and
    // qfrc_constraint restored after): the cone blocks land in Hs, as gdn_constraint_update
    // lays them out, the quadratic rows' D are added
    double* jar = scratch;
    double* saved = scratch + ne; // force (nefc), qfrc_constraint (nv)
    int* state_saved = lin->hs_kind + ne;
    gdn_solver_mul_J(m, d, jar, x);
    for (int i = 0; i < nefc; i++) {
        jar[i] -= d->efc_aref[i];
    }
    memcpy(saved, d->efc_force, sizeof(double) * (size_t)nefc);
    memcpy(saved + nefc, d->qfrc_constraint, sizeof(double) * (size_t)nv);
    memcpy(state_saved, d->efc_state, sizeof(int) * (size_t)nefc);
    memset(lin->Hs, 0, sizeof(double) * 6 * ne);
    gdn_constraint_update(m, d, jar, NULL, lin->Hs);
    for (int i = 0; i < nefc; i++) {
        const int st = d->efc_state[i];
        if (st == GDN_CNSTRSTATE_CONE) {
            const int dim = d->contact[d->efc_id[i]].dim;
            for (int j = 0; j < dim; j++) {
                lin->hs_kind[i + j] = j == 0 ? 2 : 3;
            }
            i += dim - 1;
        } else if (st == GDN_CNSTRSTATE_QUADRATIC) {
            lin->hs_kind[i] = 1;
            lin->Hs[6 * i] = d->efc_D[i];
        } else {
            lin->hs_kind[i] = 0;
        }
    }
    // the IFT's premise: the solver's forces are the primal update's at its acceleration (Newton
    // and CG compute them so; PGS's dual iterate can stall away from it on elliptic cones)
    double fmax_abs = 1, fdiff = 0;
    for (int i = 0; i < nefc; i++) {
        fmax_abs = fmax(fmax_abs, fabs(saved[i]));
        fdiff = fmax(fdiff, fabs(saved[i] - d->efc_force[i]));
    }
    lin->force_gap = fdiff / fmax_abs;
    lin_margins(m, d, jar, lin);
    memcpy(d->efc_state, state_saved, sizeof(int) * (size_t)nefc);
    memcpy(d->efc_force, saved, sizeof(double) * (size_t)nefc);
    memcpy(d->qfrc_constraint, saved + nefc, sizeof(double) * (size_t)nv);
    if (fdiff > GDN_ROWS_FORCE_TOL * fmax_abs) {
        *what = "solve (its forces are not the primal optimum's at its acceleration)";
        return GDN_ERR_UNCONVERGED;
    }

    // d log D / d imp = 1 / (imp (1 - imp)) where R = (1 - imp) diagApprox / imp is not clamped
    for (int i = 0; i < nefc; i++) {
        const double imp = d->efc_KBIP[4 * i + 2];
        const int type = d->efc_type[i];
        const int constant = type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON;
        lin->c[i] = !constant && imp > 0 && imp < 1 && d->efc_R[i] > GDN_MINVAL
                        ? 1 / (imp * (1 - imp))
                        : 0;
    }
    return GDN_OK;
}

void gdn_rows_wrench(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin, double* W,
                     double* qfrc) {
    gdn_rows_wrench_of(m, d, lin, d->efc_force, W, qfrc);
}

void gdn_rows_wrench_of(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* force, double* W, double* qfrc) {
    const rowSite* site = lin->site;
    for (int i = 0; i < d->nefc; i++) {
        const rowSite s = site[i]; // (its frame pointer stays the cached site's)
        const double f = force[i];
        if (f == 0) {
            continue;
        }
        if (s.jrow) {
            // J' f over every column (no body wrench moves with it)
            const double* J = d->efc_J + (size_t)i * (size_t)m->nv;
            for (int k = 0; qfrc && k < m->nv; k++) {
                qfrc[k] += J[k] * f;
            }
            continue;
        }
        if (s.dof >= 0) {
            if (qfrc) {
                qfrc[s.dof] += d->efc_J[(size_t)i * (size_t)m->nv + (size_t)s.dof] * f;
            }
            continue;
        }
        if (mj_weld_rotation(lin, &s)) {
            // MuJoCo's cfrc_ext: the rotation row's force as the torque's component
            for (int k = 0; k < 2; k++) {
                W[6 * s.body[k] + s.eqrow - 3] += s.sign[k] * f;
            }
            continue;
        }
        const double* a = lin->a + 3 * i;
        const double* b = lin->b + 3 * i;
        // W_s += sigma_s f [p_s x a + b; a]
        for (int k = 0; k < 2; k++) {
            double* w = W + 6 * s.body[k];
            double t[3];
            const double sf = s.sign[k] * f;
            gdn_cross3(t, s.p[k], a);
            gdn_add3(t, t, b);
            gdn_addscl3(w, w, t, sf);
            gdn_addscl3(w + 3, w + 3, a, sf);
        }
    }
}

void gdn_rows_wrench_of_vjp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                            const double* Wbar, double* fbar) {
    (void)m;
    const rowSite* site = lin->site;
    for (int i = 0; i < d->nefc; i++) {
        const rowSite s = site[i];
        if (s.jrow || s.dof >= 0) {
            continue; // no body wrench
        }
        if (mj_weld_rotation(lin, &s)) {
            for (int k = 0; k < 2; k++) {
                fbar[i] += s.sign[k] * Wbar[6 * s.body[k] + s.eqrow - 3];
            }
            continue;
        }
        const double* a = lin->a + 3 * i;
        const double* b = lin->b + 3 * i;
        // fbar_i += sum_s sigma_s [p_s x a + b; a] . Wbar_s
        for (int k = 0; k < 2; k++) {
            const double* w = Wbar + 6 * s.body[k];
            double t[3];
            gdn_cross3(t, s.p[k], a);
            gdn_add3(t, t, b);
            fbar[i] += s.sign[k] * (gdn_dot3(t, w) + gdn_dot3(a, w + 3));
        }
    }
}

void gdn_rows_hs_mul(const gdnData* d, const gdnRowsLinear* lin, const double* u, double* y) {
    for (int i = 0; i < d->nefc; i++) {
        const int kind = lin->hs_kind[i];
        if (kind == 2) {
            const int dim = d->contact[d->efc_id[i]].dim;
            const double* H = lin->Hs + 6 * i;
            for (int r = 0; r < dim; r++) {
                double acc = 0;
                for (int c = 0; c < dim; c++) {
                    acc += H[r * dim + c] * u[i + c];
                }
                y[i + r] = acc;
            }
            i += dim - 1;
        } else {
            y[i] = kind == 1 ? lin->Hs[6 * i] * u[i] : 0;
        }
    }
}

// One row's tangent (rows_derivative.h): t its contact's geometry tangent (contact rows), x, e,
// ex the twists xi, eta, etax of its two body sites (body rows), dq, dv its dofs' directions (dof
// rows; NULL = 0). Writes *djar0, *dlogD; ADDS the sites' frozen-force wrench tangents to dW[s]
// (body rows) and the dof rows' frozen generalized-force tangent to dqfrc (may be NULL)
static void row_tangent(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin, int i,
                        const gdnContactTangent* t, const double* const x[2],
                        const double* const e[2], const double* const ex[2], const double* dq,
                        const double* dv, double* djar0, double* dlogD, double* const dW[2],
                        double* dqfrc) {
    const int nv = m->nv;
    const rowSite* sp = (const rowSite*)lin->site + i;
    const double* kbip = d->efc_KBIP + 4 * i;
    const double* a = lin->a + 3 * i;
    const double* b = lin->b + 3 * i;
    const double f = d->efc_force[i];
    double djx = 0, dvel = 0, dpos = 0, dviol = 0;
    if (sp->jrow) {
        const double* J = d->efc_J + (size_t)i * (size_t)nv;
        for (int k = 0; k < nv; k++) {
            dvel += dv ? J[k] * dv[k] : 0;
            dpos += dq && sp->pos_moves ? J[k] * dq[k] : 0;
        }
        dviol = dpos;
        if (sp->djrow >= 0 && dq) {
            // w = DJ_i dq: djx = w . x, d vel += w . v, the frozen force's f w
            const double* DJ = lin->tDJ + (size_t)sp->djrow * (size_t)nv * (size_t)nv;
            for (int r = 0; r < nv; r++) {
                double wr = 0;
                for (int c = 0; c < nv; c++) {
                    wr += DJ[(size_t)r * (size_t)nv + (size_t)c] * dq[c];
                }
                djx += wr * lin->x[r];
                dvel += wr * d->qvel[r];
                if (dqfrc) {
                    dqfrc[r] += f * wr;
                }
            }
        }
    } else if (sp->dof >= 0) {
        // J_i = c on the row's dofs: d vel = c dv + d(c) v, a limit's d pos = c dq; c is
        // constant but for a ball limit's (-n: dc = -A dq, and the frozen force -f n moves
        // by -f A dq)
        const double* cj = d->efc_J + (size_t)i * (size_t)nv + (size_t)sp->dof;
        for (int k = 0; k < sp->ndof; k++) {
            dvel += dv ? cj[k] * dv[sp->dof + k] : 0;
            dpos += dq && d->efc_type[i] == GDN_CNSTR_LIMIT_JOINT ? cj[k] * dq[sp->dof + k] : 0;
        }
        dviol = dpos;
        if (sp->ndof == 3 && dq) {
            double A[9], dn[3];
            gdn_rows_ball_limit_motion(m, d, i, A);
            gdn_mulmat3(dn, A, dq + sp->dof);
            djx = -gdn_dot3(dn, lin->x + sp->dof);
            dvel -= gdn_dot3(dn, d->qvel + sp->dof);
            if (dqfrc) {
                gdn_addscl3(dqfrc + sp->dof, dqfrc + sp->dof, dn, -f);
            }
        }
    } else {
        double dp[2][3], da[3], db[3], dframe[9] = {0};
        if (sp->contact >= 0) {
            gdn_copy3(dp[0], t->pos);
            gdn_copy3(dp[1], t->pos);
            memcpy(dframe, t->frame, sizeof(dframe));
            dpos = sp->normal ? t->dist : 0;
            dviol = t->dist;
        } else {
            // equality: the anchors ride their bodies, pos_0..2 = p_0 - p_1; a weld's
            // rotation rows move with its error quaternion, pos_3..5 = ev
            double dpos6[6] = {0}, u[6];
            point_motion(dp[0], x[0], sp->p[0]);
            point_motion(dp[1], x[1], sp->p[1]);
            gdn_sub3(dpos6, dp[0], dp[1]);
            if (sp->weld) {
                weldFrame w;
                double dframe_w[9];
                weld_frame(m, d, d->efc_id[i], &w);
                weld_tangent(&w, x[0], x[1], dframe_w, dpos6 + 3);
                if (sp->eqrow >= 3) {
                    memcpy(dframe, dframe_w, sizeof(dframe));
                }
            }
            dpos = dpos6[sp->eqrow];
            equality_weights(m, d, i - sp->eqrow, sp->weld, u);
            for (int k = 0; k < 6; k++) {
                dviol += u[k] * dpos6[k];
            }
        }
        combine_rows(da, dframe, sp->ca);
        combine_rows(db, dframe, sp->cb);
        for (int k = 0; k < 2; k++) {
            const int bk = sp->body[k];
            // a body welded to the world has no twist and no twist tangent: site_motion is 0
            if (m->body_weldid[bk] != 0) {
                djx += sp->sign[k] *
                       site_motion(a, b, da, db, lin->Tx + 6 * bk, ex[k], sp->p[k], dp[k]);
                dvel += sp->sign[k] *
                        site_motion(a, b, da, db, lin->Tv + 6 * bk, e[k], sp->p[k], dp[k]);
            }
            // frozen-force wrench: dW_s += sigma_s f [dp_s x a + p_s x da + db; da] (none for
            // MuJoCo's weld torque, which is f itself)
            if (f != 0 && !mj_weld_rotation(lin, sp)) {
                double tt[3], uu[3];
                double* w = dW[k];
                const double sf = sp->sign[k] * f;
                gdn_cross3(tt, dp[k], a);
                gdn_cross3(uu, sp->p[k], da);
                gdn_add3(tt, tt, uu);
                gdn_add3(tt, tt, db);
                gdn_addscl3(w, w, tt, sf);
                gdn_addscl3(w + 3, w + 3, da, sf);
            }
        }
    }
    // aref = -B vel - K imp (pos - margin):
    //   d aref = -B d vel - K (imp' d viol (pos - margin) + imp d pos)
    const double dimp = kbip[3] * dviol;
    const double daref =
        -kbip[1] * dvel - kbip[0] * (dimp * (d->efc_pos[i] - d->efc_margin[i]) + kbip[2] * dpos);
    *djar0 = djx - daref;
    *dlogD = lin->c[i] * dimp;
}

gdnStatus gdn_rows_jvp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                       const double* xi, const double* eta, const double* etax,
                       const double* dq, const double* dv, const char* moved,
                       double* djar0, double* dlogD, double* dW, double* dqfrc) {
    size_t mark = gdn_arena_mark(d);
    gdnContactTangent* tan = NULL;
    if (d->ncon > 0) {
        tan = (gdnContactTangent*)(void*)gdn_arena_doubles(
            d, (size_t)d->ncon * (sizeof(gdnContactTangent) / sizeof(double) + 1));
        if (!tan) {
            return GDN_ERR_MEMORY;
        }
    }
    // every included contact's geometry tangent under the twists of its two bodies
    for (int k = 0; k < d->ncon; k++) {
        const gdnContact* con = d->contact + k;
        if (con->efc_address < 0) {
            continue;
        }
        const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
        const double* ds = lin->dsize;
        if (moved && !ds && !moved[b1] && !moved[b2]) {
            continue; // its rows are skipped below (a size direction moves them all the same)
        }
        gdnStatus status = gdn_contact_tangent(m, d, con, xi + 6 * b1, xi + 6 * b2,
                                               ds ? ds + 3 * con->geom1 : NULL,
                                               ds ? ds + 3 * con->geom2 : NULL, tan + k);
        if (status != GDN_OK) {
            gdn_arena_reset(d, mark);
            return status;
        }
    }
    const rowSite* site = lin->site;
    for (int i = 0; i < d->nefc; i++) {
        const rowSite* sp = site + i;
        // a body row whose two bodies do not move along this direction: no tangent
        if (moved && !lin->dsize && sp->dof < 0 && !sp->jrow && !moved[sp->body[0]] &&
            !moved[sp->body[1]]) {
            djar0[i] = 0;
            dlogD[i] = 0;
            continue;
        }
        const int b0 = sp->body[0], b1 = sp->body[1];
        const double* const x[2] = {xi + 6 * b0, xi + 6 * b1};
        const double* const e[2] = {eta + 6 * b0, eta + 6 * b1};
        const double* const ex[2] = {etax + 6 * b0, etax + 6 * b1};
        double* const w[2] = {dW + 6 * b0, dW + 6 * b1};
        row_tangent(m, d, lin, i, sp->contact >= 0 ? tan + sp->contact : NULL, x, e, ex, dq, dv,
                    djar0 + i, dlogD + i, w, dqfrc);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_rows_twist_forms(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                               gdnRowsTwistForms* F) {
    const int nefc = d->nefc, nv = m->nv;
    const size_t ne = (size_t)(nefc > 0 ? nefc : 1);
    const rowSite* site = lin->site;
    // the groups: consecutive body rows of one constraint (same type and id)
    F->group = gdn_arena_ints(d, 8 * ne + 1);
    if (!F->group) {
        return GDN_ERR_MEMORY;
    }
    F->body = F->group + ne;
    F->dof = F->body + 2 * ne;
    F->ndof = F->dof + ne;
    F->tendon = F->ndof + ne;
    F->djrow = F->tendon + ne;
    F->group_row = F->djrow + ne;
    int ng = 0;
    for (int i = 0; i < nefc; i++) {
        F->body[2 * i] = site[i].body[0];
        F->body[2 * i + 1] = site[i].body[1];
        F->dof[i] = site[i].dof;
        F->ndof[i] = site[i].dof >= 0 ? site[i].ndof : 0;
        F->tendon[i] = site[i].jrow ? d->efc_id[i] : -1;
        if (site[i].dof >= 0 || site[i].jrow) {
            F->group[i] = -1;
            continue;
        }
        if (i == 0 || site[i - 1].dof >= 0 || site[i - 1].jrow ||
            d->efc_type[i - 1] != d->efc_type[i] ||
            d->efc_id[i - 1] != d->efc_id[i]) {
            F->group_row[ng++] = i;
        }
        F->group[i] = ng - 1;
    }
    F->ngroup = ng;
    F->group_row[ng] = nefc;
    F->gxi = gdn_arena_doubles(d, 53 * ne + 144 * (size_t)(ng > 0 ? ng : 1));
    if (!F->gxi) {
        return GDN_ERR_MEMORY;
    }
    F->glog = F->gxi + 12 * ne;
    F->gT = F->glog + 12 * ne;
    F->gdq = F->gT + 12 * ne;
    F->ldq = F->gdq + 3 * ne;
    F->Qdq = F->ldq + 3 * ne;
    F->tq = F->Qdq + 9 * ne;
    F->tl = F->tq + ne;
    F->GW = F->tl + ne;
    // zero: the forms of the sides welded to the world and the dof and tendon rows' unused
    // entries (gT included: a body row's is set below)
    memset(F->gxi, 0, sizeof(double) * 36 * ne);
    F->tDJ = lin->tDJ;
    F->tz = NULL;
    int nspatial = 0;
    for (int i = 0; i < nefc; i++) {
        F->tq[i] = F->tl[i] = 0;
        F->djrow[i] = site[i].djrow;
        nspatial += site[i].djrow >= 0;
        if (site[i].jrow) {
            tendon_row_coefs(d, lin, i, site[i].pos_moves, F->tq + i, F->tl + i);
        }
    }
    if (nspatial > 0) {
        // tz_i = DJ_i' (x + B_i v): a position column's d(J_i) x + B_i d(J_i) v
        const size_t n = (size_t)nv;
        F->tz = gdn_arena_doubles(d, (size_t)nefc * n + 1);
        double* u = gdn_arena_doubles(d, n + 1);
        if (!F->tz || !u) {
            return GDN_ERR_MEMORY;
        }
        for (int i = 0; i < nefc; i++) {
            if (site[i].djrow < 0) {
                continue;
            }
            const double Bi = d->efc_KBIP[4 * i + 1];
            for (int r = 0; r < nv; r++) {
                u[r] = lin->x[r] + Bi * d->qvel[r];
            }
            gdn_tendon_dj_mul_t(nv, lin->tDJ + (size_t)site[i].djrow * n * n, u, F->tz + i * n);
        }
    }
    memset(F->gdq, 0, sizeof(double) * 15 * ne);
    memset(F->GW, 0, sizeof(double) * 144 * (size_t)ng);

    static const double zero6[6] = {0};
    const double* const still[2] = {zero6, zero6};
    for (int g = 0; g < ng; g++) {
        const int i0 = F->group_row[g], i1 = F->group_row[g + 1];
        const rowSite* s0 = site + i0;
        const gdnContact* con = s0->contact >= 0 ? d->contact + s0->contact : NULL;
        for (int t = 0; t < 2; t++) {
            // a body welded to the world never moves: its forms stay 0
            if (m->body_weldid[s0->body[t]] == 0) {
                continue;
            }
            for (int k = 0; k < 6; k++) {
                double unit[6] = {0};
                unit[k] = 1;
                const double* const x[2] = {t == 0 ? unit : zero6, t == 1 ? unit : zero6};
                gdnContactTangent tan;
                if (con) {
                    gdnStatus status = gdn_contact_tangent(m, d, con, x[0], x[1], NULL, NULL,
                                                           &tan);
                    if (status != GDN_OK) {
                        return status;
                    }
                }
                double w[2][6] = {{0}};
                double* const dW[2] = {w[0], w[1]};
                for (int i = i0; i < i1; i++) {
                    double dj, dl;
                    row_tangent(m, d, lin, i, con ? &tan : NULL, x, still, still, NULL, NULL,
                                &dj, &dl, dW, NULL);
                    F->gxi[12 * i + 6 * t + k] = dj;
                    F->glog[12 * i + 6 * t + k] = dl;
                }
                // column k of GW_g[side][t]
                for (int side = 0; side < 2; side++) {
                    double* G = F->GW + 144 * (size_t)g + 72 * side + 36 * t;
                    for (int r = 0; r < 6; r++) {
                        G[6 * r + k] = w[side][r];
                    }
                }
            }
        }
        // the eta / etax coefficients: sigma_s [p_s x a + b; a]
        for (int i = i0; i < i1; i++) {
            const double* a = lin->a + 3 * i;
            const double* b = lin->b + 3 * i;
            for (int t = 0; t < 2; t++) {
                double* gT = F->gT + 12 * i + 6 * t;
                const double sg = site[i].sign[t];
                gdn_cross3(gT, site[i].p[t], a);
                gdn_add3(gT, gT, b);
                gdn_copy3(gT + 3, a);
                for (int k = 0; k < 6; k++) {
                    gT[k] *= sg;
                }
            }
        }
    }
    // the dof rows: unit position directions on the row's dofs
    double* dq = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1) * 2);
    if (!dq) {
        return GDN_ERR_MEMORY;
    }
    double* dqfrc = dq + nv;
    memset(dq, 0, sizeof(double) * (size_t)nv);
    memset(dqfrc, 0, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nefc; i++) {
        const rowSite* s = site + i;
        if (s->dof < 0) {
            continue;
        }
        const double* const x[2] = {zero6, zero6};
        for (int k = 0; k < s->ndof; k++) {
            double dj, dl;
            double* const dW[2] = {NULL, NULL};
            dq[s->dof + k] = 1;
            row_tangent(m, d, lin, i, NULL, x, x, x, dq, NULL, &dj, &dl, dW, dqfrc);
            dq[s->dof + k] = 0;
            F->gdq[3 * i + k] = dj;
            F->ldq[3 * i + k] = dl;
            for (int r = 0; r < s->ndof; r++) {
                F->Qdq[9 * i + 3 * r + k] = dqfrc[s->dof + r];
                dqfrc[s->dof + r] = 0;
            }
        }
    }
    return GDN_OK;
}

void gdn_rows_hs_mul_columns(const gdnData* d, const gdnRowsLinear* lin, double* Y, int ld,
                             int ncol) {
    const size_t lds = (size_t)ld, cols = (size_t)ncol;
    double t[6];
    for (int i = 0; i < d->nefc; i++) {
        const int kind = lin->hs_kind[i];
        double* Yi = Y + (size_t)i * lds;
        if (kind == 2) {
            const int dim = d->contact[d->efc_id[i]].dim;
            const double* H = lin->Hs + 6 * i;
            for (size_t c = 0; c < cols; c++) {
                for (int r = 0; r < dim; r++) {
                    double acc = 0;
                    for (int k = 0; k < dim; k++) {
                        acc += H[r * dim + k] * Yi[(size_t)k * lds + c];
                    }
                    t[r] = acc;
                }
                for (int r = 0; r < dim; r++) {
                    Yi[(size_t)r * lds + c] = t[r];
                }
            }
            i += dim - 1;
        } else {
            const double sc = kind == 1 ? lin->Hs[6 * i] : 0;
            for (size_t c = 0; c < cols; c++) {
                Yi[c] *= sc;
            }
        }
    }
}

gdnStatus gdn_rows_vjp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                       const double* djar0bar, const double* dlogDbar, const double* dWbar,
                       const double* dqfrcbar, double* xibar, double* etabar, double* etaxbar,
                       double* gq, double* gv) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    gdnContactTangent* tbar = NULL;
    if (d->ncon > 0) {
        tbar = (gdnContactTangent*)(void*)gdn_arena_doubles(
            d, (size_t)d->ncon * (sizeof(gdnContactTangent) / sizeof(double) + 1));
        if (!tbar) {
            return GDN_ERR_MEMORY;
        }
        memset(tbar, 0, sizeof(gdnContactTangent) * (size_t)d->ncon);
    }
    for (int i = 0; i < d->nefc; i++) {
        const rowSite s = ((const rowSite*)lin->site)[i];
        const double* kbip = d->efc_KBIP + 4 * i;
        const double* a = lin->a + 3 * i;
        const double* b = lin->b + 3 * i;
        const double f = d->efc_force[i];
        // djar0 = djx - daref,  daref = -B dvel - K (dimp (pos - margin) + imp dpos),
        // dimp = imp' dviol,  dlogD = c dimp
        const double jb = djar0bar ? djar0bar[i] : 0;
        const double arefbar = -jb;
        const double dvelbar = -kbip[1] * arefbar;
        double dimpbar = -kbip[0] * (d->efc_pos[i] - d->efc_margin[i]) * arefbar;
        const double dposbar = -kbip[0] * kbip[2] * arefbar;
        if (dlogDbar) {
            dimpbar += lin->c[i] * dlogDbar[i];
        }
        const double dviolbar = kbip[3] * dimpbar;
        if (s.jrow) {
            // dvel = J dv, a limit's or an equality's dpos = dviol = J dq
            const double* J = d->efc_J + (size_t)i * (size_t)nv;
            const int limit = s.pos_moves;
            for (int k = 0; k < nv; k++) {
                if (gv) {
                    gv[k] += J[k] * dvelbar;
                }
                if (gq && limit) {
                    gq[k] += J[k] * (dposbar + dviolbar);
                }
            }
            if (s.djrow >= 0 && gq) {
                // gq += DJ_i' (jb x + dvelbar v + f dqfrcbar)
                const double* DJ = lin->tDJ + (size_t)s.djrow * (size_t)nv * (size_t)nv;
                for (int r = 0; r < nv; r++) {
                    const double ur = jb * lin->x[r] + dvelbar * d->qvel[r] +
                                      (dqfrcbar ? f * dqfrcbar[r] : 0);
                    for (int c = 0; ur != 0 && c < nv; c++) {
                        gq[c] += DJ[(size_t)r * (size_t)nv + (size_t)c] * ur;
                    }
                }
            }
            continue;
        }
        if (s.dof >= 0) {
            const double* cj = d->efc_J + (size_t)i * (size_t)nv + (size_t)s.dof;
            for (int k = 0; k < s.ndof; k++) {
                if (gv) {
                    gv[s.dof + k] += cj[k] * dvelbar;
                }
                if (gq && d->efc_type[i] == GDN_CNSTR_LIMIT_JOINT) {
                    gq[s.dof + k] += cj[k] * (dposbar + dviolbar);
                }
            }
            if (s.ndof == 3 && gq) {
                // dn = A dq feeds djx = -dn . x, dvel -= dn . v, dqfrc = -f dn
                double A[9], dnbar[3], g[3];
                gdn_rows_ball_limit_motion(m, d, i, A);
                for (int k = 0; k < 3; k++) {
                    dnbar[k] = -lin->x[s.dof + k] * jb - d->qvel[s.dof + k] * dvelbar -
                               (dqfrcbar ? f * dqfrcbar[s.dof + k] : 0);
                }
                gdn_mulmat3T(g, A, dnbar);
                gdn_add3(gq + s.dof, gq + s.dof, g);
            }
            continue;
        }
        double dpbar[2][3] = {{0}}, dabar[3] = {0}, dbbar[3] = {0};
        for (int k = 0; k < 2; k++) {
            const int bk = s.body[k];
            site_motion_adjoint(a, b, lin->Tx + 6 * bk, s.p[k], s.sign[k] * jb, dabar, dbbar,
                                etaxbar + 6 * bk, dpbar[k]);
            site_motion_adjoint(a, b, lin->Tv + 6 * bk, s.p[k], s.sign[k] * dvelbar, dabar,
                                dbbar, etabar + 6 * bk, dpbar[k]);
            // frozen-force wrench adjoint, Wbar = (tau, F):
            //   dpbar += sf a x tau,  dabar += sf (tau x p + F),  dbbar += sf tau
            if (f != 0 && dWbar && !mj_weld_rotation(lin, &s)) {
                const double* wb = dWbar + 6 * bk;
                const double sf = s.sign[k] * f;
                double t[3];
                gdn_cross3(t, a, wb);
                gdn_addscl3(dpbar[k], dpbar[k], t, sf);
                gdn_cross3(t, wb, s.p[k]);
                gdn_add3(t, t, wb + 3);
                gdn_addscl3(dabar, dabar, t, sf);
                gdn_addscl3(dbbar, dbbar, wb, sf);
            }
        }
        if (s.contact >= 0) {
            gdnContactTangent* t = tbar + s.contact;
            gdn_add3(t->pos, t->pos, dpbar[0]);
            gdn_add3(t->pos, t->pos, dpbar[1]);
            combine_rows_adjoint(t->frame, s.ca, dabar);
            combine_rows_adjoint(t->frame, s.cb, dbbar);
            t->dist += dviolbar + (s.normal ? dposbar : 0);
        } else {
            // equality: dpos6 = (dp_0 - dp_1, dev) feeds dpos (row eqrow) and dviol (u . dpos6)
            double u[6], dpos6bar[6];
            equality_weights(m, d, i - s.eqrow, s.weld, u);
            for (int k = 0; k < 6; k++) {
                dpos6bar[k] = u[k] * dviolbar;
            }
            dpos6bar[s.eqrow] += dposbar;
            gdn_add3(dpbar[0], dpbar[0], dpos6bar);
            gdn_sub3(dpbar[1], dpbar[1], dpos6bar);
            if (s.weld) {
                double dframebar[9] = {0};
                if (s.eqrow >= 3) {
                    combine_rows_adjoint(dframebar, s.cb, dbbar);
                }
                weldFrame w;
                weld_frame(m, d, d->efc_id[i], &w);
                weld_tangent_adjoint(&w, dframebar, dpos6bar + 3, xibar + 6 * s.body[0],
                                     xibar + 6 * s.body[1]);
            }
            for (int k = 0; k < 2; k++) {
                // dp = x[0:3] x p + x[3:6]:  xbar[0:3] += p x dpbar, xbar[3:6] += dpbar
                double* xb = xibar + 6 * s.body[k];
                double t[3];
                gdn_cross3(t, s.p[k], dpbar[k]);
                gdn_add3(xb, xb, t);
                gdn_add3(xb + 3, xb + 3, dpbar[k]);
            }
        }
    }
    // the contacts' geometry adjoints into the twists of their bodies
    for (int k = 0; k < d->ncon; k++) {
        const gdnContact* con = d->contact + k;
        if (con->efc_address < 0) {
            continue;
        }
        const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
        double* sb = lin->sizebar;
        gdnStatus status = gdn_contact_tangent_adjoint(
            m, d, con, tbar + k, xibar + 6 * b1, xibar + 6 * b2, sb ? sb + 3 * con->geom1 : NULL,
            sb ? sb + 3 * con->geom2 : NULL);
        if (status != GDN_OK) {
            gdn_arena_reset(d, mark);
            return status;
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// The inverse weights a row's D follows (R = (1 - imp) / imp dA, dA its diagApprox, rows.c's
// gdn_rows_diag_approx; a contact's rows all follow its first row's R, whose dA is tran =
// bw[2 b1] + bw[2 b2] times (1 + mu_0^2) for a pyramid, a factor that cancels in d log dA):
// d log D_i = -d log dA = -(sum of the weights' tangents) / dA. idx[0..n) are the weights'
// indices into (body_invweight0, dof_invweight0, tendon_invweight0) stacked (2 nbody + nv +
// ntendon); returns n (0: the row does not follow them: R clamped at GDN_MINVAL or dA <= 0) and
// dA
static int row_weights(const gdnModel* m, const gdnData* d, int i, int idx[2], double* dA) {
    const double* bw = m->body_invweight0;
    const int id = d->efc_id[i], nb2 = 2 * m->nbody;
    int n = 0, b1 = -1, b2 = -1;
    if (!(d->efc_R[i] > GDN_MINVAL)) {
        return 0;
    }
    switch (d->efc_type[i]) {
    case GDN_CNSTR_EQUALITY:
        b1 = m->eq_obj1id[id];
        b2 = m->eq_obj2id[id];
        if (gdn_eq_is_scalar(m->eq_type[id])) {
            // joint / tendon: obj1's (and obj2's) dof_invweight0 or tendon_invweight0
            const int joint = m->eq_type[id] == GDN_EQ_JOINT;
            *dA = 0;
            for (int k = 0; k < 1 + (b2 >= 0); k++) {
                const int o = k ? b2 : b1;
                idx[n] = joint ? nb2 + m->jnt_dofadr[o] : nb2 + m->nv + o;
                *dA += joint ? m->dof_invweight0[m->jnt_dofadr[o]] : m->tendon_invweight0[o];
                n++;
            }
            return *dA > 0 ? n : 0;
        }
        break;
    case GDN_CNSTR_FRICTION_DOF:
    case GDN_CNSTR_LIMIT_JOINT: {
        const int dof = d->efc_type[i] == GDN_CNSTR_FRICTION_DOF ? id : m->jnt_dofadr[id];
        idx[n++] = nb2 + dof;
        *dA = m->dof_invweight0[dof];
        return *dA > 0 ? n : 0;
    }
    case GDN_CNSTR_FRICTION_TENDON:
    case GDN_CNSTR_LIMIT_TENDON:
        idx[n++] = nb2 + m->nv + id;
        *dA = m->tendon_invweight0[id];
        return *dA > 0 ? n : 0;
    case GDN_CNSTR_CONTACT_FRICTIONLESS:
    case GDN_CNSTR_CONTACT_PYRAMIDAL:
    case GDN_CNSTR_CONTACT_ELLIPTIC:
        b1 = m->geom_bodyid[d->contact[id].geom1];
        b2 = m->geom_bodyid[d->contact[id].geom2];
        break;
    default:
        return 0;
    }
    idx[n++] = 2 * b1;
    idx[n++] = 2 * b2;
    *dA = bw[2 * b1] + bw[2 * b2];
    return *dA > 0 ? n : 0;
}

void gdn_rows_weights_vjp(const gdnModel* m, const gdnData* d, const double* dlogDbar,
                          double* gw) {
    for (int i = 0; i < d->nefc; i++) {
        int idx[2];
        double dA = 0;
        const int n = dlogDbar[i] != 0 ? row_weights(m, d, i, idx, &dA) : 0;
        for (int k = 0; k < n; k++) {
            gw[idx[k]] -= dlogDbar[i] / dA;
        }
    }
}

void gdn_rows_weights_jvp(const gdnModel* m, const gdnData* d, const double* dw,
                          double* dlogD) {
    for (int i = 0; i < d->nefc; i++) {
        int idx[2];
        double dA = 0;
        const int n = row_weights(m, d, i, idx, &dA);
        for (int k = 0; k < n; k++) {
            dlogD[i] -= dw[idx[k]] / dA;
        }
    }
}
