// SPDX-License-Identifier: Apache-2.0
// The exact tangent and adjoint of the implicit integrator's step acceleration
// (implicit_derivative.h).
#include "gradient/implicit_derivative.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/activation.h"
#include "dynamics/fluid.h"
#include "dynamics/body_wrench.h"
#include "dynamics/passive.h"
#include "dynamics/transmission.h"
#include "gradient/residual.h"
#include "gradient/step_derivative.h"
#include "gradient/wrench.h"
#include "kinematics/jacobian.h"
#include "kinematics/kinematics_derivative.h"
#include "kinematics/kinematics_derivative_sweep.h"
#include "kinematics/tendon_derivative.h"
#include "math/vec.h"
#include "sim/integrator.h"

// a fixed tendon: every path object a joint (its J constant)
static int tendon_fixed(const gdnModel* m, int t) {
    for (int k = 0; k < m->tendon_num[t]; k++) {
        if (m->wrap_type[m->tendon_adr[t] + k] != GDN_WRAP_JOINT) {
            return 0;
        }
    }
    return 1;
}

// the velocity-gain slope of actuator i's qDeriv coefficient per unit input (affine gain kv)
static double gain_kv(const gdnModel* m, int i) {
    return m->actuator_gaintype[i] == GDN_GAIN_AFFINE ? m->actuator_gainprm[GDN_NGAIN * i + 2]
                                                       : 0.0;
}

// H^-T x in place with gdn_implicit_factor's (U + I) L: L' y = x (from the last dof up), then
// (U + I)' z = y (from the root down)
void gdn_implicit_solve_transposed(const gdnModel* m, const double* LU, double* x) {
    const int nv = m->nv;
    for (int i = nv - 1; i >= 0; i--) {
        x[i] /= LU[(size_t)i * (size_t)(nv + 1)];
        for (int k = m->dof_parentid[i]; k >= 0; k = m->dof_parentid[k]) {
            x[k] -= LU[(size_t)i * (size_t)nv + (size_t)k] * x[i];
        }
    }
    for (int i = 0; i < nv; i++) {
        for (int k = m->dof_parentid[i]; k >= 0; k = m->dof_parentid[k]) {
            x[i] -= LU[(size_t)k * (size_t)nv + (size_t)i] * x[k];
        }
    }
}

static double inf_norm(const double* x, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        r = fabs(x[i]) > r ? fabs(x[i]) : r;
    }
    return r;
}

// qDeriv keeps only M's pattern P (dof i with its ancestors and descendants), so every
// rank-one term x x' of it acts as the masked product: out_i = sum_{j in P(i)} x_j y_j
// (the pairs (i, j) with j an ancestor of i or i itself, both ways)
static void pattern_dot(const gdnModel* m, const double* x, const double* y, double* out) {
    const int nv = m->nv;
    memset(out, 0, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nv; i++) {
        out[i] += x[i] * y[i];
        for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
            out[i] += x[j] * y[j];
            out[j] += x[i] * y[i];
        }
    }
}

// the polarization's setup: the model with the forces, gravity and penalty off (a shallow copy:
// the same arrays), s, the saved qvel and xfrc_applied (then zeroed), a zero acceleration; in a
// medium (the inertia-box law) the fluid wrenches' scratch: S (6 nv), V, W, xi, eta, dW
// (6 nbody each)
typedef struct {
    gdnModel mc;
    double s;
    double* v0;
    double* xfrc;
    double* zero;
    int fluid;
    double *S, *V, *W, *xi, *eta, *dW;
} polar;

// The inertia-box law is quadratic in the local velocity l within each sign pattern of l
// (f_k = -beta_k l_k - gamma_k |l_k| l_k), so the polarization stays exact for the fluid force
// (qDeriv's fluid part is its velocity derivative) while no component of l changes sign on
// [v - s a, v + s a]: l(v + e a) = l(v) + e l_a, l_a the wind-free local velocity of a.
// Returns the largest such s / 2 (INFINITY when nothing moves; 0 at a kink, l_k = 0 moving,
// where the second derivative does not exist: the central value is then taken)
static double fluid_sign_bound(const gdnModel* m, gdnData* d, const double* a, polar* p) {
    const int nv = m->nv;
    memcpy(d->qvel, a, sizeof(double) * (size_t)nv);
    gdn_body_velocities(m, d, p->S, p->xi); // xi: the twists of a (scratch)
    memcpy(d->qvel, p->v0, sizeof(double) * (size_t)nv);
    gdn_body_velocities(m, d, p->S, p->V);
    double bound = INFINITY;
    for (int b = 1; b < m->nbody; b++) {
        if (!gdn_fluid_body_box(m, b)) {
            continue; // no medium element, or the ellipsoid law's (ellipsoid_term_jvp)
        }
        const double* R = d->ximat + 9 * b;
        const double* c = d->xipos + 3 * b;
        for (int which = 0; which < 2; which++) {
            // [R' w; R' (w x c + v_O (- wind))]
            const double* V = which ? p->xi + 6 * b : p->V + 6 * b;
            double lin[3] = {V[1] * c[2] - V[2] * c[1] + V[3], V[2] * c[0] - V[0] * c[2] + V[4],
                             V[0] * c[1] - V[1] * c[0] + V[5]};
            if (!which) {
                for (int k = 0; k < 3; k++) {
                    lin[k] -= m->opt.wind[k];
                }
            }
            double* l = which ? p->dW + 6 * b : p->eta + 6 * b; // scratch
            for (int k = 0; k < 3; k++) {
                l[k] = R[k] * V[0] + R[3 + k] * V[1] + R[6 + k] * V[2];
                l[3 + k] = R[k] * lin[0] + R[3 + k] * lin[1] + R[6 + k] * lin[2];
            }
        }
        for (int k = 0; k < 6; k++) {
            const double lv = p->eta[6 * b + k], la = p->dW[6 * b + k];
            if (la != 0) {
                bound = fmin(bound, 0.5 * fabs(lv) / fabs(la));
            }
        }
    }
    return bound;
}

