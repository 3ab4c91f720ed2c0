// SPDX-License-Identifier: Apache-2.0
// Internal: the compiler's ellipsoid fluid coefficients of a geom (fluid_coef.c).
#ifndef GDN_MJCF_FLUID_COEF_H
#define GDN_MJCF_FLUID_COEF_H

#include <gradyn/gradyn.h>

// the equivalent ellipsoid's semi-axes of a geom (MuJoCo's mju_geomSemiAxes): sphere (r, r, r),
// capsule (r, r, h + r), cylinder (r, r, h), every other type its size
void gdn_fluid_semiaxes(int type, const double size[3], double semiaxes[3]);

// geom_fluid of a geom with fluidshape="ellipsoid": 1, the five coefficients coef (blunt,
// slender, angular drag, Kutta, Magnus lift), the virtual mass and virtual inertia
void gdn_fluid_coefficients(int type, const double size[3], const double coef[5],
                            double fluid[GDN_NFLUID]);

#endif
