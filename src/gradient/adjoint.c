// SPDX-License-Identifier: Apache-2.0
// The trajectory adjoint: the forward rollout, then the backward pass with the step VJP.
#include <math.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>

#include "base/status.h"
#include "constraint/geom_size_derivative.h"
#include "constraint/setconst_derivative.h"
#include "dynamics/fluid.h"
#include "dynamics/transmission.h"
#include "gradient/activation_derivative.h"
#include "gradient/cost.h"
#include "gradient/param_refusal.h"
#include "gradient/rk4_derivative.h"
#include "gradient/rollout.h"
#include "gradient/step_derivative.h"
#include "gradient/tape.h"
#include "kinematics/tendon_derivative.h"

// the warm start step t read (tape.h): zero at t = 0, the checkpoint's at a segment start
// (K > 1), else what step t - 1 left in d->qacc_warmstart (the solver's acceleration after a
// step with rows, its integrated acceleration after one without)
static void warm_before(const gdnModel* m, const gdnTape* tape, int t, double* warm) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    gdnTapeStep rec;
    if (t == 0) {
        memset(warm, 0, bytes);
    } else if (tape->every > 1 && t % tape->every == 0) {
        memcpy(warm, tape->warm + (size_t)(t / tape->every) * (size_t)m->nv, bytes);
    } else if (gdn_tape_step(tape, t - 1, &rec) == GDN_OK) {
        memcpy(warm, rec.qacc_warmstart ? rec.qacc_warmstart : rec.qacc, bytes);
    }
}

// A reverse step through a step with constraint rows: its front half is run again from x_t,
// u_t and the warm start it read, which reproduces its solve bit for bit (checked against the
// recorded acceleration), then the constrained step VJP (gradient/step_constrained.c) at it
// An RK4 step (every one, with rows or not) is replayed the same way, its four front halves
// from x_t and the warm start (gradient/rk4_derivative.c), and checked by its next state: the
// replay's x_{t+1} must be the recorded one bit for bit
static gdnStatus reverse_constrained(const gdnModel* m, gdnTape* tape, int t,
                                     const double* xnext, double* gctrl, double* gparam,
                                     double* gvert, const gdnContactParamGradients* cp,
                                     char* err, int err_size) {
    gdnData* d = tape->d;
    gdnTapeStep rec;
    gdn_tape_step(tape, t, &rec);
    warm_before(m, tape, t, d->qacc_warmstart);
    const char* what = NULL;
    const int rk4 = m->opt.integrator == GDN_INT_RK4;
    gdnStatus st;
    if (rk4) {
        st = gdn_rk4_step_vjp(m, d, tape->lam_q, tape->lam_v, tape->lam_a, tape->g_q,
                              tape->g_v, tape->g_a, gctrl, gparam, gvert, tape->gweights, cp,
                              gdn_tape_rk4_acc(m, tape, gdn_tape_slot_of(tape, t)),
                              tape->replay_next, &what);
    } else {
        st = gdn_step_vjp_explained(m, d, tape->lam_q, tape->lam_v, tape->lam_a, tape->g_q,
                                    tape->g_v, tape->g_a, gctrl, gparam, gvert, tape->gweights,
                                    cp, &what);
    }
    // a body transmission's contact without a geometry tangent (the force terms say no more
    // than the status)
    if (st == GDN_ERR_UNSUPPORTED && !what && gdn_transmission_body_refusal(m, d)) {
        return gdn_fail(st, err, err_size, "step %d: no derivative through %s", t,
                        GDN_TRN_BODY_WHAT);
    }
    // a tendon the step cannot linearize (its force terms say no more than the status)
    if (st == GDN_ERR_UNSUPPORTED && (!what || !strcmp(what, GDN_TENDON_WRAP_WHAT)) &&
        m->ntendon > 0) {
        return gdn_fail(st, err, err_size, "step %d: no derivative through %s", t,
                        GDN_TENDON_WRAP_WHAT);
    }
    if (st == GDN_ERR_UNSUPPORTED && what && m->opt.integrator == GDN_INT_IMPLICIT) {
        return gdn_fail(st, err, err_size, "step %d: no derivative through %s", t, what);
    }
    if (st == GDN_ERR_UNSUPPORTED && what) {
        return gdn_fail(st, err, err_size,
                        "step %d has %d constraint rows and no derivative through its "
                        "%s yet; disable those rows (e.g. GDN_DSBL_CONSTRAINT) to "
                        "differentiate without them",
                        t, rec.nefc, what);
    }
    if (st == GDN_ERR_UNCONVERGED) {
        return gdn_fail(st, err, err_size,
                        "step %d: the constraint solve did not converge (%d iterations, "
                        "residual %.3g%s%s): no derivative",
                        t, rec.solver_iter, rec.solver_residual, what ? "; " : "",
                        what ? what : "");
    }
    if (st != GDN_OK) {
        return gdn_fail(st, err, err_size, "step %d: the step VJP failed (%s)%s%s", t,
                        gdn_status_string(st), what ? ": " : "", what ? what : "");
    }
    // the step's derivative report into its record (gdnTapeStep.deriv_*)
    const int slot = gdn_tape_slot_of(tape, t);
    if (slot >= 0) {
        tape->entry[slot].deriv_flags = d->deriv_flags;
        tape->entry[slot].deriv_state_margin = d->deriv_state_margin;
        tape->entry[slot].deriv_activation_margin = d->deriv_activation_margin;
    }
    if (st == GDN_OK && rk4 &&
        memcmp(tape->replay_next, xnext, sizeof(double) * (size_t)tape->stride) != 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "step %d: the replayed RK4 step differs from the recorded one", t);
    }
    if (st == GDN_OK && !rk4 &&
        (d->nefc != rec.nefc || memcmp(d->qacc, rec.qacc, sizeof(double) * (size_t)m->nv) != 0)) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "step %d: the replayed solve differs from the recorded one", t);
    }
    return st;
}

