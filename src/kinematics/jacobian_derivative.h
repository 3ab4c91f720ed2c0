// SPDX-License-Identifier: Apache-2.0
// Internal: the world-origin motion axes of the dofs (velocity and position conventions) and
// how they move to first order when the bodies move (the tangent of gdn_dof_axis).
#ifndef GDN_KINEMATICS_JACOBIAN_DERIVATIVE_H
#define GDN_KINEMATICS_JACOBIAN_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Frames: world axes about the world origin, [angular; linear] (as kinematics_derivative.h).
//
// S_j: MuJoCo's cdof_j moved to the origin (gdn_dof_axes_about(m, d, 0, S), jacobian.h). It is both
//     the velocity axis (V_b = sum over the path of S_j v_j) and the position axis: under qpos (+)
//     dq (gdn_integrate_pos) the frame after joint j moves by the twist S_j dq_j. (Both agree
//     because the loader, like MuJoCo, rejects a rotating joint after a ball in the same body: a
//     ball's local axes are the body's xmat columns.)
//
// Dof groups: a hinge, a slide, a ball, the translation half and the rotation half of a free
// joint. "pre" is the frame just before a group (the parent body's frame plus the groups of
// the same body before it); each axis is attached as follows:
//   GDN_AXIS_FIXED  free translation: constant world axes (dS = 0)
//   GDN_AXIS_FRAME  hinge, slide: axis and anchor fixed in pre (dS = xi_pre x S)
//   GDN_AXIS_BALL   ball, free rotation: directions a fixed in the body (after all its joints),
//                   anchor p = xanchor fixed in pre:
//                   dS = [w_b x a; (w_pre x p + v_pre) x a + p x (w_b x a)]
enum { GDN_AXIS_FIXED = 0, GDN_AXIS_FRAME = 1, GDN_AXIS_BALL = 2 };

static inline int gdn_dof_kind(const gdnModel* m, int dof) {
    int j = m->dof_jntid[dof];
    int type = m->jnt_type[j];
    if (type == GDN_JNT_FREE) {
        return dof - m->jnt_dofadr[j] < 3 ? GDN_AXIS_FIXED : GDN_AXIS_BALL;
    }
    return type == GDN_JNT_BALL ? GDN_AXIS_BALL : GDN_AXIS_FRAME;
}

// number of dofs in the group that starts at dof (0 if no group starts there)
static inline int gdn_dof_group_size(const gdnModel* m, int dof) {
    int j = m->dof_jntid[dof];
    int k = dof - m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
    case GDN_JNT_FREE:
        return k == 0 || k == 3 ? 3 : 0;
    case GDN_JNT_BALL:
        return k == 0 ? 3 : 0;
    default:
        return 1;
    }
}

// dS = first-order motion of axis S (of dof) when the frame before its group moves by xpre and
// its body by xbody (twists)
void gdn_axis_motion(const gdnModel* m, const gdnData* d, int dof, const double S[6],
                     const double xpre[6], const double xbody[6], double dS[6]);

// adjoint of gdn_axis_motion: xpre_bar += (d dS/d xpre)' c, xbody_bar += (d dS/d xbody)' c
void gdn_axis_motion_adjoint(const gdnModel* m, const gdnData* d, int dof, const double S[6],
                             const double c[6], double xpre_bar[6], double xbody_bar[6]);

#endif
