// SPDX-License-Identifier: Apache-2.0
// Tendon wrapping around spheres and cylinders (MuJoCo 2.2.2's mju_wrap, wrap_circle,
// wrap_inside semantics; see tendon_wrap.h).
#include "kinematics/tendon_wrap.h"

#include <math.h>
#include <stddef.h>

#include "math/vec.h"

static const double kPi = 3.14159265358979323846;

// 2D normalize as MuJoCo's mju_normalize: below GDN_MINVAL the vector becomes (1, 0)
static double normalize2(double v[2]) {
    const double n = sqrt(v[0] * v[0] + v[1] * v[1]);
    if (n < GDN_MINVAL) {
        v[0] = 1;
        v[1] = 0;
    } else {
        const double s = 1 / n;
        v[0] *= s;
        v[1] *= s;
    }
    return n;
}

// 1 when the 2D segments p1-p2 and p3-p4 intersect (both line parameters in [0, 1]; parallel
// segments, |det| < GDN_MINVAL, do not)
static int segments_intersect(const double* p1, const double* p2, const double* p3,
                              const double* p4) {
    const double det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
    if (fabs(det) < GDN_MINVAL) {
        return 0;
    }
    const double a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
    const double b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
    return a >= 0 && a <= 1 && b >= 0 && b <= 1;
}

// the arc length rad * angle from p0 to p1; the angle in [0, pi] flipped to 2 pi - angle when
// the turn's sense disagrees with the solution's (ind)
static double arc_length(const double* p0, const double* p1, int ind, double rad, int* flip) {
    double a[2] = {p0[0], p0[1]}, b[2] = {p1[0], p1[1]};
    normalize2(a);
    normalize2(b);
    double angle = acos(a[0] * b[0] + a[1] * b[1]);
    const double cross = p0[1] * p1[0] - p0[0] * p1[1];
    *flip = (cross > 0 && ind) || (cross < 0 && !ind);
    if (*flip) {
        angle = 2 * kPi - angle;
    }
    return rad * angle;
}

// the 2D circle wrap of d = (x0, x1) around the circle of radius rad at the origin, side point
// sd (or NULL): tangent points into pnt (4), the arc length, or -1 for no wrap
static double wrap_circle(double pnt[4], const double d[4], const double* sd, double rad,
                          int* sol_out, int* flip) {
    const double sqlen0 = d[0] * d[0] + d[1] * d[1];
    const double sqlen1 = d[2] * d[2] + d[3] * d[3];
    const double sqrad = rad * rad;
    const double dif[2] = {d[2] - d[0], d[3] - d[1]};
    // an end inside the circle, or no circle
    if (sqlen0 < sqrad || sqlen1 < sqrad || rad < GDN_MINVAL) {
        return -1;
    }
    const double dd = dif[0] * dif[0] + dif[1] * dif[1];
    if (dd < GDN_MINVAL) {
        return -1;
    }
    // the segment's point nearest the origin: it clears the circle (on the side point's side)
    double a = -(dif[0] * d[0] + dif[1] * d[1]) / dd;
    a = a < 0 ? 0 : (a > 1 ? 1 : a);
    double tmp[2] = {a * dif[0] + d[0], a * dif[1] + d[1]};
    if (tmp[0] * tmp[0] + tmp[1] * tmp[1] > sqrad &&
        (!sd || sd[0] * tmp[0] + sd[1] * tmp[1] >= 0)) {
        return -1;
    }
    // the two tangent pairs, scored by the side point or by the chord
    double sol[2][2][2], good[2];
    for (int i = 0; i < 2; i++) {
        const double sqrt0 = sqrt(sqlen0 - sqrad), sqrt1 = sqrt(sqlen1 - sqrad);
        const double sgn = i == 0 ? 1 : -1;
        sol[i][0][0] = (d[0] * sqrad + sgn * rad * d[1] * sqrt0) / sqlen0;
        sol[i][0][1] = (d[1] * sqrad - sgn * rad * d[0] * sqrt0) / sqlen0;
        sol[i][1][0] = (d[2] * sqrad - sgn * rad * d[3] * sqrt1) / sqlen1;
        sol[i][1][1] = (d[3] * sqrad + sgn * rad * d[2] * sqrt1) / sqlen1;
        if (sd) {
            tmp[0] = sol[i][0][0] + sol[i][1][0];
            tmp[1] = sol[i][0][1] + sol[i][1][1];
            normalize2(tmp);
            good[i] = tmp[0] * sd[0] + tmp[1] * sd[1];
        } else {
            tmp[0] = sol[i][0][0] - sol[i][1][0];
            tmp[1] = sol[i][0][1] - sol[i][1][1];
            good[i] = -(tmp[0] * tmp[0] + tmp[1] * tmp[1]);
        }
        if (segments_intersect(d, sol[i][0], d + 2, sol[i][1])) {
            good[i] = -10000;
        }
    }
    const int i = good[0] > good[1] ? 0 : 1;
    pnt[0] = sol[i][0][0];
    pnt[1] = sol[i][0][1];
    pnt[2] = sol[i][1][0];
    pnt[3] = sol[i][1][1];
    if (segments_intersect(d, pnt, d + 2, pnt + 2)) {
        return -1;
    }
    *sol_out = i;
    return arc_length(sol[i][0], sol[i][1], i, rad, flip);
}

