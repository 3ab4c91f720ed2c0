// SPDX-License-Identifier: Apache-2.0
// Model assembly: actuators, names, sizes, then every gdnModel array from the compiled spec
// (MuJoCo 2.2.2's CopyTree/CopyObjects, keyframes, settotalmass and subtree masses).
#include "mjcf/fluid_coef.h"
#include "mjcf/compile.h"
#include "mjcf/contact.h"
#include "mjcf/mesh.h"
#include "mjcf/sensor.h"
#include "mjcf/skin.h"
#include "mjcf/tendon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/constraint.h"
#include "math/vec.h"
#include "model/model_alloc.h"

#define GDN_MAX_KEY_VALUES 100000000 // nkey * (nq + nv + nu) must stay below this

static gdnModel* fail(gdnSpec* spec, gdnStatus st, gdnXmlElem* e, const char* fmt,
                      const char* arg) {
    gdn_xml_error(spec->diag, st, e, fmt, arg);
    return NULL;
}

// ---------------------------------------------------------------- names

static int compare_named(const void* a, const void* b) {
    const gdnNamedItem* x = a;
    const gdnNamedItem* y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

// build the index of the non-empty names; on a repeated name report it at elems[second]
static int build_index(gdnSpec* spec, gdnNameIndex* idx, const char* const* names,
                       gdnXmlElem* const* elems, int n, const char* type) {
    idx->items = gdn_pool_alloc(spec->pool, (size_t)(n + 1) * sizeof(gdnNamedItem));
    idx->n = 0;
    if (!idx->items) {
        fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (names[i][0]) {
            idx->items[idx->n].name = names[i];
            idx->items[idx->n].index = i;
            idx->n++;
        }
    }
    qsort(idx->items, (size_t)idx->n, sizeof(gdnNamedItem), compare_named);
    for (int k = 1; k < idx->n; k++) {
        if (!strcmp(idx->items[k].name, idx->items[k - 1].name)) {
            gdnXmlElem* e = elems[idx->items[k].index];
            return gdn_xml_error(spec->diag, GDN_ERR_MODEL, e, "repeated %s name '%.64s'", type,
                                 idx->items[k].name);
        }
    }
    return 0;
}

int gdn_name_find(const gdnNameIndex* idx, const char* name) {
    int lo = 0, hi = idx->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(idx->items[mid].name, name);
        if (c == 0) {
            return idx->items[mid].index;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

// index the names of a spec array (build_index: repeated names are an error) and add their
// bytes, terminators included, to nnames; the caller returns NULL after an error
#define INDEX_NAMES(spec, arr, n, type, idx, nnames)                                             \
    do {                                                                                         \
        const char** names_ = gdn_pool_alloc((spec)->pool, (size_t)((n) + 1) * sizeof(*names_)); \
        gdnXmlElem** elems_ = gdn_pool_alloc((spec)->pool, (size_t)((n) + 1) * sizeof(*elems_)); \
        if (!names_ || !elems_) {                                                                \
            return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");                      \
        }                                                                                        \
        for (int i_ = 0; i_ < (n); i_++) {                                                       \
            names_[i_] = (spec)->arr[i_].name;                                                   \
            elems_[i_] = (spec)->arr[i_].elem;                                                   \
            nnames += strlen(names_[i_]) + 1;                                                    \
        }                                                                                        \
        if (build_index((spec), (idx), names_, elems_, (n), (type)) < 0) {                       \
            return NULL;                                                                         \
        }                                                                                        \
    } while (0)

// append name to the buffer at *pos; returns its address (0 = the shared empty string)
static int put_name(char* buf, int* pos, const char* name) {
    if (!name[0]) {
        return 0;
    }
    int adr = *pos;
    size_t len = strlen(name);
    memcpy(buf + adr, name, len + 1);
    *pos += (int)len + 1;
    return adr;
}

// ---------------------------------------------------------------- actuators

// resolve limits, check ranges, find the joint; -1 after an error
static int compile_actuator(gdnSpec* spec, gdnSpecActuator* a, const gdnNameIndex* joints,
                            const int* jnt_id_of_spec, const gdnNameIndex* tendons,
                            const gdnNameIndex* sites, const int* site_id_of_spec,
                            const gdnNameIndex* bodies) {
    gdnXmlElem* e = a->elem;
    gdnDiag* d = spec->diag;
    const char* autolimit_msg =
        "actuator has `%srange` but not `%slimited`. set the autolimits=\"true\" compiler "
        "option, specify `%slimited` explicitly (\"true\" or \"false\"), or remove the "
        "`%srange` attribute.";
    int* limited[3] = {&a->forcelimited, &a->ctrllimited, &a->actlimited};
    const double* range[3] = {a->forcerange, a->ctrlrange, a->actrange};
    const char* word[3] = {"force", "ctrl", "act"};
    for (int k = 0; k < 3; k++) {
        if (*limited[k] == 2) {
            int hasrange = !(range[k][0] == 0 && range[k][1] == 0);
            if (!spec->compiler.autolimits && hasrange) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e, autolimit_msg, word[k], word[k], word[k],
                                     word[k]);
            }
            *limited[k] = hasrange;
        }
        if (*limited[k] && range[k][0] >= range[k][1]) {
            static const char* const names[3] = {"force", "control", "activation"};
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "invalid %s range", names[k]);
        }
    }
    if (a->actlimited && a->dyntype == GDN_DYN_NONE) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "actrange specified but dyntype is 'none'");
    }
    if (a->dyntype > GDN_DYN_MUSCLE || a->gaintype > GDN_GAIN_MUSCLE ||
        a->biastype > GDN_BIAS_MUSCLE) {
        return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, e,
                             "user actuator dynamics, gain or bias (MuJoCo's callbacks) are "
                             "not supported");
    }
    // muscle parameters (gain and bias alike): range, lmin < 1 < lmax, positive scales
    for (int k = 0; k < 2; k++) {
        const double* prm = k == 0 ? (a->gaintype == GDN_GAIN_MUSCLE ? a->gainprm : NULL)
                                   : (a->biastype == GDN_BIAS_MUSCLE ? a->biasprm : NULL);
        if (!prm) {
            continue;
        }
        if (prm[0] >= prm[1]) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "range[0]<range[1] required in muscle");
        }
        if (prm[4] >= 1 || prm[5] <= 1) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "lmin<1<lmax required in muscle");
        }
        if (prm[3] <= 0 || prm[6] <= 0 || prm[7] <= 0 || prm[8] <= 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "positive scale, vmax, fpmax, fvmax required in muscle");
        }
    }
    if (!a->target[0]) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "missing transmission target");
    }
    a->trnid2 = -1;
    if (a->trntype == GDN_TRN_TENDON) {
        // tendon transmission: length = gear[0] ten_length, moment = gear[0] ten_J
        a->trnid = gdn_name_find(tendons, a->target);
        if (a->trnid < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "unknown transmission target '%.64s'",
                                 a->target);
        }
        return 0;
    }
    if (a->trntype == GDN_MJ_TRN_SLIDERCRANK || a->trntype == GDN_MJ_TRN_SITE) {
        // slider-crank: crank site, slider site, a positive crank length; site: the site and
        // its optional reference site (MuJoCo's checks and their order)
        if (a->trntype == GDN_MJ_TRN_SLIDERCRANK) {
            if (!a->slidersite[0]) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e, "missing base site for slider-crank");
            }
            const int s2 = gdn_name_find(sites, a->slidersite);
            if (s2 < 0) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e, "base site '%.64s' not found",
                                     a->slidersite);
            }
            a->trnid2 = site_id_of_spec[s2];
            if (!(a->cranklength > 0)) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e, "crank length must be positive");
            }
        } else if (a->refsite[0]) {
            const int s2 = gdn_name_find(sites, a->refsite);
            if (s2 < 0) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e, "reference site '%.64s' not found",
                                     a->refsite);
            }
            a->trnid2 = site_id_of_spec[s2];
        }
        const int s1 = gdn_name_find(sites, a->target);
        if (s1 < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "transmission target '%.64s' not found",
                                 a->target);
        }
        a->trnid = site_id_of_spec[s1];
        return 0;
    }
    if (a->trntype == GDN_MJ_TRN_BODY) {
        // body (adhesion): the body's contacts' normal Jacobians
        const int b = gdn_name_find(bodies, a->target);
        if (b < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "transmission target '%.64s' not found",
                                 a->target);
        }
        a->trnid = b;
        return 0;
    }
    if (a->trntype != GDN_TRN_JOINT && a->trntype != GDN_MJ_TRN_JOINTINPARENT) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "invalid transmission type");
    }
    int sj = gdn_name_find(joints, a->target);
    if (sj < 0) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "unknown transmission target '%.64s'", a->target);
    }
    int type = spec->joints[sj].type;
    if (a->trntype == GDN_MJ_TRN_JOINTINPARENT && (type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE)) {
        a->trntype = GDN_TRN_JOINT; // identical for hinge and slide joints
    }
    a->trnid = jnt_id_of_spec[sj];
    return 0;
}

