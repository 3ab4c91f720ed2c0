// SPDX-License-Identifier: Apache-2.0
// Tangents of MPR contacts with a curved shape (sphere, capsule, ellipsoid, cylinder against
// each other or a box / mesh): the converged limit of the portal search, differentiated
// implicitly (never the iterations), then mjc_fixNormal's analytic normals differentiated.
//
// The limit. Every shape's support is a discrete part (a polytope vertex, a capsule end, a
// cylinder cap centre, or the centre of a sphere / ellipsoid) plus a smooth part f(u) of the
// local direction u = R' (sigma n) (sphere / capsule r u, ellipsoid S^2 u / |S u|, cylinder
// R u_xy / |u_xy|; sigma = +1 for geom1, -1 for geom2). As the portal refines, its support
// points converge to nu distinct points P_j = D_j + G(n) of the exposed feature of the
// Minkowski difference at its outward normal n (D_j the discrete parts' difference, G the
// smooth parts' difference, common to all j), read off the final portal's witnesses. With
// k = nu - 1 (0: a smooth point, 1: a ruled segment, 2: a flat face) the limit solves
//   F = P_1 + sum_j lam_j (P_{j+1} - P_1) + mu v0 = 0,   n . (P_{j+1} - P_1) = 0 (j < k),
// unknowns n (unit), lam (k), mu: the ray from v0 = c1 - c2 through the origin leaves the
// difference at x_e = -mu v0 inside the feature. Its tangent is the implicit function theorem
// on that system (3 + k equations; the Jacobian's n columns are the Hessian of the support
// function on the tangent plane, H = sum R J R'). The outputs are the primal's formulas at the
// limit: the closest point w of the limit feature (the point x_e, the segment, the triangle) to
// the origin (depth = |w|, normal w / |w|); the portal position: k = 2 the primal's tetrahedron
// (or projection) weights on the limit face; k < 2 the tetrahedron weights' limit
// pos = (b0 (c1 + c2) + (1 - b0) sum_j bary_j (A_j + B_j)) / 2, b0 = mu / (1 + mu), or, when the
// primal took the projection fallback on a point, the linearized witness map at the origin's
// projection (fallback_position); then mjc_fixNormal (collision/convex_normal.c) on that
// position and normal, its ellipsoid fixed points differentiated by the implicit function
// theorem too.
//
// A margin inflates every support by margin / 2 along its direction: one more smooth part (a
// ball), so polytope pairs with a margin are differentiated here too.
//
// Refused (GDN_ERR_UNSUPPORTED), never a wrong number: a negative margin; a singular limit
// system (the ray tangent to the difference, a flat direction of a smooth point); the ray
// within 1e-9 of
// the feature's boundary or a support tie that changes the feature (an unused vertex or end as
// far along n as the used ones); a cylinder cap face (the portal's rim points there depend on
// the search history: held as body points, which is exact only against a single point of the
// other shape with the closest point inside the portal, else refused); the projection
// fallback of the portal position on a segment (it extrapolates along the portal's transverse
// direction, set by the history); a fixNormal branch boundary, or the primal's ellipsoid
// normal iteration stopped at its cap; a forward portal that is not near the limit (not
// converged) or whose witnesses do not fit a feature model. The reason is the refused
// contact's feature (box_derivative.h, gdn_box_pair_feature).
#include <math.h>
#include <string.h>

#include "collision/box_derivative.h"
#include "collision/convex_curved_normal_derivative.h"
#include "collision/convex.h"
#include "collision/convex_mpr.h"
#include "math/vec.h"

#define BOUNDARY_TOL 1e-9 // relative distance to a feature boundary / tie that is refused
#define NEWTON_MAXITER 60

// one shape: geom, pose, tangents, orientation of its support direction
typedef struct Shape {
    const gdnModel* m;
    int g, type;
    const double *p, *R, *size;
    const double* x;  // body twist (6)
    const double* ds; // geom size tangent (3)
    double sigma;     // +1: support at n (geom1), -1: at -n (geom2)
    double inflate;   // margin / 2: every support moves by inflate u along its direction
} Shape;

// one shape's discrete part of one limit support point
typedef struct Feat {
    int held;      // a polytope vertex: the world point wp moves with the body
    double off[3]; // smooth shapes: local offset (capsule end, cylinder cap centre)
    double wp[3];
} Feat;

// the limit problem and its solution
typedef struct Limit {
    Shape s[2];
    int nu;        // distinct limit support points (k = nu - 1)
    Feat f[3][2];  // [point j][shape]
    int uidx[4];   // forward portal point i (1..3) -> its limit point j
    double v0[3];  // c1 - c2
    double n[3], lam[2], mu;
    double L;      // length scale of the pair
} Limit;

static int is_smooth_type(int type) {
    return type == GDN_GEOM_SPHERE || type == GDN_GEOM_CAPSULE || type == GDN_GEOM_ELLIPSOID ||
           type == GDN_GEOM_CYLINDER;
}

// ---- the smooth part of a support map (local frame), its Jacobian and size tangent ----

// f(u), homogeneous of degree 0 in u
static void smooth_value(const Shape* s, const double u[3], double f[3]) {
    const double* sz = s->size;
    gdn_zero3(f);
    switch (s->type) {
    case GDN_GEOM_SPHERE:
    case GDN_GEOM_CAPSULE:
        gdn_scl3(f, u, sz[0] / gdn_norm3(u));
        break;
    case GDN_GEOM_ELLIPSOID: {
        double w[3] = {sz[0] * u[0], sz[1] * u[1], sz[2] * u[2]};
        double k = 1 / gdn_norm3(w);
        for (int i = 0; i < 3; i++) {
            f[i] = sz[i] * w[i] * k;
        }
        break;
    }
    case GDN_GEOM_CYLINDER: {
        double rxy = sqrt(u[0] * u[0] + u[1] * u[1]);
        f[0] = u[0] / rxy * sz[0];
        f[1] = u[1] / rxy * sz[0];
        break;
    }
    default:
        break;
    }
}

