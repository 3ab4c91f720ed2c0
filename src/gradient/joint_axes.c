// SPDX-License-Identifier: Apache-2.0
// World-origin motion axes of the dofs and their first-order motion (see joint_axes.h).
#include "gradient/joint_axes.h"

#include "math/spatial.h"
#include "math/vec.h"

// rotation about unit axis a through point p, about the origin: [a; p x a]
static void rotation_axis(double s[6], const double a[3], const double p[3]) {
    s[0] = a[0];
    s[1] = a[1];
    s[2] = a[2];
    gdn_cross3(s + 3, p, a);
}

// hinge [axis; anchor x axis], slide [0; axis], free translation [0; e_k], ball and free
// rotation: the columns of the body's xmat about the anchor
void gdn_dof_axes(const gdnModel* m, const gdnData* d, double* S) {
    for (int j = 0; j < m->njnt; j++) {
        int b = m->jnt_bodyid[j];
        double* s = S + 6 * m->jnt_dofadr[j];
        const double* anchor = d->xanchor + 3 * j;
        const double* R = d->xmat + 9 * b;
        int nrot = 0;
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int k = 0; k < 3; k++) {
                double e[3] = {k == 0, k == 1, k == 2};
                gdn_dof_translation(s + 6 * k, e);
            }
            s += 18;
            nrot = 3;
            break;
        case GDN_JNT_BALL:
            nrot = 3;
            break;
        case GDN_JNT_SLIDE:
            gdn_dof_translation(s, d->xaxis + 3 * j);
            break;
        default:
            rotation_axis(s, d->xaxis + 3 * j, anchor);
            break;
        }
        for (int k = 0; k < nrot; k++) {
            double a[3] = {R[k], R[3 + k], R[6 + k]};
            rotation_axis(s + 6 * k, a, anchor);
        }
    }
}

void gdn_axis_motion(const gdnModel* m, const gdnData* d, int dof, const double S[6],
                     const double xpre[6], const double xbody[6], double dS[6]) {
    switch (gdn_dof_kind(m, dof)) {
    case GDN_AXIS_FIXED:
        for (int i = 0; i < 6; i++) {
            dS[i] = 0;
        }
        return;
    case GDN_AXIS_FRAME:
        gdn_cross_motion(dS, xpre, S);
        return;
    default:
        break;
    }
    // a' = w_b x a,  p' = w_pre x p + v_pre,  dS = [a'; p' x a + p x a']
    const double* p = d->xanchor + 3 * m->dof_jntid[dof];
    double dp[3], t1[3], t2[3];
    gdn_cross3(dS, xbody, S);
    gdn_cross3(dp, xpre, p);
    gdn_add3(dp, dp, xpre + 3);
    gdn_cross3(t1, dp, S);
    gdn_cross3(t2, p, dS);
    gdn_add3(dS + 3, t1, t2);
}

void gdn_axis_motion_adjoint(const gdnModel* m, const gdnData* d, int dof, const double S[6],
                             const double c[6], double xpre_bar[6], double xbody_bar[6]) {
    switch (gdn_dof_kind(m, dof)) {
    case GDN_AXIS_FIXED:
        return;
    case GDN_AXIS_FRAME: {
        // <c, x x S> = <S x* c, x>
        double t[6];
        gdn_cross_force(t, S, c);
        gdn_add6(xpre_bar, xpre_bar, t);
        return;
    }
    default:
        break;
    }
    // w_b:   a x c_ang + a x (c_lin x p);   w_pre: p x (a x c_lin);   v_pre: a x c_lin
    const double* p = d->xanchor + 3 * m->dof_jntid[dof];
    double axc[3], cxp[3], t[3];
    gdn_cross3(t, S, c);
    gdn_add3(xbody_bar, xbody_bar, t);
    gdn_cross3(cxp, c + 3, p);
    gdn_cross3(t, S, cxp);
    gdn_add3(xbody_bar, xbody_bar, t);
    gdn_cross3(axc, S, c + 3);
    gdn_cross3(t, p, axc);
    gdn_add3(xpre_bar, xpre_bar, t);
    gdn_add3(xpre_bar + 3, xpre_bar + 3, axc);
}