// ---------------------------------------------------------------- the model

// 1 when body i's mass properties come from its geoms (compile_inertia's rule)
static int inertia_from_geoms(const gdnSpec* spec, int i) {
    const gdnSpecCompiler* c = &spec->compiler;
    return i > 0 && (c->inertiafromgeom == 1 ||
                     (c->inertiafromgeom == 2 && !spec->bodies[i].explicit_inertial));
}

// fill body, joint and dof arrays (MuJoCo's CopyTree)
// lastdof (nbody) is scratch: the last dof on the path from each body to the root
static void fill_tree(const gdnSpec* spec, const gdnSpecTree* tree, gdnModel* m, int* lastdof) {
    int jntadr = 0, dofadr = 0, qposadr = 0, mocapid = 0;
    for (int i = 0; i < m->nbody; i++) {
        const gdnSpecBody* b = &spec->bodies[i];
        m->body_parentid[i] = i == 0 ? 0 : b->parent;
        m->body_mocapid[i] = b->mocap ? mocapid++ : -1;
        m->body_weldid[i] = b->weldid;
        m->body_rootid[i] = (i == 0 || b->parent == 0) ? i : m->body_rootid[b->parent];
        m->body_jntnum[i] = b->njnt;
        m->body_jntadr[i] = b->njnt ? jntadr : -1;
        m->body_dofnum[i] = b->dofnum;
        m->body_dofadr[i] = b->dofnum ? dofadr : -1;
        m->body_geomnum[i] = b->ngeom;
        m->body_geomadr[i] = b->ngeom ? tree->body_geomadr[i] : -1;
        memcpy(m->body_pos + 3 * i, b->pos, 3 * sizeof(double));
        memcpy(m->body_quat + 4 * i, b->quat, 4 * sizeof(double));
        memcpy(m->body_ipos + 3 * i, b->ipos, 3 * sizeof(double));
        memcpy(m->body_iquat + 4 * i, b->iquat, 4 * sizeof(double));
        m->body_mass[i] = b->mass;
        memcpy(m->body_inertia + 3 * i, b->inertia, 3 * sizeof(double));

        // where the mass properties came from, for the model setters
        const gdnSpecCompiler* c = &spec->compiler;
        int rescaled = i > 0 && (c->settotalmass > 0 || c->boundmass > 0 || c->boundinertia > 0);
        m->body_inertiasource[i] = rescaled ? 2 : inertia_from_geoms(spec, i);

        // the dof parent of this body's first dof: the last dof above it
        int parent_last = i == 0 ? -1 : lastdof[b->parent];
        for (int k = 0; k < b->njnt; k++) {
            const gdnSpecJoint* j = &spec->joints[tree->jnt_order[tree->body_jntadr[i] + k]];
            int jid = jntadr;
            m->jnt_type[jid] = j->type;
            m->jnt_qposadr[jid] = qposadr;
            m->jnt_dofadr[jid] = dofadr;
            m->jnt_bodyid[jid] = i;
            m->jnt_limited[jid] = j->limited;
            memcpy(m->jnt_pos + 3 * jid, j->pos, 3 * sizeof(double));
            memcpy(m->jnt_axis + 3 * jid, j->axis, 3 * sizeof(double));
            m->jnt_stiffness[jid] = j->stiffness;
            memcpy(m->jnt_range + 2 * jid, j->range, 2 * sizeof(double));
            m->jnt_margin[jid] = j->margin;
            memcpy(m->jnt_solref + GDN_NREF * jid, j->solref, GDN_NREF * sizeof(double));
            memcpy(m->jnt_solimp + GDN_NIMP * jid, j->solimp, GDN_NIMP * sizeof(double));

            // neutral and spring configurations: free = body pose, ball = identity,
            // hinge/slide = ref / springref
            double* q0 = m->qpos0 + qposadr;
            double* qs = m->qpos_spring + qposadr;
            const int nq = gdn_joint_nq(j->type), nv = gdn_joint_nv(j->type);
            if (j->type == GDN_JNT_FREE) {
                memcpy(q0, b->pos, 3 * sizeof(double));
                memcpy(q0 + 3, b->quat, 4 * sizeof(double));
                memcpy(qs, q0, 7 * sizeof(double));
            } else if (j->type == GDN_JNT_BALL) {
                q0[0] = 1;
                q0[1] = q0[2] = q0[3] = 0;
                memcpy(qs, q0, 4 * sizeof(double));
            } else {
                q0[0] = j->ref;
                qs[0] = j->springref;
            }
            for (int v = 0; v < nv; v++) {
                m->dof_bodyid[dofadr] = i;
                m->dof_jntid[dofadr] = jid;
                m->dof_parentid[dofadr] = parent_last;
                m->dof_armature[dofadr] = j->armature;
                m->dof_damping[dofadr] = j->damping;
                m->dof_frictionloss[dofadr] = j->frictionloss;
                memcpy(m->dof_solref + GDN_NREF * dofadr, j->solref_friction,
                       GDN_NREF * sizeof(double));
                memcpy(m->dof_solimp + GDN_NIMP * dofadr, j->solimp_friction,
                       GDN_NIMP * sizeof(double));
                parent_last = dofadr;
                dofadr++;
            }
            jntadr++;
            qposadr += nq;
        }
        lastdof[i] = parent_last;
    }
}

