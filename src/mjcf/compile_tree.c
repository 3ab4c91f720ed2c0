// SPDX-License-Identifier: Apache-2.0
// Body tree compilation: body frames, geom frames and mass, body inertia from geoms or
// <inertial>, joint limits/axes/units, site frames (MuJoCo 2.2.2's mjCBody::Compile order).
#include <math.h>
#include <string.h>

#include "mjcf/compile.h"
#include "mjcf/policy.h"
#include "mjcf/inertia.h"
#include "mjcf/mesh.h"
#include "mjcf/orientation.h"
#include "math/vecn.h"

// number of leading size parameters that must be positive, per geom type
static const int geom_nsize[8] = {3, 0, 1, 2, 3, 2, 3, 0};

static int fail(gdnSpec* spec, gdnStatus st, gdnXmlElem* e, const char* fmt, const char* arg) {
    return gdn_xml_error(spec->diag, st, e, fmt, arg);
}

// a compiled value that is not finite (huge inputs can overflow in frame and mass computations)
static int fail_nonfinite(gdnSpec* spec, gdnXmlElem* e) {
    return fail(spec, GDN_ERR_MODEL, e, "%s", "non-finite compiled value (numbers too large)");
}

// stable counting sort of n items by owner body; order[k] = item index, adr[b] = first slot
static int group_by_body(gdnSpec* spec, const int* owner, int n, int* order, int* adr) {
    int* count = gdn_pool_alloc(spec->pool, (size_t)(spec->nbody + 1) * sizeof(int));
    if (!count) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int i = 0; i < n; i++) {
        count[owner[i] + 1]++;
    }
    for (int b = 0; b < spec->nbody; b++) {
        count[b + 1] += count[b];
        adr[b] = count[b];
    }
    for (int i = 0; i < n; i++) {
        order[count[owner[i]]++] = i;
    }
    return 0;
}

int gdn_compile_order(gdnSpec* spec, gdnSpecTree* tree) {
    gdnPool* pool = spec->pool;
    size_t nb = (size_t)spec->nbody;
    int nmax = spec->njnt > spec->ngeom ? spec->njnt : spec->ngeom;
    nmax = nmax > spec->nsite ? nmax : spec->nsite;
    tree->jnt_order = gdn_pool_alloc(pool, (size_t)(spec->njnt + 1) * sizeof(int));
    tree->geom_order = gdn_pool_alloc(pool, (size_t)(spec->ngeom + 1) * sizeof(int));
    tree->site_order = gdn_pool_alloc(pool, (size_t)(spec->nsite + 1) * sizeof(int));
    tree->body_jntadr = gdn_pool_alloc(pool, nb * sizeof(int));
    tree->body_geomadr = gdn_pool_alloc(pool, nb * sizeof(int));
    tree->body_siteadr = gdn_pool_alloc(pool, nb * sizeof(int));
    int* owner = gdn_pool_alloc(pool, (size_t)(nmax + 1) * sizeof(int));
    if (!tree->jnt_order || !tree->geom_order || !tree->site_order || !tree->body_jntadr ||
        !tree->body_geomadr || !tree->body_siteadr || !owner) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int i = 0; i < spec->njnt; i++) {
        owner[i] = spec->joints[i].body;
    }
    if (group_by_body(spec, owner, spec->njnt, tree->jnt_order, tree->body_jntadr) < 0) {
        return -1;
    }
    for (int i = 0; i < spec->ngeom; i++) {
        owner[i] = spec->geoms[i].body;
    }
    if (group_by_body(spec, owner, spec->ngeom, tree->geom_order, tree->body_geomadr) < 0) {
        return -1;
    }
    for (int i = 0; i < spec->nsite; i++) {
        owner[i] = spec->sites[i].body;
    }
    if (group_by_body(spec, owner, spec->nsite, tree->site_order, tree->body_siteadr) < 0) {
        return -1;
    }
    for (int i = 0; i < spec->njnt; i++) {
        spec->bodies[spec->joints[i].body].njnt++;
    }
    for (int i = 0; i < spec->ngeom; i++) {
        spec->bodies[spec->geoms[i].body].ngeom++;
    }
    for (int i = 0; i < spec->nsite; i++) {
        spec->bodies[spec->sites[i].body].nsite++;
    }
    return 0;
}

