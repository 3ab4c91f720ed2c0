// SPDX-License-Identifier: Apache-2.0
// Actuator activation dynamics: the act_dot laws and the step's clamped activation update.
#include "dynamics/activation.h"

#include "dynamics/muscle.h"

#define GDN_MINVAL 1e-15 // MuJoCo's mjMINVAL

double gdn_act_dot(const gdnModel* m, int i, double c, double act, double* dctrl, double* dact) {
    const double* prm = m->actuator_dynprm + GDN_NDYN * i;
    double value, dc = 0, da = 0;
    switch (m->actuator_dyntype[i]) {
    case GDN_DYN_INTEGRATOR:
        // act_dot = c
        value = c;
        dc = 1;
        break;
    case GDN_DYN_FILTER: {
        // act_dot = (c - act) / tau
        const double tau = prm[0] < GDN_MINVAL ? GDN_MINVAL : prm[0];
        value = (c - act) / tau;
        dc = 1 / tau;
        da = -1 / tau;
        break;
    }
    case GDN_DYN_MUSCLE:
        value = gdn_muscle_dynamics(c, act, prm, &dc, &da);
        break;
    default:
        value = 0;
        break;
    }
    if (dctrl) {
        *dctrl = dc;
    }
    if (dact) {
        *dact = da;
    }
    return value;
}

double gdn_act_advance_one(const gdnModel* m, int i, double act, double act_dot, double h,
                           double* keep) {
    // act' = act + h act_dot, then mju_clip to actrange when limited
    double x = act + h * act_dot;
    double k = 1;
    if (m->actuator_actlimited[i]) {
        const double lo = m->actuator_actrange[2 * i], hi = m->actuator_actrange[2 * i + 1];
        if (x < lo) {
            x = lo;
            k = 0;
        } else if (x > hi) {
            x = hi;
            k = 0;
        }
    }
    if (keep) {
        *keep = k;
    }
    return x;
}

void gdn_act_advance(const gdnModel* m, const double* act, const double* act_dot, double h,
                     double* act_next, double* keep) {
    const int first = m->nu - m->na;
    for (int j = 0; j < m->na; j++) {
        act_next[j] =
            gdn_act_advance_one(m, first + j, act[j], act_dot[j], h, keep ? keep + j : NULL);
    }
}
