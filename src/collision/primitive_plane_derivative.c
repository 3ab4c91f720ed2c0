// SPDX-License-Identifier: Apache-2.0
// Tangents and adjoints of the plane pairs (sphere, capsule, ellipsoid, cylinder), branches held.
#include <math.h>

#include "collision/contact_derivative_pairs.h"
#include "collision/primitive.h"
#include "math/vec.h"

// Notation (primitive_plane.c): g1 the plane (origin p1, normal n = z column of R1), g2 the
// other geom (centre p2, rotation R2, size). x1, x2 the bodies' twists: dn = w1 x n,
// dp_i = w_i x p_i + v_i, and a column c of R2 moves by w2 x c.

// column j of a row-major 3x3 matrix
static void column(const double* mat, int j, double c[3]) {
    c[0] = mat[j];
    c[1] = mat[3 + j];
    c[2] = mat[6 + j];
}

// ---- a point c of geom2 with radius r against the plane (gdn_plane_sphere_at) -------------------
//   dist = n . (c - p1) - r,  pos = c - n (r + dist / 2)
//   d dist = dn . (c - p1) + n . (dc - dp1) - dr
//   d pos  = dc - dn (r + dist / 2) - n (dr + d dist / 2),   d normal = dn

static void sphere_point_tangent(const double n[3], const double dn[3], const double p1[3],
                                 const double dp1[3], const double c[3], const double dc[3],
                                 double r, double dr, gdnPairTangent* t) {
    double dif[3], ddif[3];
    gdn_sub3(dif, c, p1);
    gdn_sub3(ddif, dc, dp1);
    double dist = gdn_dot3(n, dif) - r;
    t->dist = gdn_dot3(dn, dif) + gdn_dot3(n, ddif) - dr;
    gdn_addscl3(t->pos, dc, dn, -(r + dist / 2));
    gdn_addscl3(t->pos, t->pos, n, -(dr + t->dist / 2));
    gdn_copy3(t->normal, dn);
    gdn_zero3(t->hint);
}

// adjoint: ddist' = distbar - n . posbar / 2;  dcbar += posbar + ddist' n;
//   dnbar += normalbar - (r + dist / 2) posbar + ddist' (c - p1);  dp1bar -= ddist' n;
//   drbar -= n . posbar + ddist'
static void sphere_point_adjoint(const double n[3], const double p1[3], const double c[3],
                                 double r, const gdnPairTangent* tbar, double dnbar[3],
                                 double dp1bar[3], double dcbar[3], double* drbar) {
    double dif[3];
    gdn_sub3(dif, c, p1);
    double dist = gdn_dot3(n, dif) - r;
    double npos = gdn_dot3(n, tbar->pos);
    double ddb = tbar->dist - 0.5 * npos;
    gdn_add3(dcbar, dcbar, tbar->pos);
    gdn_addscl3(dcbar, dcbar, n, ddb);
    gdn_add3(dnbar, dnbar, tbar->normal);
    gdn_addscl3(dnbar, dnbar, tbar->pos, -(r + dist / 2));
    gdn_addscl3(dnbar, dnbar, dif, ddb);
    gdn_addscl3(dp1bar, dp1bar, n, -ddb);
    *drbar -= npos + ddb;
}

// a point x at distance dist from the plane, pos = x - n dist / 2 (t->dist set):
//   d pos = dx - dn dist / 2 - n d dist / 2,  d normal = dn
static void midpoint_tangent(gdnPairTangent* t, const double dx[3], const double n[3],
                             const double dn[3], double dist) {
    gdn_addscl3(t->pos, dx, dn, -dist / 2);
    gdn_addscl3(t->pos, t->pos, n, -t->dist / 2);
    gdn_copy3(t->normal, dn);
    gdn_zero3(t->hint);
}

// ---- plane-sphere: c = p2, r = size2[0] ---------------------------------------------------------

gdnStatus gdn_tangent_plane_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                   const double x1[6], const double x2[6], const double dsize1[3],
                                   const double dsize2[3], gdnPairTangent* t) {
    (void)dsize1;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double n[3], dn[3], dp1[3], dp2[3];
    column(d->geom_xmat + 9 * con->geom1, 2, n);
    gdn_twist_dir(dn, x1, n);
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dp2, x2, p2);
    sphere_point_tangent(n, dn, p1, dp1, p2, dp2, m->geom_size[3 * con->geom2],
                         gdn_dsize_at(dsize2, 0), t);
    return GDN_OK;
}

