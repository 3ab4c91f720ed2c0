// SPDX-License-Identifier: Apache-2.0
// Collision skins for penalty contact: primitive shape points and compiled mesh vertices per body.
#include "mjcf/skin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/collision_mesh.h"
#include "mjcf/mesh_file.h"
#include "math/vec.h"

#define GDN_SKIN_MAX_VERTICES (16 * 1024 * 1024) // over the whole model
#define CYLINDER_RIM_POINTS 8

// a growing list of body-frame vertices in pool memory
typedef struct Skin {
    double* v;
    int n, cap;
} Skin;

static int fail(gdnSpec* spec, gdnStatus status, gdnXmlElem* e, const char* fmt,
                const char* arg) {
    gdn_diag_error(spec->diag, status, e ? e->file : NULL, e ? e->line : 0, e ? e->name : NULL,
                   fmt, arg);
    return -1;
}

// append the geom-frame point p as pos + R(quat) p
static int push_point(gdnSpec* spec, Skin* s, const gdnSpecGeom* g, const double p[3]) {
    if (s->n >= GDN_SKIN_MAX_VERTICES) {
        return fail(spec, GDN_ERR_MODEL, g->elem, "more than %s collision vertices",
                    "16777216");
    }
    if (!gdn_pool_reserve(spec->pool, (void**)&s->v, &s->cap, 3 * (s->n + 1), sizeof(double))) {
        return fail(spec, GDN_ERR_MEMORY, g->elem, "%s", "out of memory");
    }
    double r[3];
    gdn_rotvecquat(r, p, g->quat);
    gdn_add3(s->v + 3 * s->n, g->pos, r);
    s->n++;
    return 0;
}

// the skin of one geom, in its own frame (docs/contact_penalty.md):
//   box: 8 corners; sphere, ellipsoid: the 6 points +-size_k e_k; capsule (radius r, half-length
//   l): the 2 poles (0, 0, +-(l + r)) and 4 points (+-r, 0, +-l), (0, +-r, +-l) around each end;
//   cylinder: 8 points on each rim circle z = +-l; mesh: every distinct compiled vertex
static int skin_geom(gdnSpec* spec, Skin* s, const gdnSpecGeom* g) {
    const double* sz = g->size;
    double p[3];
    switch (g->type) {
    case GDN_GEOM_BOX:
        for (int c = 0; c < 8; c++) {
            p[0] = c & 1 ? sz[0] : -sz[0];
            p[1] = c & 2 ? sz[1] : -sz[1];
            p[2] = c & 4 ? sz[2] : -sz[2];
            if (push_point(spec, s, g, p) < 0) {
                return -1;
            }
        }
        return 0;
    case GDN_GEOM_SPHERE:
    case GDN_GEOM_ELLIPSOID:
        for (int k = 0; k < 6; k++) {
            double r = g->type == GDN_GEOM_SPHERE ? sz[0] : sz[k / 2];
            gdn_zero3(p);
            p[k / 2] = k % 2 ? -r : r;
            if (push_point(spec, s, g, p) < 0) {
                return -1;
            }
        }
        return 0;
    case GDN_GEOM_CAPSULE:
        for (int end = 0; end < 2; end++) {
            double z = end ? -sz[1] : sz[1];
            const double ring[5][3] = {{0, 0, end ? -(sz[1] + sz[0]) : sz[1] + sz[0]},
                                       {sz[0], 0, z},
                                       {-sz[0], 0, z},
                                       {0, sz[0], z},
                                       {0, -sz[0], z}};
            for (int k = 0; k < 5; k++) {
                if (push_point(spec, s, g, ring[k]) < 0) {
                    return -1;
                }
            }
        }
        return 0;
    case GDN_GEOM_CYLINDER:
        for (int end = 0; end < 2; end++) {
            for (int k = 0; k < CYLINDER_RIM_POINTS; k++) {
                double angle = 2 * GDN_MJ_PI * k / CYLINDER_RIM_POINTS;
                p[0] = sz[0] * cos(angle);
                p[1] = sz[0] * sin(angle);
                p[2] = end ? -sz[1] : sz[1];
                if (push_point(spec, s, g, p) < 0) {
                    return -1;
                }
            }
        }
        return 0;
    case GDN_GEOM_MESH: {
        // the compiled mesh (src/mjcf/mesh.h: the geom frame holds the mesh's centre of mass
        // and principal axes), each distinct vertex once
        const gdnSpecMesh* me = &spec->meshes[g->meshid];
        double* v = gdn_pool_alloc(spec->pool, sizeof(double) * 3 * (size_t)me->nvert);
        if (!v) {
            return fail(spec, GDN_ERR_MEMORY, g->elem, "%s", "out of memory");
        }
        for (int i = 0; i < 3 * me->nvert; i++) {
            v[i] = (double)me->vert[i];
        }
        int n = gdn_mesh_dedup(v, me->nvert);
        if (n < 0) {
            return fail(spec, GDN_ERR_MEMORY, g->elem, "%s", "out of memory");
        }
        for (int i = 0; i < n; i++) {
            if (push_point(spec, s, g, v + 3 * i) < 0) {
                return -1;
            }
        }
        return 0;
    }
    default:
        return 0; // plane, height field: no skin
    }
}

int gdn_mjcf_skins(gdnSpec* spec, const gdnSpecTree* tree, gdnModel* m) {
    Skin s = {NULL, 0, 0};
    int* body_vertnum = gdn_pool_alloc(spec->pool, sizeof(int) * (size_t)m->nbody);
    if (!body_vertnum) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    // geoms are grouped by body in id order, so the skin comes out grouped by body too
    for (int gid = 0; gid < m->ngeom; gid++) {
        const gdnSpecGeom* g = &spec->geoms[tree->geom_order[gid]];
        int skinned = g->body > 0 && (g->contype || g->conaffinity) &&
                      g->type != GDN_GEOM_PLANE && g->type != GDN_GEOM_HFIELD;
        if (!skinned) {
            continue;
        }
        int before = s.n;
        if (skin_geom(spec, &s, g) < 0) {
            return -1;
        }
        body_vertnum[g->body] += s.n - before;
    }
    for (int i = 0; i < 3 * s.n; i++) {
        if (!isfinite(s.v[i])) {
            return fail(spec, GDN_ERR_MODEL, NULL, "%s", "non-finite collision vertex");
        }
    }
    gdnStatus st = gdn_model_set_vertices(m, s.v, body_vertnum);
    if (st != GDN_OK) {
        return fail(spec, st, NULL, "%s", "cannot store the collision vertices");
    }
    m->penalty = spec->penalty;
    return 0;
}
