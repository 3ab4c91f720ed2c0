// SPDX-License-Identifier: Apache-2.0
// Actuator transmissions: length, moment row and velocity of every actuator (see transmission.h).
#include "dynamics/transmission.h"

#include <math.h>
#include <string.h>

#include "dynamics/passive.h"
#include "kinematics/jacobian.h"
#include "kinematics/tendon_derivative.h"
#include "math/vec.h"

// row_k += sg (jp_k(p) . wt + jr_k . wr) over the dofs moving body b (wt or wr may be NULL)
static void add_jac_projection(const gdnModel* m, const gdnData* d, int b, const double p[3],
                               const double* wt, const double* wr, double sg, double* row) {
    for (int k = gdn_jac_last_dof(m, b); k >= 0; k = m->dof_parentid[k]) {
        double jp[3], jr[3];
        gdn_jac_dof_column(m, d, k, p, jp, jr);
        double s = 0;
        if (wt) {
            s += gdn_dot3(jp, wt);
        }
        if (wr) {
            s += gdn_dot3(jr, wr);
        }
        row[k] += sg * s;
    }
}

// joint and joint-in-parent: the length; the moment on the joint's dofs
static double joint_row(const gdnModel* m, const gdnData* d, int i, double* row) {
    const int jnt = m->actuator_trnid[2 * i];
    const double* gear = m->actuator_gear + 6 * i;
    const double* q = d->qpos + m->jnt_qposadr[jnt];
    double* mr = row + m->jnt_dofadr[jnt];
    const int inparent = m->actuator_trntype[i] == GDN_TRN_JOINTINPARENT;
    double axis[3], ga[3], conj[4];
    switch (m->jnt_type[jnt]) {
    case GDN_JNT_FREE:
        // ga = R(quat)' gear[3:6] for jointinparent (gear given in the world frame)
        gdn_copy3(ga, gear + 3);
        if (inparent) {
            gdn_negquat(conj, q + 3);
            gdn_rotvecquat(ga, gear + 3, conj);
        }
        gdn_copy3(mr, gear);
        gdn_copy3(mr + 3, ga);
        return 0;
    case GDN_JNT_BALL:
        gdn_copy3(ga, gear);
        if (inparent) {
            gdn_negquat(conj, q);
            gdn_rotvecquat(ga, gear, conj);
        }
        gdn_quat2vel(axis, q);
        gdn_copy3(mr, ga);
        return gdn_dot3(axis, ga);
    default:
        mr[0] = gear[0];
        return q[0] * gear[0];
    }
}

// slider-crank: L and the row g0 (dL/da . (Jr_s x a) + dL/dv . (Jp_c - Jp_s))
static double slider_crank_row(const gdnModel* m, const gdnData* d, int i, double* row) {
    const int crank = m->actuator_trnid[2 * i], slider = m->actuator_trnid[2 * i + 1];
    const double g0 = m->actuator_gear[6 * i], r = m->actuator_cranklength[i];
    double pc[3], Rc[9], ps[3], Rs[9], a[3], v[3], dlda[3], dldv[3];
    gdn_site_frame(m, d, crank, pc, Rc);
    gdn_site_frame(m, d, slider, ps, Rs);
    a[0] = Rs[2];
    a[1] = Rs[5];
    a[2] = Rs[8];
    gdn_sub3(v, pc, ps);
    const double s = gdn_dot3(v, a);
    const double D = s * s + r * r - gdn_dot3(v, v);
    double L;
    if (D <= 0) {
        // dL/dv = a, dL/da = v
        L = s;
        gdn_copy3(dldv, a);
        gdn_copy3(dlda, v);
    } else {
        // dL/dv = a (1 - s / sqrt D) + v / sqrt D, dL/da = v (1 - s / sqrt D)
        const double sd = sqrt(D);
        L = s - sd;
        gdn_scl3(dldv, a, 1 - s / sd);
        gdn_addscl3(dldv, dldv, v, 1 / sd);
        gdn_scl3(dlda, v, 1 - s / sd);
    }
    const int bc = m->site_bodyid[crank], bs = m->site_bodyid[slider];
    add_jac_projection(m, d, bc, pc, dldv, NULL, 1, row);
    // the slider's columns: - jp . dL/dv + (jr x a) . dL/da
    for (int k = gdn_jac_last_dof(m, bs); k >= 0; k = m->dof_parentid[k]) {
        double jp[3], jr[3], ja[3];
        gdn_jac_dof_column(m, d, k, ps, jp, jr);
        gdn_cross3(ja, jr, a);
        row[k] += gdn_dot3(dlda, ja) - gdn_dot3(dldv, jp);
    }
    for (int k = 0; k < m->nv; k++) {
        row[k] *= g0;
    }
    return L * g0;
}

