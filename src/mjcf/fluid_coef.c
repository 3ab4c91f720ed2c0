// SPDX-License-Identifier: Apache-2.0
// The compiler's ellipsoid fluid coefficients of a geom (MuJoCo 2.2.2's mjCGeom::SetFluidCoefs).
#include "mjcf/fluid_coef.h"

#include <math.h>
#include <string.h>

#include "math/vec.h"

#define GDN_PI 3.14159265358979323846

// kappa_x = dx dy dz int_0^inf dl / ((dx^2 + l)^(3/2) (dy^2 + l)^(1/2) (dz^2 + l)^(1/2)), by
// the 15-point Gauss-Kronrod rule on x in [0, 1] with l = s x^3 / (1 - x)^2, s = (dx^3 dy
// dz)^(2/5) (MuJoCo's tables: the rule's weights, l(x_i) and dl/dx(x_i) at its nodes)
static double added_mass_kappa(double dx, double dy, double dz) {
    static const double w[15] = {0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236,
                                 0.09517529, 0.10221647, 0.10474107, 0.10221647, 0.09517529,
                                 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766};
    static const double l[15] = {
        7.865151709349917e-08, 1.7347976913907274e-05, 0.0003548008144506193,
        0.002846636252924549,  0.014094260903596077,   0.053063261727396636,
        0.17041978741317773,   0.5,                    1.4036301548686991,
        3.9353484827022642,    11.644841677041734,     39.53187807410903,
        177.5711362220801,     1429.4772912937397,     54087.416549217705};
    static const double dl[15] = {
        5.538677720489877e-05, 0.002080868285293228, 0.016514126520723166,
        0.07261900344370877,   0.23985243401862602,  0.6868318249020725,
        1.8551129519182894,    5.0,                  14.060031152313941,
        43.28941239611009,     156.58546376397112,   747.9826085305024,
        5827.4042950027115,    116754.0197944512,    25482945.327264845};
    const double ix = 1.0 / (dx * dx), iy = 1.0 / (dy * dy), iz = 1.0 / (dz * dz);
    const double scale = pow(dx * dx * dx * dy * dz, 0.4);
    double kappa = 0.0;
    for (int i = 0; i < 15; i++) {
        const double lambda = scale * l[i];
        const double denom =
            (1 + lambda * ix) * sqrt((1 + lambda * ix) * (1 + lambda * iy) * (1 + lambda * iz));
        kappa += scale * dl[i] / denom * w[i];
    }
    return kappa * ix;
}

void gdn_fluid_semiaxes(int type, const double size[3], double semiaxes[3]) {
    if (type == GDN_GEOM_SPHERE) {
        semiaxes[0] = semiaxes[1] = semiaxes[2] = size[0];
    } else if (type == GDN_GEOM_CAPSULE) {
        semiaxes[0] = semiaxes[1] = size[0];
        semiaxes[2] = size[1] + size[0];
    } else if (type == GDN_GEOM_CYLINDER) {
        semiaxes[0] = semiaxes[1] = size[0];
        semiaxes[2] = size[1];
    } else {
        memcpy(semiaxes, size, 3 * sizeof(double));
    }
}

// virtual mass_k = V kappa_k / (2 - kappa_k), virtual inertia_x = V (dy^2 - dz^2)^2 |kz - ky| /
// |2 (dy^2 - dz^2) + (dy^2 + dz^2)(ky - kz)| / 5 (and cyclically), V the ellipsoid's volume
void gdn_fluid_coefficients(int type, const double size[3], const double coef[5],
                            double fluid[GDN_NFLUID]) {
    double s[3];
    gdn_fluid_semiaxes(type, size, s);
    const double dx = s[0], dy = s[1], dz = s[2];
    const double volume = 4.0 / 3.0 * GDN_PI * dx * dy * dz;
    const double kx = added_mass_kappa(dx, dy, dz);
    const double ky = added_mass_kappa(dy, dz, dx);
    const double kz = added_mass_kappa(dz, dx, dy);
    const double x2 = dx * dx, y2 = dy * dy, z2 = dz * dz;
    const double ixf = (y2 - z2) * (y2 - z2) * fabs(kz - ky) /
                       fmax(GDN_MINVAL, fabs(2 * (y2 - z2) + (y2 + z2) * (ky - kz)));
    const double iyf = (z2 - x2) * (z2 - x2) * fabs(kx - kz) /
                       fmax(GDN_MINVAL, fabs(2 * (z2 - x2) + (z2 + x2) * (kz - kx)));
    const double izf = (x2 - y2) * (x2 - y2) * fabs(ky - kx) /
                       fmax(GDN_MINVAL, fabs(2 * (x2 - y2) + (x2 + y2) * (kx - ky)));
    fluid[0] = 1;
    memcpy(fluid + 1, coef, 5 * sizeof(double));
    fluid[6] = volume * kx / fmax(GDN_MINVAL, 2 - kx);
    fluid[7] = volume * ky / fmax(GDN_MINVAL, 2 - ky);
    fluid[8] = volume * kz / fmax(GDN_MINVAL, 2 - kz);
    fluid[9] = volume * ixf / 5;
    fluid[10] = volume * iyf / 5;
    fluid[11] = volume * izf / 5;
}
