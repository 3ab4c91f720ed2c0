// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of capsule-box contacts (collision/box_capsule.c): the closest feature
// (segment end on a face, or segment-edge pair with its clamps) and the second point's bound
// held, then sphere-box at the moving sphere center.
#include <math.h>

#include "collision/box_capsule.h"
#include "collision/box_derivative.h"
#include "math/vec.h"

// Box frame: capsule center p, half axis a = h axis (|axis| = 1, h the half length); the
// segment is p + t a, t in [-1, 1]. Every quantity below carries its tangent (prefix d) along
// one input direction: dp = R2' (dcp - db - w2 x (cp - b)), daxis = R2' ((w1 - w2) x axis_w),
// da = dh axis + h daxis, ds = dsize2.
typedef struct SegFrame {
    double p[3], dp[3], axis[3], daxis[3], a[3], da[3], s[3], ds[3], h, dh;
} SegFrame;

// the closest feature (the primal's ClosestFeature) with the tangents of t and of the edge
// position x
typedef struct Closest {
    double dist2, t, dt, x, dx;
    int type, face, corner, edge;
} Closest;

// The primal's closest feature (gdn_capsule_box_closest) with the tangents of t and x: a
// segment end has t = +-1 fixed (dt = 0). Edge j through corner c: with D = start - p,
// ma = s_j^2, mb = -s_j a_j, mc = h^2, u = -s_j D_j, v = a . D, det = ma mc - mb^2:
// x = (mc u - mb v) / det, t = (ma v - mb u) / det; a clamped x gives t = (v -+ mb) / mc, a
// clamped t gives x = (u -+ mb) / ma. Each formula's tangent by the quotient rule, on the
// clamps the primal took.
static void closest_feature(Closest* best, const SegFrame* f, double dist2_start) {
    gdnCapsuleClosest primal;
    gdn_capsule_box_closest(&primal, f->p, f->a, f->h, f->s, dist2_start);
    *best = (Closest){.dist2 = primal.dist2, .t = primal.segment_pos, .x = primal.edge_pos,
                      .type = primal.type, .face = primal.face, .corner = primal.corner,
                      .edge = primal.edge};
    if (primal.type < 0) {
        return;
    }
    const double* s = f->s;
    const double* ds = f->ds;
    const double* a = f->a;
    const double* da = f->da;
    int j = primal.edge, c = primal.corner & ~(1 << j);
    double start[3], dstart[3];
    for (int k = 0; k < 3; k++) {
        double sg = (c & (1 << k)) ? 1 : -1;
        start[k] = sg * s[k];
        dstart[k] = sg * ds[k];
    }
    start[j] = 0;
    dstart[j] = 0;
    double diff[3], ddiff[3];
    gdn_sub3(diff, start, f->p);
    gdn_sub3(ddiff, dstart, f->dp);

    double ma = s[j] * s[j], dma = 2 * s[j] * ds[j];
    double mb = -s[j] * a[j], dmb = -(ds[j] * a[j] + s[j] * da[j]);
    double mc = f->h * f->h, dmc = 2 * f->h * f->dh;
    double u = -s[j] * diff[j], du = -(ds[j] * diff[j] + s[j] * ddiff[j]);
    double v = gdn_dot3(a, diff), dv = gdn_dot3(da, diff) + gdn_dot3(a, ddiff);
    double det = ma * mc - mb * mb;
    double ddet = dma * mc + ma * dmc - 2 * mb * dmb;
    double x = best->x, t = best->t;
    if (primal.type % 3 == 1) {
        // t from the solve or from the clamped x
        if (primal.edge_clamp1 == 1) {
            best->dx = (dmc * u + mc * du - dmb * v - mb * dv - x * ddet) / det;
            best->dt = (dma * v + ma * dv - dmb * u - mb * du - t * ddet) / det;
        } else {
            best->dx = 0;
            best->dt = primal.edge_clamp1 == 2 ? (dv - dmb - t * dmc) / mc
                                               : (dv + dmb - t * dmc) / mc;
        }
    } else {
        // t clamped, x re-solved (and maybe clamped again)
        best->dt = 0;
        best->dx = primal.edge_clamp2 ? 0
                   : primal.type % 3 == 2 ? (du - dmb - x * dma) / ma
                                          : (du + dmb - x * dma) / ma;
    }
}

// a running minimum with its tangent
static void take_min(double* val, double* dval, double cand, double dcand) {
    if (cand < *val) {
        *val = cand;
        *dval = dcand;
    }
}

