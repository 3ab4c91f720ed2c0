// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of the actuator forces (every transmission: joint and fixed tendon here,
// the moving ones through gdn_transmission_linear; affine gain/bias, clamping).
#include <string.h>

#include "dynamics/activation.h"
#include "dynamics/force_derivative.h"
#include "dynamics/muscle.h"
#include "dynamics/passive.h"
#include "dynamics/transmission.h"
#include "base/arena.h"
#include "kinematics/tendon.h"
#include "kinematics/tendon_derivative.h"
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
    double cacc0; // d force / d actuator_acc0 (a muscle scaled by acc0; 0 otherwise)
    double force; // the primal's (clamped) force
} actuator_linear;

// the primal's control: clamped to ctrlrange when limited and clamping is on; *active is 0 when
// that clamp is engaged (x < lo or x > hi as in the primal's clip)
static double effective_ctrl(const gdnModel* m, const gdnData* d, int i, int* active) {
    return gdn_actuator_ctrl_clamped(m, i, d->ctrl[i], active);
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

// the gain/bias laws and the force clamp of actuator i at (length, velocity, input), the input
// being its clamped control, or its act when it has a state (the tangent the callers' du
// carries for it: gdn_actuator_input_tangent): a->alpha, a->beta, a->gain_c (the transmission
// fields are the caller's)
static void affine_terms(const gdnModel* m, const gdnData* d, int i, int zero_ctrl,
                         double length, double velocity, actuator_linear* a) {
    int active = 1;
    double c;
    if (gdn_actuator_stateful(m, i)) {
        c = d->act[i - (m->nu - m->na)];
    } else {
        active = 0;
        c = zero_ctrl ? 0 : effective_ctrl(m, d, i, &active);
    }
    const double* gprm = m->actuator_gainprm + GDN_NGAIN * i;
    const double* bprm = m->actuator_biasprm + GDN_NBIAS * i;
    const double* lrange = m->actuator_lengthrange + 2 * i;
    double gain = gprm[0], alpha = 0, beta = 0;
    if (m->actuator_gaintype[i] == GDN_GAIN_AFFINE) {
        gain = gprm[0] + gprm[1] * length + gprm[2] * velocity;
        alpha = c * gprm[1];
        beta = c * gprm[2];
    } else if (m->actuator_gaintype[i] == GDN_GAIN_MUSCLE) {
        double dlen, dvel;
        gain = gdn_muscle_gain(length, velocity, lrange, m->actuator_acc0[i], gprm, &dlen, &dvel);
        alpha = c * dlen;
        beta = c * dvel;
    }
    double bias = 0;
    if (m->actuator_biastype[i] == GDN_BIAS_AFFINE) {
        bias = bprm[0] + bprm[1] * length + bprm[2] * velocity;
        alpha += bprm[1];
        beta += bprm[2];
    } else if (m->actuator_biastype[i] == GDN_BIAS_MUSCLE) {
        double dlen;
        bias = gdn_muscle_bias(length, lrange, m->actuator_acc0[i], bprm, &dlen);
        alpha += dlen;
    }
    // a muscle's peak force scale / max(1e-15, acc0) (force < 0): gain and bias are linear in
    // it, so d(gain c + bias) / d acc0 = -(gain c [scaled] + bias [scaled]) / acc0
    const double acc0 = m->actuator_acc0[i];
    double cacc0 = 0;
    if (acc0 > 1e-15) {
        if (m->actuator_gaintype[i] == GDN_GAIN_MUSCLE && gprm[2] < 0) {
            cacc0 -= gain * c / acc0;
        }
        if (m->actuator_biastype[i] == GDN_BIAS_MUSCLE && bprm[2] < 0) {
            cacc0 -= bias / acc0;
        }
    }
    a->cacc0 = cacc0;
    a->alpha = alpha;
    a->beta = beta;
    a->gain_c = active ? gain : 0;
    double force = gain * c;
    force += bias;
    // the primal's force clamp (clip: x < lo -> lo, x > hi -> hi): zero derivative when engaged
    if (m->actuator_forcelimited[i]) {
        const double lo = m->actuator_forcerange[2 * i], hi = m->actuator_forcerange[2 * i + 1];
        if (force < lo || force > hi) {
            a->alpha = a->beta = a->gain_c = a->cacc0 = 0;
            force = force < lo ? lo : hi;
        }
    }
    a->force = force;
}

// a fixed-tendon transmission (moment = gear[0] ten_J, constant; length = gear[0] L, velocity =
// gear[0] Ldot at the primal's values): alpha, beta, gain_c as affine_terms
static void linearize_tendon(const gdnModel* m, const gdnData* d, int i, int zero_ctrl,
                             actuator_linear* a) {
    const int t = m->actuator_trnid[2 * i];
    const double gear = m->actuator_gear[6 * i];
    double L, V;
    gdn_tendon_fixed_value(m, t, d->qpos, d->qvel, &L, &V);
    a->dof = -1;
    a->n = a->nl = 0;
    affine_terms(m, d, i, zero_ctrl, L * gear, V * gear, a);
}

// d force = alpha gear J dq + beta gear J dv + gain_c du; its moment row gear J over the path
static double tendon_moment_dot(const gdnModel* m, int i, const double* x) {
    const int t = m->actuator_trnid[2 * i];
    const double gear = m->actuator_gear[6 * i];
    double s = 0;
    for (int p = m->tendon_adr[t]; p < m->tendon_adr[t] + m->tendon_num[t]; p++) {
        s += (m->wrap_prm[p] * gear) * x[m->jnt_dofadr[m->wrap_objid[p]]];
    }
    return s;
}

// an actuator whose moment moves with q (dynamics/transmission.h: spatial tendon, slider-crank,
// site, joint-in-parent on a ball or free joint), moment g M(q), length row g l, H = dM/dq:
// d qfrc = g (M dF + F H dq),  dF = alpha g l dq + beta g (M dv + (H dq) . v) + gain_c du
static int on_moving(const gdnModel* m, int i) {
    return gdn_transmission_moving(m, i);
}

static int any_on_moving(const gdnModel* m) {
    for (int i = 0; i < m->nu; i++) {
        if (on_moving(m, i)) {
            return 1;
        }
    }
    return 0;
}

// the linearization of moving actuator i: w's lrow, M, H up to the factor *g (a tendon's gear,
// else 1) and the affine terms; -1 when a spatial tendon has none (gdn_tendon_linear: the
// caller refuses)
static int linearize_moving(const gdnModel* m, gdnData* d, gdnTransmissionWork* w, int i,
                            int zero_ctrl, actuator_linear* a, double* g) {
    double L, V;
    if (gdn_transmission_linear(m, d, w->S, i, &L, &V, w->lrow, w->M, w->H, g, w->scratch) < 0) {
        return -1;
    }
    a->dof = -1;
    a->n = a->nl = 0;
    affine_terms(m, d, i, zero_ctrl, L, V, a);
    return 0;
}

static double dotn(const double* a, const double* b, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        s += a[k] * b[k];
    }
    return s;
}

