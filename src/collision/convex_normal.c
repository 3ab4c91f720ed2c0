// SPDX-License-Identifier: Apache-2.0
// Analytic contact normals for curved geoms after MPR (MuJoCo 2.2.2's mjc_fixNormal).
#include "collision/convex.h"

#include <math.h>

#include "math/vec.h"

#define NORMAL_MAXITER 30
#define NORMAL_TOLERANCE 1e-6

// contact point pos inside the ellipsoid x' S^-2 x = 1: follow the ray pos + x nrm (x >= 0) to
// the surface and take the surface normal there, repeated until the normal settles.
// Returns 1 when nrm was updated; *settled 1 when the normal settled within the tolerance
// before the iteration cap
static int ellipsoid_normal_inside(double nrm[3], const double pos[3], const double size[3],
                                   int* settled) {
    double s2inv[3] = {1 / (size[0] * size[0]), 1 / (size[1] * size[1]),
                       1 / (size[2] * size[2])};
    double c = pos[0] * pos[0] * s2inv[0] + pos[1] * pos[1] * s2inv[1] +
               pos[2] * pos[2] * s2inv[2] - 1;
    if (c > 0) {
        return 0;
    }
    gdn_normalize3(nrm);
    for (int iter = 0; iter < NORMAL_MAXITER; iter++) {
        // a x^2 + 2 b x + c = 0 for the ray parameter x
        double a = nrm[0] * nrm[0] * s2inv[0] + nrm[1] * nrm[1] * s2inv[1] +
                   nrm[2] * nrm[2] * s2inv[2];
        double b = pos[0] * nrm[0] * s2inv[0] + pos[1] * nrm[1] * s2inv[1] +
                   pos[2] * nrm[2] * s2inv[2];
        double det = b * b - a * c;
        if (det < GDN_MINVAL || a < GDN_MINVAL) {
            return iter > 0;
        }
        double x = (-b + sqrt(det)) / a;
        if (x < 0) {
            return iter > 0;
        }

        // surface point and its normal S^-2 p
        double pnt[3];
        gdn_addscl3(pnt, pos, nrm, x);
        double newnrm[3] = {pnt[0] * s2inv[0], pnt[1] * s2inv[1], pnt[2] * s2inv[2]};
        gdn_normalize3(newnrm);
        double dif[3];
        gdn_sub3(dif, nrm, newnrm);
        double change = gdn_norm3(dif);
        gdn_copy3(nrm, newnrm);
        if (change < NORMAL_TOLERANCE) {
            *settled = 1;
            break;
        }
    }
    return 1;
}

// contact point pos outside the ellipsoid: the closest surface point is S^2 (S^2 + la)^-1 pos
// with la >= 0 solving sum pos_i^2 s_i^2 / (s_i^2 + la)^2 = 1 (Newton from la = 0); the normal
// there is proportional to (S^2 + la)^-1 pos; *settled 1 unless the iteration cap was reached
static int ellipsoid_normal_outside(double nrm[3], const double pos[3], const double size[3],
                                    int* settled) {
    double s2[3] = {size[0] * size[0], size[1] * size[1], size[2] * size[2]};
    double ps2[3] = {pos[0] * pos[0] * s2[0], pos[1] * pos[1] * s2[1], pos[2] * pos[2] * s2[2]};
    double la = 0;
    for (int iter = 0; iter < NORMAL_MAXITER; iter++) {
        double r[3] = {1 / (s2[0] + la), 1 / (s2[1] + la), 1 / (s2[2] + la)};
        double val = ps2[0] * r[0] * r[0] + ps2[1] * r[1] * r[1] + ps2[2] * r[2] * r[2] - 1;
        if (val < NORMAL_TOLERANCE) {
            *settled = 1;
            break;
        }
        double deriv = -2 * (ps2[0] * r[0] * r[0] * r[0] + ps2[1] * r[1] * r[1] * r[1] +
                             ps2[2] * r[2] * r[2] * r[2]);
        if (deriv > -GDN_MINVAL) {
            break;
        }
        double delta = -val / deriv;
        if (delta < NORMAL_TOLERANCE) {
            *settled = 1;
            break;
        }
        la += delta;
    }
    nrm[0] = pos[0] / (s2[0] + la);
    nrm[1] = pos[1] / (s2[1] + la);
    nrm[2] = pos[2] / (s2[2] + la);
    gdn_normalize3(nrm);
    return 1;
}