// df = J(u) du + (df / dsize) dsize (dsize may be NULL)
static void smooth_tangent(const Shape* s, const double u[3], const double du[3],
                           const double* dsize, double df[3]) {
    const double* sz = s->size;
    gdn_zero3(df);
    switch (s->type) {
    case GDN_GEOM_SPHERE:
    case GDN_GEOM_CAPSULE: {
        double len = gdn_norm3(u), uh[3];
        gdn_scl3(uh, u, 1 / len);
        gdn_addscl3(df, du, uh, -gdn_dot3(uh, du));
        gdn_scl3(df, df, sz[0] / len);
        if (dsize) {
            gdn_addscl3(df, df, uh, dsize[0]);
        }
        break;
    }
    case GDN_GEOM_ELLIPSOID: {
        // f = S w / |w|, w = S u: df = dS w / |w| + S (I - wh wh') dw / |w|, dw = S du + dS u
        double w[3], dw[3], wh[3];
        for (int i = 0; i < 3; i++) {
            w[i] = sz[i] * u[i];
            dw[i] = sz[i] * du[i] + (dsize ? dsize[i] * u[i] : 0);
        }
        double len = gdn_norm3(w);
        gdn_scl3(wh, w, 1 / len);
        double k = gdn_dot3(wh, dw);
        for (int i = 0; i < 3; i++) {
            df[i] = sz[i] * (dw[i] - wh[i] * k) / len + (dsize ? dsize[i] * wh[i] : 0);
        }
        break;
    }
    case GDN_GEOM_CYLINDER: {
        double rxy = sqrt(u[0] * u[0] + u[1] * u[1]);
        double q[2] = {u[0] / rxy, u[1] / rxy};
        double k = q[0] * du[0] + q[1] * du[1];
        df[0] = sz[0] * (du[0] - q[0] * k) / rxy + (dsize ? dsize[0] * q[0] : 0);
        df[1] = sz[0] * (du[1] - q[1] * k) / rxy + (dsize ? dsize[0] * q[1] : 0);
        break;
    }
    default:
        break;
    }
}

// a sphere of radius r: r uh (uh = u / |u|), its tangent r (I - uh uh') du / |u|, and that
// Jacobian's tangent applied to w
static void ball_value(double r, const double u[3], double f[3]) {
    gdn_scl3(f, u, r / gdn_norm3(u));
}

static void ball_tangent(double r, const double u[3], const double du[3], double df[3]) {
    double len = gdn_norm3(u), uh[3];
    gdn_scl3(uh, u, 1 / len);
    gdn_addscl3(df, du, uh, -gdn_dot3(uh, du));
    gdn_scl3(df, df, r / len);
}

static void ball_jac_tangent(double r, const double u[3], const double w[3], const double du[3],
                             double out[3]) {
    double len = gdn_norm3(u), uh[3], duh[3], y[3];
    gdn_scl3(uh, u, 1 / len);
    double uw = gdn_dot3(uh, w), udu = gdn_dot3(uh, du);
    gdn_addscl3(duh, du, uh, -udu);
    gdn_scl3(duh, duh, 1 / len);
    gdn_addscl3(y, w, uh, -uw);
    for (int i = 0; i < 3; i++) {
        out[i] = -r * (duh[i] * uw + uh[i] * gdn_dot3(duh, w)) / len - r * y[i] * udu / (len * len);
    }
}

// the smooth part of a support point: the shape's own (none for a held point) plus the
// margin's inflation; value, tangent (J du + size term), Jacobian tangent applied to w
static void part_value(const Shape* s, int held, const double u[3], double f[3]) {
    gdn_zero3(f);
    if (!held) {
        smooth_value(s, u, f);
    }
    if (s->inflate > 0) {
        double b[3];
        ball_value(s->inflate, u, b);
        gdn_add3(f, f, b);
    }
}

static void part_tangent(const Shape* s, int held, const double u[3], const double du[3],
                         const double* ds, double df[3]) {
    gdn_zero3(df);
    if (!held) {
        smooth_tangent(s, u, du, ds, df);
    }
    if (s->inflate > 0) {
        double b[3];
        ball_tangent(s->inflate, u, du, b);
        gdn_add3(df, df, b);
    }
}

// ---- limit support points and their tangents ----

// local support direction u = R' (sigma n)
static void local_dir(const Shape* s, const double n[3], double u[3]) {
    double sn[3];
    gdn_scl3(sn, n, s->sigma);
    gdn_mulmat3T(u, s->R, sn);
}

// the support point of shape s with discrete part f at the normal n (world)
static void shape_point(const Shape* s, const Feat* f, const double n[3], double S[3]) {
    double u[3], loc[3], fs[3];
    local_dir(s, n, u);
    part_value(s, f->held, u, fs);
    if (f->held) {
        gdn_mulmat3(S, s->R, fs);
        gdn_add3(S, S, f->wp);
        return;
    }
    gdn_add3(loc, f->off, fs);
    gdn_mulmat3(S, s->R, loc);
    gdn_add3(S, S, s->p);
}

// its tangent along (x, ds) of the shape (NULL: held still) with the normal moving by dn
static void shape_point_tangent(const Shape* s, const Feat* f, const double n[3],
                                const double dn[3], const double* x, const double* ds,
                                double dS[3]) {
    double S[3], loc[3] = {0, 0, 0}, tmp[3];
    shape_point(s, f, n, S);
    if (x) {
        gdn_box_point_motion(dS, x, S);
    } else {
        gdn_zero3(dS);
    }
    if (f->held && ds) {
        double rel[3], lp[3];
        gdn_sub3(rel, f->wp, s->p);
        gdn_mulmat3T(lp, s->R, rel);
        if (s->type == GDN_GEOM_CYLINDER) {
            // a rim point held on its cap: (R cos, R sin, +-h) moves with (dR, dh)
            loc[0] = lp[0] / s->size[0] * ds[0];
            loc[1] = lp[1] / s->size[0] * ds[0];
            loc[2] = (lp[2] > 0 ? 1 : -1) * ds[1];
        }
        if (s->type == GDN_GEOM_BOX) {
            // a box corner moves with the size (the primal's +-size; 0 on an exact tie)
            for (int i = 0; i < 3; i++) {
                loc[i] = lp[i] > 0.5 * s->size[i]    ? ds[i]
                         : lp[i] < -0.5 * s->size[i] ? -ds[i]
                                                     : 0;
            }
        }
    }
    // u = R' sigma n: du = R' sigma (dn - w x n)
    double u[3], du[3], sdn[3], wn[3] = {0, 0, 0}, fs[3];
    local_dir(s, n, u);
    if (x) {
        gdn_cross3(wn, x, n);
    }
    gdn_sub3(sdn, dn, wn);
    gdn_scl3(sdn, sdn, s->sigma);
    gdn_mulmat3T(du, s->R, sdn);
    part_tangent(s, f->held, u, du, ds, fs);
    gdn_add3(loc, loc, fs);
    // capsule end / cylinder cap at sign * half-length
    if (!f->held && ds && (s->type == GDN_GEOM_CAPSULE || s->type == GDN_GEOM_CYLINDER)) {
        loc[2] += (f->off[2] > 0 ? 1 : -1) * ds[1];
    }
    gdn_mulmat3(tmp, s->R, loc);
    gdn_add3(dS, dS, tmp);
}

// limit point j of the difference: P = S_1 - S_2
static void limit_point(const Limit* L, int j, const double n[3], double P[3]) {
    double a[3], b[3];
    shape_point(&L->s[0], &L->f[j][0], n, a);
    shape_point(&L->s[1], &L->f[j][1], n, b);
    gdn_sub3(P, a, b);
}

// ---- small dense solve ----