// fromto on a geom or site: centre, half-length along the segment, z axis along it
static int apply_fromto(gdnSpec* spec, gdnXmlElem* e, int type, const double fromto[6],
                        double pos[3], double quat[4], double size[3]) {
    if (type != GDN_GEOM_CAPSULE && type != GDN_GEOM_CYLINDER && type != GDN_GEOM_ELLIPSOID &&
        type != GDN_GEOM_BOX) {
        return fail(spec, GDN_ERR_MODEL, e, "%s",
                    "fromto requires capsule, cylinder, box or ellipsoid");
    }
    if (pos[0] || pos[1] || pos[2]) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "both pos and fromto defined");
    }
    double vec[3] = {fromto[0] - fromto[3], fromto[1] - fromto[4], fromto[2] - fromto[5]};
    size[1] = gdn_mj_normvec(vec, 3) / 2;
    if (size[1] < GDN_MJ_EPS) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "fromto points too close");
    }
    if (type == GDN_GEOM_ELLIPSOID || type == GDN_GEOM_BOX) {
        size[2] = size[1];
        size[1] = size[0];
    }
    pos[0] = (fromto[0] + fromto[3]) / 2;
    pos[1] = (fromto[1] + fromto[4]) / 2;
    pos[2] = (fromto[2] + fromto[5]) / 2;
    gdn_mj_z2quat(quat, vec);
    return 0;
}

// sizes that must be positive for the type
static int check_size(gdnSpec* spec, gdnXmlElem* e, int type, const double size[3]) {
    if (type == GDN_GEOM_PLANE) {
        if (!(size[2] > 0)) {
            return fail(spec, GDN_ERR_MODEL, e, "%s", "plane size(3) must be positive");
        }
        return 0;
    }
    for (int i = 0; i < geom_nsize[type]; i++) {
        if (!(size[i] > 0)) {
            return fail(spec, GDN_ERR_MODEL, e, "%s", "sizes must be positive");
        }
    }
    return 0;
}

static int compile_geom(gdnSpec* spec, gdnSpecGeom* g, int weldid, int infer_inertia) {
    gdnXmlElem* e = g->elem;
    const gdnSpecCompiler* c = &spec->compiler;
    if (g->type < 0 || g->type > GDN_GEOM_MESH) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "invalid geom type");
    }
    if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "invalid condim (1, 3, 4 or 6)");
    }
    if ((g->type == GDN_GEOM_PLANE || g->type == GDN_GEOM_HFIELD) && weldid != 0) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "plane and hfield only allowed in static bodies");
    }
    if (g->type == GDN_GEOM_HFIELD) {
        GDN_TRY(gdn_mjcf_unsupported(spec->diag, e, "a height-field geom",
                                     "the geom has no mass, size or contacts"));
    }
    if (g->shellinertia && g->type != GDN_GEOM_MESH) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "shellinertia is only available for meshes");
    }
    if (g->shellinertia) {
        GDN_TRY(gdn_mjcf_unsupported(spec->diag, e, "shellinertia=\"true\"",
                                     "the volume inertia is used"));
    }
    gdn_mj_normvec(g->quat, 4);
    if (!isnan(g->fromto[0])) {
        if (apply_fromto(spec, e, g->type, g->fromto, g->pos, g->quat, g->size) < 0) {
            return -1;
        }
    } else {
        const char* err = gdn_mj_alt_set(&g->alt, g->quat, g->inertia, c->degree, c->eulerseq);
        if (err) {
            return fail(spec, GDN_ERR_MODEL, e, "alternative orientation: %s", err);
        }
    }
    // a mesh geom takes the mesh's frame and size; a primitive naming a mesh is fitted to it
    if (gdn_mjcf_mesh_geom(spec, g) < 0) {
        return -1;
    }
    if (check_size(spec, e, g->type, g->size) < 0) {
        return -1;
    }
    if (!gdn_all_finite(g->size, 3) || !gdn_all_finite(g->pos, 3) || !gdn_all_finite(g->quat, 4)) {
        return fail_nonfinite(spec, e);
    }
    if (g->type == GDN_GEOM_HFIELD) {
        g->mass = 0;
        g->inertia[0] = g->inertia[1] = g->inertia[2] = 0;
        return 0;
    }

    // mass = density * volume unless given; inertia of the solid shape
    if (infer_inertia) {
        double density = g->density;
        if (!isnan(g->mass_attr)) {
            if (g->mass_attr == 0) {
                g->mass = 0;
                density = 0;
            } else if (gdn_geom_volume(g) > GDN_MINVAL) {
                g->mass = g->mass_attr;
                density = g->mass_attr / gdn_geom_volume(g);
                gdn_geom_set_inertia(g);
            }
        } else {
            g->mass = density * gdn_geom_volume(g);
            gdn_geom_set_inertia(g);
        }
        if (g->mass < 0 || g->inertia[0] < 0 || g->inertia[1] < 0 || g->inertia[2] < 0 ||
            density < 0) {
            return fail(spec, GDN_ERR_MODEL, e, "%s", "mass, inertia or density are negative");
        }
        if (!isfinite(g->mass) || !gdn_all_finite(g->inertia, 3)) {
            return fail_nonfinite(spec, e);
        }
    }
    return 0;
}