// span = k s_i / |a_i| (k s_i its numerator n with tangent dn): d span = (dn - span sgn(a_i)
// da_i) / |a_i|
static double span_tangent(double span, double dnum, double a, double da) {
    return (dnum - span * (a < 0 ? -1 : 1) * da) / fabs(a);
}

// second point at a box corner (the primal's second_at_corner) and its tangent
static double second_at_corner(const Closest* best, const SegFrame* f, int octant,
                               double* dsecond) {
    int relation = octant ^ best->corner;
    if (relation == 0 || relation == 7) {
        return -4;
    }
    double dir, toward, dtoward, away, daway;
    if (relation == 1 || relation == 2 || relation == 4) {
        dir = 1;
        toward = 1 - best->t;
        dtoward = -best->dt;
        away = 1 + best->t;
        daway = best->dt;
    } else {
        dir = -1;
        relation = 7 - relation;
        away = 1 - best->t;
        daway = -best->dt;
        toward = 1 + best->t;
        dtoward = best->dt;
    }
    int ax = relation == 1 ? 0 : (relation == 2 ? 1 : 2);
    int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
    const double* s = f->s;
    const double* a = f->a;
    double second, dsec;
    if (f->axis[ax] * f->axis[ax] > 0.5) {
        second = toward;
        dsec = dtoward;
        double span = 2 * s[ax] / fabs(a[ax]);
        take_min(&second, &dsec, span, span_tangent(span, 2 * f->ds[ax], a[ax], f->da[ax]));
        second *= dir;
        dsec *= dir;
    } else {
        second = away;
        dsec = daway;
        double span = 2 * s[ax1] / fabs(a[ax1]);
        take_min(&second, &dsec, span, span_tangent(span, 2 * f->ds[ax1], a[ax1], f->da[ax1]));
        span = 2 * s[ax2] / fabs(a[ax2]);
        take_min(&second, &dsec, span, span_tangent(span, 2 * f->ds[ax2], a[ax2], f->da[ax2]));
        second *= -dir;
        dsec *= -dir;
    }
    *dsecond = dsec;
    return second;
}

// second point along a box edge (the primal's second_at_edge) and its tangent
static double second_at_edge(const Closest* best, const SegFrame* f, int octant,
                             double* dsecond) {
    int relation = (octant ^ best->corner) & (7 - (1 << best->edge));
    if (relation != 1 && relation != 2 && relation != 4) {
        return -4;
    }
    int ax = best->edge;
    int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
    if (fabs(f->axis[ax1]) > fabs(f->axis[ax2])) {
        ax1 = ax2;
    }
    ax2 = 3 - ax - ax1;
    const double* s = f->s;
    const double* a = f->a;
    double dir, second, dsec;
    if (relation & (1 << ax2)) {
        dir = 1;
        second = 1 - best->t;
        dsec = -best->dt;
    } else {
        dir = -1;
        second = 1 + best->t;
        dsec = best->dt;
    }
    double span = 2 * s[ax2] / fabs(a[ax2]);
    take_min(&second, &dsec, span, span_tangent(span, 2 * f->ds[ax2], a[ax2], f->da[ax2]));
    double left, dleft;
    if (((octant & (1 << ax)) != 0) == ((relation & (1 << ax2)) != 0)) {
        left = 1 - best->x;
        dleft = -best->dx;
    } else {
        left = 1 + best->x;
        dleft = best->dx;
    }
    span = s[ax] * left / fabs(a[ax]);
    take_min(&second, &dsec,
             span, span_tangent(span, f->ds[ax] * left + s[ax] * dleft, a[ax], f->da[ax]));
    *dsecond = dsec * dir;
    return second * dir;
}

// second point from a segment end on a face (the primal's second_at_face): the first slab
// boundary leave = (+-s_k - start_k) / a_k dir, start = p - dir a
static double second_at_face(const Closest* best, const SegFrame* f, double* dsecond) {
    if (best->face == -1) {
        return -4;
    }
    double dir = best->type == -3 ? 1 : -1;
    double second = 2, dsec = 0;
    double start[3], dstart[3];
    for (int k = 0; k < 3; k++) {
        start[k] = f->p[k];
        start[k] += f->a[k] * -dir;
        dstart[k] = f->dp[k] - dir * f->da[k];
    }
    for (int k = 0; k < 3; k++) {
        if (k == best->face) {
            continue;
        }
        for (int sg = 1; sg >= -1; sg -= 2) {
            double num = sg * f->s[k] - start[k];
            double dnum = sg * f->ds[k] - dstart[k];
            double leave = num / f->a[k] * dir;
            double dleave = dir * (dnum - (num / f->a[k]) * f->da[k]) / f->a[k];
            if (leave > 0 && leave < second) {
                second = leave;
                dsec = dleave;
            }
        }
    }
    *dsecond = dsec * dir;
    return second * dir;
}

