// SPDX-License-Identifier: Apache-2.0
// Internal: the smooth residual r(q, v, a; u, pi, W) of the step and its exact derivatives.
#ifndef GDN_GRADIENT_RESIDUAL_H
#define GDN_GRADIENT_RESIDUAL_H

#include <gradyn/gradyn.h>

// The residual (nv):
//   r = M(q, pi) a + C(q, v, pi) - qfrc_passive(q, v) - qfrc_actuator(q, v, u) - qfrc_applied
//       - sum_b J_b' xfrc_applied_b - sum_b J_b' W_b
// M with armature, C with gravity, every disable flag of the primal (gravity, passive,
// actuation, clampctrl), ctrl and force clamping with the primal's branches. xfrc_applied acts
// at the moving COM xipos. W (6 x nbody) are extra wrenches from a contact model in the frames
// of kinematics_derivative.h ([torque about the world origin; force], world axes), NULL =
// none. The step solves r + h D a = 0.
//
// Evaluation point: the state in d (qpos, qvel, ctrl, qfrc_applied, xfrc_applied) with its
// kinematics computed (gdn_kinematics, e.g. by gdn_pipeline_front), and the acceleration a
// (nv; may be d->qacc). Tangents: dq in the tangent space of gdn_integrate_pos, dv, da, du
// additive, dparam (nbody x GDN_N_INERTIA_PARAMS, the canonical packing, world row ignored),
// dW (6 x nbody). Every function returns GDN_ERR_MEMORY when the arena is exhausted, else
// GDN_OK; none allocates. All scratch is from the arena and released on return.
//
// The simple forms (gdn_residual_jvp, _vjp, _dense) take W from the primal: when
// m->penalty.enabled and m->nvert > 0, W_b = sum over the body's vertices of [x x f; f] from
// d->vert_xpos and d->vert_force (as the last gdn_pipeline_front at this state left them),
// else none; they also complete the body-tangent chain internally. The _ex forms take W
// explicitly and expose the body tangents for a contact model that shares them.

// r itself, computed as the primal does: gdn_rne(flg_acc = 1) with qacc = a, minus
// gdn_passive, gdn_actuation and gdn_applied_forces, minus sum_b J_b' W_b. Overwrites
// d->qfrc_passive and the actuator outputs (same values as the step's); d->qacc is restored
void gdn_residual_eval(const gdnModel* m, gdnData* d, const double* a, const double* W,
                       double* r);

// dr = dr/dq dq + dr/dv dv + dr/du du + dr/dpi dparam + dr/dacc0 dacc0 + dr/dW dW  (da = 0;
// any input NULL = 0; dacc0: gdnResidualDirection's)
gdnStatus gdn_residual_jvp(const gdnModel* m, gdnData* d, const double* a, const double* dq,
                           const double* dv, const double* du, const double* dparam,
                           const double* dacc0, const double* dW, double* dr);

// With y (nv):  gq += (dr/dq)' y,  gv += (dr/dv)' y  (the body-tangent part included),
// gu  = (dr/du)' y  (overwritten, like the step's gctrl),  gparam += (dr/dpi)' y,
// Wbar = (dr/dW)' y = -J_b y per body (overwritten; the contact model's input).
// Any output NULL = not wanted (gq and gv are computed together when either is wanted)
gdnStatus gdn_residual_vjp(const gdnModel* m, gdnData* d, const double* a, const double* y,
                           double* gq, double* gv, double* gu, double* gparam, double* Wbar);

// X = [dr/dq | dr/dv | dr/du] (nv x (2 nv + nu), row stride ldx >= 2 nv + nu), overwritten.
// Cost O(nv depth): the tangent e_j only moves the subtree of dof j's body
gdnStatus gdn_residual_dense(const gdnModel* m, gdnData* d, const double* a, double* X, int ldx);

// gdn_residual_dense that also writes, from the same sweep, the entries M(i, k) of the mass
// matrix (armature included; M nv x nv row-major) for k = i and every ancestor dof k of i (the
// tree sparsity of the L'DL factor); the other entries of M are left as they are (M NULL:
// gdn_residual_dense)
gdnStatus gdn_residual_dense_mass(const gdnModel* m, gdnData* d, const double* a, double* X,
                                  int ldx, double* M);

// ---------------------------------------------------------------- extended forms

// a direction in the residual's inputs; any member NULL = 0. xi, eta (6 x nbody): the body
// tangents of (dq, dv) from gdn_body_tangent_jvp when the caller has them (NULL: computed)
typedef struct gdnResidualDirection {
    const double* dq;
    const double* dv;
    const double* da;
    const double* du;
    const double* dparam;
    const double* dW;
    const double* xi;
    const double* eta;
    const double* dacc0; // (nu, NULL: 0) actuator_acc0's tangent under dparam (the muscles
                         // scaled by it: constraint/setconst_derivative.h)
} gdnResidualDirection;

