// SPDX-License-Identifier: Apache-2.0
// One model loaded in both engines (gradyn and MuJoCo 2.2.2) with a shared set of random states.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constrained.h"
#include "derivative.h"
#include "engines.h"
#include "oracle/from_mujoco.h"

// xorshift64* uniform in [lo, hi)
static double uniform(unsigned long long* s, double lo, double hi) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    unsigned long long r = *s * 2685821657736338717ull;
    return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

// each state: qpos = qpos0 (+) dq with dq uniform in [-1, 1]^nv (a valid configuration on the
// manifold, unit quaternions), qvel uniform in [-1, 1], ctrl uniform in ctrlrange (or [-1, 1]),
// force uniform in [-1, 1]
static void draw_states(benchModel* bm, unsigned long long seed) {
    unsigned long long s = seed ? seed : 1;
    double* dq = bm->scratch;
    for (int k = 0; k < bm->nstates; k++) {
        double* qpos = bm->qpos + (size_t)k * (size_t)bm->nq;
        memcpy(qpos, bm->mm->qpos0, sizeof(double) * (size_t)bm->nq);
        for (int i = 0; i < bm->nv; i++) {
            dq[i] = uniform(&s, -1.0, 1.0);
        }
        mj_integratePos(bm->mm, qpos, dq, 1.0);
        for (int i = 0; i < bm->nv; i++) {
            bm->qvel[(size_t)k * (size_t)bm->nv + (size_t)i] = uniform(&s, -1.0, 1.0);
            bm->force[(size_t)k * (size_t)bm->nv + (size_t)i] = uniform(&s, -1.0, 1.0);
        }
        for (int i = 0; i < bm->nu; i++) {
            double lo = -1.0, hi = 1.0;
            if (bm->mm->actuator_ctrllimited[i]) {
                lo = bm->mm->actuator_ctrlrange[2 * i];
                hi = bm->mm->actuator_ctrlrange[2 * i + 1];
            }
            bm->ctrl[(size_t)k * (size_t)bm->nu + (size_t)i] = uniform(&s, lo, hi);
        }
    }
}

int bench_model_load(benchModel* bm, const char* name, const char* path, benchSource source,
                     int nstates, unsigned long long seed, char* err, int err_size) {
    memset(bm, 0, sizeof(*bm));
    snprintf(bm->name, sizeof(bm->name), "%s", name);
    snprintf(bm->path, sizeof(bm->path), "%s", path);
    bm->nstates = nstates;

    // MuJoCo: constraints off (this also skips collision detection), energy off
    char mjerr[1024] = "";
    bm->mm = mj_loadXML(path, NULL, mjerr, (int)sizeof(mjerr));
    if (!bm->mm) {
        snprintf(err, (size_t)err_size, "MuJoCo cannot load %s: %s", path, mjerr);
        return -1;
    }
    bm->mm->opt.disableflags |= mjDSBL_CONSTRAINT;
    bm->mm->opt.enableflags &= ~mjENBL_ENERGY;
    bm->md = mj_makeData(bm->mm);

    // gradyn: the same flags
    char gerr[1024] = "copy of MuJoCo's model failed";
    gdnStatus st = GDN_ERR_MEMORY;
    if (source == BENCH_SOURCE_MUJOCO) {
        bm->gm = gdn_model_from_mujoco(bm->mm);
        st = bm->gm ? GDN_OK : GDN_ERR_MEMORY;
    } else {
        st = gdn_load_xml(path, &bm->gm, gerr, (int)sizeof(gerr), NULL, 0);
    }
    if (st != GDN_OK || !bm->gm) {
        snprintf(err, (size_t)err_size, "gradyn cannot load %s: %s (%s)", path, gerr,
                 gdn_status_string(st));
        bench_model_free(bm);
        return -1;
    }
    bm->gm->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    bm->gm->opt.enableflags &= ~GDN_ENBL_ENERGY;
    st = gdn_data_create(bm->gm, &bm->gd);
    if (st != GDN_OK) {
        snprintf(err, (size_t)err_size, "gdn_data_create: %s", gdn_status_string(st));
        bench_model_free(bm);
        return -1;
    }

    // the state layouts must agree for the shared states to mean the same thing
    if (bm->gm->nq != bm->mm->nq || bm->gm->nv != bm->mm->nv || bm->gm->nu != bm->mm->nu) {
        snprintf(err, (size_t)err_size, "%s: sizes differ: gradyn nq=%d nv=%d nu=%d, MuJoCo "
                 "nq=%d nv=%d nu=%d", path, bm->gm->nq, bm->gm->nv, bm->gm->nu, bm->mm->nq,
                 bm->mm->nv, bm->mm->nu);
        bench_model_free(bm);
        return -1;
    }
    bm->nq = bm->mm->nq;
    bm->nv = bm->mm->nv;
    bm->nu = bm->mm->nu;

    // the random states (allocated once, outside every timed loop)
    size_t ns = (size_t)nstates;
    bm->qpos = malloc(sizeof(double) * ns * (size_t)bm->nq + 1);
    bm->qvel = malloc(sizeof(double) * ns * (size_t)bm->nv + 1);
    bm->ctrl = malloc(sizeof(double) * ns * (size_t)bm->nu + 1);
    bm->force = malloc(sizeof(double) * ns * (size_t)bm->nv + 1);
    bm->scratch = malloc(sizeof(double) * (size_t)bm->nv + 1);
    if (!bm->qpos || !bm->qvel || !bm->ctrl || !bm->force || !bm->scratch) {
        snprintf(err, (size_t)err_size, "out of memory");
        bench_model_free(bm);
        return -1;
    }
    draw_states(bm, seed);

    // one data per state with the position stage done, for the kinematics-excluded ABA row
    bm->gd_pre = calloc(ns, sizeof(gdnData*));
    bm->md_pre = calloc(ns, sizeof(mjData*));
    if (!bm->gd_pre || !bm->md_pre) {
        snprintf(err, (size_t)err_size, "out of memory");
        bench_model_free(bm);
        return -1;
    }
    for (int s = 0; s < nstates; s++) {
        bm->md_pre[s] = mj_makeData(bm->mm);
        if (gdn_data_create(bm->gm, &bm->gd_pre[s]) != GDN_OK || !bm->md_pre[s]) {
            snprintf(err, (size_t)err_size, "out of memory");
            bench_model_free(bm);
            return -1;
        }
        gdnData* gd = bm->gd;
        mjData* md = bm->md;
        bm->gd = bm->gd_pre[s];
        bm->md = bm->md_pre[s];
        bench_state_gradyn(bm, s);
        bench_state_mujoco(bm, s);
        gdn_kinematics(bm->gm, bm->gd);
        mj_kinematics(bm->mm, bm->md);
        mj_comPos(bm->mm, bm->md);
        bm->gd = gd;
        bm->md = md;
    }
    return 0;
}

