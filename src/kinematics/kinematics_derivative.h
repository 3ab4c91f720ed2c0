// SPDX-License-Identifier: Apache-2.0
// Internal contract between the derivative stages: body motion tangents and external wrenches.
#ifndef GDN_KINEMATICS_KINEMATICS_DERIVATIVE_H
#define GDN_KINEMATICS_KINEMATICS_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Frames: every 6-vector below is in WORLD axes about the WORLD ORIGIN, [angular; linear].
//
// xi_b  (6 x nbody): displacement twist of body b under the tangent dq: every point x rigidly
//       attached to b moves by  dx = xi_b[0:3] x x + xi_b[3:6].
// V_b   : spatial velocity of body b, [w; v_O]: an attached point moves with xdot = w x x + v_O.
// eta_b (6 x nbody): tangent of V_b under (dq, dv).
// W_b   (6 x nbody): external wrench on body b, [torque about the origin; force]; its
//       generalized force is qfrc_j = S_j' W_b for every dof j on the path from b to the root
//       (S_j the dof's motion axis in the same frame). A point force f at x gives
//       W = [x x f; f].
// Cotangents (xibar, etabar, Wbar) are the adjoints of these linear maps.

// xi, eta from (dq, dv) (either may be NULL = 0); needs kinematics at the current state
void gdn_body_tangent_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                          double* xi, double* eta);

// gq += (d xi/d q)' xibar + (d eta/d q)' etabar,  gv += (d eta/d v)' etabar
// (xibar or etabar may be NULL = 0)
void gdn_body_tangent_vjp(const gdnModel* m, gdnData* d, const double* xibar,
                          const double* etabar, double* gq, double* gv);

#endif