// site transmission, with or without a reference site
static double site_row(const gdnModel* m, const gdnData* d, int i, double* row) {
    const int site = m->actuator_trnid[2 * i], ref = m->actuator_trnid[2 * i + 1];
    const double* gear = m->actuator_gear + 6 * i;
    const int b = m->site_bodyid[site];
    double p[3], R[9], wt[3], wr[3];
    gdn_site_frame(m, d, site, p, R);
    if (ref < 0) {
        // wrench in the site frame: moment = Jp' (R g[0:3]) + Jr' (R g[3:6])
        gdn_mulmat3(wt, R, gear);
        gdn_mulmat3(wr, R, gear + 3);
        add_jac_projection(m, d, b, p, wt, wr, 1, row);
        return 0;
    }
    const int br = m->site_bodyid[ref];
    double pr[3], Rr[9], vec[3];
    gdn_site_frame(m, d, ref, pr, Rr);
    double length = 0;
    if (!gdn_is_zero3(gear)) {
        // translation: (R_r' (p - p_r)) . g[0:3], moment (Jp - Jp_r)' R_r g[0:3]
        gdn_sub3(vec, p, pr);
        gdn_mulmat3T(vec, Rr, vec);
        length += gdn_dot3(vec, gear);
        gdn_mulmat3(wt, Rr, gear);
        add_jac_projection(m, d, b, p, wt, NULL, 1, row);
        add_jac_projection(m, d, br, pr, wt, NULL, -1, row);
    }
    if (!gdn_is_zero3(gear + 3)) {
        // rotation: log(qr^-1 qa) . g[3:6] with qa = site_quat * xquat (MuJoCo's product
        // order), moment (Jr - Jr_r)' R_r g[3:6]
        double qa[4], qb[4], conj[4], qd[4];
        gdn_mulquat(qa, m->site_quat + 4 * site, d->xquat + 4 * b);
        gdn_mulquat(qb, m->site_quat + 4 * ref, d->xquat + 4 * br);
        gdn_negquat(conj, qb);
        gdn_mulquat(qd, conj, qa);
        gdn_quat2vel(vec, qd);
        length += gdn_dot3(vec, gear + 3);
        gdn_mulmat3(wr, Rr, gear + 3);
        add_jac_projection(m, d, b, p, NULL, wr, 1, row);
        add_jac_projection(m, d, br, pr, NULL, wr, -1, row);
    }
    return length;
}

// body (adhesion): length 0; over the contacts touching the body, an included one adds its
// normal row of efc_J (condim 1 or elliptic cones: the first row; pyramidal: the mean of its
// 2 (dim - 1) edge rows, weight 0.5 / (dim - 1) each), one in the gap adds n . (Jp(b2, pos) -
// Jp(b1, pos)); moment = -sum / count (count: those contacts), zero without any
static void body_row(const gdnModel* m, const gdnData* d, int i, double* row) {
    const int body = m->actuator_trnid[2 * i], nv = m->nv;
    int count = 0;
    // the included contacts' rows, in row order (MuJoCo's J' w)
    for (int j = 0; j < d->ncon; j++) {
        const gdnContact* con = d->contact + j;
        if (!gdn_transmission_body_counts(m, body, con)) {
            continue;
        }
        count++;
        if (con->exclude || con->efc_address < 0) {
            continue;
        }
        const int pyramid = con->dim > 1 && m->opt.cone != GDN_CONE_ELLIPTIC;
        const int nrow = pyramid ? 2 * (con->dim - 1) : 1;
        const double w = pyramid ? 0.5 / (con->dim - 1) : 1;
        for (int r = con->efc_address; r < con->efc_address + nrow; r++) {
            const double* J = d->efc_J + (size_t)r * (size_t)nv;
            for (int k = 0; k < nv; k++) {
                row[k] += J[k] * w;
            }
        }
    }
    // the contacts in the gap: the normal's relative point Jacobian at the contact point
    for (int j = 0; j < d->ncon; j++) {
        const gdnContact* con = d->contact + j;
        const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
        if (!gdn_transmission_body_counts(m, body, con) || con->exclude != 1) {
            continue;
        }
        add_jac_projection(m, d, b2, con->pos, con->frame, NULL, 1, row);
        add_jac_projection(m, d, b1, con->pos, con->frame, NULL, -1, row);
    }
    if (count) {
        const double scl = -1.0 / count;
        for (int k = 0; k < nv; k++) {
            row[k] *= scl;
        }
    }
}