// A y = b in place (n <= 5, row-major A[n][n]) by Gaussian elimination with partial pivoting;
// 0 when a pivot is below 1e-10 of the largest entry (singular)
static int solve_small(int n, double A[5][5], double b[5]) {
    double amax = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            amax = fmax(amax, fabs(A[i][j]));
        }
    }
    if (!(amax > 0)) {
        return 0;
    }
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++) {
            if (fabs(A[r][c]) > fabs(A[piv][c])) {
                piv = r;
            }
        }
        if (!(fabs(A[piv][c]) > 1e-10 * amax)) {
            return 0;
        }
        if (piv != c) {
            for (int j = 0; j < n; j++) {
                double t = A[c][j];
                A[c][j] = A[piv][j];
                A[piv][j] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double k = A[r][c] / A[c][c];
            for (int j = c; j < n; j++) {
                A[r][j] -= k * A[c][j];
            }
            b[r] -= k * b[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < n; j++) {
            s -= A[c][j] * b[j];
        }
        b[c] = s / A[c][c];
    }
    return 1;
}

// ---- the support map's Jacobian and its tangent (the projection fallback on a point) ----

// d[Jl(u) w] along (du, ds): the local Jacobian's tangent applied to a fixed local vector w
static void smooth_jac_tangent(const Shape* s, const double u[3], const double w[3],
                               const double du[3], const double* ds, double out[3]) {
    const double* sz = s->size;
    gdn_zero3(out);
    switch (s->type) {
    case GDN_GEOM_SPHERE:
    case GDN_GEOM_CAPSULE: {
        // Jl w = r (w - uh (uh . w)) / |u|: the ball's, plus the radius tangent's share
        ball_jac_tangent(sz[0], u, w, du, out);
        if (ds) {
            double len = gdn_norm3(u), uh[3], y[3];
            gdn_scl3(uh, u, 1 / len);
            gdn_addscl3(y, w, uh, -gdn_dot3(uh, w));
            gdn_addscl3(out, out, y, ds[0] / len);
        }
        break;
    }
    case GDN_GEOM_ELLIPSOID: {
        // Jl w = S y, y = (a - gh (gh . a)) / |g|, a = S w, g = S u
        double a[3], da[3], g[3], dg[3], gh[3], dgh[3], y[3], dy[3];
        for (int i = 0; i < 3; i++) {
            double dsi = ds ? ds[i] : 0;
            a[i] = sz[i] * w[i];
            da[i] = dsi * w[i];
            g[i] = sz[i] * u[i];
            dg[i] = dsi * u[i] + sz[i] * du[i];
        }
        double len = gdn_norm3(g);
        gdn_scl3(gh, g, 1 / len);
        double gdg = gdn_dot3(gh, dg), ga = gdn_dot3(gh, a);
        gdn_addscl3(dgh, dg, gh, -gdg);
        gdn_scl3(dgh, dgh, 1 / len);
        gdn_addscl3(y, a, gh, -ga);
        gdn_scl3(y, y, 1 / len);
        double dga = gdn_dot3(dgh, a), gda = gdn_dot3(gh, da);
        for (int i = 0; i < 3; i++) {
            dy[i] = (da[i] - dgh[i] * ga - gh[i] * (dga + gda)) / len - y[i] * gdg / len;
            out[i] = (ds ? ds[i] : 0) * y[i] + sz[i] * dy[i];
        }
        break;
    }
    case GDN_GEOM_CYLINDER: {
        // Jl w = R0 (w_xy - q (q . w_xy)) / rxy, q = u_xy / rxy
        double rxy = sqrt(u[0] * u[0] + u[1] * u[1]);
        double q[2] = {u[0] / rxy, u[1] / rxy};
        double qdu = q[0] * du[0] + q[1] * du[1];
        double dq[2] = {(du[0] - q[0] * qdu) / rxy, (du[1] - q[1] * qdu) / rxy};
        double qw = q[0] * w[0] + q[1] * w[1], dqw = dq[0] * w[0] + dq[1] * w[1];
        double dr = ds ? ds[0] : 0;
        for (int i = 0; i < 2; i++) {
            double y = (w[i] - q[i] * qw) / rxy;
            out[i] = dr * y + sz[0] * (-(dq[i] * qw + q[i] * dqw) / rxy - y * qdu / rxy);
        }
        break;
    }
    default:
        break;
    }
}

// T(v) = dS / dn v = R Jl(u) R' sigma v (world) and its tangent along (x, ds, dn), v fixed
static void shape_jac(const Shape* s, const double n[3], const double v[3], const double dn[3],
                      const double* x, const double* ds, double T[3], double dT[3]) {
    double u[3], wl[3], sv[3], loc[3], tmp[3];
    local_dir(s, n, u);
    gdn_scl3(sv, v, s->sigma);
    gdn_mulmat3T(wl, s->R, sv);
    int held = !is_smooth_type(s->type);
    part_tangent(s, held, u, wl, NULL, loc);
    gdn_mulmat3(T, s->R, loc);
    if (!dT) {
        return;
    }
    // dT = w x T + R [dJl(du, ds) wl + Jl dwl], du = R' sigma (dn - w x n), dwl = -R' sigma (w x v)
    double wn[3] = {0, 0, 0}, wv[3] = {0, 0, 0}, du[3], dwl[3], a[3], b[3];
    if (x) {
        gdn_cross3(wn, x, n);
        gdn_cross3(wv, x, v);
    }
    gdn_sub3(tmp, dn, wn);
    gdn_scl3(tmp, tmp, s->sigma);
    gdn_mulmat3T(du, s->R, tmp);
    gdn_scl3(tmp, wv, -s->sigma);
    gdn_mulmat3T(dwl, s->R, tmp);
    gdn_zero3(a);
    if (!held) {
        smooth_jac_tangent(s, u, wl, du, ds, a);
    }
    if (s->inflate > 0) {
        double c[3];
        ball_jac_tangent(s->inflate, u, wl, du, c);
        gdn_add3(a, a, c);
    }
    part_tangent(s, held, u, dwl, NULL, b);
    gdn_add3(loc, a, b);
    gdn_mulmat3(dT, s->R, loc);
    if (x) {
        gdn_cross3(tmp, x, T);
        gdn_add3(dT, dT, tmp);
    }
}

