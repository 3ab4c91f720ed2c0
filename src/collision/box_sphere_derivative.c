// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of sphere-box contacts (collision/box_sphere.c) with the clamped axes
// (center outside) or the nearest face (center inside) held.
#include <math.h>

#include "collision/box_derivative.h"
#include "collision/box_sphere.h"
#include "math/vec.h"

// In the box frame l = R' (c - b), dl = R' (dc - db - w x (c - b)). Outside: q = clamp(l),
// dq_i = dl_i on a free axis, +-ds_i on a clamped one; e = q - l, g = |e|, u = e / g,
// dg = u . de, du = (de - u dg) / g; dist = g - r, normal R u, local pos (q + l + r u) / 2.
// Inside (face k, direction a = -+e_k, depth delta = |+-s_k - l_k|): dist = -r, normal R a,
// local pos l + a (r - delta) / 2. World: d(R x) = w x (R x) + R dx, d pos = db + d(R pos_l).
int gdn_sphere_box_candidate(gdnBoxCand* cand, double margin, const double c[3],
                             const double dc[3], double r, double dr, const double b[3],
                             const double db[3], const double R[9], const double w[3],
                             const double s[3], const double ds[3]) {
    double rel[3], drel[3], l[3], dl[3], tmp[3];
    gdn_sub3(rel, c, b);
    gdn_sub3(drel, dc, db);
    gdn_cross3(tmp, w, rel);
    gdn_sub3(drel, drel, tmp);
    gdn_mulmat3T(l, R, rel);
    gdn_mulmat3T(dl, R, drel);

    // clamped point and its tangent
    double q[3], dq[3];
    int clamp[3];
    gdn_sphere_box_clamp(l, s, q, clamp);
    for (int i = 0; i < 3; i++) {
        dq[i] = clamp[i] ? clamp[i] * ds[i] : dl[i];
    }
    double u[3], de[3];
    gdn_sub3(u, q, l);
    gdn_sub3(de, dq, dl);
    double gap = gdn_normalize3(u);
    if (gap - r > margin) {
        return 0;
    }

    double pl[3], dpl[3], nl[3], dnl[3];
    cand->degenerate = 0;
    if (gap <= GDN_MINVAL) {
        // inside: the nearest face, first wins
        double closest;
        int face = gdn_sphere_box_face(l, s, &closest);
        int k = face / 2;
        double side = (face % 2 ? 1 : -1) * s[k] - l[k];
        double dside = (face % 2 ? 1 : -1) * ds[k] - dl[k];
        double dclosest = side < 0 ? -dside : dside;
        gdn_zero3(nl);
        gdn_zero3(dnl);
        nl[k] = face % 2 ? -1 : 1;
        for (int i = 0; i < 3; i++) {
            pl[i] = l[i] + nl[i] * ((r - closest) / 2);
            dpl[i] = dl[i] + nl[i] * ((dr - dclosest) / 2);
        }
        cand->feature = 1;
        cand->dist = gap - r;
        cand->t.dist = -dr;
    } else {
        // outside: midpoint of the clamped point and the sphere's deepest point
        double dgap = gdn_dot3(u, de);
        double du[3];
        for (int i = 0; i < 3; i++) {
            du[i] = (de[i] - u[i] * dgap) / gap;
        }
        for (int i = 0; i < 3; i++) {
            double deep = l[i] + u[i] * r;
            pl[i] = 0 + q[i] * 0.5;
            pl[i] += deep * 0.5;
            dpl[i] = 0.5 * dq[i] + 0.5 * (dl[i] + du[i] * r + u[i] * dr);
        }
        gdn_copy3(nl, u);
        gdn_copy3(dnl, du);
        cand->feature = 0;
        cand->dist = gap - r;
        cand->t.dist = dgap - dr;
    }

    // back to world
    double wp[3], dwp[3];
    gdn_mulmat3(wp, R, pl);
    gdn_add3(cand->pos, wp, b);
    gdn_cross3(dwp, w, wp);
    gdn_mulmat3(tmp, R, dpl);
    for (int i = 0; i < 3; i++) {
        cand->t.pos[i] = db[i] + dwp[i] + tmp[i];
    }
    gdn_mulmat3(cand->normal, R, nl);
    gdn_cross3(dwp, w, cand->normal);
    gdn_mulmat3(tmp, R, dnl);
    gdn_add3(cand->t.normal, dwp, tmp);
    gdn_zero3(cand->t.hint);
    return 1;
}

// sphere g1 (center p1 moving with body 1, radius size1[0]), box g2
gdnStatus gdn_sphere_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_sphere_box);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    const double* p1 = d->geom_xpos + 3 * g1;
    const double* p2 = d->geom_xpos + 3 * g2;
    double dp1[3], dp2[3];
    gdn_box_point_motion(dp1, dir->x1, p1);
    gdn_box_point_motion(dp2, dir->x2, p2);
    gdnBoxCand best = {.feature = -1}, cand = {.feature = -1};
    double best_score = 0;
    if (gdn_sphere_box_candidate(&cand, gdn_box_pair_margin(m, g1, g2), p1, dp1,
                                 m->geom_size[3 * g1], dir->ds1[0], p2, dp2,
                                 d->geom_xmat + 9 * g2, dir->x2, m->geom_size + 3 * g2,
                                 dir->ds2)) {
        gdn_box_keep_nearest(&best, &best_score, con, &cand);
    }
    return gdn_box_finish(&best, best_score, con, t, feature);
}
