// SPDX-License-Identifier: Apache-2.0
// Internal: capsule-box's closest-feature search (collision/box_capsule.c), shared by the
// primal and its derivative, which reads the feature and its clamps instead of re-deriving them.
#ifndef GDN_COLLISION_BOX_CAPSULE_H
#define GDN_COLLISION_BOX_CAPSULE_H

// How the closest point was found (MuJoCo's "cltype"): a segment end against a face (-3: t = -1,
// -1: t = +1), or a segment-edge pair with clamp codes 3 s_box + s_seg, where s = 0 / 1 / 2
// means the low end / the interior / the high end of the box edge or of the segment.
enum { GDN_CAPSULE_NO_CLOSEST = -4 };

typedef struct gdnCapsuleClosest {
    double dist2;       // squared distance of the best candidate so far
    double segment_pos; // t of the closest segment point
    double edge_pos;    // position along the closest box edge, in [-1, 1]
    int type;           // GDN_CAPSULE_NO_CLOSEST, -3 / -1 (face), or 0..8 (edge clamp codes)
    int face;           // face candidate: the clamped axis (-1: end point inside the box)
    int corner;         // edge candidate: the box corner nearest along the edge (bit k: +size[k])
    int edge;           // edge candidate: the edge's axis
    int edge_clamp1;    // edge candidate: s_box after the first clamp of x (before t's)
    int edge_clamp2;    // edge candidate: 1 when x was clamped again after t was clamped
} gdnCapsuleClosest;

// The closest feature of the segment p + t a, t in [-1, 1] (box frame, |a| = half_length) to
// the box |x_k| <= size[k]: segment ends against faces, then the 12 edges; candidates must be
// nearer than dist2_start. best->type is GDN_CAPSULE_NO_CLOSEST when none is
void gdn_capsule_box_closest(gdnCapsuleClosest* best, const double p[3], const double a[3],
                             double half_length, const double size[3], double dist2_start);

// The offset of the second contact point along the segment from the closest point (second < -3:
// none), found as sign * (the smallest of a few bounds), and which bound won (for the
// derivative): FIXED the constant 2; END 1 + end_sign t* (the segment's remaining length);
// SPAN 2 size[axis] / |a[axis]|; EDGE size[axis] (1 + left_sign x*) / |a[axis]| (the edge's
// remaining length); LEAVE (side size[axis] - start[axis]) / a[axis] * sign with
// start = p - sign a (a segment end on a face leaving a slab)
enum {
    GDN_CAPSULE_BOUND_NONE,
    GDN_CAPSULE_BOUND_FIXED,
    GDN_CAPSULE_BOUND_END,
    GDN_CAPSULE_BOUND_SPAN,
    GDN_CAPSULE_BOUND_EDGE,
    GDN_CAPSULE_BOUND_LEAVE
};

typedef struct gdnCapsuleSecond {
    double second;      // the offset (-4: no second point)
    double sign;        // second = sign * bound_value
    double bound_value; // the winning bound
    int bound;          // GDN_CAPSULE_BOUND_*
    int axis;           // SPAN / EDGE / LEAVE: the box axis
    int end_sign;       // END: +-1
    int left_sign;      // EDGE: +-1
    int side;           // LEAVE: +-1
} gdnCapsuleSecond;

// the second point after gdn_capsule_box_closest (p, a the segment, axis = a / |a|, octant: bit
// k set when a_k > 0)
void gdn_capsule_box_second(const gdnCapsuleClosest* best, const double p[3],
                            const double axis[3], const double a[3], const double size[3],
                            int octant, gdnCapsuleSecond* out);

#endif
