// SPDX-License-Identifier: Apache-2.0
// Exact tangent (JVP) and adjoint (VJP) of one step (docs/derivatives.md).
#include <gradyn/derivative.h>

#include <string.h>

#include "base/arena.h"
#include "dynamics/aba.h"
#include "dynamics/com.h"
#include "constraint/geom_size_derivative.h"
#include "constraint/rows_param_derivative.h"
#include "constraint/setconst_derivative.h"
#include "gradient/activation_derivative.h"
#include "gradient/param_refusal.h"
#include "gradient/residual.h"
#include "gradient/rk4_derivative.h"
#include "gradient/step_constrained.h"
#include "gradient/step_derivative.h"
#include "gradient/wrench.h"
#include "kinematics/kinematics.h"
#include "kinematics/kinematics_derivative.h"
#include "model/configuration_derivative.h"
#include "model/validate.h"
#include "penalty/penalty.h"
#include "gradient/implicit_derivative.h"
#include "sim/integrator.h"
#include "sim/pipeline.h"

// The step (sim/pipeline.c), from (q, v, u; pi, V) with h = timestep, D = diag(dof_damping):
//   a  solves  r(q, v, a; u, pi, W) + h D a = 0,   r = M a + C - tau (residual.h),
//              W = W(q, v, V) the penalty wrenches (penalty/penalty.h; zero when disabled)
//   v' = v + h a,   q' = q (+) h v'
// Tangent:  dr = dr/dq dq + dr/dv dv + dr/du du + dr/dpi dpi + dr/dW dW,
//           dW = dW/dxi xi(dq) + dW/deta eta(dq, dv) + dW/dV dV   (kinematics_derivative.h)
//           da = -(M + hD)^-1 dr,  dv' = dv + h da,  dq' = Phi_q dq + h Phi_v dv'
// Adjoint (the exact transpose), from (gq', gv'):
//           w = gv' + h Phi_v' gq',  y = (M + hD)^-1 (h w),  rbar = -y
//           gq = Phi_q' gq' + (dr/dq)' rbar + (xi, eta)' (dW/dxi, dW/deta)' (dr/dW)' rbar
//           gv = w + (dr/dv)' rbar + ...,  gu = (dr/du)' rbar,  gpi += (dr/dpi)' rbar,
//           gV += (dW/dV)' (dr/dW)' rbar
// Every branch (ctrl and force clamping, the active contact vertices) is the primal's.
// The implicit integrator (h D -> -h qDeriv(q, v, u)) adds the change of qDeriv:
//           da = (M - h qDeriv)^-1 (-dr + h (dqDeriv) a)   (gradient/implicit_derivative.h)

// under the implicit integrator, room for the front half's factor of M - h qDeriv, which its
// derivative reads instead of forming it again (NULL when the arena is short: formed again)
static void implicit_factor_alloc(const gdnModel* m, gdnData* d, gdnAbaFactor* f) {
    if (m->opt.integrator == GDN_INT_IMPLICIT) {
        f->implicit_LU = gdn_arena_doubles(d, (size_t)m->nv * (size_t)m->nv + 1);
    }
}

// the primal front half (one forward model with gdn_step): d->qacc = a, ABA's factorization of
// M + hD kept in f (arrays from the arena); then v' = v + h a
static gdnStatus primal_front(const gdnModel* m, gdnData* d, gdnAbaFactor* f, double* qvel_next) {
    gdnStatus status = gdn_aba_factor_alloc(m, d, f);
    implicit_factor_alloc(m, d, f);
    if (status == GDN_OK) {
        status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, f);
    }
    if (status != GDN_OK) {
        return status;
    }
    const double h = m->opt.timestep;
    for (int i = 0; i < m->nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    return GDN_OK;
}

gdnStatus gdn_contact_wrench_jvp(const gdnModel* m, gdnData* d, const double* dq,
                                 const double* dv, const double* dvert, const double* dparam,
                                 double* dW) {
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* xi = gdn_arena_doubles(d, 2 * nb6);
    if (!xi) {
        return GDN_ERR_MEMORY;
    }
    double* eta = xi + nb6;
    gdn_body_tangent_jvp(m, d, dq, dv, xi, eta);
    gdnStatus status = gdn_wrench_jvp(m, d, xi, eta, dvert, dparam, dW);
    gdn_arena_reset(d, mark);
    return status;
}

