// SPDX-License-Identifier: Apache-2.0
// The configuration manifold: per-joint sizes, integrate (q (+) v dt) and difference.
#include <gradyn/gradyn.h>

#include "math/vec.h"

int gdn_joint_nq(int jnt_type) {
    switch (jnt_type) {
    case GDN_JNT_FREE:
        return 7;
    case GDN_JNT_BALL:
        return 4;
    case GDN_JNT_SLIDE:
    case GDN_JNT_HINGE:
        return 1;
    default:
        return 0;
    }
}

int gdn_joint_nv(int jnt_type) {
    switch (jnt_type) {
    case GDN_JNT_FREE:
        return 6;
    case GDN_JNT_BALL:
        return 3;
    case GDN_JNT_SLIDE:
    case GDN_JNT_HINGE:
        return 1;
    default:
        return 0;
    }
}

// free: p += dt v_world, q <- q exp(dt w_local); ball: q <- q exp(dt w_local); else q += dt v.
// A NULL argument: nothing happens
void gdn_integrate_pos(const gdnModel* m, double* qpos, const double* qvel, double dt) {
    if (!m || !qpos || !qvel) {
        return;
    }
    for (int j = 0; j < m->njnt; j++) {
        double* q = qpos + m->jnt_qposadr[j];
        const double* v = qvel + m->jnt_dofadr[j];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            gdn_addscl3(q, q, v, dt);
            gdn_quat_integrate(q + 3, v + 3, dt);
            break;
        case GDN_JNT_BALL:
            gdn_quat_integrate(q, v, dt);
            break;
        default:
            q[0] += dt * v[0];
            break;
        }
    }
}

// the inverse of gdn_integrate_pos: qvel = (qpos2 (-) qpos1) / dt. A NULL argument: nothing
void gdn_difference_pos(const gdnModel* m, double* qvel, double dt, const double* qpos1,
                        const double* qpos2) {
    if (!m || !qvel || !qpos1 || !qpos2) {
        return;
    }
    double inv = 1 / dt;
    for (int j = 0; j < m->njnt; j++) {
        const double* a = qpos1 + m->jnt_qposadr[j];
        const double* b = qpos2 + m->jnt_qposadr[j];
        double* v = qvel + m->jnt_dofadr[j];
        double qa[4], qb[4];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int i = 0; i < 3; i++) {
                v[i] = (b[i] - a[i]) * inv;
            }
            gdn_copy4(qa, a + 3);
            gdn_copy4(qb, b + 3);
            gdn_normalize4(qa);
            gdn_normalize4(qb);
            gdn_quat_sub(v + 3, qb, qa);
            gdn_scl3(v + 3, v + 3, inv);
            break;
        case GDN_JNT_BALL:
            gdn_copy4(qa, a);
            gdn_copy4(qb, b);
            gdn_normalize4(qa);
            gdn_normalize4(qb);
            gdn_quat_sub(v, qb, qa);
            gdn_scl3(v, v, inv);
            break;
        default:
            v[0] = (b[0] - a[0]) * inv;
            break;
        }
    }
}

// a NULL argument: nothing happens
void gdn_normalize_quat(const gdnModel* m, double* qpos) {
    if (!m || !qpos) {
        return;
    }
    for (int j = 0; j < m->njnt; j++) {
        double* q = qpos + m->jnt_qposadr[j];
        if (m->jnt_type[j] == GDN_JNT_FREE) {
            gdn_normalize4(q + 3);
        } else if (m->jnt_type[j] == GDN_JNT_BALL) {
            gdn_normalize4(q);
        }
    }
}