// 0: nothing to do (a = 0), 1: set up, -1: arena short
static int polar_begin(const gdnModel* m, gdnData* d, const double* a, polar* p) {
    const int nv = m->nv;
    const double na = inf_norm(a, nv), nvel = inf_norm(d->qvel, nv);
    if (na == 0) {
        return 0;
    }
    p->v0 = gdn_arena_doubles(d, 2 * (size_t)nv + 6 * (size_t)m->nbody + 1);
    if (!p->v0) {
        return -1;
    }
    p->zero = p->v0 + nv;
    p->xfrc = p->zero + nv;
    memcpy(p->v0, d->qvel, sizeof(double) * (size_t)nv);
    memset(p->zero, 0, sizeof(double) * (size_t)nv);
    memcpy(p->xfrc, d->xfrc_applied, sizeof(double) * 6 * (size_t)m->nbody);
    memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
    p->mc = *m;
    p->mc.opt.disableflags |= GDN_DSBL_PASSIVE | GDN_DSBL_ACTUATION | GDN_DSBL_GRAVITY;
    p->mc.penalty.enabled = 0;
    p->s = nvel > 0 ? nvel / na : 1 / na;
    p->fluid = gdn_fluid_active(m);
    if (p->fluid) {
        const size_t nb6 = 6 * (size_t)m->nbody;
        p->S = gdn_arena_doubles(d, 6 * (size_t)(nv > 0 ? nv : 1) + 5 * nb6);
        if (!p->S) {
            return -1;
        }
        p->V = p->S + 6 * (size_t)(nv > 0 ? nv : 1);
        p->W = p->V + nb6;
        p->xi = p->W + nb6;
        p->eta = p->xi + nb6;
        p->dW = p->eta + nb6;
        const double bound = fluid_sign_bound(m, d, a, p);
        if (bound > 0 && bound < p->s) {
            p->s = bound;
        }
    }
    return 1;
}

// qvel = v0 + sign s a
static void polar_velocity(const gdnModel* m, gdnData* d, const polar* p, const double* a,
                           double sign) {
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = p->v0[i] + sign * p->s * a[i];
    }
}

static void polar_end(const gdnModel* m, gdnData* d, const polar* p) {
    memcpy(d->qvel, p->v0, sizeof(double) * (size_t)m->nv);
    memcpy(d->xfrc_applied, p->xfrc, sizeof(double) * 6 * (size_t)m->nbody);
}

// the fluid wrenches at the current velocity (in a medium): p->V, p->W
static void polar_fluid(const gdnModel* m, gdnData* d, polar* p) {
    gdn_body_velocities(m, d, p->S, p->V);
    memset(p->W, 0, sizeof(double) * 6 * (size_t)m->nbody);
    gdn_fluid_wrenches(m, d, p->V, GDN_FLUID_BOX, p->W);
}

// the fluid wrenches' adjoint inside the residual's sweep (residual.h's wrench_vjp)
typedef struct {
    const gdnModel* m;
    gdnData* d;
    const polar* p;
    double* gparam;
} fluidAdjoint;

static gdnStatus fluid_vjp(void* ctx, const double* Wbar, double* xibar, double* etabar) {
    const fluidAdjoint* f = (const fluidAdjoint*)ctx;
    gdn_fluid_wrench_vjp(f->m, f->d, f->p->V, GDN_FLUID_BOX, Wbar, xibar, etabar, f->gparam);
    return GDN_OK;
}