// joint: limits (autolimits rule, degrees), axis normalization, reference angles; returns
// the dof count, -1 after an error
static int compile_joint(gdnSpec* spec, gdnSpecJoint* j) {
    gdnXmlElem* e = j->elem;
    const gdnSpecCompiler* c = &spec->compiler;
    if (j->springdamper[0] || j->springdamper[1]) {
        if (j->springdamper[0] <= 0 || j->springdamper[1] <= 0) {
            return fail(spec, GDN_ERR_MODEL, e, "%s",
                        "when defined, springdamper values must be positive");
        }
        GDN_TRY(gdn_mjcf_unsupported(spec->diag, e, "springdamper",
                                     "stiffness and damping are used as given"));
    }
    if (j->type == GDN_JNT_FREE) {
        j->limited = 0;
    } else if (j->limited == 2) {
        int hasrange = !(j->range[0] == 0 && j->range[1] == 0);
        if (!c->autolimits && hasrange) {
            return fail(spec, GDN_ERR_MODEL, e, "%s",
                        "joint has `range` but not `limited`. set the autolimits=\"true\" "
                        "compiler option, specify `limited` explicitly (\"true\" or \"false\"), "
                        "or remove the `range` attribute.");
        }
        j->limited = hasrange;
    }
    if (j->limited) {
        if (j->range[0] >= j->range[1] && j->type != GDN_JNT_BALL) {
            return fail(spec, GDN_ERR_MODEL, e, "%s", "range[0] should be smaller than range[1]");
        }
        if (j->range[0] && j->type == GDN_JNT_BALL) {
            return fail(spec, GDN_ERR_MODEL, e, "%s", "range[0] should be 0 in ball joint");
        }
        // degrees -> radians: range *= pi / 180
        if (c->degree && (j->type == GDN_JNT_HINGE || j->type == GDN_JNT_BALL)) {
            if (j->range[0]) {
                j->range[0] *= GDN_MJ_PI / 180.0;
            }
            if (j->range[1]) {
                j->range[1] *= GDN_MJ_PI / 180.0;
            }
        }
    }
    if (j->type == GDN_JNT_FREE || j->type == GDN_JNT_BALL) {
        j->axis[0] = j->axis[1] = 0;
        j->axis[2] = 1;
    }
    if (j->type == GDN_JNT_FREE) {
        j->pos[0] = j->pos[1] = j->pos[2] = 0;
    }
    if (gdn_mj_normvec(j->axis, 3) < GDN_MJ_EPS) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "axis too small");
    }
    if (!gdn_all_finite(j->axis, 3) || !gdn_all_finite(j->range, 2)) {
        return fail_nonfinite(spec, e);
    }
    if (j->type == GDN_JNT_HINGE && c->degree) {
        j->ref *= GDN_MJ_PI / 180.0;
        j->springref *= GDN_MJ_PI / 180.0;
    }
    return gdn_joint_nv(j->type);
}