// the smooth acceleration's tangent at the front half in d (ABA's factor f of M + hD):
//   da = -(M + hD)^-1 (dr/dq dq + dr/dv dv + dr/du du + dr/dpi dpi + dr/dW dW)
// dW (6 nbody) scratch for the body wrenches' tangent
static gdnStatus smooth_accel_jvp(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                                  const double* dq, const double* dv, const double* du,
                                  const double* dparam, const double* dacc0,
                                  const double* dvert, double* dW, double* da) {
    gdnStatus status = GDN_OK;
    if (gdn_wrench_active(m)) {
        status = gdn_contact_wrench_jvp(m, d, dq, dv, dvert, dparam, dW);
    }
    if (status == GDN_OK) {
        status = gdn_residual_jvp(m, d, d->qacc, dq, dv, du, dparam, dacc0,
                                  gdn_wrench_active(m) ? dW : NULL, da);
    }
    if (status == GDN_OK) {
        status = gdn_aba_solve(m, d, f, da);
    }
    for (int i = 0; status == GDN_OK && i < m->nv; i++) {
        da[i] = -da[i];
    }
    return status;
}

// gdn_step_jvp with a direction in the contact parameters (NULL: none); dctrl is the force
// laws' input tangent (activation_derivative.h)
static gdnStatus step_jvp_core(const gdnModel* m, gdnData* d, const double* dqpos,
                             const double* dqvel, const double* dctrl, const double* dparam,
                             const double* dvert, const gdnContactParamGradients* dcp,
                             double* dqpos_next, double* dqvel_next) {
    if (gdn_check_call(m, d) != GDN_OK || !dqpos_next || !dqvel_next) {
        return GDN_ERR_ARG;
    }
    gdn_deriv_report_clear(d);
    if (dparam && gdn_param_refusal(m)) {
        return GDN_ERR_UNSUPPORTED; // gradient/param_refusal.h
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        const char* what = NULL;
        return gdn_rk4_step_jvp(m, d, dqpos, dqvel, NULL, dctrl, dparam, dvert, dcp, dqpos_next,
                                dqvel_next, NULL, &what);
    }
    const int nv = m->nv;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    double* qvel_next = gdn_arena_doubles(d, 2 * (size_t)nv + 6 * (size_t)m->nbody);
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* dr = qvel_next + nv;
    double* dW = dr + nv;
    // the inertias move a constrained step's D through the inverse weights, and the muscles
    // scaled by actuator_acc0 through acc0: their tangents first, while d is free to serve as
    // scratch at qpos0 (only when dparam is given)
    double* dweights = NULL;
    gdnStatus status = GDN_OK;
    if (dparam && (!(m->opt.disableflags & GDN_DSBL_CONSTRAINT) || gdn_any_acc0_scaled(m))) {
        dweights = gdn_arena_doubles(d, gdn_weights_size(m) + 1);
        status = dweights ? gdn_constraint_weights_jvp(m, d, dparam, dweights,
                                                       dweights + 2 * m->nbody)
                          : GDN_ERR_MEMORY;
    }
    gdnAbaFactor f;
    if (status == GDN_OK) {
        status = primal_front(m, d, &f, qvel_next);
    }
    // the implicit integrator: da = (M - h qDeriv)^-1 (-dr + h (dqDeriv) a)
    // (with rows the constrained path's final solve: step_constrained.c)
    const int implicit = m->opt.integrator == GDN_INT_IMPLICIT;
    if (status == GDN_OK && implicit && d->nefc == 0) {
        status = gdn_implicit_accel_jvp(m, d, f.implicit_LU, dqpos, dqvel, dctrl, dparam,
                                        gdn_weights_acc0_const(m, dweights), dvert, dr);
    } else if (status == GDN_OK && d->nefc > 0) {
        const char* what = NULL;
        status = gdn_constrained_admissible(m, d);
        if (status == GDN_OK) {
            status = gdn_step_jvp_constrained(m, d, f.implicit_LU, dqpos, dqvel, dctrl, dparam,
                                              dweights, dvert, dcp, dqpos_next, dqvel_next,
                                              &what);
        }
        gdn_arena_reset(d, mark);
        return status;
    }
    // da (in dr) = -(M + hD)^-1 dr_a;  dv' = dv + h da
    if (status == GDN_OK && !implicit) {
        status = smooth_accel_jvp(m, d, &f, dqpos, dqvel, dctrl, dparam,
                                  gdn_weights_acc0_const(m, dweights), dvert, dW, dr);
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    for (int i = 0; i < nv; i++) {
        dqvel_next[i] = (dqvel ? dqvel[i] : 0) + h * dr[i];
    }
    gdn_integrate_pos_jvp(m, qvel_next, h, dqpos, dqvel_next, dqpos_next);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// step_jvp_core with the activations: du = (dctrl | dact) into the force laws, then the
// update's tangent dact_next (NULL: not wanted)
static gdnStatus step_jvp_ex(const gdnModel* m, gdnData* d, const double* dqpos,
                             const double* dqvel, const double* dact, const double* dctrl,
                             const double* dparam, const double* dvert,
                             const gdnContactParamGradients* dcp, double* dqpos_next,
                             double* dqvel_next, double* dact_next) {
    if (gdn_check_call(m, d) != GDN_OK || !dqpos_next || !dqvel_next) {
        return GDN_ERR_ARG;
    }
    if (dcp && dcp->geom_size && gdn_fluid_uses_ellipsoid(m)) {
        return GDN_ERR_UNSUPPORTED; // GDN_FLUID_SIZE_REFUSAL (dynamics/fluid.h)
    }
    if (m->na == 0) {
        return step_jvp_core(m, d, dqpos, dqvel, dctrl, dparam, dvert, dcp, dqpos_next,
                             dqvel_next);
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        // the stages carry the activations themselves
        gdn_deriv_report_clear(d);
        if (dparam && gdn_param_refusal(m)) {
            return GDN_ERR_UNSUPPORTED; // gradient/param_refusal.h
        }
        const char* what = NULL;
        gdnStatus st = gdn_rk4_step_jvp(m, d, dqpos, dqvel, dact, dctrl, dparam, dvert, dcp,
                                        dqpos_next, dqvel_next, dact_next, &what);
        if (st == GDN_OK) {
            gdn_act_report(m, d);
        }
        return st;
    }
    const size_t nu = (size_t)m->nu, na = (size_t)m->na;
    size_t mark = gdn_arena_mark(d);
    double* du = gdn_arena_doubles(d, nu + 3 * na);
    if (!du) {
        return GDN_ERR_MEMORY;
    }
    double *ga = du + nu, *gc = ga + na, *keep = gc + na;
    gdn_actuator_input_tangent(m, dctrl, dact, du);
    gdn_act_update_partials(m, d, ga, gc, keep);
    gdnStatus status = step_jvp_core(m, d, dqpos, dqvel, du, dparam, dvert, dcp, dqpos_next,
                                     dqvel_next);
    if (status == GDN_OK && dact_next) {
        gdn_act_update_jvp(m, ga, gc, keep, dctrl, dact, dact_next);
    }
    if (status == GDN_OK) {
        gdn_act_report(m, d);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_jvp(const gdnModel* m, gdnData* d, const double* dqpos, const double* dqvel,
                       const double* dctrl, const double* dparam, const double* dvert,
                       double* dqpos_next, double* dqvel_next) {
    return step_jvp_ex(m, d, dqpos, dqvel, NULL, dctrl, dparam, dvert, NULL, dqpos_next,
                       dqvel_next, NULL);
}

gdnStatus gdn_step_jvp_act(const gdnModel* m, gdnData* d, const double* dqpos,
                           const double* dqvel, const double* dact, const double* dctrl,
                           const double* dparam, const double* dvert, double* dqpos_next,
                           double* dqvel_next, double* dact_next) {
    if (m && m->na > 0 && !dact_next) {
        return GDN_ERR_ARG;
    }
    return step_jvp_ex(m, d, dqpos, dqvel, dact, dctrl, dparam, dvert, NULL, dqpos_next,
                       dqvel_next, dact_next);
}

gdnStatus gdn_step_jvp_contact_params(const gdnModel* m, gdnData* d, const double* dqpos,
                                      const double* dqvel, const double* dctrl,
                                      const double* dparam, const double* dvert,
                                      const gdnContactParamGradients* dcp, double* dqpos_next,
                                      double* dqvel_next) {
    if (!dcp || !dcp->geom_size || !m || !gdn_geom_size_moves_inertia(m)) {
        return step_jvp_ex(m, d, dqpos, dqvel, NULL, dctrl, dparam, dvert, dcp, dqpos_next,
                           dqvel_next, NULL);
    }
    // sizes that move their bodies' inertias: dparam + (d p / d size) dsize
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    const size_t np = GDN_N_INERTIA_PARAMS * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* dp = gdn_arena_doubles(d, np);
    if (!dp) {
        return GDN_ERR_MEMORY;
    }
    for (size_t k = 0; k < np; k++) {
        dp[k] = dparam ? dparam[k] : 0;
    }
    gdn_geom_size_inertia_jvp(m, dcp->geom_size, dp);
    gdnStatus status =
        step_jvp_ex(m, d, dqpos, dqvel, NULL, dctrl, dp, dvert, dcp, dqpos_next, dqvel_next, NULL);
    gdn_arena_reset(d, mark);
    return status;
}

void gdn_step_integration_vjp(const gdnModel* m, const gdnData* d, const double* a,
                              const double* gq_next, const double* gv_next, double* qvel_next,
                              double* gq, double* gv, double* abar) {
    const int nv = m->nv;
    const double h = m->opt.timestep;
    // v' = v + h a
    for (int i = 0; i < nv; i++) {
        qvel_next[i] = d->qvel[i] + h * a[i];
    }
    // gq = Phi_q' gq',  w = gv' + h Phi_v' gq' (into gv),  abar = h w
    if (gq_next) {
        gdn_integrate_pos_vjp(m, qvel_next, h, gq_next, gq, gv);
    } else {
        memset(gq, 0, sizeof(double) * (size_t)nv);
        memset(gv, 0, sizeof(double) * (size_t)nv);
    }
    for (int i = 0; i < nv; i++) {
        if (gv_next) {
            gv[i] += gv_next[i];
        }
        abar[i] = h * gv[i];
    }
}

// the penalty contact's adjoint for the residual's fused sweep (residual.h)
typedef struct {
    const gdnModel* m;
    gdnData* d;
    double* gvert;
    double* gparam;
} penaltyAdjoint;

static gdnStatus penalty_vjp(void* ctx, const double* Wbar, double* xibar, double* etabar) {
    penaltyAdjoint* pen = ctx;
    return gdn_wrench_vjp(pen->m, pen->d, Wbar, xibar, etabar, pen->gvert, pen->gparam);
}

// The backward half shared by gdn_step_vjp and gdn_step_vjp_at, once the front half left the
// kinematics in d, the acceleration a and ABA's factorization f of M + hD. W: the penalty
// wrenches when the caller has them (NULL: from the primal's vertex forces, residual.h); tree:
// NULL, or the world-origin S, Sdot, Vpre, V the caller computed for them (4 pointers); gacc0
// (nu, +=; NULL: not wanted) the cotangent of the muscles' actuator_acc0
static gdnStatus step_vjp_back(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                               const double* a, const double* W, double* const* tree,
                               const double* gqpos_next,
                               const double* gqvel_next, double* gqpos, double* gqvel,
                               double* gctrl, double* gparam, double* gvert, double* gacc0) {
    const int nv = m->nv;
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    // qvel_next, rbar, gq, gv (nv each); Wbar (6 nbody)
    double* qvel_next = gdn_arena_doubles(d, 4 * (size_t)nv + nb6);
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* rbar = qvel_next + nv;
    double* gq = rbar + nv;
    double* gv = gq + nv;
    double* Wbar = gv + nv;
    gdn_step_integration_vjp(m, d, a, gqpos_next, gqvel_next, qvel_next, gq, gv, rbar);
    // rbar = -(M + hD)^-1 (h w)
    gdnStatus status = gdn_aba_solve(m, d, f, rbar);
    for (int i = 0; i < nv; i++) {
        rbar[i] = -rbar[i];
    }
    // residual adjoint: gq += (dr/dq)' rbar, gv += (dr/dv)' rbar, gctrl, gparam +=; with
    // contact, Wbar -> (xibar, etabar, gvert) by the penalty adjoint inside the same sweep
    if (status == GDN_OK) {
        penaltyAdjoint pen = {m, d, gvert, gparam};
        gdnResidualAdjoint out = {gq, gv, NULL, gctrl, gparam, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL, gparam ? gacc0 : NULL};
        if (tree) {
            // the residual reads the axes and velocities the penalty stage used
            out.S = tree[0];
            out.Sdot = tree[1];
            out.Vpre = tree[2];
            out.V = tree[3];
        }
        if (gdn_wrench_active(m)) {
            out.Wbar = Wbar;
            out.wrench_vjp = penalty_vjp;
            out.wrench_ctx = &pen;
        }
        if (W) {
            status = gdn_residual_vjp_ex(m, d, a, W, rbar, &out);
        } else {
            status = gdn_residual_vjp_primal(m, d, a, rbar, &out);
        }
    }
    if (status == GDN_OK) {
        gdn_step_grad_out(nv, gq, gv, gqpos, gqvel);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the implicit integrator's backward half at the front in d: the integration's adjoint, then
// the acceleration's (gradient/implicit_derivative.h)
static gdnStatus implicit_vjp_back(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                                   const double* gqpos_next, const double* gqvel_next,
                                   double* gqpos, double* gqvel, double* gctrl, double* gparam,
                                   double* gacc0, double* gvert) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* qvel_next = gdn_arena_doubles(d, 4 * (size_t)nv + 1);
    if (!qvel_next) {
        return GDN_ERR_MEMORY;
    }
    double* abar = qvel_next + nv;
    double* gq = abar + nv;
    double* gv = gq + nv;
    gdn_step_integration_vjp(m, d, d->qacc, gqpos_next, gqvel_next, qvel_next, gq, gv, abar);
    gdnStatus status =
        gdn_implicit_accel_vjp(m, d, f->implicit_LU, abar, gq, gv, gctrl, gparam, gacc0, gvert);
    if (status == GDN_OK) {
        gdn_step_grad_out(nv, gq, gv, gqpos, gqvel);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the adjoint of the step without the activation update: gctrl is the force laws' input
// cotangent (activation_derivative.h)
static gdnStatus step_vjp_core(const gdnModel* m, gdnData* d, const double* gqpos_next,
                               const double* gqvel_next, double* gqpos, double* gqvel,
                               double* gctrl, double* gparam, double* gvert, double* gweights,
                               const gdnContactParamGradients* cp, const char** what) {
    *what = NULL;
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    gdn_deriv_report_clear(d);
    if (gparam && gdn_param_refusal(m)) {
        *what = gdn_param_refusal(m);
        return GDN_ERR_UNSUPPORTED;
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        return gdn_rk4_step_vjp(m, d, gqpos_next, gqvel_next, NULL, gqpos, gqvel, NULL, gctrl,
                                gparam, gvert, gweights, cp, NULL, NULL, what);
    }
    size_t mark = gdn_arena_mark(d);
    gdnAbaFactor f;
    gdnStatus status = gdn_aba_factor_alloc(m, d, &f);
    implicit_factor_alloc(m, d, &f);
    if (status == GDN_OK) {
        status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, &f);
    }
    const int implicit = m->opt.integrator == GDN_INT_IMPLICIT;
    // the cotangents of the constants at qpos0 that move with the inertias (a constrained
    // step's inverse weights, the muscles' acc0): the caller's (a trajectory sums them), or
    // this call's, finished here into gparam
    const int constrained = status == GDN_OK && d->nefc > 0;
    const size_t nw = gdn_weights_size(m);
    double* own = gparam && !gweights && (constrained || gdn_any_acc0_scaled(m))
                      ? gdn_arena_doubles(d, nw + 1)
                      : NULL;
    if (own) {
        memset(own, 0, sizeof(double) * nw);
    }
    double* gw = own ? own : gweights;
    if (status == GDN_OK && gparam && !gweights && (constrained || gdn_any_acc0_scaled(m)) &&
        !own) {
        status = GDN_ERR_MEMORY;
    }
    if (status == GDN_OK && implicit && !constrained) {
        status = implicit_vjp_back(m, d, &f, gqpos_next, gqvel_next, gqpos, gqvel, gctrl,
                                   gparam, gparam ? gdn_weights_acc0(m, gw) : NULL, gvert);
    } else if (status == GDN_OK && constrained) {
        status = gdn_constrained_admissible(m, d);
        if (status == GDN_OK) {
            status = gdn_step_vjp_constrained(m, d, f.implicit_LU, gqpos_next, gqvel_next, gqpos,
                                              gqvel, gctrl, gparam, gvert, gw, cp, what);
        }
    } else if (status == GDN_OK) {
        status = step_vjp_back(m, d, &f, d->qacc, NULL, NULL, gqpos_next, gqvel_next, gqpos,
                               gqvel, gctrl, gparam, gvert, gdn_weights_acc0(m, gw));
    }
    if (status == GDN_OK && own) {
        status = gdn_constraint_weights_vjp(m, d, own, own + 2 * m->nbody, gparam);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_vjp_explained(const gdnModel* m, gdnData* d, const double* gqpos_next,
                                 const double* gqvel_next, const double* gact_next,
                                 double* gqpos, double* gqvel, double* gact, double* gctrl,
                                 double* gparam, double* gvert, double* gweights,
                                 const gdnContactParamGradients* cp, const char** what) {
    *what = NULL;
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    if (cp && cp->geom_size && gdn_fluid_uses_ellipsoid(m)) {
        *what = GDN_FLUID_SIZE_REFUSAL;
        return GDN_ERR_UNSUPPORTED;
    }
    if (m->na == 0) {
        return step_vjp_core(m, d, gqpos_next, gqvel_next, gqpos, gqvel, gctrl, gparam, gvert,
                             gweights, cp, what);
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        // the stages carry the activations themselves
        gdn_deriv_report_clear(d);
        if (gparam && gdn_param_refusal(m)) {
            *what = gdn_param_refusal(m);
            return GDN_ERR_UNSUPPORTED;
        }
        gdnStatus st = gdn_rk4_step_vjp(m, d, gqpos_next, gqvel_next, gact_next, gqpos, gqvel,
                                        gact, gctrl, gparam, gvert, gweights, cp, NULL, NULL,
                                        what);
        if (st == GDN_OK) {
            gdn_act_report(m, d);
        }
        return st;
    }
    // gu: the force laws' input cotangent, split into (gctrl, gact) with the update's share
    const size_t nu = (size_t)m->nu, na = (size_t)m->na;
    size_t mark = gdn_arena_mark(d);
    double* gu = gdn_arena_doubles(d, nu + 3 * na);
    if (!gu) {
        return GDN_ERR_MEMORY;
    }
    double *ga = gu + nu, *gc = ga + na, *keep = gc + na;
    memset(gu, 0, sizeof(double) * nu);
    gdn_act_update_partials(m, d, ga, gc, keep);
    gdnStatus status = step_vjp_core(m, d, gqpos_next, gqvel_next, gqpos, gqvel, gu, gparam,
                                     gvert, gweights, cp, what);
    if (status == GDN_OK) {
        gdn_act_update_vjp(m, ga, gc, keep, gu, gact_next, gctrl, gact);
        gdn_act_report(m, d);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_vjp(const gdnModel* m, gdnData* d, const double* gqpos_next,
                       const double* gqvel_next, double* gqpos, double* gqvel, double* gctrl,
                       double* gparam, double* gvert) {
    const char* what = NULL;
    return gdn_step_vjp_explained(m, d, gqpos_next, gqvel_next, NULL, gqpos, gqvel, NULL, gctrl,
                                  gparam, gvert, NULL, NULL, &what);
}

gdnStatus gdn_step_vjp_act(const gdnModel* m, gdnData* d, const double* gqpos_next,
                           const double* gqvel_next, const double* gact_next, double* gqpos,
                           double* gqvel, double* gact, double* gctrl, double* gparam,
                           double* gvert) {
    const char* what = NULL;
    return gdn_step_vjp_explained(m, d, gqpos_next, gqvel_next, gact_next, gqpos, gqvel, gact,
                                  gctrl, gparam, gvert, NULL, NULL, &what);
}

gdnStatus gdn_step_vjp_contact_params(const gdnModel* m, gdnData* d, const double* gqpos_next,
                                      const double* gqvel_next, double* gqpos, double* gqvel,
                                      double* gctrl, double* gparam, double* gvert,
                                      const gdnContactParamGradients* cp) {
    const char* what = NULL;
    if (!cp || !cp->geom_size || !m || !gdn_geom_size_moves_inertia(m)) {
        return gdn_step_vjp_explained(m, d, gqpos_next, gqvel_next, NULL, gqpos, gqvel, NULL,
                                      gctrl, gparam, gvert, NULL, cp, &what);
    }
    // sizes that move their bodies' inertias: this step's full dJ/dpi (its own buffer) taken
    // through the inertia's size tangent (constraint/geom_size_derivative.h)
    if (gdn_check_call(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    const size_t np = GDN_N_INERTIA_PARAMS * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* own = gdn_arena_doubles(d, np);
    if (!own) {
        return GDN_ERR_MEMORY;
    }
    memset(own, 0, sizeof(double) * np);
    gdnStatus status = gdn_step_vjp_explained(m, d, gqpos_next, gqvel_next, NULL, gqpos, gqvel,
                                              NULL, gctrl, own, gvert, NULL, cp, &what);
    if (status == GDN_OK) {
        gdn_geom_size_inertia_vjp(m, own, cp->geom_size);
        for (size_t k = 0; gparam && k < np; k++) {
            gparam[k] += own[k];
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

// The front half's contact part and the backward half, once the kinematics (d->cdof and
// d->cinert included) and ABA's factorization f are the step's: with contact the world-origin
// axes and body velocities (gdn_com_vel, which the residual's adjoint then reads instead of
// recomputing them) and the penalty wrenches (vertex forces and active set as the step's; with
// vert_stored d already holds the step's vertex outputs and W is summed from them)
static gdnStatus vjp_from_front(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                                const double* qacc, int vert_stored, const double* gqpos_next,
                                const double* gqvel_next, double* gqpos, double* gqvel,
                                double* gctrl, double* gparam, double* gvert, double* gacc0) {
    if (!gdn_wrench_active(m)) {
        return step_vjp_back(m, d, f, qacc, NULL, NULL, gqpos_next, gqvel_next, gqpos, gqvel,
                             gctrl, gparam, gvert, gacc0);
    }
    const int pen = gdn_penalty_active(m);
    if (pen && d->nvert != m->nvert) {
        return GDN_ERR_ARG;
    }
    const size_t nb6 = 6 * (size_t)m->nbody;
    const size_t nvs = (size_t)(m->nv > 0 ? m->nv : 1);
    size_t mark = gdn_arena_mark(d);
    // V, W (6 nbody each) and S, Sdot, Vpre (6 nv each)
    double* V = gdn_arena_doubles(d, 2 * nb6 + 18 * nvs);
    if (!V) {
        return GDN_ERR_MEMORY;
    }
    double* W = V + nb6;
    double* tree[4] = {W + nb6, W + nb6 + 6 * nvs, W + nb6 + 12 * nvs, V};
    // the fluid's ellipsoid elements sit at the geoms: their frames from the bodies' (restored
    // or recomputed without them)
    if (gdn_fluid_active(m)) {
        gdn_kinematics_geoms(m, d);
    }
    gdn_dof_axes_about(m, d, 0, tree[0]);
    gdn_com_vel(m, d, tree[0], V, tree[1], tree[2]);
    // the penalty wrenches (from the stored vertex outputs, or the vertices again), plus the
    // fluid wrenches at these twists
    gdnStatus status = GDN_OK;
    if (!pen) {
        memset(W, 0, sizeof(double) * nb6);
    } else if (vert_stored) {
        gdn_penalty_wrenches_again(m, d, W);
    } else {
        gdn_penalty_wrenches(m, d, V, W);
    }
    if (gdn_fluid_active(m)) {
        gdn_fluid_wrenches(m, d, V, GDN_FLUID_ALL, W);
    }
    status = step_vjp_back(m, d, f, qacc, W, tree, gqpos_next, gqvel_next, gqpos, gqvel,
                           gctrl, gparam, gvert, gacc0);
    gdn_arena_reset(d, mark);
    return status;
}

// The front half without the acceleration: body kinematics, ABA's factorization alone
// (gdn_aba_factor, bit for bit the step's), then vjp_from_front
gdnStatus gdn_step_vjp_at(const gdnModel* m, gdnData* d, const double* qacc,
                          const double* gqpos_next, const double* gqvel_next, double* gqpos,
                          double* gqvel, double* gctrl, double* gparam, double* gvert,
                          double* gweights) {
    if (!m || !d || !qacc) {
        return GDN_ERR_ARG;
    }
    if (m->opt.integrator == GDN_INT_IMPLICIT) {
        return GDN_ERR_UNSUPPORTED; // (the adjoint replays implicit steps instead)
    }
    const int nv = m->nv;
    const double hd = gdn_damping_h(m);
    size_t mark = gdn_arena_mark(d);
    gdnAbaFactor f;
    gdnStatus status = gdn_aba_factor_alloc(m, d, &f);
    // extra = h D (NULL without damping, as the step)
    double* extra = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1));
    if (status != GDN_OK || !extra) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    int damped = 0;
    for (int i = 0; i < nv; i++) {
        extra[i] = hd * m->dof_damping[i];
        damped |= hd > 0 && m->dof_damping[i] > 0;
    }
    // body frames only: nothing below reads a geom or site frame (the penalty vertices are in
    // body frames, applied forces act at xipos)
    gdn_kinematics_bodies(m, d);
    status = gdn_aba_factor(m, d, damped ? extra : NULL, &f);
    if (status == GDN_OK) {
        status = vjp_from_front(m, d, &f, qacc, 0, gqpos_next, gqvel_next, gqpos, gqvel, gctrl,
                                gparam, gvert, gdn_weights_acc0(m, gweights));
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_step_vjp_stored(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                              const double* qacc, int vert_stored, const double* gqpos_next,
                              const double* gqvel_next, double* gqpos, double* gqvel,
                              double* gctrl, double* gparam, double* gvert, double* gweights) {
    if (!m || !d || !f || !qacc) {
        return GDN_ERR_ARG;
    }
    if (m->opt.integrator == GDN_INT_IMPLICIT) {
        return GDN_ERR_UNSUPPORTED; // (the adjoint replays implicit steps instead)
    }
    return vjp_from_front(m, d, f, qacc, vert_stored, gqpos_next, gqvel_next, gqpos, gqvel,
                          gctrl, gparam, gvert, gdn_weights_acc0(m, gweights));
}

// ---------------------------------------------------------------- the acceleration alone

// the smooth acceleration's adjoint at the front half in d (ABA's factor f of M + hD):
// rbar = -(M + hD)^-1 abar, then the residual's adjoint; gq, gv, gctrl, gparam, gvert,
// gweights accumulate; rbar: nv + nu scratch
static gdnStatus smooth_accel_vjp(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                                  const double* abar, double* rbar, double* gq, double* gv,
                                  double* gctrl, double* gparam, double* gvert,
                                  double* gweights) {
    const int nv = m->nv, nu = m->nu;
    size_t mark = gdn_arena_mark(d);
    // (gu overwritten by the residual: summed here)
    double* gu = rbar + (nv > 0 ? nv : 1);
    memcpy(rbar, abar, sizeof(double) * (size_t)nv);
    gdnStatus status = gdn_aba_solve(m, d, f, rbar);
    for (int i = 0; i < nv; i++) {
        rbar[i] = -rbar[i];
    }
    penaltyAdjoint pen = {m, d, gvert, gparam};
    gdnResidualAdjoint out = {gq, gv, NULL, gctrl ? gu : NULL, gparam, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL, NULL,
                              gparam ? gdn_weights_acc0(m, gweights) : NULL};
    double* Wbar = NULL;
    if (status == GDN_OK && gdn_wrench_active(m)) {
        Wbar = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
        status = Wbar ? GDN_OK : GDN_ERR_MEMORY;
        out.Wbar = Wbar;
        out.wrench_vjp = penalty_vjp;
        out.wrench_ctx = &pen;
    }
    if (status == GDN_OK) {
        status = gdn_residual_vjp_primal(m, d, d->qacc, rbar, &out);
    }
    for (int k = 0; status == GDN_OK && gctrl && k < nu; k++) {
        gctrl[k] += gu[k];
    }
    gdn_arena_reset(d, mark);
    return status;
}

// The front half at the state in d, then the tangent of its acceleration a (RK4's stage
// derivative; with Euler and dof damping the damped a): without rows da = -(M + hD)^-1 dr,
// with rows the implicit differentiation of the solve (step_constrained.h)
gdnStatus gdn_accel_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                        const double* du, const double* dparam, const double* dweights,
                        const double* dvert, const gdnContactParamGradients* dcp, double* da,
                        const char** what) {
    size_t mark = gdn_arena_mark(d);
    double* dW = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    gdnAbaFactor f;
    gdnStatus status = dW ? gdn_aba_factor_alloc(m, d, &f) : GDN_ERR_MEMORY;
    if (status == GDN_OK) {
        status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, &f);
    }
    if (status == GDN_OK && d->nefc > 0) {
        status = gdn_constrained_admissible(m, d);
        gdnConstrainedLinear L;
        if (status == GDN_OK) {
            status = gdn_constrained_linearize(m, d, NULL, &L, what);
        }
        if (status == GDN_OK && dcp) {
            status = gdn_rows_param_direction(m, d, dcp, &L.dtheta, what);
            L.lin.dsize = dcp->geom_size;
        }
        if (status == GDN_OK) {
            status = gdn_accel_jvp_linear(m, d, &L, dq, dv, du, dparam, dweights, dvert, da,
                                          what);
        }
    } else if (status == GDN_OK) {
        status = smooth_accel_jvp(m, d, &f, dq, dv, du, dparam,
                                  gdn_weights_acc0_const(m, dweights), dvert, dW, da);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// The front half at the state in d, then the adjoint of its acceleration: every output
// accumulates (gdn_accel_jvp's transpose applied to abar)
gdnStatus gdn_accel_vjp(const gdnModel* m, gdnData* d, const double* abar, double* gq,
                        double* gv, double* gctrl, double* gparam, double* gvert,
                        double* gweights, const gdnContactParamGradients* cp,
                        const char** what) {
    const int nv = m->nv, nu = m->nu;
    size_t mark = gdn_arena_mark(d);
    double* rbar = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1) + (size_t)(nu > 0 ? nu : 1));
    gdnAbaFactor f;
    gdnStatus status = rbar ? gdn_aba_factor_alloc(m, d, &f) : GDN_ERR_MEMORY;
    if (status == GDN_OK) {
        status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, &f);
    }
    if (status == GDN_OK && d->nefc > 0) {
        status = gdn_constrained_admissible(m, d);
        if (status == GDN_OK) {
            status = gdn_accel_vjp_constrained(m, d, NULL, abar, gq, gv, gctrl, gparam, gvert,
                                               gweights, cp, what);
        }
    } else if (status == GDN_OK) {
        status = smooth_accel_vjp(m, d, &f, abar, rbar, gq, gv, gctrl, gparam, gvert, gweights);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// ---------------------------------------------------------------- gdn_forward's acceleration

gdnStatus gdn_forward_accel_jvp(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                                const double* dq, const double* dv, const double* du,
                                double* da, double* dforce, const char** what) {
    if (d->nefc > 0) {
        return gdn_accel_force_jvp_linear(m, d, L, dq, dv, du, NULL, NULL, NULL, da, dforce,
                                          what);
    }
    size_t mark = gdn_arena_mark(d);
    double* dW = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    gdnAbaFactor f;
    gdnStatus status = dW ? gdn_aba_factor_alloc(m, d, &f) : GDN_ERR_MEMORY;
    if (status == GDN_OK) {
        status = gdn_aba_factor(m, d, NULL, &f); // M, undamped: mj_forward's
    }
    if (status == GDN_OK) {
        status = smooth_accel_jvp(m, d, &f, dq, dv, du, NULL, NULL, NULL, dW, da);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_forward_accel_vjp(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                                const double* abar, const double* fbar, double* gq, double* gv,
                                double* gu, const char** what) {
    if (d->nefc > 0) {
        return gdn_accel_force_vjp_linear(m, d, L, abar, fbar, gq, gv, gu, NULL, NULL, NULL,
                                          NULL, what);
    }
    const int nv = m->nv, nu = m->nu;
    size_t mark = gdn_arena_mark(d);
    double* rbar = gdn_arena_doubles(d, (size_t)(nv > 0 ? nv : 1) + (size_t)(nu > 0 ? nu : 1));
    gdnAbaFactor f;
    gdnStatus status = rbar ? gdn_aba_factor_alloc(m, d, &f) : GDN_ERR_MEMORY;
    if (status == GDN_OK) {
        status = gdn_aba_factor(m, d, NULL, &f);
    }
    if (status == GDN_OK) {
        status = smooth_accel_vjp(m, d, &f, abar, rbar, gq, gv, gu, NULL, NULL, NULL);
    }
    gdn_arena_reset(d, mark);
    return status;
}
