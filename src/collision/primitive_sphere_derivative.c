// SPDX-License-Identifier: Apache-2.0
// Tangents and adjoints of sphere-sphere, sphere-capsule and capsule-capsule, branches held.
#include <math.h>

#include "collision/contact_derivative_pairs.h"
#include "collision/primitive.h"
#include "math/vec.h"

// Notation (primitive_sphere.c): p_i, R_i the geoms' frames, z_i the third column of R_i,
// size_i = (r_i, h_i). dp_i = w_i x p_i + v_i, dz_i = w_i x z_i.

// column j of a row-major 3x3 matrix
static void column(const double* mat, int j, double c[3]) {
    c[0] = mat[j];
    c[1] = mat[3 + j];
    c[2] = mat[6 + j];
}

// ---- two spheres at centres c1, c2 (gdn_sphere_sphere_at) ---------------------------------------
//   D = c2 - c1, L = |D|, n = D / L, dist = L - r1 - r2, pos = c1 + n (r1 + dist / 2)
//   dL = n . dD, d dist = dL - dr1 - dr2, dn = (I - n n') dD / L,
//   d pos = dc1 + dn (r1 + dist / 2) + n (dr1 + d dist / 2)
// Coincident centres (L < MINVAL: the primal's fallback normal) have no derivative:
// GDN_ERR_UNSUPPORTED (dist = |D| - r1 - r2 is not differentiable at D = 0).

static gdnStatus spheres_tangent(const gdnModel* m, const gdnContact* con, const double c1[3],
                                 const double dc1[3], const double dsize1[3], const double c2[3],
                                 const double dc2[3], const double dsize2[3],
                                 gdnPairTangent* t) {
    // radii r_i = size_i[0] of the pair's geoms
    double r1 = m->geom_size[3 * con->geom1], dr1 = gdn_dsize_at(dsize1, 0);
    double r2 = m->geom_size[3 * con->geom2], dr2 = gdn_dsize_at(dsize2, 0);
    double D[3], dD[3], n[3];
    gdn_sub3(D, c2, c1);
    gdn_sub3(dD, dc2, dc1);
    double L = gdn_norm3(D);
    if (L < GDN_MINVAL) {
        return GDN_ERR_UNSUPPORTED;
    }
    gdn_scl3(n, D, 1 / L);
    double dist = L - r1 - r2;
    double dL = gdn_dot3(n, dD);
    t->dist = dL - dr1 - dr2;
    gdn_addscl3(t->normal, dD, n, -dL);
    gdn_scl3(t->normal, t->normal, 1 / L);
    gdn_addscl3(t->pos, dc1, t->normal, r1 + dist / 2);
    gdn_addscl3(t->pos, t->pos, n, dr1 + t->dist / 2);
    gdn_zero3(t->hint);
    return GDN_OK;
}

// adjoint: ddist' = distbar + n . posbar / 2;  dc1bar += posbar;  dnbar = normalbar +
//   (r1 + dist / 2) posbar;  r1bar += n . posbar - ddist';  r2bar -= ddist' (into size_i[0]);
//   dDbar = ddist' n + (I - n n') dnbar / L;  dc2bar += dDbar;  dc1bar -= dDbar
static gdnStatus spheres_adjoint(const gdnModel* m, const gdnContact* con, const double c1[3],
                                 const double c2[3], const gdnPairTangent* tbar,
                                 double dc1bar[3], double dc2bar[3], double size1bar[3],
                                 double size2bar[3]) {
    double r1 = m->geom_size[3 * con->geom1], r2 = m->geom_size[3 * con->geom2];
    double dr1bar = 0, dr2bar = 0;
    double D[3], n[3];
    gdn_sub3(D, c2, c1);
    double L = gdn_norm3(D);
    if (L < GDN_MINVAL) {
        return GDN_ERR_UNSUPPORTED;
    }
    gdn_scl3(n, D, 1 / L);
    double dist = L - r1 - r2;
    double npos = gdn_dot3(n, tbar->pos);
    double ddb = tbar->dist + 0.5 * npos;
    double dnbar[3], dDbar[3];
    gdn_addscl3(dnbar, tbar->normal, tbar->pos, r1 + dist / 2);
    dr1bar += npos - ddb;
    dr2bar -= ddb;
    gdn_addscl3(dDbar, dnbar, n, -gdn_dot3(n, dnbar));
    gdn_scl3(dDbar, dDbar, 1 / L);
    gdn_addscl3(dDbar, dDbar, n, ddb);
    gdn_add3(dc1bar, dc1bar, tbar->pos);
    gdn_sub3(dc1bar, dc1bar, dDbar);
    gdn_add3(dc2bar, dc2bar, dDbar);
    gdn_size_bar_add(size1bar, 0, dr1bar);
    gdn_size_bar_add(size2bar, 0, dr2bar);
    return GDN_OK;
}