static int compile_site(gdnSpec* spec, gdnSpecSite* s) {
    gdnXmlElem* e = s->elem;
    const gdnSpecCompiler* c = &spec->compiler;
    if (s->type < 0 || s->type > GDN_GEOM_MESH || s->type == GDN_GEOM_MESH ||
        s->type == GDN_GEOM_HFIELD || s->type == GDN_GEOM_PLANE) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "meshes, hfields and planes not allowed in site");
    }
    if (!isnan(s->fromto[0])) {
        if (apply_fromto(spec, e, s->type, s->fromto, s->pos, s->quat, s->size) < 0) {
            return -1;
        }
    } else {
        const char* err = gdn_mj_alt_set(&s->alt, s->quat, NULL, c->degree, c->eulerseq);
        if (err) {
            return fail(spec, GDN_ERR_MODEL, e, "alternative orientation: %s", err);
        }
    }
    gdn_mj_normvec(s->quat, 4);
    if (!gdn_all_finite(s->size, 3) || !gdn_all_finite(s->pos, 3) || !gdn_all_finite(s->quat, 4)) {
        return fail_nonfinite(spec, e);
    }
    return check_size(spec, e, s->type, s->size);
}

// mass, COM and principal inertia: from geoms, from <inertial>, or the body frame
static int compile_inertia(gdnSpec* spec, const gdnSpecTree* tree, int id) {
    gdnSpecBody* b = &spec->bodies[id];
    const gdnSpecCompiler* c = &spec->compiler;
    gdnXmlElem* e = b->elem;
    if (id > 0 && (c->inertiafromgeom == 1 || (isnan(b->ipos[0]) && c->inertiafromgeom == 2))) {
        gdnSpecGeom* stack_list[16];
        gdnSpecGeom** list = stack_list;
        if (b->ngeom > 16) {
            list = gdn_pool_alloc(spec->pool, (size_t)b->ngeom * sizeof(gdnSpecGeom*));
            if (!list) {
                return fail(spec, GDN_ERR_MEMORY, e, "%s", "out of memory");
            }
        }
        for (int k = 0; k < b->ngeom; k++) {
            list[k] = &spec->geoms[tree->geom_order[tree->body_geomadr[id] + k]];
        }
        const char* err = gdn_geom_frame(list, b->ngeom, c->inertiagrouprange, &b->mass, b->ipos,
                                         b->iquat, b->inertia);
        if (err) {
            return fail(spec, GDN_ERR_MODEL, e, "inertia from geoms: %s", err);
        }
    }
    // no inertial frame: the body frame (MuJoCo copies the body pose); no body frame
    // (coordinate="global" only): the inertial frame
    if (isnan(b->ipos[0]) && isnan(b->pos[0])) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "body pos and ipos are both undefined");
    }
    if (isnan(b->ipos[0])) {
        memcpy(b->ipos, b->pos, sizeof(b->ipos));
        memcpy(b->iquat, b->quat, sizeof(b->iquat));
    } else if (isnan(b->pos[0])) {
        memcpy(b->pos, b->ipos, sizeof(b->pos));
        memcpy(b->quat, b->iquat, sizeof(b->quat));
    }
    if (id == 0) {
        return 0;
    }
    b->mass = fmax(b->mass, c->boundmass);
    for (int k = 0; k < 3; k++) {
        b->inertia[k] = fmax(b->inertia[k], c->boundinertia);
    }
    double* I = b->inertia;
    if (!isfinite(b->mass) || !gdn_all_finite(I, 3) || !gdn_all_finite(b->ipos, 3) ||
        !gdn_all_finite(b->iquat, 4) || !gdn_all_finite(b->quat, 4)) {
        return fail_nonfinite(spec, e);
    }
    if (b->mass < 0 || I[0] < 0 || I[1] < 0 || I[2] < 0) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "mass and inertia cannot be negative");
    }
    // triangle inequality of principal moments: A + B >= C
    if (I[0] + I[1] < I[2] || I[0] + I[2] < I[1] || I[1] + I[2] < I[0]) {
        if (c->balanceinertia) {
            I[0] = I[1] = I[2] = (I[0] + I[1] + I[2]) / 3.0;
        } else {
            return fail(spec, GDN_ERR_MODEL, e, "%s",
                        "inertia must satisfy A + B >= C; use 'balanceinertia' to fix");
        }
    }
    return 0;
}

