// SPDX-License-Identifier: Apache-2.0
// Support functions of the convex geom types (MuJoCo 2.2.2's mjccd_support).
#include "collision/convex.h"

#include <math.h>

#include "math/vec.h"

static double sign_of(double x) { return x < 0 ? -1.0 : (x > 0 ? 1.0 : 0.0); }

// v . dir for mesh vertex i (local frame)
static double vertex_dot(const double* vert, int i, const double dir[3]) {
    return dir[0] * vert[3 * i] + dir[1] * vert[3 * i + 1] + dir[2] * vert[3 * i + 2];
}

// the mesh vertex maximizing v . dir: hill-climbing on the hull graph from its first vertex
// (strict improvement only), or a scan of every vertex when the mesh has no graph
static void mesh_support(gdnConvexObj* obj, const double dir[3], double res[3]) {
    const gdnModel* m = obj->m;
    int id = m->geom_dataid[obj->geom];
    const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
    int best = -1;
    if (m->mesh_graphadr[id] < 0) {
        double best_dot = -1e10;
        for (int i = 0; i < m->mesh_vertnum[id]; i++) {
            double vdot = vertex_dot(vert, i, dir);
            if (vdot > best_dot) {
                best_dot = vdot;
                best = i;
            }
        }
        obj->meshindex = best;
    } else {
        // graph: numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert], edge_localid
        const int* graph = m->mesh_graph + m->mesh_graphadr[id];
        int numvert = graph[0];
        const int* vert_edgeadr = graph + 2;
        const int* vert_globalid = graph + 2 + numvert;
        const int* edge_localid = graph + 2 + 2 * numvert;
        int local = 0;
        double best_dot = vertex_dot(vert, vert_globalid[0], dir);
        int improved = 1;
        while (improved) {
            improved = 0;
            for (int e = vert_edgeadr[local]; edge_localid[e] >= 0; e++) {
                int next = edge_localid[e];
                double vdot = vertex_dot(vert, vert_globalid[next], dir);
                if (vdot > best_dot) {
                    best_dot = vdot;
                    local = next;
                    improved = 1;
                }
            }
        }
        obj->meshindex = local;
        best = vert_globalid[local];
    }
    if (best < 0) {
        gdn_zero3(res);
    } else {
        gdn_copy3(res, vert + 3 * best);
    }
}

void gdn_convex_support(gdnConvexObj* obj, const double world_dir[3], double out[3]) {
    const gdnModel* m = obj->m;
    const double* size = m->geom_size + 3 * obj->geom;
    double dir[3], res[3];
    gdn_mulmat3T(dir, obj->mat, world_dir);

    switch (m->geom_type[obj->geom]) {
    case GDN_GEOM_SPHERE:
        gdn_scl3(res, dir, size[0]);
        break;

    // sphere of radius size[0] swept along z by +-size[1]
    case GDN_GEOM_CAPSULE:
        gdn_scl3(res, dir, size[0]);
        res[2] += sign_of(dir[2]) * size[1];
        break;

    // x = S n / |n|, n = S dir, S = diag(size): the point whose normal is dir
    case GDN_GEOM_ELLIPSOID:
        for (int i = 0; i < 3; i++) {
            res[i] = dir[i] * size[i];
        }
        gdn_normalize3(res);
        for (int i = 0; i < 3; i++) {
            res[i] *= size[i];
        }
        break;

    // rim point in the direction of dir's xy part, cap at sign(dir_z) * half-length
    case GDN_GEOM_CYLINDER: {
        double rxy = sqrt(dir[0] * dir[0] + dir[1] * dir[1]);
        if (rxy > GDN_MINVAL) {
            res[0] = dir[0] / rxy * size[0];
            res[1] = dir[1] / rxy * size[0];
        } else {
            res[0] = res[1] = 0;
        }
        res[2] = sign_of(dir[2]) * size[1];
        break;
    }

    case GDN_GEOM_BOX:
        for (int i = 0; i < 3; i++) {
            res[i] = sign_of(dir[i]) * size[i];
        }
        break;

    case GDN_GEOM_MESH:
        mesh_support(obj, dir, res);
        break;

    default:
        gdn_zero3(res);
        break;
    }

    // inflate by half the margin, back to the world frame
    for (int i = 0; i < 3; i++) {
        res[i] += dir[i] * obj->margin / 2;
    }
    gdn_mulmat3(out, obj->mat, res);
    out[0] += obj->pos[0];
    out[1] += obj->pos[1];
    out[2] += obj->pos[2];
}