int gdn_convex_local_normal(const gdnModel* m, int g, const double pos[3], double nrm[3],
                            int* settled) {
    *settled = 1;
    const double* size = m->geom_size + 3 * g;
    switch (m->geom_type[g]) {
    case GDN_GEOM_SPHERE:
        gdn_copy3(nrm, pos);
        return 1;

    // nearest point of the segment z in [-l, l]
    case GDN_GEOM_CAPSULE:
        if (pos[2] < -size[1]) {
            nrm[2] = pos[2] + size[1];
        } else if (pos[2] > size[1]) {
            nrm[2] = pos[2] - size[1];
        } else {
            nrm[2] = 0;
        }
        nrm[0] = pos[0];
        nrm[1] = pos[1];
        return 1;

    case GDN_GEOM_ELLIPSOID: {
        if (size[0] < GDN_MINVAL || size[1] < GDN_MINVAL || size[2] < GDN_MINVAL) {
            return 0;
        }
        double e = pos[0] * pos[0] / (size[0] * size[0]) + pos[1] * pos[1] / (size[1] * size[1]) +
                   pos[2] * pos[2] / (size[2] * size[2]);
        *settled = 0;
        return e <= 1 ? ellipsoid_normal_inside(nrm, pos, size, settled)
                      : ellipsoid_normal_outside(nrm, pos, size, settled);
    }

    // the round side only: away from the caps (beyond 95% of the half-length skipped) and at
    // least 4 times closer to the round wall than to the flat one
    case GDN_GEOM_CYLINDER: {
        if (fabs(pos[2]) > 0.95 * size[1]) {
            return 0;
        }
        double to_flat = fabs(size[1] - fabs(pos[2]));
        double to_round = fabs(size[0] - sqrt(pos[0] * pos[0] + pos[1] * pos[1]));
        if (to_flat < 0.25 * to_round) {
            return 0;
        }
        nrm[0] = pos[0];
        nrm[1] = pos[1];
        nrm[2] = 0;
        return 1;
    }

    default:
        return 0;
    }
}

void gdn_convex_fix_normal(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                           int g2) {
    int gid[2] = {g1, g2};
    double normal[2][3] = {{con->frame[0], con->frame[1], con->frame[2]},
                           {-con->frame[0], -con->frame[1], -con->frame[2]}};
    int processed[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        int type = m->geom_type[gid[i]];
        if (type != GDN_GEOM_SPHERE && type != GDN_GEOM_CAPSULE && type != GDN_GEOM_ELLIPSOID &&
            type != GDN_GEOM_CYLINDER) {
            continue;
        }
        const double* mat = d->geom_xmat + 9 * gid[i];
        double dif[3], pos[3], nrm[3];
        gdn_sub3(dif, con->pos, d->geom_xpos + 3 * gid[i]);
        gdn_mulmat3T(pos, mat, dif);
        gdn_mulmat3T(nrm, mat, normal[i]);
        int settled;
        processed[i] = gdn_convex_local_normal(m, gid[i], pos, nrm, &settled);
        if (processed[i]) {
            gdn_normalize3(nrm);
            gdn_mulmat3(normal[i], mat, nrm);
        }
    }

    // both: the normalized difference; one: its normal (reversed for geom2)
    if (processed[0] && processed[1]) {
        gdn_sub3(con->frame, normal[0], normal[1]);
        gdn_normalize3(con->frame);
    } else if (processed[0]) {
        gdn_copy3(con->frame, normal[0]);
    } else if (processed[1]) {
        gdn_scl3(con->frame, normal[1], -1);
    }
    if (processed[0] || processed[1]) {
        gdn_zero3(con->frame + 3);
    }
}
