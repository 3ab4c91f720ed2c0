// SPDX-License-Identifier: Apache-2.0
// Passive forces: joint springs toward qpos_spring, viscous dof damping and the medium's fluid
// forces (MuJoCo mj_passive).
#include "dynamics/passive.h"

#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "dynamics/fluid.h"
#include "math/vec.h"
#include "model/validate.h"

#define GDN_PI 3.14159265358979323846

void gdn_quat2vel(double res[3], const double quat[4]) {
    double axis[3] = {quat[1], quat[2], quat[3]};
    double sin_half = gdn_normalize3(axis);
    double angle = 2 * atan2(sin_half, quat[0]);
    if (angle > GDN_PI) {
        angle -= 2 * GDN_PI;
    }
    gdn_scl3(res, axis, angle);
}

// res = log(conj(q_spring) q)
void gdn_quat_spring_dif(double res[3], const double q[4], const double q_spring[4]) {
    double conj[4], dif[4];
    gdn_negquat(conj, q_spring);
    gdn_mulquat(dif, conj, q);
    gdn_quat2vel(res, dif);
}

// qfrc_passive = -k (q (-) q_spring) - b qvel, where (-) is the vector difference for hinge,
// slide and the free joint's position and the rotation vector of the quaternion difference for
// ball and the free joint's orientation
void gdn_passive(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) == GDN_OK) {
        gdn_passive_forces(m, d);
    }
}

void gdn_passive_forces(const gdnModel* m, gdnData* d) {
    double* frc = d->qfrc_passive;
    memset(frc, 0, sizeof(double) * (size_t)m->nv);
    if (m->opt.disableflags & GDN_DSBL_PASSIVE) {
        return;
    }

    // joint springs (a joint without stiffness adds -0 * dif: nothing, so it is skipped)
    for (int j = 0; j < m->njnt; j++) {
        double k = m->jnt_stiffness[j];
        if (k == 0) {
            continue;
        }
        int padr = m->jnt_qposadr[j];
        int dadr = m->jnt_dofadr[j];
        const double* q = d->qpos + padr;
        const double* q0 = m->qpos_spring + padr;
        double dif[3];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int i = 0; i < 3; i++) {
                frc[dadr + i] -= k * (q[i] - q0[i]);
            }
            gdn_quat_spring_dif(dif, q + 3, q0 + 3);
            for (int i = 0; i < 3; i++) {
                frc[dadr + 3 + i] -= k * dif[i];
            }
            break;
        case GDN_JNT_BALL:
            gdn_quat_spring_dif(dif, q, q0);
            for (int i = 0; i < 3; i++) {
                frc[dadr + i] -= k * dif[i];
            }
            break;
        default:
            frc[dadr] -= k * (q[0] - q0[0]);
            break;
        }
    }

    // dof dampers
    for (int i = 0; i < m->nv; i++) {
        frc[i] -= m->dof_damping[i] * d->qvel[i];
    }

    // the medium's forces on every body (MuJoCo's inertia-box model: dynamics/fluid.h); an
    // exhausted arena leaves NaN, which the step refuses
    if (gdn_fluid_active(m) && gdn_fluid_forces(m, d, frc) != GDN_OK) {
        for (int i = 0; i < m->nv; i++) {
            frc[i] = NAN;
        }
    }
}
