// SPDX-License-Identifier: Apache-2.0
// Internal: the spatial inertia about the world origin as a function of a body's 10 canonical
// inertia parameters (its tangent map and adjoint), and the bilinear form <u, I w>.
#ifndef GDN_GRADIENT_INERTIA_TANGENT_H
#define GDN_GRADIENT_INERTIA_TANGENT_H

#include <gradyn/gradyn.h>

// Inertia 10-vectors use MuJoCo's cinert layout about the world origin, world axes:
//   [I_xx I_yy I_zz I_xy I_xz I_yz, h (3), mass],  I = Ic_w + mass (|c|^2 1 - c c'),  h = mass c
// with c = xipos_b (world COM) and Ic_w the COM inertia in world axes. The parameters
// p = [m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz] (gdn_inertia_params) hold the COM in the
// body frame and the COM inertia in body axes, so c = xpos + R p[1:4], Ic_w = R Ic R' (R xmat).

// dI (10) = d cinert / dp * dp at the current kinematics of body b
void gdn_inertia_param_jvp(const gdnModel* m, const gdnData* d, int b,
                           const double dp[GDN_N_INERTIA_PARAMS], double dI[10]);

// gp (10) += (d cinert / dp)' Ibar, where Ibar (10) is the gradient with respect to the
// cinert entries taken as independent (as gdn_inertia_bilinear returns it)
void gdn_inertia_param_vjp(const gdnModel* m, const gdnData* d, int b, const double Ibar[10],
                           double gp[GDN_N_INERTIA_PARAMS]);

// B (10) += s * the gradient of <u, I w> (u, w motion vectors) with respect to the cinert
// entries: <u, I w> = B . cinert
void gdn_inertia_bilinear(const double u[6], const double w[6], double s, double B[10]);

#endif
