// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of box-box contacts (collision/box_box.c): the separating axis, the
// reference face, the incident corner and edges and each point's clipping rule held.
#include <math.h>
#include <string.h>

#include "collision/box_box.h"
#include "collision/box_derivative.h"
#include "math/vec.h"

#define MAX_POINTS 64

// Every quantity x below carries its tangent dx along one input direction. Box i has center
// p_i (dp_i = w_i x p_i + v_i), rotation R_i (dR_i = [w_i] R_i), half-sizes s_i (ds_i).
// Relative quantities: rot = R1' R2, d rot = R1' [w2 - w1] R2; pos21 = R1' (p2 - p1),
// d pos21 = R1' (dp2 - dp1 - w1 x (p2 - p1)); pos12 likewise.

// a value with its tangent
typedef struct V3 {
    double v[3], d[3];
} V3;

// r += s x (value and tangent, the scale s with tangent ds)
static void v3_add_scaled(V3* r, const double* x, const double* dx, double s, double ds) {
    for (int k = 0; k < 3; k++) {
        r->v[k] += x[k] * s;
        r->d[k] += dx[k] * s + x[k] * ds;
    }
}

// a parallelogram from three corners q0, q1, q2: its origin q0 and sides q1 - q0, q2 - q0
static void parallelogram(V3 out[3], const V3 q[3]) {
    out[0] = q[0];
    for (int k = 0; k < 3; k++) {
        out[1].v[k] = q[1].v[k] - q[0].v[k];
        out[1].d[k] = q[1].d[k] - q[0].d[k];
        out[2].v[k] = q[2].v[k] - q[0].v[k];
        out[2].d[k] = q[2].d[k] - q[0].d[k];
    }
}

// the 2x2 system of a point's coordinates (u, v) in the parallelogram with sides e1, e2 (x, y
// parts): a = e1_x, b = e2_x, c = e1_y, dd = e2_y, det = a dd - b c, with tangents
typedef struct Parallelogram {
    double a, b, c, dd, da, db, dc, ddd, det, ddet;
} Parallelogram;

static void parallelogram_setup(Parallelogram* g, const V3* e1, const V3* e2) {
    g->a = e1->v[0], g->b = e2->v[0], g->c = e1->v[1], g->dd = e2->v[1];
    g->da = e1->d[0], g->db = e2->d[0], g->dc = e1->d[1], g->ddd = e2->d[1];
    g->det = g->a * g->dd - g->b * g->c;
    g->ddet = g->da * g->dd + g->a * g->ddd - g->db * g->c - g->b * g->dc;
}

// tangents of u = (x dd - y b) / det, v = (y a - x c) / det
static void uv_tangent(const Parallelogram* g, double x, double y, double dx, double dy, double u,
                       double v, double* du, double* dv) {
    *du = (dx * g->dd + x * g->ddd - dy * g->b - y * g->db - u * g->ddet) / g->det;
    *dv = (dy * g->a + y * g->da - dx * g->c - x * g->dc - v * g->ddet) / g->det;
}

// the relative frame of the pair (the primal's) and its tangent
typedef struct Relative {
    gdnBoxAxes a;
    double drot[9], drott[9], dpos21[3], dpos12[3], dedge_normal[3];
} Relative;

