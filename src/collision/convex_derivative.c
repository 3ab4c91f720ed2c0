// SPDX-License-Identifier: Apache-2.0
// Tangents and adjoints of the general convex pairs with their witness features held:
// plane-mesh (collision/convex.c, a mesh vertex per contact) and MPR between polytopes without
// a margin (collision/convex_mpr.c, the final portal's support vertices); MPR with a curved
// shape or a margin goes to convex_curved_derivative.c. Also the MPR output tangents both use.
#include <math.h>
#include <string.h>

#include "collision/box_derivative.h"
#include "collision/convex_mpr.h"
#include "collision/narrowphase.h"
#include "math/vec.h"

// ---- plane-mesh ----

// Plane g1 (normal n = its z axis, origin p1), mesh g2: each contact is a mesh vertex
// s = R2 v + p2 with dist = n . (s - p1), pos = s - n dist / 2. Tangents: ds = w2 x s + v2,
// dn = w1 x n, d dist = dn . (s - p1) + n . (ds - dp1), d pos = ds - (dn dist + n d dist) / 2.
// The vertex is the one whose (pos, dist) matches con among all the mesh's vertices.
gdnStatus gdn_plane_mesh_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_plane_convex);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    gdnBoxCand best = {.feature = -1};
    double best_score = 0;
    int id = m->geom_dataid[g2];
    if (m->geom_type[g2] != GDN_GEOM_MESH || id < 0) {
        return gdn_box_finish(&best, best_score, con, t, feature);
    }
    const double* p1 = d->geom_xpos + 3 * g1;
    const double* R1 = d->geom_xmat + 9 * g1;
    const double* p2 = d->geom_xpos + 3 * g2;
    const double* R2 = d->geom_xmat + 9 * g2;
    double n[3] = {R1[2], R1[5], R1[8]}, dn[3], dp1[3];
    gdn_cross3(dn, dir->x1, n);
    gdn_box_point_motion(dp1, dir->x1, p1);
    const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
    for (int i = 0; i < m->mesh_vertnum[id]; i++) {
        double s[3], ds[3], dif[3], ddif[3];
        gdn_mulmat3(s, R2, vert + 3 * i);
        gdn_add3(s, s, p2);
        gdn_box_point_motion(ds, dir->x2, s);
        gdn_sub3(dif, s, p1);
        gdn_sub3(ddif, ds, dp1);
        gdnBoxCand cand = {.feature = i};
        cand.dist = gdn_dot3(n, dif);
        cand.t.dist = gdn_dot3(dn, dif) + gdn_dot3(n, ddif);
        gdn_addscl3(cand.pos, s, n, -0.5 * cand.dist);
        for (int k = 0; k < 3; k++) {
            cand.t.pos[k] = ds[k] - 0.5 * (dn[k] * cand.dist + n[k] * cand.t.dist);
        }
        gdn_copy3(cand.normal, n);
        gdn_copy3(cand.t.normal, dn);
        gdn_box_keep_nearest(&best, &best_score, con, &cand);
    }
    return gdn_box_finish(&best, best_score, con, t, feature);
}

static int is_polytope(int type) { return type == GDN_GEOM_BOX || type == GDN_GEOM_MESH; }

// ---- MPR between polytopes: the primal's final portal (collision/convex_mpr.h) ----

// ---- tangents of the portal's outputs ----

// a Minkowski support point's tangents: each shape point is a vertex moving with its body
typedef gdnMprPortalTangent PortalTangent;

// tangent of a support point on geom g (at world point s; a box corner also moves with dsize)
static void vertex_tangent(const gdnModel* m, const gdnData* d, int g, const double x[6],
                           const double dsize[3], const double s[3], double ds[3]) {
    gdn_box_point_motion(ds, x, s);
    if (m->geom_type[g] == GDN_GEOM_BOX) {
        const double* R = d->geom_xmat + 9 * g;
        double rel[3], local[3], dl[3], tmp[3];
        gdn_sub3(rel, s, d->geom_xpos + 3 * g);
        gdn_mulmat3T(local, R, rel);
        // a corner (+-size), or 0 where the search direction was exactly orthogonal to the
        // axis (sign 0: an edge midpoint or face center; its local coordinate is round-off)
        const double* size = m->geom_size + 3 * g;
        for (int i = 0; i < 3; i++) {
            dl[i] = local[i] > 0.5 * size[i]    ? dsize[i]
                    : local[i] < -0.5 * size[i] ? -dsize[i]
                                                : 0;
        }
        gdn_mulmat3(tmp, R, dl);
        gdn_add3(ds, ds, tmp);
    }
}

// d unit(v) = (dv - u (u . dv)) / |v|
void gdn_mpr_unit_tangent(double du[3], const double u[3], const double dv[3], double len) {
    double k = gdn_dot3(u, dv);
    for (int i = 0; i < 3; i++) {
        du[i] = (dv[i] - u[i] * k) / len;
    }
}

