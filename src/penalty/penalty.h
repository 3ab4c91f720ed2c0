// SPDX-License-Identifier: Apache-2.0
// Per-vertex penalty ground contact: vertex forces, body wrenches and their generalized force.
#ifndef GDN_PENALTY_PENALTY_H
#define GDN_PENALTY_PENALTY_H

#include <gradyn/gradyn.h>

// The contact law (docs/contact_penalty.md), for every vertex i of body b with body-frame
// position p_i:  x = xpos_b + xmat_b p_i,  depth = height - x_z,
//   xdot = w_b x x + v_b (V_b = [w_b; v_b] from gdn_body_velocities),
//   f_z = k depth - c xdot_z;  active when depth > 0 and f_z > 0, else f = 0;
//   W_b += [x x f; f] with f = (0, 0, f_z).
// Fills d->vert_xpos, d->vert_force (every vertex), d->nvert_active and W (6 x nbody,
// overwritten). V (6 x nbody): the body velocities at the current state. Needs kinematics.
void gdn_penalty_wrenches(const gdnModel* m, gdnData* d, const double* V, double* W);

// W (6 x nbody, overwritten) as gdn_penalty_wrenches computed it, bit for bit, from the vertex
// outputs it left in d (vert_xpos, vert_force: e.g. restored from the adjoint's tape), without
// the vertex positions or velocities: the same sums over the active vertices in the same order
void gdn_penalty_wrenches_again(const gdnModel* m, const gdnData* d, double* W);

// 1 when the penalty contact takes part in the step: enabled and the model has vertices
static inline int gdn_penalty_active(const gdnModel* m) {
    return m->penalty.enabled && m->nvert > 0;
}

// W (6 x nbody, from the arena) rebuilt from the last primal pass's vertex outputs
// (vert_xpos, vert_force): per body the sum of [x x f; f] over its vertices. NULL when the
// contact is not active, d was created for another vertex count, or the arena is exhausted
const double* gdn_penalty_wrenches_from_outputs(const gdnModel* m, gdnData* d);

// when m->penalty.enabled: d->qfrc_penalty = sum_b J_b' W_b and qfrc += d->qfrc_penalty (the
// step's tau); otherwise nothing. GDN_ERR_ARG when d was created for another vertex count,
// GDN_ERR_MEMORY when the arena is exhausted. Needs kinematics
gdnStatus gdn_penalty_forces(const gdnModel* m, gdnData* d, double* qfrc);

// Derivatives of W (penalty_derivative.c), at the state of the last gdn_penalty_wrenches (its
// vert_xpos and vert_force decide the active set), frames of kinematics/kinematics_derivative.h.
// JVP: dW (6 x nbody, overwritten) from the body displacement twists xi, velocity tangents eta
// (6 x nbody each) and vertex tangents dvert (nvert x 3, body frame); any input NULL = 0:
//   dx = xi_ang x x + xi_lin + R_b dp,  d(xdot) = eta_ang x x + eta_lin + w x dx,
//   df_z = -k dx_z - c d(xdot)_z,  dW_b += [dx x f + x x df; df]  (active vertices only).
// GDN_ERR_MEMORY when the arena is exhausted. Needs kinematics
gdnStatus gdn_penalty_wrench_jvp(const gdnModel* m, gdnData* d, const double* xi,
                                 const double* eta, const double* dvert, double* dW);

// VJP: the adjoint of the JVP map; xibar, etabar (6 x nbody) and gvert (nvert x 3, body frame)
// are ACCUMULATED (+=), any of them NULL = not wanted
gdnStatus gdn_penalty_wrench_vjp(const gdnModel* m, gdnData* d, const double* Wbar,
                                 double* xibar, double* etabar, double* gvert);

#endif