// One reverse step at x_t (loaded into d with u_t), with the recorded acceleration qacc_t:
//   (g_q, g_v, dJ/du_t, dJ/dpi +=, dJ/dV +=) = J_step' (lam_q, lam_v)  (gdn_step_vjp_stored
//   on the step's stored intermediates, else gdn_step_vjp_at)
//   g += grad l(x_t, u_t)           then lam <- g
static gdnStatus reverse_step(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                              gdnTape* tape, const double* x, const double* xnext, int t,
                              gdnAdjointGradients* out, char* err, int err_size) {
    const int nv = m->nv, nu = m->nu;
    gdnData* d = tape->d;
    gdn_rollout_load_state(m, d, x);
    const double* u = gdn_rollout_ctrl_row(m, r, t);
    if (nu > 0) {
        memcpy(d->ctrl, u, sizeof(double) * (size_t)nu);
    }
    double* gctrl = (out->ctrl && nu > 0) ? out->ctrl + (size_t)t * (size_t)nu : NULL;
    double* gvert = m->nvert > 0 ? out->vert : NULL;
    // the step's front half from its stored intermediates when the tape kept them, else
    // recomputed from x_t (the same bits)
    const int slot = tape->store_inter ? gdn_tape_slot_of(tape, t) : -1;
    const int tslot = gdn_tape_slot_of(tape, t);
    gdnStatus st;
    // a smooth Euler step of a model with activations: the force laws' input cotangent gu, then
    // the activation update's share (gradient/activation_derivative.h)
    const int na = m->na;
    const int implicit = m->opt.integrator == GDN_INT_IMPLICIT;
    double* gu = gctrl;
    double *ga = NULL, *gc = NULL, *keep = NULL;
    const int replay = (tslot >= 0 && tape->entry[tslot].nefc > 0) ||
                       m->opt.integrator == GDN_INT_RK4 || implicit ||
                       gdn_transmission_has_body(m);
    if (!replay && na) {
        gu = tape->act_work;
        ga = gu + nu;
        gc = ga + na;
        keep = gc + na;
        memset(gu, 0, sizeof(double) * (size_t)nu);
        gdn_act_update_partials(m, d, ga, gc, keep);
    }
    // every implicit step is replayed too: its VJP refactors M - h qDeriv at the replayed front;
    // and every step of a model with a body transmission (its moment reads the step's contacts,
    // which the smooth path's stored or recomputed body frames do not give)
    if (replay) {
        // the contact parameters' channels (NULL when none is wanted)
        const gdnContactParamGradients cp = {out->geom_friction, out->geom_solref,
                                             out->geom_solimp,   out->geom_size,
                                             out->pair_friction, out->pair_solref,
                                             out->pair_solimp};
        const int any = cp.geom_friction || cp.geom_solref || cp.geom_solimp ||
                        cp.geom_size || cp.pair_friction || cp.pair_solref || cp.pair_solimp;
        st = reverse_constrained(m, tape, t, xnext, gctrl, out->param, gvert, any ? &cp : NULL,
                                 err, err_size);
        if (st != GDN_OK) {
            return st;
        }
    } else if (slot >= 0 && tape->entry[slot].inter) {
        gdnAbaFactor f;
        gdn_tape_inter_factor(tape, slot, &f);
        gdn_tape_inter_restore(tape, slot);
        st = gdn_step_vjp_stored(m, d, &f, gdn_tape_acc(tape, t),
                                 (tape->entry[slot].inter & 2) != 0, tape->lam_q, tape->lam_v,
                                 tape->g_q, tape->g_v, gu, out->param, gvert, tape->gweights);
    } else {
        st = gdn_step_vjp_at(m, d, gdn_tape_acc(tape, t), tape->lam_q, tape->lam_v, tape->g_q,
                             tape->g_v, gu, out->param, gvert, tape->gweights);
    }
    if (st == GDN_OK && ga) {
        gdn_act_update_vjp(m, ga, gc, keep, gu, tape->lam_a, gctrl, tape->g_a);
        // the activations' branch margin into the step's derivative report
        if (tslot >= 0) {
            const double margin = gdn_act_branch_margin(m, d);
            tape->entry[tslot].deriv_flags |= margin < GDN_DERIV_MARGIN_TOL ? GDN_DERIV_NEAR_STATE
                                                                           : 0;
            if (margin < tape->entry[tslot].deriv_state_margin) {
                tape->entry[tslot].deriv_state_margin = margin;
            }
        }
    }
    if (st != GDN_OK) {
        // (a smooth step of a model with tendons refuses through a tendon it cannot linearize)
        const int tendon = st == GDN_ERR_UNSUPPORTED && m->ntendon > 0;
        return gdn_fail(st, err, err_size, "step %d: the step VJP failed (%s%s%s)", t,
                        gdn_status_string(st), tendon ? ": " : "",
                        tendon ? GDN_TENDON_WRAP_WHAT : "");
    }
    if (obj->running.fn) {
        double value;
        st = gdn_cost_eval(m, tape, &obj->running, t, x, x + m->nq, x + m->nq + nv,
                           u ? u : tape->cost_u, &value, 1, gctrl != NULL, err, err_size);
        if (st != GDN_OK) {
            return st;
        }
        for (int i = 0; i < nv; i++) {
            tape->g_q[i] += tape->cost_qt[i];
            tape->g_v[i] += tape->cost_v[i];
        }
        for (int i = 0; gctrl && i < nu; i++) {
            gctrl[i] += tape->cost_u[i];
        }
        // an internal term's act gradient (the batch objective's; tape.h)
        for (int i = 0; tape->cost_a_set && i < m->na; i++) {
            tape->g_a[i] += tape->cost_a[i];
        }
    }
    // lambda_t becomes the cotangent of the next reverse step
    double* swap = tape->lam_q;
    tape->lam_q = tape->g_q;
    tape->g_q = swap;
    swap = tape->lam_v;
    tape->lam_v = tape->g_v;
    tape->g_v = swap;
    swap = tape->lam_a;
    tape->lam_a = tape->g_a;
    tape->g_a = swap;
    return GDN_OK;
}