// the tangent of the closest point of segment (a, b) to the origin, at the primal's clamp
// where (0: a, 1: b, 2: interior at parameter t = -a . e / e . e, e = b - a)
void gdn_mpr_segment_witness_tangent(const double a[3], const double b[3], const double da[3],
                                    const double db[3], int where, double t, double dw[3]) {
    if (where == 0) {
        gdn_copy3(dw, da);
        return;
    }
    if (where == 1) {
        gdn_copy3(dw, db);
        return;
    }
    double dd[3], ddd[3];
    gdn_sub3(dd, b, a);
    gdn_sub3(ddd, db, da);
    double len2 = gdn_dot3(dd, dd);
    double dt = (-(gdn_dot3(da, dd) + gdn_dot3(a, ddd)) - t * 2 * gdn_dot3(dd, ddd)) / len2;
    for (int i = 0; i < 3; i++) {
        dw[i] = da[i] + ddd[i] * t + dd[i] * dt;
    }
}

// closest point w of triangle (a, b, c) to the origin (the primal's gdn_mpr_triangle_closest,
// *code its case) with its tangent
void gdn_mpr_triangle_witness(const double a[3], const double b[3], const double c[3],
                             const double da[3], const double db[3], const double dc[3],
                             double w[3], double dw[3], int* code) {
    double param[2];
    gdn_mpr_triangle_closest(a, b, c, w, code, param);
    if (*code == 0) {
        // the interior closest point is the origin's projection on the plane, w = n (n . a)
        // with n = N / |N|, N = d1 x d2: dw = dn (n . a) + n (dn . a + n . da),
        // dn = (dN - n (n . dN)) / |N| (better conditioned than the tangents of s, t)
        double d1[3], d2[3], dd1[3], dd2[3];
        gdn_sub3(d1, b, a);
        gdn_sub3(d2, c, a);
        gdn_sub3(dd1, db, da);
        gdn_sub3(dd2, dc, da);
        double N[3], dN[3], tmp[3], nrm[3], dn[3];
        gdn_cross3(N, d1, d2);
        gdn_cross3(dN, dd1, d2);
        gdn_cross3(tmp, d1, dd2);
        gdn_add3(dN, dN, tmp);
        double len = sqrt(gdn_dot3(N, N));
        gdn_scl3(nrm, N, 1 / len);
        gdn_mpr_unit_tangent(dn, nrm, dN, len);
        double na = gdn_dot3(nrm, a), dna = gdn_dot3(dn, a) + gdn_dot3(nrm, da);
        for (int i = 0; i < 3; i++) {
            dw[i] = dn[i] * na + nrm[i] * dna;
        }
        return;
    }
    // the nearest edge: ab, ac or bc
    const double* ends[3][2] = {{a, b}, {a, c}, {b, c}};
    const double* dends[3][2] = {{da, db}, {da, dc}, {db, dc}};
    int e = (*code - 1) / 3;
    gdn_mpr_segment_witness_tangent(ends[e][0], ends[e][1], dends[e][0], dends[e][1],
                                    (*code - 1) % 3, param[0], dw);
}

// (a x b) . c and its tangent
static double triple(const double a[3], const double b[3], const double c[3],
                     const double da[3], const double db[3], const double dc[3], double* dt) {
    double ab[3], tmp[3];
    gdn_cross3(ab, a, b);
    gdn_cross3(tmp, da, b);
    *dt = gdn_dot3(tmp, c) + gdn_dot3(ab, dc);
    gdn_cross3(tmp, a, db);
    *dt += gdn_dot3(tmp, c);
    return gdn_dot3(ab, c);
}

// the primal's contact point (gdn_mpr_portal_weights / _witnesses: pos = (sum b_i (v1_i +
// v2_i)) / (2 sum b_i)) with its tangent; returns 1 when the projection fallback was taken
int gdn_mpr_portal_position(const gdnMprPoint p[4], const PortalTangent* dp, double pos[3],
                           double dpos[3]) {
    double b[4], db[4], sum, p1[3], p2[3];
    int fallback = gdn_mpr_portal_weights(p, b, &sum);
    gdn_mpr_portal_witnesses(p, b, sum, p1, p2, pos);
    if (!fallback) {
        triple(p[1].v, p[2].v, p[3].v, dp->v[1], dp->v[2], dp->v[3], &db[0]);
        triple(p[3].v, p[2].v, p[0].v, dp->v[3], dp->v[2], dp->v[0], &db[1]);
        triple(p[0].v, p[1].v, p[3].v, dp->v[0], dp->v[1], dp->v[3], &db[2]);
        triple(p[2].v, p[1].v, p[0].v, dp->v[2], dp->v[1], dp->v[0], &db[3]);
    } else {
        // portal normal n = unit((v2 - v1) x (v3 - v1)) and its tangent
        double e1[3], e2[3], de1[3], de2[3], n[3], dn[3], tmp[3];
        gdn_sub3(e1, p[2].v, p[1].v);
        gdn_sub3(e2, p[3].v, p[1].v);
        gdn_sub3(de1, dp->v[2], dp->v[1]);
        gdn_sub3(de2, dp->v[3], dp->v[1]);
        gdn_cross3(n, e1, e2);
        gdn_cross3(dn, de1, e2);
        gdn_cross3(tmp, e1, de2);
        gdn_add3(dn, dn, tmp);
        double len = sqrt(gdn_dot3(n, n));
        gdn_mpr_unit(n);
        gdn_mpr_unit_tangent(dn, n, dn, len);
        db[0] = 0;
        triple(p[2].v, p[3].v, n, dp->v[2], dp->v[3], dn, &db[1]);
        triple(p[3].v, p[1].v, n, dp->v[3], dp->v[1], dn, &db[2]);
        triple(p[1].v, p[2].v, n, dp->v[1], dp->v[2], dn, &db[3]);
    }
    double dsum = db[0] + db[1] + db[2] + db[3];
    double dp1[3] = {0, 0, 0}, dp2[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) {
            dp1[k] += db[i] * p[i].v1[k] + b[i] * dp->v1[i][k];
            dp2[k] += db[i] * p[i].v2[k] + b[i] * dp->v2[i][k];
        }
    }
    for (int k = 0; k < 3; k++) {
        dpos[k] = 0.5 * ((dp1[k] + dp2[k]) - (p1[k] + p2[k]) * dsum) / sum;
    }
    return fallback;
}

