// SPDX-License-Identifier: Apache-2.0
// Energy: potential (gravity + joint springs, MuJoCo mj_energyPos) and kinetic 0.5 v'Mv.
#include <math.h>

#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "dynamics/passive.h"
#include "kinematics/jacobian.h"
#include "math/vec.h"
#include "model/validate.h"

// U = -sum_b m_b g . xipos_b  (unless gravity is disabled)
//   + sum_j 0.5 k_j |q_j (-) q_spring_j|^2  (unless passive forces are disabled; the free joint
//     contributes its position and its orientation terms, each with the joint's stiffness)
//   + sum_t 0.5 k_t (ten_length_t - tendon_lengthspring_t)^2  (tendon springs, same flag)
static double potential_energy(const gdnModel* m, const gdnData* d) {
    double energy = 0;
    if (!(m->opt.disableflags & GDN_DSBL_GRAVITY)) {
        for (int b = 1; b < m->nbody; b++) {
            energy -= m->body_mass[b] * gdn_dot3(m->opt.gravity, d->xipos + 3 * b);
        }
    }
    if (m->opt.disableflags & GDN_DSBL_PASSIVE) {
        return energy;
    }
    for (int j = 0; j < m->njnt; j++) {
        double k = m->jnt_stiffness[j];
        const double* q = d->qpos + m->jnt_qposadr[j];
        const double* q0 = m->qpos_spring + m->jnt_qposadr[j];
        double dif[3];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            gdn_sub3(dif, q, q0);
            energy += 0.5 * k * gdn_dot3(dif, dif);
            gdn_quat_spring_dif(dif, q + 3, q0 + 3);
            energy += 0.5 * k * gdn_dot3(dif, dif);
            break;
        case GDN_JNT_BALL:
            gdn_quat_spring_dif(dif, q, q0);
            energy += 0.5 * k * gdn_dot3(dif, dif);
            break;
        default:
            energy += 0.5 * k * (q[0] - q0[0]) * (q[0] - q0[0]);
            break;
        }
    }
    for (int t = 0; t < m->ntendon; t++) {
        const double dl = d->ten_length[t] - m->tendon_lengthspring[t];
        energy += 0.5 * m->tendon_stiffness[t] * dl * dl;
    }
    return energy;
}

// T = sum_b 0.5 m_b |v_b|^2 + 0.5 sum_k I_bk (ximat_b[:, k] . w_b)^2, with the COM velocity v_b
// and angular velocity w_b of each body from one pass down the tree (parents before children):
//   w_b = w_p + sum_{j in dofs(b)} jr_j qvel_j
//   v_b = v_p + w_p x (xipos_b - xipos_p) + sum_{j in dofs(b)} jp_j(xipos_b) qvel_j
// plus the armature term 0.5 sum_j armature_j qvel_j^2: together this is 0.5 v'Mv (M includes
// armature, as MuJoCo's does) in O(nbody + nv) and without needing a fresh M
static double kinetic_energy(const gdnModel* m, gdnData* d) {
    size_t mark = gdn_arena_mark(d);
    double* vel = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    if (!vel) {
        return NAN;
    }
    double energy = 0;
    gdn_zero3(vel);
    gdn_zero3(vel + 3);
    for (int b = 1; b < m->nbody; b++) {
        int p = m->body_parentid[b];
        double* w = vel + 6 * b;
        double* v = w + 3;
        const double* wp = vel + 6 * p;
        const double* xipos = d->xipos + 3 * b;
        double arm[3], cross[3];
        gdn_sub3(arm, xipos, d->xipos + 3 * p);
        gdn_cross3(cross, wp, arm);
        gdn_copy3(w, wp);
        gdn_add3(v, wp + 3, cross);
        for (int k = 0; k < m->body_dofnum[b]; k++) {
            int dof = m->body_dofadr[b] + k;
            double jp[3], jr[3];
            gdn_jac_dof_column(m, d, dof, xipos, jp, jr);
            gdn_addscl3(w, w, jr, d->qvel[dof]);
            gdn_addscl3(v, v, jp, d->qvel[dof]);
        }
        const double* R = d->ximat + 9 * b;
        const double* inertia = m->body_inertia + 3 * b;
        double rot = 0;
        for (int k = 0; k < 3; k++) {
            double wk = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
            rot += inertia[k] * wk * wk;
        }
        energy += 0.5 * (m->body_mass[b] * gdn_dot3(v, v) + rot);
    }
    for (int i = 0; i < m->nv; i++) {
        energy += 0.5 * m->dof_armature[i] * d->qvel[i] * d->qvel[i];
    }
    gdn_arena_reset(d, mark);
    return energy;
}

void gdn_energy(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        return;
    }
    d->energy[0] = potential_energy(m, d);
    d->energy[1] = kinetic_energy(m, d);
}
