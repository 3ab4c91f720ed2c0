// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent and adjoint of a step with constraint rows (gradient/step_constrained.c).
#ifndef GDN_GRADIENT_STEP_CONSTRAINED_H
#define GDN_GRADIENT_STEP_CONSTRAINED_H

#include <gradyn/gradyn.h>

// Both run after the front half of the step left its solve in d (d->nefc > 0; kinematics,
// qM, efc_*, qacc_warmstart = the solver's acceleration, qacc = the integrated one). Arguments
// as gdn_step_jvp / gdn_step_vjp (derivative.h). GDN_ERR_UNSUPPORTED with *what naming the row
// kind or pair without a derivative yet, GDN_ERR_SINGULAR for a singular Hessian of the
// primal cost, GDN_ERR_MEMORY when the arena is short.
// whether the solve in d has a derivative: GDN_ERR_UNCONVERGED when it did not converge
static inline gdnStatus gdn_constrained_admissible(const gdnData* d) {
    return d->solver_converged ? GDN_OK : GDN_ERR_UNCONVERGED;
}

gdnStatus gdn_step_jvp_constrained(const gdnModel* m, gdnData* d, const double* dq,
                                   const double* dv, const double* du, const double* dparam,
                                   const double* dvert, double* dq_next, double* dv_next,
                                   const char** what);

gdnStatus gdn_step_vjp_constrained(const gdnModel* m, gdnData* d, const double* gq_next,
                                   const double* gv_next, double* gqpos, double* gqvel,
                                   double* gctrl, double* gparam, double* gvert,
                                   const char** what);

#endif
