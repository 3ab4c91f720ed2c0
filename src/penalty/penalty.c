// SPDX-License-Identifier: Apache-2.0
// Per-vertex penalty ground contact: forces at the vertices, body wrenches, J' W into tau.
#include "penalty/penalty.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/body_wrench.h"
#include "math/vec.h"

// per vertex: x = o + R p, depth = h - x_z, xdot_z = (w x x)_z + v_z, f_z = k depth - c xdot_z;
// active vertices add [x x f; f] = [x_y f_z, -x_x f_z, 0; 0, 0, f_z] to their body's wrench
void gdn_penalty_wrenches(const gdnModel* m, gdnData* d, const double* V, double* W) {
    const double height = m->penalty.height, k = m->penalty.stiffness, c = m->penalty.damping;
    int nactive = 0;
    memset(W, 0, 6 * sizeof(double) * (size_t)m->nbody);
    for (int b = 1; b < m->nbody; b++) {
        const int adr = m->body_vertadr[b], num = m->body_vertnum[b];
        const double* R = d->xmat + 9 * b;
        const double* o = d->xpos + 3 * b;
        const double* w = V + 6 * b;
        const double* v = w + 3;
        double* Wb = W + 6 * b;
        for (int i = adr; i < adr + num; i++) {
            double* x = d->vert_xpos + 3 * i;
            double* f = d->vert_force + 3 * i;
            double rp[3];
            gdn_mulmat3(rp, R, m->vert_pos + 3 * i);
            gdn_add3(x, o, rp);
            gdn_zero3(f);
            double depth = height - x[2];
            if (!(depth > 0)) {
                continue;
            }
            double xdot_z = w[0] * x[1] - w[1] * x[0] + v[2];
            double fz = k * depth - c * xdot_z;
            if (!(fz > 0)) {
                continue;
            }
            f[2] = fz;
            Wb[0] += x[1] * fz;
            Wb[1] -= x[0] * fz;
            Wb[5] += fz;
            nactive++;
        }
    }
    d->nvert_active = nactive;
}

// the sums of gdn_penalty_wrenches over its active vertices (f_z > 0), in its order
void gdn_penalty_wrenches_again(const gdnModel* m, const gdnData* d, double* W) {
    memset(W, 0, 6 * sizeof(double) * (size_t)m->nbody);
    for (int b = 1; b < m->nbody; b++) {
        const int adr = m->body_vertadr[b], num = m->body_vertnum[b];
        double* Wb = W + 6 * b;
        for (int i = adr; i < adr + num; i++) {
            const double* x = d->vert_xpos + 3 * i;
            const double fz = d->vert_force[3 * i + 2];
            if (!(fz > 0)) {
                continue;
            }
            Wb[0] += x[1] * fz;
            Wb[1] -= x[0] * fz;
            Wb[5] += fz;
        }
    }
}

gdnStatus gdn_penalty_forces(const gdnModel* m, gdnData* d, double* qfrc) {
    if (!m->penalty.enabled) {
        return GDN_OK;
    }
    if (d->nvert != m->nvert) {
        return GDN_ERR_ARG;
    }
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* V = gdn_arena_doubles(d, 3 * nb6 + 6 * (size_t)m->nv);
    if (!V) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* W = V + nb6;
    double* scratch = W + nb6;
    gdn_body_velocities(m, d, scratch + nb6, V);
    gdn_penalty_wrenches(m, d, V, W);
    memset(d->qfrc_penalty, 0, sizeof(double) * (size_t)m->nv);
    gdn_body_wrench_qfrc(m, d, W, scratch, d->qfrc_penalty);
    for (int i = 0; i < m->nv; i++) {
        qfrc[i] += d->qfrc_penalty[i];
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}


const double* gdn_penalty_wrenches_from_outputs(const gdnModel* m, gdnData* d) {
    if (!gdn_penalty_active(m) || d->nvert != m->nvert) {
        return NULL;
    }
    double* W = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    if (!W) {
        return NULL;
    }
    memset(W, 0, 6 * sizeof(double) * (size_t)m->nbody);
    for (int b = 1; b < m->nbody; b++) {
        double* w = W + 6 * b;
        for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
            const double* x = d->vert_xpos + 3 * v;
            const double* f = d->vert_force + 3 * v;
            double t[3];
            gdn_cross3(t, x, f);
            gdn_add3(w, w, t);
            gdn_add3(w + 3, w + 3, f);
        }
    }
    return W;
}
