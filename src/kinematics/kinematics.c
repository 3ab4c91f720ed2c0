// SPDX-License-Identifier: Apache-2.0
// Forward kinematics: body, inertial, geom and site frames, joint anchors/axes, subtree COMs.
#include <string.h>

#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "math/vec.h"

// Every formula below is evaluated in the same floating-point order whatever the shortcut
// taken: a shortcut only drops terms that are exact zeros or products with an exact identity
// (x * 1, x + 0), so frames match the general path bit for bit (up to the sign of a zero).

// r = R(q) a for a unit quaternion, without forming the matrix:
//   t = w a + q_xyz x a,  r = a + 2 q_xyz x t
static inline void rotate_by_quat(double r[3], const double a[3], const double q[4]) {
    double t0 = q[0] * a[0] + q[2] * a[2] - q[3] * a[1];
    double t1 = q[0] * a[1] + q[3] * a[0] - q[1] * a[2];
    double t2 = q[0] * a[2] + q[1] * a[1] - q[2] * a[0];
    r[0] = a[0] + 2 * (q[2] * t2 - q[3] * t1);
    r[1] = a[1] + 2 * (q[3] * t0 - q[1] * t2);
    r[2] = a[2] + 2 * (q[1] * t1 - q[2] * t0);
}

static inline int is_identity_quat(const double q[4]) {
    return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
}

static inline int is_zero3(const double a[3]) {
    return a[0] == 0 && a[1] == 0 && a[2] == 0;
}

static inline void copy9(double r[9], const double a[9]) {
    memcpy(r, a, 9 * sizeof(double));
}

// pose of a frame attached to body b at (pos, quat) in body coordinates:
//   xpos = xpos_b + xmat_b pos,  xmat = R(xquat_b * quat)
// sameframe (gdnSameFrame) skips what is known: the body frame itself, its inertial frame
// (already computed, the same doubles), or the body's orientation (quat = identity)
static void local_to_global(const gdnData* d, int b, int sameframe, const double pos[3],
                            const double quat[4], double xpos[3], double xmat[9]) {
    switch (sameframe) {
    case GDN_SAMEFRAME_BODY:
        gdn_copy3(xpos, d->xpos + 3 * b);
        copy9(xmat, d->xmat + 9 * b);
        return;
    case GDN_SAMEFRAME_INERTIA:
        gdn_copy3(xpos, d->xipos + 3 * b);
        copy9(xmat, d->ximat + 9 * b);
        return;
    default:
        break;
    }
    double v[3];
    gdn_mulmat3(v, d->xmat + 9 * b, pos);
    gdn_add3(xpos, d->xpos + 3 * b, v);
    if (sameframe == GDN_SAMEFRAME_BODYROT) {
        copy9(xmat, d->xmat + 9 * b);
    } else {
        double q[4];
        gdn_mulquat(q, d->xquat + 4 * b, quat);
        gdn_quat2mat(xmat, q);
    }
}