// ---- sphere-sphere: c_i = p_i -------------------------------------------------------------------

gdnStatus gdn_tangent_sphere_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const double x1[6], const double x2[6],
                                    const double dsize1[3], const double dsize2[3],
                                    gdnPairTangent* t) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double dp1[3], dp2[3];
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dp2, x2, p2);
    return spheres_tangent(m, con, p1, dp1, dsize1, p2, dp2, dsize2, t);
}

gdnStatus gdn_adjoint_sphere_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                    double size1bar[3], double size2bar[3]) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double dp1bar[3] = {0, 0, 0}, dp2bar[3] = {0, 0, 0};
    gdnStatus status = spheres_adjoint(m, con, p1, p2, tbar, dp1bar, dp2bar, size1bar, size2bar);
    if (status != GDN_OK) {
        return status;
    }
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_twist_point_adjoint(x2bar, p2, dp2bar);
    return GDN_OK;
}

// ---- sphere-capsule: g1 the sphere, g2 the capsule ----------------------------------------------
//   A = h2 z2, e = p1 - p2, q = A . A, x = clamp(A . e / q), c2 = p2 + x A
//   interior (|A . e / q| <= 1, held): dx = (dA . e + A . de) / q - x 2 (A . dA) / q; clamped: 0
//   dA = dh2 z2 + h2 dz2, dc2 = dp2 + dx A + x dA, then the two spheres (p1, r1), (c2, r2)

typedef struct {
    double z2[3], A[3], e[3], q, x;
    int interior;
} SegmentPoint;

// the primal's nearest segment point (gdn_segment_point_param)
static void sphere_capsule_primal(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  SegmentPoint* s, double c2[3]) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double h = m->geom_size[3 * con->geom2 + 1];
    column(d->geom_xmat + 9 * con->geom2, 2, s->z2);
    gdn_scl3(s->A, s->z2, h);
    gdn_sub3(s->e, p1, p2);
    s->q = gdn_dot3(s->A, s->A);
    s->x = gdn_segment_point_param(s->A, s->e, &s->interior);
    gdn_addscl3(c2, p2, s->A, s->x);
}

gdnStatus gdn_tangent_sphere_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const double x1[6], const double x2[6],
                                     const double dsize1[3], const double dsize2[3],
                                     gdnPairTangent* t) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double h = m->geom_size[3 * con->geom2 + 1];
    SegmentPoint s;
    double c2[3];
    sphere_capsule_primal(m, d, con, &s, c2);
    double dp1[3], dp2[3], dz2[3], dA[3], de[3], dc2[3];
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dp2, x2, p2);
    gdn_twist_dir(dz2, x2, s.z2);
    gdn_scl3(dA, s.z2, gdn_dsize_at(dsize2, 1));
    gdn_addscl3(dA, dA, dz2, h);
    gdn_sub3(de, dp1, dp2);
    double dx = 0;
    if (s.interior) {
        dx = (gdn_dot3(dA, s.e) + gdn_dot3(s.A, de)) / s.q - s.x * 2 * gdn_dot3(s.A, dA) / s.q;
    }
    gdn_addscl3(dc2, dp2, s.A, dx);
    gdn_addscl3(dc2, dc2, dA, s.x);
    return spheres_tangent(m, con, p1, dp1, dsize1, c2, dc2, dsize2, t);
}

