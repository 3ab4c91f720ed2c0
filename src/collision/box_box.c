// SPDX-License-Identifier: Apache-2.0
// Box-box collision: separating axes, then a face or edge contact manifold (MuJoCo 2.2.2's
// mjc_BoxBox; the driver removes repeated points, as MuJoCo's does).
#include <string.h>

#include "collision/box_box.h"
#include "collision/narrowphase.h"
#include "math/vec.h"

// most candidate points the manifold construction can hold
#define MAX_POINTS GDN_MAXCONPAIR

// res = A' B, summed over rows in order (MuJoCo's mju_mulMatTMat)
void gdn_box_mat_transpose_mul(double res[9], const double A[9], const double B[9]) {
    for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
            double sum = 0;
            for (int i = 0; i < 3; i++) {
                sum += A[3 * i + j] * B[3 * i + k];
            }
            res[3 * j + k] = sum;
        }
    }
}

// res = A B', each entry a dot product summed from zero (MuJoCo's mju_mulMatMatT)
void gdn_box_mat_mul_transpose(double res[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) {
                sum += A[3 * i + k] * B[3 * j + k];
            }
            res[3 * i + j] = sum;
        }
    }
}

// res = A'
void gdn_box_transpose3(double res[9], const double A[9]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            res[3 * j + i] = A[3 * i + j];
        }
    }
}

// r += v s
// r += v s
void gdn_box_add_scaled3(double r[3], const double v[3], double s) {
    r[0] += v[0] * s;
    r[1] += v[1] * s;
    r[2] += v[2] * s;
}

// the face frame of face 0..5
gdnFaceFrame gdn_box_face_frame(int face) {
    static const gdnFaceFrame frames[6] = {
        {{2, 1, 0}, {-1, 1, 1}}, {{0, 2, 1}, {1, -1, 1}}, {{0, 1, 2}, {1, 1, 1}},
        {{2, 1, 0}, {1, 1, -1}}, {{0, 2, 1}, {1, 1, -1}}, {{0, 1, 2}, {-1, 1, -1}},
    };
    return frames[face];
}

// F as a dense matrix
void gdn_box_face_matrix(double F[9], const gdnFaceFrame* f) {
    memset(F, 0, 9 * sizeof(double));
    for (int k = 0; k < 3; k++) {
        F[3 * k + f->perm[k]] = f->sign[k];
    }
}

// r = F v
void gdn_box_face_rotate(double r[3], const gdnFaceFrame* f, const double v[3]) {
    for (int k = 0; k < 3; k++) {
        r[k] = v[f->perm[k]] * f->sign[k];
    }
}

// R = F M (rows of M permuted and signed)
void gdn_box_face_rotate_rows(double R[9], const gdnFaceFrame* f, const double M[9]) {
    for (int k = 0; k < 3; k++) {
        gdn_scl3(R + 3 * k, M + 3 * f->perm[k], f->sign[k]);
    }
}

// e_i x b for box 1's axis e_i (box_box.h)
void gdn_box_edge_axis(double n[3], int i, const double* b) {
    gdn_zero3(n);
    if (i == 0) {
        n[1] = -b[2];
        n[2] = +b[1];
    } else if (i == 1) {
        n[0] = +b[2];
        n[2] = -b[0];
    } else {
        n[0] = -b[1];
        n[1] = +b[0];
    }
}

