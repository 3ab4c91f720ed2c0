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
static void closest_feature(Closest* best, gdnCapsuleClosest* primal, const SegFrame* f,
                            double dist2_start) {
    gdn_capsule_box_closest(primal, f->p, f->a, f->h, f->s, dist2_start);
    *best = (Closest){.dist2 = primal->dist2, .t = primal->segment_pos, .x = primal->edge_pos,
                      .type = primal->type, .face = primal->face, .corner = primal->corner,
                      .edge = primal->edge};
    if (primal->type < 0) {
        return;
    }
    const double* s = f->s;
    const double* ds = f->ds;
    const double* a = f->a;
    const double* da = f->da;
    int j = primal->edge, c = primal->corner & ~(1 << j);
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
    if (primal->type % 3 == 1) {
        // t from the solve or from the clamped x
        if (primal->edge_clamp1 == 1) {
            best->dx = (dmc * u + mc * du - dmb * v - mb * dv - x * ddet) / det;
            best->dt = (dma * v + ma * dv - dmb * u - mb * du - t * ddet) / det;
        } else {
            best->dx = 0;
            best->dt = primal->edge_clamp1 == 2 ? (dv - dmb - t * dmc) / mc
                                               : (dv + dmb - t * dmc) / mc;
        }
    } else {
        // t clamped, x re-solved (and maybe clamped again)
        best->dt = 0;
        best->dx = primal->edge_clamp2 ? 0
                   : primal->type % 3 == 2 ? (du - dmb - x * dma) / ma
                                          : (du + dmb - x * dma) / ma;
    }
}

// span = k s_i / |a_i| (k s_i its numerator n with tangent dn): d span = (dn - span sgn(a_i)
// da_i) / |a_i|
static double span_tangent(double span, double dnum, double a, double da) {
    return (dnum - span * (a < 0 ? -1 : 1) * da) / fabs(a);
}

// the tangent of the primal's second point (gdn_capsule_box_second), of the bound that won:
// END d(1 +- t) = +-dt; SPAN, EDGE by span_tangent (EDGE's numerator s_i (1 +- x) with tangent
// ds_i (1 +- x) +- s_i dx); LEAVE leave = (+-s_k - start_k) / a_k dir with start = p - dir a:
// d leave = dir (dnum - (num / a_k) da_k) / a_k; FIXED 0
static double second_tangent(const gdnCapsuleSecond* sec, const Closest* best,
                             const SegFrame* f) {
    int k = sec->axis;
    double db = 0;
    switch (sec->bound) {
    case GDN_CAPSULE_BOUND_END:
        db = sec->end_sign * best->dt;
        break;
    case GDN_CAPSULE_BOUND_SPAN:
        db = span_tangent(sec->bound_value, 2 * f->ds[k], f->a[k], f->da[k]);
        break;
    case GDN_CAPSULE_BOUND_EDGE: {
        double left = 1 + sec->left_sign * best->x, dleft = sec->left_sign * best->dx;
        db = span_tangent(sec->bound_value, f->ds[k] * left + f->s[k] * dleft, f->a[k],
                          f->da[k]);
        break;
    }
    case GDN_CAPSULE_BOUND_LEAVE: {
        double dir = sec->sign;
        double start = f->p[k];
        start += f->a[k] * -dir;
        double dstart = f->dp[k] - dir * f->da[k];
        double num = sec->side * f->s[k] - start;
        double dnum = sec->side * f->ds[k] - dstart;
        db = dir * (dnum - (num / f->a[k]) * f->da[k]) / f->a[k];
        break;
    }
    default:
        break;
    }
    return db * sec->sign;
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
    gdnCapsuleClosest primal;
    closest_feature(&best, &primal, &f, margin + 2 * (cs[0] + f.h + f.s[0] + f.s[1] + f.s[2]));
    gdnBoxCand pick = {.feature = -1};
    double pick_score = 0;
    if (best.type == GDN_CAPSULE_NO_CLOSEST) {
        return gdn_box_finish(&pick, pick_score, con, t, feature);
    }
    gdnCapsuleSecond sec;
    gdn_capsule_box_second(&primal, f.p, f.axis, f.a, f.s, octant, &sec);
    double second = sec.second, dsecond = second_tangent(&sec, &best, &f);

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