// The projection fallback's limit on a point feature (k = 0): the portal's weights are the
// barycentric coordinates of q = (n . x_e) n, the origin's projection on the tangent plane, so
// the witness sums' affine interpolation over the vanishing portal tends to their linearization
// at x_e: pos = (S1 + S2) / 2 + K z / 2 with H z = P (q - x_e), n . z = 0, H = T1 - T2,
// K = T1 + T2 (T_s = dS_s / dn). Value and tangent (dS: the full tangents of S1, S2; dn, dmu,
// dv0 the limit's); 0 when the bordered system is singular
static int fallback_position(const Limit* L, double S[2][3], double dS[2][3],
                             const double dn[3], double dmu, const double dv0[3],
                             double pos[3], double dpos[3]) {
    const double* n = L->n;
    double xe[3], dxe[3], q[3], dq[3], r[3], dr[3];
    gdn_scl3(xe, L->v0, -L->mu);
    for (int i = 0; i < 3; i++) {
        dxe[i] = -(dmu * L->v0[i] + L->mu * dv0[i]);
    }
    double nx = gdn_dot3(n, xe), dnx = gdn_dot3(dn, xe) + gdn_dot3(n, dxe);
    for (int i = 0; i < 3; i++) {
        q[i] = nx * n[i];
        dq[i] = dnx * n[i] + nx * dn[i];
        r[i] = q[i] - xe[i];
        dr[i] = dq[i] - dxe[i];
    }
    // the bordered system [H n; n' 0] [z; kappa] = [P r; 0]
    double A[5][5], y[5], zero[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        double e[3] = {0, 0, 0}, T1[3], T2[3];
        e[c] = 1;
        shape_jac(&L->s[0], n, e, zero, NULL, NULL, T1, NULL);
        shape_jac(&L->s[1], n, e, zero, NULL, NULL, T2, NULL);
        for (int i = 0; i < 3; i++) {
            A[i][c] = T1[i] - T2[i];
        }
        A[3][c] = n[c];
        A[c][3] = n[c];
    }
    A[3][3] = 0;
    double B[5][5];
    memcpy(B, A, sizeof(A));
    double nr = gdn_dot3(n, r);
    for (int i = 0; i < 3; i++) {
        y[i] = r[i] - n[i] * nr;
    }
    y[3] = 0;
    if (!solve_small(4, A, y)) {
        return 0;
    }
    double z[3] = {y[0], y[1], y[2]};
    double T1[3], T2[3], dT1[3], dT2[3];
    shape_jac(&L->s[0], n, z, dn, L->s[0].x, L->s[0].ds, T1, dT1);
    shape_jac(&L->s[1], n, z, dn, L->s[1].x, L->s[1].ds, T2, dT2);
    // H dz + dkappa n = d(P r) - dH z,  n . dz = -dn . z
    double dnr = gdn_dot3(dn, r) + gdn_dot3(n, dr);
    for (int i = 0; i < 3; i++) {
        y[i] = dr[i] - dn[i] * nr - n[i] * dnr - (dT1[i] - dT2[i]);
    }
    y[3] = -gdn_dot3(dn, z);
    if (!solve_small(4, B, y)) {
        return 0;
    }
    double dz[3] = {y[0], y[1], y[2]}, K1[3], K2[3];
    shape_jac(&L->s[0], n, dz, zero, NULL, NULL, K1, NULL);
    shape_jac(&L->s[1], n, dz, zero, NULL, NULL, K2, NULL);
    for (int i = 0; i < 3; i++) {
        pos[i] = 0.5 * (S[0][i] + S[1][i] + T1[i] + T2[i]);
        dpos[i] = 0.5 * (dS[0][i] + dS[1][i] + dT1[i] + dT2[i] + K1[i] + K2[i]);
    }
    return 1;
}

// two unit vectors completing n to an orthonormal basis
static void tangent_basis(const double n[3], double t1[3], double t2[3]) {
    double a[3] = {0, 0, 0};
    a[fabs(n[0]) < 0.6 ? 0 : (fabs(n[1]) < 0.6 ? 1 : 2)] = 1;
    gdn_addscl3(t1, a, n, -gdn_dot3(a, n));
    gdn_normalize3(t1);
    gdn_cross3(t2, n, t1);
}

// ---- the limit system ----

// residual r = [F; n . E_j] at (n, lam, mu); P the limit points
static void limit_residual(const Limit* L, const double n[3], const double lam[2], double mu,
                           double r[5], double P[3][3]) {
    int k = L->nu - 1;
    for (int j = 0; j < L->nu; j++) {
        limit_point(L, j, n, P[j]);
    }
    double F[3];
    gdn_copy3(F, P[0]);
    for (int j = 0; j < k; j++) {
        double E[3];
        gdn_sub3(E, P[j + 1], P[0]);
        gdn_addscl3(F, F, E, lam[j]);
        r[3 + j] = gdn_dot3(n, E);
    }
    gdn_addscl3(F, F, L->v0, mu);
    gdn_copy3(r, F);
}

// the system's Jacobian in (alpha_1, alpha_2 along t1, t2; lam; mu) at n
static void limit_jacobian(const Limit* L, const double n[3], double t[2][3],
                           double P[3][3], double A[5][5]) {
    int k = L->nu - 1, dim = 3 + k;
    memset(A, 0, sizeof(double) * 25);
    for (int a = 0; a < 2; a++) {
        // H t_a: the limit point's motion with the normal alone (the same for every j)
        double da[3], db[3], Ht[3];
        shape_point_tangent(&L->s[0], &L->f[0][0], n, t[a], NULL, NULL, da);
        shape_point_tangent(&L->s[1], &L->f[0][1], n, t[a], NULL, NULL, db);
        gdn_sub3(Ht, da, db);
        for (int i = 0; i < 3; i++) {
            A[i][a] = Ht[i];
        }
        for (int j = 0; j < k; j++) {
            double E[3];
            gdn_sub3(E, P[j + 1], P[0]);
            A[3 + j][a] = gdn_dot3(t[a], E);
        }
    }
    for (int j = 0; j < k; j++) {
        for (int i = 0; i < 3; i++) {
            A[i][2 + j] = P[j + 1][i] - P[0][i];
        }
    }
    for (int i = 0; i < 3; i++) {
        A[i][dim - 1] = L->v0[i];
    }
}

// Newton on the limit system from the forward's portal normal; 1 when converged
static int solve_limit(Limit* L, const double n0[3], double mu0) {
    int k = L->nu - 1, dim = 3 + k;
    gdn_copy3(L->n, n0);
    L->lam[0] = L->lam[1] = 1.0 / L->nu;
    L->mu = mu0;
    double r[5], P[3][3];
    for (int it = 0; it < NEWTON_MAXITER; it++) {
        limit_residual(L, L->n, L->lam, L->mu, r, P);
        double t[2][3], A[5][5], y[5];
        tangent_basis(L->n, t[0], t[1]);
        limit_jacobian(L, L->n, t, P, A);
        for (int i = 0; i < dim; i++) {
            y[i] = -r[i];
        }
        if (!solve_small(dim, A, y)) {
            return 0;
        }
        double step = 0;
        for (int i = 0; i < dim; i++) {
            step = fmax(step, fabs(y[i]));
        }
        // the normal's step damped to 0.2 rad (the other crossing of the ray, mu < 0, is
        // also a root)
        double turn = sqrt(y[0] * y[0] + y[1] * y[1]), damp = turn > 0.2 ? 0.2 / turn : 1;
        for (int i = 0; i < 3; i++) {
            L->n[i] += damp * (y[0] * t[0][i] + y[1] * t[1][i]);
        }
        gdn_normalize3(L->n);
        for (int j = 0; j < k; j++) {
            L->lam[j] += y[2 + j];
        }
        L->mu += y[dim - 1];
        if (step < 1e-15 && damp == 1) {
            break;
        }
    }
    limit_residual(L, L->n, L->lam, L->mu, r, P);
    double res = 0;
    for (int i = 0; i < dim; i++) {
        res = fmax(res, fabs(r[i]));
    }
    return res <= 1e-12 * L->L;
}

