// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent, adjoint and transition Jacobians of one RK4 step (rk4_derivative.c).
#ifndef GDN_GRADIENT_RK4_DERIVATIVE_H
#define GDN_GRADIENT_RK4_DERIVATIVE_H

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// gdn_step_jvp_contact_params for m->opt.integrator == GDN_INT_RK4 (the same arguments and
// conventions; dcp NULL: none). The entry state (qpos normalized, qvel, warm start, time) is
// restored after. *what names a refusal (as gdn_step_vjp_explained)
gdnStatus gdn_rk4_step_jvp(const gdnModel* m, gdnData* d, const double* dq0, const double* dv0,
                           const double* du, const double* dparam, const double* dvert,
                           const gdnContactParamGradients* dcp, double* dq_next,
                           double* dv_next, const char** what);

// gdn_step_vjp_explained for RK4 (the same arguments and conventions); x_next (NULL: not
// wanted; nq + nv) receives the replayed step's next state, which the trajectory adjoint
// compares with its record. The entry state is restored after
gdnStatus gdn_rk4_step_vjp(const gdnModel* m, gdnData* d, const double* gq_next,
                           const double* gv_next, double* gqpos, double* gqvel, double* gctrl,
                           double* gparam, double* gvert, double* gweights,
                           const gdnContactParamGradients* cp, double* x_next,
                           const char** what);

// gdn_transition_jacobians for RK4: A (2nv x 2nv), B (2nv x nu), either may be NULL
gdnStatus gdn_rk4_transition(const gdnModel* m, gdnData* d, double* A, double* B);

#endif