static int compile_body(gdnSpec* spec, const gdnSpecTree* tree, int id) {
    gdnSpecBody* b = &spec->bodies[id];
    const gdnSpecCompiler* c = &spec->compiler;
    gdnXmlElem* e = b->elem;
    b->weldid = id == 0 ? 0 : (b->njnt > 0 ? id : spec->bodies[b->parent].weldid);
    // pos defaults to 0 in local coordinates; in global ones the world's is 0 and a body's
    // comes from its inertial frame when not given (compile_inertia)
    if (isnan(b->pos[0]) && (!c->global || id == 0)) {
        b->pos[0] = b->pos[1] = b->pos[2] = 0;
    }
    gdn_mj_normvec(b->quat, 4);
    gdn_mj_normvec(b->iquat, 4);
    const char* err = gdn_mj_alt_set(&b->alt, b->quat, b->inertia, c->degree, c->eulerseq);
    if (err) {
        return fail(spec, GDN_ERR_MODEL, e, "frame alternative: %s", err);
    }
    err = gdn_mj_alt_set(&b->ialt, b->iquat, b->inertia, c->degree, c->eulerseq);
    if (err) {
        gdnXmlElem* ie = e;
        for (gdnXmlElem* k = e ? e->first : NULL; k; k = k->next) {
            if (!strcmp(k->name, "inertial")) {
                ie = k;
            }
        }
        return fail(spec, GDN_ERR_MODEL, ie, "inertia alternative: %s", err);
    }

    // geoms (phase 1: frames, sizes, mass)
    int infer = id > 0 && (!b->explicit_inertial || c->inertiafromgeom == 1);
    for (int k = 0; k < b->ngeom; k++) {
        gdnSpecGeom* g = &spec->geoms[tree->geom_order[tree->body_geomadr[id] + k]];
        if (compile_geom(spec, g, b->weldid, infer) < 0) {
            return -1;
        }
    }
    if (compile_inertia(spec, tree, id) < 0) {
        return -1;
    }

    // joints: dof count, at most one free joint, no rotation after a ball
    b->dofnum = 0;
    int hasball = 0, nfree = 0;
    for (int k = 0; k < b->njnt; k++) {
        gdnSpecJoint* j = &spec->joints[tree->jnt_order[tree->body_jntadr[id] + k]];
        int ndof = compile_joint(spec, j);
        if (ndof < 0) {
            return -1;
        }
        b->dofnum += ndof;
        if ((j->type == GDN_JNT_BALL || j->type == GDN_JNT_HINGE) && hasball) {
            return fail(spec, GDN_ERR_MODEL, j->elem, "%s", "ball followed by rotation in body");
        }
        hasball |= j->type == GDN_JNT_BALL;
        nfree += j->type == GDN_JNT_FREE;
    }
    if (b->dofnum > 6) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "more than 6 dofs in body");
    }
    if (nfree > 1 || (nfree == 1 && b->njnt > 1)) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "free joint can only appear by itself");
    }
    if (nfree && b->parent != 0) {
        return fail(spec, GDN_ERR_MODEL, e, "%s", "free joint can only be used on top level");
    }
    for (int k = 0; k < b->nsite; k++) {
        if (compile_site(spec, &spec->sites[tree->site_order[tree->body_siteadr[id] + k]]) < 0) {
            return -1;
        }
    }
    return 0;
}

// moving bodies need mass and inertia, unless a static child carries them
static int massive(const gdnSpecBody* b) {
    return b->mass >= GDN_MINVAL && b->inertia[0] >= GDN_MINVAL &&
           b->inertia[1] >= GDN_MINVAL && b->inertia[2] >= GDN_MINVAL;
}

static int check_moving_mass(gdnSpec* spec) {
    int* carried = gdn_pool_alloc(spec->pool, (size_t)spec->nbody * sizeof(int));
    if (!carried) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int i = 1; i < spec->nbody; i++) {
        const gdnSpecBody* b = &spec->bodies[i];
        if (b->njnt == 0 && massive(b)) {
            carried[b->parent] = 1;
        }
    }
    for (int i = 1; i < spec->nbody; i++) {
        gdnSpecBody* b = &spec->bodies[i];
        if (b->njnt > 0 && !massive(b) && !carried[i]) {
            return fail(spec, GDN_ERR_MODEL, b->elem, "%s",
                        "mass and inertia of moving bodies must be larger than 1e-15");
        }
    }
    return 0;
}

