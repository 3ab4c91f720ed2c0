// SPDX-License-Identifier: Apache-2.0
// Forward kinematics: body, inertial, geom and site frames, joint anchors/axes, subtree COMs.
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "kinematics/kinematics.h"
#include "kinematics/tendon.h"
#include "model/validate.h"
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

static inline void copy9(double r[9], const double a[9]) {
    memcpy(r, a, 9 * sizeof(double));
}

// poses of n frames attached to bodies at (pos, quat) in body coordinates:
//   xpos = xpos_b + xmat_b pos,  xmat = R(xquat_b * quat)
// frame i belongs to body bodyid[i] (bodyid NULL: body first_body + i). sameframe
// (gdnSameFrame) skips what is known: the body frame itself, its inertial frame (already
// computed, the same doubles), or the body's orientation (quat = identity)
static void attached_frames(const gdnData* d, int n, const int* bodyid, int first_body,
                            const int* sameframe, const double* pos, const double* quat,
                            double* xpos, double* xmat) {
    for (int i = 0; i < n; i++) {
        int b = bodyid ? bodyid[i] : first_body + i;
        int sf = sameframe[i];
        double* fpos = xpos + 3 * i;
        double* fmat = xmat + 9 * i;
        if (sf == GDN_SAMEFRAME_BODY) {
            gdn_copy3(fpos, d->xpos + 3 * b);
            copy9(fmat, d->xmat + 9 * b);
            continue;
        }
        if (sf == GDN_SAMEFRAME_INERTIA) {
            gdn_copy3(fpos, d->xipos + 3 * b);
            copy9(fmat, d->ximat + 9 * b);
            continue;
        }
        double v[3];
        gdn_mulmat3(v, d->xmat + 9 * b, pos + 3 * i);
        gdn_add3(fpos, d->xpos + 3 * b, v);
        if (sf == GDN_SAMEFRAME_BODYROT) {
            copy9(fmat, d->xmat + 9 * b);
        } else {
            double q[4];
            gdn_mulquat(q, d->xquat + 4 * b, quat + 4 * i);
            gdn_quat2mat(fmat, q);
        }
    }
}

