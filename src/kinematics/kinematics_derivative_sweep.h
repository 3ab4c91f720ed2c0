// SPDX-License-Identifier: Apache-2.0
// Internal: the body-tangent sweeps of kinematics_derivative.h, the dof axes given by the
// caller.
#ifndef GDN_KINEMATICS_KINEMATICS_DERIVATIVE_SWEEP_H
#define GDN_KINEMATICS_KINEMATICS_DERIVATIVE_SWEEP_H

#include <gradyn/gradyn.h>

// S: the world-origin dof axes (gdn_dof_axes_about, jacobian.h) at the current kinematics.
// vel (nv): the generalized velocity u whose body twists V_b(q, u) = sum_path S_j u_j eta is
// the tangent of (d->qvel for the body velocities; the solver's acceleration for the
// constraint Jacobian's motion, constraint/rows_derivative.h).
// Semantics as gdn_body_tangent_jvp (dq, dv may be NULL = 0; xi, eta overwritten; 6 x nbody each)
void gdn_body_tangent_jvp_axes(const gdnModel* m, const gdnData* d, const double* S,
                               const double* vel, const double* dq, const double* dv,
                               double* xi, double* eta);

// the same sweep over the bodies b0 .. b1 - 1 only (parents before children, as the bodies are
// ordered); the caller provides the xi, eta of the parents outside that range (e.g. zeros when
// a direction moves only the subtree b0 .. b1 - 1 of body b0)
void gdn_body_tangent_jvp_range(const gdnModel* m, const gdnData* d, const double* S,
                                const double* vel, const double* dq, const double* dv, int b0,
                                int b1, double* xi, double* eta);

// as gdn_body_tangent_vjp (gq, gv accumulated; either may be NULL), vel as above. Scratch:
// 12 nbody + 6 nv doubles from the arena; returns GDN_ERR_MEMORY (nothing accumulated) when
// exhausted
gdnStatus gdn_body_tangent_vjp_axes(const gdnModel* m, gdnData* d, const double* S,
                                    const double* vel, const double* xibar,
                                    const double* etabar, double* gq, double* gv);

#endif