// ---- identification of the feature from the forward's final portal ----

// the discrete part of the witness w of shape s; 0 when it fits no feature model
static int classify(const Shape* s, const double w[3], Feat* f) {
    memset(f, 0, sizeof(*f));
    if (!is_smooth_type(s->type)) {
        f->held = 1;
        if (s->inflate == 0) {
            gdn_copy3(f->wp, w);
            return 1;
        }
        // inflated: the vertex is the witness less inflate along the search direction: the
        // box corner by its signs, the mesh vertex at distance inflate from the witness
        double rel[3], q[3], v[3];
        gdn_sub3(rel, w, s->p);
        gdn_mulmat3T(q, s->R, rel);
        if (s->type == GDN_GEOM_BOX) {
            for (int i = 0; i < 3; i++) {
                if (!(s->inflate < 0.5 * s->size[i])) {
                    return 0;
                }
                v[i] = q[i] > 0.5 * s->size[i]    ? s->size[i]
                       : q[i] < -0.5 * s->size[i] ? -s->size[i]
                                                  : 0;
            }
        } else {
            int id = s->m->geom_dataid[s->g], best = -1;
            const double* vert = s->m->mesh_vert + 3 * s->m->mesh_vertadr[id];
            double best_err = 0;
            for (int i = 0; i < s->m->mesh_vertnum[id]; i++) {
                double dif[3];
                gdn_sub3(dif, q, vert + 3 * i);
                double err = fabs(gdn_norm3(dif) - s->inflate);
                if (best < 0 || err < best_err) {
                    best = i;
                    best_err = err;
                }
            }
            if (best < 0 || !(best_err <= 1e-9 * (1 + s->m->geom_rbound[s->g]))) {
                return 0;
            }
            gdn_copy3(v, vert + 3 * best);
        }
        gdn_mulmat3(f->wp, s->R, v);
        gdn_add3(f->wp, f->wp, s->p);
        return 1;
    }
    if (s->type == GDN_GEOM_SPHERE || s->type == GDN_GEOM_ELLIPSOID) {
        return 1;
    }
    double rel[3], q[3];
    gdn_sub3(rel, w, s->p);
    gdn_mulmat3T(q, s->R, rel);
    // the end / cap the search took: sign(dir_z) (0: an exactly orthogonal direction)
    if (q[2] == 0) {
        return 0;
    }
    f->off[2] = (q[2] > 0 ? 1 : -1) * s->size[1];
    // a cylinder's cap centre (dir along the axis): the flat cap, not a rim point
    if (s->type == GDN_GEOM_CYLINDER && sqrt(q[0] * q[0] + q[1] * q[1]) < 0.5 * s->size[0]) {
        return 0;
    }
    return 1;
}

// two of the final portal's witnesses of cylinder si are rim points on one cap at angles more
// than 0.1 rad apart (a smooth rim point's witnesses are within the portal's width, ~sqrt(tol / R))
static int cylinder_cap_face(const Shape* s, const gdnMprPoint p[4], int si) {
    double q[4][3];
    for (int i = 1; i <= 3; i++) {
        double rel[3];
        gdn_sub3(rel, si ? p[i].v2 : p[i].v1, s->p);
        gdn_mulmat3T(q[i], s->R, rel);
    }
    for (int i = 1; i <= 3; i++) {
        for (int j = i + 1; j <= 3; j++) {
            // the same cap (the local z is +-h up to the frame's round-off)
            if (q[i][2] == 0 || (q[i][2] > 0) != (q[j][2] > 0)) {
                continue;
            }
            double ri = sqrt(q[i][0] * q[i][0] + q[i][1] * q[i][1]);
            double rj = sqrt(q[j][0] * q[j][0] + q[j][1] * q[j][1]);
            if (ri < 0.5 * s->size[0] || rj < 0.5 * s->size[0]) {
                continue;
            }
            double c = (q[i][0] * q[j][0] + q[i][1] * q[j][1]) / (ri * rj);
            if (c < cos(0.1)) {
                return 1;
            }
        }
    }
    return 0;
}

static int same_feat(const Feat* a, const Feat* b) {
    if (a->held != b->held) {
        return 0;
    }
    return a->held ? memcmp(a->wp, b->wp, sizeof(a->wp)) == 0
                   : memcmp(a->off, b->off, sizeof(a->off)) == 0;
}

// the discrete candidates of a shape in the world: box corners, mesh vertices, capsule ends,
// cylinder caps (none for a sphere / ellipsoid); returns how many were written (at most max)
// or the count without writing when out is NULL
static int candidates(const Shape* s, double (*out)[3], int max) {
    int count = 0;
    if (s->type == GDN_GEOM_BOX) {
        for (int c = 0; c < 8 && out && count < max; c++) {
            double loc[3];
            for (int i = 0; i < 3; i++) {
                loc[i] = (c >> i & 1 ? 1 : -1) * s->size[i];
            }
            gdn_mulmat3(out[count], s->R, loc);
            gdn_add3(out[count], out[count], s->p);
            count++;
        }
        return out ? count : 8;
    }
    if (s->type == GDN_GEOM_CAPSULE || s->type == GDN_GEOM_CYLINDER) {
        for (int c = 0; c < 2 && out && count < max; c++) {
            double loc[3] = {0, 0, (c ? 1 : -1) * s->size[1]};
            gdn_mulmat3(out[count], s->R, loc);
            gdn_add3(out[count], out[count], s->p);
            count++;
        }
        return out ? count : 2;
    }
    return 0;
}

// the world discrete point of a feature
static void feat_point(const Shape* s, const Feat* f, double P[3]) {
    if (f->held) {
        gdn_copy3(P, f->wp);
        return;
    }
    gdn_mulmat3(P, s->R, f->off);
    gdn_add3(P, P, s->p);
}

