// SPDX-License-Identifier: Apache-2.0
// Internal: a body's spatial inertia as a function of its 10 canonical inertia parameters (the
// tangent map and its adjoint, about the body's current COM), and the bilinear form <u, I w>.
#ifndef GDN_MODEL_INERTIA_PARAMS_DERIVATIVE_H
#define GDN_MODEL_INERTIA_PARAMS_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Inertia 10-vectors use MuJoCo's cinert layout, world axes, about a reference point o:
//   [I_xx I_yy I_zz I_xy I_xz I_yz, h (3), mass],  I = Ic_w + mass (|c - o|^2 1 - ...),
//   h = mass (c - o), with c the world COM and Ic_w the COM inertia in world axes.
// The maps below take o = the body's current COM xipos_b (no cancellation between the COM
// inertia and the parallel-axis terms); callers move motion vectors to that point
// ([w; v + w x c]) and forces back ([n + c x f; f]). The parameters
// p = [m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz] (gdn_inertia_params) hold the COM in the
// body frame and the COM inertia in body axes, so c = xpos + R p[1:4], Ic_w = R Ic R' (R xmat).

// dI (10, about xipos_b) = d cinert / dp * dp:  [R dIc R', mass R dc, dm] (the parallel-axis
// term is quadratic in c - o, so its derivative at o = c vanishes)
void gdn_inertia_param_jvp(const gdnModel* m, const gdnData* d, int b,
                           const double dp[GDN_N_INERTIA_PARAMS], double dI[10]);

// gp (10) += (d cinert / dp)' Ibar, with Ibar (10, about xipos_b) the gradient with respect
// to the cinert entries taken as independent (as gdn_inertia_bilinear returns it)
void gdn_inertia_param_vjp(const gdnModel* m, const gdnData* d, int b, const double Ibar[10],
                           double gp[GDN_N_INERTIA_PARAMS]);

// B (10) += s * the gradient of <u, I w> (u, w motion vectors about the same point as I) with
// respect to the cinert entries: <u, I w> = B . cinert
void gdn_inertia_bilinear(const double u[6], const double w[6], double s, double B[10]);

#endif