// Body frames, parent before child. A body with a single free joint takes its pose from qpos.
// Otherwise (pos, quat) = parent * (body_pos, body_quat), then for each joint in order:
//   xaxis = R(quat) jnt_axis, xanchor = pos + R(quat) jnt_pos
//   slide: pos += xaxis (q - q0)
//   hinge: quat = quat * rot(jnt_axis, q - q0); ball: quat = quat * q_ball
//          then pos moves so that the anchor stays fixed: pos += (xanchor - pos) - R(quat) jnt_pos
//          (with jnt_pos = 0: xanchor = pos and pos does not move)
// The quaternions in qpos are normalized in place first (as MuJoCo's mj_normalizeQuat; here
// each one just before its joint reads it: every joint belongs to exactly one body). A mocap
// body (a fixed child of the world) takes d->mocap_pos, mocap_quat for body_pos, body_quat.
static void body_frames(const gdnModel* m, gdnData* d) {
    double* qpos = d->qpos;
    const int* jnt_type = m->jnt_type;
    const int* jnt_qposadr = m->jnt_qposadr;
    // the mocap orientations are normalized in place too (MuJoCo's mj_kinematics)
    for (int i = 0; i < m->nmocap; i++) {
        gdn_normalize4(d->mocap_quat + 4 * i);
    }
    for (int b = 1; b < m->nbody; b++) {
        double pos[3], quat[4];
        int jnt0 = m->body_jntadr[b];
        int jnt_end = jnt0 + m->body_jntnum[b];
        if (jnt_end == jnt0 + 1 && jnt_type[jnt0] == GDN_JNT_FREE) {
            double* q = qpos + jnt_qposadr[jnt0];
            gdn_normalize4(q + 3);
            gdn_copy3(pos, q);
            gdn_copy4(quat, q + 3);
            gdn_copy3(d->xanchor + 3 * jnt0, pos);
            double* xaxis = d->xaxis + 3 * jnt0;
            xaxis[0] = xaxis[1] = 0;
            xaxis[2] = 1;
        } else {
            // a mocap body's frame relative to its parent (the world) is the data's pose
            const int p = m->body_parentid[b], mocap = m->body_mocapid[b];
            const double* bpos = mocap >= 0 ? d->mocap_pos + 3 * mocap : m->body_pos + 3 * b;
            double v[3];
            gdn_mulmat3(v, d->xmat + 9 * p, bpos);
            gdn_add3(pos, d->xpos + 3 * p, v);
            const double* bquat = mocap >= 0 ? d->mocap_quat + 4 * mocap : m->body_quat + 4 * b;
            if (gdn_is_identity_quat(bquat)) {
                gdn_copy4(quat, d->xquat + 4 * p);
            } else {
                gdn_mulquat(quat, d->xquat + 4 * p, bquat);
            }
            for (int j = jnt0; j < jnt_end; j++) {
                int qadr = jnt_qposadr[j];
                int type = jnt_type[j];
                const double* jpos = m->jnt_pos + 3 * j;
                const double* axis = m->jnt_axis + 3 * j;
                double* xaxis = d->xaxis + 3 * j;
                double* xanchor = d->xanchor + 3 * j;
                int anchored = !gdn_is_zero3(jpos);
                rotate_by_quat(xaxis, axis, quat);
                if (anchored) {
                    rotate_by_quat(v, jpos, quat);
                    gdn_add3(xanchor, v, pos);
                } else {
                    gdn_copy3(xanchor, pos);
                }
                if (type == GDN_JNT_SLIDE) {
                    gdn_addscl3(pos, pos, xaxis, qpos[qadr] - m->qpos0[qadr]);
                    continue;
                }
                double qloc[4];
                if (type == GDN_JNT_BALL) {
                    gdn_normalize4(qpos + qadr);
                    gdn_copy4(qloc, qpos + qadr);
                } else {
                    gdn_axisangle2quat(qloc, axis, qpos[qadr] - m->qpos0[qadr]);
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
        // no scratch (counted by the arena): NaN, never the previous state's COMs
        for (int i = 0; i < 3 * m->nbody; i++) {
            com[i] = NAN;
        }
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

void gdn_kinematics_bodies(const gdnModel* m, gdnData* d) {
    d->kinematics_epoch_++; // a derivative pass's cached tendon linearizations are stale
    // world frame
    gdn_zero3(d->xpos);
    d->xquat[0] = 1;
    d->xquat[1] = d->xquat[2] = d->xquat[3] = 0;
    gdn_zero3(d->xipos);
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    copy9(d->xmat, identity);
    copy9(d->ximat, identity);

    body_frames(m, d);

    // inertial frames of bodies 1..nbody-1
    attached_frames(d, m->nbody - 1, NULL, 1, m->body_sameframe + 1, m->body_ipos + 3,
                    m->body_iquat + 4, d->xipos + 3, d->ximat + 9);

    subtree_coms(m, d);
}

// a NULL argument or data created for a model of other sizes: nothing happens
void gdn_kinematics(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) == GDN_OK) {
        gdn_kinematics_stage(m, d);
    }
}

void gdn_kinematics_geoms(const gdnModel* m, gdnData* d) {
    attached_frames(d, m->ngeom, m->geom_bodyid, 0, m->geom_sameframe, m->geom_pos,
                    m->geom_quat, d->geom_xpos, d->geom_xmat);
}

void gdn_kinematics_stage(const gdnModel* m, gdnData* d) {
    gdn_kinematics_bodies(m, d);

    // geoms and sites (after the inertial frames: they may copy one)
    gdn_kinematics_geoms(m, d);
    attached_frames(d, m->nsite, m->site_bodyid, 0, m->site_sameframe, m->site_pos,
                    m->site_quat, d->site_xpos, d->site_xmat);

    // tendons (after the site frames a spatial path reads)
    gdn_tendon(m, d);
}
