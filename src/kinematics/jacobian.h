// SPDX-License-Identifier: Apache-2.0
// Internal helpers of the point Jacobian: one dof's column (the library's one definition of a
// dof's motion axis) and the dof chain of a body.
#ifndef GDN_KINEMATICS_JACOBIAN_H
#define GDN_KINEMATICS_JACOBIAN_H

#include <gradyn/gradyn.h>

#include "math/vec.h"

// the column of dof `dof` in the Jacobians of a world point p: jp = d(p)/d(qvel[dof]),
// jr = d(omega)/d(qvel[dof]), both world frame; needs kinematics (xanchor, xaxis, xmat).
//   hinge:  jr = axis,       jp = axis x (p - anchor)
//   slide:  jr = 0,          jp = axis
//   ball:   jr = xmat e_k,   jp = jr x (p - anchor)     (axes are the body frame's columns)
//   free:   k < 3: jr = 0, jp = e_k (world axes); k >= 3: as ball with k - 3
// (the core: dof k of joint jnt of type `type`, for callers that know them)
static inline void gdn_jnt_dof_column(const gdnModel* m, const gdnData* d, int jnt, int type,
                                      int k, const double point[3], double jp[3],
                                      double jr[3]) {
    const double* anchor = d->xanchor + 3 * jnt;
    double offset[3];

    if (type == GDN_JNT_SLIDE) {
        gdn_copy3(jp, d->xaxis + 3 * jnt);
        gdn_zero3(jr);
        return;
    }
    if (type == GDN_JNT_FREE && k < 3) {
        gdn_zero3(jp);
        jp[k] = 1;
        gdn_zero3(jr);
        return;
    }
    if (type == GDN_JNT_HINGE) {
        gdn_copy3(jr, d->xaxis + 3 * jnt);
    } else {
        // ball, or free rotation: column k of the body's world rotation
        const double* xmat = d->xmat + 9 * m->jnt_bodyid[jnt];
        int c = type == GDN_JNT_FREE ? k - 3 : k;
        jr[0] = xmat[c];
        jr[1] = xmat[3 + c];
        jr[2] = xmat[6 + c];
    }
    gdn_sub3(offset, point, anchor);
    gdn_cross3(jp, jr, offset);
}

static inline void gdn_jac_dof_column(const gdnModel* m, const gdnData* d, int dof,
                                      const double point[3], double jp[3], double jr[3]) {
    int jnt = m->dof_jntid[dof];
    gdn_jnt_dof_column(m, d, jnt, m->jnt_type[jnt], dof - m->jnt_dofadr[jnt], point, jp, jr);
}

// the motion axis of dof `dof` about the point p: S = [jr; jp] of gdn_jac_dof_column, i.e.
// [axis; axis x (p - anchor)] for a rotation, [0; axis] for a translation. With p =
// subtree_com of the tree's root it is MuJoCo's cdof (dynamics/com.h); with p = the world
// origin the world-origin axis of the derivatives (kinematics/jacobian_derivative.h)
static inline void gdn_dof_axis(const gdnModel* m, const gdnData* d, int dof,
                                const double point[3], double S[6]) {
    gdn_jac_dof_column(m, d, dof, point, S + 3, S);
}

// the same for dof k of joint jnt of type `type` (known to the caller)
static inline void gdn_jnt_dof_axis(const gdnModel* m, const gdnData* d, int jnt, int type,
                                    int k, const double point[3], double S[6]) {
    gdn_jnt_dof_column(m, d, jnt, type, k, point, S + 3, S);
}

static const double gdn_world_origin[3] = {0, 0, 0};

// the reference point of body b's spatial quantities (dynamics/com.h): subtree_com of its
// tree's root (com != 0, MuJoCo's com frame) or the world origin (com == 0)
static inline const double* gdn_com_reference(const gdnModel* m, const gdnData* d, int com,
                                              int b) {
    return com ? d->subtree_com + 3 * m->body_rootid[b] : gdn_world_origin;
}

// S (6 x nv): the motion axis of every dof about its body's reference point
static inline void gdn_dof_axes_about(const gdnModel* m, const gdnData* d, int com, double* S) {
    for (int i = 0; i < m->nv; i++) {
        gdn_dof_axis(m, d, i, gdn_com_reference(m, d, com, m->dof_bodyid[i]), S + 6 * i);
    }
}

// last dof moving body (the first body with dofs on the path to the world), -1 when the
// body is welded to the world; walk the chain with m->dof_parentid
int gdn_jac_last_dof(const gdnModel* m, int body);

#endif
