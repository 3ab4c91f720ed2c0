// SPDX-License-Identifier: Apache-2.0
// The first-order motion of the world-origin dof axes (see jacobian_derivative.h).
#include "kinematics/jacobian_derivative.h"

#include "math/spatial.h"
#include "math/vec.h"

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