static void fill_geoms_sites(const gdnSpec* spec, const gdnSpecTree* tree, gdnModel* m) {
    for (int gid = 0; gid < m->ngeom; gid++) {
        const gdnSpecGeom* g = &spec->geoms[tree->geom_order[gid]];
        m->geom_type[gid] = g->type;
        m->geom_contype[gid] = g->contype;
        m->geom_conaffinity[gid] = g->conaffinity;
        m->geom_condim[gid] = g->condim;
        m->geom_priority[gid] = g->priority;
        m->geom_bodyid[gid] = g->body;
        m->geom_group[gid] = g->group;
        memcpy(m->geom_size + 3 * gid, g->size, 3 * sizeof(double));
        memcpy(m->geom_pos + 3 * gid, g->pos, 3 * sizeof(double));
        memcpy(m->geom_quat + 4 * gid, g->quat, 4 * sizeof(double));
        memcpy(m->geom_friction + 3 * gid, g->friction, 3 * sizeof(double));
        m->geom_solmix[gid] = g->solmix;
        memcpy(m->geom_solref + GDN_NREF * gid, g->solref, GDN_NREF * sizeof(double));
        memcpy(m->geom_solimp + GDN_NIMP * gid, g->solimp, GDN_NIMP * sizeof(double));
        m->geom_margin[gid] = g->margin;
        m->geom_gap[gid] = g->gap;
        memcpy(m->geom_rgba + 4 * gid, g->rgba, 4 * sizeof(double));

        // the compiler's geom mass record for the geom-size setter: mass and inertia of the
        // geoms a body's inertia is made of (compile_geom, compile_inertia), else 0
        const int* range = spec->compiler.inertiagrouprange;
        int inertial =
            inertia_from_geoms(spec, g->body) && g->group >= range[0] && g->group <= range[1];
        m->geom_inertial[gid] = inertial;
        m->geom_mass[gid] = inertial ? g->mass : 0;
        for (int k = 0; k < 3; k++) {
            m->geom_inertia[3 * gid + k] = inertial ? g->inertia[k] : 0;
        }
        // density: the one given, 0 for mass="0" (the compiler's own rule), -1 for another mass
        m->geom_density[gid] = isnan(g->mass_attr) ? g->density : g->mass_attr == 0 ? 0 : -1;
    }
    for (int sid = 0; sid < m->nsite; sid++) {
        const gdnSpecSite* s = &spec->sites[tree->site_order[sid]];
        m->site_bodyid[sid] = s->body;
        memcpy(m->site_pos + 3 * sid, s->pos, 3 * sizeof(double));
        memcpy(m->site_quat + 4 * sid, s->quat, 4 * sizeof(double));
        m->site_type[sid] = s->type;
        memcpy(m->site_size + 3 * sid, s->size, 3 * sizeof(double));
    }
}

