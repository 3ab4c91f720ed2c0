// SPDX-License-Identifier: Apache-2.0
// Internal: MuJoCo 2.2.2's fluid models (inertia box, ellipsoid; density, viscosity, wind) as
// body wrenches, and their tangent and adjoint.
#ifndef GDN_DYNAMICS_FLUID_H
#define GDN_DYNAMICS_FLUID_H

#include <gradyn/gradyn.h>

// The model (mj_inertiaBoxFluidModel), per body b with mass >= GDN_MINVAL, c = xipos_b,
// R = ximat_b, V_b = [w; v_O] (world-origin twist), box_k the sides of the box with b's
// principal inertia (box_0 = sqrt(6 (I_1 + I_2 - I_0) / mass), ...), r = (box_0+box_1+box_2)/3:
//   l = [R' w; R' (w x c + v_O - wind)]                         (local velocity at the COM)
//   f_k = -beta_k l_k - gamma_k |l_k| l_k                        (per component, local)
//     beta = viscosity (pi r^3 (3x), 3 pi r (3x)),
//     gamma = density (b0 (b1^4 + b2^4) / 64, ..., b1 b2 / 2, b0 b2 / 2, b0 b1 / 2)
//   W_b += [R f_ang + c x R f_lin; R f_lin]                      (torque about the origin; force)
// A body with a geom in the ellipsoid model (geom fluidshape="ellipsoid": geom_fluid, the
// compiler's coefficients, mjcf/fluid_coef.c) uses MuJoCo's ellipsoid law instead, per such
// geom at its center and in its frame (fluid.c: added mass, Magnus and Kutta lift, linear and
// quadratic drag). Active when density > 0 or viscosity > 0 and passive forces are enabled
// (MuJoCo's mj_passive).
static inline int gdn_fluid_active(const gdnModel* m) {
    return (m->opt.density > 0 || m->opt.viscosity > 0) &&
           !(m->opt.disableflags & GDN_DSBL_PASSIVE);
}

// The inertia parameters move the inertia-box law's box (mass, principal moments: its sides
// and so beta, gamma) and its frame (the COM xipos and the principal axes ximat); the tangent
// and adjoint below carry all of it, the axes through the eigenvectors' first-order change
// (omega_i = s_lj / (lambda_j - lambda_l), fluid.c). With density > 0 the law reads the axes
// (|l_k| l_k is not rotation-invariant), so where two principal moments of a body in the box
// model coincide (relative gap <= GDN_FLUID_AXES_GAP: a capsule, a cylinder, a square box) the
// axes, and with them the force, jump under a parameter change: no derivative exists, and the
// parameter channel of such a model is refused (GDN_ERR_UNSUPPORTED) with
// GDN_FLUID_PARAM_REFUSAL. The viscous law (density 0) is rotation-invariant: never refused.
// The ellipsoid model reads the geoms' frames, sizes and coefficients, not the inertias: its
// bodies need no refusal there, but the geom-size channel (semi-axes and the compiled virtual
// mass and inertia) is refused for them.
#define GDN_FLUID_AXES_GAP 1e-8
#define GDN_FLUID_PARAM_REFUSAL                                                               \
    "inertia-parameter derivative of the fluid's inertia-box model (density > 0) at a body "  \
    "with two equal principal moments (the box's axes, and so the drag, are not "             \
    "differentiable there)"
#define GDN_FLUID_SIZE_REFUSAL \
    "geom-size derivative of the fluid's ellipsoid model (its semi-axes and virtual inertia)"

// GDN_FLUID_PARAM_REFUSAL when the inertia-parameter derivative of m does not exist (above),
// else NULL
const char* gdn_fluid_param_refusal(const gdnModel* m);

// 1 when the medium acts on a body through the ellipsoid model (a body of mass >= 1e-15 with
// an ellipsoid geom)
int gdn_fluid_uses_ellipsoid(const gdnModel* m);

// the elements a call covers (kinds): the inertia boxes, the ellipsoid geoms, or both
#define GDN_FLUID_BOX 1
#define GDN_FLUID_ELLIPSOID 2
#define GDN_FLUID_ALL 3

// W (6 x nbody) += the fluid wrenches of the elements of kinds at the state of the last
// kinematics, V the body twists (dynamics/body_wrench.h: gdn_body_velocities)
void gdn_fluid_wrenches(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                        double* W);

// qfrc += sum_b J_b' W_b of the fluid wrenches (into qfrc_passive by the passive stage);
// GDN_ERR_MEMORY when the arena is short. Needs kinematics
gdnStatus gdn_fluid_forces(const gdnModel* m, gdnData* d, double* qfrc);

// dW (6 x nbody) += the wrenches' tangent (the elements of kinds) along the body tangents xi
// (displacement twists) and
// eta (twist tangents) of kinematics/kinematics_derivative.h and the inertia parameters' dparam
// (nbody x GDN_N_INERTIA_PARAMS, gradyn.h's packing), at V; any NULL = 0. dparam needs
// gdn_fluid_param_refusal(m) == NULL
void gdn_fluid_wrench_jvp(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                          const double* xi, const double* eta, const double* dparam,
                          double* dW);

// the adjoint: xibar, etabar (6 x nbody) and gparam (nbody x GDN_N_INERTIA_PARAMS) += the
// transposed map applied to Wbar (any NULL: not wanted)
void gdn_fluid_wrench_vjp(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                          const double* Wbar, double* xibar, double* etabar, double* gparam);

// The implicit step's change of qDeriv through the ellipsoid law (its fluid part is
// sum_b J_b' K_b J_b, K_b = dW_b/dV_b): per ellipsoid element, with Va the body twists of the
// acceleration a, Wa += K Va and dWa += d(K) Va + K etaa along the body tangents (xi, eta) of
// (dq, dv) and etaa, the twists of a moved by dq (gdn_body_tangent_jvp_axes with a as the
// velocity): the law's second derivative, by hyper-dual arithmetic (math/hyperdual.h), exact.
// The box elements are skipped (their law is quadratic within a sign pattern: the
// polarization of gradient/implicit_derivative.c is exact for them)
void gdn_fluid_ellipsoid_qderiv_jvp(const gdnModel* m, const gdnData* d, const double* V,
                                    const double* Va, const double* xi, const double* eta,
                                    const double* etaa, double* Wa, double* dWa);

// its adjoint: xibar, etabar, etaabar (6 x nbody) += the transposed map of dWa applied to Wbar
void gdn_fluid_ellipsoid_qderiv_vjp(const gdnModel* m, const gdnData* d, const double* V,
                                    const double* Va, const double* Wbar, double* xibar,
                                    double* etabar, double* etaabar);

// 1 when body b's medium element is its inertia box (mass >= 1e-15, no ellipsoid geom)
int gdn_fluid_body_box(const gdnModel* m, int b);

#endif
