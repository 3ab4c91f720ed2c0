// SPDX-License-Identifier: Apache-2.0
// Internal: the exact tangent and adjoint of the implicit integrator's step acceleration.
#ifndef GDN_GRADIENT_IMPLICIT_DERIVATIVE_H
#define GDN_GRADIENT_IMPLICIT_DERIVATIVE_H

#include <gradyn/gradyn.h>

// With H = M - h qDeriv (sim/integrator.h) the step's a solves r(q, v, a) - h qDeriv a = 0
// (r the residual of residual.h: M a - qfrc_smooth), so along a direction
//   da = H^-1 (-dr + h (dqDeriv) a),
// dr the residual's tangent at the step's a, and (dqDeriv) a the change of qDeriv applied to a:
// - the rne part: qDeriv_rne a = -(d C / d v) a, C quadratic in v, so exactly (polarization)
//   (d C / d v) a = (G(q, v + s a) - G(q, v - s a)) / (2 s) for any s > 0, with G the bias
//   without gravity and applied forces; its tangent (q, v, inertia parameters) is therefore
//   the residual's tangent with the forces off at the two velocities v +- s a, differenced
//   and divided by 2 s (an identity, not a difference quotient: s = |v| / |a| balances the
//   round-off); the adjoint is the residual's adjoint at the same two velocities;
// - the actuator part: sum_i kv_i m_i m_i': d kv_i = gainprm[2] d input_i (the UNclamped ctrl,
//   or act) for an affine gain; for a muscle kv = g(len, vel) input with g mjd_muscleGain_vel's
//   slope, d kv = g d input + input (g_len dlen + g_vel dvel + g_acc0 dacc0) (its second
//   partials, sim/implicit.c); the moment m_i constant on joints (MuJoCo's gear) and fixed
//   tendons;
// - the medium's inertia-box law (qDeriv's fluid part is its velocity derivative): quadratic in
//   the local velocity within each sign pattern, so it joins the same polarization, with s
//   small enough that no local velocity component changes sign on [v - s a, v + s a] (the
//   residual then carries the fluid wrenches and their tangent at the two velocities);
// - dof damping and fixed tendon damping: constant;
// - spatial tendons (their damping and the actuators on them): c_t J_t' J_t with J_t moving by
//   DJ_t (kinematics/tendon_derivative.h), d(J' J a) = DJ dq (J . a) + J (DJ dq . a);
// - velocity-gain actuators on the other moving transmissions (slider-crank, site, joint-in-
//   parent on a ball or free joint, body at its fixed contact set): kv M' M with M moving by
//   H = dM/dq (dynamics/transmission.h, gdn_transmission_linear), the same two terms.
// Every rank-one term is masked to M's pattern as qDeriv is (MuJoCo drops the entries between
// dofs of different branches). The ellipsoid fluid law's share is its exact second derivative
// (dynamics/fluid.h: gdn_fluid_ellipsoid_qderiv_jvp). A muscle's kv = g(len, vel) act moves
// with its length and velocity on every transmission (a ball joint's length log(q) . g, a
// site's with refsite, a slider-crank's: their length rows and H, gdn_transmission_linear).
// The penalty contact's wrenches enter dr as Euler's do (qDeriv does not read them).
// With constraint rows the same change enters the step's final solve
// (gradient/step_constrained.c): H da = -dr_a + J' df + h (dqDeriv) a.

// da (nv) of the step at the front half in d (gdn_pipeline_front in a step mode: d->qacc the
// implicit acceleration, d->qM). du: the force laws' input tangent (nu, NULL = 0), dparam the
// inertia parameters' (NULL = 0), dacc0 actuator_acc0's under dparam (nu, NULL = 0: the
// muscles scaled by it), dvert the penalty vertices' (NULL = 0). GDN_ERR_SINGULAR,
// GDN_ERR_MEMORY
// LU: the front half's factor of M - h qDeriv (gdnAbaFactor.implicit_LU; NULL: computed here)
gdnStatus gdn_implicit_accel_jvp(const gdnModel* m, gdnData* d, const double* LU,
                                 const double* dq, const double* dv, const double* du,
                                 const double* dparam, const double* dacc0, const double* dvert,
                                 double* da);

// t (nv, overwritten) = (dqDeriv) a along (dq, dv, du, dparam), a held fixed
gdnStatus gdn_implicit_dqderiv_jvp(const gdnModel* m, gdnData* d, const double* a,
                                   const double* dq, const double* dv, const double* du,
                                   const double* dparam, const double* dacc0, double* t);

// its transpose for z (nv): gq, gv, gparam, gacc0 += (NULL: not wanted), gu += (accumulated;
// NULL: not wanted)
gdnStatus gdn_implicit_dqderiv_vjp(const gdnModel* m, gdnData* d, const double* a,
                                   const double* z, double* gq, double* gv, double* gu,
                                   double* gparam, double* gacc0);

// x = H^-T x with the factor of gdn_implicit_factor (in place)
void gdn_implicit_solve_transposed(const gdnModel* m, const double* LU, double* x);

// the same with H the factored M - h qDeriv already (gdn_implicit_matrix at this front: the
// transition's columns share it)
gdnStatus gdn_implicit_accel_jvp_with(const gdnModel* m, gdnData* d, const double* H,
                                      const double* dq, const double* dv, const double* du,
                                      const double* dparam, const double* dacc0,
                                      const double* dvert, double* da);

// the transpose: gq, gv += (da/dq)' abar, (da/dv)' abar; gu = (da/du)' abar (overwritten;
// NULL: not wanted), gparam, gacc0, gvert += (da/dpi)' abar, (da/dacc0)' abar, (da/dvert)'
// abar (NULL: not wanted)
// abar (LU as gdn_implicit_accel_jvp's)
gdnStatus gdn_implicit_accel_vjp(const gdnModel* m, gdnData* d, const double* LU,
                                 const double* abar, double* gq, double* gv, double* gu,
                                 double* gparam, double* gacc0, double* gvert);

#endif