static void fill_actuators(const gdnSpec* spec, gdnModel* m) {
    for (int i = 0; i < m->nu; i++) {
        const gdnSpecActuator* a = &spec->actuators[i];
        m->actuator_trntype[i] = a->trntype; // MuJoCo's code (jointinparent on a hinge or slide
                                             // compiled to joint)
        m->actuator_dyntype[i] = a->dyntype;
        m->actuator_gaintype[i] = a->gaintype;
        m->actuator_biastype[i] = a->biastype;
        m->actuator_trnid[2 * i] = a->trnid;
        m->actuator_trnid[2 * i + 1] = a->trnid2;
        m->actuator_cranklength[i] = a->cranklength; // as MuJoCo: any type keeps it
        m->actuator_ctrllimited[i] = a->ctrllimited;
        m->actuator_forcelimited[i] = a->forcelimited;
        memcpy(m->actuator_gear + 6 * i, a->gear, 6 * sizeof(double));
        memcpy(m->actuator_gainprm + GDN_NGAIN * i, a->gainprm, GDN_NGAIN * sizeof(double));
        memcpy(m->actuator_biasprm + GDN_NBIAS * i, a->biasprm, GDN_NBIAS * sizeof(double));
        memcpy(m->actuator_ctrlrange + 2 * i, a->ctrlrange, 2 * sizeof(double));
        memcpy(m->actuator_forcerange + 2 * i, a->forcerange, 2 * sizeof(double));
        m->actuator_actlimited[i] = a->actlimited;
        memcpy(m->actuator_dynprm + GDN_NDYN * i, a->dynprm, GDN_NDYN * sizeof(double));
        memcpy(m->actuator_actrange + 2 * i, a->actrange, 2 * sizeof(double));
        memcpy(m->actuator_lengthrange + 2 * i, a->lengthrange, 2 * sizeof(double));
    }
}