gdnStatus gdn_adjoint_plane_sphere(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                   const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                   double size1bar[3], double size2bar[3]) {
    (void)size1bar;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    double n[3], dnbar[3] = {0, 0, 0}, dp1bar[3] = {0, 0, 0}, dp2bar[3] = {0, 0, 0}, drbar = 0;
    column(d->geom_xmat + 9 * con->geom1, 2, n);
    sphere_point_adjoint(n, p1, p2, m->geom_size[3 * con->geom2], tbar, dnbar, dp1bar, dp2bar,
                         &drbar);
    gdn_twist_dir_adjoint(x1bar, n, dnbar);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_twist_point_adjoint(x2bar, p2, dp2bar);
    gdn_size_bar_add(size2bar, 0, drbar);
    return GDN_OK;
}

// ---- plane-capsule: the end spheres c = p2 + e h z2 (e = +1 first, then -1), hint = z2 ----------
// Which end: the one whose contact position (c - n (r + dist / 2)) is nearest con->pos (the two
// differ by 2 h (z2 - n (n . z2) / 2), never zero for h > 0).
//   dc = w2 x c + v2 + e dh z2;  d hint = w2 x z2

// the end sign e of contact con: the primal's end contact (gdn_plane_sphere_at) nearest con
static double capsule_end(const gdnModel* m, const gdnData* d, const gdnContact* con) {
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    const double* size2 = m->geom_size + 3 * con->geom2;
    double z2[3];
    column(d->geom_xmat + 9 * con->geom2, 2, z2);
    double best = INFINITY, end = 1;
    for (int e = 1; e >= -1; e -= 2) {
        double c[3];
        gdnContact cand;
        gdn_addscl3(c, p2, z2, e * size2[1]);
        gdn_plane_sphere_at(&cand, INFINITY, d->geom_xpos + 3 * con->geom1,
                            d->geom_xmat + 9 * con->geom1, c, size2[0]);
        if (gdn_candidate_nearer(con, cand.pos, &best)) {
            end = e;
        }
    }
    return end;
}

void gdn_hint_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                            double hint[3]) {
    (void)m;
    column(d->geom_xmat + 9 * con->geom2, 2, hint);
}

gdnStatus gdn_tangent_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const double x1[6], const double x2[6],
                                    const double dsize1[3], const double dsize2[3],
                                    gdnPairTangent* t) {
    (void)dsize1;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    const double* size2 = m->geom_size + 3 * con->geom2;
    double e = capsule_end(m, d, con);
    double n[3], z2[3], dn[3], dp1[3], c[3], dc[3];
    column(d->geom_xmat + 9 * con->geom1, 2, n);
    column(d->geom_xmat + 9 * con->geom2, 2, z2);
    gdn_addscl3(c, p2, z2, e * size2[1]);
    gdn_twist_dir(dn, x1, n);
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dc, x2, c);
    gdn_addscl3(dc, dc, z2, e * gdn_dsize_at(dsize2, 1));
    sphere_point_tangent(n, dn, p1, dp1, c, dc, size2[0], gdn_dsize_at(dsize2, 0), t);
    gdn_twist_dir(t->hint, x2, z2);
    return GDN_OK;
}

gdnStatus gdn_adjoint_plane_capsule(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                    const gdnPairTangent* tbar, double x1bar[6], double x2bar[6],
                                    double size1bar[3], double size2bar[3]) {
    (void)size1bar;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    const double* size2 = m->geom_size + 3 * con->geom2;
    double e = capsule_end(m, d, con);
    double n[3], z2[3], c[3];
    double dnbar[3] = {0, 0, 0}, dp1bar[3] = {0, 0, 0}, dcbar[3] = {0, 0, 0}, drbar = 0;
    column(d->geom_xmat + 9 * con->geom1, 2, n);
    column(d->geom_xmat + 9 * con->geom2, 2, z2);
    gdn_addscl3(c, p2, z2, e * size2[1]);
    sphere_point_adjoint(n, p1, c, size2[0], tbar, dnbar, dp1bar, dcbar, &drbar);
    gdn_twist_dir_adjoint(x1bar, n, dnbar);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_twist_point_adjoint(x2bar, c, dcbar);
    gdn_twist_dir_adjoint(x2bar, z2, tbar->hint);
    gdn_size_bar_add(size2bar, 0, drbar);
    gdn_size_bar_add(size2bar, 1, e * gdn_dot3(z2, dcbar));
    return GDN_OK;
}

