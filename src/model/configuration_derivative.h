// SPDX-License-Identifier: Apache-2.0
// Internal: derivatives of q' = q (+) h v' (gdn_integrate_pos) in the tangent space.
#ifndef GDN_MODEL_CONFIGURATION_DERIVATIVE_H
#define GDN_MODEL_CONFIGURATION_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Tangent of q' = q (+) h v' with q perturbed as q (+) dq and v' as v' + dv':
//   dq' = Phi_q dq + h Phi_v dv',  per joint:
//   hinge, slide, free translation (world frame):  Phi_q = Phi_v = I
//   ball, free rotation, phi = h w' (local):       Phi_q = R(phi)',  Phi_v = J_r(phi)
// with R(phi) the rotation of exp(phi) and J_r the right Jacobian of SO(3):
//   exp(phi + delta) = exp(phi) exp(J_r(phi) delta + O(delta^2)).

// Rodrigues' R(phi) and J_r(phi) (3x3 row-major), exact small-angle series below |phi| = 0.1
void gdn_so3_exp_and_jacobian(const double phi[3], double R[9], double Jr[9]);

// dqpos_next = Phi_q dqpos + h Phi_v dqvel_next (either input may be NULL = 0)
void gdn_integrate_pos_jvp(const gdnModel* m, const double* qvel_next, double h,
                           const double* dqpos, const double* dqvel_next, double* dqpos_next);

// the transpose: gqpos = Phi_q' gqpos_next, gqvel_next = h Phi_v' gqpos_next (either output
// may be NULL = not wanted)
void gdn_integrate_pos_vjp(const gdnModel* m, const double* qvel_next, double h,
                           const double* gqpos_next, double* gqpos, double* gqvel_next);

// many columns at once: Y = h Phi_v X, plus Phi_q added into columns q_col .. q_col + nv - 1
// when q_col >= 0. X and Y are nv rows of ncol entries with row strides ldx and ldy.
void gdn_integrate_pos_jvp_columns(const gdnModel* m, const double* qvel_next, double h,
                                   int ncol, const double* X, int ldx, int q_col, double* Y,
                                   int ldy);

#endif