// The backward pass over segments [t0, t1) of K steps, last first. A segment's states
// x_{t0+1} .. x_{t1-1} and step records t0 .. t1-2 are replayed from checkpoint x_{t0} with
// gdn_step (K > 1; step t1-1's record is the forward pass's), then walked in reverse.
static gdnStatus backward(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                          gdnTape* tape, gdnAdjointGradients* out, char* err, int err_size) {
    const int nq = m->nq, nv = m->nv, T = r->nstep, K = tape->every;

    // lambda_T = grad g(x_T) (tangent)
    memset(tape->lam_q, 0, sizeof(double) * (size_t)nv);
    memset(tape->lam_v, 0, sizeof(double) * (size_t)nv);
    memset(tape->lam_a, 0, sizeof(double) * (size_t)m->na);
    if (obj->terminal.fn) {
        double value;
        gdnStatus st = gdn_cost_eval(m, tape, &obj->terminal, T, tape->final, tape->final + nq,
                                     tape->final + nq + nv, NULL, &value, 1, 0, err, err_size);
        if (st != GDN_OK) {
            return st;
        }
        memcpy(tape->lam_q, tape->cost_qt, sizeof(double) * (size_t)nv);
        memcpy(tape->lam_v, tape->cost_v, sizeof(double) * (size_t)nv);
        if (tape->cost_a_set) {
            memcpy(tape->lam_a, tape->cost_a, sizeof(double) * (size_t)m->na);
        }
    }

    const int nseg = (T + K - 1) / K;
    for (int s = nseg - 1; s >= 0; s--) {
        const int t0 = s * K;
        const int t1 = t0 + K < T ? t0 + K : T;
        const double* xcheck = tape->checkpoint + (size_t)s * (size_t)tape->stride;
        if (t1 - t0 > 1) {
            gdnStatus st = gdn_rollout_replay(m, r, tape, s, err, err_size);
            if (st != GDN_OK) {
                return st;
            }
        }
        for (int t = t1 - 1; t >= t0; t--) {
            const double* x =
                t == t0 ? xcheck : tape->segment + (size_t)(t - t0 - 1) * (size_t)tape->stride;
            // x_{t+1}: the final state, the next segment's checkpoint, or this segment's
            const double* xnext =
                t + 1 == T ? tape->final
                : t + 1 == t1 ? tape->checkpoint + (size_t)(s + 1) * (size_t)tape->stride
                              : tape->segment + (size_t)(t - t0) * (size_t)tape->stride;
            gdnStatus st = reverse_step(m, r, obj, tape, x, xnext, t, out, err, err_size);
            if (st != GDN_OK) {
                return st;
            }
        }
    }
    if (out->qpos0) {
        memcpy(out->qpos0, tape->lam_q, sizeof(double) * (size_t)nv);
    }
    if (out->qvel0) {
        memcpy(out->qvel0, tape->lam_v, sizeof(double) * (size_t)nv);
    }
    if (out->act0 && m->na > 0) {
        memcpy(out->act0, tape->lam_a, sizeof(double) * (size_t)m->na);
    }
    return GDN_OK;
}