// ---- plane-ellipsoid: support point in the direction -n -----------------------------------------
//   l = R2' (-n),  s1 = D l,  u = s1 / |s1|,  s = D u  (D = diag(size)),  x = p2 + R2 s,
//   dist = n . (x - p1),  pos = x - n dist / 2
//   dl = R2' ((w2 - w1) x n),  ds1 = D dl + dD l,  du = (I - u u') ds1 / |s1|,  ds = D du + dD u,
//   dx = w2 x x + v2 + R2 ds,  d dist = dn . (x - p1) + n . (dx - dp1),
//   d pos = dx - dn dist / 2 - n d dist / 2
// (|s1| < MINVAL: u = (1, 0, 0), du = 0)

// the primal's support point (gdn_ellipsoid_support) and its distance
typedef struct {
    double n[3], dist;
    gdnEllipsoidSupport sp;
} EllipsoidPrimal;

static void ellipsoid_primal(const gdnModel* m, const gdnData* d, const gdnContact* con,
                             EllipsoidPrimal* e) {
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    double dif[3];
    column(d->geom_xmat + 9 * con->geom1, 2, e->n);
    gdn_ellipsoid_support(&e->sp, e->n, d->geom_xpos + 3 * con->geom2,
                          d->geom_xmat + 9 * con->geom2, m->geom_size + 3 * con->geom2);
    gdn_sub3(dif, e->sp.x, p1);
    e->dist = gdn_dot3(e->n, dif);
}

gdnStatus gdn_tangent_plane_ellipsoid(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const double x1[6], const double x2[6],
                                      const double dsize1[3], const double dsize2[3],
                                      gdnPairTangent* t) {
    (void)dsize1;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* mat2 = d->geom_xmat + 9 * con->geom2;
    const double* size = m->geom_size + 3 * con->geom2;
    EllipsoidPrimal e;
    ellipsoid_primal(m, d, con, &e);
    double dn[3], rel[3] = {0, 0, 0}, g[3], dl[3], ds1[3], du[3] = {0, 0, 0}, ds[3];
    gdn_twist_dir(dn, x1, e.n);
    for (int i = 0; i < 3; i++) {
        rel[i] = (x2 ? x2[i] : 0) - (x1 ? x1[i] : 0);
    }
    gdn_cross3(g, rel, e.n);
    gdn_mulmat3T(dl, mat2, g);
    for (int i = 0; i < 3; i++) {
        ds1[i] = size[i] * dl[i] + gdn_dsize_at(dsize2, i) * e.sp.l[i];
    }
    if (e.sp.len >= GDN_MINVAL) {
        gdn_addscl3(du, ds1, e.sp.u, -gdn_dot3(e.sp.u, ds1));
        gdn_scl3(du, du, 1 / e.sp.len);
    }
    for (int i = 0; i < 3; i++) {
        ds[i] = size[i] * du[i] + gdn_dsize_at(dsize2, i) * e.sp.u[i];
    }
    double dx[3], rds[3], dp1[3], dif[3], ddif[3];
    gdn_twist_point(dx, x2, e.sp.x);
    gdn_mulmat3(rds, mat2, ds);
    gdn_add3(dx, dx, rds);
    gdn_twist_point(dp1, x1, p1);
    gdn_sub3(dif, e.sp.x, p1);
    gdn_sub3(ddif, dx, dp1);
    t->dist = gdn_dot3(dn, dif) + gdn_dot3(e.n, ddif);
    midpoint_tangent(t, dx, e.n, dn, e.dist);
    return GDN_OK;
}