// The ellipsoid law's share of (d qDeriv) a, exactly (its force is not quadratic in the
// velocity, so it stays out of the polarization): qDeriv's part sum_b J_b' K_b J_b a with
// K_b = dW_b/dV_b, whose tangent is -(dJ' Wa + J' dWa) in the residual's form, Wa = K Va and
// dWa = d(K) Va + K etaa (dynamics/fluid.h, by hyper-dual arithmetic). The residual is taken
// with the forces off (xfrc_applied zeroed too, restored after) at zero velocity and
// acceleration, where only its -J' W term remains; the body tangents (xi, eta) are the step
// state's, etaa the twists of a moved by dq.
// Scratch: S (6 nv), then V, Va, xi, eta, xi2, etaa, Wa, dWa, xfrc (6 nbody each)
typedef struct {
    gdnModel mc; // the model with the forces and gravity off (a shallow copy)
    double *S, *V, *Va, *xi, *eta, *xi2, *etaa, *Wa, *dWa, *xfrc, *v0, *zero;
} ellipsoidTerm;

static int ellipsoid_begin(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                           const double* dv, ellipsoidTerm* t) {
    const int nv = m->nv;
    const size_t nb6 = 6 * (size_t)m->nbody, nvs = (size_t)(nv > 0 ? nv : 1);
    t->S = gdn_arena_doubles(d, 6 * nvs + 9 * nb6 + 2 * nvs);
    if (!t->S) {
        return -1;
    }
    t->V = t->S + 6 * nvs;
    t->Va = t->V + nb6;
    t->xi = t->Va + nb6;
    t->eta = t->xi + nb6;
    t->xi2 = t->eta + nb6;
    t->etaa = t->xi2 + nb6;
    t->Wa = t->etaa + nb6;
    t->dWa = t->Wa + nb6;
    t->xfrc = t->dWa + nb6;
    t->v0 = t->xfrc + nb6;
    t->zero = t->v0 + nvs;
    memcpy(t->v0, d->qvel, sizeof(double) * (size_t)nv);
    memset(t->zero, 0, sizeof(double) * (size_t)nv);
    gdn_body_velocities(m, d, t->S, t->V); // S: the world-origin axes
    memcpy(d->qvel, a, sizeof(double) * (size_t)nv);
    gdn_body_velocities(m, d, t->S, t->Va);
    memcpy(d->qvel, t->v0, sizeof(double) * (size_t)nv);
    gdn_body_tangent_jvp_axes(m, d, t->S, d->qvel, dq, dv, t->xi, t->eta);
    gdn_body_tangent_jvp_axes(m, d, t->S, a, dq, NULL, t->xi2, t->etaa);
    memset(t->Wa, 0, sizeof(double) * nb6);
    memset(t->dWa, 0, sizeof(double) * nb6);
    t->mc = *m;
    t->mc.opt.disableflags |= GDN_DSBL_PASSIVE | GDN_DSBL_ACTUATION | GDN_DSBL_GRAVITY;
    t->mc.penalty.enabled = 0;
    return 0;
}

// the residual's state while it runs: zero velocity, no applied body forces (they move with q
// and would enter its tangent), and back
static void ellipsoid_residual_state(const gdnModel* m, gdnData* d, ellipsoidTerm* t,
                                     int enter) {
    const size_t nb6 = 6 * (size_t)m->nbody;
    if (enter) {
        memcpy(t->xfrc, d->xfrc_applied, sizeof(double) * nb6);
        memset(d->xfrc_applied, 0, sizeof(double) * nb6);
        memset(d->qvel, 0, sizeof(double) * (size_t)m->nv);
    } else {
        memcpy(d->xfrc_applied, t->xfrc, sizeof(double) * nb6);
        memcpy(d->qvel, t->v0, sizeof(double) * (size_t)m->nv);
    }
}

// out (nv) += the tangent along (dq, dv)
static gdnStatus ellipsoid_term_jvp(const gdnModel* m, gdnData* d, const double* a,
                                    const double* dq, const double* dv, double* out) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    ellipsoidTerm t;
    double* r = ellipsoid_begin(m, d, a, dq, dv, &t) == 0 ? gdn_arena_doubles(d, (size_t)nv + 1)
                                                          : NULL;
    if (!r) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdn_fluid_ellipsoid_qderiv_jvp(m, d, t.V, t.Va, t.xi, t.eta, t.etaa, t.Wa, t.dWa);
    gdnResidualDirection dir = {dq, NULL, NULL, NULL, NULL, t.dWa, t.xi, t.eta, NULL};
    ellipsoid_residual_state(m, d, &t, 1);
    gdnStatus status = gdn_residual_jvp_ex(&t.mc, d, t.zero, t.Wa, &dir, r);
    ellipsoid_residual_state(m, d, &t, 0);
    for (int i = 0; status == GDN_OK && i < nv; i++) {
        out[i] += r[i];
    }
    gdn_arena_reset(d, mark);
    return status;
}

