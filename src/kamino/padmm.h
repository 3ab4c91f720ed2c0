// SPDX-License-Identifier: Apache-2.0
// Internal: the Coulomb cone and dual-cone projections of the PADMM backend (the solver's
// interface is in kamino/dual.h).
#ifndef GDN_KAMINO_PADMM_H
#define GDN_KAMINO_PADMM_H

#include "kamino/dual.h"

// out = the Euclidean projection of x = [t0, t1, n] onto K_mu = {||t|| <= mu n} (mu >= 0; the
// polar test first, so mu = 0 projects onto the ray t = 0, n >= 0). out may alias x.
void gdn_kamino_cone_project(double mu, const double* x, double* out);

// out = the projection of x onto the dual cone K_mu* = {mu ||t|| <= n} (mu = 0: the half-space
// n >= 0). out may alias x.
void gdn_kamino_dual_cone_project(double mu, const double* x, double* out);

#endif