void gdn_transmission(const gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    for (int i = 0; i < m->nu; i++) {
        double* row = d->actuator_moment + (size_t)i * (size_t)nv;
        const int id = m->actuator_trnid[2 * i];
        const double g0 = m->actuator_gear[6 * i];
        const int type = m->actuator_trntype[i];
        // a joint's row is written on its dofs only: its other entries stay the zeros of
        // gdn_data_create (a large model's nu x nv row clearing is not repeated every step)
        if (type != GDN_TRN_JOINT && type != GDN_TRN_JOINTINPARENT) {
            memset(row, 0, sizeof(double) * (size_t)nv);
        }
        double length = 0, velocity = 0;
        switch (type) {
        case GDN_TRN_JOINT:
        case GDN_TRN_JOINTINPARENT: {
            // velocity on the joint's dofs (the sum MuJoCo's moment qvel reduces to)
            length = joint_row(m, d, i, row);
            const int dof = m->jnt_dofadr[id];
            const double* v = d->qvel + dof;
            const double* mr = row + dof;
            switch (m->jnt_type[id]) {
            case GDN_JNT_FREE:
                velocity = gdn_dot3(mr, v) + gdn_dot3(mr + 3, v + 3);
                break;
            case GDN_JNT_BALL:
                velocity = gdn_dot3(mr, v);
                break;
            default:
                velocity = mr[0] * v[0];
                break;
            }
            break;
        }
        case GDN_TRN_TENDON: {
            const double* J = d->ten_J + (size_t)id * (size_t)nv;
            for (int k = 0; k < nv; k++) {
                row[k] = J[k] * g0;
            }
            length = d->ten_length[id] * g0;
            velocity = d->ten_velocity[id] * g0;
            break;
        }
        case GDN_TRN_SLIDERCRANK:
        case GDN_TRN_SITE:
            length = type == GDN_TRN_SITE ? site_row(m, d, i, row) : slider_crank_row(m, d, i, row);
            for (int k = 0; k < nv; k++) {
                velocity += row[k] * d->qvel[k];
            }
            break;
        case GDN_TRN_BODY:
            body_row(m, d, i, row);
            for (int k = 0; k < nv; k++) {
                velocity += row[k] * d->qvel[k];
            }
            break;
        default:
            break;
        }
        d->actuator_length[i] = length;
        d->actuator_velocity[i] = velocity;
    }
}

void gdn_transmission_apply(const gdnModel* m, const gdnData* d, int i, double force,
                            double* qfrc) {
    const int nv = m->nv;
    const double* row = d->actuator_moment + (size_t)i * (size_t)nv;
    const int type = m->actuator_trntype[i];
    if (type == GDN_TRN_JOINT || type == GDN_TRN_JOINTINPARENT) {
        const int jnt = m->actuator_trnid[2 * i];
        const int dof = m->jnt_dofadr[jnt];
        const int n = m->jnt_type[jnt] == GDN_JNT_FREE ? 6 : m->jnt_type[jnt] == GDN_JNT_BALL ? 3 : 1;
        for (int k = dof; k < dof + n; k++) {
            qfrc[k] += row[k] * force;
        }
        return;
    }
    for (int k = 0; k < nv; k++) {
        qfrc[k] += row[k] * force;
    }
}

int gdn_transmission_general(const gdnModel* m, int i) {
    const int trn = m->actuator_trntype[i];
    if (trn == GDN_TRN_JOINT || trn == GDN_TRN_JOINTINPARENT) {
        const int jt = m->jnt_type[m->actuator_trnid[2 * i]];
        return jt == GDN_JNT_BALL || jt == GDN_JNT_FREE;
    }
    return trn != GDN_TRN_TENDON;
}

int gdn_transmission_moving(const gdnModel* m, int i) {
    const int type = m->actuator_trntype[i], id = m->actuator_trnid[2 * i];
    switch (type) {
    case GDN_TRN_JOINT:
        return 0;
    case GDN_TRN_JOINTINPARENT:
        return m->jnt_type[id] == GDN_JNT_BALL || m->jnt_type[id] == GDN_JNT_FREE;
    case GDN_TRN_TENDON:
        return gdn_tendon_is_spatial(m, id);
    default:
        return 1;
    }
}
