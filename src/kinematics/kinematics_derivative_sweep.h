// SPDX-License-Identifier: Apache-2.0
// Internal: the body-tangent sweeps of kinematics_derivative.h, the dof axes given by the
// caller.
#ifndef GDN_KINEMATICS_KINEMATICS_DERIVATIVE_SWEEP_H
#define GDN_KINEMATICS_KINEMATICS_DERIVATIVE_SWEEP_H

#include <gradyn/gradyn.h>

// S: the world-origin dof axes (gdn_dof_axes_about, jacobian.h) at the current kinematics.
// Semantics as gdn_body_tangent_jvp (dq, dv may be NULL = 0; xi, eta overwritten; 6 x nbody each)
void gdn_body_tangent_jvp_axes(const gdnModel* m, const gdnData* d, const double* S,
                               const double* dq, const double* dv, double* xi, double* eta);

// as gdn_body_tangent_vjp (gq, gv accumulated; either may be NULL). Scratch: 12 nbody + 6 nv
// doubles from the arena; returns GDN_ERR_MEMORY (nothing accumulated) when exhausted
gdnStatus gdn_body_tangent_vjp_axes(const gdnModel* m, gdnData* d, const double* S,
                                    const double* xibar, const double* etabar, double* gq,
                                    double* gv);

#endif
