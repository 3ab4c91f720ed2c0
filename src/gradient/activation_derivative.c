// SPDX-License-Identifier: Apache-2.0
// The activation part of a step's tangent and adjoint: the input tangent of the force laws and
// the clamped update act' = clamp(act + h act_dot).
#include "gradient/activation_derivative.h"

#include <math.h>

#include <gradyn/derivative.h>

#include "dynamics/activation.h"

#define GDN_MAXVAL 1e10 // MuJoCo's mju_isBad bound

void gdn_actuator_input_tangent(const gdnModel* m, const double* dctrl, const double* dact,
                                double* du) {
    const int first = m->nu - m->na;
    for (int i = 0; i < m->nu; i++) {
        const double* src = i < first ? dctrl : dact;
        const int k = i < first ? i : i - first;
        du[i] = src ? src[k] : 0;
    }
}

// the control act_dot reads (dynamics/activation.h)
static double clamped_ctrl(const gdnModel* m, const gdnData* d, int i, int* pass) {
    return gdn_actuator_ctrl_clamped(m, i, d->ctrl[i], pass);
}

void gdn_act_dot_partials(const gdnModel* m, const gdnData* d, double* value, double* fa,
                          double* fc) {
    const int nu = m->nu, na = m->na, first = nu - na;
    // a bad control anywhere zeroes every control (the actuation stage's rule)
    int bad = 0;
    for (int i = 0; i < nu; i++) {
        int pass;
        const double c = clamped_ctrl(m, d, i, &pass);
        bad |= c != c || c > GDN_MAXVAL || c < -GDN_MAXVAL;
    }
    const int disabled = (m->opt.disableflags & GDN_DSBL_ACTUATION) != 0;
    for (int j = 0; j < na; j++) {
        const int i = first + j;
        int pass = 0;
        const double c = bad ? 0 : clamped_ctrl(m, d, i, &pass);
        double dc = 0, da = 0, v = 0;
        if (!disabled) {
            v = gdn_act_dot(m, i, c, d->act[j], &dc, &da);
        }
        if (value) {
            value[j] = v;
        }
        fa[j] = da;
        fc[j] = bad || !pass ? 0 : dc;
    }
}

void gdn_act_update_partials(const gdnModel* m, const gdnData* d, double* ga, double* gc,
                             double* keep) {
    const int na = m->na, first = m->nu - na;
    const double h = m->opt.timestep;
    // keep holds act_dot until the clamp's pass flags replace it
    gdn_act_dot_partials(m, d, keep, ga, gc);
    for (int j = 0; j < na; j++) {
        ga[j] = 1 + h * ga[j];
        gc[j] = h * gc[j];
        gdn_act_advance_one(m, first + j, d->act[j], keep[j], h, keep + j);
    }
}

double gdn_act_branch_margin(const gdnModel* m, const gdnData* d) {
    const int first = m->nu - m->na;
    const double h = m->opt.timestep;
    double margin = INFINITY;
    for (int j = 0; j < m->na; j++) {
        const int i = first + j;
        int pass;
        const double c = clamped_ctrl(m, d, i, &pass);
        const double act = d->act[j];
        if (m->actuator_dyntype[i] == GDN_DYN_MUSCLE) {
            const double cc = c < 0 ? 0 : (c > 1 ? 1 : c);
            margin = fmin(margin, fabs(cc - act));
            margin = fmin(margin, fmin(fabs(act), fabs(act - 1)));
        }
        if (m->actuator_actlimited[i]) {
            double dc, da;
            const double x = act + h * gdn_act_dot(m, i, c, act, &dc, &da);
            margin = fmin(margin, fmin(fabs(x - m->actuator_actrange[2 * i]),
                                       fabs(x - m->actuator_actrange[2 * i + 1])));
        }
    }
    return margin;
}

void gdn_act_report(const gdnModel* m, gdnData* d) {
    const double margin = gdn_act_branch_margin(m, d);
    if (margin < d->deriv_state_margin) {
        d->deriv_state_margin = margin;
    }
    if (margin < GDN_DERIV_MARGIN_TOL) {
        d->deriv_flags |= GDN_DERIV_NEAR_STATE;
    }
}

void gdn_act_update_jvp(const gdnModel* m, const double* ga, const double* gc,
                        const double* keep, const double* dctrl, const double* dact,
                        double* dact_next) {
    const int first = m->nu - m->na;
    for (int j = 0; j < m->na; j++) {
        const double da = dact ? dact[j] : 0, dc = dctrl ? dctrl[first + j] : 0;
        dact_next[j] = keep[j] * (ga[j] * da + gc[j] * dc);
    }
}

void gdn_act_update_vjp(const gdnModel* m, const double* ga, const double* gc,
                        const double* keep, const double* gu, const double* gact_next,
                        double* gctrl, double* gact) {
    const int first = m->nu - m->na;
    for (int i = 0; gctrl && i < first; i++) {
        gctrl[i] = gu[i];
    }
    for (int j = 0; j < m->na; j++) {
        const double g = gact_next ? keep[j] * gact_next[j] : 0;
        if (gctrl) {
            gctrl[first + j] = gc[j] * g;
        }
        if (gact) {
            gact[j] = gu[first + j] + ga[j] * g;
        }
    }
}
