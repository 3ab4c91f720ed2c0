// SPDX-License-Identifier: Apache-2.0
// Plane against sphere, capsule, ellipsoid and cylinder in closed form (MuJoCo 2.2.2's formulas).
#include <math.h>

#include "collision/narrowphase.h"
#include "collision/primitive.h"
#include "math/vec.h"

// the plane's normal: the z axis of its frame (third column of xmat)
static void plane_normal(const double* mat, double n[3]) {
    n[0] = mat[2];
    n[1] = mat[5];
    n[2] = mat[8];
}

// one contact at a point of geom2's surface (primitive.h)
void gdn_plane_contact(gdnContact* con, const double n[3], const double p[3], double dist) {
    con->dist = dist;
    gdn_addscl3(con->pos, p, n, -0.5 * dist);
    gdn_copy3(con->frame, n);
    gdn_zero3(con->frame + 3);
}

int gdn_plane_sphere_at(gdnContact* con, double margin, const double* pos1, const double* mat1,
                        const double* pos2, double radius) {
    // centre height above the plane: c = n . (pos2 - pos1); contact when c - r <= margin
    double n[3], dif[3];
    plane_normal(mat1, n);
    gdn_sub3(dif, pos2, pos1);
    double height = gdn_dot3(dif, n);
    if (height > margin + radius) {
        return 0;
    }
    // dist = c - r; pos = pos2 - n (r + dist / 2)
    con->dist = height - radius;
    gdn_addscl3(con->pos, pos2, n, -con->dist / 2 - radius);
    gdn_copy3(con->frame, n);
    gdn_zero3(con->frame + 3);
    return 1;
}

int gdn_collide_plane_sphere(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                             double margin) {
    return gdn_plane_sphere_at(con, margin, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1,
                               d->geom_xpos + 3 * g2, m->geom_size[3 * g2]);
}

int gdn_collide_plane_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                              int g2, double margin) {
    // the two end spheres at pos2 +- h axis, each against the plane; tangent1 hint = the axis
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    const double* size2 = m->geom_size + 3 * g2;
    double axis[3] = {mat2[2], mat2[5], mat2[8]};
    double segment[3], end[3];
    gdn_scl3(segment, axis, size2[1]);

    gdn_add3(end, pos2, segment);
    int n1 = gdn_plane_sphere_at(con, margin, pos1, mat1, end, size2[0]);
    gdn_sub3(end, pos2, segment);
    int n2 = gdn_plane_sphere_at(con + n1, margin, pos1, mat1, end, size2[0]);
    for (int i = 0; i < n1 + n2; i++) {
        gdn_copy3(con[i].frame + 3, axis);
    }
    return n1 + n2;
}

// the ellipsoid's support point in the direction -n (primitive.h)
void gdn_ellipsoid_support(gdnEllipsoidSupport* e, const double n[3], const double* pos2,
                           const double* mat2, const double* size) {
    double down[3];
    gdn_scl3(down, n, -1);
    gdn_mulmat3T(e->l, mat2, down);
    for (int i = 0; i < 3; i++) {
        e->s1[i] = e->l[i] * size[i];
    }
    gdn_copy3(e->u, e->s1);
    e->len = gdn_normalize3(e->u);
    for (int i = 0; i < 3; i++) {
        e->s[i] = e->u[i] * size[i];
    }
    gdn_mulmat3(e->x, mat2, e->s);
    gdn_add3(e->x, e->x, pos2);
}

int gdn_collide_plane_ellipsoid(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin) {
    // support point of the ellipsoid in the direction -n (geom frame: u = R' (-n)):
    //   s = D normalize(D u), D = diag(a, b, c);  x = pos2 + R s;  dist = n . (x - pos1)
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    double n[3], dif[3];
    plane_normal(mat1, n);
    gdnEllipsoidSupport e;
    gdn_ellipsoid_support(&e, n, d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2,
                          m->geom_size + 3 * g2);
    gdn_sub3(dif, e.x, pos1);
    double dist = gdn_dot3(n, dif);
    if (dist > margin) {
        return 0;
    }
    gdn_plane_contact(con, n, e.x, dist);
    return 1;
}

