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
// and tendon limits, dof and tendon friction loss, connect and weld equalities) is
// differentiated by the implicit function theorem at its solve's solution with the row states
// held (docs/derivatives.md);
// GDN_ERR_UNCONVERGED when that solve did not converge (or its forces are not the primal
// optimum's at its acceleration), GDN_ERR_SINGULAR for a singular linearization and
// GDN_ERR_UNSUPPORTED for a step with a tendon's inside wrap (a side site within its geom)
// whose Newton solve found no root (the primal's fallback point), or a contact whose geometry
// has none (an MPR limit that is not differentiable, also one of a body (adhesion)
// transmission's contacts: docs/derivatives.md): never a derivative of another step. A body
// (adhesion) transmission is differentiated at the step's fixed contact set (its contacts'
// points and normals moving with their geometry tangents).
//
// After each call d->deriv_flags, d->deriv_state_margin and d->deriv_activation_margin report
// on the step differentiated (data.h):
//   GDN_DERIV_ONESIDED        the solve did not converge and GDN_ENBL_ONESIDED is set: the
//                             result is the derivative at the solver's iterate with its row
//                             states held (without the flag such a step is GDN_ERR_UNCONVERGED)
//   GDN_DERIV_NEAR_STATE      a row is within GDN_DERIV_MARGIN_TOL (relative) of a boundary of
//                             its state (stick/slip, contact force vanishing, friction loss
//                             saturating), or an activation of a branch point of its update
//                             (a muscle's control equal to its activation, where its time
//                             constant switches, as a constant control makes it in steady
//                             state; act at 0 or 1; act' at an actrange bound): the derivative
//                             is one-sided there (the primal's branch)
//   GDN_DERIV_NEAR_ACTIVATION a contact or limit row is within GDN_DERIV_MARGIN_TOL (m or rad)
//                             of its inclusion margin: a nearby state has other rows
//   GDN_DERIV_MPR_LIMIT       a contact comes from MPR with a curved shape or a margin: its
//                             geometry is differentiated at the search's converged limit,
//                             which the forward approximates to opt.mpr_tolerance (tighten it
//                             for a gradient that matches the forward's finite differences)
//   GDN_DERIV_INEXACT_SOLVE   the solver stopped at its tolerance with forces that differ from
//                             the primal optimum's at its acceleration by more than
//                             GDN_DERIV_SOLVE_TOL relative (PGS's dual iterate converges
//                             slowly: 1e-4 at MuJoCo's default tolerance 1e-8 on a humanoid):
//                             the derivative is the solution's, which the forward approximates
//                             to that gap, so finite differences of the forward agree only to
//                             it (tighten opt.tolerance, or use Newton or CG, whose forces are
//                             the primal optimum's by construction)
//   GDN_DERIV_WRAP_LIMIT      a spatial tendon wraps with its side site inside its geom (the
//                             inside wrap): its point is differentiated at the root of the
//                             equation MuJoCo's Newton solve targets, which that solve stops
//                             at |F| <= 1e-6 (finite differences of the forward agree to about
//                             that, not to round-off)
#define GDN_DERIV_ONESIDED 1
#define GDN_DERIV_NEAR_STATE 2
#define GDN_DERIV_NEAR_ACTIVATION 4
#define GDN_DERIV_MPR_LIMIT 8
#define GDN_DERIV_INEXACT_SOLVE 16
#define GDN_DERIV_WRAP_LIMIT 32
#define GDN_DERIV_SOLVE_TOL 1e-6
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