// The primal's separating-axis search (gdn_box_box_axes) with the tangents of rot, pos21,
// pos12 and, for an edge pair, of n = unit(e_i x b_j): dn = (dm - n (n . dm)) / |m|,
// m = e_i x b_j.
static int find_axis(Relative* ax, const double* p1, const double* R1, const double* s1,
                     const double* p2, const double* R2, const double* s2, double margin,
                     double edge_bias, const gdnBoxDir* dir) {
    if (!gdn_box_box_axes(&ax->a, p1, R1, s1, p2, R2, s2, margin, edge_bias)) {
        return 0;
    }
    double diff[3], ddiff[3], dp1[3], dp2[3], tmp[3];
    gdn_box_point_motion(dp1, dir->x1, p1);
    gdn_box_point_motion(dp2, dir->x2, p2);
    gdn_sub3(diff, p2, p1);
    gdn_sub3(ddiff, dp2, dp1);
    gdn_cross3(tmp, dir->x1, diff);
    gdn_sub3(ddiff, ddiff, tmp);
    gdn_mulmat3T(ax->dpos21, R1, ddiff);
    gdn_sub3(diff, p1, p2);
    gdn_sub3(ddiff, dp1, dp2);
    gdn_cross3(tmp, dir->x2, diff);
    gdn_sub3(ddiff, ddiff, tmp);
    gdn_mulmat3T(ax->dpos12, R2, ddiff);
    // d rot = R1' ([w2 - w1] R2), column by column
    double dw[3], wR2[9];
    gdn_sub3(dw, dir->x2, dir->x1);
    for (int k = 0; k < 3; k++) {
        double col[3] = {R2[k], R2[3 + k], R2[6 + k]}, dcol[3];
        gdn_cross3(dcol, dw, col);
        wR2[k] = dcol[0];
        wR2[3 + k] = dcol[1];
        wR2[6 + k] = dcol[2];
    }
    gdn_box_mat_transpose_mul(ax->drot, R1, wR2);
    gdn_box_transpose3(ax->drott, ax->drot);

    // the picked edge pair's axis tangent (m is linear in b_j: dm = e_i x db_j)
    if (ax->a.code >= 12) {
        int i = (ax->a.code - 12) / 3, j = (ax->a.code - 12) % 3;
        double n[3], dn[3];
        gdn_box_edge_axis(n, i, ax->a.rott + 3 * j);
        gdn_box_edge_axis(dn, i, ax->drott + 3 * j);
        double len = gdn_normalize3(n);
        double proj = gdn_dot3(n, dn);
        for (int k = 0; k < 3; k++) {
            dn[k] = (dn[k] - n[k] * proj) / len;
        }
        gdn_copy3(ax->dedge_normal, dn);
    }
    return 1;
}

// the primal's side crossings of segment o + t e (x, y only) with the rectangle |x| <= half_0,
// |y| <= half_1 and their tangents: t = (l - o_q) / e_q (l = +-half_q),
// dt = (dl - do_q - t de_q) / e_q; along = o_{1-q} + e_{1-q} t
typedef struct Hit {
    double t, dt, along, dalong, side, dside;
    int q;
} Hit;

static int segment_rect_hits(Hit hits[4], const double line[6], const double dline[6],
                             const double half[3], const double dhalf[3]) {
    gdnSideHit primal[4];
    int nhit = gdn_box_segment_rect_hits(primal, line, half);
    for (int k = 0; k < nhit; k++) {
        int q = primal[k].q, j = primal[k].j;
        double b = line[3 + q], d = line[4 - q];
        double da = dline[0 + q], db = dline[3 + q], dc = dline[1 - q], dd = dline[4 - q];
        Hit* h = hits + k;
        h->t = primal[k].t;
        h->dt = (dhalf[q] * j - da - h->t * db) / b;
        h->along = primal[k].along;
        h->dalong = dc + dd * h->t + d * h->dt;
        h->side = primal[k].side;
        h->dside = dhalf[q] * j;
        h->q = q;
    }
    return nhit;
}

// world contact from a face-frame point P (tangent dP) of the reference box (origin o moving
// with twist x, world = Rref F'): pos = world P + o, d pos = w x pos + v + world dP
static void to_world(gdnBoxCand* c, const double world[9], const double o[3], const double x[6],
                     const double P[3], const double dP[3]) {
    double rotated[3], tmp[3];
    gdn_mulmat3(rotated, world, P);
    gdn_add3(c->pos, rotated, o);
    gdn_box_point_motion(c->t.pos, x, c->pos);
    gdn_mulmat3(tmp, world, dP);
    gdn_add3(c->t.pos, c->t.pos, tmp);
}

