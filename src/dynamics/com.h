// SPDX-License-Identifier: Apache-2.0
// Internal: the tree intermediates (dof motion axes, body inertias, body velocities) about a
// reference point per tree: MuJoCo's com frame, or the world origin of the derivatives.
#ifndef GDN_DYNAMICS_COM_H
#define GDN_DYNAMICS_COM_H

#include <string.h>

#include <gradyn/gradyn.h>

#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "math/vec.h"

// Frames (docs/conventions.md): a spatial quantity of body b (and of its dofs) is in world axes
// about a reference point, [angular; linear]. With com != 0 the point is subtree_com of b's
// tree root (body_rootid), MuJoCo's "com" frame of d->cdof, d->cinert, d->cvel, d->cdof_dot,
// d->cacc and d->cfrc_int; with com == 0 it is the world origin (the derivatives' frame,
// kinematics/kinematics_derivative.h). The axes of either frame: gdn_dof_axes_about
// (kinematics/jacobian.h). Everything needs kinematics. The passes are inline, so that each
// caller gets them specialized to its frame and outputs (they run on every step and every
// reverse step, where a call's fixed cost shows on small models).

// cinert (10 x nbody): each body's inertia about the reference point (world body zero),
//   I_b = R diag(inertia) R' - mass [c]x [c]x  with c = xipos - reference (gdn_cinert)
static inline void gdn_body_inertias_about(const gdnModel* m, const gdnData* d, int com,
                                           double* cinert) {
    for (int i = 0; i < 10; i++) {
        cinert[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double offset[3];
        gdn_sub3(offset, d->xipos + 3 * b, gdn_com_reference(m, d, com, b));
        gdn_cinert(cinert + 10 * b, m->body_inertia + 3 * b, d->ximat + 9 * b, offset,
                   m->body_mass[b]);
    }
}

// the position stage of the tree (MuJoCo's mj_comPos after the kinematics): d->cdof, d->cinert
void gdn_com_pos(const gdnModel* m, gdnData* d);

// the velocities in the frame of the axes S (6 x nv, either frame above):
//   cvel (6 x nbody): v_0 = 0, v_b = v_parent + sum_j S_j qvel_j over the body's dofs in order;
//   cdof_dot (6 x nv): cdof_dot_j = v_(before j) x S_j, with v_(before j) the velocity of the
//   frame the axis is fixed in (0 for the constant free translation axes; NULL = not wanted);
//   vpre (6 x nv, NULL = not wanted): that v_(before j).
// Per body, joint by joint: a free joint's translation first (constant axes), then every
// rotating or sliding group with the velocity before it
static inline void gdn_com_vel(const gdnModel* m, const gdnData* d, const double* S,
                               double* cvel, double* cdof_dot, double* vpre) {
    for (int i = 0; i < 6; i++) {
        cvel[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double* v = cvel + 6 * b;
        memcpy(v, cvel + 6 * m->body_parentid[b], 6 * sizeof(double));
        int dof0 = m->body_dofadr[b];
        int ndof = m->body_dofnum[b];
        for (int k = 0; k < ndof;) {
            int dof = dof0 + k;
            int type = m->jnt_type[m->dof_jntid[dof]];
            int nrot = 1;
            if (type == GDN_JNT_FREE) {
                for (int t = 0; t < 3; t++) {
                    if (cdof_dot) {
                        memset(cdof_dot + 6 * (dof + t), 0, 6 * sizeof(double));
                    }
                    if (vpre) {
                        memcpy(vpre + 6 * (dof + t), v, 6 * sizeof(double));
                    }
                }
                for (int t = 0; t < 3; t++) {
                    gdn_addscl6(v, v, S + 6 * (dof + t), d->qvel[dof + t]);
                }
                dof += 3;
                k += 3;
                nrot = 3;
            } else if (type == GDN_JNT_BALL) {
                nrot = 3;
            }
            // every axis of the group moves with the velocity before the group
            for (int t = 0; t < nrot; t++) {
                if (cdof_dot) {
                    gdn_cross_motion(cdof_dot + 6 * (dof + t), v, S + 6 * (dof + t));
                }
                if (vpre) {
                    memcpy(vpre + 6 * (dof + t), v, 6 * sizeof(double));
                }
            }
            for (int t = 0; t < nrot; t++) {
                gdn_addscl6(v, v, S + 6 * (dof + t), d->qvel[dof + t]);
            }
            k += nrot;
        }
    }
}

#endif
