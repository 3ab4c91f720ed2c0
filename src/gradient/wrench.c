// SPDX-License-Identifier: Apache-2.0
// The body wrenches of a step's derivatives: the penalty contact's and the fluid forces' summed.
#include "gradient/wrench.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/body_wrench.h"

// V into the caller's arena block (S scratch beside it): the twists the fluid law reads
static double* twists(const gdnModel* m, gdnData* d) {
    const size_t nvs = (size_t)(m->nv > 0 ? m->nv : 1);
    double* S = gdn_arena_doubles(d, 6 * nvs + 6 * (size_t)m->nbody);
    if (S) {
        gdn_body_velocities(m, d, S, S + 6 * nvs);
        return S + 6 * nvs;
    }
    return NULL;
}

gdnStatus gdn_wrenches_again(const gdnModel* m, gdnData* d, const double* V, double* W) {
    if (gdn_penalty_active(m)) {
        gdn_penalty_wrenches_again(m, d, W);
    } else {
        memset(W, 0, sizeof(double) * 6 * (size_t)m->nbody);
    }
    if (!gdn_fluid_active(m)) {
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    const double* v = V ? V : twists(m, d);
    if (!v) {
        return GDN_ERR_MEMORY;
    }
    gdn_fluid_wrenches(m, d, v, GDN_FLUID_ALL, W);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

const double* gdn_wrenches_from_outputs(const gdnModel* m, gdnData* d) {
    if (!gdn_fluid_active(m)) {
        return gdn_penalty_wrenches_from_outputs(m, d);
    }
    // penalty (when active and sized for this data) plus fluid, in one arena block left to the
    // caller's mark
    const double* P = gdn_penalty_wrenches_from_outputs(m, d);
    double* W = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
    if (!W) {
        return NULL;
    }
    if (P) {
        memcpy(W, P, sizeof(double) * 6 * (size_t)m->nbody);
    } else {
        memset(W, 0, sizeof(double) * 6 * (size_t)m->nbody);
    }
    const double* V = twists(m, d);
    if (!V) {
        return NULL;
    }
    gdn_fluid_wrenches(m, d, V, GDN_FLUID_ALL, W);
    return W;
}

gdnStatus gdn_wrench_jvp(const gdnModel* m, gdnData* d, const double* xi, const double* eta,
                         const double* dvert, const double* dparam, double* dW) {
    gdnStatus status = GDN_OK;
    if (gdn_penalty_active(m)) {
        status = gdn_penalty_wrench_jvp(m, d, xi, eta, dvert, dW);
    } else {
        memset(dW, 0, sizeof(double) * 6 * (size_t)m->nbody);
    }
    if (status != GDN_OK || !gdn_fluid_active(m)) {
        return status;
    }
    size_t mark = gdn_arena_mark(d);
    const double* V = twists(m, d);
    if (!V) {
        return GDN_ERR_MEMORY;
    }
    gdn_fluid_wrench_jvp(m, d, V, GDN_FLUID_ALL, xi, eta, dparam, dW);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_wrench_vjp(const gdnModel* m, gdnData* d, const double* Wbar, double* xibar,
                         double* etabar, double* gvert, double* gparam) {
    gdnStatus status = GDN_OK;
    if (gdn_penalty_active(m)) {
        status = gdn_penalty_wrench_vjp(m, d, Wbar, xibar, etabar, gvert);
    }
    if (status != GDN_OK || !gdn_fluid_active(m)) {
        return status;
    }
    size_t mark = gdn_arena_mark(d);
    const double* V = twists(m, d);
    if (!V) {
        return GDN_ERR_MEMORY;
    }
    gdn_fluid_wrench_vjp(m, d, V, GDN_FLUID_ALL, Wbar, xibar, etabar, gparam);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
