// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of the actuator forces (joint transmissions, affine gain/bias, clamping).
#include <string.h>

#include "dynamics/force_derivative.h"
#include "dynamics/passive.h"
#include "math/vec.h"

#define GDN_MAXVAL 1e10

// actuator i linearized: force = gain ctrl + bias (then maybe clamped) with
//   d force = alpha d length + beta d velocity + gain_c d ctrl,
//   d length = lrow . dq[dof .. dof + nl),  d velocity = moment . dv[dof .. dof + n),
//   qfrc[dof + k] += moment_k force
typedef struct {
    int dof, n, nl;
    double moment[6];
    double lrow[3];
    double alpha, beta, gain_c;
} actuator_linear;

// the primal's control: clamped to ctrlrange when limited and clamping is on; *active is 0 when
// that clamp is engaged (x < lo or x > hi as in the primal's clip)
static double effective_ctrl(const gdnModel* m, const gdnData* d, int i, int* active) {
    double c = d->ctrl[i];
    *active = 1;
    if (!(m->opt.disableflags & GDN_DSBL_CLAMPCTRL) && m->actuator_ctrllimited[i]) {
        double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
        if (c < lo) {
            c = lo;
            *active = 0;
        } else if (c > hi) {
            c = hi;
            *active = 0;
        }
    }
    return c;
}

// 1 when the primal zeroes every control (a non-finite or huge effective control)
static int bad_controls(const gdnModel* m, const gdnData* d) {
    for (int i = 0; i < m->nu; i++) {
        int active;
        double c = effective_ctrl(m, d, i, &active);
        if (c != c || c > GDN_MAXVAL || c < -GDN_MAXVAL) {
            return 1;
        }
    }
    return 0;
}

// the affine gain/bias and the force clamp of actuator i at (length, velocity, ctrl):
// a->alpha, a->beta, a->gain_c (the transmission fields are the caller's)
static void affine_terms(const gdnModel* m, const gdnData* d, int i, int zero_ctrl,
                         double length, double velocity, actuator_linear* a) {
    int active = 0;
    double c = zero_ctrl ? 0 : effective_ctrl(m, d, i, &active);
    const double* gprm = m->actuator_gainprm + GDN_NGAIN * i;
    const double* bprm = m->actuator_biasprm + GDN_NBIAS * i;
    double gain = gprm[0], alpha = 0, beta = 0;
    if (m->actuator_gaintype[i] == GDN_GAIN_AFFINE) {
        gain = gprm[0] + gprm[1] * length + gprm[2] * velocity;
        alpha = c * gprm[1];
        beta = c * gprm[2];
    }
    double bias = 0;
    if (m->actuator_biastype[i] == GDN_BIAS_AFFINE) {
        bias = bprm[0] + bprm[1] * length + bprm[2] * velocity;
        alpha += bprm[1];
        beta += bprm[2];
    }
    a->alpha = alpha;
    a->beta = beta;
    a->gain_c = active ? gain : 0;
    // the primal's force clamp (clip: x < lo -> lo, x > hi -> hi): zero derivative when engaged
    if (m->actuator_forcelimited[i]) {
        double force = gain * c;
        force += bias;
        if (force < m->actuator_forcerange[2 * i] || force > m->actuator_forcerange[2 * i + 1]) {
            a->alpha = a->beta = a->gain_c = 0;
        }
    }
}

static void linearize(const gdnModel* m, const gdnData* d, int i, int zero_ctrl,
                      actuator_linear* a) {
    int jnt = m->actuator_trnid[2 * i];
    const double* gear = m->actuator_gear + 6 * i;
    const double* q = d->qpos + m->jnt_qposadr[jnt];
    const double* v = d->qvel + m->jnt_dofadr[jnt];
    double length, velocity;
    a->dof = m->jnt_dofadr[jnt];
    switch (m->jnt_type[jnt]) {
    case GDN_JNT_FREE: {
        a->n = 6;
        a->nl = 0;
        memcpy(a->moment, gear, 6 * sizeof(double));
        length = 0;
        velocity = gdn_dot3(gear, v) + gdn_dot3(gear + 3, v + 3);
        break;
    }
    case GDN_JNT_BALL: {
        // length = gear . log(q): d length = gear' Jinv(log q) dq
        double theta[3], Jinv[9];
        a->n = 3;
        a->nl = 3;
        memcpy(a->moment, gear, 3 * sizeof(double));
        gdn_quat2vel(theta, q);
        gdn_so3_right_jacobian_inv(theta, Jinv);
        for (int k = 0; k < 3; k++) {
            a->lrow[k] = gear[0] * Jinv[k] + gear[1] * Jinv[3 + k] + gear[2] * Jinv[6 + k];
        }
        length = gdn_dot3(theta, gear);
        velocity = gdn_dot3(gear, v);
        break;
    }
    default:
        a->n = 1;
        a->nl = 1;
        a->moment[0] = gear[0];
        a->lrow[0] = gear[0];
        length = q[0] * gear[0];
        velocity = gear[0] * v[0];
        break;
    }
    affine_terms(m, d, i, zero_ctrl, length, velocity, a);
}