// key k's mocap poses: key's mpos / mquat when given (key NULL: none), else the mocap bodies'
// own; orientations normalized once (MuJoCo's compiler)
static void fill_key_mocap(const gdnSpecKey* key, gdnModel* m, int k) {
    const size_t nmocap = (size_t)m->nmocap;
    double* mpos = m->key_mpos + (size_t)k * 3 * nmocap;
    double* mquat = m->key_mquat + (size_t)k * 4 * nmocap;
    for (int b = 0; b < m->nbody; b++) {
        const int id = m->body_mocapid[b];
        if (id < 0) {
            continue;
        }
        memcpy(mpos + 3 * id, key && key->nmpos ? key->mpos + 3 * id : m->body_pos + 3 * b,
               3 * sizeof(double));
        memcpy(mquat + 4 * id, key && key->nmquat ? key->mquat + 4 * id : m->body_quat + 4 * b,
               4 * sizeof(double));
    }
    for (size_t j = 0; j < nmocap; j++) {
        gdn_normalize4(mquat + 4 * j);
    }
}

// keyframes: missing parts default to qpos0 / 0; quaternions normalized
static int fill_keys(gdnSpec* spec, gdnModel* m, int nmocap) {
    for (int k = 0; k < m->nkey; k++) {
        double* qpos = m->key_qpos + (size_t)k * (size_t)m->nq;
        double* qvel = m->key_qvel + (size_t)k * (size_t)m->nv;
        double* ctrl = m->key_ctrl + (size_t)k * (size_t)m->nu;
        double* act = m->key_act + (size_t)k * (size_t)m->na;
        fill_key_mocap(k < spec->nkey ? &spec->keys[k] : NULL, m, k);
        if (k >= spec->nkey) {
            memcpy(qpos, m->qpos0, (size_t)m->nq * sizeof(double));
            continue;
        }
        const gdnSpecKey* key = &spec->keys[k];
        gdnXmlElem* e = key->elem;
        m->key_time[k] = key->time;
        struct {
            int n, want;
            const char* what;
        } checks[] = {{key->nqpos, m->nq, "qpos"}, {key->nqvel, m->nv, "qvel"},
                      {key->nctrl, m->nu, "ctrl"}, {key->nact, m->na, "act"},
                      {key->nmpos, 3 * nmocap, "mpos"}, {key->nmquat, 4 * nmocap, "mquat"}};
        for (int c = 0; c < 6; c++) {
            if (checks[c].n && checks[c].n != checks[c].want) {
                return gdn_xml_error(spec->diag, GDN_ERR_MODEL, e,
                                     "invalid %s size %d, expected length %d", checks[c].what,
                                     checks[c].n, checks[c].want);
            }
        }
        if (key->nqpos) {
            memcpy(qpos, key->qpos, (size_t)m->nq * sizeof(double));
        } else {
            memcpy(qpos, m->qpos0, (size_t)m->nq * sizeof(double));
        }
        if (key->nqvel) {
            memcpy(qvel, key->qvel, (size_t)m->nv * sizeof(double));
        }
        if (key->nctrl) {
            memcpy(ctrl, key->ctrl, (size_t)m->nu * sizeof(double));
        }
        if (key->nact) {
            memcpy(act, key->act, (size_t)m->na * sizeof(double));
        }
        // normalize ball and free quaternions by multiplying with 1 / norm; MuJoCo 2.2.2's
        // compiled key_qpos equals this applied twice (measured), so apply it twice
        for (int j = 0; j < m->njnt; j++) {
            int t = m->jnt_type[j];
            if (t != GDN_JNT_BALL && t != GDN_JNT_FREE) {
                continue;
            }
            double* q = qpos + m->jnt_qposadr[j] + (t == GDN_JNT_FREE ? 3 : 0);
            gdn_normalize4(q);
            gdn_normalize4(q);
        }
    }
    return 0;
}