// Face contacts (the primal's face_contacts): in the reference face frame, incident corner
// pts0 = p + sum_i +-s_i rt_i, edges pts_k = -+2 s_i rt_i (|r_2i| < 0.5), crossings
// line + t dir, rectangle corners (cx, cy, z0 + u z1 + v z2) with (u, v) from the 2x2 solve,
// incident corners; dist = z / 2 (MuJoCo 2.2.2), pos = world (x, y, z / 2 + hz) + origin.
static void face_contacts(gdnBoxCand* best, double* best_score, const gdnContact* con,
                          const Relative* ax, const double* p1, const double* R1,
                          const double* s1, const double* p2, const double* R2,
                          const double* s2, double margin, const gdnBoxDir* dir) {
    int face = ax->a.code % 6;
    int on_box2 = ax->a.code / 6;
    gdnFaceFrame ff = gdn_box_face_frame(face);
    double F[9];
    gdn_box_face_matrix(F, &ff);

    // the primal's incident frame (gdn_box_face_incident, linear) of the values and tangents
    double r[9], dr[9], p[3], dp[3], ref[3], dref[3], s[3], ds[3], rt[9], drt[9];
    gdn_box_face_incident(&ff, F, on_box2, ax->a.rot, ax->a.pos21, ax->a.pos12, s1, s2, r, p,
                          ref, s);
    gdn_box_face_incident(&ff, F, on_box2, ax->drot, ax->dpos21, ax->dpos12, dir->ds1, dir->ds2,
                          dr, dp, dref, ds);
    gdn_box_transpose3(rt, r);
    gdn_box_transpose3(drt, dr);
    double half[3], dhalf[3];
    for (int i = 0; i < 3; i++) {
        half[i] = fabs(ref[i]);
        dhalf[i] = ref[i] < 0 ? -dref[i] : dref[i];
    }
    double lx = half[0], ly = half[1], hz = half[2];
    p[2] -= hz;
    dp[2] -= dhalf[2];

    // the primal's lowest incident corner and flat edges
    int corner, flat[3];
    int nflat = gdn_box_incident_corner(r, &corner, flat);
    V3 pts[6];
    memset(pts, 0, sizeof(pts));
    gdn_copy3(pts[0].v, p);
    gdn_copy3(pts[0].d, dp);
    for (int i = 0; i < 3; i++) {
        double sg = (corner & (1 << i)) ? 1 : -1;
        v3_add_scaled(&pts[0], rt + 3 * i, drt + 3 * i, s[i] * sg, ds[i] * sg);
    }
    int npts = 1;
    for (int f = 0; f < nflat; f++) {
        int i = flat[f];
        double sg = (corner & (1 << i)) ? -2 : 2;
        V3* e = &pts[npts++];
        gdn_scl3(e->v, rt + 3 * i, s[i] * sg);
        for (int k = 0; k < 3; k++) {
            e->d[k] = drt[3 * i + k] * s[i] * sg + rt[3 * i + k] * ds[i] * sg;
        }
    }
    for (int k = 0; k < 3; k++) {
        pts[3].v[k] = pts[0].v[k] + pts[1].v[k];
        pts[3].d[k] = pts[0].d[k] + pts[1].d[k];
        pts[4].v[k] = pts[0].v[k] + pts[2].v[k];
        pts[4].d[k] = pts[0].d[k] + pts[2].d[k];
        pts[5].v[k] = pts[3].v[k] + pts[2].v[k];
        pts[5].d[k] = pts[3].d[k] + pts[2].d[k];
    }

    double lines[4][6], dlines[4][6];
    int nlines = 0;
    const int line_start[4] = {0, 0, 3, 4}, line_dir[4] = {1, 2, 2, 1};
    for (int i = 0; i < 4; i++) {
        if ((i == 0 && npts > 1) || (i > 0 && npts > 2)) {
            gdn_copy3(lines[nlines], pts[line_start[i]].v);
            gdn_copy3(lines[nlines] + 3, pts[line_dir[i]].v);
            gdn_copy3(dlines[nlines], pts[line_start[i]].d);
            gdn_copy3(dlines[nlines] + 3, pts[line_dir[i]].d);
            nlines++;
        }
    }

    // candidate points (face frame, before the margin test) with their class
    double P[MAX_POINTS][3], dP[MAX_POINTS][3];
    int cls[MAX_POINTS];
    int n = 0;
    for (int i = 0; i < nlines; i++) {
        Hit hits[4];
        int nhit = segment_rect_hits(hits, lines[i], dlines[i], half, dhalf);
        for (int h = 0; h < nhit; h++) {
            for (int k = 0; k < 3; k++) {
                P[n][k] = lines[i][k];
                P[n][k] += lines[i][3 + k] * hits[h].t;
                dP[n][k] = dlines[i][k] + dlines[i][3 + k] * hits[h].t +
                           lines[i][3 + k] * hits[h].dt;
            }
            cls[n++] = 0;
        }
    }

    // rectangle corners inside the incident parallelogram
    Parallelogram g;
    parallelogram_setup(&g, &pts[1], &pts[2]);
    if (npts > 2) {
        for (int i = 0; i < 4; i++) {
            double cx = i / 2 ? lx : -lx, dcx = i / 2 ? dhalf[0] : -dhalf[0];
            double cy = i % 2 ? ly : -ly, dcy = i % 2 ? dhalf[1] : -dhalf[1];
            double x = cx - pts[0].v[0], dx = dcx - pts[0].d[0];
            double y = cy - pts[0].v[1], dy = dcy - pts[0].d[1];
            double u, v;
            gdn_box_parallelogram_uv(x, y, g.a, g.b, g.c, g.dd, g.det, &u, &v);
            if (!gdn_box_face_corner_inside(u, v)) {
                continue;
            }
            double du, dv;
            uv_tangent(&g, x, y, dx, dy, u, v, &du, &dv);
            P[n][0] = cx;
            P[n][1] = cy;
            P[n][2] = pts[0].v[2] + u * pts[1].v[2] + v * pts[2].v[2];
            dP[n][0] = dcx;
            dP[n][1] = dcy;
            dP[n][2] = pts[0].d[2] + du * pts[1].v[2] + u * pts[1].d[2] + dv * pts[2].v[2] +
                       v * pts[2].d[2];
            cls[n++] = 1;
        }
    }

    // incident corners strictly inside the rectangle
    for (int i = 0; i < (1 << (npts - 1)); i++) {
        const V3* q = &pts[i == 0 ? 0 : i + 2];
        if (!gdn_box_face_incident_inside(i, q->v, lx, ly)) {
            continue;
        }
        gdn_copy3(P[n], q->v);
        gdn_copy3(dP[n], q->d);
        cls[n++] = 2;
    }

    // margin, halved height, world
    double world[9];
    gdn_box_mat_mul_transpose(world, on_box2 ? R2 : R1, F);
    const double* origin = on_box2 ? p2 : p1;
    const double* x = on_box2 ? dir->x2 : dir->x1;
    double sign = on_box2 ? -1 : 1;
    double normal[3] = {sign * world[2], sign * world[5], sign * world[8]}, dnormal[3];
    gdn_cross3(dnormal, x, normal);
    for (int i = 0; i < n; i++) {
        if (P[i][2] > margin) {
            continue;
        }
        gdnBoxCand cand = {.feature = 10 * on_box2 + cls[i]};
        double Q[3] = {P[i][0], P[i][1], P[i][2] * 0.5};
        double dQ[3] = {dP[i][0], dP[i][1], dP[i][2] * 0.5};
        cand.dist = Q[2];
        cand.t.dist = dQ[2];
        Q[2] += hz;
        dQ[2] += dhalf[2];
        to_world(&cand, world, origin, x, Q, dQ);
        gdn_copy3(cand.normal, normal);
        gdn_copy3(cand.t.normal, dnormal);
        gdn_box_keep_nearest(best, best_score, con, &cand);
    }
}

