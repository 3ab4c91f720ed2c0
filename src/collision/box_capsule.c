// SPDX-License-Identifier: Apache-2.0
// Capsule-box collision: closest segment point plus a second point (MuJoCo 2.2.2's mjc_CapsuleBox).
#include "collision/box_capsule.h"
#include "collision/box_sphere.h"
#include "collision/narrowphase.h"
#include "math/vec.h"

// Everything below works in the box frame: the capsule segment is p + t a, t in [-1, 1], with
// p the capsule center and a its half axis. The search keeps squared distances.

// Segment ends against the box: clamp each end to the box; ends outside more than one slab are
// left to the edge test. Squared distance to the clamped point decides.
static void closest_end(gdnCapsuleClosest* best, const double p[3], const double a[3],
                        const double size[3]) {
    for (int end = -1; end <= 1; end += 2) {
        double point[3], clamped[3];
        for (int k = 0; k < 3; k++) {
            point[k] = p[k];
            point[k] += a[k] * end;
        }
        gdn_copy3(clamped, point);
        int nclamped = 0, clamped_axis = -1;
        for (int k = 0; k < 3; k++) {
            if (clamped[k] < -size[k]) {
                nclamped++;
                clamped_axis = k;
                clamped[k] = -size[k];
            } else if (clamped[k] > size[k]) {
                nclamped++;
                clamped_axis = k;
                clamped[k] = size[k];
            }
        }
        if (nclamped > 1) {
            continue;
        }
        double diff[3];
        gdn_sub3(diff, clamped, point);
        double dist2 = gdn_dot3(diff, diff);
        if (dist2 < best->dist2) {
            best->dist2 = dist2;
            best->segment_pos = end;
            best->type = -2 + end;
            best->face = clamped_axis;
        }
    }
}

// Segment against the 12 box edges: edge j through corner c (c_j = 0) is c + x size_j e_j,
// x in [-1, 1]. Minimizing |c + x s_j e_j - p - t a|^2 over (x, t) solves
//   [ s_j^2      -s_j a_j ] [x]   [ -s_j (c - p)_j ]
//   [ -s_j a_j    r_len^2 ] [t] = [  a . (c - p)    ]
// (r_len = capsule half length, |a| = r_len), then clamps x, re-solves t, clamps t, re-solves x.
// A candidate replaces the best only when closer by more than GDN_MINVAL (segments nearly parallel
// to an edge keep the first one found).
static void closest_edge(gdnCapsuleClosest* best, const double p[3], const double a[3],
                         double half_length, const double size[3]) {
    for (int j = 0; j < 3; j++) {
        for (int c = 0; c < 8; c++) {
            if ((c & (1 << j)) != 0) {
                continue;
            }
            double start[3] = {((c & 1) ? 1 : -1) * size[0], ((c & 2) ? 1 : -1) * size[1],
                               ((c & 4) ? 1 : -1) * size[2]};
            start[j] = 0;
            double diff[3];
            gdn_sub3(diff, start, p);

            double ma = size[j] * size[j];
            double mb = -size[j] * a[j];
            double mc = half_length * half_length;
            double u = -size[j] * diff[j];
            double v = gdn_dot3(a, diff);
            double det = ma * mc - mb * mb;
            if (fabs(det) < GDN_MINVAL) {
                continue;
            }
            double inv_det = 1 / det;
            double x = (mc * u - mb * v) * inv_det;
            double t = (ma * v - mb * u) * inv_det;
            int box_clamp = 1, seg_clamp = 1, box_clamp1, box_clamp2 = 0;
            if (x > 1) {
                x = 1;
                box_clamp = 2;
                t = (v - mb) * (1 / mc);
            } else if (x < -1) {
                x = -1;
                box_clamp = 0;
                t = (v + mb) * (1 / mc);
            }
            box_clamp1 = box_clamp;
            if (t > 1 || t < -1) {
                if (t > 1) {
                    t = 1;
                    seg_clamp = 2;
                    x = (u - mb) * (1 / ma);
                } else {
                    t = -1;
                    seg_clamp = 0;
                    x = (u + mb) * (1 / ma);
                }
                if (x > 1) {
                    x = 1;
                    box_clamp = 2;
                    box_clamp2 = 1;
                } else if (x < -1) {
                    x = -1;
                    box_clamp = 0;
                    box_clamp2 = 1;
                }
            }

            // squared distance between the two closest points
            gdn_sub3(diff, start, p);
            for (int k = 0; k < 3; k++) {
                diff[k] += a[k] * -t;
            }
            diff[j] += size[j] * x;
            double dist2 = gdn_dot3(diff, diff);
            int code = box_clamp * 3 + seg_clamp;
            if (dist2 < best->dist2 - GDN_MINVAL) {
                best->dist2 = dist2;
                best->segment_pos = t;
                best->edge_pos = x;
                best->corner = c + (1 << j) * (code / 6);
                best->edge = j;
                best->type = code;
                best->edge_clamp1 = box_clamp1;
                best->edge_clamp2 = box_clamp2;
            }
        }
    }
}

