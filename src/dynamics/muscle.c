// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's muscle gain, passive bias and activation dynamics, each with its partials.
#include "dynamics/muscle.h"

#define GDN_MINVAL 1e-15 // MuJoCo's mjMINVAL: the floor of every divisor below

static double floor_min(double x) {
    return x < GDN_MINVAL ? GDN_MINVAL : x;
}

// F: the peak force, or scale / acc0 when force < 0 (MuJoCo's automatic scaling)
static double peak_force(const double* prm, double acc0) {
    return prm[2] < 0 ? prm[3] / floor_min(acc0) : prm[2];
}

// the optimal length L0 and the normalized length L = range0 + (len - lengthrange0) / L0,
// with dL/dlen in *dL
static double normalized_length(double len, const double lengthrange[2], const double* prm,
                                double* L0, double* dL) {
    *L0 = (lengthrange[1] - lengthrange[0]) / floor_min(prm[1] - prm[0]);
    *dL = 1 / floor_min(*L0);
    return prm[0] + (len - lengthrange[0]) / floor_min(*L0);
}

double gdn_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                       const double* prm, double* dlen, double* dvel) {
    const double force = peak_force(prm, acc0);
    const double lmin = prm[4], lmax = prm[5], vmax = prm[6], fvmax = prm[8];
    const double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax);
    double L0, dLdlen;
    const double L = normalized_length(len, lengthrange, prm, &L0, &dLdlen);
    const double dVdvel = 1 / floor_min(L0 * vmax);
    const double V = vel / floor_min(L0 * vmax);

    // FL(L): rising half-quadratics to 1 at L = 1, falling ones to 0 at lmax (MuJoCo's chain
    // of tests: L < lmin falls into the second piece)
    double FL = 0, dFL = 0, x, s;
    if (L >= lmin && L <= a) {
        s = 1 / floor_min(a - lmin);
        x = (L - lmin) / floor_min(a - lmin);
        FL = 0.5 * x * x;
        dFL = x * s;
    } else if (L <= 1) {
        s = 1 / floor_min(1 - a);
        x = (1 - L) / floor_min(1 - a);
        FL = 1 - 0.5 * x * x;
        dFL = x * s;
    } else if (L <= b) {
        s = 1 / floor_min(b - 1);
        x = (L - 1) / floor_min(b - 1);
        FL = 1 - 0.5 * x * x;
        dFL = -x * s;
    } else if (L <= lmax) {
        s = 1 / floor_min(lmax - b);
        x = (lmax - L) / floor_min(lmax - b);
        FL = 0.5 * x * x;
        dFL = -x * s;
    }

    // FV(V): 0 below -1, (V + 1)^2 to 0, fvmax - (y - V)^2 / y to y = fvmax - 1, fvmax beyond
    double FV, dFV;
    const double y = fvmax - 1;
    if (V <= -1) {
        FV = dFV = 0;
    } else if (V <= 0) {
        FV = (V + 1) * (V + 1);
        dFV = 2 * (V + 1);
    } else if (V <= y) {
        FV = fvmax - (y - V) * (y - V) / floor_min(y);
        dFV = 2 * (y - V) / floor_min(y);
    } else {
        FV = fvmax;
        dFV = 0;
    }
    if (dlen) {
        *dlen = -force * dFL * dLdlen * FV;
    }
    if (dvel) {
        *dvel = -force * FL * dFV * dVdvel;
    }
    return -force * FL * FV;
}

double gdn_muscle_bias(double len, const double lengthrange[2], double acc0, const double* prm,
                       double* dlen) {
    const double force = peak_force(prm, acc0);
    const double lmax = prm[5], fpmax = prm[7];
    const double b = 0.5 * (1 + lmax);
    double L0, dLdlen;
    const double L = normalized_length(len, lengthrange, prm, &L0, &dLdlen);
    const double s = 1 / floor_min(b - 1);
    double value, dL;
    if (L <= 1) {
        value = dL = 0;
    } else if (L <= b) {
        const double x = (L - 1) / floor_min(b - 1);
        value = -force * fpmax * 0.5 * x * x;
        dL = -force * fpmax * x * s;
    } else {
        const double x = (L - b) / floor_min(b - 1);
        value = -force * fpmax * (0.5 + x);
        dL = -force * fpmax * s;
    }
    if (dlen) {
        *dlen = dL * dLdlen;
    }
    return value;
}

double gdn_muscle_dynamics(double ctrl, double act, const double* prm, double* dctrl,
                           double* dact) {
    // clamps as mju_clip: the derivative of the pass-through branch is 1, of a clamp 0
    const double c = ctrl < 0 ? 0 : (ctrl > 1 ? 1 : ctrl);
    const double dc = (ctrl < 0 || ctrl > 1) ? 0 : 1;
    const double ac = act < 0 ? 0 : (act > 1 ? 1 : act);
    const double dac = (act < 0 || act > 1) ? 0 : 1;
    double tau, dtau;
    if (c > act) {
        tau = prm[0] * (0.5 + 1.5 * ac);
        dtau = prm[0] * 1.5 * dac;
    } else {
        const double g = 0.5 + 1.5 * ac;
        tau = prm[1] / g;
        dtau = -prm[1] * 1.5 * dac / (g * g);
    }
    if (tau < GDN_MINVAL) {
        tau = GDN_MINVAL;
        dtau = 0;
    }
    const double value = (c - act) / tau;
    if (dctrl) {
        *dctrl = dc / tau;
    }
    if (dact) {
        *dact = -1 / tau - value * dtau / tau;
    }
    return value;
}
