// SPDX-License-Identifier: Apache-2.0
// Plane-box collision: the box corners below the plane (MuJoCo 2.2.2's mjc_PlaneBox, <= 4).
#include "collision/box_plane.h"
#include "collision/narrowphase.h"
#include "collision/primitive.h"
#include "math/vec.h"

// Geom 1 is the plane (normal n = its local z axis through pos1), geom 2 the box. With
// h = n . (pos2 - pos1) the box center height, each corner c = R2 (+-size) gives one contact when
// it points into the plane (n . c <= 0) and h + n . c <= margin:
//   dist = h + n . c,   pos = pos2 + c - n dist / 2,   normal n.
// Corners are visited in binary order (bit k set: +size[k]) and the first four kept.
// the contact corners (box_plane.h): ids, world offsets R2 L and heights n . (R2 L), in order
int gdn_plane_box_corners(const double normal[3], double center_height, const double* box_mat,
                          const double* size, double margin, int ids[4], double corners[4][3],
                          double heights[4]) {
    int ncon = 0;
    for (int corner_id = 0; corner_id < 8; corner_id++) {
        double local[3] = {(corner_id & 1) ? size[0] : -size[0],
                           (corner_id & 2) ? size[1] : -size[1],
                           (corner_id & 4) ? size[2] : -size[2]};
        double corner[3];
        gdn_mulmat3(corner, box_mat, local);
        double corner_height = gdn_dot3(normal, corner);
        if (center_height + corner_height > margin || corner_height > 0) {
            continue;
        }
        ids[ncon] = corner_id;
        gdn_copy3(corners[ncon], corner);
        heights[ncon] = corner_height;
        if (++ncon >= 4) {
            break;
        }
    }
    return ncon;
}

int gdn_collide_plane_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                          double margin) {
    const double* plane_pos = d->geom_xpos + 3 * g1;
    const double* plane_mat = d->geom_xmat + 9 * g1;
    const double* box_pos = d->geom_xpos + 3 * g2;
    const double* box_mat = d->geom_xmat + 9 * g2;
    const double* size = m->geom_size + 3 * g2;
    double normal[3] = {plane_mat[2], plane_mat[5], plane_mat[8]};
    double offset[3];
    gdn_sub3(offset, box_pos, plane_pos);
    double center_height = gdn_dot3(offset, normal);

    int ids[4];
    double corners[4][3], heights[4];
    int ncon = gdn_plane_box_corners(normal, center_height, box_mat, size, margin, ids, corners,
                                     heights);
    for (int i = 0; i < ncon; i++) {
        double corner[3];
        gdn_add3(corner, corners[i], box_pos);
        gdn_plane_contact(con + i, normal, corner, center_height + heights[i]);
    }
    return ncon;
}
