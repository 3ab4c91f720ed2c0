// SPDX-License-Identifier: Apache-2.0
// Equality-constraint rows (MuJoCo 2.2.2): connect (3 rows) and weld (6 rows), body1 - body2;
// joint and tendon (1 row each), obj1 - polynomial(obj2).
#include <string.h>

#include "constraint/constraint.h"
#include "constraint/rows.h"
#include "math/vec.h"

// world point of a body-frame point: p = xpos + xmat local
static void body_point(const gdnData* d, int body, const double local[3], double p[3]) {
    gdn_mulmat3(p, d->xmat + 9 * body, local);
    gdn_add3(p, p, d->xpos + 3 * body);
}

// r = q (0, v)
static void mul_quat_axis(double r[4], const double q[4], const double v[3]) {
    const double pure[4] = {0, v[0], v[1], v[2]};
    gdn_mulquat(r, q, pure);
}

// connect: pos = p1 - p2 with p_k the anchor data[3(k-1) ..] on body k, J = Jp1 - Jp2
static int rows_connect(const gdnModel* m, gdnData* d, int i, double* s) {
    int nv = m->nv, b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    const double* data = m->eq_data + GDN_NEQDATA * i;
    double p1[3], p2[3], pos[3];
    double *jac = s, *jac1 = s + 3 * nv, *jac2 = s + 6 * nv;
    body_point(d, b1, data, p1);
    body_point(d, b2, data + 3, p2);
    gdn_sub3(pos, p1, p2);
    gdn_jac(m, d, jac1, NULL, p1, b1);
    gdn_jac(m, d, jac2, NULL, p2, b2);
    for (int k = 0; k < 3 * nv; k++) {
        jac[k] = jac1[k] - jac2[k];
    }
    return gdn_rows_add(m, d, jac, pos, NULL, 0, 3, GDN_CNSTR_EQUALITY, i);
}

// weld: rows 0-2 as connect with anchors data[3-5] (body1) and data[0-2] (body2); rows 3-5 the
// vector part of e = conj(q2) q1 relpose, Jacobian 0.5 vec(conj(q2) (w1 - w2) q1 relpose),
// scaled by torquescale data[10]
static int rows_weld(const gdnModel* m, gdnData* d, int i, double* s) {
    int nv = m->nv, b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    const double* data = m->eq_data + GDN_NEQDATA * i;
    double p1[3], p2[3], pos[6];
    double *jac = s, *jac1p = s + 6 * nv, *jac2p = s + 9 * nv;
    double *jac1r = jac1p, *jac2r = jac2p; // reused after the translational part
    body_point(d, b1, data + 3, p1);
    body_point(d, b2, data, p2);
    gdn_sub3(pos, p1, p2);
    gdn_jac(m, d, jac1p, NULL, p1, b1);
    gdn_jac(m, d, jac2p, NULL, p2, b2);
    for (int k = 0; k < 3 * nv; k++) {
        jac[k] = jac1p[k] - jac2p[k];
    }
    gdn_jac(m, d, NULL, jac1r, p1, b1);
    gdn_jac(m, d, NULL, jac2r, p2, b2);

    // orientation error: vector part of conj(q2) q1 relpose
    double q1rel[4], q2neg[4], err[4];
    gdn_mulquat(q1rel, d->xquat + 4 * b1, data + 6);
    gdn_negquat(q2neg, d->xquat + 4 * b2);
    gdn_mulquat(err, q2neg, q1rel);
    pos[3] = err[1];
    pos[4] = err[2];
    pos[5] = err[3];

    double torquescale = data[10];
    double* jrot = jac + 3 * nv;
    for (int j = 0; j < nv; j++) {
        double w[3] = {jac1r[j] - jac2r[j], jac1r[nv + j] - jac2r[nv + j],
                       jac1r[2 * nv + j] - jac2r[2 * nv + j]};
        double t[4], u[4];
        mul_quat_axis(t, q2neg, w);
        gdn_mulquat(u, t, q1rel);
        for (int r = 0; r < 3; r++) {
            jrot[r * nv + j] = 0.5 * u[1 + r] * torquescale;
        }
    }
    return gdn_rows_add(m, d, jac, pos, NULL, 0, 6, GDN_CNSTR_EQUALITY, i);
}

// joint / tendon: x_k the joint's qpos or the tendon's length, J_k e_dof or its ten_J row,
// r_k qpos0 or tendon_length0, c = data[0..5), dif = x2 - r2:
//   pos = x1 - r1 - c0 - (c1 dif + c2 dif^2 + c3 dif^3 + c4 dif^4),
//   J = J1 + (-(c1 + 2 c2 dif + 3 c3 dif^2 + 4 c4 dif^3)) J2
// (no obj2: pos = x1 - r1 - c0, J = J1), evaluated in MuJoCo's order
static int rows_scalar(const gdnModel* m, gdnData* d, int i, double* s) {
    const int nv = m->nv, joint = m->eq_type[i] == GDN_EQ_JOINT;
    const int id[2] = {m->eq_obj1id[i], m->eq_obj2id[i]};
    const double* data = m->eq_data + GDN_NEQDATA * i;
    double x[2] = {0, 0}, ref[2] = {0, 0};
    double* jac[2] = {s, s + nv};
    for (int k = 0; k < 1 + (id[1] >= 0); k++) {
        if (joint) {
            const int adr = m->jnt_qposadr[id[k]];
            x[k] = d->qpos[adr];
            ref[k] = m->qpos0[adr];
            memset(jac[k], 0, sizeof(double) * (size_t)nv);
            jac[k][m->jnt_dofadr[id[k]]] = 1;
        } else {
            x[k] = d->ten_length[id[k]];
            ref[k] = m->tendon_length0[id[k]];
            memcpy(jac[k], d->ten_J + (size_t)id[k] * (size_t)nv, sizeof(double) * (size_t)nv);
        }
    }
    double pos;
    if (id[1] >= 0) {
        const double dif = x[1] - ref[1];
        pos = x[0] - ref[0] - data[0] -
              (data[1] * dif + data[2] * dif * dif + data[3] * dif * dif * dif +
               data[4] * dif * dif * dif * dif);
        const double deriv = data[1] + 2 * data[2] * dif + 3 * data[3] * dif * dif +
                             4 * data[4] * dif * dif * dif;
        for (int k = 0; k < nv; k++) {
            jac[0][k] += jac[1][k] * -deriv;
        }
    } else {
        pos = x[0] - ref[0] - data[0];
    }
    return gdn_rows_add(m, d, jac[0], &pos, NULL, 0, 1, GDN_CNSTR_EQUALITY, i);
}

void gdn_rows_equality(const gdnModel* m, gdnData* d, double* scratch) {
    int full = 0;
    for (int i = 0; i < m->neq; i++) {
        if (!m->eq_active[i]) {
            continue;
        }
        int type = m->eq_type[i];
        int size = type == GDN_EQ_CONNECT ? 3 : type == GDN_EQ_WELD ? 6 : 1;
        if (!size) {
            continue;
        }
        if (full) {
            d->nefc_overflow += size;
            continue;
        }
        full = type == GDN_EQ_CONNECT ? rows_connect(m, d, i, scratch)
               : type == GDN_EQ_WELD  ? rows_weld(m, d, i, scratch)
                                      : rows_scalar(m, d, i, scratch);
    }
}
