// SPDX-License-Identifier: Apache-2.0
// MJCF <asset> meshes (name, file, inline vertices, scale, refpos, refquat) and <custom> numerics.
#include "mjcf/assets.h"

#include <math.h>
#include <string.h>

#include "mjcf/mesh_file.h"
#include "mjcf/defaults.h"

static int fail(gdnSpec* spec, gdnStatus status, gdnXmlElem* e, const char* text) {
    return gdn_xml_error(spec->diag, status, e, "%s", text);
}

// MuJoCo's default mesh name: the file name without directories and extension
static const char* name_from_file(gdnPool* pool, const char* file) {
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char* dot = strrchr(base, '.');
    size_t len = dot ? (size_t)(dot - base) : strlen(base);
    return gdn_pool_strndup(pool, base, len);
}

static int read_mesh(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    static const char* const silent[] = {"normal", "texcoord", "smoothnormal", "content_type",
                                         NULL};
    gdn_attr_ignore(e, silent);
    int def = gdn_defaults_class_of(spec, e, 0);
    if (def < 0) {
        return -1;
    }
    if (!gdn_pool_reserve(spec->pool, (void**)&spec->meshes, &spec->capmesh, spec->nmesh + 1,
                          sizeof(gdnSpecMesh))) {
        return fail(spec, GDN_ERR_MEMORY, e, "out of memory");
    }
    gdnSpecMesh* me = &spec->meshes[spec->nmesh];
    memset(me, 0, sizeof(*me));
    me->elem = e;
    me->nvert = -1;
    memcpy(me->scale, spec->defs[def].mesh_scale, sizeof(me->scale));
    me->density = spec->defs[def].geom.density;
    me->refquat[0] = 1;
    if (gdn_attr_doubles(d, e, "scale", 3, me->scale, 1) < 0 ||
        gdn_attr_doubles(d, e, "refpos", 3, me->refpos, 1) < 0 ||
        gdn_attr_doubles(d, e, "refquat", 4, me->refquat, 1) < 0) {
        return -1;
    }
    double norm = sqrt(me->refquat[0] * me->refquat[0] + me->refquat[1] * me->refquat[1] +
                       me->refquat[2] * me->refquat[2] + me->refquat[3] * me->refquat[3]);
    if (!(norm >= GDN_MJ_EPS) || !isfinite(norm)) {
        return fail(spec, GDN_ERR_MODEL, e, "refquat must be a nonzero quaternion");
    }
    int nvalues = gdn_attr_double_list(d, spec->pool, e, "vertex", 3 * GDN_MESH_MAX_VERTICES,
                                       &me->vertex);
    if (nvalues < 0) {
        return -1;
    }
    if (nvalues % 3) {
        return fail(spec, GDN_ERR_MODEL, e, "vertex data must be a multiple of 3 numbers");
    }
    me->nvertex = nvalues / 3;
    int nface = gdn_attr_double_list(d, spec->pool, e, "face", 3 * GDN_MESH_MAX_VERTICES,
                                     &me->face_attr);
    if (nface < 0) {
        return -1;
    }
    if (nface % 3) {
        return fail(spec, GDN_ERR_MODEL, e, "face data must be a multiple of 3");
    }
    me->nface_attr = nface / 3;
    const char* file = gdn_xml_attr(e, "file");
    if (file && !file[0]) {
        file = NULL;
    }
    if (file && nvalues) {
        return fail(spec, GDN_ERR_MODEL, e, "mesh cannot have both a file and vertex data");
    }
    if (!file && !nvalues) {
        return fail(spec, GDN_ERR_MODEL, e, "mesh needs a file or vertex data");
    }
    me->file = file ? file : "";
    const char* name = gdn_xml_attr(e, "name");
    me->named = name && name[0];
    me->name = me->named ? name : file ? name_from_file(spec->pool, file) : "";
    if (!me->name) {
        return fail(spec, GDN_ERR_MEMORY, e, "out of memory");
    }
    if (!me->name[0]) {
        return fail(spec, GDN_ERR_MODEL, e, "mesh needs a name");
    }
    // MuJoCo 2.2.2 checks repeated names before it gives unnamed meshes their file's name: two
    // given names may not repeat, a name from a file may repeat any other (a.stl and sub/a.stl
    // are both "a"); geoms naming it get the first mesh of that name
    for (int i = 0; me->named && i < spec->nmesh; i++) {
        if (spec->meshes[i].named && !strcmp(spec->meshes[i].name, me->name)) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "repeated mesh name '%s'", me->name);
        }
    }
    spec->nmesh++;
    gdn_attr_warn_unused(d, e);
    return 0;
}

