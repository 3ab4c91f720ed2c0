// SPDX-License-Identifier: Apache-2.0
// Actuation: joint transmissions, gain/bias force laws and qfrc_actuator (MuJoCo 2.2.2 semantics).
#include <string.h>

#include <gradyn/gradyn.h>

#include "dynamics/passive.h"
#include "math/vec.h"

#define GDN_MAXVAL 1e10

// clamp x to [lo, hi] (NaN passes through)
static double clip(double x, double lo, double hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

// non-finite or beyond 1e10 in magnitude
static int is_bad(double x) {
    return x != x || x > GDN_MAXVAL || x < -GDN_MAXVAL;
}

// joint transmission of actuator i: length and velocity = moment qvel, where moment = gear[0]
// on a hinge/slide dof, gear[0:3] on a ball's dofs, gear[0:6] on a free joint's dofs;
// length = gear[0] q (hinge, slide), gear[0:3] . rotvec(quat) (ball), 0 (free: MuJoCo defines
// no meaningful length)
static void joint_transmission(const gdnModel* m, gdnData* d, int i) {
    int jnt = m->actuator_trnid[2 * i];
    const double* gear = m->actuator_gear + 6 * i;
    const double* q = d->qpos + m->jnt_qposadr[jnt];
    const double* v = d->qvel + m->jnt_dofadr[jnt];
    double axis[3];
    switch (m->jnt_type[jnt]) {
    case GDN_JNT_FREE:
        d->actuator_length[i] = 0;
        d->actuator_velocity[i] = gdn_dot3(gear, v) + gdn_dot3(gear + 3, v + 3);
        break;
    case GDN_JNT_BALL:
        gdn_quat2vel(axis, q);
        d->actuator_length[i] = gdn_dot3(axis, gear);
        d->actuator_velocity[i] = gdn_dot3(gear, v);
        break;
    default:
        d->actuator_length[i] = q[0] * gear[0];
        d->actuator_velocity[i] = gear[0] * v[0];
        break;
    }
}

// force of actuator i for a given (clamped) control:
//   gain  = prm[0] (fixed) or prm[0] + prm[1] length + prm[2] velocity (affine)
//   bias  = 0 (none) or prm[0] + prm[1] length + prm[2] velocity (affine)
//   force = clamp(gain ctrl + bias, forcerange) when forcelimited
static inline double actuator_force(const gdnModel* m, const gdnData* d, int i, double ctrl) {
    double length = d->actuator_length[i], velocity = d->actuator_velocity[i];
    const double* gprm = m->actuator_gainprm + GDN_NGAIN * i;
    const double* bprm = m->actuator_biasprm + GDN_NBIAS * i;
    double gain = gprm[0];
    if (m->actuator_gaintype[i] == GDN_GAIN_AFFINE) {
        gain = gprm[0] + gprm[1] * length + gprm[2] * velocity;
    }
    double bias = 0;
    if (m->actuator_biastype[i] == GDN_BIAS_AFFINE) {
        bias = bprm[0] + bprm[1] * length + bprm[2] * velocity;
    }
    double force = gain * ctrl;
    force += bias;
    if (m->actuator_forcelimited[i]) {
        force = clip(force, m->actuator_forcerange[2 * i], m->actuator_forcerange[2 * i + 1]);
    }
    return force;
}

// qfrc_actuator += moment_i' force (the moment row of joint_transmission)
static inline void add_moment_force(const gdnModel* m, gdnData* d, int i, double force) {
    int jnt = m->actuator_trnid[2 * i];
    const double* gear = m->actuator_gear + 6 * i;
    double* qfrc = d->qfrc_actuator + m->jnt_dofadr[jnt];
    switch (m->jnt_type[jnt]) {
    case GDN_JNT_FREE:
        for (int k = 0; k < 6; k++) {
            qfrc[k] += gear[k] * force;
        }
        break;
    case GDN_JNT_BALL:
        for (int k = 0; k < 3; k++) {
            qfrc[k] += gear[k] * force;
        }
        break;
    default:
        qfrc[0] += gear[0] * force;
        break;
    }
}

// per actuator: ctrl clamped to ctrlrange (when limited and clamping is on), force as in
// actuator_force, qfrc_actuator = moment' force accumulated actuator by actuator.
// Lengths and velocities are filled even when actuation is disabled (MuJoCo computes them in
// the position and velocity stages); a non-finite or huge (clamped) control zeroes every control
// and counts GDN_WARN_BADCTRL, as MuJoCo does: the forces are computed with the controls as
// given and computed again with zeros in that (rare) case
void gdn_actuation(const gdnModel* m, gdnData* d) {
    int nu = m->nu;
    memset(d->qfrc_actuator, 0, sizeof(double) * (size_t)m->nv);
    memset(d->actuator_force, 0, sizeof(double) * (size_t)nu);
    for (int i = 0; i < nu; i++) {
        joint_transmission(m, d, i);
    }
    if (nu == 0 || (m->opt.disableflags & GDN_DSBL_ACTUATION)) {
        return;
    }

    int clamp = !(m->opt.disableflags & GDN_DSBL_CLAMPCTRL);
    double* force = d->actuator_force;
    int bad_ctrl = 0;
    for (int i = 0; i < nu; i++) {
        double ctrl = d->ctrl[i];
        if (clamp && m->actuator_ctrllimited[i]) {
            ctrl = clip(ctrl, m->actuator_ctrlrange[2 * i], m->actuator_ctrlrange[2 * i + 1]);
        }
        bad_ctrl |= is_bad(ctrl);
        force[i] = actuator_force(m, d, i, ctrl);
    }
    if (bad_ctrl) {
        d->warning[GDN_WARN_BADCTRL]++;
        for (int i = 0; i < nu; i++) {
            force[i] = actuator_force(m, d, i, 0);
        }
    }

    // qfrc_actuator = moment' force, accumulated actuator by actuator
    for (int i = 0; i < nu; i++) {
        add_moment_force(m, d, i, force[i]);
    }
}