gdnStatus gdn_adjoint_sphere_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const gdnPairTangent* tbar, double x1bar[6],
                                     double x2bar[6], double size1bar[3], double size2bar[3]) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double h = m->geom_size[3 * con->geom2 + 1];
    SegmentPoint s;
    double c2[3];
    sphere_capsule_primal(m, d, con, &s, c2);
    double dp1bar[3] = {0, 0, 0}, dc2bar[3] = {0, 0, 0};
    gdnStatus status = spheres_adjoint(m, con, p1, c2, tbar, dp1bar, dc2bar, size1bar, size2bar);
    if (status != GDN_OK) {
        return status;
    }
    // dc2 = dp2 + dx A + x dA
    double dp2bar[3], dAbar[3];
    gdn_copy3(dp2bar, dc2bar);
    double dxbar = gdn_dot3(s.A, dc2bar);
    gdn_scl3(dAbar, dc2bar, s.x);
    if (s.interior) {
        // dx = (dA . e + A . de) / q - x 2 (A . dA) / q
        double k = dxbar / s.q;
        gdn_addscl3(dAbar, dAbar, s.e, k);
        gdn_addscl3(dAbar, dAbar, s.A, -2 * s.x * k);
        gdn_addscl3(dp1bar, dp1bar, s.A, k);
        gdn_addscl3(dp2bar, dp2bar, s.A, -k);
    }
    // dA = dh z2 + h dz2
    double g[3];
    gdn_scl3(g, dAbar, h);
    gdn_twist_dir_adjoint(x2bar, s.z2, g);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_twist_point_adjoint(x2bar, p2, dp2bar);
    gdn_size_bar_add(size2bar, 1, gdn_dot3(s.z2, dAbar));
    return GDN_OK;
}

// ---- capsule-capsule ----------------------------------------------------------------------------
// Segments p_i + x_i A_i, A_i = h_i z_i, e = p1 - p2; ma = A1 . A1, mb = -A1 . A2, mc = A2 . A2,
// u = -A1 . e, v = A2 . e, det = ma mc - mb^2. Each final parameter is one of (branch held):
//   SOLVE  x1 = (mc u - mb v) / det,  x2 = (ma v - mb u) / det   (the lines' nearest points)
//   CONST  +-1 (a clamped end)
//   GIVEN  x1 = (u - s mb) / ma given x2 = s;  x2 = (v - s mb) / mc given x1 = s
// General position (|det| >= MINVAL): the primal's cascade (solve; clamp x1, re-solve x2; clamp
// x2, re-solve and clamp x1) decides the kinds; one contact. Parallel axes (|det| < MINVAL): the
// candidates (x1, x2) = (1, clamp GIVEN), (-1, clamp GIVEN), (clamp GIVEN, 1), (clamp GIVEN, -1)
// in the primal's order; con is the candidate whose contact position is nearest con->pos (the
// first on a tie; the primal keeps at most 2 of them, depending on the margin). The parallel
// branch is held too: its tangent is exact only for motions that keep the axes parallel (equal
// angular parts); any other rotation leaves the branch (the primal then makes one contact).
// Tangents of the scalars:
//   dma = 2 A1 . dA1, dmb = -(dA1 . A2 + A1 . dA2), dmc = 2 A2 . dA2, du = -(dA1 . e + A1 . de),
//   dv = dA2 . e + A2 . de, ddet = dma mc + ma dmc - 2 mb dmb;
//   SOLVE: dx1 = (dmc u + mc du - dmb v - mb dv - x1 ddet) / det,
//          dx2 = (dma v + ma dv - dmb u - mb du - x2 ddet) / det;
//   GIVEN: dx1 = (du - s dmb - x1 dma) / ma,  dx2 = (dv - s dmb - x2 dmc) / mc;  CONST: 0.
// Then c_i = p_i + x_i A_i, dc_i = dp_i + dx_i A_i + x_i dA_i, and the two spheres.

// the primal's segment pair (primitive.h: its parameters and their kinds) with the axes
typedef struct {
    double z1[3], z2[3], A1[3], A2[3], e[3];
    gdnSegmentPair q;
} CapsulePair;

// the segment points of the current (x1, x2)
static void capsule_centres(const gdnData* d, const gdnContact* con, const CapsulePair* c,
                            double c1[3], double c2[3]) {
    gdn_addscl3(c1, d->geom_xpos + 3 * con->geom1, c->A1, c->q.x1);
    gdn_addscl3(c2, d->geom_xpos + 3 * con->geom2, c->A2, c->q.x2);
}