void bench_model_free(benchModel* bm) {
    bench_deriv_free(bm);
    bench_cnstr_free(bm);
    for (int s = 0; s < bm->nstates; s++) {
        if (bm->gd_pre && bm->gd_pre[s]) {
            gdn_data_free(bm->gd_pre[s]);
        }
        if (bm->md_pre && bm->md_pre[s]) {
            mj_deleteData(bm->md_pre[s]);
        }
    }
    free(bm->gd_pre);
    free(bm->md_pre);
    if (bm->gd) {
        gdn_data_free(bm->gd);
    }
    if (bm->gm) {
        gdn_model_free(bm->gm);
    }
    if (bm->md) {
        mj_deleteData(bm->md);
    }
    if (bm->mm) {
        mj_deleteModel(bm->mm);
    }
    free(bm->qpos);
    free(bm->qvel);
    free(bm->ctrl);
    free(bm->force);
    free(bm->scratch);
    memset(bm, 0, sizeof(*bm));
}

void bench_state_gradyn(benchModel* bm, int s) {
    gdnData* d = bm->gd;
    d->time = 0.0;
    memcpy(d->qpos, bm->qpos + (size_t)s * (size_t)bm->nq, sizeof(double) * (size_t)bm->nq);
    memcpy(d->qvel, bm->qvel + (size_t)s * (size_t)bm->nv, sizeof(double) * (size_t)bm->nv);
    memcpy(d->ctrl, bm->ctrl + (size_t)s * (size_t)bm->nu, sizeof(double) * (size_t)bm->nu);
}

void bench_state_mujoco(benchModel* bm, int s) {
    mjData* d = bm->md;
    d->time = 0.0;
    memcpy(d->qpos, bm->qpos + (size_t)s * (size_t)bm->nq, sizeof(double) * (size_t)bm->nq);
    memcpy(d->qvel, bm->qvel + (size_t)s * (size_t)bm->nv, sizeof(double) * (size_t)bm->nv);
    memcpy(d->ctrl, bm->ctrl + (size_t)s * (size_t)bm->nu, sizeof(double) * (size_t)bm->nu);
}