// The 15 separating axes: along face axis k of box 1 the overlap is
//   size1_k + sum_j |rot_kj| size2_j - |pos21_k|
// (box 2's faces symmetrically), along a_i x b_j (n = unit, |a_i x b_j| = L)
//   sum_{k != i} size1_k |n_k| + sum_{k != j} size2_k |rot_{i,3-k-j}| / L - |pos21 . n|.
// Any overlap < -margin separates (returns 0). The smallest overlap picks the axis; an edge pair
// must beat the best face by a relative 1e-12 (MuJoCo's rule) and by edge_bias. The bias is for
// aligned boxes in shallow contact: there a_i x b_j can be a face normal itself, its overlap
// equals the face's up to round-off (1e-17 m on 0.1 m boxes), and a relative 1e-12 of a 1e-6 m
// penetration is below that, so round-off alone would trade the face's four contacts for one
// edge point. Kamino's collision view sets 1e-9 m (its hard contacts cannot absorb the jump).
int gdn_box_box_axes(gdnBoxAxes* ax, const double* pos1, const double* mat1, const double* size1,
                     const double* pos2, const double* mat2, const double* size2, double margin,
                     double edge_bias) {
    double diff[3], plen1[3], plen2[3];
    gdn_sub3(diff, pos2, pos1);
    gdn_mulmat3T(ax->pos21, mat1, diff);
    gdn_sub3(diff, pos1, pos2);
    gdn_mulmat3T(ax->pos12, mat2, diff);
    gdn_box_mat_transpose_mul(ax->rot, mat1, mat2);
    gdn_box_transpose3(ax->rott, ax->rot);
    for (int i = 0; i < 9; i++) {
        ax->rotabs[i] = fabs(ax->rot[i]);
    }
    for (int i = 0; i < 9; i++) {
        ax->rottabs[i] = fabs(ax->rott[i]);
    }
    gdn_mulmat3(plen2, ax->rotabs, size2);
    gdn_mulmat3T(plen1, ax->rotabs, size1);

    double penetration = margin;
    for (int i = 0; i < 3; i++) {
        penetration += size1[i] * 3 + size2[i] * 3;
    }
    ax->code = -1;

    // face axes
    for (int i = 0; i < 3; i++) {
        double overlap1 = -fabs(ax->pos21[i]) + size1[i] + plen2[i];
        double overlap2 = -fabs(ax->pos12[i]) + size2[i] + plen1[i];
        if (overlap1 < -margin || overlap2 < -margin) {
            return 0;
        }
        if (overlap1 < penetration) {
            penetration = overlap1;
            ax->code = i + 3 * (ax->pos21[i] < 0);
        }
        if (overlap2 < penetration) {
            penetration = overlap2;
            ax->code = i + 3 * (ax->pos12[i] < 0) + 6;
        }
    }

    // edge-edge axes a_i x b_j, with b_j = column j of rot in box 1's frame
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double n[3];
            gdn_box_edge_axis(n, i, ax->rott + 3 * j);
            double len = gdn_normalize3(n);
            if (len < GDN_MINVAL) {
                continue;
            }
            double center_proj = gdn_dot3(ax->pos21, n);
            double overlap = 0;
            for (int k = 0; k < 3; k++) {
                if (k != i) {
                    overlap += size1[k] * fabs(n[k]);
                }
            }
            for (int k = 0; k < 3; k++) {
                if (k != j) {
                    overlap += size2[k] * ax->rotabs[3 * i + 3 - k - j] / len;
                }
            }
            overlap -= fabs(center_proj);
            if (overlap < -margin) {
                return 0;
            }
            if (overlap < penetration * (1 - 1e-12) - edge_bias) {
                penetration = overlap;
                int corner1 = 0, corner2 = 0;
                for (int k = 0; k < 3; k++) {
                    if (k != i && ((n[k] > 0) ^ (center_proj < 0))) {
                        corner1 += 1 << k;
                    }
                }
                for (int k = 0; k < 3; k++) {
                    if (k != j && ((ax->rot[3 * i + 3 - k - j] > 0) ^ (center_proj < 0) ^
                                   ((k - j + 3) % 3 == 1))) {
                        corner2 += 1 << k;
                    }
                }
                ax->code = 12 + i * 3 + j;
                ax->edge_corner1 = corner1;
                ax->edge_corner2 = corner2;
                gdn_copy3(ax->edge_normal, n);
                ax->flipped = center_proj < 0;
            }
        }
    }
    return 1;
}

// the crossings of a segment with the rectangle sides (box_box.h)
int gdn_box_segment_rect_hits(gdnSideHit hits[4], const double line[6], const double half[3]) {
    int nhit = 0;
    for (int q = 0; q < 2; q++) {
        double a = line[0 + q], b = line[3 + q], c = line[1 - q], d = line[4 - q];
        if (fabs(b) > GDN_MINVAL) {
            for (int j = -1; j <= 1; j += 2) {
                double l = half[q] * j;
                double t = (l - a) * (1 / b);
                if (t < 0 || t > 1) {
                    continue;
                }
                double along = c + d * t;
                if (fabs(along) > half[1 - q]) {
                    continue;
                }
                hits[nhit].t = t;
                hits[nhit].along = along;
                hits[nhit].side = l;
                hits[nhit].q = q;
                hits[nhit].j = j;
                nhit++;
            }
        }
    }
    return nhit;
}