int gdn_contact_mpr_limit(const gdnModel* m, const gdnContact* con) {
    const int g1 = con->geom1, g2 = con->geom2;
    if (gdn_collide_function(m->geom_type[g1], m->geom_type[g2]) != gdn_collide_convex) {
        return 0;
    }
    return !is_polytope(m->geom_type[g1]) || !is_polytope(m->geom_type[g2]) ||
           gdn_box_pair_margin(m, g1, g2) != 0;
}

// MPR between polytopes g1, g2 (margin 0): dist = -depth, depth = |w|, normal = w / |w| with
// w the portal triangle's closest point to the origin; pos the portal position
gdnStatus gdn_convex_mpr_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_convex);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    // curved shapes, and polytopes inflated by a margin: the converged limit
    if (!is_polytope(m->geom_type[g1]) || !is_polytope(m->geom_type[g2]) ||
        gdn_box_pair_margin(m, g1, g2) != 0) {
        return gdn_convex_curved_eval(m, d, con, dir, t, feature);
    }
    gdnBoxCand best = {.feature = -1};
    double best_score = 0;
    double margin = gdn_box_pair_margin(m, g1, g2);
    gdnConvexObj o1 = {m, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1, g1, margin, -1};
    gdnConvexObj o2 = {m, d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2, g2, margin, -1};
    gdnMprPoint p[4];
    int r = gdn_mpr_portal(&o1, &o2, m->opt.mpr_iterations, m->opt.mpr_tolerance, p);
    if (r < 0 || r == 1) {
        return gdn_box_finish(&best, best_score, con, t, feature);
    }

    // the portal points' tangents (v0: the geoms' centers)
    PortalTangent dp;
    int last = r == 2 ? 1 : 3;
    for (int i = 0; i <= last; i++) {
        vertex_tangent(m, d, g1, dir->x1, dir->ds1, p[i].v1, dp.v1[i]);
        vertex_tangent(m, d, g2, dir->x2, dir->ds2, p[i].v2, dp.v2[i]);
        gdn_sub3(dp.v[i], dp.v1[i], dp.v2[i]);
    }
    gdn_box_point_motion(dp.v1[0], dir->x1, p[0].v1);
    gdn_box_point_motion(dp.v2[0], dir->x2, p[0].v2);
    gdn_sub3(dp.v[0], dp.v1[0], dp.v2[0]);

    // witness w, its tangent, and the contact point
    double w[3], dw[3];
    gdnBoxCand cand = {.feature = 0};
    if (r == 2) {
        gdn_add3(cand.pos, p[1].v1, p[1].v2);
        gdn_scl3(cand.pos, cand.pos, 0.5);
        for (int k = 0; k < 3; k++) {
            cand.t.pos[k] = 0.5 * (dp.v1[1][k] + dp.v2[1][k]);
        }
        gdn_copy3(w, p[1].v);
        gdn_copy3(dw, dp.v[1]);
        cand.feature = 50;
    } else {
        int code;
        gdn_mpr_triangle_witness(p[1].v, p[2].v, p[3].v, dp.v[1], dp.v[2], dp.v[3], w, dw, &code);
        int fallback = gdn_mpr_portal_position(p, &dp, cand.pos, cand.t.pos);
        cand.feature = code + 20 * fallback;
    }
    double depth = sqrt(gdn_dot3(w, w));
    if (gdn_mpr_is_zero(depth)) {
        return gdn_box_finish(&best, best_score, con, t, feature);
    }
    double n[3];
    gdn_copy3(n, w);
    gdn_mpr_unit(n);
    cand.dist = margin - depth;
    cand.t.dist = -gdn_dot3(n, dw);
    gdn_copy3(cand.normal, n);
    gdn_mpr_unit_tangent(cand.t.normal, n, dw, depth);
    gdn_box_keep_nearest(&best, &best_score, con, &cand);
    return gdn_box_finish(&best, best_score, con, t, feature);
}