// the 2D inside wrap (side point inside the circle): one point of the circle into pnt (both
// halves), 0, or -1 for no wrap; Newton on f(z) = asin(A z) + asin(B z) - 2 asin(z) + G
// stopped at |f| <= tolerance (MuJoCo's GDN_WRAP_INSIDE_TOL). *solved = 1 and *zout = z when
// the point is that root's (else the fallback: the ends' mean direction on the circle)
static double wrap_inside(double pnt[4], const double d[4], double rad, double tolerance,
                          int* solved, double* zout) {
    const int maxiter = 20;
    const double zinit = 1 - 1e-7;
    *solved = 0;
    *zout = 0;
    const double len0 = sqrt(d[0] * d[0] + d[1] * d[1]);
    const double len1 = sqrt(d[2] * d[2] + d[3] * d[3]);
    const double dif[2] = {d[2] - d[0], d[3] - d[1]};
    const double dd = dif[0] * dif[0] + dif[1] * dif[1];
    if (len0 <= rad || len1 <= rad || rad < GDN_MINVAL || len0 < GDN_MINVAL ||
        len1 < GDN_MINVAL) {
        return -1;
    }
    // the segment crosses the circle: no wrap
    if (dd > GDN_MINVAL) {
        const double a = -(dif[0] * d[0] + dif[1] * d[1]) / dd;
        if (a > 0 && a < 1) {
            const double t[2] = {d[0] + a * dif[0], d[1] + a * dif[1]};
            if (sqrt(t[0] * t[0] + t[1] * t[1]) <= rad) {
                return -1;
            }
        }
    }
    // the fallback: the ends' mean direction on the circle
    pnt[0] = 0.5 * (d[0] + d[2]);
    pnt[1] = 0.5 * (d[1] + d[3]);
    normalize2(pnt);
    pnt[0] *= rad;
    pnt[1] *= rad;
    pnt[2] = pnt[0];
    pnt[3] = pnt[1];
    const double A = rad / len0, B = rad / len1;
    const double cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1);
    if (cosG < -1 + GDN_MINVAL) {
        return -1;
    } else if (cosG > 1 - GDN_MINVAL) {
        return 0;
    }
    const double G = acos(cosG);
    double z = zinit;
    double f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
    if (f > 0) {
        return 0;
    }
    int iter;
    for (iter = 0; iter < maxiter && fabs(f) > tolerance; iter++) {
        const double df = A / fmax(GDN_MINVAL, sqrt(1 - z * z * A * A)) +
                          B / fmax(GDN_MINVAL, sqrt(1 - z * z * B * B)) -
                          2 / fmax(GDN_MINVAL, sqrt(1 - z * z));
        if (df > -GDN_MINVAL) {
            return 0;
        }
        const double z1 = z - f / df;
        if (z1 > z) {
            return 0;
        }
        z = z1;
        f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
        if (f > tolerance) {
            return 0;
        }
    }
    if (iter >= maxiter) {
        return 0;
    }
    // rotate the end on the positive side by ang onto the circle
    double vec[2], ang;
    if (d[0] * d[3] - d[1] * d[2] > 0) {
        vec[0] = d[0];
        vec[1] = d[1];
        ang = asin(z) - asin(A * z);
    } else {
        vec[0] = d[2];
        vec[1] = d[3];
        ang = asin(z) - asin(B * z);
    }
    normalize2(vec);
    pnt[0] = rad * (cos(ang) * vec[0] - sin(ang) * vec[1]);
    pnt[1] = rad * (sin(ang) * vec[0] + cos(ang) * vec[1]);
    pnt[2] = pnt[0];
    pnt[3] = pnt[1];
    *solved = 1;
    *zout = z;
    return 0;
}

double gdn_tendon_wrap(double wpnt[6], const double x0[3], const double x1[3],
                       const double xpos[3], const double xmat[9], double rad, int cylinder,
                       const double* side, gdnWrapInfo* info) {
    return gdn_tendon_wrap_tol(wpnt, x0, x1, xpos, xmat, rad, cylinder, side,
                               GDN_WRAP_INSIDE_TOL, info);
}

