// SPDX-License-Identifier: Apache-2.0
// Tangent of mjc_fixNormal's analytic normal of one curved geom (collision/convex_normal.c) at
// the limit of a curved MPR contact, its ellipsoid iterations at their exact fixed points.
#include "collision/convex_curved_normal_derivative.h"

#include <math.h>

#include <gradyn/gradyn.h>

#include "collision/box_derivative.h"
#include "math/vec.h"

#define BOUNDARY_TOL 1e-9 // relative distance to a branch boundary that is refused

// x = A^-1 b for a 3 x 3 A (columns a0, a1, a2) by Cramer's rule; 0 when |det| is below 1e-12
// of the product of the column norms (singular)
static int solve3(const double a0[3], const double a1[3], const double a2[3], const double b[3],
                  double x[3]) {
    double c12[3], c20[3], c01[3];
    gdn_cross3(c12, a1, a2);
    gdn_cross3(c20, a2, a0);
    gdn_cross3(c01, a0, a1);
    double det = gdn_dot3(a0, c12);
    if (!(fabs(det) > 1e-12 * gdn_norm3(a0) * gdn_norm3(a1) * gdn_norm3(a2))) {
        return 0;
    }
    x[0] = gdn_dot3(b, c12) / det;
    x[1] = gdn_dot3(b, c20) / det;
    x[2] = gdn_dot3(b, c01) / det;
    return 1;
}

// the primal's ellipsoid map inside: nrm -> unit(S^-2 (q + x nrm)), x the ray's exit; value T
// and its directional derivative dT along (dnu, dq, ds); 0 when the ray does not exit
static int ell_map(const double nu[3], const double q[3], const double s[3], const double dnu[3],
                   const double dq[3], const double* ds, double T[3], double dT[3]) {
    double mi[3], dmi[3];
    for (int i = 0; i < 3; i++) {
        mi[i] = 1 / (s[i] * s[i]);
        dmi[i] = ds ? -2 * ds[i] / (s[i] * s[i] * s[i]) : 0;
    }
    double a = 0, b = 0, c = -1, da = 0, db = 0, dc = 0;
    for (int i = 0; i < 3; i++) {
        a += nu[i] * nu[i] * mi[i];
        b += q[i] * nu[i] * mi[i];
        c += q[i] * q[i] * mi[i];
        da += 2 * nu[i] * dnu[i] * mi[i] + nu[i] * nu[i] * dmi[i];
        db += dq[i] * nu[i] * mi[i] + q[i] * dnu[i] * mi[i] + q[i] * nu[i] * dmi[i];
        dc += 2 * q[i] * dq[i] * mi[i] + q[i] * q[i] * dmi[i];
    }
    double det = b * b - a * c;
    if (det < GDN_MINVAL || a < GDN_MINVAL) {
        return 0;
    }
    double sq = sqrt(det);
    double x = (-b + sq) / a;
    if (x < 0) {
        return 0;
    }
    double dx = -(x * x * da + 2 * x * db + dc) / (2 * sq);
    double y[3], dy[3];
    for (int i = 0; i < 3; i++) {
        double pnt = q[i] + x * nu[i];
        double dpnt = dq[i] + dx * nu[i] + x * dnu[i];
        y[i] = pnt * mi[i];
        dy[i] = dpnt * mi[i] + pnt * dmi[i];
    }
    double len = gdn_norm3(y);
    gdn_scl3(T, y, 1 / len);
    double k = gdn_dot3(T, dy);
    for (int i = 0; i < 3; i++) {
        dT[i] = (dy[i] - T[i] * k) / len;
    }
    return 1;
}