// the closest feature: segment ends on faces, then the edges (box_capsule.h)
void gdn_capsule_box_closest(gdnCapsuleClosest* best, const double p[3], const double a[3],
                             double half_length, const double size[3], double dist2_start) {
    *best = (gdnCapsuleClosest){0};
    best->dist2 = dist2_start;
    best->segment_pos = 0;
    best->type = GDN_CAPSULE_NO_CLOSEST;
    best->face = -1;
    closest_end(best, p, a, size);
    closest_edge(best, p, a, half_length, size);
}

// a running minimum of the second point's bounds that remembers which bound won
static void bound_min(gdnCapsuleSecond* out, double* second, double value, int bound, int axis) {
    if (value < *second) {
        *second = value;
        out->bound = bound;
        out->axis = axis;
    }
}

// Second contact point when the closest feature is a box corner (the segment's first point is
// nearest an edge end): relation = axis-octant XOR corner. Along the axis through the corner or
// straight at it there is no second point; otherwise follow the segment along the box edge (axis
// nearly parallel to it: a_k^2 > 0.5) or across the face, stopping at the box's extent.
static void second_at_corner(const gdnCapsuleClosest* best, const double axis[3],
                             const double a[3], const double size[3], int octant,
                             gdnCapsuleSecond* out) {
    int relation = octant ^ best->corner;
    if (relation == 0 || relation == 7) {
        return;
    }
    double dir, toward_end, away_end;
    int toward_sign, away_sign;
    if (relation == 1 || relation == 2 || relation == 4) {
        dir = 1;
        toward_end = 1 - best->segment_pos;
        toward_sign = -1;
        away_end = 1 + best->segment_pos;
        away_sign = 1;
    } else {
        dir = -1;
        relation = 7 - relation;
        away_end = 1 - best->segment_pos;
        away_sign = -1;
        toward_end = 1 + best->segment_pos;
        toward_sign = 1;
    }
    int ax = relation == 1 ? 0 : (relation == 2 ? 1 : 2);
    int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;

    double second;
    out->bound = GDN_CAPSULE_BOUND_END;
    if (axis[ax] * axis[ax] > 0.5) {
        second = toward_end;
        out->end_sign = toward_sign;
        bound_min(out, &second, 2 * size[ax] / fabs(a[ax]), GDN_CAPSULE_BOUND_SPAN, ax);
        out->sign = dir;
    } else {
        second = away_end;
        out->end_sign = away_sign;
        bound_min(out, &second, 2 * size[ax1] / fabs(a[ax1]), GDN_CAPSULE_BOUND_SPAN, ax1);
        bound_min(out, &second, 2 * size[ax2] / fabs(a[ax2]), GDN_CAPSULE_BOUND_SPAN, ax2);
        out->sign = -dir;
    }
    out->bound_value = second;
    out->second = second * out->sign;
}

// Second point when the closest feature is the interior of a box edge: only when segment and edge
// cross (relation restricted to the other two axes is a single bit); move along the segment over
// the face the segment is flatter against, bounded by that face's width and by the edge's
// remaining length.
static void second_at_edge(const gdnCapsuleClosest* best, const double axis[3],
                           const double a[3], const double size[3], int octant,
                           gdnCapsuleSecond* out) {
    int relation = (octant ^ best->corner) & (7 - (1 << best->edge));
    if (relation != 1 && relation != 2 && relation != 4) {
        return;
    }
    int ax = best->edge;
    int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
    if (fabs(axis[ax1]) > fabs(axis[ax2])) {
        ax1 = ax2;
    }
    ax2 = 3 - ax - ax1;

    double dir, second;
    out->bound = GDN_CAPSULE_BOUND_END;
    if (relation & (1 << ax2)) {
        dir = 1;
        second = 1 - best->segment_pos;
        out->end_sign = -1;
    } else {
        dir = -1;
        second = 1 + best->segment_pos;
        out->end_sign = 1;
    }
    bound_min(out, &second, 2 * size[ax2] / fabs(a[ax2]), GDN_CAPSULE_BOUND_SPAN, ax2);
    double edge_left;
    if (((octant & (1 << ax)) != 0) == ((relation & (1 << ax2)) != 0)) {
        edge_left = 1 - best->edge_pos;
        out->left_sign = -1;
    } else {
        edge_left = 1 + best->edge_pos;
        out->left_sign = 1;
    }
    bound_min(out, &second, size[ax] * edge_left / fabs(a[ax]), GDN_CAPSULE_BOUND_EDGE, ax);
    out->sign = dir;
    out->bound_value = second;
    out->second = second * dir;
}