// the used discrete points of shape si are supports at the limit normal, and no unused
// candidate ties them unless the used ones already span a face of that shape
static int supports_consistent(const Limit* L, int si) {
    const Shape* s = &L->s[si];
    double sn[3], used[3][3];
    gdn_scl3(sn, L->n, s->sigma);
    int nused = 0;
    for (int j = 0; j < L->nu; j++) {
        double P[3];
        feat_point(s, &L->f[j][si], P);
        int dup = 0;
        for (int q = 0; q < nused; q++) {
            dup |= memcmp(used[q], P, sizeof(P)) == 0;
        }
        if (!dup) {
            gdn_copy3(used[nused++], P);
        }
    }
    double eps = BOUNDARY_TOL * L->L;
    double umin = INFINITY;
    for (int q = 0; q < nused; q++) {
        umin = fmin(umin, gdn_dot3(sn, used[q]));
    }
    int span2 = 0;
    if (nused == 3) {
        double e1[3], e2[3], c[3];
        gdn_sub3(e1, used[1], used[0]);
        gdn_sub3(e2, used[2], used[0]);
        gdn_cross3(c, e1, e2);
        span2 = gdn_norm3(c) > 1e-9 * L->L * L->L;
    }
    int ties = 0;
    double best = -INFINITY;
    if (s->type == GDN_GEOM_MESH) {
        int id = s->m->geom_dataid[s->g];
        const double* vert = s->m->mesh_vert + 3 * s->m->mesh_vertadr[id];
        for (int i = 0; i < s->m->mesh_vertnum[id]; i++) {
            double P[3];
            gdn_mulmat3(P, s->R, vert + 3 * i);
            gdn_add3(P, P, s->p);
            double v = gdn_dot3(sn, P);
            best = fmax(best, v);
            ties += v >= umin - eps;
        }
        // a mesh may repeat a vertex: count distinct positions only through the used ones
    } else {
        double cand[8][3];
        int nc = candidates(s, cand, 8);
        if (nc == 0) {
            return 1;
        }
        for (int i = 0; i < nc; i++) {
            double v = gdn_dot3(sn, cand[i]);
            best = fmax(best, v);
            ties += v >= umin - eps;
        }
    }
    if (umin < best - eps) {
        return 0; // the limit's support is elsewhere: the portal's feature is not the limit's
    }
    return ties <= nused || span2;
}

// ---- the pair ----

static void shape_init(Shape* s, const gdnModel* m, const gdnData* d, int g, const double* x,
                       const double* ds, double sigma, double margin) {
    s->inflate = margin / 2;
    s->m = m;
    s->g = g;
    s->type = m->geom_type[g];
    s->p = d->geom_xpos + 3 * g;
    s->R = d->geom_xmat + 9 * g;
    s->size = m->geom_size + 3 * g;
    s->x = x;
    s->ds = ds;
    s->sigma = sigma;
}

// a refusal: *feature = 100 + reason (gdn_box_pair_feature)
static gdnStatus refuse(int* feature, int reason) {
    *feature = 100 + reason;
    return GDN_ERR_UNSUPPORTED;
}

