// SPDX-License-Identifier: Apache-2.0
// Collision skins for penalty contact: primitive shape points and compiled mesh vertices per body.
#include "mjcf/skin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mesh_file.h"
#include "model/collision_mesh.h"
#include "model/geom_skin.h"
#include "math/vec.h"

#define GDN_SKIN_MAX_VERTICES (16 * 1024 * 1024) // over the whole model

// a growing list of body-frame vertices in pool memory
typedef struct Skin {
    double* v;
    int n, cap;
} Skin;

static int fail(gdnSpec* spec, gdnStatus status, gdnXmlElem* e, const char* fmt,
                const char* arg) {
    return gdn_xml_error(spec->diag, status, e, fmt, arg);
}

// append the body-frame point v
static int push_point(gdnSpec* spec, Skin* s, const gdnSpecGeom* g, const double v[3]) {
    if (s->n >= GDN_SKIN_MAX_VERTICES) {
        return fail(spec, GDN_ERR_MODEL, g->elem, "more than %s collision vertices",
                    "16777216");
    }
    if (!gdn_pool_reserve(spec->pool, (void**)&s->v, &s->cap, 3 * (s->n + 1), sizeof(double))) {
        return fail(spec, GDN_ERR_MEMORY, g->elem, "%s", "out of memory");
    }
    gdn_copy3(s->v + 3 * s->n, v);
    s->n++;
    return 0;
}

// the skin of one geom (docs/contact_penalty.md): a primitive's shape points
// (model/geom_skin.h), a mesh's every distinct compiled vertex
static int skin_geom(gdnSpec* spec, Skin* s, const gdnSpecGeom* g) {
    double pts[3 * GDN_GEOM_SKIN_MAX];
    int n = gdn_geom_skin_points(g->type, g->size, g->pos, g->quat, pts);
    for (int i = 0; i < n; i++) {
        if (push_point(spec, s, g, pts + 3 * i) < 0) {
            return -1;
        }
    }
    if (g->type != GDN_GEOM_MESH) {
        return 0; // a primitive (above), a plane or height field (no skin)
    }
    {
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
        int nd = gdn_mesh_dedup(v, me->nvert);
        if (nd < 0) {
            return fail(spec, GDN_ERR_MEMORY, g->elem, "%s", "out of memory");
        }
        for (int i = 0; i < nd; i++) {
            double r[3], p[3];
            gdn_rotvecquat(r, v + 3 * i, g->quat);
            gdn_add3(p, g->pos, r);
            if (push_point(spec, s, g, p) < 0) {
                return -1;
            }
        }
        return 0;
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
        if (!gdn_geom_skinned(g->body, g->contype, g->conaffinity, g->type)) {
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
