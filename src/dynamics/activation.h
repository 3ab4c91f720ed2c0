// SPDX-License-Identifier: Apache-2.0
// Internal: actuator activation dynamics (MuJoCo 2.2.2's act_dot laws and mj_advance's
// activation update) with their partials.
#ifndef GDN_DYNAMICS_ACTIVATION_H
#define GDN_DYNAMICS_ACTIVATION_H

#include <gradyn/gradyn.h>

// actuator i's (stateful) act_dot at control c (clamped as the actuation stage clamps it) and
// activation act: c (integrator), (c - act) / max(1e-15, tau) (filter), the muscle law
// (dynamics/muscle.h); dctrl, dact (NULL: not wanted) receive the partials
double gdn_act_dot(const gdnModel* m, int i, double c, double act, double* dctrl, double* dact);

// the activation update of a step: act_next = act + h act_dot, clamped to actrange for
// actlimited actuators; keep (NULL: not wanted, na) = 1 where the value passed, 0 where the
// clamp holds it (d act_next / d (act + h act_dot))
void gdn_act_advance(const gdnModel* m, const double* act, const double* act_dot, double h,
                     double* act_next, double* keep);

// one activation of it: actuator i's (stateful) act' from act, act_dot; *keep as above
double gdn_act_advance_one(const gdnModel* m, int i, double act, double act_dot, double h,
                           double* keep);

// actuator i's control as the actuation stage uses it: c clamped to ctrlrange when limited and
// clamping is on (mju_clip: NaN passes); *pass = 0 when the clamp holds it (NULL: not wanted)
static inline double gdn_actuator_ctrl_clamped(const gdnModel* m, int i, double c, int* pass) {
    int p = 1;
    if (!(m->opt.disableflags & GDN_DSBL_CLAMPCTRL) && m->actuator_ctrllimited[i]) {
        const double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
        if (c < lo) {
            c = lo;
            p = 0;
        } else if (c > hi) {
            c = hi;
            p = 0;
        }
    }
    if (pass) {
        *pass = p;
    }
    return c;
}

// the input the force law multiplies by the gain: act of a stateful actuator, else its control
// c; 1 when actuator i has a state (its act index is i - (nu - na))
static inline int gdn_actuator_stateful(const gdnModel* m, int i) {
    return i >= m->nu - m->na;
}

#endif
