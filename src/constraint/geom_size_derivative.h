// SPDX-License-Identifier: Apache-2.0
// Internal: how a geom's size moves its body's inertia parameters (inertia from geoms).
#ifndef GDN_CONSTRAINT_GEOM_SIZE_DERIVATIVE_H
#define GDN_CONSTRAINT_GEOM_SIZE_DERIVATIVE_H

#include <gradyn/gradyn.h>

// A geom with geom_inertial[g] on a moving body gives the body mass m_g = density V(size) (or
// its given mass, density < 0) and principal inertia I_g(size, m_g) (src/mjcf/inertia.c's
// formulas per primitive), combined into the body's canonical parameters (gdn_inertia_params:
// mass, COM, inertia about the COM in body axes) as
//   M = sum m_k,  c = sum m_k x_k / M,  I = sum R_k diag(I_k) R_k' + m_k (|d_k|^2 1 - d_k d_k'),
// d_k = x_k - c (x_k, R_k: geom_pos, geom_quat). Under a size change of geom g (the others
// fixed; sum m_k d_k = 0 removes the COM's motion from the parallel-axis terms):
//   dM = dm_g,  dc = dm_g d_g / M,  dI = R_g diag(dI_g) R_g' + dm_g (|d_g|^2 1 - d_g d_g').
// gsize (ngeom x 3) += (d p / d size)' gparam for every such geom of a primitive type, gparam
// (nbody x 10) the full dJ/dpi (the inverse weights' share included: the size setter refreshes
// them as the inertia setter does).
void gdn_geom_size_inertia_vjp(const gdnModel* m, const double* gparam, double* gsize);

// the tangent: dparam (nbody x 10) += (d p / d size) dsize (ngeom x 3)
void gdn_geom_size_inertia_jvp(const gdnModel* m, const double* dsize, double* dparam);

// 1 when some geom's size moves a body's inertia (geom_inertial on a moving body)
int gdn_geom_size_moves_inertia(const gdnModel* m);

#endif
