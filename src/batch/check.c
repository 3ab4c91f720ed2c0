// SPDX-License-Identifier: Apache-2.0
// The argument checks of the batch calls (before anything runs) and per-entry reporting.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/status.h"
#include "batch/check.h"

// the size fields, in the order the messages name the first that differs
#define GDN_BATCH_SIZES(X)                                                                      \
    X(nq) X(nv) X(nu) X(nbody) X(njnt) X(ngeom) X(nsite) X(nvert) X(nconmax) X(njmax) X(npair) \
    X(nexclude) X(neq) X(nmesh) X(nmeshvert) X(nmeshface) X(nmeshgraph) X(na) X(nmocap)    \
    X(ntendon) X(nwrap) X(nsensor) X(nsensordata)

void gdn_batch_sizes_of(const gdnModel* m, gdnBatchSizes* s) {
#define COPY(field) s->field = m->field;
    GDN_BATCH_SIZES(COPY)
#undef COPY
}

// the first size in which b differs from a (NULL when none), its values in *va, *vb
static const char* size_mismatch(const gdnBatchSizes* a, const gdnBatchSizes* b, int* va,
                                 int* vb) {
#define SIZE(field)                 \
    if (a->field != b->field) {     \
        *va = a->field;             \
        *vb = b->field;             \
        return #field;              \
    }
    GDN_BATCH_SIZES(SIZE)
#undef SIZE
    return NULL;
}

gdnStatus gdn_batch_check_finite(const char* name, const double* x, int nbatch, int rows,
                                 int cols, char* err, int err_size) {
    const size_t per = (size_t)rows * (size_t)cols;
    for (int b = 0; b < nbatch; b++) {
        const double* xb = x + (size_t)b * per;
        for (size_t i = 0; i < per; i++) {
            if (!isfinite(xb[i])) {
                return gdn_fail(GDN_ERR_NONFINITE, err, err_size,
                                "entry %d: %s[%d][%zu][%zu] is not finite", b, name, b,
                                i / (size_t)cols, i % (size_t)cols);
            }
        }
    }
    return GDN_OK;
}

gdnStatus gdn_batch_check(const gdnModel* const* models, int nmodel, int nbatch, int T,
                          int nthread, const double* qpos0, const double* qvel0,
                          const double* ctrl, const gdnBatchSizes* pool, char* err,
                          int err_size) {
    if (!models) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL models");
    }
    if (nbatch <= 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "nbatch must be positive (got %d)", nbatch);
    }
    if (T <= 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "T must be positive (got %d)", T);
    }
    if (nthread < 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "nthread must be >= 0 (got %d)", nthread);
    }
    if (nmodel != 1 && nmodel != nbatch) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "nmodel must be 1 or nbatch (%d), got %d", nbatch, nmodel);
    }
    // every model present and shaped like models[0], and models[0] like the pool's
    gdnBatchSizes first, sk;
    for (int k = 0; k < nmodel; k++) {
        if (!models[k]) {
            return gdn_fail(GDN_ERR_ARG, err, err_size, "models[%d] is NULL", k);
        }
        int va = 0, vb = 0;
        const char* field = NULL;
        if (k == 0) {
            gdn_batch_sizes_of(models[0], &first);
            field = pool ? size_mismatch(pool, &first, &va, &vb) : NULL;
            if (field) {
                return gdn_fail(GDN_ERR_ARG, err, err_size,
                                "models[0] has %s %d, the batch pool was created for %s %d: a "
                                "pool runs models of its creation model's sizes only", field, vb,
                                field, va);
            }
            continue;
        }
        gdn_batch_sizes_of(models[k], &sk);
        field = size_mismatch(&first, &sk, &va, &vb);
        if (field) {
            return gdn_fail(GDN_ERR_ARG, err, err_size,
                            "models[%d] has %s %d, models[0] has %d: the models of a batch must "
                            "have equal sizes", k, field, vb, va);
        }
    }
    const gdnModel* m = models[0];
    if (!qpos0 || !qvel0 || (m->nu > 0 && !ctrl)) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL qpos0, qvel0 or ctrl (nu %d)", m->nu);
    }
    // the largest array, nbatch (T + 1) max(nq, nv, nu, na, nsensordata, 10 nbody, 5 ngeom,
    // 5 npair, 3 nvert) doubles, must be addressable
    size_t width = (size_t)m->nq;
    if ((size_t)m->nv > width) width = (size_t)m->nv;
    if ((size_t)m->nu > width) width = (size_t)m->nu;
    if ((size_t)m->na > width) width = (size_t)m->na;
    if ((size_t)m->nsensordata > width) width = (size_t)m->nsensordata;
    if (10 * (size_t)m->nbody > width) width = 10 * (size_t)m->nbody;
    if (5 * (size_t)m->ngeom > width) width = 5 * (size_t)m->ngeom;
    if (5 * (size_t)m->npair > width) width = 5 * (size_t)m->npair;
    if (3 * (size_t)m->nvert > width) width = 3 * (size_t)m->nvert;
    if (width < 1) width = 1;
    const size_t limit = SIZE_MAX / sizeof(double) / 2;
    if ((size_t)T + 1 > limit / width || (size_t)nbatch > limit / (width * ((size_t)T + 1))) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "nbatch %d x (T + 1) %lld x %zu doubles overflow the address space", nbatch,
                        (long long)T + 1, width);
    }
    gdnStatus st = gdn_batch_check_finite("qpos0", qpos0, nbatch, 1, m->nq, err, err_size);
    if (st == GDN_OK) {
        st = gdn_batch_check_finite("qvel0", qvel0, nbatch, 1, m->nv, err, err_size);
    }
    if (st == GDN_OK && m->nu > 0) {
        st = gdn_batch_check_finite("ctrl", ctrl, nbatch, T, m->nu, err, err_size);
    }
    return st;
}

void gdn_batch_report(gdnBatchStatus* s, gdnStatus st, int step, const char* message) {
    s->status = st;
    s->step = step;
    size_t n = message ? strlen(message) : 0;
    if (n > GDN_BATCH_MESSAGE_SIZE - 1) {
        n = GDN_BATCH_MESSAGE_SIZE - 1;
    }
    if (n > 0) {
        memcpy(s->message, message, n);
    }
    s->message[n] = '\0';
}

void gdn_batch_fill_nan(double* x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        x[i] = NAN;
    }
}