// the primal's parameters: the cascade, or the parallel candidate nearest con->pos
static void capsule_pair_primal(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                CapsulePair* c) {
    const double* size1 = m->geom_size + 3 * con->geom1;
    const double* size2 = m->geom_size + 3 * con->geom2;
    column(d->geom_xmat + 9 * con->geom1, 2, c->z1);
    column(d->geom_xmat + 9 * con->geom2, 2, c->z2);
    gdn_scl3(c->A1, c->z1, size1[1]);
    gdn_scl3(c->A2, c->z2, size2[1]);
    gdn_sub3(c->e, d->geom_xpos + 3 * con->geom1, d->geom_xpos + 3 * con->geom2);
    gdn_segment_pair_setup(&c->q, c->A1, c->A2, c->e);
    if (fabs(c->q.det) >= GDN_MINVAL) {
        gdn_segment_pair_solve(&c->q);
        return;
    }

    // parallel: the primal's candidate contact (gdn_sphere_sphere_at) nearest con->pos
    double best = INFINITY;
    int which = 0;
    for (int j = 0; j < 4; j++) {
        double c1[3], c2[3];
        gdnContact cand;
        gdn_segment_pair_parallel(&c->q, j);
        capsule_centres(d, con, c, c1, c2);
        gdn_sphere_sphere_at(&cand, INFINITY, c1, d->geom_xmat + 9 * con->geom1, size1[0], c2,
                             d->geom_xmat + 9 * con->geom2, size2[0]);
        if (gdn_candidate_nearer(con, cand.pos, &best)) {
            which = j;
        }
    }
    gdn_segment_pair_parallel(&c->q, which);
}

// the tangent of x1 of its kind (SOLVE, GIVEN; CONST: 0); x2's with ma <-> mc, u <-> v
static double param_tangent(int kind, double det, double ma, double mc, double mb, double u,
                            double v, double x, double s, double dma, double dmc, double dmb,
                            double du, double dv, double ddet) {
    if (kind == GDN_SEG_SOLVE) {
        return (dmc * u + mc * du - dmb * v - mb * dv - x * ddet) / det;
    }
    if (kind == GDN_SEG_GIVEN) {
        return (du - s * dmb - x * dma) / ma;
    }
    return 0;
}

// the adjoint of param_tangent: xbar accumulated into the scalars' bars
static void param_adjoint(int kind, double xbar, double det, double ma, double mc, double mb,
                          double u, double v, double x, double s, double* mabar, double* mcbar,
                          double* mbbar, double* ubar, double* vbar, double* detbar) {
    if (kind == GDN_SEG_SOLVE) {
        double k = xbar / det;
        *mcbar += k * u;
        *ubar += k * mc;
        *mbbar -= k * v;
        *vbar -= k * mb;
        *detbar -= k * x;
    } else if (kind == GDN_SEG_GIVEN) {
        double k = xbar / ma;
        *ubar += k;
        *mbbar -= s * k;
        *mabar -= x * k;
    }
}

gdnStatus gdn_tangent_capsule_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const double x1[6], const double x2[6],
                                      const double dsize1[3], const double dsize2[3],
                                      gdnPairTangent* t) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    const double h1 = m->geom_size[3 * con->geom1 + 1], h2 = m->geom_size[3 * con->geom2 + 1];
    CapsulePair c;
    capsule_pair_primal(m, d, con, &c);
    double dp1[3], dp2[3], dz[3], dA1[3], dA2[3], de[3];
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dp2, x2, p2);
    gdn_twist_dir(dz, x1, c.z1);
    gdn_scl3(dA1, c.z1, gdn_dsize_at(dsize1, 1));
    gdn_addscl3(dA1, dA1, dz, h1);
    gdn_twist_dir(dz, x2, c.z2);
    gdn_scl3(dA2, c.z2, gdn_dsize_at(dsize2, 1));
    gdn_addscl3(dA2, dA2, dz, h2);
    gdn_sub3(de, dp1, dp2);

    // scalars
    double dma = 2 * gdn_dot3(c.A1, dA1);
    double dmb = -(gdn_dot3(dA1, c.A2) + gdn_dot3(c.A1, dA2));
    double dmc = 2 * gdn_dot3(c.A2, dA2);
    double du = -(gdn_dot3(dA1, c.e) + gdn_dot3(c.A1, de));
    double dv = gdn_dot3(dA2, c.e) + gdn_dot3(c.A2, de);
    double ddet = dma * c.q.mc + c.q.ma * dmc - 2 * c.q.mb * dmb;

    // parameters (x2's formulas are x1's with ma <-> mc, u <-> v)
    double dx1 = param_tangent(c.q.kind1, c.q.det, c.q.ma, c.q.mc, c.q.mb, c.q.u, c.q.v, c.q.x1,
                               c.q.s1, dma, dmc, dmb, du, dv, ddet);
    double dx2 = param_tangent(c.q.kind2, c.q.det, c.q.mc, c.q.ma, c.q.mb, c.q.v, c.q.u, c.q.x2,
                               c.q.s2, dmc, dma, dmb, dv, du, ddet);

    // centres
    double c1[3], c2[3], dc1[3], dc2[3];
    capsule_centres(d, con, &c, c1, c2);
    gdn_addscl3(dc1, dp1, c.A1, dx1);
    gdn_addscl3(dc1, dc1, dA1, c.q.x1);
    gdn_addscl3(dc2, dp2, c.A2, dx2);
    gdn_addscl3(dc2, dc2, dA2, c.q.x2);
    return spheres_tangent(m, con, c1, dc1, dsize1, c2, dc2, dsize2, t);
}