// Body frames, parent before child. A body with a single free joint takes its pose from qpos.
// Otherwise (pos, quat) = parent * (body_pos, body_quat), then for each joint in order:
//   xaxis = R(quat) jnt_axis, xanchor = pos + R(quat) jnt_pos
//   slide: pos += xaxis (q - q0)
//   hinge: quat = quat * rot(jnt_axis, q - q0); ball: quat = quat * q_ball
//          then pos moves so that the anchor stays fixed: pos = xanchor - R(quat) jnt_pos
//          (with jnt_pos = 0: xanchor = pos and pos does not move)
// The quaternions in qpos are normalized in place first (as MuJoCo does).
static void body_frames(const gdnModel* m, gdnData* d) {
    gdn_normalize_quat(m, d->qpos);
    const double* qpos = d->qpos;
    for (int b = 1; b < m->nbody; b++) {
        double pos[3], quat[4];
        int jnt0 = m->body_jntadr[b];
        int njnt = m->body_jntnum[b];
        if (njnt == 1 && m->jnt_type[jnt0] == GDN_JNT_FREE) {
            const double* q = qpos + m->jnt_qposadr[jnt0];
            gdn_copy3(pos, q);
            gdn_copy4(quat, q + 3);
            gdn_copy3(d->xanchor + 3 * jnt0, pos);
            double* xaxis = d->xaxis + 3 * jnt0;
            xaxis[0] = xaxis[1] = 0;
            xaxis[2] = 1;
        } else {
            int p = m->body_parentid[b];
            double v[3];
            gdn_mulmat3(v, d->xmat + 9 * p, m->body_pos + 3 * b);
            gdn_add3(pos, d->xpos + 3 * p, v);
            const double* bquat = m->body_quat + 4 * b;
            if (is_identity_quat(bquat)) {
                gdn_copy4(quat, d->xquat + 4 * p);
            } else {
                gdn_mulquat(quat, d->xquat + 4 * p, bquat);
            }
            for (int j = jnt0; j < jnt0 + njnt; j++) {
                int qadr = m->jnt_qposadr[j];
                const double* jpos = m->jnt_pos + 3 * j;
                double* xaxis = d->xaxis + 3 * j;
                double* xanchor = d->xanchor + 3 * j;
                int anchored = !is_zero3(jpos);
                rotate_by_quat(xaxis, m->jnt_axis + 3 * j, quat);
                if (anchored) {
                    rotate_by_quat(v, jpos, quat);
                    gdn_add3(xanchor, v, pos);
                } else {
                    gdn_copy3(xanchor, pos);
                }
                int type = m->jnt_type[j];
                if (type == GDN_JNT_SLIDE) {
                    gdn_addscl3(pos, pos, xaxis, qpos[qadr] - m->qpos0[qadr]);
                    continue;
                }
                double qloc[4];
                if (type == GDN_JNT_BALL) {
                    gdn_copy4(qloc, qpos + qadr);
                } else {
                    gdn_axisangle2quat(qloc, m->jnt_axis + 3 * j, qpos[qadr] - m->qpos0[qadr]);
                }
                gdn_mulquat(quat, quat, qloc);
                if (anchored) {
                    double arm[3], rot[3];
                    gdn_sub3(arm, xanchor, pos);
                    rotate_by_quat(rot, jpos, quat);
                    pos[0] += arm[0] - rot[0];
                    pos[1] += arm[1] - rot[1];
                    pos[2] += arm[2] - rot[2];
                }
                // a free joint that is not alone in its body is rejected by the loader
            }
        }
        gdn_normalize4(quat);
        gdn_copy4(d->xquat + 4 * b, quat);
        gdn_copy3(d->xpos + 3 * b, pos);
        gdn_quat2mat(d->xmat + 9 * b, quat);
    }
}

// subtree_com[b] = sum_{c in subtree(b)} m_c xipos_c / sum m_c (xipos_b for a massless
// subtree); children have larger ids than parents, so one backward pass accumulates both sums
static void subtree_coms(const gdnModel* m, gdnData* d) {
    double* com = d->subtree_com;
    size_t mark = gdn_arena_mark(d);
    double* mass = gdn_arena_doubles(d, (size_t)m->nbody);
    if (!mass) {
        return;
    }
    for (int b = 0; b < m->nbody; b++) {
        gdn_zero3(com + 3 * b);
        mass[b] = 0;
    }
    for (int b = m->nbody - 1; b >= 0; b--) {
        gdn_addscl3(com + 3 * b, com + 3 * b, d->xipos + 3 * b, m->body_mass[b]);
        mass[b] += m->body_mass[b];
        if (b > 0) {
            int p = m->body_parentid[b];
            gdn_add3(com + 3 * p, com + 3 * p, com + 3 * b);
            mass[p] += mass[b];
        }
        if (mass[b] < GDN_MINVAL) {
            gdn_copy3(com + 3 * b, d->xipos + 3 * b);
        } else {
            gdn_scl3(com + 3 * b, com + 3 * b, 1 / mass[b]);
        }
    }
    gdn_arena_reset(d, mark);
}

void gdn_kinematics(const gdnModel* m, gdnData* d) {
    // world frame
    gdn_zero3(d->xpos);
    d->xquat[0] = 1;
    d->xquat[1] = d->xquat[2] = d->xquat[3] = 0;
    gdn_zero3(d->xipos);
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    copy9(d->xmat, identity);
    copy9(d->ximat, identity);

    body_frames(m, d);

    // inertial frames, then geoms and sites (which may copy an inertial frame)
    for (int b = 1; b < m->nbody; b++) {
        local_to_global(d, b, m->body_sameframe[b], m->body_ipos + 3 * b, m->body_iquat + 4 * b,
                        d->xipos + 3 * b, d->ximat + 9 * b);
    }
    for (int g = 0; g < m->ngeom; g++) {
        local_to_global(d, m->geom_bodyid[g], m->geom_sameframe[g], m->geom_pos + 3 * g,
                        m->geom_quat + 4 * g, d->geom_xpos + 3 * g, d->geom_xmat + 9 * g);
    }
    for (int s = 0; s < m->nsite; s++) {
        local_to_global(d, m->site_bodyid[s], m->site_sameframe[s], m->site_pos + 3 * s,
                        m->site_quat + 4 * s, d->site_xpos + 3 * s, d->site_xmat + 9 * s);
    }

    subtree_coms(m, d);
}
