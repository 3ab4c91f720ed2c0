// SPDX-License-Identifier: Apache-2.0
// Before timing a row: do both engines compute the same thing? (worst relative difference)
#include <math.h>
#include <stdlib.h>

#include "check.h"

// ||a - b||_inf / max(||b||_inf, floor); NaN anywhere gives +inf
static double relative_error(const double* a, const double* b, int n, double floor_) {
    double diff = 0.0, scale = floor_;
    for (int i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i])) {
            return HUGE_VAL;
        }
        diff = fmax(diff, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    return diff / scale;
}

// relative error of the row's output for the state both engines just computed
static double compare_output(benchModel* bm, benchOutput output, double* dense) {
    const gdnData* g = bm->gd;
    const mjData* d = bm->md;
    int nv = bm->nv;
    switch (output) {
    case BENCH_OUT_XPOS:
        return relative_error(g->xpos, d->xpos, 3 * bm->mm->nbody, 1.0);
    case BENCH_OUT_QFRC_INVERSE:
        return relative_error(g->qfrc_inverse, d->qfrc_inverse, nv, 1.0);
    case BENCH_OUT_QM:
        mj_fullM(bm->mm, dense, d->qM);
        return relative_error(g->qM, dense, nv * nv, 1.0);
    case BENCH_OUT_QACC:
        return relative_error(g->qacc, d->qacc, nv, 1.0);
    case BENCH_OUT_NEXT_STATE:
        return fmax(relative_error(g->qpos, d->qpos, bm->nq, 1.0),
                    relative_error(g->qvel, d->qvel, nv, 1.0));
    }
    return HUGE_VAL;
}

double bench_row_agreement(benchModel* bm, const benchRow* row) {
    double* dense = malloc(sizeof(double) * (size_t)bm->nv * (size_t)bm->nv + 1);
    if (!dense) {
        return HUGE_VAL;
    }
    double worst = 0.0;
    for (int s = 0; s < bm->nstates; s++) {
        row->run_gradyn(bm, s);
        row->run_mujoco(bm, s);
        double e = compare_output(bm, row->output, dense);
        worst = isfinite(e) ? fmax(worst, e) : HUGE_VAL;
    }
    free(dense);
    return worst;
}
