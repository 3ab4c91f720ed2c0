// SPDX-License-Identifier: Apache-2.0
// General convex pairs: MPR between two convex geoms, and plane-convex by the support point
// (MuJoCo 2.2.2's mjc_Convex without MULTICCD, and mjc_PlaneConvex).
#include "collision/convex.h"

#include "collision/narrowphase.h"
#include "math/vec.h"

#define PLANE_MESH_MAXCON 3      // contacts of one plane-mesh pair
#define PLANE_MESH_SPACING 0.3   // extra contacts at least this times rbound from the first

static void convex_obj(gdnConvexObj* obj, const gdnModel* m, const gdnData* d, int g,
                       double margin) {
    obj->m = m;
    obj->pos = d->geom_xpos + 3 * g;
    obj->mat = d->geom_xmat + 9 * g;
    obj->geom = g;
    obj->margin = margin;
    obj->meshindex = -1;
}

// one contact from MPR on the shapes inflated by margin / 2 each: dist = margin - depth
int gdn_collide_convex(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                       double margin) {
    gdnConvexObj o1, o2;
    convex_obj(&o1, m, d, g1, margin);
    convex_obj(&o2, m, d, g2, margin);
    gdnMprResult res;
    if (!gdn_mpr_penetration(&o1, &o2, m->opt.mpr_iterations, m->opt.mpr_tolerance, &res)) {
        return 0;
    }

    // a touching contact has no normal: no contact
    if (gdn_dot3(res.dir, res.dir) == 0) {
        return 0;
    }
    con->dist = margin - res.depth;
    gdn_copy3(con->frame, res.dir);
    gdn_copy3(con->pos, res.pos);
    gdn_zero3(con->frame + 3);
    gdn_convex_fix_normal(m, d, con, g1, g2);
    return 1;
}

// an extra plane-mesh contact at the local mesh vertex v unless it lies within
// PLANE_MESH_SPACING * rbound of the first contact; dist = n . (p - plane origin)
static int add_plane_mesh_contact(gdnContact* con, const double v[3], const double pos1[3],
                                  const double normal[3], const double pos2[3],
                                  const double mat2[9], const double first[3], double rbound) {
    double pnt[3], dif[3];
    gdn_mulmat3(pnt, mat2, v);
    gdn_add3(pnt, pnt, pos2);
    gdn_sub3(dif, pnt, first);
    if (gdn_norm3(dif) < PLANE_MESH_SPACING * rbound) {
        return 0;
    }
    gdn_sub3(dif, pnt, pos1);
    con->dist = gdn_dot3(normal, dif);
    gdn_addscl3(con->pos, pnt, normal, -0.5 * con->dist);
    gdn_copy3(con->frame, normal);
    gdn_zero3(con->frame + 3);
    return 1;
}

// plane (g1, normal = its z axis) against an ellipsoid or mesh (g2): the support point along
// -normal gives dist = n . (s - p1) and pos = s - n dist / 2; meshes add up to two more contacts
// from the hull neighbours of that vertex (or, without a hull graph, the first vertices found)
// lying deeper than margin below the plane's distance to the mesh centre
int gdn_collide_plane_convex(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                             int g2, double margin) {
    const double* pos1 = d->geom_xpos + 3 * g1;
    const double* mat1 = d->geom_xmat + 9 * g1;
    const double* pos2 = d->geom_xpos + 3 * g2;
    const double* mat2 = d->geom_xmat + 9 * g2;
    double normal[3] = {mat1[2], mat1[5], mat1[8]};
    double dir[3] = {-mat1[2], -mat1[5], -mat1[8]};
    gdnConvexObj obj;
    convex_obj(&obj, m, d, g2, 0);
    double s[3], dif[3];
    gdn_convex_support(&obj, dir, s);
    gdn_sub3(dif, s, pos1);
    double dist = gdn_dot3(normal, dif);
    if (dist > margin) {
        return 0;
    }
    con->dist = dist;
    gdn_addscl3(con->pos, s, normal, -0.5 * dist);
    gdn_copy3(con->frame, normal);
    gdn_zero3(con->frame + 3);

    int id = m->geom_type[g2] == GDN_GEOM_MESH ? m->geom_dataid[g2] : -1;
    if (id < 0) {
        return 1;
    }

    // vertices v with v . locdir > threshold: deeper than the support point's plane - margin
    int count = 1;
    const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
    double locdir[3];
    gdn_mulmat3T(locdir, mat2, dir);
    gdn_sub3(dif, pos2, pos1);
    double threshold = gdn_dot3(normal, dif) - margin;
    double rbound = m->geom_rbound[g2];
    if (m->mesh_graphadr[id] < 0) {
        for (int i = 0; i < m->mesh_vertnum[id] && count < PLANE_MESH_MAXCON; i++) {
            const double* v = vert + 3 * i;
            if (gdn_dot3(locdir, v) > threshold && i != obj.meshindex) {
                count += add_plane_mesh_contact(con + count, v, pos1, normal, pos2, mat2,
                                                con->pos, rbound);
            }
        }
    } else if (obj.meshindex >= 0) {
        const int* graph = m->mesh_graph + m->mesh_graphadr[id];
        int numvert = graph[0];
        const int* vert_edgeadr = graph + 2;
        const int* vert_globalid = graph + 2 + numvert;
        const int* edge_localid = graph + 2 + 2 * numvert;
        for (int e = vert_edgeadr[obj.meshindex]; edge_localid[e] >= 0 && count <
             PLANE_MESH_MAXCON; e++) {
            const double* v = vert + 3 * vert_globalid[edge_localid[e]];
            if (gdn_dot3(locdir, v) > threshold) {
                count += add_plane_mesh_contact(con + count, v, pos1, normal, pos2, mat2,
                                                con->pos, rbound);
            }
        }
    }
    return count;
}