// dr (nv, overwritten) along dir at (state, a, W)
gdnStatus gdn_residual_jvp_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                              const gdnResidualDirection* dir, double* dr);

// gdn_residual_jvp_ex that also returns the sweep's per-body tangents (6 nbody each, NULL: not
// wanted; world row 0): dA_out the tangent of the body accelerations A_b (residual_tangent.h:
// about the origin, gravity in A_0, with dir->da the acceleration's own tangent) and dF_out
// that of the subtree forces F_b = sum over the subtree of I A + V x* (I V) - Wx (with W and
// dir->dW the extra wrenches and their tangent): MuJoCo's cacc and cfrc_int about the origin
// when a is qacc and W the external wrenches of mj_rnePostConstraint
gdnStatus gdn_residual_jvp_bodies(const gdnModel* m, gdnData* d, const double* a,
                                  const double* W, const gdnResidualDirection* dir, double* dr,
                                  double* dA_out, double* dF_out);

// the adjoint outputs; any member NULL = not wanted
typedef struct gdnResidualAdjoint {
    double* gq;      // nv, +=  (dr/dq)' y: the direct part, plus the body-tangent part when
                     //         xibar and etabar are NULL
    double* gv;      // nv, +=  likewise for v
    double* ga;      // nv, =   (dr/da)' y = M y (armature included)
    double* gu;      // nu, =   (dr/du)' y
    double* gparam;  // nbody x 10, +=  (dr/dpi)' y (world row untouched)
    double* Wbar;    // 6 x nbody, =  (dr/dW)' y = -sum_{j on the path of b} S_j y_j
    double* xibar;   // 6 x nbody, =  cotangents of the body tangents xi, eta: when given, the
    double* etabar;  //              caller finishes with gdn_body_tangent_vjp(xibar + its own,
                     //              etabar + its own, gq, gv); both or neither
    // Or (xibar, etabar NULL) a contact model's adjoint, fused into the residual's own sweep:
    // called once with Wbar (needs Wbar non-NULL) before the backward sweep, it ACCUMULATES its
    // cotangents of xi and eta (6 x nbody each, zero on entry) for gq, gv to include.
    gdnStatus (*wrench_vjp)(void* ctx, const double* Wbar, double* xibar, double* etabar);
    void* wrench_ctx;
    // Inputs a caller may already have (S NULL: computed here): the world-origin dof axes S
    // (gdn_dof_axes_about(m, d, 0, S)) and, from gdn_com_vel on them, Sdot, Vpre (6 x nv each)
    // and the body velocities V (6 x nbody), at the evaluation point; all four or none
    const double* S;
    const double* Sdot;
    const double* Vpre;
    const double* V;
    double* gacc0; // (nu, +=; NULL: not wanted) the cotangent of actuator_acc0 (the muscles
                   // scaled by it), for the caller to take to gparam at qpos0
} gdnResidualAdjoint;

gdnStatus gdn_residual_vjp_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                              const double* y, const gdnResidualAdjoint* out);

// gdn_residual_vjp_ex whose cotangent also has the per-body parts of gdn_residual_jvp_bodies:
// Abar, Fbar (6 nbody each, NULL: 0) the covectors of A_b and F_b, added to y's (y may be all
// zeros: then ga = (d A / d a)' Abar + ..., Wbar the wrenches' cotangent, and so on)
gdnStatus gdn_residual_vjp_seeded(const gdnModel* m, gdnData* d, const double* a,
                                  const double* W, const double* y, const double* Abar,
                                  const double* Fbar, const gdnResidualAdjoint* out);

// gdn_residual_vjp_ex with W from the primal (as the simple forms)
gdnStatus gdn_residual_vjp_primal(const gdnModel* m, gdnData* d, const double* a,
                                  const double* y, const gdnResidualAdjoint* out);

// as gdn_residual_dense with W explicit (its dr/dq, dr/dv include -sum dS' W, not dW)
gdnStatus gdn_residual_dense_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                                double* X, int ldx);

// X(i, j) = d(M(q) w)_i / dq_j (i, j < nv; row stride ldx): the position columns' change of
// gdn_residual_dense when the acceleration changes by w (its a-linear part), in one sweep
gdnStatus gdn_residual_dense_inertia(const gdnModel* m, gdnData* d, const double* w, double* X,
                                     int ldx);

#endif