// the incident box's lowest corner and its flat edges (box_box.h)
int gdn_box_incident_corner(const double r[9], int* corner, int flat[3]) {
    *corner = 0;
    for (int i = 0; i < 3; i++) {
        if (r[6 + i] < 0) {
            *corner += 1 << i;
        }
    }
    int nflat = 0;
    for (int i = 0; i < 3; i++) {
        if (fabs(r[6 + i]) < 0.5) {
            flat[nflat++] = i;
        }
    }
    return nflat;
}

// the coordinates (u, v) of the point (x, y) in the parallelogram spanned by (a, c) and
// (b, dd) with det = a dd - b c (multiplication by the reciprocal, as MuJoCo)
void gdn_box_parallelogram_uv(double x, double y, double a, double b, double c, double dd,
                              double det, double* u, double* v) {
    *u = (x * dd - y * b) * (1 / det);
    *v = (y * a - x * c) * (1 / det);
}

// face contact: the rectangle corner at (u, v) lies strictly inside the incident parallelogram
int gdn_box_face_corner_inside(double u, double v) {
    return !(u <= 0 || v <= 0 || u >= 1 || v >= 1);
}

// face contact: incident corner i (0: the lowest, always kept) strictly inside the rectangle
int gdn_box_face_incident_inside(int i, const double q[3], double lx, double ly) {
    if (i && (q[0] <= -lx || q[0] >= lx)) {
        return 0;
    }
    if (i && (q[1] <= -ly || q[1] >= ly)) {
        return 0;
    }
    return 1;
}

// edge contact: the rectangle corner at (u, v) is tested (with no side crossings, unless both
// coordinates are outside [0, 1]; else only inside)
int gdn_box_edge_corner_tested(int nlines, double u, double v) {
    if (nlines == 0) {
        return !((u < 0 || u > 1) && (v < 0 || v > 1));
    }
    return !(u < 0 || u > 1 || v < 0 || v > 1);
}

// edge contact: box 2's projected corner (x, y) is tested (with no side crossings, unless some
// rectangle corner was kept and both coordinates are outside the rectangle; else only inside)
int gdn_box_edge_incident_tested(int nlines, int ncorners, double x, double y, double lx,
                                 double ly) {
    if (nlines == 0) {
        return !(ncorners != 0 && (x < -lx || x > lx) && (y < -ly || y > ly));
    }
    return !(x < -lx || x > lx || y < -ly || y > ly);
}

// the incident box in the reference face's frame (box_box.h)
void gdn_box_face_incident(const gdnFaceFrame* ff, const double F[9], int on_box2,
                           const double rot[9], const double pos21[3], const double pos12[3],
                           const double size1[3], const double size2[3], double r[9],
                           double p[3], double ref_size[3], double s[3]) {
    if (on_box2) {
        gdn_box_mat_mul_transpose(r, F, rot);
        gdn_box_face_rotate(p, ff, pos12);
        gdn_box_face_rotate(ref_size, ff, size2);
        gdn_copy3(s, size1);
    } else {
        gdn_box_face_rotate_rows(r, ff, rot);
        gdn_box_face_rotate(p, ff, pos21);
        gdn_box_face_rotate(ref_size, ff, size1);
        gdn_copy3(s, size2);
    }
}