// capsule g1 (center cp, axis = its z axis, radius size1[0], half length size1[1]), box g2
gdnStatus gdn_capsule_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                               const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_capsule_box);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    const double* cp = d->geom_xpos + 3 * g1;
    const double* cR = d->geom_xmat + 9 * g1;
    const double* cs = m->geom_size + 3 * g1;
    const double* b = d->geom_xpos + 3 * g2;
    const double* R = d->geom_xmat + 9 * g2;
    const double* w1 = dir->x1;
    const double* w2 = dir->x2;
    double margin = gdn_box_pair_margin(m, g1, g2);

    // the segment in the box frame with tangents
    SegFrame f;
    double dcp[3], db[3], rel[3], drel[3], tmp[3];
    gdn_box_point_motion(dcp, dir->x1, cp);
    gdn_box_point_motion(db, dir->x2, b);
    gdn_sub3(rel, cp, b);
    gdn_sub3(drel, dcp, db);
    gdn_cross3(tmp, w2, rel);
    gdn_sub3(drel, drel, tmp);
    gdn_mulmat3T(f.p, R, rel);
    gdn_mulmat3T(f.dp, R, drel);
    double wa[3] = {cR[2], cR[5], cR[8]}, dwa[3], w12[3];
    gdn_sub3(w12, w1, w2);
    gdn_cross3(dwa, w12, wa);
    gdn_mulmat3T(f.axis, R, wa);
    gdn_mulmat3T(f.daxis, R, dwa);
    f.h = cs[1];
    f.dh = dir->ds1[1];
    gdn_scl3(f.a, f.axis, f.h);
    for (int k = 0; k < 3; k++) {
        f.da[k] = f.dh * f.axis[k] + f.h * f.daxis[k];
        f.s[k] = m->geom_size[3 * g2 + k];
        f.ds[k] = dir->ds2[k];
    }
    int octant = (f.a[0] > 0 ? 1 : 0) + (f.a[1] > 0 ? 2 : 0) + (f.a[2] > 0 ? 4 : 0);

    // closest feature, then the second point
    Closest best;
    closest_feature(&best, &f, margin + 2 * (cs[0] + f.h + f.s[0] + f.s[1] + f.s[2]));
    gdnBoxCand pick = {.feature = -1};
    double pick_score = 0;
    if (best.type == GDN_CAPSULE_NO_CLOSEST) {
        return gdn_box_finish(&pick, pick_score, con, t, feature);
    }
    double second = -4, dsecond = 0;
    if (best.type >= 0 && best.type / 3 != 1) {
        second = second_at_corner(&best, &f, octant, &dsecond);
    } else if (best.type >= 0) {
        second = second_at_edge(&best, &f, octant, &dsecond);
    } else {
        second = second_at_face(&best, &f, &dsecond);
    }

    // spheres at tau = t* and t* + second: center R (p + tau a) + b, with tangent
    // w2 x (R l) + R (dp + dtau a + tau da) + db
    for (int which = 0; which < 2; which++) {
        if (which == 1 && !(second > -3)) {
            break;
        }
        double tau = which ? second + best.t : best.t;
        double dtau = which ? dsecond + best.dt : best.dt;
        double l[3], dl[3], c[3], dc[3];
        for (int k = 0; k < 3; k++) {
            l[k] = f.p[k];
            l[k] += f.a[k] * tau;
            dl[k] = f.dp[k] + f.da[k] * tau + f.a[k] * dtau;
        }
        gdn_mulmat3(c, R, l);
        gdn_cross3(dc, w2, c);
        gdn_add3(c, c, b);
        gdn_mulmat3(tmp, R, dl);
        gdn_add3(dc, dc, tmp);
        gdn_add3(dc, dc, db);
        gdnBoxCand cand = {.feature = -1};
        if (gdn_sphere_box_candidate(&cand, margin, c, dc, cs[0], dir->ds1[0], b, db, R, w2,
                                     f.s, f.ds)) {
            cand.feature += 10 * (best.type + 3) + 500 * which;
            gdn_box_keep_nearest(&pick, &pick_score, con, &cand);
        }
    }
    return gdn_box_finish(&pick, pick_score, con, t, feature);
}
