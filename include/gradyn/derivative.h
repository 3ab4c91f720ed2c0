// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of one step (tangent / JVP and adjoint / VJP) and transition Jacobians.
// Conventions: docs/derivatives.md. Position perturbations live in the tangent space (nv):
// qpos (+) dq with gdn_integrate_pos (free translation world frame, rotations local frame).
#ifndef GRADYN_DERIVATIVE_H
#define GRADYN_DERIVATIVE_H

#include <gradyn/gradyn.h>

#ifdef __cplusplus
extern "C" {
#endif

// Every function below evaluates at the state held in d (qpos, qvel, ctrl, qfrc_applied,
// xfrc_applied) and the model m, differentiating exactly the step gdn_step takes from there
// (same forces, same penalty contact set, same implicit damping). It leaves the state unchanged
// (quaternions in qpos may be normalized in place, as gdn_step does) and overwrites
// intermediates. Returns GDN_ERR_NONFINITE for a non-finite state, GDN_ERR_MEMORY when the arena
// is too small, GDN_ERR_ARG (as gdn_step) for NULL arguments, a d created for a model of other
// sizes or options out of range. No allocation. A step with constraint rows (contacts, joint
// limits, dof friction loss, connect and weld equalities) is differentiated by the implicit
// function theorem at its solve's solution with the row states held (docs/derivatives.md);
// GDN_ERR_UNCONVERGED when that solve did not converge (or its forces are not the primal
// optimum's at its acceleration), GDN_ERR_SINGULAR for a singular linearization and
// GDN_ERR_UNSUPPORTED for rows without a derivative yet (tendon rows, MPR pairs with a curved
// geom): never a derivative of another step.
//
// After each call d->deriv_flags, d->deriv_state_margin and d->deriv_activation_margin report
// on the step differentiated (data.h):
//   GDN_DERIV_ONESIDED        the solve did not converge and GDN_ENBL_ONESIDED is set: the
//                             result is the derivative at the solver's iterate with its row
//                             states held (without the flag such a step is GDN_ERR_UNCONVERGED)
//   GDN_DERIV_NEAR_STATE      a row is within GDN_DERIV_MARGIN_TOL (relative) of a boundary of
//                             its state (stick/slip, contact force vanishing, friction loss
//                             saturating): the derivative is one-sided there
//   GDN_DERIV_NEAR_ACTIVATION a contact or limit row is within GDN_DERIV_MARGIN_TOL (m or rad)
//                             of its inclusion margin: a nearby state has other rows
#define GDN_DERIV_ONESIDED 1
#define GDN_DERIV_NEAR_STATE 2
#define GDN_DERIV_NEAR_ACTIVATION 4
#define GDN_DERIV_MARGIN_TOL 1e-6
//
// Inputs named d* are tangents (NULL means zero); outputs named d*_next are tangents of the
// next state. Inputs g*_next are cotangents of the next state (NULL means zero); outputs g* are
// cotangents of the inputs (NULL means not wanted). gparam (nbody x GDN_N_INERTIA_PARAMS,
// canonical packing, world row unused) and gvert (nvert x 3, body frame) are ACCUMULATED (+=),
// so a trajectory adjoint can sum over steps; every other output is overwritten.

// (dqpos_next, dqvel_next) = J_step (dqpos, dqvel, dctrl, dparam, dvert)
GDN_API gdnStatus gdn_step_jvp(const gdnModel* m, gdnData* d, const double* dqpos,
                               const double* dqvel, const double* dctrl, const double* dparam,
                               const double* dvert, double* dqpos_next, double* dqvel_next);

// (gqpos, gqvel, gctrl, gparam +=, gvert +=) = J_step' (gqpos_next, gqvel_next)
GDN_API gdnStatus gdn_step_vjp(const gdnModel* m, gdnData* d, const double* gqpos_next,
                               const double* gqvel_next, double* gqpos, double* gqvel,
                               double* gctrl, double* gparam, double* gvert);

// Transition Jacobians of x' = step(x, u) with x = (dqpos, dqvel) in the tangent space:
// A (2nv x 2nv) and B (2nv x nu), row-major, either may be NULL. The layout of MuJoCo's
// mjd_transitionFD (without activations): rows and columns [dq (nv), dv (nv)].
GDN_API gdnStatus gdn_transition_jacobians(const gdnModel* m, gdnData* d, double* A, double* B);

#ifdef __cplusplus
}
#endif

#endif