// With actuator activations (m->na > 0; MuJoCo's state x = (qpos, qvel, act)): the step maps
// act to act' = clamp(act + h act_dot(ctrl, act), actrange) and the force of a stateful
// actuator reads act (not its control). gdn_step_jvp / gdn_step_vjp are these with dact = 0 and
// gact_next = 0, dact_next and gact not returned. dact (na, NULL: 0) is a direction in act,
// dact_next (na) its image (required when na > 0, else GDN_ERR_ARG); gact_next (na, NULL: 0) a
// cotangent of act', gact (na, NULL: not wanted) its pull-back. A control's tangent reaches a
// stateful actuator through act' only. Under RK4 the four stages carry act (MuJoCo's
// mj_RungeKutta integrates act with the same tableau, and clamps only the final act').
GDN_API gdnStatus gdn_step_jvp_act(const gdnModel* m, gdnData* d, const double* dqpos,
                                   const double* dqvel, const double* dact,
                                   const double* dctrl, const double* dparam,
                                   const double* dvert, double* dqpos_next, double* dqvel_next,
                                   double* dact_next);
GDN_API gdnStatus gdn_step_vjp_act(const gdnModel* m, gdnData* d, const double* gqpos_next,
                                   const double* gqvel_next, const double* gact_next,
                                   double* gqpos, double* gqvel, double* gact, double* gctrl,
                                   double* gparam, double* gvert);

// Cotangents of the contact parameters (MJCF attributes, layouts as the model setters
// gdn_model_set_geom_* / gdn_model_set_pair_* in gradyn.h take them): each array NULL (not
// wanted) or ACCUMULATED (+=), like gparam. How a contact's parameters come from its geoms
// (priority, max, solmix mix, the direct form's min, the 1e-5 friction floor, the override
// flag) is differentiated on the branch taken: a tie of max or min (equal values) gives its
// derivative to geom1 of the contact, a value held by a floor, clamp or replacement (a mixed-
// sign solref, a time constant below 2 timestep, a solimp outside its range, override) gets 0.
typedef struct gdnContactParamGradients {
    double* geom_friction; // ngeom x 3: (slide, spin, roll)
    double* geom_solref;   // ngeom x 2
    double* geom_solimp;   // ngeom x 5: (dmin, dmax, width, midpoint, power)
    double* geom_size;     // ngeom x 3: primitive sizes through the contact geometry and, for a
                           // geom whose body's inertia comes from its geoms, through that
                           // inertia (the step's dJ/dpi chained); wanting it refuses
                           // (GDN_ERR_UNSUPPORTED) the penalty contact model and a step with a
                           // mesh or height-field contact
    double* pair_friction; // npair x 5: (tangent1, tangent2, spin, roll1, roll2)
    double* pair_solref;   // npair x 2
    double* pair_solimp;   // npair x 5
} gdnContactParamGradients;

// gdn_step_vjp that also accumulates into cp (NULL: exactly gdn_step_vjp) the cotangents of the
// contact parameters: zero on a step without contact rows. GDN_ERR_UNSUPPORTED (as for rows
// without a derivative) for a contact of a geom pair named by two explicit pairs and the
// geom_size refusals above
GDN_API gdnStatus gdn_step_vjp_contact_params(const gdnModel* m, gdnData* d,
                                              const double* gqpos_next,
                                              const double* gqvel_next, double* gqpos,
                                              double* gqvel, double* gctrl, double* gparam,
                                              double* gvert, const gdnContactParamGradients* cp);

// gdn_step_jvp with also a direction in the contact parameters: dcp's arrays hold it (same
// layouts; NULL arrays and a NULL dcp: zero; a direction in geom_size: the refusals above)
GDN_API gdnStatus gdn_step_jvp_contact_params(const gdnModel* m, gdnData* d,
                                              const double* dqpos, const double* dqvel,
                                              const double* dctrl, const double* dparam,
                                              const double* dvert,
                                              const gdnContactParamGradients* dcp,
                                              double* dqpos_next, double* dqvel_next);

// Transition Jacobians of x' = step(x, u) with x = (dqpos, dqvel, act) in the tangent space:
// A ((2nv + na) x (2nv + na)) and B ((2nv + na) x nu), row-major, either may be NULL. The
// layout of MuJoCo's mjd_transitionFD: rows and columns [dq (nv), dv (nv), act (na)].
GDN_API gdnStatus gdn_transition_jacobians(const gdnModel* m, gdnData* d, double* A, double* B);

#ifdef __cplusplus
}
#endif

#endif