void gdn_actuation_jvp(const gdnModel* m, const gdnData* d, const double* dq, const double* dv,
                       const double* du, double* dfrc) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return;
    }
    int zero = bad_controls(m, d);
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        linearize(m, d, i, zero, &a);
        double df = 0;
        for (int k = 0; dq && k < a.nl; k++) {
            df += a.alpha * a.lrow[k] * dq[a.dof + k];
        }
        for (int k = 0; dv && k < a.n; k++) {
            df += a.beta * a.moment[k] * dv[a.dof + k];
        }
        if (du) {
            df += a.gain_c * du[i];
        }
        for (int k = 0; k < a.n; k++) {
            dfrc[a.dof + k] += a.moment[k] * df;
        }
    }
}

// hinge and slide transmissions (moment = lrow = gear, one dof) take a scalar path: the same
// terms as linearize
void gdn_actuation_vjp(const gdnModel* m, const gdnData* d, const double* y, double* gq,
                       double* gv, double* gu) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return;
    }
    int zero = bad_controls(m, d);
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        int jnt = m->actuator_trnid[2 * i];
        int type = m->jnt_type[jnt];
        if (type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE) {
            const double gear = m->actuator_gear[6 * i];
            const int dof = m->jnt_dofadr[jnt];
            affine_terms(m, d, i, zero, d->qpos[m->jnt_qposadr[jnt]] * gear, gear * d->qvel[dof],
                         &a);
            double fbar = 0;
            fbar += gear * y[dof];
            if (gq) {
                gq[dof] += a.alpha * gear * fbar;
            }
            if (gv) {
                gv[dof] += a.beta * gear * fbar;
            }
            if (gu) {
                gu[i] += a.gain_c * fbar;
            }
            continue;
        }
        linearize(m, d, i, zero, &a);
        double fbar = 0;
        for (int k = 0; k < a.n; k++) {
            fbar += a.moment[k] * y[a.dof + k];
        }
        for (int k = 0; gq && k < a.nl; k++) {
            gq[a.dof + k] += a.alpha * a.lrow[k] * fbar;
        }
        for (int k = 0; gv && k < a.n; k++) {
            gv[a.dof + k] += a.beta * a.moment[k] * fbar;
        }
        if (gu) {
            gu[i] += a.gain_c * fbar;
        }
    }
}

void gdn_actuation_dense(const gdnModel* m, const gdnData* d, double scale, double* Dq,
                         double* Dv, double* Du, int ld) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return;
    }
    const size_t stride = (size_t)ld;
    int zero = bad_controls(m, d);
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        linearize(m, d, i, zero, &a);
        for (int r = 0; r < a.n; r++) {
            size_t row = (size_t)(a.dof + r);
            double mr = scale * a.moment[r];
            for (int k = 0; Dq && k < a.nl; k++) {
                Dq[row * stride + (size_t)(a.dof + k)] += mr * a.alpha * a.lrow[k];
            }
            for (int k = 0; Dv && k < a.n; k++) {
                Dv[row * stride + (size_t)(a.dof + k)] += mr * a.beta * a.moment[k];
            }
            if (Du) {
                Du[row * stride + (size_t)i] += mr * a.gain_c;
            }
        }
    }
}

int gdn_actuator_force_row(const gdnModel* m, const gdnData* d, int i, int* dof, double cq[6],
                           double cv[6], double* cu) {
    memset(cq, 0, 6 * sizeof(double));
    memset(cv, 0, 6 * sizeof(double));
    *cu = 0;
    *dof = 0;
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return 0;
    }
    actuator_linear a;
    linearize(m, d, i, bad_controls(m, d), &a);
    *dof = a.dof;
    for (int k = 0; k < a.nl; k++) {
        cq[k] = a.alpha * a.lrow[k];
    }
    for (int k = 0; k < a.n; k++) {
        cv[k] = a.beta * a.moment[k];
    }
    *cu = a.gain_c;
    return a.n;
}