// the limit's contact (dist, pos, fixed normal) and its tangent along dir; *feature as
// gdn_box_pair_feature documents; GDN_ERR_UNSUPPORTED with no tangent where it does not exist
static gdnStatus curved_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                const gdnBoxDir* dir, const gdnMprPoint p[4],
                                const gdnContact* fwd, double margin, gdnPairTangent* t,
                                int* feature, double limit[7]) {
    int g1 = con->geom1, g2 = con->geom2;
    Limit L;
    memset(&L, 0, sizeof(L));
    shape_init(&L.s[0], m, d, g1, dir->x1, dir->ds1, 1, margin);
    shape_init(&L.s[1], m, d, g2, dir->x2, dir->ds2, -1, margin);
    gdn_sub3(L.v0, L.s[0].p, L.s[1].p);
    L.L = 1 + gdn_norm3(L.v0) + m->geom_rbound[g1] + m->geom_rbound[g2];

    // a degenerate size (a zero radius or half-length divides below)
    for (int si = 0; si < 2; si++) {
        const Shape* sh = &L.s[si];
        int nsize = sh->type == GDN_GEOM_ELLIPSOID ? 3
                    : sh->type == GDN_GEOM_CAPSULE || sh->type == GDN_GEOM_CYLINDER ? 2
                    : sh->type == GDN_GEOM_SPHERE ? 1 : 0;
        for (int i = 0; i < nsize; i++) {
            if (!(sh->size[i] > GDN_MINVAL)) {
                return refuse(feature, 20);
            }
        }
    }

    // a cylinder's cap face: its witnesses are rim points spread over the cap (not one
    // smooth rim point), held as body points; the limit is then independent of where on the rim
    // they are only against a single point of the other shape with the closest point inside
    int cap[2] = {0, 0};
    for (int si = 0; si < 2; si++) {
        cap[si] = L.s[si].type == GDN_GEOM_CYLINDER &&
                  cylinder_cap_face(&L.s[si], p, si);
        // an inflated cap's rim witnesses are off the rim by the search directions
        if (cap[si] && L.s[si].inflate > 0) {
            return refuse(feature, 19);
        }
    }

    // the distinct limit support points of the final portal
    for (int i = 1; i <= 3; i++) {
        Feat a, b;
        if (!classify(&L.s[0], p[i].v1, &a) || !classify(&L.s[1], p[i].v2, &b)) {
            return refuse(feature, 1);
        }
        if (cap[0]) {
            a.held = 1;
            gdn_copy3(a.wp, p[i].v1);
        }
        if (cap[1]) {
            b.held = 1;
            gdn_copy3(b.wp, p[i].v2);
        }
        int j = 0;
        while (j < L.nu && !(same_feat(&L.f[j][0], &a) && same_feat(&L.f[j][1], &b))) {
            j++;
        }
        if (j == L.nu) {
            L.f[j][0] = a;
            L.f[j][1] = b;
            L.nu++;
        }
        L.uidx[i] = j;
    }
    int k = L.nu - 1;

    // solve from the forward portal's normal and depth
    double e1[3], e2[3], n0[3];
    gdn_sub3(e1, p[2].v, p[1].v);
    gdn_sub3(e2, p[3].v, p[1].v);
    gdn_cross3(n0, e1, e2);
    double v0len = gdn_norm3(L.v0);
    if (!(gdn_norm3(n0) > 0) || !(v0len > GDN_MINVAL)) {
        return refuse(feature, 2);
    }
    // (a converged portal's edges are ~1e-8 long: |n0| ~ 1e-16, below gdn_normalize3's floor)
    gdn_scl3(n0, n0, 1 / gdn_norm3(n0));
    if (gdn_dot3(n0, L.v0) > 0) {
        gdn_scl3(n0, n0, -1);
    }
    if (!solve_limit(&L, n0, (margin - fwd->dist) / v0len)) {
        return refuse(feature, 3);
    }
    if (!(L.mu > 0) || gdn_dot3(L.n, L.v0) > -BOUNDARY_TOL * v0len) {
        return refuse(feature, 4);
    }
    double bary[3] = {1, 0, 0};
    for (int j = 0; j < k; j++) {
        bary[j + 1] = L.lam[j];
        bary[0] -= L.lam[j];
    }
    for (int j = 0; j <= k; j++) {
        if (!(bary[j] > BOUNDARY_TOL)) {
            return refuse(feature, 5);
        }
    }
    if (!supports_consistent(&L, 0) || !supports_consistent(&L, 1)) {
        return refuse(feature, 6);
    }
    for (int si = 0; si < 2; si++) {
        if (L.s[si].type == GDN_GEOM_CYLINDER && !cap[si]) {
            double u[3];
            local_dir(&L.s[si], L.n, u);
            if (sqrt(u[0] * u[0] + u[1] * u[1]) < 1e-6) {
                return refuse(feature, 7);
            }
        }
    }

    // the forward portal's witnesses are near the limit's (the feature is the limit's)
    double vtol = 100 * sqrt(fmax(m->opt.mpr_tolerance, 1e-16)) * L.L;
    double S[3][2][3], P[3][3];
    for (int j = 0; j < L.nu; j++) {
        shape_point(&L.s[0], &L.f[j][0], L.n, S[j][0]);
        shape_point(&L.s[1], &L.f[j][1], L.n, S[j][1]);
        gdn_sub3(P[j], S[j][0], S[j][1]);
    }
    for (int i = 1; i <= 3; i++) {
        double a[3], b[3];
        gdn_sub3(a, p[i].v1, S[L.uidx[i]][0]);
        gdn_sub3(b, p[i].v2, S[L.uidx[i]][1]);
        if (gdn_norm3(a) > vtol || gdn_norm3(b) > vtol) {
            return refuse(feature, 8);
        }
    }

    // tangents of the unknowns: J dy = -(partial derivatives at fixed n, lam, mu)
    double dS0[3][2][3], dP0[3][3], dv0[3], tmp[3];
    double zero[3] = {0, 0, 0};
    for (int j = 0; j < L.nu; j++) {
        for (int si = 0; si < 2; si++) {
            shape_point_tangent(&L.s[si], &L.f[j][si], L.n, zero, L.s[si].x, L.s[si].ds,
                                dS0[j][si]);
        }
        gdn_sub3(dP0[j], dS0[j][0], dS0[j][1]);
    }
    gdn_box_point_motion(dv0, dir->x1, L.s[0].p);
    gdn_box_point_motion(tmp, dir->x2, L.s[1].p);
    gdn_sub3(dv0, dv0, tmp);
    double tb[2][3], A[5][5], y[5];
    tangent_basis(L.n, tb[0], tb[1]);
    limit_jacobian(&L, L.n, tb, P, A);
    double dF[3];
    gdn_copy3(dF, dP0[0]);
    for (int j = 0; j < k; j++) {
        double dE[3];
        gdn_sub3(dE, dP0[j + 1], dP0[0]);
        gdn_addscl3(dF, dF, dE, L.lam[j]);
        y[3 + j] = -gdn_dot3(L.n, dE);
    }
    gdn_addscl3(dF, dF, dv0, L.mu);
    for (int i = 0; i < 3; i++) {
        y[i] = -dF[i];
    }
    if (!solve_small(3 + k, A, y)) {
        return refuse(feature, 9);
    }
    double dn[3], dlam[2] = {0, 0}, dmu = y[2 + k];
    for (int i = 0; i < 3; i++) {
        dn[i] = y[0] * tb[0][i] + y[1] * tb[1][i];
    }
    for (int j = 0; j < k; j++) {
        dlam[j] = y[2 + j];
    }
    double dS[3][2][3], dP[3][3];
    for (int j = 0; j < L.nu; j++) {
        for (int si = 0; si < 2; si++) {
            shape_point_tangent(&L.s[si], &L.f[j][si], L.n, dn, L.s[si].x, L.s[si].ds,
                                dS[j][si]);
        }
        gdn_sub3(dP[j], dS[j][0], dS[j][1]);
    }

    // the closest point w of the limit feature to the origin
    double w[3], dw[3];
    int code = 0;
    if (k == 0) {
        gdn_scl3(w, L.v0, -L.mu);
        for (int i = 0; i < 3; i++) {
            dw[i] = -(dmu * L.v0[i] + L.mu * dv0[i]);
        }
    } else if (k == 1) {
        double e[3];
        gdn_sub3(e, P[1], P[0]);
        double s = -gdn_dot3(P[0], e) / gdn_dot3(e, e);
        if (fabs(s) < BOUNDARY_TOL || fabs(s - 1) < BOUNDARY_TOL) {
            return refuse(feature, 10);
        }
        code = s < 0 ? 0 : (s > 1 ? 1 : 2);
        double sc = code == 0 ? 0 : (code == 1 ? 1 : s);
        gdn_addscl3(w, P[0], e, sc);
        gdn_mpr_segment_witness_tangent(P[0], P[1], dP[0], dP[1], code, s, dw);
    } else {
        gdn_mpr_triangle_witness(P[0], P[1], P[2], dP[0], dP[1], dP[2], w, dw, &code);
    }
    if (cap[0] || cap[1]) {
        int other = cap[0] ? 1 : 0;
        int single = !(cap[0] && cap[1]);
        for (int j = 1; j < L.nu && single; j++) {
            single = same_feat(&L.f[j][other], &L.f[0][other]);
        }
        if (!single || k != 2 || code != 0) {
            return refuse(feature, 19);
        }
    }
    double depth = gdn_norm3(w);
    if (!(depth > 1e-12 * L.L)) {
        return refuse(feature, 11);
    }
    double nraw[3], dnraw[3];
    gdn_scl3(nraw, w, 1 / depth);
    gdn_mpr_unit_tangent(dnraw, nraw, dw, depth);

    // the portal position
    double b[4], sum, pos[3], dpos[3];
    int fallback = gdn_mpr_portal_weights(p, b, &sum);
    if (k == 2) {
        gdnMprPoint lp[4];
        gdnMprPortalTangent dlp;
        gdn_copy3(lp[0].v1, L.s[0].p);
        gdn_copy3(lp[0].v2, L.s[1].p);
        gdn_copy3(lp[0].v, L.v0);
        gdn_box_point_motion(dlp.v1[0], dir->x1, L.s[0].p);
        gdn_box_point_motion(dlp.v2[0], dir->x2, L.s[1].p);
        gdn_copy3(dlp.v[0], dv0);
        for (int i = 1; i <= 3; i++) {
            int j = L.uidx[i];
            gdn_copy3(lp[i].v1, S[j][0]);
            gdn_copy3(lp[i].v2, S[j][1]);
            gdn_copy3(lp[i].v, P[j]);
            gdn_copy3(dlp.v1[i], dS[j][0]);
            gdn_copy3(dlp.v2[i], dS[j][1]);
            gdn_copy3(dlp.v[i], dP[j]);
        }
        if (gdn_mpr_portal_position(lp, &dlp, pos, dpos) != fallback) {
            return refuse(feature, 12);
        }
    } else {
        // the projection fallback: on a point the linearized witness map (history-free); on
        // a segment the portal's transverse direction, which depends on the search history
        if (fallback && k == 1) {
            return refuse(feature, 13);
        }
        if (fallback && !fallback_position(&L, S[0], dS[0], dn, dmu, dv0, pos, dpos)) {
            return refuse(feature, 17);
        }
    }
    if (k < 2 && !fallback) {
        double b0 = L.mu / (1 + L.mu), db0 = dmu / ((1 + L.mu) * (1 + L.mu));
        double dbary[3] = {0, 0, 0};
        for (int j = 0; j < k; j++) {
            dbary[j + 1] = dlam[j];
            dbary[0] -= dlam[j];
        }
        double c[3], dc[3], sw[3] = {0, 0, 0}, dsw[3] = {0, 0, 0};
        gdn_add3(c, L.s[0].p, L.s[1].p);
        gdn_box_point_motion(dc, dir->x1, L.s[0].p);
        gdn_box_point_motion(tmp, dir->x2, L.s[1].p);
        gdn_add3(dc, dc, tmp);
        for (int j = 0; j <= k; j++) {
            for (int i = 0; i < 3; i++) {
                double ab = S[j][0][i] + S[j][1][i], dab = dS[j][0][i] + dS[j][1][i];
                sw[i] += bary[j] * ab;
                dsw[i] += dbary[j] * ab + bary[j] * dab;
            }
        }
        for (int i = 0; i < 3; i++) {
            pos[i] = 0.5 * (b0 * c[i] + (1 - b0) * sw[i]);
            dpos[i] = 0.5 * (db0 * c[i] + b0 * dc[i] - db0 * sw[i] + (1 - b0) * dsw[i]);
        }
    }

    // the limit is near the forward's contact
    double dpf[3];
    gdn_sub3(dpf, pos, fwd->pos);
    if (gdn_norm3(dpf) > vtol || fabs(margin - depth - fwd->dist) > vtol) {
        return refuse(feature, 14);
    }

    // mjc_fixNormal: each curved geom's analytic normal (geom2's reversed), combined
    double nn[2][3], dnn[2][3];
    int proc[2];
    for (int si = 0; si < 2; si++) {
        double nm[3];
        gdn_scl3(nm, nraw, si ? -1 : 1);
        const Shape* sh = &L.s[si];
        gdnCurvedGeom geom = {sh->type, sh->p, sh->R, sh->size, sh->x, sh->ds};
        proc[si] = gdn_curved_fixed_normal(&geom, pos, dpos, nm, nn[si], dnn[si]);
        // the same fixNormal branch at the forward's position (else the limit's normal is
        // another formula than the forward's)
        double fo[3], dfo[3];
        int fproc = gdn_curved_fixed_normal(&geom, fwd->pos, dpos, nm, fo, dfo);
        if (proc[si] < 0 || fproc != proc[si] ||
            gdn_curved_fixed_branch(&geom, pos) != gdn_curved_fixed_branch(&geom, fwd->pos)) {
            return refuse(feature, 15);
        }
    }
    // the primal's ellipsoid iteration settled (at its cap it is not at the fixed point that
    // is differentiated here): its own step at the forward's position and MPR normal
    double fw[3], fparam[2];
    int fcode;
    gdn_mpr_triangle_closest(p[1].v, p[2].v, p[3].v, fw, &fcode, fparam);
    for (int si = 0; si < 2; si++) {
        if (L.s[si].type != GDN_GEOM_ELLIPSOID || !(gdn_norm3(fw) > 0)) {
            continue;
        }
        double rel[3], lp[3], ln[3], wn[3];
        gdn_sub3(rel, fwd->pos, L.s[si].p);
        gdn_mulmat3T(lp, L.s[si].R, rel);
        gdn_scl3(wn, fw, (si ? -1 : 1) / gdn_norm3(fw));
        gdn_mulmat3T(ln, L.s[si].R, wn);
        int settled;
        gdn_convex_local_normal(m, L.s[si].g, lp, ln, &settled);
        if (!settled) {
            return refuse(feature, 18);
        }
    }
    double fn[3], dfn[3];
    if (proc[0] && proc[1]) {
        double v[3], dv[3];
        gdn_sub3(v, nn[0], nn[1]);
        gdn_sub3(dv, dnn[0], dnn[1]);
        double len = gdn_norm3(v);
        if (!(len > GDN_MINVAL)) {
            return refuse(feature, 16);
        }
        gdn_scl3(fn, v, 1 / len);
        gdn_mpr_unit_tangent(dfn, fn, dv, len);
    } else if (proc[0]) {
        gdn_copy3(fn, nn[0]);
        gdn_copy3(dfn, dnn[0]);
    } else if (proc[1]) {
        gdn_scl3(fn, nn[1], -1);
        gdn_scl3(dfn, dnn[1], -1);
    } else {
        gdn_copy3(fn, nraw);
        gdn_copy3(dfn, dnraw);
    }
    if (limit) {
        limit[0] = margin - depth;
        gdn_copy3(limit + 1, pos);
        gdn_copy3(limit + 4, fn);
    }

    memset(t, 0, sizeof(*t));
    t->dist = -gdn_dot3(nraw, dw);
    // a non-finite tangent (a degenerate size): no derivative
    double tsum = t->dist + dpos[0] + dpos[1] + dpos[2] + dfn[0] + dfn[1] + dfn[2];
    if (!isfinite(tsum)) {
        return refuse(feature, 20);
    }
    gdn_copy3(t->pos, dpos);
    gdn_copy3(t->normal, dfn);
    *feature = 200 + 100 * k + (k ? code : 0) + 50 * (k != 1 && fallback);
    return GDN_OK;
}