// Face contact: the reference face (of box 1 for codes < 6, else of box 2) is turned to +z by its
// face frame F; in that frame the incident box's lowest corner, its (up to two) edges nearly
// parallel to the face (|r_2i| < 0.5) and the resulting parallelogram are clipped against the
// reference rectangle |x| <= lx, |y| <= ly: edge crossings of the rectangle sides, rectangle
// corners inside the parallelogram (height interpolated), parallelogram corners inside the
// rectangle. Points above the margin are dropped. MuJoCo 2.2.2 reports dist = half the height
// below the face (the height is halved for the midpoint and that value is stored as dist).
static int face_contacts(gdnContact* con, const gdnBoxAxes* ax, const double* pos1,
                         const double* mat1, const double* size1, const double* pos2,
                         const double* mat2, const double* size2, double margin) {
    int face = ax->code % 6;
    int on_box2 = ax->code / 6;
    gdnFaceFrame ff = gdn_box_face_frame(face);
    double F[9];
    gdn_box_face_matrix(F, &ff);

    // r: incident box axes (rows) in the face frame; p: incident center; s: incident sizes
    double r[9], p[3], ref_size[3], s[3], rt[9];
    gdn_box_face_incident(&ff, F, on_box2, ax->rot, ax->pos21, ax->pos12, size1, size2, r, p,
                          ref_size, s);
    gdn_box_transpose3(rt, r);
    double half[3];
    for (int i = 0; i < 3; i++) {
        half[i] = fabs(ref_size[i]);
    }
    double lx = half[0], ly = half[1], hz = half[2];
    p[2] -= hz;

    // lowest incident corner (bit i: +s_i along incident axis i) and its flat edges
    int corner, flat[3];
    int nflat = gdn_box_incident_corner(r, &corner, flat);
    double pts[6][3];
    memset(pts, 0, sizeof(pts));
    gdn_copy3(pts[0], p);
    gdn_box_add_scaled3(pts[0], rt + 0, s[0] * ((corner & 1) ? 1 : -1));
    gdn_box_add_scaled3(pts[0], rt + 3, s[1] * ((corner & 2) ? 1 : -1));
    gdn_box_add_scaled3(pts[0], rt + 6, s[2] * ((corner & 4) ? 1 : -1));

    // edges from that corner that are flat enough to the face
    int npts = 1;
    for (int k = 0; k < nflat; k++) {
        int i = flat[k];
        gdn_scl3(pts[npts++], rt + 3 * i, s[i] * ((corner & (1 << i)) ? -2 : 2));
    }
    gdn_add3(pts[3], pts[0], pts[1]);
    gdn_add3(pts[4], pts[0], pts[2]);
    gdn_add3(pts[5], pts[3], pts[2]);

    // segments of the incident edge or parallelogram: (start, direction)
    double lines[4][6];
    int nlines = 0;
    if (npts > 1) {
        gdn_copy3(lines[nlines], pts[0]);
        gdn_copy3(lines[nlines++] + 3, pts[1]);
    }
    if (npts > 2) {
        gdn_copy3(lines[nlines], pts[0]);
        gdn_copy3(lines[nlines++] + 3, pts[2]);
        gdn_copy3(lines[nlines], pts[3]);
        gdn_copy3(lines[nlines++] + 3, pts[2]);
        gdn_copy3(lines[nlines], pts[4]);
        gdn_copy3(lines[nlines++] + 3, pts[1]);
    }

    double points[MAX_POINTS][3];
    int n = 0;
    for (int i = 0; i < nlines; i++) {
        gdnSideHit hits[4];
        int nhit = gdn_box_segment_rect_hits(hits, lines[i], half);
        for (int h = 0; h < nhit; h++) {
            gdn_copy3(points[n], lines[i]);
            gdn_box_add_scaled3(points[n++], lines[i] + 3, hits[h].t);
        }
    }

    // rectangle corners inside the parallelogram pts0 + u pts1 + v pts2 (0 < u, v < 1)
    double a = pts[1][0], b = pts[2][0], c = pts[1][1], dd = pts[2][1];
    double det = a * dd - b * c;
    if (npts > 2) {
        for (int i = 0; i < 4; i++) {
            double cx = i / 2 ? lx : -lx;
            double cy = i % 2 ? ly : -ly;
            double x = cx - pts[0][0];
            double y = cy - pts[0][1];
            double u, v;
            gdn_box_parallelogram_uv(x, y, a, b, c, dd, det, &u, &v);
            if (!gdn_box_face_corner_inside(u, v)) {
                continue;
            }
            points[n][0] = cx;
            points[n][1] = cy;
            points[n][2] = pts[0][2] + u * pts[1][2] + v * pts[2][2];
            n++;
        }
    }

    // incident corners strictly inside the rectangle (the lowest corner always counts)
    for (int i = 0; i < (1 << (npts - 1)); i++) {
        const double* q = pts[i == 0 ? 0 : i + 2];
        if (!gdn_box_face_incident_inside(i, q, lx, ly)) {
            continue;
        }
        gdn_copy3(points[n++], q);
    }

    // keep points within the margin; z becomes the midpoint height
    int ncand = n;
    n = 0;
    for (int i = 0; i < ncand; i++) {
        if (points[i][2] > margin) {
            continue;
        }
        gdn_copy3(points[n], points[i]);
        points[n][2] *= 0.5;
        n++;
    }
    if (n == 0) {
        return 0;
    }

    // back to world: the reference box's frame times F', normal = -+ its z axis
    double world[9];
    gdn_box_mat_mul_transpose(world, on_box2 ? mat2 : mat1, F);
    const double* origin = on_box2 ? pos2 : pos1;
    double sign = on_box2 ? -1 : 1;
    double normal[3] = {sign * world[2], sign * world[5], sign * world[8]};
    for (int i = 0; i < n; i++) {
        con[i].dist = points[i][2];
        points[i][2] += hz;
        double rotated[3];
        gdn_mulmat3(rotated, world, points[i]);
        gdn_add3(con[i].pos, rotated, origin);
        gdn_copy3(con[i].frame, normal);
        gdn_zero3(con[i].frame + 3);
    }
    return n;
}