gdnStatus gdn_adjoint_capsule_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnPairTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    const double h1 = m->geom_size[3 * con->geom1 + 1], h2 = m->geom_size[3 * con->geom2 + 1];
    CapsulePair c;
    capsule_pair_primal(m, d, con, &c);
    double c1[3], c2[3];
    capsule_centres(d, con, &c, c1, c2);
    double dc1bar[3] = {0, 0, 0}, dc2bar[3] = {0, 0, 0};
    gdnStatus status = spheres_adjoint(m, con, c1, c2, tbar, dc1bar, dc2bar, size1bar, size2bar);
    if (status != GDN_OK) {
        return status;
    }

    // centres: dc_i = dp_i + dx_i A_i + x_i dA_i
    double dp1bar[3], dp2bar[3], dA1bar[3], dA2bar[3];
    gdn_copy3(dp1bar, dc1bar);
    gdn_copy3(dp2bar, dc2bar);
    double dx1bar = gdn_dot3(c.A1, dc1bar), dx2bar = gdn_dot3(c.A2, dc2bar);
    gdn_scl3(dA1bar, dc1bar, c.q.x1);
    gdn_scl3(dA2bar, dc2bar, c.q.x2);

    // parameters -> scalars
    double dmabar = 0, dmbbar = 0, dmcbar = 0, dubar = 0, dvbar = 0, ddetbar = 0;
    param_adjoint(c.q.kind1, dx1bar, c.q.det, c.q.ma, c.q.mc, c.q.mb, c.q.u, c.q.v, c.q.x1,
                  c.q.s1, &dmabar, &dmcbar, &dmbbar, &dubar, &dvbar, &ddetbar);
    param_adjoint(c.q.kind2, dx2bar, c.q.det, c.q.mc, c.q.ma, c.q.mb, c.q.v, c.q.u, c.q.x2,
                  c.q.s2, &dmcbar, &dmabar, &dmbbar, &dvbar, &dubar, &ddetbar);
    dmabar += ddetbar * c.q.mc;
    dmcbar += ddetbar * c.q.ma;
    dmbbar -= 2 * c.q.mb * ddetbar;

    // scalars -> vectors
    double debar[3];
    gdn_addscl3(dA1bar, dA1bar, c.A1, 2 * dmabar);
    gdn_addscl3(dA1bar, dA1bar, c.A2, -dmbbar);
    gdn_addscl3(dA1bar, dA1bar, c.e, -dubar);
    gdn_addscl3(dA2bar, dA2bar, c.A2, 2 * dmcbar);
    gdn_addscl3(dA2bar, dA2bar, c.A1, -dmbbar);
    gdn_addscl3(dA2bar, dA2bar, c.e, dvbar);
    gdn_scl3(debar, c.A1, -dubar);
    gdn_addscl3(debar, debar, c.A2, dvbar);
    gdn_add3(dp1bar, dp1bar, debar);
    gdn_sub3(dp2bar, dp2bar, debar);

    // dA_i = dh_i z_i + h_i dz_i
    double g[3];
    gdn_scl3(g, dA1bar, h1);
    gdn_twist_dir_adjoint(x1bar, c.z1, g);
    gdn_scl3(g, dA2bar, h2);
    gdn_twist_dir_adjoint(x2bar, c.z2, g);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_twist_point_adjoint(x2bar, p2, dp2bar);
    gdn_size_bar_add(size1bar, 1, gdn_dot3(c.z1, dA1bar));
    gdn_size_bar_add(size2bar, 1, gdn_dot3(c.z2, dA2bar));
    return GDN_OK;
}