static void tendon_moment_add(const gdnModel* m, int i, double c, double* out) {
    const int t = m->actuator_trnid[2 * i];
    const double gear = m->actuator_gear[6 * i];
    for (int p = m->tendon_adr[t]; p < m->tendon_adr[t] + m->tendon_num[t]; p++) {
        out[m->jnt_dofadr[m->wrap_objid[p]]] += (m->wrap_prm[p] * gear) * c;
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

gdnStatus gdn_actuation_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                            const double* du, const double* dacc0, double* dfrc) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return GDN_OK;
    }
    int zero = bad_controls(m, d);
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    gdnTransmissionWork w;
    if (any_on_moving(m) && gdn_transmission_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        if (on_moving(m, i)) {
            double gear;
            if (linearize_moving(m, d, &w, i, zero, &a, &gear) < 0) {
                gdn_arena_reset(d, mark);
                return GDN_ERR_UNSUPPORTED;
            }
            double dL = 0, dV = 0;
            if (dq) {
                gdn_tendon_dj_mul(nv, w.H, dq, w.w);
                dL = dotn(w.lrow, dq, nv);
                dV = dotn(w.w, d->qvel, nv);
            } else {
                memset(w.w, 0, sizeof(double) * (size_t)nv);
            }
            if (dv) {
                dV += dotn(w.M, dv, nv);
            }
            const double dF = a.alpha * gear * dL + a.beta * gear * dV +
                              (du ? a.gain_c * du[i] : 0) + (dacc0 ? a.cacc0 * dacc0[i] : 0);
            for (int k = 0; k < nv; k++) {
                dfrc[k] += gear * (w.M[k] * dF + a.force * w.w[k]);
            }
            continue;
        }
        if (m->actuator_trntype[i] == GDN_TRN_TENDON) {
            linearize_tendon(m, d, i, zero, &a);
            double df = (dq ? a.alpha * tendon_moment_dot(m, i, dq) : 0) +
                        (dv ? a.beta * tendon_moment_dot(m, i, dv) : 0) +
                        (du ? a.gain_c * du[i] : 0) + (dacc0 ? a.cacc0 * dacc0[i] : 0);
            tendon_moment_add(m, i, df, dfrc);
            continue;
        }
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
        if (dacc0) {
            df += a.cacc0 * dacc0[i];
        }
        for (int k = 0; k < a.n; k++) {
            dfrc[a.dof + k] += a.moment[k] * df;
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// hinge and slide transmissions (moment = lrow = gear, one dof) take a scalar path: the same
// terms as linearize
gdnStatus gdn_actuation_vjp(const gdnModel* m, gdnData* d, const double* y, double* gq,
                            double* gv, double* gu, double* gacc0) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return GDN_OK;
    }
    int zero = bad_controls(m, d);
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    gdnTransmissionWork w;
    if (any_on_moving(m) && gdn_transmission_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        int jnt = m->actuator_trnid[2 * i];
        if (on_moving(m, i)) {
            // fbar = g M . y; gq += alpha g fbar l + H' (beta g fbar v + g F y)
            double gear;
            if (linearize_moving(m, d, &w, i, zero, &a, &gear) < 0) {
                gdn_arena_reset(d, mark);
                return GDN_ERR_UNSUPPORTED;
            }
            const double fbar = gear * dotn(w.M, y, nv);
            if (gq) {
                for (int k = 0; k < nv; k++) {
                    w.u[k] = a.beta * gear * fbar * d->qvel[k] + gear * a.force * y[k];
                }
                gdn_tendon_dj_mul_t(nv, w.H, w.u, w.w);
                for (int k = 0; k < nv; k++) {
                    gq[k] += a.alpha * gear * fbar * w.lrow[k] + w.w[k];
                }
            }
            if (gv) {
                for (int k = 0; k < nv; k++) {
                    gv[k] += a.beta * gear * fbar * w.M[k];
                }
            }
            if (gu) {
                gu[i] += a.gain_c * fbar;
            }
            if (gacc0) {
                gacc0[i] += a.cacc0 * fbar;
            }
            continue;
        }
        if (m->actuator_trntype[i] == GDN_TRN_TENDON) {
            linearize_tendon(m, d, i, zero, &a);
            const double fbar = tendon_moment_dot(m, i, y);
            if (gq) {
                tendon_moment_add(m, i, a.alpha * fbar, gq);
            }
            if (gv) {
                tendon_moment_add(m, i, a.beta * fbar, gv);
            }
            if (gu) {
                gu[i] += a.gain_c * fbar;
            }
            if (gacc0) {
                gacc0[i] += a.cacc0 * fbar;
            }
            continue;
        }
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
            if (gacc0) {
                gacc0[i] += a.cacc0 * fbar;
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
        if (gacc0) {
            gacc0[i] += a.cacc0 * fbar;
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_actuation_dense(const gdnModel* m, gdnData* d, double scale, double* Dq,
                              double* Dv, double* Du, int ld) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return GDN_OK;
    }
    const size_t stride = (size_t)ld;
    int zero = bad_controls(m, d);
    const int nv = m->nv;
    const size_t n = (size_t)nv;
    size_t mark = gdn_arena_mark(d);
    gdnTransmissionWork w;
    if (any_on_moving(m) && gdn_transmission_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < m->nu; i++) {
        actuator_linear a;
        if (on_moving(m, i)) {
            // Dq(r, c) += scale g (M_r (alpha g l_c + beta g (H' v)_c) + F H(r, c)),
            // Dv(r, c) += scale g M_r beta g M_c, Du(r, i) += scale g M_r gain_c
            double gear;
            if (linearize_moving(m, d, &w, i, zero, &a, &gear) < 0) {
                gdn_arena_reset(d, mark);
                return GDN_ERR_UNSUPPORTED;
            }
            gdn_tendon_dj_mul_t(nv, w.H, d->qvel, w.w);
            for (size_t r = 0; r < n; r++) {
                const double mr = scale * gear * w.M[r];
                for (size_t c = 0; Dq && c < n; c++) {
                    Dq[r * stride + c] +=
                        mr * (a.alpha * gear * w.lrow[c] + a.beta * gear * w.w[c]) +
                        scale * gear * a.force * w.H[r * n + c];
                }
                for (size_t c = 0; Dv && c < n; c++) {
                    Dv[r * stride + c] += mr * a.beta * gear * w.M[c];
                }
                if (Du) {
                    Du[r * stride + (size_t)i] += mr * a.gain_c;
                }
            }
            continue;
        }
        if (m->actuator_trntype[i] == GDN_TRN_TENDON) {
            // rows and columns over the tendon's path: scale (gear coef_r) (alpha or beta)
            // (gear coef_c), and the control column scale (gear coef_r) gain_c
            linearize_tendon(m, d, i, zero, &a);
            const int t = m->actuator_trnid[2 * i];
            const double gear = m->actuator_gear[6 * i];
            const int adr = m->tendon_adr[t], num = m->tendon_num[t];
            for (int p = adr; p < adr + num; p++) {
                const size_t row = (size_t)m->jnt_dofadr[m->wrap_objid[p]];
                const double mr = scale * (m->wrap_prm[p] * gear);
                for (int q = adr; q < adr + num; q++) {
                    const size_t col = (size_t)m->jnt_dofadr[m->wrap_objid[q]];
                    const double mc = m->wrap_prm[q] * gear;
                    if (Dq) {
                        Dq[row * stride + col] += mr * a.alpha * mc;
                    }
                    if (Dv) {
                        Dv[row * stride + col] += mr * a.beta * mc;
                    }
                }
                if (Du) {
                    Du[row * stride + (size_t)i] += mr * a.gain_c;
                }
            }
            continue;
        }
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
    gdn_arena_reset(d, mark);
    return GDN_OK;
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

int gdn_actuator_force_full(const gdnModel* m, gdnData* d, int i, gdnTransmissionWork* w,
                            double* cq, double* cv, double* cu) {
    const int nv = m->nv;
    memset(cq, 0, sizeof(double) * (size_t)nv);
    memset(cv, 0, sizeof(double) * (size_t)nv);
    *cu = 0;
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return 0;
    }
    const int zero = bad_controls(m, d);
    actuator_linear a;
    if (on_moving(m, i)) {
        // dF = alpha g l . dq + beta g (M . dv + (H' v) . dq) + gain_c du
        double g;
        if (linearize_moving(m, d, w, i, zero, &a, &g) < 0) {
            return -1;
        }
        gdn_tendon_dj_mul_t(nv, w->H, d->qvel, w->w);
        for (int k = 0; k < nv; k++) {
            cq[k] = a.alpha * g * w->lrow[k] + a.beta * g * w->w[k];
            cv[k] = a.beta * g * w->M[k];
        }
    } else if (m->actuator_trntype[i] == GDN_TRN_TENDON) {
        // a fixed tendon: the constant row gear coef over its path
        linearize_tendon(m, d, i, zero, &a);
        tendon_moment_add(m, i, a.alpha, cq);
        tendon_moment_add(m, i, a.beta, cv);
    } else if (m->actuator_trntype[i] == GDN_TRN_JOINT) {
        linearize(m, d, i, zero, &a);
        for (int k = 0; k < a.nl; k++) {
            cq[a.dof + k] = a.alpha * a.lrow[k];
        }
        for (int k = 0; k < a.n; k++) {
            cv[a.dof + k] = a.beta * a.moment[k];
        }
    } else {
        return -1; // (no other transmission type reaches here)
    }
    *cu = a.gain_c;
    return 0;
}
