// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent and adjoint of a step with constraint rows (gradient/step_constrained.c).
#ifndef GDN_GRADIENT_STEP_CONSTRAINED_H
#define GDN_GRADIENT_STEP_CONSTRAINED_H

#include <math.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// Both run after the front half of the step left its solve in d (d->nefc > 0; kinematics,
// qM, efc_*, qacc_warmstart = the solver's acceleration, qacc = the integrated one). Arguments
// as gdn_step_jvp / gdn_step_vjp (derivative.h). GDN_ERR_UNSUPPORTED with *what naming the row
// kind or pair without a derivative yet, GDN_ERR_SINGULAR for a singular Hessian of the
// primal cost, GDN_ERR_MEMORY when the arena is short.
#include "constraint/rows_derivative.h"
#include "dynamics/mass_factor.h"

// what every direction reads: the dof axes, the rows' linearization, the factors, the wrenches
typedef struct gdnConstrainedLinear {
    double* S;     // 6 nv: world-origin dof axes
    gdnRowsLinear lin;
    double* H;     // nv x nv: Cholesky factor of M + J' H_s J (lower)
    gdnMassFactor damp; // factor of M + h D (when damped, Euler)
    int damped;    // the step's final solve differs from the solver's acceleration
    double* Himp;  // nv x nv: the implicit integrator's LU of M - h qDeriv (NULL: Euler)
    double* W;     // 6 nbody: penalty + row wrenches at the solved forces
    const double* x; // the solver's acceleration
    const double* dtheta; // NULL (gdn_constrained_linearize), or a direction in the contacts'
                          // parameters (GDN_CONTACT_NPARAM x ncon, rows_param_derivative.h)
                          // that gdn_step_jvp_linear then includes
} gdnConstrainedLinear;

// the linearization at the solve in d (arrays from the arena: the caller releases them).
// Status as gdn_step_jvp_constrained. implicit_LU (NULL: formed here): under the implicit
// integrator, the front half's factor of M - h qDeriv (gdnAbaFactor.implicit_LU), copied to
// L->Himp instead of forming qDeriv again
gdnStatus gdn_constrained_linearize(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                    gdnConstrainedLinear* L, const char** what);

// the same at the solve gdn_forward left in d: mj_forward's acceleration x, without the step's
// final damped (Euler with dof damping) or implicit solve (L->damped = 0)
gdnStatus gdn_constrained_linearize_forward(const gdnModel* m, gdnData* d,
                                            gdnConstrainedLinear* L, const char** what);

// gdn_step_jvp_constrained at a linearization made once for many directions (A, B)
gdnStatus gdn_step_jvp_linear(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                              const double* dq, const double* dv, const double* du,
                              const double* dparam, const double* dweights,
                              const double* dvert, double* dq_next, double* dv_next,
                              const char** what);

// the tangent of the solved acceleration alone, da (nv) = dx (undamped; the RK4 stages) or the
// damped step's da (Euler with dof damping), at the same linearization; every direction as
// gdn_step_jvp_linear
gdnStatus gdn_accel_jvp_linear(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                               const double* dq, const double* dv, const double* du,
                               const double* dparam, const double* dweights,
                               const double* dvert, double* da, const char** what);

// gdn_accel_jvp_linear that also writes the constraint forces' tangent df (nefc, NULL: not
// wanted; the df of docs/derivatives.md: d efc_force with the row states held)
gdnStatus gdn_accel_force_jvp_linear(const gdnModel* m, gdnData* d,
                                     const gdnConstrainedLinear* L, const double* dq,
                                     const double* dv, const double* du, const double* dparam,
                                     const double* dweights, const double* dvert, double* da,
                                     double* dforce, const char** what);

// the adjoint of that acceleration at the solve in d: gq, gv (nv, both required), gctrl (nu),
// gparam, gvert, gweights and cp all ACCUMULATE the transposed partials applied to abar (nv)
// (implicit_LU as gdn_constrained_linearize's)
gdnStatus gdn_accel_vjp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                    const double* abar, double* gq, double* gv, double* gctrl,
                                    double* gparam, double* gvert, double* gweights,
                                    const gdnContactParamGradients* cp, const char** what);

// gdn_accel_vjp_constrained at a linearization L the caller made, applied to the cotangents
// abar (nv) of the acceleration and fbar (nefc, NULL: 0) of the constraint forces (the
// transpose of gdn_accel_force_jvp_linear); outputs ACCUMULATE as gdn_accel_vjp_constrained's
gdnStatus gdn_accel_force_vjp_linear(const gdnModel* m, gdnData* d,
                                     const gdnConstrainedLinear* L, const double* abar,
                                     const double* fbar, double* gq, double* gv, double* gctrl,
                                     double* gparam, double* gvert, double* gweights,
                                     const gdnContactParamGradients* cp, const char** what);

// whether the solve in d has a derivative: GDN_ERR_UNCONVERGED when it did not converge, unless
// the model opts into one-sided derivatives (GDN_ENBL_ONESIDED: flagged GDN_DERIV_ONESIDED)
static inline gdnStatus gdn_constrained_admissible(const gdnModel* m, gdnData* d) {
    if (d->solver_converged) {
        return GDN_OK;
    }
    if (m->opt.enableflags & GDN_ENBL_ONESIDED) {
        d->deriv_flags |= GDN_DERIV_ONESIDED;
        return GDN_OK;
    }
    return GDN_ERR_UNCONVERGED;
}

// d->deriv_* before a derivative call: no flags, no margins
static inline void gdn_deriv_report_clear(gdnData* d) {
    d->deriv_flags = 0;
    d->deriv_state_margin = INFINITY;
    d->deriv_activation_margin = INFINITY;
}

// dweights (2 nbody + nv + ntendon; NULL when dparam is): the tangent of the inverse weights
// under dparam (gdn_constraint_weights_jvp, computed before the front half: it uses d as scratch)
// dcp (NULL: none): a direction in the contact parameters (gdn_step_jvp_contact_params)
// implicit_LU as gdn_constrained_linearize's
gdnStatus gdn_step_jvp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                   const double* dq, const double* dv, const double* du,
                                   const double* dparam, const double* dweights,
                                   const double* dvert, const gdnContactParamGradients* dcp,
                                   double* dq_next, double* dv_next, const char** what);

// cp (NULL: none): the contact parameters' cotangents, accumulated
// (constraint/rows_param_derivative.h).
// gweights (2 nbody + nv + ntendon, accumulated; used when gparam is wanted): the cotangents of
// body_invweight0, dof_invweight0 and tendon_invweight0, through which the inertia parameters
// also move the rows' D; the caller finishes gparam with gdn_constraint_weights_vjp (once for a
// whole trajectory)
gdnStatus gdn_step_vjp_constrained(const gdnModel* m, gdnData* d, const double* implicit_LU,
                                   const double* gq_next, const double* gv_next, double* gqpos,
                                   double* gqvel, double* gctrl, double* gparam, double* gvert,
                                   double* gweights, const gdnContactParamGradients* cp,
                                   const char** what);

#endif