double gdn_tendon_wrap_tol(double wpnt[6], const double x0[3], const double x1[3],
                           const double xpos[3], const double xmat[9], double rad, int cylinder,
                           const double* side, double inside_tol, gdnWrapInfo* info) {
    double tmp[3], p[2][3], normal[3], axis[2][3];
    gdnWrapInfo own;
    if (!info) {
        info = &own;
    }
    info->inside = info->sol = info->flip = info->parallel = info->solved = 0;
    info->z = 0;
    gdn_sub3(tmp, x0, xpos);
    gdn_mulmat3T(p[0], xmat, tmp);
    gdn_sub3(tmp, x1, xpos);
    gdn_mulmat3T(p[1], xmat, tmp);
    if (gdn_norm3(p[0]) < GDN_MINVAL || gdn_norm3(p[1]) < GDN_MINVAL) {
        return -1;
    }
    if (!cylinder) {
        // the plane through the centre and both ends: axis 0 along p0, the normal p0 x p1
        gdn_copy3(axis[0], p[0]);
        gdn_normalize3(axis[0]);
        gdn_cross3(normal, p[0], p[1]);
        if (gdn_normalize3(normal) < GDN_MINVAL) {
            info->parallel = 1;
            // p0, p1 parallel: a normal from the axis and (1, 1, 1) without its largest entry
            int i = 0;
            if (fabs(axis[0][1]) > fabs(axis[0][0]) && fabs(axis[0][1]) > fabs(axis[0][2])) {
                i = 1;
            }
            if (fabs(axis[0][2]) > fabs(axis[0][0]) && fabs(axis[0][2]) > fabs(axis[0][1])) {
                i = 2;
            }
            axis[1][0] = axis[1][1] = axis[1][2] = 1;
            axis[1][i] = 0;
            gdn_cross3(normal, axis[0], axis[1]);
            gdn_normalize3(normal);
        }
        gdn_cross3(axis[1], normal, axis[0]);
        gdn_normalize3(axis[1]);
    } else {
        // the cross-section: x, y of the geom frame
        axis[0][0] = 1;
        axis[0][1] = axis[0][2] = 0;
        axis[1][1] = 1;
        axis[1][0] = axis[1][2] = 0;
    }
    double d[4] = {gdn_dot3(p[0], axis[0]), gdn_dot3(p[0], axis[1]), gdn_dot3(p[1], axis[0]),
                   gdn_dot3(p[1], axis[1])};
    double sd[2] = {0, 0}, pnt[4] = {0, 0, 0, 0};
    if (side) {
        // the side point in the same 2D frame, on the circle when outside it, else 0
        double s[3];
        gdn_sub3(tmp, side, xpos);
        gdn_mulmat3T(s, xmat, tmp);
        sd[0] = gdn_dot3(s, axis[0]);
        sd[1] = gdn_dot3(s, axis[1]);
        if (sqrt(sd[0] * sd[0] + sd[1] * sd[1]) >= rad) {
            normalize2(sd);
            sd[0] *= rad;
            sd[1] *= rad;
        } else {
            sd[0] = sd[1] = 0;
        }
    }
    info->inside = side && sd[0] == 0 && sd[1] == 0;
    double wlen = info->inside
                      ? wrap_inside(pnt, d, rad, inside_tol, &info->solved, &info->z)
                      : wrap_circle(pnt, d, side ? sd : NULL, rad, &info->sol, &info->flip);
    if (wlen < 0) {
        return -1;
    }
    // the tangent points in the geom frame: axis0 d0 + axis1 d1
    double res[6];
    for (int i = 0; i < 2; i++) {
        gdn_scl3(res + 3 * i, axis[0], pnt[2 * i]);
        gdn_scl3(tmp, axis[1], pnt[2 * i + 1]);
        gdn_add3(res + 3 * i, res + 3 * i, tmp);
    }
    if (cylinder) {
        // the axial coordinate linear in the path length; the arc becomes a helix
        const double L0 = sqrt((p[0][0] - res[0]) * (p[0][0] - res[0]) +
                               (p[0][1] - res[1]) * (p[0][1] - res[1]));
        const double L1 = sqrt((p[1][0] - res[3]) * (p[1][0] - res[3]) +
                               (p[1][1] - res[4]) * (p[1][1] - res[4]));
        res[2] = p[0][2] + (p[1][2] - p[0][2]) * L0 / (L0 + wlen + L1);
        res[5] = p[0][2] + (p[1][2] - p[0][2]) * (L0 + wlen) / (L0 + wlen + L1);
        const double height = fabs(res[5] - res[2]);
        wlen = sqrt(wlen * wlen + height * height);
    }
    gdn_mulmat3(wpnt, xmat, res);
    gdn_mulmat3(wpnt + 3, xmat, res + 3);
    gdn_add3(wpnt, wpnt, xpos);
    gdn_add3(wpnt + 3, wpnt + 3, xpos);
    return wlen;
}
