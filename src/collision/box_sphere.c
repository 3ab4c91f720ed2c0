// SPDX-License-Identifier: Apache-2.0
// Sphere-box collision: nearest box point to the sphere center (MuJoCo 2.2.2's mjc_SphereBox).
#include "collision/box_sphere.h"

#include "collision/narrowphase.h"
#include "math/vec.h"

// In the box frame, c = R' (center - box_pos) and q = clamp(c, -size, size) (axes with size > 0).
// Outside the box (|q - c| > 0): u = (q - c) / |q - c|, dist = |q - c| - radius, the normal is
// R u and the position is the midpoint of q and the sphere's deepest point c + radius u.
// Center inside the box: the nearest face k (smallest |+-size - c| over the six faces, first
// wins) gives the direction e = -+e_k pointing away from that face, dist = -radius, normal R e
// and position c + e (radius - depth) / 2.
// the clamp of local into the box, each axis's side (box_sphere.h)
void gdn_sphere_box_clamp(const double local[3], const double size[3], double clamped[3],
                          int side[3]) {
    for (int i = 0; i < 3; i++) {
        clamped[i] = local[i];
        side[i] = 0;
        if (size[i] > 0) {
            if (clamped[i] < -size[i]) {
                clamped[i] = -size[i];
                side[i] = -1;
            } else if (clamped[i] > size[i]) {
                clamped[i] = size[i];
                side[i] = 1;
            }
        }
    }
}

// the face nearest an inside point, first wins (box_sphere.h)
int gdn_sphere_box_face(const double local[3], const double size[3], double* closest) {
    *closest = (size[0] + size[1] + size[2]) * 2;
    int face = 0;
    for (int i = 0; i < 6; i++) {
        double face_dist = fabs((i % 2 ? 1 : -1) * size[i / 2] - local[i / 2]);
        if (*closest > face_dist) {
            *closest = face_dist;
            face = i;
        }
    }
    return face;
}

int gdn_sphere_box_contact(gdnContact* con, double margin, const double center[3], double radius,
                           const double box_pos[3], const double box_mat[9],
                           const double size[3]) {
    double rel[3], local[3], clamped[3], deepest[3], pos[3];
    gdn_sub3(rel, center, box_pos);
    gdn_mulmat3T(local, box_mat, rel);
    int side[3];
    gdn_sphere_box_clamp(local, size, clamped, side);

    // direction from the center to the clamped point, and the distance between them
    double dir[3];
    gdn_copy3(deepest, local);
    gdn_sub3(dir, clamped, local);
    double gap = gdn_normalize3(dir);
    if (gap - radius > margin) {
        return 0;
    }

    if (gap <= GDN_MINVAL) {
        // center inside the box: push out through the nearest face
        double closest;
        int face = gdn_sphere_box_face(local, size, &closest);
        double away[3] = {0, 0, 0};
        away[face / 2] = (face % 2 ? -1 : 1);
        gdn_copy3(pos, local);
        for (int i = 0; i < 3; i++) {
            pos[i] += away[i] * ((radius - closest) / 2);
        }
        gdn_mulmat3(con->frame, box_mat, away);
    } else {
        // center outside: midpoint of the clamped point and the sphere's deepest point
        for (int i = 0; i < 3; i++) {
            deepest[i] += dir[i] * radius;
        }
        for (int i = 0; i < 3; i++) {
            pos[i] = 0 + clamped[i] * 0.5;
            pos[i] += deepest[i] * 0.5;
        }
        gdn_mulmat3(con->frame, box_mat, dir);
    }

    double world[3];
    gdn_mulmat3(world, box_mat, pos);
    gdn_add3(con->pos, world, box_pos);
    con->dist = gap - radius;
    gdn_zero3(con->frame + 3);
    return 1;
}

// geom 1 is the sphere, geom 2 the box
int gdn_collide_sphere_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                           double margin) {
    return gdn_sphere_box_contact(con, margin, d->geom_xpos + 3 * g1, m->geom_size[3 * g1],
                                  d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2,
                                  m->geom_size + 3 * g2);
}