gdnStatus gdn_adjoint_plane_ellipsoid(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnPairTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]) {
    (void)size1bar;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* mat2 = d->geom_xmat + 9 * con->geom2;
    const double* size = m->geom_size + 3 * con->geom2;
    EllipsoidPrimal e;
    ellipsoid_primal(m, d, con, &e);
    // pos and dist: ddist' = distbar - n . posbar / 2;  dxbar = posbar + ddist' n
    double ddb = tbar->dist - 0.5 * gdn_dot3(e.n, tbar->pos);
    double dxbar[3], dnbar[3], dif[3], dp1bar[3];
    gdn_addscl3(dxbar, tbar->pos, e.n, ddb);
    gdn_sub3(dif, e.sp.x, p1);
    gdn_addscl3(dnbar, tbar->normal, tbar->pos, -e.dist / 2);
    gdn_addscl3(dnbar, dnbar, dif, ddb);
    gdn_scl3(dp1bar, e.n, -ddb);
    // dx = w2 x x + v2 + R2 ds
    gdn_twist_point_adjoint(x2bar, e.sp.x, dxbar);
    double dsbar[3], dubar[3], ds1bar[3] = {0, 0, 0}, dlbar[3], g[3], a[3];
    gdn_mulmat3T(dsbar, mat2, dxbar);
    // ds = D du + dD u;  du = (I - u u') ds1 / |s1|;  ds1 = D dl + dD l
    for (int i = 0; i < 3; i++) {
        dubar[i] = size[i] * dsbar[i];
        gdn_size_bar_add(size2bar, i, dsbar[i] * e.sp.u[i]);
    }
    if (e.sp.len >= GDN_MINVAL) {
        gdn_addscl3(ds1bar, dubar, e.sp.u, -gdn_dot3(e.sp.u, dubar));
        gdn_scl3(ds1bar, ds1bar, 1 / e.sp.len);
    }
    for (int i = 0; i < 3; i++) {
        dlbar[i] = size[i] * ds1bar[i];
        gdn_size_bar_add(size2bar, i, ds1bar[i] * e.sp.l[i]);
    }
    // dl = R2' ((w2 - w1) x n):  (w2 - w1) bar = n x (R2 dlbar)
    gdn_mulmat3(g, mat2, dlbar);
    gdn_cross3(a, e.n, g);
    if (x2bar) {
        gdn_add3(x2bar, x2bar, a);
    }
    if (x1bar) {
        gdn_sub3(x1bar, x1bar, a);
    }
    gdn_twist_dir_adjoint(x1bar, e.n, dnbar);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    return GDN_OK;
}

// ---- plane-cylinder -----------------------------------------------------------------------------
// Primal (primitive_plane.c): a = s z2 with s = -1 when n . z2 > 0 (flip held), pa = n . a,
// height = n . (p2 - p1), rim = r q / |q| with q = a pa - n (or r x2 when |q| < MINVAL, held),
// A = h a, PA = h pa. Contact k (alpha, beta, sigma):
//   k = 0 bottom rim (1, 1, 0), 1 top rim (1, -1, 0), 2 / 3 the inscribed triangle (-1/2, 1, +-1)
//   dist = height + beta PA + alpha (rim . n),  x = p2 + alpha rim + beta A + sigma side,
//   side = (sqrt(3) / 2) r unit(rim x A),  pos = x - n dist / 2
// Which contact: the candidate whose pos is nearest con->pos (candidates are O(r, h) apart).
// Tangent: da = s (w2 x z2), dpa = dn . a + n . da, d height = dn . (p2 - p1) + n . (dp2 - dp1),
//   dq = da pa + a dpa - dn, d rim = dr qhat + r (I - qhat qhat') dq / |q|  (degenerate:
//   dr x2 + r w2 x x2), dA = dh a + h da, dPA = dh pa + h dpa, d (rim . n) = d rim . n + rim . dn,
//   d side = (sqrt(3) / 2) (dr shat + r (I - shat shat') (d rim x A + rim x dA) / |rim x A|),
//   d dist = d height + beta dPA + alpha d (rim . n),  dx = dp2 + alpha d rim + beta dA +
//   sigma d side,  d pos = dx - dn dist / 2 - n d dist / 2

static const double cyl_alpha[4] = {1, 1, -0.5, -0.5};
static const double cyl_beta[4] = {1, -1, 1, 1};
static const double cyl_sigma[4] = {0, 0, 1, -1};

// the primal's cylinder frame (gdn_plane_cylinder_setup)
static void cylinder_primal(const gdnModel* m, const gdnData* d, const gdnContact* con,
                            gdnPlaneCylinder* c) {
    gdn_plane_cylinder_setup(c, d->geom_xpos + 3 * con->geom1, d->geom_xmat + 9 * con->geom1,
                             d->geom_xpos + 3 * con->geom2, d->geom_xmat + 9 * con->geom2,
                             m->geom_size[3 * con->geom2], m->geom_size[3 * con->geom2 + 1]);
}

// contact k's dist and point (the primal's gdn_plane_cylinder_point)
static void cylinder_point(const gdnData* d, const gdnContact* con, const gdnPlaneCylinder* c,
                           int k, double* dist, double x[3]) {
    gdn_plane_cylinder_point(c, d->geom_xpos + 3 * con->geom2, k, dist, x);
}