// the forward's contact matched against con, its final portal, and the limit's tangent and
// values (limit may be NULL); the status and feature as gdn_box_finish gives them
static gdnStatus curved_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                             const gdnBoxDir* dir, gdnPairTangent* t, int* feature,
                             double limit[7]) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_convex);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    gdnBoxCand best = {.feature = -1};
    double best_score = 0;
    double margin = gdn_box_pair_margin(m, g1, g2);
    gdnContact fwd[GDN_MAXCONPAIR];
    if (gdn_collide_convex(m, d, fwd, g1, g2, margin) != 1) {
        return gdn_box_finish(&best, best_score, con, t, feature);
    }
    gdnConvexObj o1 = {m, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1, g1, margin, -1};
    gdnConvexObj o2 = {m, d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2, g2, margin, -1};
    gdnMprPoint p[4];
    int r = gdn_mpr_portal(&o1, &o2, m->opt.mpr_iterations, m->opt.mpr_tolerance, p);
    gdnBoxCand cand = {.feature = 199, .degenerate = 1};
    cand.dist = fwd[0].dist;
    gdn_copy3(cand.pos, fwd[0].pos);
    gdn_copy3(cand.normal, fwd[0].frame);
    // the origin on segment v0-v1 (no portal, 198) is not a limit of the refinement; a
    // negative margin (199) deflates
    if (r == 0 && margin >= 0) {
        int f = -1;
        gdnStatus st = curved_tangent(m, d, con, dir, p, fwd, margin, &cand.t, &f, limit);
        cand.degenerate = st != GDN_OK;
        cand.feature = f;
    } else {
        cand.feature = margin < 0 ? 199 : 198;
    }
    gdn_box_keep_nearest(&best, &best_score, con, &cand);
    return gdn_box_finish(&best, best_score, con, t, feature);
}

gdnStatus gdn_convex_curved_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                 const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    return curved_eval(m, d, con, dir, t, feature, NULL);
}

gdnStatus gdn_convex_curved_limit(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                  double limit[7]) {
    gdnBoxDir dir;
    memset(&dir, 0, sizeof(dir));
    gdnPairTangent t;
    int feature;
    return curved_eval(m, d, con, &dir, &t, &feature, limit);
}