// the edge pair's reference face of box 1 and box 2's axes across its edge (box_box.h)
int gdn_box_box_edge_face(const gdnBoxAxes* ax, int* ax1, int* ax2) {
    int edge1 = (ax->code - 12) / 3;
    int edge2 = (ax->code - 12) % 3;
    int pax1, pax2;
    if (edge2 == 0) {
        *ax1 = 1, *ax2 = 2;
    } else if (edge2 == 1) {
        *ax1 = 0, *ax2 = 2;
    } else {
        *ax1 = 1, *ax2 = 0;
    }
    if (edge1 == 0) {
        pax1 = 1, pax2 = 2;
    } else if (edge1 == 1) {
        pax1 = 0, pax2 = 2;
    } else {
        pax1 = 1, pax2 = 0;
    }
    if (ax->rotabs[3 * edge1 + *ax1] < ax->rotabs[3 * edge1 + *ax2]) {
        *ax1 = *ax2;
        *ax2 = 3 - edge2 - *ax1;
    }
    if (ax->rottabs[3 * edge2 + pax1] < ax->rottabs[3 * edge2 + pax2]) {
        pax1 = pax2;
        pax2 = 3 - edge1 - pax1;
    }
    return (ax->edge_corner1 & (1 << pax2)) ? pax2 : pax2 + 3;
}