// Second point when a segment end touches a face: walk from that end toward the other end up to
// the first slab boundary (other than the face's axis) the segment leaves through.
static void second_at_face(const gdnCapsuleClosest* best, const double p[3], const double a[3],
                           const double size[3], gdnCapsuleSecond* out) {
    if (best->face == -1) {
        return;
    }
    double dir = best->type == -3 ? 1 : -1;
    double second = 2;
    out->bound = GDN_CAPSULE_BOUND_FIXED;
    double start[3];
    for (int k = 0; k < 3; k++) {
        start[k] = p[k];
        start[k] += a[k] * -dir;
    }
    for (int k = 0; k < 3; k++) {
        if (k == best->face) {
            continue;
        }
        double leave = (size[k] - start[k]) / a[k] * dir;
        if (leave > 0 && leave < second) {
            second = leave;
            out->bound = GDN_CAPSULE_BOUND_LEAVE;
            out->axis = k;
            out->side = 1;
        }
        leave = (-size[k] - start[k]) / a[k] * dir;
        if (leave > 0 && leave < second) {
            second = leave;
            out->bound = GDN_CAPSULE_BOUND_LEAVE;
            out->axis = k;
            out->side = -1;
        }
    }
    out->sign = dir;
    out->bound_value = second;
    out->second = second * dir;
}

// the second point by the closest feature's kind (box_capsule.h)
void gdn_capsule_box_second(const gdnCapsuleClosest* best, const double p[3],
                            const double axis[3], const double a[3], const double size[3],
                            int octant, gdnCapsuleSecond* out) {
    *out = (gdnCapsuleSecond){.second = -4, .bound = GDN_CAPSULE_BOUND_NONE};
    if (best->type >= 0 && best->type / 3 != 1) {
        second_at_corner(best, axis, a, size, octant, out);
    } else if (best->type >= 0) {
        second_at_edge(best, axis, a, size, octant, out);
    } else {
        second_at_face(best, p, a, size, out);
    }
}

// geom 1 is the capsule, geom 2 the box. Up to two sphere-box contacts: the capsule's sphere at
// the closest segment point t*, and, depending on the closest feature, a second sphere at
// t* + second (second < -3: none).
int gdn_collide_capsule_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                            double margin) {
    const double* cap_pos = d->geom_xpos + 3 * g1;
    const double* cap_mat = d->geom_xmat + 9 * g1;
    const double* cap_size = m->geom_size + 3 * g1;
    const double* box_pos = d->geom_xpos + 3 * g2;
    const double* box_mat = d->geom_xmat + 9 * g2;
    const double* size = m->geom_size + 3 * g2;
    double half_length = cap_size[1];

    // capsule center p, unit axis and half axis a in the box frame
    double rel[3], p[3], axis[3], a[3];
    gdn_sub3(rel, cap_pos, box_pos);
    gdn_mulmat3T(p, box_mat, rel);
    double world_axis[3] = {cap_mat[2], cap_mat[5], cap_mat[8]};
    gdn_mulmat3T(axis, box_mat, world_axis);
    gdn_scl3(a, axis, half_length);

    // octant of the half axis (bit k: a_k > 0); octant and 7 - octant describe the same capsule
    int octant = (a[0] > 0 ? 1 : 0) + (a[1] > 0 ? 2 : 0) + (a[2] > 0 ? 4 : 0);

    gdnCapsuleClosest best;
    gdn_capsule_box_closest(&best, p, a, half_length, size,
                            margin + 2 * (cap_size[0] + half_length + size[0] + size[1] + size[2]));
    if (best.type == GDN_CAPSULE_NO_CLOSEST) {
        return 0;
    }

    gdnCapsuleSecond sec;
    gdn_capsule_box_second(&best, p, axis, a, size, octant, &sec);
    double second = sec.second;

    // sphere at the closest segment point, then at the second point
    double local[3], center[3];
    for (int k = 0; k < 3; k++) {
        local[k] = p[k];
        local[k] += a[k] * best.segment_pos;
    }
    gdn_mulmat3(center, box_mat, local);
    gdn_add3(center, center, box_pos);
    int ncon = gdn_sphere_box_contact(con, margin, center, cap_size[0], box_pos, box_mat, size);
    if (second > -3) {
        for (int k = 0; k < 3; k++) {
            local[k] = p[k];
            local[k] += a[k] * (second + best.segment_pos);
        }
        gdn_mulmat3(center, box_mat, local);
        gdn_add3(center, center, box_pos);
        ncon += gdn_sphere_box_contact(con + ncon, margin, center, cap_size[0], box_pos, box_mat,
                                       size);
    }
    return ncon;
}