// which of the four candidates contact con is
static int cylinder_which(const gdnData* d, const gdnContact* con, const gdnPlaneCylinder* c) {
    double best = INFINITY;
    int which = 0;
    for (int k = 0; k < 4; k++) {
        double dist, x[3], pos[3];
        cylinder_point(d, con, c, k, &dist, x);
        gdn_addscl3(pos, x, c->n, -dist / 2);
        if (gdn_candidate_nearer(con, pos, &best)) {
            which = k;
        }
    }
    return which;
}

gdnStatus gdn_tangent_plane_cylinder(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const double x1[6], const double x2[6],
                                     const double dsize1[3], const double dsize2[3],
                                     gdnPairTangent* t) {
    (void)dsize1;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    gdnPlaneCylinder c;
    cylinder_primal(m, d, con, &c);
    int k = cylinder_which(d, con, &c);
    const double alpha = cyl_alpha[k], beta = cyl_beta[k], sigma = cyl_sigma[k];
    double dr = gdn_dsize_at(dsize2, 0), dh = gdn_dsize_at(dsize2, 1);

    double dn[3], dz2[3], da[3], dp1[3], dp2[3], dif[3], ddif[3];
    gdn_twist_dir(dn, x1, c.n);
    gdn_twist_dir(dz2, x2, c.z2);
    gdn_scl3(da, dz2, c.s);
    double dpa = gdn_dot3(dn, c.a) + gdn_dot3(c.n, da);
    gdn_twist_point(dp1, x1, p1);
    gdn_twist_point(dp2, x2, p2);
    gdn_sub3(dif, p2, p1);
    gdn_sub3(ddif, dp2, dp1);
    double dheight = gdn_dot3(dn, dif) + gdn_dot3(c.n, ddif);

    // rim
    double drim[3];
    if (!c.degenerate) {
        double dq[3], qhat[3], perp[3];
        gdn_scl3(dq, da, c.pa);
        gdn_addscl3(dq, dq, c.a, dpa);
        gdn_sub3(dq, dq, dn);
        gdn_scl3(qhat, c.q, 1 / c.qlen);
        gdn_addscl3(perp, dq, qhat, -gdn_dot3(qhat, dq));
        gdn_scl3(drim, qhat, dr);
        gdn_addscl3(drim, drim, perp, c.r / c.qlen);
    } else {
        double dx2[3];
        gdn_twist_dir(dx2, x2, c.x2axis);
        gdn_scl3(drim, c.x2axis, dr);
        gdn_addscl3(drim, drim, dx2, c.r);
    }
    double dproj_rim = gdn_dot3(drim, c.n) + gdn_dot3(c.rim, dn);
    double dA[3];
    gdn_scl3(dA, c.a, dh);
    gdn_addscl3(dA, dA, da, c.h);
    double dPA = dh * c.pa + c.h * dpa;

    t->dist = dheight + beta * dPA + alpha * dproj_rim;
    double dx[3];
    gdn_addscl3(dx, dp2, drim, alpha);
    gdn_addscl3(dx, dx, dA, beta);
    if (sigma != 0) {
        // side
        double cs = sqrt(3.0) / 2, dside[3] = {0, 0, 0};
        if (c.srlen >= GDN_MINVAL) {
            double dsr[3], a1[3], a2[3], perp[3];
            gdn_cross3(a1, drim, c.A);
            gdn_cross3(a2, c.rim, dA);
            gdn_add3(dsr, a1, a2);
            gdn_addscl3(perp, dsr, c.shat, -gdn_dot3(c.shat, dsr));
            gdn_scl3(dside, c.shat, cs * dr);
            gdn_addscl3(dside, dside, perp, cs * c.r / c.srlen);
        } else {
            gdn_scl3(dside, c.shat, cs * dr);
        }
        gdn_addscl3(dx, dx, dside, sigma);
    }
    double dist, x[3];
    cylinder_point(d, con, &c, k, &dist, x);
    midpoint_tangent(t, dx, c.n, dn, dist);
    return GDN_OK;
}