// Edge-edge contact: box 1's face clface that contains its touching edge (the face whose normal
// is closer to the contact axis) is turned to +z; box 2's touching edge and its neighbour across
// the flatter face make a parallelogram (points 0..3, edge direction along box 2's axis j). Those
// are projected onto the face plane along the contact axis (innorm = +-1 / n_z scales heights to
// distances along it) and clipped: edge crossings of the rectangle sides, rectangle corners
// (clamped into the parallelogram), projected parallelogram corners (clamped into the rectangle),
// each kept within the margin. The points are midpoints, dist the signed distance.
static int edge_contacts(gdnContact* con, const gdnBoxAxes* ax, const double* pos1,
                         const double* mat1, const double* size1, const double* size2,
                         double margin) {
    double margin2 = margin * margin;
    int edge2 = (ax->code - 12) % 3;
    int ax1, ax2;
    int face = gdn_box_box_edge_face(ax, &ax1, &ax2);
    gdnFaceFrame ff = gdn_box_face_frame(face);
    double F[9];
    gdn_box_face_matrix(F, &ff);

    double p[3], rnorm[3], r[9], rt[9], tmp[3], s[3];
    gdn_box_face_rotate(p, &ff, ax->pos21);
    gdn_box_face_rotate(rnorm, &ff, ax->edge_normal);
    gdn_box_face_rotate_rows(r, &ff, ax->rot);
    gdn_mulmat3T(tmp, F, size1);
    for (int i = 0; i < 3; i++) {
        s[i] = fabs(tmp[i]);
    }
    gdn_box_transpose3(rt, r);
    double lx = s[0], ly = s[1], hz = s[2];
    p[2] -= hz;

    // box 2's touching edge (points 0, 1) and the parallel edge across the face (points 2, 3)
    double pu[4][3];
    int c2 = ax->edge_corner2;
    gdn_copy3(pu[0], p);
    gdn_box_add_scaled3(pu[0], rt + 3 * ax1, size2[ax1] * ((c2 & (1 << ax1)) ? 1 : -1));
    gdn_box_add_scaled3(pu[0], rt + 3 * ax2, size2[ax2] * ((c2 & (1 << ax2)) ? 1 : -1));
    gdn_copy3(pu[1], pu[0]);
    gdn_box_add_scaled3(pu[0], rt + 3 * edge2, size2[edge2]);
    gdn_box_add_scaled3(pu[1], rt + 3 * edge2, -size2[edge2]);
    gdn_copy3(pu[2], p);
    gdn_box_add_scaled3(pu[2], rt + 3 * ax1, size2[ax1] * ((c2 & (1 << ax1)) ? -1 : 1));
    gdn_box_add_scaled3(pu[2], rt + 3 * ax2, size2[ax2] * ((c2 & (1 << ax2)) ? 1 : -1));
    gdn_copy3(pu[3], pu[2]);
    gdn_box_add_scaled3(pu[2], rt + 3 * edge2, size2[edge2]);
    gdn_box_add_scaled3(pu[3], rt + 3 * edge2, -size2[edge2]);

    // unprojected parallelogram: origin and two sides
    double axi[3][3];
    gdn_copy3(axi[0], pu[0]);
    gdn_sub3(axi[1], pu[1], pu[0]);
    gdn_sub3(axi[2], pu[2], pu[0]);

    if (fabs(rnorm[2]) < GDN_MINVAL) {
        return 0;
    }
    double innorm = (1 / rnorm[2]) * (ax->flipped ? -1 : 1);

    // projected onto the face plane z = 0 along rnorm
    double proj[4][3], flat[4][2];
    for (int i = 0; i < 4; i++) {
        double t = -pu[i][2] * (1 / rnorm[2]);
        gdn_copy3(proj[i], pu[i]);
        gdn_box_add_scaled3(proj[i], rnorm, t);
        flat[i][0] = proj[i][0];
        flat[i][1] = proj[i][1];
    }
    double pts[3][3];
    gdn_copy3(pts[0], proj[0]);
    gdn_sub3(pts[1], proj[1], proj[0]);
    gdn_sub3(pts[2], proj[2], proj[0]);

    // the parallelogram's four sides, projected (lines) and unprojected (lines_up)
    double lines[4][6], lines_up[4][6];
    gdn_copy3(lines[0], pts[0]);
    gdn_copy3(lines[0] + 3, pts[1]);
    gdn_copy3(lines_up[0], axi[0]);
    gdn_copy3(lines_up[0] + 3, axi[1]);
    gdn_copy3(lines[1], pts[0]);
    gdn_copy3(lines[1] + 3, pts[2]);
    gdn_copy3(lines_up[1], axi[0]);
    gdn_copy3(lines_up[1] + 3, axi[2]);
    gdn_add3(lines[2], pts[0], pts[1]);
    gdn_copy3(lines[2] + 3, pts[2]);
    gdn_add3(lines_up[2], axi[0], axi[1]);
    gdn_copy3(lines_up[2] + 3, axi[2]);
    gdn_add3(lines[3], pts[0], pts[2]);
    gdn_copy3(lines[3] + 3, pts[1]);
    gdn_add3(lines_up[3], axi[0], axi[2]);
    gdn_copy3(lines_up[3] + 3, axi[1]);

    double points[MAX_POINTS][3], depth[MAX_POINTS];
    int n = 0;

    // side crossings whose unprojected height is within the margin
    for (int i = 0; i < 4; i++) {
        gdnSideHit hits[4];
        int nhit = gdn_box_segment_rect_hits(hits, lines[i], s);
        for (int h = 0; h < nhit && n < MAX_POINTS; h++) {
            double t = hits[h].t;
            if ((lines_up[i][2] + lines_up[i][5] * t) * innorm > margin) {
                continue;
            }
            gdn_scl3(points[n], lines_up[i], 0.5);
            gdn_box_add_scaled3(points[n], lines_up[i] + 3, 0.5 * t);
            points[n][hits[h].q] += 0.5 * hits[h].side;
            points[n][1 - hits[h].q] += 0.5 * hits[h].along;
            depth[n] = points[n][2] * innorm * 2;
            n++;
        }
    }
    int nlines = n;

    // rectangle corners against the parallelogram (u, v clamped to [0, 1]). MuJoCo 2.2.2 reuses
    // the determinant's variable for the squared distance, so after the first corner that
    // passes the (u, v) test, later corners divide by that squared distance instead of det.
    double a = pts[1][0], b = pts[2][0], c = pts[1][1], dd = pts[2][1];
    double det = a * dd - b * c;
    for (int i = 0; i < 4 && n < MAX_POINTS; i++) {
        double cx = i / 2 ? lx : -lx;
        double cy = i % 2 ? ly : -ly;
        double x = cx - pts[0][0];
        double y = cy - pts[0][1];
        double u, v;
        gdn_box_parallelogram_uv(x, y, a, b, c, dd, det, &u, &v);
        if (!gdn_box_edge_corner_tested(nlines, u, v)) {
            continue;
        }
        u = u < 0 ? 0 : (u > 1 ? 1 : u);
        v = v < 0 ? 0 : (v > 1 ? 1 : v);

        // point of box 2's face below the corner (unprojected), distance to the corner
        double under[3], corner[3] = {cx, cy, 0}, gap[3];
        gdn_scl3(under, pu[0], 1 - u - v);
        gdn_box_add_scaled3(under, pu[1], u);
        gdn_box_add_scaled3(under, pu[2], v);
        gdn_sub3(gap, corner, under);
        det = gdn_dot3(gap, gap);
        if (under[2] > 0 && det > margin2) {
            continue;
        }
        gdn_add3(points[n], corner, under);
        gdn_scl3(points[n], points[n], 0.5);
        depth[n] = sqrt(det) * (under[2] < 0 ? -1 : 1);
        n++;
    }
    int ncorners = n;

    // box 2's parallelogram corners, distance to the rectangle (clamped in x, y) and height
    for (int i = 0; i < 4 && n < MAX_POINTS; i++) {
        double x = flat[i][0], y = flat[i][1];
        if (!gdn_box_edge_incident_tested(nlines, ncorners, x, y, lx, ly)) {
            continue;
        }
        double dist2 = 0;
        for (int j = 0; j < 2; j++) {
            if (flat[i][j] < -s[j]) {
                dist2 += (flat[i][j] + s[j]) * (flat[i][j] + s[j]);
            } else if (flat[i][j] > s[j]) {
                dist2 += (flat[i][j] - s[j]) * (flat[i][j] - s[j]);
            }
        }
        dist2 += pu[i][2] * innorm * pu[i][2] * innorm;
        if (pu[i][2] > 0 && dist2 > margin2) {
            continue;
        }
        double mid[3] = {flat[i][0] * 0.5, flat[i][1] * 0.5, 0};
        for (int j = 0; j < 2; j++) {
            if (flat[i][j] < -s[j]) {
                mid[j] = -s[j] * 0.5;
            } else if (flat[i][j] > s[j]) {
                mid[j] = +s[j] * 0.5;
            }
        }
        gdn_box_add_scaled3(mid, pu[i], 0.5);
        gdn_copy3(points[n], mid);
        depth[n] = sqrt(dist2) * (pu[i][2] < 0 ? -1 : 1);
        n++;
    }

    // back to world through box 1's frame times F'
    double world[9], normal[3];
    gdn_box_mat_mul_transpose(world, mat1, F);
    gdn_mulmat3(tmp, world, rnorm);
    gdn_scl3(normal, tmp, ax->flipped ? -1 : 1);
    for (int i = 0; i < n; i++) {
        con[i].dist = depth[i];
        points[i][2] += hz;
        double rotated[3];
        gdn_mulmat3(rotated, world, points[i]);
        gdn_add3(con[i].pos, rotated, pos1);
        gdn_copy3(con[i].frame, normal);
        gdn_zero3(con[i].frame + 3);
    }
    return n;
}

// geoms 1 and 2 are boxes; normal from box 1 to box 2
int gdn_collide_box_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                        double margin) {
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* size1 = m->geom_size + 3 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size2 = m->geom_size + 3 * g2;

    gdnBoxAxes ax;
    if (!gdn_box_box_axes(&ax, pos1, mat1, size1, pos2, mat2, size2, margin,
                          m->opt.box_edge_bias) ||
        ax.code == -1) {
        return 0;
    }
    if (ax.code < 12) {
        return face_contacts(con, &ax, pos1, mat1, size1, pos2, mat2, size2, margin);
    }
    return edge_contacts(con, &ax, pos1, mat1, size1, size2, margin);
}
