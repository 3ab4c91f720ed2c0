// SPDX-License-Identifier: Apache-2.0
// The tangent of a body's inertia parameters in one of its geoms' sizes (inertia from geoms).
#include "constraint/geom_size_derivative.h"

#include <string.h>

#include "math/vec.h"
#include "mjcf/spec.h"

// value and derivative along one direction
typedef struct {
    double v, d;
} dual;

static dual dc(double v) {
    return (dual){v, 0};
}
static dual dadd(dual a, dual b) {
    return (dual){a.v + b.v, a.d + b.d};
}
static dual dsub(dual a, dual b) {
    return (dual){a.v - b.v, a.d - b.d};
}
static dual dmul(dual a, dual b) {
    return (dual){a.v * b.v, a.d * b.v + a.v * b.d};
}
static dual ddiv(dual a, dual b) {
    return (dual){a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
}
static dual dscl(dual a, double s) {
    return (dual){a.v * s, a.d * s};
}

// volume and principal inertia for mass m (src/mjcf/inertia.c's formulas); 0 when the type has
// none (plane, mesh, hfield: not differentiated)
static int shape(int type, const dual* s, dual* V, dual m, dual* I) {
    const double pi = GDN_MJ_PI;
    switch (type) {
    case GDN_GEOM_SPHERE:
        *V = dscl(dmul(s[0], dmul(s[0], s[0])), 4 * pi / 3);
        break;
    case GDN_GEOM_CAPSULE:
        *V = dscl(dadd(dmul(dmul(s[0], s[0]), dscl(s[1], 2)),
                       dscl(dmul(s[0], dmul(s[0], s[0])), 4.0 / 3)),
                  pi);
        break;
    case GDN_GEOM_CYLINDER:
        *V = dscl(dmul(dmul(s[0], s[0]), dscl(s[1], 2)), pi);
        break;
    case GDN_GEOM_ELLIPSOID:
        *V = dscl(dmul(s[0], dmul(s[1], s[2])), 4 * pi / 3);
        break;
    case GDN_GEOM_BOX:
        *V = dscl(dmul(s[0], dmul(s[1], s[2])), 8);
        break;
    default:
        return 0;
    }
    const dual r2 = dmul(s[0], s[0]);
    switch (type) {
    case GDN_GEOM_SPHERE:
        I[0] = I[1] = I[2] = dscl(dmul(m, r2), 2.0 / 5);
        break;
    case GDN_GEOM_CAPSULE: {
        const dual h = dscl(s[1], 2), r = s[0];
        const dual ms = ddiv(dmul(m, dscl(r, 4)), dadd(dscl(r, 4), dscl(h, 3)));
        const dual mc = dsub(m, ms);
        const dual across = dscl(dmul(mc, dadd(dscl(r2, 3), dmul(h, h))), 1.0 / 12);
        const dual sph = dscl(dmul(ms, r2), 2.0 / 5);
        const dual shift = dscl(dmul(dmul(ms, h), dadd(dscl(r, 3), dscl(h, 2))), 1.0 / 8);
        I[0] = I[1] = dadd(dadd(across, sph), shift);
        I[2] = dadd(dscl(dmul(mc, r2), 0.5), sph);
        break;
    }
    case GDN_GEOM_CYLINDER: {
        const dual h = dscl(s[1], 2);
        I[0] = I[1] = dscl(dmul(m, dadd(dscl(r2, 3), dmul(h, h))), 1.0 / 12);
        I[2] = dscl(dmul(m, r2), 0.5);
        break;
    }
    case GDN_GEOM_ELLIPSOID:
    case GDN_GEOM_BOX: {
        const double k = type == GDN_GEOM_BOX ? 1.0 / 3 : 1.0 / 5;
        const dual q[3] = {dmul(s[0], s[0]), dmul(s[1], s[1]), dmul(s[2], s[2])};
        I[0] = dscl(dmul(m, dadd(q[1], q[2])), k);
        I[1] = dscl(dmul(m, dadd(q[0], q[2])), k);
        I[2] = dscl(dmul(m, dadd(q[0], q[1])), k);
        break;
    }
    default:
        return 0;
    }
    return 1;
}

// dp (10, canonical packing) of geom g's body under size direction e_j
static int param_tangent(const gdnModel* m, int g, int j, double dp[10]) {
    const int b = m->geom_bodyid[g];
    dual s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = (dual){m->geom_size[3 * g + k], k == j ? 1 : 0};
    }
    // the mass: density times volume (its tangent), or the given mass (fixed)
    const int given = !(m->geom_density[g] >= 0);
    dual V, I[3], mg = dc(m->geom_mass[g]);
    if (!shape(m->geom_type[g], s, &V, dc(0), I)) {
        return 0;
    }
    if (!given) {
        mg = dscl(V, m->geom_density[g]);
    }
    shape(m->geom_type[g], s, &V, mg, I);
    const double M = m->body_mass[b];
    if (!(M > 0)) {
        return 0;
    }
    double dgeo[3], R[9];
    gdn_sub3(dgeo, m->geom_pos + 3 * g, m->body_ipos + 3 * b);
    gdn_quat2mat(R, m->geom_quat + 4 * g);
    memset(dp, 0, 10 * sizeof(double));
    dp[0] = mg.d;
    for (int k = 0; k < 3; k++) {
        dp[1 + k] = mg.d * dgeo[k] / M;
    }
    // dI = R diag(dI_g) R' + dm (|d|^2 1 - d d'), packed (xx, yy, zz, xy, xz, yz)
    const double dd = gdn_dot3(dgeo, dgeo);
    static const int kRow[6] = {0, 1, 2, 0, 0, 1}, kCol[6] = {0, 1, 2, 1, 2, 2};
    for (int e = 0; e < 6; e++) {
        const int r = kRow[e], c = kCol[e];
        double v = 0;
        for (int k = 0; k < 3; k++) {
            v += R[3 * r + k] * I[k].d * R[3 * c + k];
        }
        v += mg.d * ((r == c ? dd : 0) - dgeo[r] * dgeo[c]);
        dp[4 + e] = v;
    }
    return 1;
}

int gdn_geom_size_moves_inertia(const gdnModel* m) {
    for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_inertial[g] && m->geom_bodyid[g] > 0) {
            return 1;
        }
    }
    return 0;
}

void gdn_geom_size_inertia_vjp(const gdnModel* m, const double* gparam, double* gsize) {
    for (int g = 0; g < m->ngeom; g++) {
        const int b = m->geom_bodyid[g];
        if (!m->geom_inertial[g] || b == 0) {
            continue;
        }
        for (int j = 0; j < 3; j++) {
            double dp[10];
            if (!param_tangent(m, g, j, dp)) {
                continue;
            }
            double acc = 0;
            for (int i = 0; i < 10; i++) {
                acc += gparam[10 * b + i] * dp[i];
            }
            gsize[3 * g + j] += acc;
        }
    }
}

void gdn_geom_size_inertia_jvp(const gdnModel* m, const double* dsize, double* dparam) {
    for (int g = 0; g < m->ngeom; g++) {
        const int b = m->geom_bodyid[g];
        if (!m->geom_inertial[g] || b == 0) {
            continue;
        }
        for (int j = 0; j < 3; j++) {
            double dp[10];
            if (dsize[3 * g + j] == 0 || !param_tangent(m, g, j, dp)) {
                continue;
            }
            for (int i = 0; i < 10; i++) {
                dparam[10 * b + i] += dp[i] * dsize[3 * g + j];
            }
        }
    }
}
