// SPDX-License-Identifier: Apache-2.0
// gdnModel lifetime (one buffer for every array) and name lookup.
#include "model/model_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

// size limits: a hostile file cannot ask for more than this
#define GDN_MAX_COUNT 10000000

// the model's arrays in layout order: X(type, field, count-expression)
#define GDN_MODEL_ARRAYS(X)                      \
    X(int, body_parentid, nbody)                 \
    X(int, body_rootid, nbody)                   \
    X(int, body_weldid, nbody)                   \
    X(int, body_jntnum, nbody)                   \
    X(int, body_jntadr, nbody)                   \
    X(int, body_dofnum, nbody)                   \
    X(int, body_dofadr, nbody)                   \
    X(int, body_geomnum, nbody)                  \
    X(int, body_geomadr, nbody)                  \
    X(double, body_pos, nbody * 3)               \
    X(double, body_quat, nbody * 4)              \
    X(double, body_ipos, nbody * 3)              \
    X(double, body_iquat, nbody * 4)             \
    X(double, body_mass, nbody)                  \
    X(double, body_subtreemass, nbody)           \
    X(double, body_inertia, nbody * 3)           \
    X(int, body_sameframe, nbody)                \
    X(double, body_invweight0, nbody * 2)        \
    X(int, jnt_type, njnt)                       \
    X(int, jnt_qposadr, njnt)                    \
    X(int, jnt_dofadr, njnt)                     \
    X(int, jnt_bodyid, njnt)                     \
    X(int, jnt_limited, njnt)                    \
    X(double, jnt_pos, njnt * 3)                 \
    X(double, jnt_axis, njnt * 3)                \
    X(double, jnt_stiffness, njnt)               \
    X(double, jnt_range, njnt * 2)               \
    X(double, jnt_margin, njnt)                  \
    X(double, jnt_solref, njnt * GDN_NREF)       \
    X(double, jnt_solimp, njnt * GDN_NIMP)       \
    X(int, dof_bodyid, nv)                       \
    X(int, dof_jntid, nv)                        \
    X(int, dof_parentid, nv)                     \
    X(double, dof_armature, nv)                  \
    X(double, dof_damping, nv)                   \
    X(double, dof_frictionloss, nv)              \
    X(double, dof_solref, nv * GDN_NREF)         \
    X(double, dof_solimp, nv * GDN_NIMP)         \
    X(double, dof_invweight0, nv)                \
    X(int, geom_type, ngeom)                     \
    X(int, geom_contype, ngeom)                  \
    X(int, geom_conaffinity, ngeom)              \
    X(int, geom_condim, ngeom)                   \
    X(int, geom_priority, ngeom)                 \
    X(int, geom_bodyid, ngeom)                   \
    X(int, geom_group, ngeom)                    \
    X(double, geom_size, ngeom * 3)              \
    X(double, geom_pos, ngeom * 3)               \
    X(double, geom_quat, ngeom * 4)              \
    X(double, geom_friction, ngeom * 3)          \
    X(double, geom_solmix, ngeom)                \
    X(double, geom_solref, ngeom * GDN_NREF)     \
    X(double, geom_solimp, ngeom * GDN_NIMP)     \
    X(double, geom_margin, ngeom)                \
    X(double, geom_gap, ngeom)                   \
    X(double, geom_rgba, ngeom * 4)              \
    X(int, geom_sameframe, ngeom)                \
    X(int, geom_dataid, ngeom)                   \
    X(double, geom_rbound, ngeom)                \
    X(int, pair_dim, npair)                      \
    X(int, pair_geom1, npair)                    \
    X(int, pair_geom2, npair)                    \
    X(int, pair_signature, npair)                \
    X(double, pair_solref, npair * GDN_NREF)     \
    X(double, pair_solimp, npair * GDN_NIMP)     \
    X(double, pair_margin, npair)                \
    X(double, pair_gap, npair)                   \
    X(double, pair_friction, npair * 5)          \
    X(int, exclude_signature, nexclude)          \
    X(int, site_bodyid, nsite)                   \
    X(double, site_pos, nsite * 3)               \
    X(double, site_quat, nsite * 4)              \
    X(int, site_sameframe, nsite)                \
    X(int, actuator_trntype, nu)                 \
    X(int, actuator_dyntype, nu)                 \
    X(int, actuator_gaintype, nu)                \
    X(int, actuator_biastype, nu)                \
    X(int, actuator_trnid, nu * 2)               \
    X(int, actuator_ctrllimited, nu)             \
    X(int, actuator_forcelimited, nu)            \
    X(double, actuator_gear, nu * 6)             \
    X(double, actuator_gainprm, nu * GDN_NGAIN)  \
    X(double, actuator_biasprm, nu * GDN_NBIAS)  \
    X(double, actuator_ctrlrange, nu * 2)        \
    X(double, actuator_forcerange, nu * 2)       \
    X(int, eq_type, neq)                         \
    X(int, eq_obj1id, neq)                       \
    X(int, eq_obj2id, neq)                       \
    X(int, eq_active, neq)                       \
    X(double, eq_solref, neq * GDN_NREF)         \
    X(double, eq_solimp, neq * GDN_NIMP)         \
    X(double, eq_data, neq * GDN_NEQDATA)        \
    X(double, key_time, nkey)                    \
    X(double, key_qpos, nkey * nq)               \
    X(double, key_qvel, nkey * nv)               \
    X(double, key_ctrl, nkey * nu)               \
    X(double, qpos0, nq)                         \
    X(double, qpos_spring, nq)                   \
    X(int, body_vertadr, nbody)                  \
    X(int, body_vertnum, nbody)                  \
    X(int, name_bodyadr, nbody)                  \
    X(int, name_jntadr, njnt)                    \
    X(int, name_geomadr, ngeom)                  \
    X(int, name_siteadr, nsite)                  \
    X(int, name_actuatoradr, nu)                 \
    X(int, name_keyadr, nkey)                    \
    X(char, names, nnames)

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
    const size_t nq = (size_t)s->nq, nv = (size_t)s->nv, nu = (size_t)s->nu;
    const size_t nbody = (size_t)s->nbody, njnt = (size_t)s->njnt, ngeom = (size_t)s->ngeom;
    const size_t nsite = (size_t)s->nsite, nkey = (size_t)s->nkey, nnames = (size_t)s->nnames;
    const size_t npair = (size_t)s->npair, nexclude = (size_t)s->nexclude;
    const size_t neq = (size_t)s->neq;

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
    m->nbody = s->nbody;
    m->njnt = s->njnt;
    m->ngeom = s->ngeom;
    m->nsite = s->nsite;
    m->nkey = s->nkey;
    m->nnames = s->nnames;
    m->npair = s->npair;
    m->nexclude = s->nexclude;
    m->neq = s->neq;
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
    if (!m || !objtype) {
        *n = 0;
        return NULL;
    }
    if (!strcmp(objtype, "body")) {
        *n = m->nbody;
        return m->name_bodyadr;
    }
    if (!strcmp(objtype, "joint")) {
        *n = m->njnt;
        return m->name_jntadr;
    }
    if (!strcmp(objtype, "geom")) {
        *n = m->ngeom;
        return m->name_geomadr;
    }
    if (!strcmp(objtype, "site")) {
        *n = m->nsite;
        return m->name_siteadr;
    }
    if (!strcmp(objtype, "actuator")) {
        *n = m->nu;
        return m->name_actuatoradr;
    }
    if (!strcmp(objtype, "key")) {
        *n = m->nkey;
        return m->name_keyadr;
    }
    *n = 0;
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
