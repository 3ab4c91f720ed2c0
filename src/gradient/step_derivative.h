// SPDX-License-Identifier: Apache-2.0
// Internal: the step VJP at a state whose integrated acceleration is known (the adjoint's tape).
#ifndef GDN_GRADIENT_STEP_DERIVATIVE_H
#define GDN_GRADIENT_STEP_DERIVATIVE_H

#include <string.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "dynamics/aba.h"
#include "gradient/step_constrained.h"

// gdn_step_vjp (derivative.h: same outputs, same NULL and accumulation conventions) at the state
// in d, given qacc (nv): the acceleration gdn_step integrates from this state (d->qacc after
// it). The front half then needs only the kinematics and ABA's factorization, no forces, bias
// terms or solve for the acceleration. With the step's own qacc the results are bit for bit
// gdn_step_vjp's except for the signs of zeros in the contact wrenches. The state is not
// checked for finiteness (the forward pass did). gweights (gdn_weights_size, +=): with gparam,
// the cotangent of the muscles' actuator_acc0 accumulates in its acc0 part for the caller to
// take to gparam (the trajectory adjoint sums it over the steps); NULL drops that share.
// GDN_ERR_ARG (NULL input, d created for another vertex count), GDN_ERR_MEMORY (arena)
gdnStatus gdn_step_vjp_at(const gdnModel* m, gdnData* d, const double* qacc,
                          const double* gqpos_next, const double* gqvel_next, double* gqpos,
                          double* gqvel, double* gctrl, double* gparam, double* gvert,
                          double* gweights);

// gdn_step_vjp_at when d already holds what its front half computes at the state: qpos
// (normalized), qvel, ctrl, the body kinematics, d->cdof and d->cinert, and f is ABA's
// factorization of M + hD there (e.g. restored from the adjoint's stored intermediates, or
// left by gdn_step_keep). The same results, bit for bit, without the kinematics or the
// factorization. vert_stored (penalty contact): d->vert_xpos, vert_force and nvert_active are
// the step's too, the wrenches are summed from them (gdn_penalty_wrenches_again) instead of
// recomputing the vertices. GDN_ERR_ARG (NULL input, d created for another vertex count),
// GDN_ERR_MEMORY
gdnStatus gdn_step_vjp_stored(const gdnModel* m, gdnData* d, const gdnAbaFactor* f,
                              const double* qacc, int vert_stored, const double* gqpos_next,
                              const double* gqvel_next, double* gqpos, double* gqvel,
                              double* gctrl, double* gparam, double* gvert, double* gweights);

// the integration's adjoint, shared by every step VJP: qvel_next = v + h a, gq = Phi_q' gq',
// gv = w = gv' + h Phi_v' gq', abar = h w (gq_next, gv_next may be NULL = 0)
void gdn_step_integration_vjp(const gdnModel* m, const gdnData* d, const double* a,
                              const double* gq_next, const double* gv_next, double* qvel_next,
                              double* gq, double* gv, double* abar);

// a step VJP's results out of its scratch: gqpos = gq, gqvel = gv (nv each; NULL: not wanted)
static inline void gdn_step_grad_out(int nv, const double* gq, const double* gv, double* gqpos,
                                     double* gqvel) {
    if (gqpos) {
        memcpy(gqpos, gq, sizeof(double) * (size_t)nv);
    }
    if (gqvel) {
        memcpy(gqvel, gv, sizeof(double) * (size_t)nv);
    }
}

// gdn_step_vjp that also names, in *what, the row kind or contact pair a constrained step's
// refusal (GDN_ERR_UNSUPPORTED) is about (NULL otherwise). gweights NULL: as gdn_step_vjp;
// else (2 nbody + nv) the inverse weights' cotangents of a constrained step are ACCUMULATED
// there and gparam lacks their part until the caller applies gdn_constraint_weights_vjp.
// cp (NULL: none): the contact parameters' cotangents, accumulated (gdn_step_vjp_contact_params)
// With activations (gdn_step_vjp_act's gact_next, gact; NULL: zero, not wanted).
gdnStatus gdn_step_vjp_explained(const gdnModel* m, gdnData* d, const double* gqpos_next,
                                 const double* gqvel_next, const double* gact_next,
                                 double* gqpos, double* gqvel, double* gact, double* gctrl,
                                 double* gparam, double* gvert, double* gweights,
                                 const gdnContactParamGradients* cp, const char** what);


// dW (6 x nbody) from (dq, dv, dvert, dparam) through the body tangents and the body wrenches'
// JVP (the penalty contact, the fluid), at the state of the last primal front half; any input
// NULL = 0. GDN_ERR_MEMORY when the arena is exhausted
gdnStatus gdn_contact_wrench_jvp(const gdnModel* m, gdnData* d, const double* dq,
                                 const double* dv, const double* dvert, const double* dparam,
                                 double* dW);

// The acceleration alone (RK4's stage derivatives): the front half (GDN_PIPE_DERIVATIVE) at the
// state in d, then da (nv, overwritten) = the tangent of d->qacc along (dq, dv, du, dparam,
// dvert; dweights the inverse weights' tangent as gdn_step_jvp_constrained, dcp a contact
// parameter direction; any NULL = 0). GDN_ERR_UNSUPPORTED / GDN_ERR_UNCONVERGED /
// GDN_ERR_SINGULAR with *what as the constrained step's
gdnStatus gdn_accel_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                        const double* du, const double* dparam, const double* dweights,
                        const double* dvert, const gdnContactParamGradients* dcp, double* da,
                        const char** what);

// its adjoint: the front half, then gq, gv (nv, required), gctrl (nu), gparam, gvert, gweights
// (2 nbody + nv: the constrained rows' inverse-weight cotangents, finished by the caller) and
// cp ACCUMULATE the transposed partials applied to abar (nv)
gdnStatus gdn_accel_vjp(const gdnModel* m, gdnData* d, const double* abar, double* gq,
                        double* gv, double* gctrl, double* gparam, double* gvert,
                        double* gweights, const gdnContactParamGradients* cp,
                        const char** what);

// The acceleration gdn_forward left in d (mj_forward's qacc: never the damped or implicit step
// acceleration) and its constraint forces, differentiated where that gdn_forward left the
// kinematics, rows and solve (no front half is run). L (d->nefc > 0): the solve's
// gdn_constrained_linearize_forward (the caller checked gdn_constrained_admissible); unused
// without rows (then ABA's factor of M). du: the force laws' input tangent
// (activation_derivative.h). da (nv) and dforce (nefc, NULL: not wanted) overwritten
gdnStatus gdn_forward_accel_jvp(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                                const double* dq, const double* dv, const double* du,
                                double* da, double* dforce, const char** what);

// its transpose applied to abar (nv) and fbar (nefc, NULL: 0): gq, gv (nv, required) and gu
// (nu, the force laws' input cotangent; NULL: not wanted) ACCUMULATE
gdnStatus gdn_forward_accel_vjp(const gdnModel* m, gdnData* d, const gdnConstrainedLinear* L,
                                const double* abar, const double* fbar, double* gq, double* gv,
                                double* gu, const char** what);

// the acceleration's dense Jacobian Xa = [da/dq | da/dv | da/du] (nv rows of 2 nv + nu,
// row-major) at the front half (GDN_PIPE_DERIVATIVE) the caller ran in d (gradient/transition.c);
// a solve without a derivative: GDN_ERR_UNCONVERGED, GDN_ERR_UNSUPPORTED
gdnStatus gdn_accel_columns(const gdnModel* m, gdnData* d, double* Xa);

#endif
