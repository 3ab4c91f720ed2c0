// SPDX-License-Identifier: Apache-2.0
// Internal: exact derivatives of the joint-space passive and actuator forces.
#ifndef GDN_DYNAMICS_FORCE_DERIVATIVE_H
#define GDN_DYNAMICS_FORCE_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Both forces are local to a joint, but for tendons: qfrc_passive and qfrc_actuator of a
// joint's dofs depend only on that joint's qpos, qvel and the controls of the actuators on it,
// plus, through a fixed tendon (constant J), on every joint of the tendon's path (J' f(J q,
// J v)). Position tangents dq
// follow gdn_integrate_pos (ball and free rotation in the local frame). Every disable flag and
// clamping branch is the primal's (gdn_passive, gdn_actuation): a clamped control or a clamped
// force has zero derivative. Inputs NULL mean zero; outputs are ACCUMULATED (+=).

// right Jacobian inverse of SO(3) at rotation vector theta: log(exp(theta) exp(delta)) =
// theta + Jinv delta + O(delta^2); Jinv row-major 3x3
void gdn_so3_right_jacobian_inv(const double theta[3], double Jinv[9]);

// A spatial tendon's J moves with q (kinematics/tendon_derivative.h: DJ), so its forces J' f add
// f DJ dq, and its velocity J v adds (DJ dq) . v; these need arena scratch (S, DJ: nv x nv per
// tendon at a time): every function returns GDN_ERR_MEMORY when the arena is short (nothing
// is then guaranteed about the outputs), else GDN_OK.

// dfrc += d qfrc_passive (dq, dv)
gdnStatus gdn_passive_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                          double* dfrc);

// gq += (d qfrc_passive / dq)' y,  gv += (d qfrc_passive / dv)' y
gdnStatus gdn_passive_vjp(const gdnModel* m, gdnData* d, const double* y, double* gq,
                          double* gv);

// Dq += scale * d qfrc_passive / dq,  Dv += scale * d qfrc_passive / dv (nv x nv, row stride
// ld; either may be NULL)
gdnStatus gdn_passive_dense(const gdnModel* m, gdnData* d, double scale, double* Dq,
                            double* Dv, int ld);

// dfrc += d qfrc_actuator (dq, dv, du, dacc0), at d->ctrl; du the force laws' inputs
// (gradient/activation_derivative.h), dacc0 (nu, NULL: 0) a direction in actuator_acc0 (the
// muscles scaled by it)
gdnStatus gdn_actuation_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                            const double* du, const double* dacc0, double* dfrc);

// gq, gv, gu, gacc0 (NULL: not wanted) += the transposed partials applied to y
gdnStatus gdn_actuation_vjp(const gdnModel* m, gdnData* d, const double* y, double* gq,
                            double* gv, double* gu, double* gacc0);

// Dq, Dv (nv x nv), Du (nv x nu), row stride ld, += scale * the partials (any may be NULL)
gdnStatus gdn_actuation_dense(const gdnModel* m, gdnData* d, double scale, double* Dq,
                              double* Dv, double* Du, int ld);

// the linearization of actuator i's scalar force (d->actuator_force[i]) alone:
//   d force = cq . dq[dof ..] + cv . dv[dof ..] + cu du_i  over the returned n dofs
// (a clamped control or force has zero coefficients; disabled actuation returns 0, all zero)
int gdn_actuator_force_row(const gdnModel* m, const gdnData* d, int i, int* dof, double cq[6],
                           double cv[6], double* cu);

// the same for any transmission as full rows: d force = cq . dq + cv . dv + cu du_i (cq, cv
// nv each; w from gdn_transmission_work_alloc for a moving transmission); -1 for a tendon
// without a linearization (an inside wrap without a root) or a body transmission's contact
// without a geometry tangent, else 0
struct gdnTransmissionWork;
int gdn_actuator_force_full(const gdnModel* m, gdnData* d, int i,
                            struct gdnTransmissionWork* w, double* cq, double* cv, double* cu);

#endif
