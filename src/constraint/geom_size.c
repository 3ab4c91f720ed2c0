// SPDX-License-Identifier: Apache-2.0
// gdn_model_set_geom_size: a primitive geom's size, its bounding radius, its collision skin and,
// when the body's inertia comes from its geoms, the body's mass properties and the weights.
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "constraint/constraint.h"
#include "constraint/geom_inertia.h"
#include "model/geom_skin.h"
#include "model/inertia_set.h"
#include "model/model_alloc.h"

// sizes the compiler requires positive, by geom type (plane: size[2] only)
static const int geom_nsize[8] = {0, 0, 1, 2, 3, 2, 3, 0};

// body b's skin as the loader builds it from the current geoms (its skinned geoms in id order)
// compared with vert_pos: 1 when identical (the skin still derives from the geoms), 0 when it
// was replaced (gdn_model_set_collision_mesh), -1 when a skinned mesh geom makes it unknowable
static int skin_from_geoms(const gdnModel* m, int b) {
    for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b];
         g++) {
        if (m->geom_type[g] == GDN_GEOM_MESH &&
            gdn_geom_skinned(b, m->geom_contype[g], m->geom_conaffinity[g], m->geom_type[g])) {
            return -1;
        }
    }
    if (m->body_vertnum[b] == 0) {
        return 0;
    }
    const double* v = m->vert_pos + 3 * m->body_vertadr[b];
    int n = 0;
    for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b];
         g++) {
        if (!gdn_geom_skinned(b, m->geom_contype[g], m->geom_conaffinity[g], m->geom_type[g])) {
            continue;
        }
        double pts[3 * GDN_GEOM_SKIN_MAX];
        int k = gdn_geom_skin_points(m->geom_type[g], m->geom_size + 3 * g,
                                     m->geom_pos + 3 * g, m->geom_quat + 4 * g, pts);
        if (k < 0 || n + k > m->body_vertnum[b] ||
            memcmp(pts, v + 3 * n, sizeof(double) * 3 * (size_t)k)) {
            return 0;
        }
        n += k;
    }
    return n == m->body_vertnum[b];
}

gdnStatus gdn_model_set_geom_size(gdnModel* m, int g, const double size[3]) {
    if (!m || !size || g < 0 || g >= m->ngeom) {
        return GDN_ERR_ARG;
    }
    int type = m->geom_type[g], b = m->geom_bodyid[g];
    if (type == GDN_GEOM_MESH || type == GDN_GEOM_HFIELD || type < 0 || type > GDN_GEOM_MESH) {
        return GDN_ERR_UNSUPPORTED; // a mesh's size is its compiled vertices'
    }
    for (int i = 0; i < 3; i++) {
        if (!isfinite(size[i])) {
            return GDN_ERR_ARG;
        }
    }
    for (int i = 0; i < geom_nsize[type]; i++) {
        if (!(size[i] > 0)) {
            return GDN_ERR_ARG;
        }
    }
    if (type == GDN_GEOM_PLANE && !(size[2] > 0)) {
        return GDN_ERR_ARG;
    }
    // a skin that derives from the geoms is rebuilt; one with a mesh's vertices cannot be
    int skinned = gdn_geom_skinned(b, m->geom_contype[g], m->geom_conaffinity[g], type);
    int derived = skinned ? skin_from_geoms(m, b) : 0;
    if (derived < 0) {
        return GDN_ERR_UNSUPPORTED;
    }
    // the body's mass properties when the compiler takes them from this geom: recomputed as
    // it does, then the constraint weights; a rescaled or clamped body has no such rule
    if (m->body_inertiasource[b] == 2) {
        return GDN_ERR_UNSUPPORTED;
    }
    gdnGeomMassEdit edit;
    int mass_changes = m->body_inertiasource[b] == 1 && m->geom_inertial[g];
    if (mass_changes) {
        gdnStatus st = gdn_geom_mass_edit(m, g, size, &edit);
        if (st != GDN_OK) {
            return st;
        }
        gdnBodyInertiaSave save;
        st = gdn_model_put_body_mass(m, b, edit.mass, edit.ipos, edit.iquat, edit.inertia, 1,
                                     &save);
        if (st != GDN_OK) {
            return st;
        }
        st = gdn_constraint_reweigh_body(m, b, &save);
        if (st != GDN_OK) {
            return st;
        }
        m->geom_mass[g] = edit.geom_mass;
        memcpy(m->geom_inertia + 3 * g, edit.geom_inertia, 3 * sizeof(double));
    }
    memcpy(m->geom_size + 3 * g, size, 3 * sizeof(double));
    if (derived) {
        // the geom's points in the body's block: after those of the skinned geoms before it
        int n = 0;
        for (int k = m->body_geomadr[b]; k < g; k++) {
            if (gdn_geom_skinned(b, m->geom_contype[k], m->geom_conaffinity[k],
                                 m->geom_type[k])) {
                double pts[3 * GDN_GEOM_SKIN_MAX];
                n += gdn_geom_skin_points(m->geom_type[k], m->geom_size + 3 * k,
                                          m->geom_pos + 3 * k, m->geom_quat + 4 * k, pts);
            }
        }
        gdn_geom_skin_points(type, m->geom_size + 3 * g, m->geom_pos + 3 * g,
                             m->geom_quat + 4 * g, m->vert_pos + 3 * (m->body_vertadr[b] + n));
    }
    gdn_model_finalize(m); // geom_rbound
    return GDN_OK;
}
