// SPDX-License-Identifier: Apache-2.0
// Internal: plane-box's corner selection (collision/box_plane.c), shared by the primal and its
// derivative.
#ifndef GDN_COLLISION_BOX_PLANE_H
#define GDN_COLLISION_BOX_PLANE_H

// The box corners that make contacts with the plane of unit normal normal: corner k (bit i:
// +size[i]) at offset R L from the box center (R = box_mat) with height n . (R L) counts when
// it points into the plane (height <= 0) and center_height + height <= margin; binary order, the
// first four. Returns how many; ids, corners (the offsets R L) and heights filled in order
int gdn_plane_box_corners(const double normal[3], double center_height, const double* box_mat,
                          const double* size, double margin, int ids[4], double corners[4][3],
                          double heights[4]);

#endif
