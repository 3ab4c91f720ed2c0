// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of plane-box contacts (collision/box_plane.c) with the corner held.
#include "collision/box_derivative.h"
#include "collision/box_plane.h"
#include "math/vec.h"

// Plane g1 (normal n = its z axis, origin p1), box g2 (p2, R2, size s). Corner k: L = +-s
// (bit i: +s_i), c = R2 L; h = n . (p2 - p1), dist = h + n . c, pos = p2 + c - n dist / 2.
// Tangents: dn = w1 x n, dc = w2 x c + R2 dL, dh = n . (dp2 - dp1) + dn . (p2 - p1),
//   d dist = dh + dn . c + n . dc,  d pos = dp2 + dc - (dn dist + n d dist) / 2.
// The corner is the one of the primal's (gdn_plane_box_corners) whose (pos, dist) matches con.
gdnStatus gdn_plane_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                             const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_plane_box);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    const double* p1 = d->geom_xpos + 3 * g1;
    const double* R1 = d->geom_xmat + 9 * g1;
    const double* p2 = d->geom_xpos + 3 * g2;
    const double* R2 = d->geom_xmat + 9 * g2;
    const double* s = m->geom_size + 3 * g2;
    const double* w1 = dir->x1;
    const double* w2 = dir->x2;
    double margin = gdn_box_pair_margin(m, g1, g2);

    // plane normal, box center height and their tangents
    double n[3] = {R1[2], R1[5], R1[8]}, dn[3];
    gdn_cross3(dn, w1, n);
    double dp1[3], dp2[3], off[3], doff[3];
    gdn_box_point_motion(dp1, dir->x1, p1);
    gdn_box_point_motion(dp2, dir->x2, p2);
    gdn_sub3(off, p2, p1);
    gdn_sub3(doff, dp2, dp1);
    double h = gdn_dot3(off, n);
    double dh = gdn_dot3(doff, n) + gdn_dot3(off, dn);

    gdnBoxCand best = {.feature = -1};
    double best_score = 0;
    int ids[4];
    double corners[4][3], heights[4];
    int ncon = gdn_plane_box_corners(n, h, R2, s, margin, ids, corners, heights);
    for (int j = 0; j < ncon; j++) {
        // the primal's corner c = R2 L, dc = w2 x c + R2 dL
        int k = ids[j];
        double dL[3];
        for (int i = 0; i < 3; i++) {
            double sg = (k & (1 << i)) ? 1 : -1;
            dL[i] = sg * dir->ds2[i];
        }
        const double* c = corners[j];
        double ch = heights[j];
        double dc[3], tmp[3];
        gdn_cross3(dc, w2, c);
        gdn_mulmat3(tmp, R2, dL);
        gdn_add3(dc, dc, tmp);

        // dist, pos and their tangents
        gdnBoxCand cand = {.feature = k};
        cand.dist = h + ch;
        cand.t.dist = dh + gdn_dot3(dn, c) + gdn_dot3(n, dc);
        double half_back[3];
        gdn_add3(tmp, c, p2);
        gdn_scl3(half_back, n, -cand.dist / 2);
        gdn_add3(cand.pos, tmp, half_back);
        for (int i = 0; i < 3; i++) {
            cand.t.pos[i] = dp2[i] + dc[i] - (dn[i] * cand.dist + n[i] * cand.t.dist) / 2;
        }
        gdn_copy3(cand.normal, n);
        gdn_copy3(cand.t.normal, dn);
        gdn_box_keep_nearest(&best, &best_score, con, &cand);
    }
    return gdn_box_finish(&best, best_score, con, t, feature);
}