// gq, gv += its transpose applied to y
static gdnStatus ellipsoid_term_vjp(const gdnModel* m, gdnData* d, const double* a,
                                    const double* y, double* gq, double* gv) {
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    ellipsoidTerm t;
    double* Wbar = ellipsoid_begin(m, d, a, NULL, NULL, &t) == 0
                       ? gdn_arena_doubles(d, 4 * nb6)
                       : NULL;
    if (!Wbar) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* xibar = Wbar + nb6;
    double* etabar = xibar + nb6;
    double* etaabar = etabar + nb6;
    memset(xibar, 0, sizeof(double) * 3 * nb6);
    // Wa at the state (its tangent's cotangent is the residual's Wbar)
    gdn_fluid_ellipsoid_qderiv_jvp(m, d, t.V, t.Va, NULL, NULL, NULL, t.Wa, t.dWa);
    gdnResidualAdjoint out = {gq, gv, NULL, NULL, NULL, Wbar, xibar, etabar, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL};
    ellipsoid_residual_state(m, d, &t, 1);
    gdnStatus status = gdn_residual_vjp_ex(&t.mc, d, t.zero, t.Wa, y, &out);
    ellipsoid_residual_state(m, d, &t, 0);
    if (status == GDN_OK) {
        gdn_fluid_ellipsoid_qderiv_vjp(m, d, t.V, t.Va, Wbar, xibar, etabar, etaabar);
        status = gdn_body_tangent_vjp_axes(m, d, t.S, d->qvel, xibar, etabar, gq, gv);
    }
    if (status == GDN_OK) {
        status = gdn_body_tangent_vjp_axes(m, d, t.S, a, NULL, etaabar, gq, NULL);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// out (nv) = the tangent of (d C / d v - d F_fluid / d v) a along (dq, dv, dparam), a held
// fixed: the residual with the forces off but the inertia boxes' fluid wrenches W (and their
// tangent dW along the body tangents) at v +- s a; the ellipsoid law's share exactly
// (ellipsoid_term_jvp)
static gdnStatus rne_term_jvp(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                              const double* dv, const double* dparam, double* out) {
    const int nv = m->nv;
    memset(out, 0, sizeof(double) * (size_t)nv);
    size_t mark = gdn_arena_mark(d);
    polar p;
    const int begun = polar_begin(m, d, a, &p);
    if (begun <= 0) {
        gdn_arena_reset(d, mark);
        return begun < 0 ? GDN_ERR_MEMORY : GDN_OK;
    }
    double* r = gdn_arena_doubles(d, (size_t)nv + 1);
    gdnStatus status = r ? GDN_OK : GDN_ERR_MEMORY;
    for (int k = 0; k < 2 && status == GDN_OK; k++) {
        const double sign = k == 0 ? 1.0 : -1.0;
        polar_velocity(m, d, &p, a, sign);
        gdnResidualDirection dir = {dq, dv, NULL, NULL, dparam, NULL, NULL, NULL, NULL};
        if (p.fluid) {
            polar_fluid(m, d, &p);
            gdn_body_tangent_jvp(m, d, dq, dv, p.xi, p.eta);
            memset(p.dW, 0, sizeof(double) * 6 * (size_t)m->nbody);
            gdn_fluid_wrench_jvp(m, d, p.V, GDN_FLUID_BOX, p.xi, p.eta, dparam, p.dW);
            dir.dW = p.dW;
            dir.xi = p.xi;
            dir.eta = p.eta;
        }
        status = gdn_residual_jvp_ex(&p.mc, d, p.zero, p.fluid ? p.W : NULL, &dir, r);
        for (int i = 0; status == GDN_OK && i < nv; i++) {
            out[i] += sign * r[i] / (2 * p.s);
        }
    }
    polar_end(m, d, &p);
    if (status == GDN_OK && gdn_fluid_active(m) && gdn_fluid_uses_ellipsoid(m)) {
        status = ellipsoid_term_jvp(m, d, a, dq, dv, out);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// gq, gv, gparam += the transpose of rne_term_jvp applied to y
static gdnStatus rne_term_vjp(const gdnModel* m, gdnData* d, const double* a, const double* y,
                              double* gq, double* gv, double* gparam) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    polar p;
    const int begun = polar_begin(m, d, a, &p);
    if (begun <= 0) {
        gdn_arena_reset(d, mark);
        return begun < 0 ? GDN_ERR_MEMORY : GDN_OK;
    }
    double* ys = gdn_arena_doubles(d, (size_t)nv + 1);
    gdnStatus status = ys ? GDN_OK : GDN_ERR_MEMORY;
    for (int k = 0; k < 2 && status == GDN_OK; k++) {
        const double sign = k == 0 ? 1.0 : -1.0;
        for (int i = 0; i < nv; i++) {
            ys[i] = sign * y[i] / (2 * p.s);
        }
        polar_velocity(m, d, &p, a, sign);
        gdnResidualAdjoint out = {gq, gv, NULL, NULL, gparam, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL, NULL};
        fluidAdjoint fa = {m, d, &p, gparam};
        if (p.fluid) {
            polar_fluid(m, d, &p);
            out.Wbar = p.dW; // scratch for the wrenches' cotangent
            out.wrench_vjp = fluid_vjp;
            out.wrench_ctx = &fa;
        }
        status = gdn_residual_vjp_ex(&p.mc, d, p.zero, p.fluid ? p.W : NULL, ys, &out);
    }
    polar_end(m, d, &p);
    if (status == GDN_OK && gdn_fluid_active(m) && gdn_fluid_uses_ellipsoid(m)) {
        status = ellipsoid_term_vjp(m, d, a, y, gq, gv);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the actuators' part, the change of each kv_i (MuJoCo's coefficient, gdn_implicit_actuator_kv)
// along the direction: d kv_i = cu du_i + cl dlen_i + cw dvel_i with
//   affine gain: cu = gainprm[2];  muscle (kv = g(len, vel) act): cu = g, cl = act dg/dlen,
//   cw = act dg/dvel, and with its force scale / acc0 ca = -act g / acc0 on dacc0 (the
//   inertia parameters' share, constraint/setconst_derivative.h);  dlen_i = l_i . dq,
//   dvel_i = m_i . dv + (dm_i . v), l_i the length row: m_i on a tendon or a hinge / slide
//   joint (dm_i = gear DJ dq on a spatial tendon, else 0); on the other transmissions
//   (gdn_transmission_general) l_i = s lrow and dm_i = s H dq (dynamics/transmission.h:
//   gdn_transmission_linear; a ball joint's lrow = Jinv(log q)' g, a free joint's 0)
//   jvp:  out += d kv_i m_i (m_i . a)_P
//   vjp:  s_i = z . (m_i (m_i . a)_P):  gu_i += cu s_i,  gq += cl s_i l_i + cw s_i (dm_i)' v,
//         gv += cw s_i m_i
static gdnStatus actuator_term(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                               const double* dv, const double* du, const double* dacc0,
                               double* out, const double* z, double* gq, double* gv, double* gu,
                               double* gacc0) {
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return GDN_OK;
    }
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* row = gdn_arena_doubles(d, 3 * (size_t)nv + 1);
    gdnTendonWork w = {0};
    gdnTransmissionWork tw = {0};
    int need_dj = 0, need_trn = 0;
    for (int i = 0; i < m->nu; i++) {
        const int muscle = m->actuator_gaintype[i] == GDN_GAIN_MUSCLE;
        need_dj |= muscle && m->actuator_trntype[i] == GDN_TRN_TENDON &&
                   !tendon_fixed(m, m->actuator_trnid[2 * i]);
        need_trn |= muscle && gdn_transmission_general(m, i);
    }
    if (!row || (need_dj && gdn_tendon_work_alloc(m, d, &w) != GDN_OK) ||
        (need_trn && gdn_transmission_work_alloc(m, d, &tw) != GDN_OK)) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* ma = row + nv;
    double* dm = ma + nv;
    gdnStatus status = GDN_OK;
    for (int i = 0; i < m->nu && status == GDN_OK; i++) {
        double cu = gain_kv(m, i), cl = 0, cw = 0, ca = 0;
        const int muscle = m->actuator_gaintype[i] == GDN_GAIN_MUSCLE;
        if (muscle) {
            const double act =
                gdn_actuator_stateful(m, i) ? d->act[i - (m->nu - m->na)] : d->ctrl[i];
            double gl, gw;
            cu = gdn_implicit_muscle_gain_vel(d->actuator_length[i], d->actuator_velocity[i],
                                              m->actuator_lengthrange + 2 * i,
                                              m->actuator_acc0[i],
                                              m->actuator_gainprm + GDN_NGAIN * i);
            gdn_implicit_muscle_gain_vel_partials(
                d->actuator_length[i], d->actuator_velocity[i], m->actuator_lengthrange + 2 * i,
                m->actuator_acc0[i], m->actuator_gainprm + GDN_NGAIN * i, &gl, &gw);
            cl = act * gl;
            cw = act * gw;
            // the force scale / acc0 (gainprm[2] < 0): d g / d acc0 = -g / acc0
            const double acc0 = m->actuator_acc0[i];
            if (m->actuator_gainprm[GDN_NGAIN * i + 2] < 0 && acc0 > 1e-15) {
                ca = -act * cu / acc0;
            }
        }
        if (cu == 0 && cl == 0 && cw == 0) {
            continue;
        }
        // (m m' on M's pattern) a
        memset(row, 0, sizeof(double) * (size_t)nv);
        gdn_actuator_moment_add(m, d, row, i, 1.0);
        pattern_dot(m, row, a, ma);
        // a muscle on a spatial tendon: its moment moves, DJ for dvel's (dm . v)
        const int moving = muscle && m->actuator_trntype[i] == GDN_TRN_TENDON &&
                           !tendon_fixed(m, m->actuator_trnid[2 * i]);
        const double gear = m->actuator_gear[6 * i];
        if (moving && (cw != 0)) {
            double L, V;
            if (gdn_tendon_linear(m, d, w.S, m->actuator_trnid[2 * i], &L, &V, w.J, w.DJ,
                                  w.scratch) < 0) {
                status = GDN_ERR_UNSUPPORTED; // GDN_TENDON_WRAP_WHAT
                break;
            }
        }
        // a muscle on another transmission: its length row s lrow and H = dM / dq
        const int general = muscle && gdn_transmission_general(m, i);
        const double* lrow = row;
        double s = 1;
        if (general) {
            double L, V;
            if (gdn_transmission_linear(m, d, tw.S, i, &L, &V, tw.lrow, tw.M, cw != 0 ? tw.H : NULL,
                                        &s, tw.scratch) < 0) {
                status = GDN_ERR_UNSUPPORTED; // GDN_TRN_BODY_WHAT
                break;
            }
            lrow = tw.lrow;
        }
        // the moment's motion dm = f D dq: f DJ on a spatial tendon (f its gear), s H on another
        // transmission; NULL when the moment holds (or cw = 0)
        const double* D = cw == 0 ? NULL : moving ? w.DJ : general ? tw.H : NULL;
        const double f = moving ? gear : s;
        if (out) {
            double dkv = cu * (du ? du[i] : 0);
            double ml = 0, mv = 0;
            for (int k = 0; k < nv; k++) {
                ml += dq ? s * lrow[k] * dq[k] : 0;
                mv += dv ? row[k] * dv[k] : 0;
            }
            if (D && dq) {
                gdn_tendon_dj_mul(nv, D, dq, dm);
                for (int k = 0; k < nv; k++) {
                    mv += f * dm[k] * d->qvel[k];
                }
            }
            dkv += cl * ml + cw * mv + (dacc0 ? ca * dacc0[i] : 0);
            for (int k = 0; k < nv; k++) {
                out[k] += dkv * row[k] * ma[k];
            }
        } else {
            double si = 0;
            for (int k = 0; k < nv; k++) {
                si += z[k] * row[k] * ma[k];
            }
            if (gu) {
                gu[i] += cu * si;
            }
            if (gacc0) {
                gacc0[i] += ca * si;
            }
            for (int k = 0; gq && k < nv; k++) {
                gq[k] += cl * si * s * lrow[k];
            }
            for (int k = 0; gv && k < nv; k++) {
                gv[k] += cw * si * row[k];
            }
            if (D && gq) {
                gdn_tendon_dj_mul_t(nv, D, d->qvel, dm);
                for (int k = 0; k < nv; k++) {
                    gq[k] += cw * si * f * dm[k];
                }
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the moving transmissions' part (site, slider-crank, joint-in-parent on a ball or free joint,
// body at its fixed contact set: gdn_transmission_moving): qDeriv holds kv_i m_i m_i' per
// velocity-gain actuator i (MuJoCo's mjd_actuator_vel, any transmission), and m_i = s M_i moves with q by s H_i
// (dynamics/transmission.h: gdn_transmission_linear), w = s H_i dq:
//   jvp:  t += kv_i (w (m_i . a)_P + m_i (w . a)_P)
//   vjp:  gq += kv_i s H_i' ((m_i . a)_P z + (z . m_i)_P a)
// (kv_i's own change is actuator_term's)
static gdnStatus moving_terms(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                              double* out, const double* z, double* gq) {
    const int nv = m->nv;
    if ((m->opt.disableflags & GDN_DSBL_ACTUATION) || (!out && !gq) || (out && !dq)) {
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    gdnTransmissionWork w;
    double* mi = gdn_arena_doubles(d, 4 * (size_t)nv + 1);
    if (!mi || gdn_transmission_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* p1 = mi + nv;
    double* p2 = p1 + nv;
    double* x = p2 + nv;
    gdnStatus status = GDN_OK;
    for (int i = 0; i < m->nu && status == GDN_OK; i++) {
        const int trn = m->actuator_trntype[i];
        if (trn == GDN_TRN_TENDON || gdn_transmission_moving(m, i) != 1) {
            continue; // constant moments, and the tendons (spatial_terms)
        }
        const double kv = gdn_implicit_actuator_kv(m, d, i);
        if (kv == 0) {
            continue;
        }
        double L, V, s = 1;
        if (gdn_transmission_linear(m, d, w.S, i, &L, &V, w.lrow, w.M, w.H, &s, w.scratch) < 0) {
            status = GDN_ERR_UNSUPPORTED;
            break;
        }
        for (int k = 0; k < nv; k++) {
            mi[k] = s * w.M[k];
        }
        pattern_dot(m, mi, a, p1);
        if (out) {
            // w = s H dq
            for (int r = 0; r < nv; r++) {
                double acc = 0;
                for (int c = 0; c < nv; c++) {
                    acc += w.H[(size_t)r * (size_t)nv + (size_t)c] * dq[c];
                }
                x[r] = s * acc;
            }
            pattern_dot(m, x, a, p2);
            for (int k = 0; k < nv; k++) {
                out[k] += kv * (x[k] * p1[k] + mi[k] * p2[k]);
            }
        } else {
            pattern_dot(m, mi, z, p2);
            for (int r = 0; r < nv; r++) {
                const double y = kv * s * (p1[r] * z[r] + p2[r] * a[r]);
                for (int c = 0; y != 0 && c < nv; c++) {
                    gq[c] += w.H[(size_t)r * (size_t)nv + (size_t)c] * y;
                }
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the spatial tendons' part: qDeriv holds c_t J_t' J_t per spatial tendon t, with
// c_t = -damping_t + sum over the actuators i on t of kv_i gear_i^2 (their moments gear_i J_t),
// and J_t moves with q by DJ_t (kinematics/tendon_derivative.h), w = DJ_t dq:
//   jvp:  t += c_t (w (J_t . a)_P + J_t (w . a)_P)
//   vjp:  gq += c_t DJ_t' ((J_t . a)_P z + (z . J_t)_P a)
// with (x . y)_P the masked products of pattern_dot (qDeriv's entries off M's pattern dropped)
static gdnStatus spatial_terms(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                               double* out, const double* z, double* gq) {
    const int nv = m->nv;
    int any = 0;
    for (int t = 0; t < m->ntendon; t++) {
        any |= !tendon_fixed(m, t);
    }
    if (!any || (!out && !gq) || (out && !dq)) {
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    gdnTendonWork w;
    double* c = gdn_arena_doubles(d, 3 * (size_t)nv + (size_t)m->ntendon + 1);
    if (!c || gdn_tendon_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* p1 = c + nv;
    double* p2 = p1 + nv;
    double* coef = p2 + nv;
    for (int t = 0; t < m->ntendon; t++) {
        coef[t] = !(m->opt.disableflags & GDN_DSBL_PASSIVE) && m->tendon_damping[t] > 0
                      ? -m->tendon_damping[t]
                      : 0;
    }
    for (int i = 0; i < m->nu && !(m->opt.disableflags & GDN_DSBL_ACTUATION); i++) {
        if (m->actuator_trntype[i] == GDN_TRN_TENDON) {
            const double g = m->actuator_gear[6 * i];
            coef[m->actuator_trnid[2 * i]] += gdn_implicit_actuator_kv(m, d, i) * g * g;
        }
    }
    gdnStatus status = GDN_OK;
    for (int t = 0; t < m->ntendon && status == GDN_OK; t++) {
        if (tendon_fixed(m, t) || coef[t] == 0) {
            continue;
        }
        double L, V;
        if (gdn_tendon_linear(m, d, w.S, t, &L, &V, w.J, w.DJ, w.scratch) < 0) {
            status = GDN_ERR_UNSUPPORTED; // GDN_TENDON_WRAP_WHAT
            break;
        }
        pattern_dot(m, w.J, a, p1);
        if (out) {
            gdn_tendon_dj_mul(nv, w.DJ, dq, w.w);
            pattern_dot(m, w.w, a, p2);
            for (int k = 0; k < nv; k++) {
                out[k] += coef[t] * (w.w[k] * p1[k] + w.J[k] * p2[k]);
            }
        } else {
            pattern_dot(m, w.J, z, p2);
            for (int k = 0; k < nv; k++) {
                c[k] = coef[t] * (p1[k] * z[k] + p2[k] * a[k]);
            }
            gdn_tendon_dj_mul_t(nv, w.DJ, c, w.w);
            for (int k = 0; k < nv; k++) {
                gq[k] += w.w[k];
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_implicit_dqderiv_jvp(const gdnModel* m, gdnData* d, const double* a,
                                   const double* dq, const double* dv, const double* du,
                                   const double* dparam, const double* dacc0, double* t) {
    // (dqDeriv) a = (d actuator part) a - (d (dC/dv)) a
    gdnStatus status = rne_term_jvp(m, d, a, dq, dv, dparam, t);
    for (int i = 0; status == GDN_OK && i < m->nv; i++) {
        t[i] = -t[i];
    }
    if (status == GDN_OK) {
        status = actuator_term(m, d, a, dq, dv, du, dacc0, t, NULL, NULL, NULL, NULL, NULL);
    }
    if (status == GDN_OK) {
        status = spatial_terms(m, d, a, dq, t, NULL, NULL);
    }
    if (status == GDN_OK) {
        status = moving_terms(m, d, a, dq, t, NULL, NULL);
    }
    return status;
}

gdnStatus gdn_implicit_dqderiv_vjp(const gdnModel* m, gdnData* d, const double* a,
                                   const double* z, double* gq, double* gv, double* gu,
                                   double* gparam, double* gacc0) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* y = gdn_arena_doubles(d, (size_t)nv + 1);
    if (!y) {
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < nv; i++) {
        y[i] = -z[i];
    }
    gdnStatus status = rne_term_vjp(m, d, a, y, gq, gv, gparam);
    if (status == GDN_OK) {
        status = actuator_term(m, d, a, NULL, NULL, NULL, NULL, NULL, z, gq, gv, gu, gacc0);
    }
    if (status == GDN_OK && gq) {
        status = spatial_terms(m, d, a, NULL, NULL, z, gq);
    }
    if (status == GDN_OK) {
        status = moving_terms(m, d, a, NULL, NULL, z, gq);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_implicit_accel_jvp(const gdnModel* m, gdnData* d, const double* LU,
                                 const double* dq, const double* dv, const double* du,
                                 const double* dparam, const double* dacc0, const double* dvert,
                                 double* da) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* own = LU ? NULL : gdn_arena_doubles(d, (size_t)nv * (size_t)nv + 1);
    if (!LU && !own) {
        return GDN_ERR_MEMORY;
    }
    const double* H = LU ? LU : own;
    gdnStatus status = LU ? GDN_OK : gdn_implicit_matrix(m, d, own);
    if (status == GDN_OK) {
        status = gdn_implicit_accel_jvp_with(m, d, H, dq, dv, du, dparam, dacc0, dvert, da);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_implicit_accel_jvp_with(const gdnModel* m, gdnData* d, const double* H,
                                      const double* dq, const double* dv, const double* du,
                                      const double* dparam, const double* dacc0,
                                      const double* dvert, double* da) {
    const int nv = m->nv;
    const double h = m->opt.timestep;
    const double* a = d->qacc;
    size_t mark = gdn_arena_mark(d);
    double* dr = gdn_arena_doubles(d, 2 * (size_t)nv + 6 * (size_t)m->nbody + 1);
    if (!dr) {
        return GDN_ERR_MEMORY;
    }
    double* t = dr + nv;
    double* dW = t + nv;
    // the body wrenches (the penalty contact, the medium) move with (dq, dv, dvert, dparam)
    // (gradient/wrench.h); qDeriv does not read them (MuJoCo's has no penalty model; the
    // medium's part is in the polarization)
    gdnStatus status = gdn_wrench_active(m)
                           ? gdn_contact_wrench_jvp(m, d, dq, dv, dvert, dparam, dW)
                           : GDN_OK;
    // dr at the step's a; t = (dqDeriv) a
    if (status == GDN_OK) {
        status = gdn_residual_jvp(m, d, a, dq, dv, du, dparam, dacc0,
                                  gdn_wrench_active(m) ? dW : NULL, dr);
    }
    if (status == GDN_OK) {
        status = gdn_implicit_dqderiv_jvp(m, d, a, dq, dv, du, dparam, dacc0, t);
    }
    // da = H^-1 (-dr + h t)
    for (int i = 0; status == GDN_OK && i < nv; i++) {
        da[i] = -dr[i] + h * t[i];
    }
    if (status == GDN_OK) {
        status = gdn_implicit_solve(m, d, H, da);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the step's body wrenches' adjoint for the residual's fused sweep (as step_derivative.c's)
typedef struct {
    const gdnModel* m;
    gdnData* d;
    double* gvert;
    double* gparam;
} wrenchAdjoint;

static gdnStatus wrench_vjp(void* ctx, const double* Wbar, double* xibar, double* etabar) {
    const wrenchAdjoint* w = (const wrenchAdjoint*)ctx;
    return gdn_wrench_vjp(w->m, w->d, Wbar, xibar, etabar, w->gvert, w->gparam);
}

gdnStatus gdn_implicit_accel_vjp(const gdnModel* m, gdnData* d, const double* LU,
                                 const double* abar, double* gq, double* gv, double* gu,
                                 double* gparam, double* gacc0, double* gvert) {
    const int nv = m->nv;
    const double h = m->opt.timestep;
    const double* a = d->qacc;
    size_t mark = gdn_arena_mark(d);
    double* own = gdn_arena_doubles(d, (LU ? 0 : (size_t)nv * (size_t)nv) + 3 * (size_t)nv +
                                           6 * (size_t)m->nbody + 1);
    if (!own) {
        return GDN_ERR_MEMORY;
    }
    double* lam = own + (LU ? 0 : (size_t)nv * (size_t)nv);
    double* Wbar = lam + 3 * (size_t)nv;
    double* y = lam + nv;
    double* z = y + nv;
    const double* H = LU ? LU : own;
    gdnStatus status = LU ? GDN_OK : gdn_implicit_matrix(m, d, own);
    // lambda = H^-T abar; the residual's part with y = -lambda, the qDeriv part with z = h lambda
    if (status == GDN_OK) {
        memcpy(lam, abar, sizeof(double) * (size_t)nv);
        gdn_implicit_solve_transposed(m, H, lam);
    }
    for (int i = 0; i < nv; i++) {
        y[i] = -lam[i];
        z[i] = h * lam[i];
    }
    if (status == GDN_OK) {
        gdnResidualAdjoint out = {gq, gv, NULL, gu, gparam, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL, gacc0};
        wrenchAdjoint wa = {m, d, gvert, gparam};
        if (gdn_wrench_active(m)) {
            // the medium's wrenches' adjoint fused into the residual's sweep
            out.Wbar = Wbar;
            out.wrench_vjp = wrench_vjp;
            out.wrench_ctx = &wa;
        }
        status = gdn_residual_vjp_primal(m, d, a, y, &out);
    }
    if (status == GDN_OK) {
        status = gdn_implicit_dqderiv_vjp(m, d, a, z, gq, gv, gu, gparam, gacc0);
    }
    gdn_arena_reset(d, mark);
    return status;
}