gdnStatus gdn_adjoint_plane_cylinder(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                     const gdnPairTangent* tbar, double x1bar[6],
                                     double x2bar[6], double size1bar[3], double size2bar[3]) {
    (void)size1bar;
    const double* p1 = d->geom_xpos + 3 * con->geom1;
    const double* p2 = d->geom_xpos + 3 * con->geom2;
    gdnPlaneCylinder c;
    cylinder_primal(m, d, con, &c);
    int k = cylinder_which(d, con, &c);
    const double alpha = cyl_alpha[k], beta = cyl_beta[k], sigma = cyl_sigma[k];
    double dist, x[3];
    cylinder_point(d, con, &c, k, &dist, x);

    // pos = x - n dist / 2
    double ddistbar = tbar->dist - 0.5 * gdn_dot3(c.n, tbar->pos);
    double dxbar[3], dnbar[3], drbar = 0, dhbar = 0;
    gdn_copy3(dxbar, tbar->pos);
    gdn_addscl3(dnbar, tbar->normal, tbar->pos, -dist / 2);
    // d dist = d height + beta dPA + alpha d (rim . n)
    double dheightbar = ddistbar, dPAbar = beta * ddistbar, dprojbar = alpha * ddistbar;
    // dx = dp2 + alpha d rim + beta dA + sigma d side
    double dp2bar[3], drimbar[3], dAbar[3];
    gdn_copy3(dp2bar, dxbar);
    gdn_scl3(drimbar, dxbar, alpha);
    gdn_scl3(dAbar, dxbar, beta);
    if (sigma != 0) {
        double cs = sqrt(3.0) / 2, dsidebar[3];
        gdn_scl3(dsidebar, dxbar, sigma);
        drbar += cs * gdn_dot3(c.shat, dsidebar);
        if (c.srlen >= GDN_MINVAL) {
            double dsrbar[3], a1[3];
            gdn_addscl3(dsrbar, dsidebar, c.shat, -gdn_dot3(c.shat, dsidebar));
            gdn_scl3(dsrbar, dsrbar, cs * c.r / c.srlen);
            // d sr = d rim x A + rim x dA
            gdn_cross3(a1, c.A, dsrbar);
            gdn_add3(drimbar, drimbar, a1);
            gdn_cross3(a1, dsrbar, c.rim);
            gdn_add3(dAbar, dAbar, a1);
        }
    }
    // dPA = dh pa + h dpa;  dA = dh a + h da
    double dpabar = c.h * dPAbar, dabar[3];
    dhbar += c.pa * dPAbar + gdn_dot3(c.a, dAbar);
    gdn_scl3(dabar, dAbar, c.h);
    // d (rim . n) = d rim . n + rim . dn
    gdn_addscl3(drimbar, drimbar, c.n, dprojbar);
    gdn_addscl3(dnbar, dnbar, c.rim, dprojbar);
    // rim
    if (!c.degenerate) {
        double qhat[3], dqbar[3];
        gdn_scl3(qhat, c.q, 1 / c.qlen);
        drbar += gdn_dot3(qhat, drimbar);
        gdn_addscl3(dqbar, drimbar, qhat, -gdn_dot3(qhat, drimbar));
        gdn_scl3(dqbar, dqbar, c.r / c.qlen);
        // dq = da pa + a dpa - dn
        gdn_addscl3(dabar, dabar, dqbar, c.pa);
        dpabar += gdn_dot3(c.a, dqbar);
        gdn_sub3(dnbar, dnbar, dqbar);
    } else {
        double g[3];
        drbar += gdn_dot3(c.x2axis, drimbar);
        gdn_scl3(g, drimbar, c.r);
        gdn_twist_dir_adjoint(x2bar, c.x2axis, g);
    }
    // d height = dn . (p2 - p1) + n . (dp2 - dp1)
    double dif[3], dp1bar[3];
    gdn_sub3(dif, p2, p1);
    gdn_addscl3(dnbar, dnbar, dif, dheightbar);
    gdn_addscl3(dp2bar, dp2bar, c.n, dheightbar);
    gdn_scl3(dp1bar, c.n, -dheightbar);
    // dpa = dn . a + n . da;  da = s dz2
    gdn_addscl3(dnbar, dnbar, c.a, dpabar);
    gdn_addscl3(dabar, dabar, c.n, dpabar);
    double dz2bar[3];
    gdn_scl3(dz2bar, dabar, c.s);
    gdn_twist_dir_adjoint(x2bar, c.z2, dz2bar);
    gdn_twist_point_adjoint(x2bar, p2, dp2bar);
    gdn_twist_dir_adjoint(x1bar, c.n, dnbar);
    gdn_twist_point_adjoint(x1bar, p1, dp1bar);
    gdn_size_bar_add(size2bar, 0, drbar);
    gdn_size_bar_add(size2bar, 1, dhbar);
    return GDN_OK;
}
