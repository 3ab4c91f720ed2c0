// SPDX-License-Identifier: Apache-2.0
// The type-pair table of collision functions and the completion of a contact frame.
#include "collision/narrowphase.h"

#include "math/vec.h"

#define NTYPES 8

// [type1][type2] with type1 <= type2 (gdnGeomType order: plane, hfield, sphere, capsule,
// ellipsoid, cylinder, box, mesh); NULL: not collided (height fields; the world's planes among
// themselves; pairs whose function is not yet provided)
static const gdnCollideFn collide_table[NTYPES][NTYPES] = {
    [GDN_GEOM_PLANE] =
        {
            [GDN_GEOM_SPHERE] = gdn_collide_plane_sphere,
            [GDN_GEOM_CAPSULE] = gdn_collide_plane_capsule,
            [GDN_GEOM_ELLIPSOID] = gdn_collide_plane_ellipsoid,
            [GDN_GEOM_CYLINDER] = gdn_collide_plane_cylinder,
            [GDN_GEOM_BOX] = gdn_collide_plane_box,
            [GDN_GEOM_MESH] = gdn_collide_plane_convex,
        },
    [GDN_GEOM_SPHERE] =
        {
            [GDN_GEOM_SPHERE] = gdn_collide_sphere_sphere,
            [GDN_GEOM_CAPSULE] = gdn_collide_sphere_capsule,
            [GDN_GEOM_ELLIPSOID] = gdn_collide_convex,
            [GDN_GEOM_CYLINDER] = gdn_collide_convex,
            [GDN_GEOM_BOX] = gdn_collide_sphere_box,
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
    [GDN_GEOM_CAPSULE] =
        {
            [GDN_GEOM_CAPSULE] = gdn_collide_capsule_capsule,
            [GDN_GEOM_ELLIPSOID] = gdn_collide_convex,
            [GDN_GEOM_CYLINDER] = gdn_collide_convex,
            [GDN_GEOM_BOX] = gdn_collide_capsule_box,
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
    [GDN_GEOM_ELLIPSOID] =
        {
            [GDN_GEOM_ELLIPSOID] = gdn_collide_convex,
            [GDN_GEOM_CYLINDER] = gdn_collide_convex,
            [GDN_GEOM_BOX] = gdn_collide_convex,
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
    [GDN_GEOM_CYLINDER] =
        {
            [GDN_GEOM_CYLINDER] = gdn_collide_convex,
            [GDN_GEOM_BOX] = gdn_collide_convex,
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
    [GDN_GEOM_BOX] =
        {
            [GDN_GEOM_BOX] = gdn_collide_box_box,
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
    [GDN_GEOM_MESH] =
        {
            [GDN_GEOM_MESH] = gdn_collide_convex,
        },
};

gdnCollideFn gdn_collide_function(int type1, int type2) {
    if (type1 < 0 || type2 < 0 || type1 >= NTYPES || type2 >= NTYPES || type1 > type2) {
        return NULL;
    }
    return collide_table[type1][type2];
}

void gdn_make_frame(double frame[9]) {
    // tangent1: the given hint if |hint| >= 0.5, else e_y (or e_z when |n_y| >= 0.5);
    // made orthogonal to n and normalized: t1 = unit(t - n (n . t)); t2 = n x t1
    double* n = frame;
    double* t1 = frame + 3;
    gdn_normalize3(n);
    if (gdn_norm3(t1) < 0.5) {
        gdn_zero3(t1);
        if (n[1] < 0.5 && n[1] > -0.5) {
            t1[1] = 1;
        } else {
            t1[2] = 1;
        }
    }
    double along[3];
    gdn_scl3(along, n, gdn_dot3(n, t1));
    gdn_sub3(t1, t1, along);
    gdn_normalize3(t1);
    gdn_cross3(frame + 6, n, t1);
}