gdnModel* gdn_compile_model(gdnSpec* spec) {
    gdnSpecTree tree;
    if (gdn_compile_order(spec, &tree) < 0 || gdn_compile_tree(spec, &tree) < 0) {
        return NULL;
    }

    // names: unique per type; body and geom lookup for equalities and contact pairs, joint
    // lookup for actuators; the names buffer's size (offset 0 is the empty string)
    size_t nnames = 1;
    gdnNameIndex bodies, geoms, idx, joints, tendons, sites;
    INDEX_NAMES(spec, bodies, spec->nbody, "body", &bodies, nnames);

    // equality constraints: body ids (body2 absent = the world), distinct bodies; the
    // joint and tendon equalities' objects after the joints and tendons are indexed, below
    int* eq_body = gdn_pool_alloc(spec->pool, (size_t)(2 * spec->neq + 1) * sizeof(int));
    if (!eq_body) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int i = 0; i < spec->neq; i++) {
        const gdnSpecEquality* q = &spec->equalities[i];
        if (q->type > GDN_EQ_WELD) {
            continue;
        }
        eq_body[2 * i] = gdn_name_find(&bodies, q->name1);
        eq_body[2 * i + 1] = q->name2[0] ? gdn_name_find(&bodies, q->name2) : 0;
        for (int k = 0; k < 2; k++) {
            if (eq_body[2 * i + k] < 0) {
                return fail(spec, GDN_ERR_MODEL, q->elem,
                            "unknown body '%.64s' in equality constraint",
                            k ? q->name2 : q->name1);
            }
        }
        if (eq_body[2 * i] == eq_body[2 * i + 1]) {
            return fail(spec, GDN_ERR_MODEL, q->elem,
                        "body '%.64s' is repeated in equality constraint", q->name1);
        }
    }
    INDEX_NAMES(spec, geoms, spec->ngeom, "geom", &geoms, nnames);
    INDEX_NAMES(spec, sites, spec->nsite, "site", &sites, nnames);
    INDEX_NAMES(spec, actuators, spec->nu, "actuator", &idx, nnames);
    INDEX_NAMES(spec, keys, spec->nkey, "key", &idx, nnames);
    INDEX_NAMES(spec, joints, spec->njnt, "joint", &joints, nnames);
    INDEX_NAMES(spec, tendons, spec->ntendon, "tendon", &tendons, nnames);
    INDEX_NAMES(spec, sensors, spec->nsensor, "sensor", &idx, nnames);

    // joint / tendon equalities: the objects' ids (obj2 absent: -1), distinct, joints scalar
    // (MuJoCo 2.2.2's mjCEquality::Compile and its messages)
    for (int i = 0; i < spec->neq; i++) {
        const gdnSpecEquality* q = &spec->equalities[i];
        if (q->type <= GDN_EQ_WELD) {
            continue;
        }
        const gdnNameIndex* index = q->type == GDN_EQ_JOINT ? &joints : &tendons;
        int* id = eq_body + 2 * i;
        id[0] = gdn_name_find(index, q->name1);
        id[1] = q->name2[0] ? gdn_name_find(index, q->name2) : -1;
        for (int k = 0; k < 2; k++) {
            if (id[k] < 0 && (k == 0 || q->name2[0])) {
                gdn_xml_error(spec->diag, GDN_ERR_MODEL, q->elem,
                              "unknown element '%.64s' in equality constraint %d",
                              k ? q->name2 : q->name1, i);
                return NULL;
            }
        }
        if (id[0] == id[1]) {
            gdn_xml_error(spec->diag, GDN_ERR_MODEL, q->elem,
                          "element '%.64s' is repeated in equality constraint %d", q->name1, i);
            return NULL;
        }
        if (q->type == GDN_EQ_JOINT) {
            for (int k = 0; k < 2; k++) {
                const int t = id[k] >= 0 ? spec->joints[id[k]].type : GDN_JNT_HINGE;
                if (t != GDN_JNT_HINGE && t != GDN_JNT_SLIDE) {
                    const char* name = gdn_xml_attr(q->elem, "name");
                    gdn_xml_error(spec->diag, GDN_ERR_MODEL, q->elem,
                                  "only HINGE and SLIDE joint allowed in constraint '%.64s' "
                                  "(id = %d)",
                                  name ? name : "", i);
                    return NULL;
                }
            }
        }
    }

    // contact pairs and excludes: geom / body names to ids, signatures, sorted
    if (gdn_mjcf_compile_contact(spec, tree.geom_order, &geoms, &bodies) < 0) {
        return NULL;
    }

    // joint id of each spec joint (ids follow body order)
    int* jnt_id = gdn_pool_alloc(spec->pool, (size_t)(spec->njnt + 1) * sizeof(int));
    if (!jnt_id) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int k = 0; k < spec->njnt; k++) {
        jnt_id[tree.jnt_order[k]] = k;
    }
    for (int i = 0; i < spec->neq; i++) {
        int* id = eq_body + 2 * i;
        if (spec->equalities[i].type == GDN_EQ_JOINT) {
            id[0] = jnt_id[id[0]];
            id[1] = id[1] >= 0 ? jnt_id[id[1]] : -1;
        }
    }
    // site id of each spec site (ids follow body order)
    int* site_id = gdn_pool_alloc(spec->pool, (size_t)(spec->nsite + 1) * sizeof(int));
    if (!site_id) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int k = 0; k < spec->nsite; k++) {
        site_id[tree.site_order[k]] = k;
    }
    int* geom_id = gdn_pool_alloc(spec->pool, (size_t)(spec->ngeom + 1) * sizeof(int));
    if (!geom_id) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int k = 0; k < spec->ngeom; k++) {
        geom_id[tree.geom_order[k]] = k;
    }
    if (gdn_mjcf_compile_tendons(spec, &joints, jnt_id, &sites, site_id, &geoms, geom_id) < 0) {
        return NULL;
    }
    // act[i - (nu - na)] is actuator i's state: the stateful ones come last (MuJoCo 2.2.2
    // checks this before it compiles any actuator)
    int na = 0;
    for (int i = 0; i < spec->nu; i++) {
        if (spec->actuators[i].dyntype != GDN_DYN_NONE) {
            na++;
        } else if (na) {
            return fail(spec, GDN_ERR_MODEL, spec->actuators[i].elem, "%s",
                        "stateless actuators must come before stateful actuators");
        }
    }
    for (int i = 0; i < spec->nu; i++) {
        if (compile_actuator(spec, &spec->actuators[i], &joints, jnt_id, &tendons, &sites,
                             site_id, &bodies) < 0) {
            return NULL;
        }
    }

    // sizes
    gdnModelSizes sz;
    memset(&sz, 0, sizeof(sz));
    // mocap bodies: fixed children of the world (MuJoCo's compiler check)
    int nmocap = 0;
    for (int i = 0; i < spec->nbody; i++) {
        const gdnSpecBody* b = &spec->bodies[i];
        if (b->mocap && (b->parent != 0 || b->njnt > 0)) {
            return fail(spec, GDN_ERR_MODEL, b->elem,
                        "mocap body '%s' is not a fixed child of world", b->name ? b->name : "");
        }
        nmocap += b->mocap;
    }
    for (int i = 0; i < spec->njnt; i++) {
        sz.nq += gdn_joint_nq(spec->joints[i].type);
        sz.nv += gdn_joint_nv(spec->joints[i].type);
    }
    sz.nu = spec->nu;
    sz.na = na;
    sz.nbody = spec->nbody;
    sz.njnt = spec->njnt;
    sz.ngeom = spec->ngeom;
    sz.nsite = spec->nsite;
    sz.nkey = spec->nkey > spec->size_nkey ? spec->nkey : spec->size_nkey;
    double key_values = (double)sz.nkey * ((double)sz.nq + sz.nv + sz.nu + sz.na + 1);
    if (sz.nkey < 0 || key_values > GDN_MAX_KEY_VALUES) {
        return fail(spec, GDN_ERR_MODEL, NULL, "%s", "size: too many keyframes (nkey)");
    }
    if (nnames > 100000000) {
        return fail(spec, GDN_ERR_MODEL, NULL, "%s", "names too long");
    }
    sz.nnames = (int)nnames;
    sz.neq = spec->neq;
    sz.npair = spec->npair;
    sz.nexclude = spec->nexclude;
    sz.ntendon = spec->ntendon;
    sz.nwrap = spec->nwrap;
    sz.nmocap = nmocap;
    sz.nsensor = spec->nsensor;
    if (gdn_mjcf_sensor_count(spec, &sz.nsensordata) < 0) {
        return NULL;
    }

    gdnModel* m = gdn_model_alloc(&sz);
    if (!m) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "cannot allocate the model");
    }
    int* lastdof = gdn_pool_alloc(spec->pool, (size_t)m->nbody * sizeof(int));
    if (!lastdof) {
        gdn_model_free(m);
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    m->opt = spec->opt;
    fill_tree(spec, &tree, m, lastdof);
    fill_geoms_sites(spec, &tree, m);
    fill_actuators(spec, m);
    gdn_mjcf_fill_tendons(spec, m);
    gdn_mjcf_fill_contact(spec, m);
    if (gdn_mjcf_fill_meshes(spec, tree.geom_order, m) < 0) {
        gdn_model_free(m);
        return NULL;
    }
    // the ellipsoid fluid coefficients, from the geoms' final sizes (meshes fitted)
    for (int gid = 0; gid < m->ngeom; gid++) {
        const gdnSpecGeom* g = &spec->geoms[tree.geom_order[gid]];
        if (g->fluid) {
            gdn_fluid_coefficients(m->geom_type[gid], m->geom_size + 3 * gid, g->fluidcoef,
                                   m->geom_fluid + (size_t)gid * GDN_NFLUID);
        }
    }
    if (gdn_mjcf_skins(spec, &tree, m) < 0) {
        gdn_model_free(m);
        return NULL;
    }
    if (fill_keys(spec, m, nmocap) < 0) {
        gdn_model_free(m);
        return NULL;
    }

    // settotalmass: scale masses and inertias so that the total is the requested mass
    if (spec->compiler.settotalmass > 0) {
        double total = 0;
        for (int i = 1; i < m->nbody; i++) {
            total += m->body_mass[i];
        }
        double scale = fmax(GDN_MINVAL, spec->compiler.settotalmass / fmax(GDN_MINVAL, total));
        for (int i = 1; i < m->nbody; i++) {
            m->body_mass[i] *= scale;
            m->body_inertia[3 * i] *= scale;
            m->body_inertia[3 * i + 1] *= scale;
            m->body_inertia[3 * i + 2] *= scale;
            if (!isfinite(m->body_mass[i]) || !isfinite(m->body_inertia[3 * i]) ||
                !isfinite(m->body_inertia[3 * i + 1]) || !isfinite(m->body_inertia[3 * i + 2])) {
                gdn_model_free(m);
                return fail(spec, GDN_ERR_MODEL, NULL, "%s",
                            "settotalmass: non-finite scaled mass or inertia");
            }
        }
    }

    // subtree masses, accumulated from the leaves in reverse id order
    gdn_model_subtree_mass(m);
    if (!isfinite(m->body_subtreemass[0])) {
        gdn_model_free(m);
        return fail(spec, GDN_ERR_MODEL, NULL, "%s", "total mass is not finite");
    }

    // names buffer: offset 0 is the empty string
    int pos = 1;
    m->names[0] = '\0';
    for (int i = 0; i < m->nbody; i++) {
        m->name_bodyadr[i] = put_name(m->names, &pos, spec->bodies[i].name);
    }
    for (int k = 0; k < m->njnt; k++) {
        m->name_jntadr[k] = put_name(m->names, &pos, spec->joints[tree.jnt_order[k]].name);
    }
    for (int k = 0; k < m->ngeom; k++) {
        m->name_geomadr[k] = put_name(m->names, &pos, spec->geoms[tree.geom_order[k]].name);
    }
    for (int k = 0; k < m->nsite; k++) {
        m->name_siteadr[k] = put_name(m->names, &pos, spec->sites[tree.site_order[k]].name);
    }
    for (int i = 0; i < m->nu; i++) {
        m->name_actuatoradr[i] = put_name(m->names, &pos, spec->actuators[i].name);
    }
    for (int i = 0; i < m->nkey; i++) {
        m->name_keyadr[i] = i < spec->nkey ? put_name(m->names, &pos, spec->keys[i].name) : 0;
    }
    for (int i = 0; i < m->ntendon; i++) {
        m->name_tendonadr[i] = put_name(m->names, &pos, spec->tendons[i].name);
    }
    for (int i = 0; i < m->nsensor; i++) {
        m->name_sensoradr[i] = put_name(m->names, &pos, spec->sensors[i].name);
    }
    if (gdn_mjcf_fill_sensors(spec, m) < 0) {
        gdn_model_free(m);
        return NULL;
    }
    for (int i = 0; i < m->neq; i++) {
        const gdnSpecEquality* q = &spec->equalities[i];
        m->eq_type[i] = q->type;
        m->eq_obj1id[i] = eq_body[2 * i];
        m->eq_obj2id[i] = eq_body[2 * i + 1];
        m->eq_active[i] = q->active;
        memcpy(m->eq_solref + GDN_NREF * i, q->solref, sizeof(q->solref));
        memcpy(m->eq_solimp + GDN_NIMP * i, q->solimp, sizeof(q->solimp));
        memcpy(m->eq_data + GDN_NEQDATA * i, q->data, sizeof(q->data));
    }
    gdn_model_finalize(m);
    return m;
}
