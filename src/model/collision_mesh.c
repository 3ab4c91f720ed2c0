// SPDX-License-Identifier: Apache-2.0
// Model edits for penalty contact: the contact law's parameters and one body's collision mesh.
#include "model/collision_mesh.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

gdnStatus gdn_model_set_penalty(gdnModel* m, int enabled, double height, double stiffness,
                                double damping) {
    if (!m || !isfinite(height) || !isfinite(stiffness) || !isfinite(damping) || stiffness < 0 ||
        damping < 0) {
        return GDN_ERR_ARG;
    }
    m->penalty.enabled = enabled != 0;
    m->penalty.height = height;
    m->penalty.stiffness = stiffness;
    m->penalty.damping = damping;
    return GDN_OK;
}

// new vertex storage: every body's vertices in body order, body's replaced by verts (n x 3);
// body_vertadr / body_vertnum are rewritten only once the new array exists
gdnStatus gdn_model_set_collision_mesh(gdnModel* m, int body, const double* verts, int n) {
    if (!m || body <= 0 || body >= m->nbody || n < 0 || (n > 0 && !verts)) {
        return GDN_ERR_ARG;
    }
    for (int i = 0; i < 3 * n; i++) {
        if (!isfinite(verts[i])) {
            return GDN_ERR_ARG;
        }
    }
    long long total = (long long)m->nvert - m->body_vertnum[body] + n;
    if (total > INT_MAX / 3) {
        return GDN_ERR_ARG;
    }
    double* pos = malloc(sizeof(double) * 3 * (size_t)(total > 0 ? total : 1));
    if (!pos) {
        return GDN_ERR_MEMORY;
    }
    int next = 0;
    for (int b = 0; b < m->nbody; b++) {
        const int num = b == body ? n : m->body_vertnum[b];
        if (num > 0) {
            const double* src = b == body ? verts : m->vert_pos + 3 * m->body_vertadr[b];
            memcpy(pos + 3 * next, src, sizeof(double) * 3 * (size_t)num);
        }
        m->body_vertadr[b] = next;
        m->body_vertnum[b] = num;
        next += num;
    }
    free(m->vert_buffer_);
    m->vert_buffer_ = pos;
    m->vert_pos = pos;
    m->nvert = next;
    return GDN_OK;
}

gdnStatus gdn_model_set_vertices(gdnModel* m, const double* verts, const int* body_vertnum) {
    long long total = 0;
    for (int b = 0; b < m->nbody; b++) {
        if (body_vertnum[b] < 0) {
            return GDN_ERR_ARG;
        }
        total += body_vertnum[b];
    }
    if (total > INT_MAX / 3) {
        return GDN_ERR_ARG;
    }
    double* pos = NULL;
    if (total > 0) {
        pos = malloc(sizeof(double) * 3 * (size_t)total);
        if (!pos) {
            return GDN_ERR_MEMORY;
        }
        memcpy(pos, verts, sizeof(double) * 3 * (size_t)total);
    }
    int next = 0;
    for (int b = 0; b < m->nbody; b++) {
        m->body_vertadr[b] = next;
        m->body_vertnum[b] = body_vertnum[b];
        next += body_vertnum[b];
    }
    free(m->vert_buffer_);
    m->vert_buffer_ = pos;
    m->vert_pos = pos;
    m->nvert = next;
    return GDN_OK;
}