gdnStatus gdn_adjoint_rollout_gradient(const gdnModel* m, const gdnRollout* r,
                                       const gdnObjective* obj, gdnTape* tape,
                                       gdnAdjointGradients* out, char* err, int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    if (!out) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL gradient output");
    }
    out->J = NAN;
    gdnStatus st = gdn_rollout_validate(m, r, obj, tape, err, err_size);
    if (st != GDN_OK) {
        return st;
    }
    if (out->param && gdn_param_refusal(m)) {
        return gdn_fail(GDN_ERR_UNSUPPORTED, err, err_size, "dJ/dpi: no %s yet",
                        gdn_param_refusal(m));
    }
    if (out->geom_size && gdn_fluid_uses_ellipsoid(m)) {
        return gdn_fail(GDN_ERR_UNSUPPORTED, err, err_size, "dJ/d geom_size: no %s yet",
                        GDN_FLUID_SIZE_REFUSAL);
    }
    // a size that moves its body's inertia is chained through dJ/dpi, which must be wanted then
    const int size_inertia = out->geom_size && gdn_geom_size_moves_inertia(m);
    if (size_inertia && !out->param) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "geom_size on a model whose bodies take their inertia from their geoms "
                        "needs the param output (dJ/dpi) too");
    }
    // the step VJP accumulates the parameter channels
    if (out->param) {
        memset(out->param, 0, sizeof(double) * GDN_N_INERTIA_PARAMS * (size_t)m->nbody);
    }
    if (out->vert && m->nvert > 0) {
        memset(out->vert, 0, sizeof(double) * 3 * (size_t)m->nvert);
    }
    // and the contact parameters'
    double* const zero[7] = {out->geom_friction, out->geom_solref, out->geom_solimp,
                             out->geom_size, out->pair_friction, out->pair_solref,
                             out->pair_solimp};
    const int count[7] = {3 * m->ngeom, 2 * m->ngeom, 5 * m->ngeom, 3 * m->ngeom,
                          5 * m->npair, 2 * m->npair, 5 * m->npair};
    for (int k = 0; k < 7; k++) {
        if (zero[k] && count[k] > 0) {
            memset(zero[k], 0, sizeof(double) * (size_t)count[k]);
        }
    }
    double J = 0;
    st = gdn_rollout_forward(m, r, obj, tape, 1, &J, err, err_size);
    if (st != GDN_OK) {
        tape->nstep = 0;
        return st;
    }
    memset(tape->gweights, 0,
           sizeof(double) * gdn_weights_size(m));
    st = backward(m, r, obj, tape, out, err, err_size);
    // the constrained steps' D moves with the inertias through the inverse weights: their
    // cotangents, summed over the steps, taken to dJ/dpi once (setconst_derivative.h)
    if (st == GDN_OK && out->param) {
        st = gdn_constraint_weights_vjp(m, tape->scratch, tape->gweights,
                                        tape->gweights + 2 * m->nbody, out->param);
        if (st != GDN_OK) {
            return gdn_fail(st, err, err_size, "the inverse weights' adjoint failed (%s)",
                            gdn_status_string(st));
        }
    }
    if (st != GDN_OK) {
        return st;
    }
    // the sizes' share through their bodies' inertias (constraint/geom_size_derivative.h)
    if (size_inertia) {
        gdn_geom_size_inertia_vjp(m, out->param, out->geom_size);
    }
    out->J = J;
    return GDN_OK;
}