int gdn_curved_fixed_normal(const gdnCurvedGeom* s, const double pos[3], const double dpos[3],
                            const double nrm[3], double out[3], double dout[3]) {
    const double* sz = s->size;
    const double* ds = s->ds;
    double rel[3], q[3], mp[3], dq[3], tmp[3];
    gdn_sub3(rel, pos, s->p);
    gdn_mulmat3T(q, s->R, rel);
    gdn_box_point_motion(mp, s->x, pos);
    gdn_sub3(tmp, dpos, mp);
    gdn_mulmat3T(dq, s->R, tmp);
    double v[3], dv[3];
    switch (s->type) {
    case GDN_GEOM_SPHERE:
        gdn_copy3(v, q);
        gdn_copy3(dv, dq);
        break;
    case GDN_GEOM_CAPSULE:
        if (fabs(fabs(q[2]) - sz[1]) < BOUNDARY_TOL * (1 + sz[1])) {
            return -1;
        }
        v[0] = q[0], v[1] = q[1], dv[0] = dq[0], dv[1] = dq[1];
        if (q[2] < -sz[1]) {
            v[2] = q[2] + sz[1], dv[2] = dq[2] + ds[1];
        } else if (q[2] > sz[1]) {
            v[2] = q[2] - sz[1], dv[2] = dq[2] - ds[1];
        } else {
            v[2] = dv[2] = 0;
        }
        break;
    case GDN_GEOM_CYLINDER: {
        double to_flat = fabs(sz[1] - fabs(q[2]));
        double to_round = fabs(sz[0] - sqrt(q[0] * q[0] + q[1] * q[1]));
        double b1 = fabs(q[2]) - 0.95 * sz[1], b2 = to_flat - 0.25 * to_round;
        if (fabs(b1) < BOUNDARY_TOL * (1 + sz[1]) || fabs(b2) < BOUNDARY_TOL * (1 + sz[1])) {
            return -1;
        }
        if (b1 > 0 || b2 < 0) {
            return 0;
        }
        v[0] = q[0], v[1] = q[1], v[2] = 0;
        dv[0] = dq[0], dv[1] = dq[1], dv[2] = 0;
        break;
    }
    case GDN_GEOM_ELLIPSOID: {
        if (sz[0] < GDN_MINVAL || sz[1] < GDN_MINVAL || sz[2] < GDN_MINVAL) {
            return 0;
        }
        double e = q[0] * q[0] / (sz[0] * sz[0]) + q[1] * q[1] / (sz[1] * sz[1]) +
                   q[2] * q[2] / (sz[2] * sz[2]);
        if (fabs(e - 1) < BOUNDARY_TOL) {
            return -1;
        }
        if (e <= 1) {
            // the fixed point nu = T(nu) from the local MPR normal, then
            // (I - dT/dnu) dnu = dT/d(q, size) (dq, ds)
            double nu[3], zero[3] = {0, 0, 0}, T[3], dT[3];
            gdn_mulmat3T(nu, s->R, nrm);
            gdn_normalize3(nu);
            int conv = 0;
            for (int it = 0; it < 500 && !conv; it++) {
                if (!ell_map(nu, q, sz, zero, zero, NULL, T, dT)) {
                    return -1;
                }
                double dif[3];
                gdn_sub3(dif, T, nu);
                conv = gdn_norm3(dif) < 1e-15;
                gdn_copy3(nu, T);
            }
            if (!conv) {
                return -1;
            }
            double col[3][3], y[3];
            for (int c = 0; c < 3; c++) {
                double ec[3] = {0, 0, 0};
                ec[c] = 1;
                ell_map(nu, q, sz, ec, zero, NULL, T, dT);
                for (int r = 0; r < 3; r++) {
                    col[c][r] = (r == c) - dT[r];
                }
            }
            ell_map(nu, q, sz, zero, dq, ds, T, dT);
            if (!solve3(col[0], col[1], col[2], dT, y)) {
                return -1;
            }
            gdn_copy3(v, nu);
            gdn_copy3(dv, y);
        } else {
            // la >= 0 with phi = sum q_i^2 s_i^2 / (s_i^2 + la)^2 - 1 = 0; v = (S^2 + la)^-1 q
            double s2[3] = {sz[0] * sz[0], sz[1] * sz[1], sz[2] * sz[2]}, la = 0, r3 = 0;
            int conv = 0;
            for (int it = 0; it < 200 && !conv; it++) {
                double val = -1, der = 0;
                for (int i = 0; i < 3; i++) {
                    double r = 1 / (s2[i] + la);
                    val += q[i] * q[i] * s2[i] * r * r;
                    der -= 2 * q[i] * q[i] * s2[i] * r * r * r;
                }
                double delta = -val / der;
                la += delta;
                conv = fabs(delta) < 1e-15 * (1 + la);
            }
            if (!conv) {
                return -1;
            }
            double dphi = 0;
            for (int i = 0; i < 3; i++) {
                double r = 1 / (s2[i] + la);
                r3 -= 2 * q[i] * q[i] * s2[i] * r * r * r;
                dphi += 2 * q[i] * dq[i] * s2[i] * r * r +
                        2 * q[i] * q[i] * sz[i] * ds[i] * r * r -
                        4 * q[i] * q[i] * s2[i] * r * r * r * sz[i] * ds[i];
            }
            double dla = -dphi / r3;
            for (int i = 0; i < 3; i++) {
                double r = 1 / (s2[i] + la);
                v[i] = q[i] * r;
                dv[i] = dq[i] * r - q[i] * r * r * (2 * sz[i] * ds[i] + dla);
            }
        }
        break;
    }
    default:
        return 0;
    }
    double len = gdn_norm3(v);
    if (!(len > GDN_MINVAL)) {
        return -1;
    }
    double vh[3], dvh[3];
    gdn_scl3(vh, v, 1 / len);
    gdn_mpr_unit_tangent(dvh, vh, dv, len);
    gdn_mulmat3(out, s->R, vh);
    gdn_mulmat3(dout, s->R, dvh);
    gdn_cross3(tmp, s->x, out);
    gdn_add3(dout, dout, tmp);
    return 1;
}

int gdn_curved_fixed_branch(const gdnCurvedGeom* s, const double pos[3]) {
    double rel[3], q[3];
    gdn_sub3(rel, pos, s->p);
    gdn_mulmat3T(q, s->R, rel);
    const double* sz = s->size;
    if (s->type == GDN_GEOM_CAPSULE) {
        return q[2] < -sz[1] ? 1 : (q[2] > sz[1] ? 2 : 3);
    }
    if (s->type == GDN_GEOM_ELLIPSOID && sz[0] >= GDN_MINVAL && sz[1] >= GDN_MINVAL &&
        sz[2] >= GDN_MINVAL) {
        double e = q[0] * q[0] / (sz[0] * sz[0]) + q[1] * q[1] / (sz[1] * sz[1]) +
                   q[2] * q[2] / (sz[2] * sz[2]);
        return e <= 1 ? 4 : 5;
    }
    return 0;
}

