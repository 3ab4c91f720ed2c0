// SPDX-License-Identifier: Apache-2.0
// Derived model fields: quantities that follow from the compiled model and let the step skip work.
#include "model/model_alloc.h"

#include <math.h>

#include "math/vec.h"

// 1 when n doubles are bitwise-equal values (exact ==)
static int same_values(const double* a, const double* b, int n) {
    for (int i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return 0;
        }
    }
    return 1;
}

// gdnSameFrame of a frame at (pos, quat) in body b: the body frame, the body's inertial frame
// (the same doubles, so the same pose bit for bit), the body's orientation, or general
static int same_frame(const gdnModel* m, int b, const double* pos, const double* quat) {
    if (gdn_is_zero3(pos) && gdn_is_identity_quat(quat)) {
        return GDN_SAMEFRAME_BODY;
    }
    if (same_values(pos, m->body_ipos + 3 * b, 3) && same_values(quat, m->body_iquat + 4 * b, 4)) {
        return GDN_SAMEFRAME_INERTIA;
    }
    if (gdn_is_identity_quat(quat)) {
        return GDN_SAMEFRAME_BODYROT;
    }
    return GDN_SAMEFRAME_NONE;
}

// bounding-sphere radius of a primitive geom about its centre (MuJoCo's compiler): sphere r,
// capsule r + h, cylinder sqrt(r^2 + h^2), ellipsoid max(a, b, c), box |half sizes|; plane 0.
// A mesh keeps the radius its producer set (the norm of its bounding-box half sizes)
static double geom_rbound(const gdnModel* m, int g, double current) {
    const double* s = m->geom_size + 3 * g;
    switch (m->geom_type[g]) {
    case GDN_GEOM_SPHERE:
        return s[0];
    case GDN_GEOM_CAPSULE:
        return s[0] + s[1];
    case GDN_GEOM_CYLINDER:
        return sqrt(s[0] * s[0] + s[1] * s[1]);
    case GDN_GEOM_ELLIPSOID:
        return fmax(fmax(s[0], s[1]), s[2]);
    case GDN_GEOM_BOX:
        return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    case GDN_GEOM_MESH:
        return current;
    default:
        return 0;
    }
}

void gdn_model_subtree_mass(gdnModel* m) {
    for (int i = 0; i < m->nbody; i++) {
        m->body_subtreemass[i] = m->body_mass[i];
    }
    for (int i = m->nbody - 1; i > 0; i--) {
        m->body_subtreemass[m->body_parentid[i]] += m->body_subtreemass[i];
    }
}

void gdn_model_finalize(gdnModel* m) {
    for (int b = 0; b < m->nbody; b++) {
        const double* ipos = m->body_ipos + 3 * b;
        const double* iquat = m->body_iquat + 4 * b;
        int sf = GDN_SAMEFRAME_NONE;
        if (gdn_is_identity_quat(iquat)) {
            sf = gdn_is_zero3(ipos) ? GDN_SAMEFRAME_BODY : GDN_SAMEFRAME_BODYROT;
        }
        m->body_sameframe[b] = sf;
    }
    for (int g = 0; g < m->ngeom; g++) {
        m->geom_sameframe[g] =
            same_frame(m, m->geom_bodyid[g], m->geom_pos + 3 * g, m->geom_quat + 4 * g);
        m->geom_rbound[g] = geom_rbound(m, g, m->geom_rbound[g]);
    }
    for (int s = 0; s < m->nsite; s++) {
        m->site_sameframe[s] =
            same_frame(m, m->site_bodyid[s], m->site_pos + 3 * s, m->site_quat + 4 * s);
    }
}