// ---------------------------------------------------------------- coordinate="global"

// a world-frame point or direction in the frame (x, q), as MuJoCo's compiler converts them:
// a_local = R(conj(q)) a, R's rows applied in order
static void local_axis(double out[3], const double a[3], const double q[4]) {
    const double neg[4] = {q[0], -q[1], -q[2], -q[3]};
    double R[9];
    gdn_quat2mat(R, neg);
    double r[3];
    for (int k = 0; k < 3; k++) {
        r[k] = R[3 * k] * a[0] + R[3 * k + 1] * a[1] + R[3 * k + 2] * a[2];
    }
    memcpy(out, r, sizeof(r));
}

// p_local = R(conj(q)) (p - x)
static void local_pos(double p[3], const double x[3], const double q[4]) {
    const double d[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
    local_axis(p, d, q);
}

// q_local = conj(q) * q_child, normalized
static void local_quat(double child[4], const double q[4]) {
    const double neg[4] = {q[0], -q[1], -q[2], -q[3]};
    double r[4];
    gdn_mj_mulquat(r, neg, child);
    memcpy(child, r, sizeof(r));
}

// the spec index of the body named name, -1 when none
static int body_named(const gdnSpec* spec, const char* name) {
    for (int i = 0; name && name[0] && i < spec->nbody; i++) {
        if (!strcmp(spec->bodies[i].name, name)) {
            return i;
        }
    }
    return -1;
}

// every frame was given and compiled in the world frame: make geoms, sites, joints and the
// inertial frame local to their body, each body local to its parent, a connect anchor local
// to body1 and a weld anchor to body2 (MuJoCo's MakeLocal). Bodies go from the last id down,
// so a parent's frame is still the world one when its children use it
static void make_local(gdnSpec* spec, const gdnSpecTree* tree) {
    for (int k = 0; k < spec->neq; k++) {
        gdnSpecEquality* q = &spec->equalities[k];
        if (q->type > 1) {
            continue; // joint / tendon: no frame
        }
        int b = body_named(spec, q->type == 0 ? q->name1 : q->name2);
        if (b >= 0) {
            local_pos(q->data, spec->bodies[b].pos, spec->bodies[b].quat);
        }
    }
    for (int id = spec->nbody - 1; id >= 0; id--) {
        gdnSpecBody* b = &spec->bodies[id];
        for (int k = 0; k < b->ngeom; k++) {
            gdnSpecGeom* g = &spec->geoms[tree->geom_order[tree->body_geomadr[id] + k]];
            local_pos(g->pos, b->pos, b->quat);
            local_quat(g->quat, b->quat);
        }
        for (int k = 0; k < b->nsite; k++) {
            gdnSpecSite* s = &spec->sites[tree->site_order[tree->body_siteadr[id] + k]];
            local_pos(s->pos, b->pos, b->quat);
            local_quat(s->quat, b->quat);
        }
        for (int k = 0; k < b->njnt; k++) {
            gdnSpecJoint* j = &spec->joints[tree->jnt_order[tree->body_jntadr[id] + k]];
            if (j->type != GDN_JNT_FREE) {
                local_pos(j->pos, b->pos, b->quat);
            }
            local_axis(j->axis, j->axis, b->quat);
        }
        if (id == 0) {
            continue;
        }
        local_pos(b->ipos, b->pos, b->quat);
        local_quat(b->iquat, b->quat);
        const gdnSpecBody* parent = &spec->bodies[b->parent];
        local_pos(b->pos, parent->pos, parent->quat);
        local_quat(b->quat, parent->quat);
    }
}

int gdn_compile_tree(gdnSpec* spec, const gdnSpecTree* tree) {
    if (gdn_mjcf_compile_meshes(spec) < 0) {
        return -1;
    }
    for (int i = 0; i < spec->nbody; i++) {
        if (compile_body(spec, tree, i) < 0) {
            return -1;
        }
    }
    if (spec->compiler.global) {
        make_local(spec, tree);
    }
    return check_moving_mass(spec);
}