int gdn_mjcf_read_assets(gdnSpec* spec, gdnXmlElem* section) {
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        if (!strcmp(e->name, "mesh") && read_mesh(spec, e) < 0) {
            return -1;
        }
    }
    return 0;
}

// data = "height stiffness damping" (exactly three finite numbers, k >= 0, c >= 0)
static int read_penalty(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    if (spec->penalty.enabled) {
        return fail(spec, GDN_ERR_MODEL, e, "repeated numeric '" GDN_MJCF_PENALTY_NUMERIC "'");
    }
    int size = 3, r;
    if ((r = gdn_attr_int(d, e, "size", &size)) < 0) {
        return -1;
    }
    if (r > 0 && size != 3) {
        return fail(spec, GDN_ERR_MODEL, e,
                    GDN_MJCF_PENALTY_NUMERIC " must have size 3 (height stiffness damping)");
    }
    double v[3];
    if ((r = gdn_attr_doubles(d, e, "data", 3, v, 1)) < 0) {
        return -1;
    }
    if (r == 0) {
        return fail(spec, GDN_ERR_MODEL, e,
                    GDN_MJCF_PENALTY_NUMERIC " needs data=\"height stiffness damping\"");
    }
    if (v[1] < 0 || v[2] < 0) {
        return fail(spec, GDN_ERR_MODEL, e,
                    GDN_MJCF_PENALTY_NUMERIC ": stiffness and damping must be non-negative");
    }
    spec->penalty.enabled = 1;
    spec->penalty.height = v[0];
    spec->penalty.stiffness = v[1];
    spec->penalty.damping = v[2];
    gdn_attr_warn_unused(d, e);
    return 0;
}

// <text name="gradyn_solver" data="kamino|mujoco"/>: the solver the MJCF asks for
static int read_solver_text(gdnSpec* spec, gdnXmlElem* e) {
    const char* data = NULL;
    for (int i = 0; i < e->nattr; i++) {
        if (!strcmp(e->attr[i].name, "data")) {
            data = e->attr[i].value;
        }
    }
    if (!data || (strcmp(data, "kamino") && strcmp(data, "mujoco"))) {
        return fail(spec, GDN_ERR_MODEL, e,
                    "text 'gradyn_solver' needs data=\"kamino\" or data=\"mujoco\"");
    }
    spec->opt.gradyn_solver = !strcmp(data, "kamino");
    gdn_xml_attr(e, "name");
    gdn_xml_attr(e, "data");
    return 0;
}

// <numeric name="kamino_restitution" data="e"/>, e in [0, 1]
static int read_restitution(gdnSpec* spec, gdnXmlElem* e) {
    double v = 0;
    int r = gdn_attr_doubles(spec->diag, e, "data", 1, &v, 1);
    if (r < 0) {
        return -1;
    }
    if (r == 0 || !(v >= 0 && v <= 1)) {
        return fail(spec, GDN_ERR_MODEL, e, "numeric 'kamino_restitution' needs data in [0, 1]");
    }
    spec->opt.kamino_restitution = v;
    gdn_attr_warn_unused(spec->diag, e);
    return 0;
}

int gdn_mjcf_read_custom(gdnSpec* spec, gdnXmlElem* section) {
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        if (!strcmp(e->name, "text")) {
            const char* tname = NULL;
            for (int i = 0; i < e->nattr; i++) {
                if (!strcmp(e->attr[i].name, "name")) {
                    tname = e->attr[i].value;
                }
            }
            if (tname && !strcmp(tname, "gradyn_solver") && read_solver_text(spec, e) < 0) {
                return -1;
            }
            continue;
        }
        if (strcmp(e->name, "numeric")) {
            continue;
        }
        // peek at the name without consuming it for other numerics (user data, not ours)
        const char* name = NULL;
        for (int i = 0; i < e->nattr; i++) {
            if (!strcmp(e->attr[i].name, "name")) {
                name = e->attr[i].value;
            }
        }
        if (name && !strcmp(name, "kamino_restitution")) {
            gdn_xml_attr(e, "name");
            if (read_restitution(spec, e) < 0) {
                return -1;
            }
            continue;
        }
        if (name && !strcmp(name, GDN_MJCF_PENALTY_NUMERIC)) {
            gdn_xml_attr(e, "name");
            if (read_penalty(spec, e) < 0) {
                return -1;
            }
        }
    }
    return 0;
}
