// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent, adjoint and transition Jacobians of one RK4 step (rk4_derivative.c).
#ifndef GDN_GRADIENT_RK4_DERIVATIVE_H
#define GDN_GRADIENT_RK4_DERIVATIVE_H

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// gdn_step_jvp_contact_params for m->opt.integrator == GDN_INT_RK4 (the same arguments and
// conventions; dcp NULL: none). The entry state (qpos normalized, qvel, warm start, time) is
// restored after. *what names a refusal (as gdn_step_vjp_explained)
// With activations (gdn_step_jvp_act): dact0 (NULL: 0), dact_next (NULL: not wanted); dctrl the
// controls' tangent (the stages form the force laws' inputs themselves)
gdnStatus gdn_rk4_step_jvp(const gdnModel* m, gdnData* d, const double* dq0, const double* dv0,
                           const double* dact0, const double* dctrl, const double* dparam,
                           const double* dvert, const gdnContactParamGradients* dcp,
                           double* dq_next, double* dv_next, double* dact_next,
                           const char** what);

// gdn_step_vjp_explained for RK4 (the same arguments and conventions). stage_acc (NULL: the
// step is replayed to find them): the step's RK4 block as a tape records it (gradient/tape.h:
// the four stage accelerations, 4 x nv, d->qacc_rk4 after the step, then the four stage
// activation rates, 4 x na, d->act_dot_rk4), from which the stage states follow without a
// front half; every stage front half the pass runs is checked against them bit for bit.
// x_next (NULL: not wanted; nq + nv) receives the step's next state from the replay or the
// record, which the trajectory adjoint compares with its own. The entry state is restored
// after. With activations: gact_next (NULL: 0), gact (NULL: not wanted), x_next
// (nq + nv + na)
gdnStatus gdn_rk4_step_vjp(const gdnModel* m, gdnData* d, const double* gq_next,
                           const double* gv_next, const double* gact_next, double* gqpos,
                           double* gqvel, double* gact, double* gctrl, double* gparam,
                           double* gvert, double* gweights, const gdnContactParamGradients* cp,
                           const double* stage_acc, double* x_next, const char** what);

// gdn_transition_jacobians for RK4: A (2nv x 2nv), B (2nv x nu), either may be NULL
gdnStatus gdn_rk4_transition(const gdnModel* m, gdnData* d, double* A, double* B);

#endif
