// SPDX-License-Identifier: Apache-2.0
// gdnModel lifetime (one buffer for every array) and name lookup.
#include "model/model_alloc.h"
#include "model/model_arrays.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

// size limits: a hostile file cannot ask for more than this
#define GDN_MAX_COUNT 10000000

// bytes of one array rounded up to 64 so every array stays aligned
static size_t aligned_bytes(size_t count, size_t elem) {
    return (count * elem + 63u) & ~(size_t)63u;
}

gdnModel* gdn_model_alloc(const gdnModelSizes* s) {
    const int* sz = &s->nq;
    for (int i = 0; i < (int)(sizeof(*s) / sizeof(int)); i++) {
        if (sz[i] < 0 || sz[i] > GDN_MAX_COUNT) {
            return NULL;
        }
    }
    const size_t nq = (size_t)s->nq, nv = (size_t)s->nv, nu = (size_t)s->nu, na = (size_t)s->na;
    const size_t nbody = (size_t)s->nbody, njnt = (size_t)s->njnt, ngeom = (size_t)s->ngeom;
    const size_t nsite = (size_t)s->nsite, nkey = (size_t)s->nkey, nnames = (size_t)s->nnames;
    const size_t npair = (size_t)s->npair, nexclude = (size_t)s->nexclude;
    const size_t neq = (size_t)s->neq, nmocap = (size_t)s->nmocap;
    const size_t ntendon = (size_t)s->ntendon, nwrap = (size_t)s->nwrap;
    const size_t nsensor = (size_t)s->nsensor;

    // total size, then carve
    size_t total = 0;
#define X(type, field, count) total += aligned_bytes(count, sizeof(type));
    GDN_MODEL_ARRAYS(X)
#undef X
    gdnModel* m = calloc(1, sizeof(gdnModel));
    unsigned char* buf = calloc(1, total + 64);
    if (!m || !buf) {
        free(m);
        free(buf);
        return NULL;
    }
    m->buffer_ = buf;
    unsigned char* p = (unsigned char*)(((uintptr_t)buf + 63u) & ~(uintptr_t)63u);
#define X(type, field, count)                  \
    m->field = (type*)(void*)p;                \
    p += aligned_bytes(count, sizeof(type));
    GDN_MODEL_ARRAYS(X)
#undef X

    m->nq = s->nq;
    m->nv = s->nv;
    m->nu = s->nu;
    m->na = s->na;
    m->nbody = s->nbody;
    m->njnt = s->njnt;
    m->ngeom = s->ngeom;
    m->nsite = s->nsite;
    m->nkey = s->nkey;
    m->nnames = s->nnames;
    m->npair = s->npair;
    m->nexclude = s->nexclude;
    m->neq = s->neq;
    m->ntendon = s->ntendon;
    m->nwrap = s->nwrap;
    m->nmocap = s->nmocap;
    // no body is a mocap body until its producer says so (0 would be mocap index 0)
    for (int b = 0; b < s->nbody; b++) {
        m->body_mocapid[b] = -1;
    }
    m->nsensor = s->nsensor;
    m->nsensordata = s->nsensordata;
    // a valid model from the start: the options every public call checks are MuJoCo's defaults
    gdn_option_default(&m->opt);
    return m;
}

void gdn_model_free(gdnModel* m) {
    if (m) {
        free(m->vert_buffer_);
        free(m->mesh_buffer_);
        free(m->buffer_);
        free(m);
    }
}

// the name-address array and count of an object type
static const int* name_table(const gdnModel* m, const char* objtype, int* n) {
    *n = 0;
    if (!m || !objtype) {
        return NULL;
    }
    const struct {
        const char* type;
        const int* adr;
        int n;
    } tables[] = {{"body", m->name_bodyadr, m->nbody},     {"joint", m->name_jntadr, m->njnt},
                  {"geom", m->name_geomadr, m->ngeom},     {"site", m->name_siteadr, m->nsite},
                  {"actuator", m->name_actuatoradr, m->nu}, {"key", m->name_keyadr, m->nkey},
                  {"tendon", m->name_tendonadr, m->ntendon},
                  {"sensor", m->name_sensoradr, m->nsensor}};
    for (int i = 0; i < (int)(sizeof(tables) / sizeof(tables[0])); i++) {
        if (!strcmp(objtype, tables[i].type)) {
            *n = tables[i].n;
            return tables[i].adr;
        }
    }
    return NULL;
}

int gdn_name2id(const gdnModel* m, const char* objtype, const char* name) {
    int n;
    const int* adr = name_table(m, objtype, &n);
    if (!adr || !name || !name[0]) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (adr[i] >= 0 && adr[i] < m->nnames && !strcmp(m->names + adr[i], name)) {
            return i;
        }
    }
    return -1;
}

const char* gdn_id2name(const gdnModel* m, const char* objtype, int id) {
    int n;
    const int* adr = name_table(m, objtype, &n);
    if (!adr || id < 0 || id >= n) {
        return NULL;
    }
    if (adr[id] < 0 || adr[id] >= m->nnames) {
        return "";
    }
    return m->names + adr[id];
}