// Edge-edge contacts (the primal's edge_contacts): box 1's face frame, box 2's parallelogram
// pu0..pu3 projected along rnorm, proj_i = pu_i - rnorm pu_i,z / rnorm_z; side crossings
// (points from the unprojected sides), rectangle corners against the parallelogram (the
// primal's reuse of det as the squared distance kept, with its tangent 2 gap . dgap),
// projected parallelogram corners; depth = sqrt(dist2) (tangent d dist2 / (2 depth)).
static void edge_contacts(gdnBoxCand* best, double* best_score, const gdnContact* con,
                          const Relative* ax, const double* p1, const double* R1,
                          const double* size1, const double* size2, double margin,
                          const gdnBoxDir* dir) {
    double margin2 = margin * margin;
    int edge2 = (ax->a.code - 12) % 3;
    int ax1, ax2;
    int face = gdn_box_box_edge_face(&ax->a, &ax1, &ax2);
    gdnFaceFrame ff = gdn_box_face_frame(face);
    double F[9];
    gdn_box_face_matrix(F, &ff);

    double p[3], dp[3], rn[3], drn[3], r[9], dr[9], rt[9], drt[9], tmp[3], dtmp[3], s[3], ds[3];
    gdn_box_face_rotate(p, &ff, ax->a.pos21);
    gdn_box_face_rotate(dp, &ff, ax->dpos21);
    gdn_box_face_rotate(rn, &ff, ax->a.edge_normal);
    gdn_box_face_rotate(drn, &ff, ax->dedge_normal);
    gdn_box_face_rotate_rows(r, &ff, ax->a.rot);
    gdn_box_face_rotate_rows(dr, &ff, ax->drot);
    gdn_mulmat3T(tmp, F, size1);
    gdn_mulmat3T(dtmp, F, dir->ds1);
    for (int i = 0; i < 3; i++) {
        s[i] = fabs(tmp[i]);
        ds[i] = tmp[i] < 0 ? -dtmp[i] : dtmp[i];
    }
    gdn_box_transpose3(rt, r);
    gdn_box_transpose3(drt, dr);
    double lx = s[0], ly = s[1], hz = s[2];
    p[2] -= hz;
    dp[2] -= ds[2];
    const double* ds2 = dir->ds2;

    // box 2's touching edge (0, 1) and the parallel edge across the face (2, 3)
    V3 pu[4];
    int c2 = ax->a.edge_corner2;
    double sg1 = (c2 & (1 << ax1)) ? 1 : -1, sg2 = (c2 & (1 << ax2)) ? 1 : -1;
    for (int half_edge = 0; half_edge < 2; half_edge++) {
        V3* q = &pu[2 * half_edge];
        gdn_copy3(q->v, p);
        gdn_copy3(q->d, dp);
        double g1 = half_edge ? -sg1 : sg1;
        v3_add_scaled(q, rt + 3 * ax1, drt + 3 * ax1, size2[ax1] * g1, ds2[ax1] * g1);
        v3_add_scaled(q, rt + 3 * ax2, drt + 3 * ax2, size2[ax2] * sg2, ds2[ax2] * sg2);
        pu[2 * half_edge + 1] = *q;
        v3_add_scaled(q, rt + 3 * edge2, drt + 3 * edge2, size2[edge2], ds2[edge2]);
        v3_add_scaled(&pu[2 * half_edge + 1], rt + 3 * edge2, drt + 3 * edge2, -size2[edge2],
                      -ds2[edge2]);
    }
    V3 axi[3];
    parallelogram(axi, pu);
    if (fabs(rn[2]) < GDN_MINVAL) {
        return;
    }
    double fs = ax->a.flipped ? -1 : 1;
    double innorm = (1 / rn[2]) * fs;
    double dinnorm = -innorm * drn[2] / rn[2];

    // projections onto the face plane along rnorm
    V3 proj[4];
    for (int i = 0; i < 4; i++) {
        double t = -pu[i].v[2] * (1 / rn[2]);
        double dt = (-pu[i].d[2] - t * drn[2]) / rn[2];
        proj[i] = pu[i];
        v3_add_scaled(&proj[i], rn, drn, t, dt);
    }
    V3 pts[3];
    parallelogram(pts, proj);

    // the parallelogram's sides, projected and unprojected
    double lines[4][6], dlines[4][6], up[4][6], dup[4][6];
    const int sa[4] = {0, 0, 1, 2}, dirs[4] = {1, 2, 2, 1};
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) {
            // start: pts0 (i < 2), pts0 + pts1 (i = 2), pts0 + pts2 (i = 3)
            lines[i][k] = pts[0].v[k] + (i >= 2 ? pts[sa[i]].v[k] : 0);
            dlines[i][k] = pts[0].d[k] + (i >= 2 ? pts[sa[i]].d[k] : 0);
            lines[i][3 + k] = pts[dirs[i]].v[k];
            dlines[i][3 + k] = pts[dirs[i]].d[k];
            up[i][k] = axi[0].v[k] + (i >= 2 ? axi[sa[i]].v[k] : 0);
            dup[i][k] = axi[0].d[k] + (i >= 2 ? axi[sa[i]].d[k] : 0);
            up[i][3 + k] = axi[dirs[i]].v[k];
            dup[i][3 + k] = axi[dirs[i]].d[k];
        }
    }

    double P[MAX_POINTS][3], dP[MAX_POINTS][3], depth[MAX_POINTS], ddepth[MAX_POINTS];
    int cls[MAX_POINTS], degen[MAX_POINTS];
    int n = 0;

    // side crossings within the margin
    for (int i = 0; i < 4; i++) {
        Hit hits[4];
        int nhit = segment_rect_hits(hits, lines[i], dlines[i], s, ds);
        for (int h = 0; h < nhit && n < MAX_POINTS; h++) {
            double t = hits[h].t, dt = hits[h].dt;
            if ((up[i][2] + up[i][5] * t) * innorm > margin) {
                continue;
            }
            int q = hits[h].q;
            gdn_scl3(P[n], up[i], 0.5);
            gdn_box_add_scaled3(P[n], up[i] + 3, 0.5 * t);
            for (int k = 0; k < 3; k++) {
                dP[n][k] = 0.5 * dup[i][k] + 0.5 * (dup[i][3 + k] * t + up[i][3 + k] * dt);
            }
            P[n][q] += 0.5 * hits[h].side;
            dP[n][q] += 0.5 * hits[h].dside;
            P[n][1 - q] += 0.5 * hits[h].along;
            dP[n][1 - q] += 0.5 * hits[h].dalong;
            depth[n] = P[n][2] * innorm * 2;
            ddepth[n] = (dP[n][2] * innorm + P[n][2] * dinnorm) * 2;
            cls[n] = 0;
            degen[n] = 0;
            n++;
        }
    }
    int nlines = n;

    // rectangle corners against the parallelogram; det is the primal's variable
    Parallelogram g;
    parallelogram_setup(&g, &pts[1], &pts[2]);
    for (int i = 0; i < 4 && n < MAX_POINTS; i++) {
        double cx = i / 2 ? lx : -lx, dcx = i / 2 ? ds[0] : -ds[0];
        double cy = i % 2 ? ly : -ly, dcy = i % 2 ? ds[1] : -ds[1];
        double x = cx - pts[0].v[0], dx = dcx - pts[0].d[0];
        double y = cy - pts[0].v[1], dy = dcy - pts[0].d[1];
        double u, v;
        gdn_box_parallelogram_uv(x, y, g.a, g.b, g.c, g.dd, g.det, &u, &v);
        if (!gdn_box_edge_corner_tested(nlines, u, v)) {
            continue;
        }
        double du, dv;
        uv_tangent(&g, x, y, dx, dy, u, v, &du, &dv);
        if (u < 0 || u > 1) {
            u = u < 0 ? 0 : 1;
            du = 0;
        }
        if (v < 0 || v > 1) {
            v = v < 0 ? 0 : 1;
            dv = 0;
        }
        double under[3], dunder[3], corner[3] = {cx, cy, 0}, dcorner[3] = {dcx, dcy, 0};
        double gap[3], dgap[3];
        for (int k = 0; k < 3; k++) {
            under[k] = pu[0].v[k] * (1 - u - v);
            under[k] += pu[1].v[k] * u;
            under[k] += pu[2].v[k] * v;
            dunder[k] = pu[0].d[k] * (1 - u - v) - pu[0].v[k] * (du + dv) + pu[1].d[k] * u +
                        pu[1].v[k] * du + pu[2].d[k] * v + pu[2].v[k] * dv;
        }
        gdn_sub3(gap, corner, under);
        gdn_sub3(dgap, dcorner, dunder);
        g.det = gdn_dot3(gap, gap);
        g.ddet = 2 * gdn_dot3(gap, dgap);
        if (under[2] > 0 && g.det > margin2) {
            continue;
        }
        gdn_add3(P[n], corner, under);
        gdn_scl3(P[n], P[n], 0.5);
        for (int k = 0; k < 3; k++) {
            dP[n][k] = 0.5 * (dcorner[k] + dunder[k]);
        }
        double sgn = under[2] < 0 ? -1 : 1;
        depth[n] = sqrt(g.det) * sgn;
        degen[n] = !(g.det > 0);
        ddepth[n] = degen[n] ? 0 : sgn * g.ddet / (2 * sqrt(g.det));
        cls[n] = 1;
        n++;
    }
    int ncorners = n;

    // box 2's projected corners, clamped into the rectangle
    for (int i = 0; i < 4 && n < MAX_POINTS; i++) {
        double fx = proj[i].v[0], fy = proj[i].v[1];
        if (!gdn_box_edge_incident_tested(nlines, ncorners, fx, fy, lx, ly)) {
            continue;
        }
        double dist2 = 0, ddist2 = 0;
        double mid[3] = {proj[i].v[0] * 0.5, proj[i].v[1] * 0.5, 0};
        double dmid[3] = {proj[i].d[0] * 0.5, proj[i].d[1] * 0.5, 0};
        for (int j = 0; j < 2; j++) {
            double f = proj[i].v[j], df = proj[i].d[j];
            if (f < -s[j]) {
                dist2 += (f + s[j]) * (f + s[j]);
                ddist2 += 2 * (f + s[j]) * (df + ds[j]);
                mid[j] = -s[j] * 0.5;
                dmid[j] = -ds[j] * 0.5;
            } else if (f > s[j]) {
                dist2 += (f - s[j]) * (f - s[j]);
                ddist2 += 2 * (f - s[j]) * (df - ds[j]);
                mid[j] = +s[j] * 0.5;
                dmid[j] = +ds[j] * 0.5;
            }
        }
        double hn = pu[i].v[2] * innorm, dhn = pu[i].d[2] * innorm + pu[i].v[2] * dinnorm;
        dist2 += pu[i].v[2] * innorm * pu[i].v[2] * innorm;
        ddist2 += 2 * hn * dhn;
        if (pu[i].v[2] > 0 && dist2 > margin2) {
            continue;
        }
        gdn_box_add_scaled3(mid, pu[i].v, 0.5);
        for (int k = 0; k < 3; k++) {
            dmid[k] += 0.5 * pu[i].d[k];
        }
        gdn_copy3(P[n], mid);
        gdn_copy3(dP[n], dmid);
        double sgn = pu[i].v[2] < 0 ? -1 : 1;
        depth[n] = sqrt(dist2) * sgn;
        degen[n] = !(dist2 > 0);
        ddepth[n] = degen[n] ? 0 : sgn * ddist2 / (2 * sqrt(dist2));
        cls[n] = 2;
        n++;
    }

    // world through box 1's frame times F'; normal = +-world rnorm
    double world[9], normal[3], dnormal[3];
    gdn_box_mat_mul_transpose(world, R1, F);
    gdn_mulmat3(tmp, world, rn);
    gdn_scl3(normal, tmp, fs);
    gdn_cross3(dnormal, dir->x1, normal);
    gdn_mulmat3(tmp, world, drn);
    gdn_box_add_scaled3(dnormal, tmp, fs);
    for (int i = 0; i < n; i++) {
        gdnBoxCand cand = {.feature = 20 + cls[i], .degenerate = degen[i]};
        cand.dist = depth[i];
        cand.t.dist = ddepth[i];
        double Q[3] = {P[i][0], P[i][1], P[i][2] + hz};
        double dQ[3] = {dP[i][0], dP[i][1], dP[i][2] + ds[2]};
        to_world(&cand, world, p1, dir->x1, Q, dQ);
        gdn_copy3(cand.normal, normal);
        gdn_copy3(cand.t.normal, dnormal);
        gdn_box_keep_nearest(best, best_score, con, &cand);
    }
}

