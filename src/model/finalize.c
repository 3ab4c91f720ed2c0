// SPDX-License-Identifier: Apache-2.0
// Derived model fields: quantities that follow from the compiled model and let the step skip work.
#include "model/model_alloc.h"

// 1 when the three doubles are exactly zero
static int is_zero3(const double* p) {
    return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

// 1 when the quaternion is exactly the identity (1, 0, 0, 0)
static int is_identity_quat(const double* q) {
    return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
}

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
    if (is_zero3(pos) && is_identity_quat(quat)) {
        return GDN_SAMEFRAME_BODY;
    }
    if (same_values(pos, m->body_ipos + 3 * b, 3) && same_values(quat, m->body_iquat + 4 * b, 4)) {
        return GDN_SAMEFRAME_INERTIA;
    }
    if (is_identity_quat(quat)) {
        return GDN_SAMEFRAME_BODYROT;
    }
    return GDN_SAMEFRAME_NONE;
}

void gdn_model_finalize(gdnModel* m) {
    for (int b = 0; b < m->nbody; b++) {
        const double* ipos = m->body_ipos + 3 * b;
        const double* iquat = m->body_iquat + 4 * b;
        int sf = GDN_SAMEFRAME_NONE;
        if (is_identity_quat(iquat)) {
            sf = is_zero3(ipos) ? GDN_SAMEFRAME_BODY : GDN_SAMEFRAME_BODYROT;
        }
        m->body_sameframe[b] = sf;
    }
    for (int g = 0; g < m->ngeom; g++) {
        m->geom_sameframe[g] =
            same_frame(m, m->geom_bodyid[g], m->geom_pos + 3 * g, m->geom_quat + 4 * g);
    }
    for (int s = 0; s < m->nsite; s++) {
        m->site_sameframe[s] =
            same_frame(m, m->site_bodyid[s], m->site_pos + 3 * s, m->site_quat + 4 * s);
    }
}