// the cylinder's frame against the plane (primitive.h)
void gdn_plane_cylinder_setup(gdnPlaneCylinder* c, const double* pos1, const double* mat1,
                              const double* pos2, const double* mat2, double r, double h) {
    c->r = r;
    c->h = h;
    plane_normal(mat1, c->n);
    c->z2[0] = mat2[2];
    c->z2[1] = mat2[5];
    c->z2[2] = mat2[8];
    c->x2axis[0] = mat2[0];
    c->x2axis[1] = mat2[3];
    c->x2axis[2] = mat2[6];

    // axis with a . n <= 0
    c->pa = gdn_dot3(c->n, c->z2);
    c->s = 1;
    gdn_copy3(c->a, c->z2);
    if (c->pa > 0) {
        c->s = -1;
        gdn_scl3(c->a, c->z2, -1);
        c->pa = -c->pa;
    }

    // centre height above the plane
    double dif[3];
    gdn_sub3(dif, pos2, pos1);
    c->height = gdn_dot3(dif, c->n);

    // rim direction nearest the plane: r (a (a . n) - n) / |a (a . n) - n|; the cylinder's x
    // axis when the disk is parallel to the plane
    gdn_scl3(c->q, c->a, c->pa);
    gdn_sub3(c->q, c->q, c->n);
    c->qlen = gdn_norm3(c->q);
    c->degenerate = !(c->qlen >= GDN_MINVAL);
    if (!c->degenerate) {
        gdn_scl3(c->rim, c->q, r / c->qlen);
    } else {
        gdn_scl3(c->rim, c->x2axis, r);
    }
    c->proj_rim = gdn_dot3(c->rim, c->n);

    // axis scaled by the half height; the triangle's side direction unit(rim x A)
    gdn_scl3(c->A, c->a, h);
    c->PA = c->pa * h;
    gdn_cross3(c->sr, c->rim, c->A);
    gdn_copy3(c->shat, c->sr);
    c->srlen = gdn_normalize3(c->shat);
}

// candidate k's distance and point (primitive.h)
void gdn_plane_cylinder_point(const gdnPlaneCylinder* c, const double* pos2, int k, double* dist,
                              double point[3]) {
    if (k == 0) {
        // bottom rim
        *dist = c->height + c->PA + c->proj_rim;
        gdn_add3(point, pos2, c->rim);
        gdn_add3(point, point, c->A);
    } else if (k == 1) {
        // top rim
        *dist = c->height - c->PA + c->proj_rim;
        gdn_add3(point, pos2, c->rim);
        gdn_sub3(point, point, c->A);
    } else {
        // bottom disk at -rim / 2 +- side, side = (sqrt(3) / 2) r shat
        double proj_rim_half = -c->proj_rim * 0.5;
        *dist = c->height + c->PA + proj_rim_half;
        double side[3];
        gdn_scl3(side, c->shat, c->r * sqrt(3.0) / 2);
        gdn_addscl3(point, pos2, side, k == 2 ? 1.0 : -1.0);
        gdn_add3(point, point, c->A);
        gdn_addscl3(point, point, c->rim, -0.5);
    }
}

int gdn_collide_plane_cylinder(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                               int g2, double margin) {
    // Up to 4 contacts: the rim point nearest the plane on the bottom disk (a = axis pointing
    // towards the plane, h a), the same rim direction on the top disk (-h a), and two more points
    // of the bottom disk at +-120 degrees from the nearest one (an inscribed triangle).
    const double* pos2 = d->geom_xpos + 3 * g2;
    gdnPlaneCylinder c;
    gdn_plane_cylinder_setup(&c, d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1, pos2,
                             d->geom_xmat + 9 * g2, m->geom_size[3 * g2],
                             m->geom_size[3 * g2 + 1]);

    // first point: bottom rim (none below the margin: no contact at all)
    int count = 0;
    double point[3], dist;
    gdn_plane_cylinder_point(&c, pos2, 0, &dist, point);
    if (dist > margin) {
        return 0;
    }
    gdn_plane_contact(con + count++, c.n, point, dist);

    // second point: top rim
    gdn_plane_cylinder_point(&c, pos2, 1, &dist, point);
    if (dist <= margin) {
        gdn_plane_contact(con + count++, c.n, point, dist);
    }

    // third and fourth: the inscribed triangle's other bottom points (one distance)
    for (int k = 2; k < 4; k++) {
        gdn_plane_cylinder_point(&c, pos2, k, &dist, point);
        if (dist <= margin) {
            gdn_plane_contact(con + count++, c.n, point, dist);
        }
    }
    return count;
}