// geoms 1 and 2 are boxes
gdnStatus gdn_box_box_eval(const gdnModel* m, const gdnData* d, const gdnContact* con,
                           const gdnBoxDir* dir, gdnPairTangent* t, int* feature) {
    *feature = -1;
    gdnStatus ok = gdn_box_check(m, d, con, gdn_collide_box_box);
    if (ok != GDN_OK || !t) {
        return GDN_ERR_ARG;
    }
    int g1 = con->geom1, g2 = con->geom2;
    const double* p1 = d->geom_xpos + 3 * g1;
    const double* R1 = d->geom_xmat + 9 * g1;
    const double* s1 = m->geom_size + 3 * g1;
    const double* p2 = d->geom_xpos + 3 * g2;
    const double* R2 = d->geom_xmat + 9 * g2;
    const double* s2 = m->geom_size + 3 * g2;
    double margin = gdn_box_pair_margin(m, g1, g2);
    gdnBoxCand best = {.feature = -1};
    double best_score = 0;
    Relative ax;
    if (find_axis(&ax, p1, R1, s1, p2, R2, s2, margin, m->opt.box_edge_bias, dir) &&
        ax.a.code >= 0) {
        if (ax.a.code < 12) {
            face_contacts(&best, &best_score, con, &ax, p1, R1, s1, p2, R2, s2, margin, dir);
        } else {
            edge_contacts(&best, &best_score, con, &ax, p1, R1, s1, s2, margin, dir);
        }
    }
    return gdn_box_finish(&best, best_score, con, t, feature);
}
