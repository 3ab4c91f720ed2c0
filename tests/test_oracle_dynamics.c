// SPDX-License-Identifier: Apache-2.0
// Kinematics and smooth dynamics against MuJoCo 2.2.2 on 100 random states per model.
//
// Error measure for every quantity: ||a - b||_inf / max(||b||_inf, floor), a = gradyn,
// b = MuJoCo, over the whole array of one sample; tolerance 1e-10. floor = 1 for kinematics
// (metres, unit vectors, unit quaternions), 1e-6 for forces, accelerations and qM. xquat is
// compared up to sign (q and -q are the same rotation). Constraints are disabled in both.
// Printed names: qacc = gdn_forward's qacc vs qacc_smooth; qM(fwd) after gdn_forward and
// qM(crb) after gdn_kinematics + gdn_crb vs mj_fullM; rne0 / rne1 = gdn_rne with flg_acc 0 / 1
// vs mj_rne (+ armature * qacc for flg_acc 1); inverse = gdn_inverse vs mj_inverse.
#include <stdlib.h>
#include <string.h>

#include "oracle/model_suite.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define NSAMPLE 100
#define TOL 1e-10
#define FLOOR_KIN 1.0
#define FLOOR_DYN 1e-6

// per-model scratch (tests may allocate; the library may not)
typedef struct Scratch {
    double* dense_g; // nv x nv
    double* dense_m; // nv x nv
    double* res_g;   // nv
    double* res_m;   // nv
    double* qacc;    // nv
    double* axis_g;  // njnt x 3
    double* axis_m;  // njnt x 3
} Scratch;

static void scratch_free(Scratch* s) {
    free(s->dense_g);
    free(s->dense_m);
    free(s->res_g);
    free(s->res_m);
    free(s->qacc);
    free(s->axis_g);
    free(s->axis_m);
}

static int scratch_alloc(Scratch* s, int nv, int njnt) {
    size_t nn = (size_t)(nv * nv > 0 ? nv * nv : 1), n = (size_t)(nv > 0 ? nv : 1);
    size_t nj = (size_t)(3 * njnt > 0 ? 3 * njnt : 1);
    s->dense_g = calloc(nn, sizeof(double));
    s->dense_m = calloc(nn, sizeof(double));
    s->res_g = calloc(n, sizeof(double));
    s->res_m = calloc(n, sizeof(double));
    s->qacc = calloc(n, sizeof(double));
    s->axis_g = calloc(nj, sizeof(double));
    s->axis_m = calloc(nj, sizeof(double));
    return s->dense_g && s->dense_m && s->res_g && s->res_m && s->qacc && s->axis_g &&
           s->axis_m;
}

// kinematics after gdn_forward / mj_forward: body frames, COMs, joint anchors and axes
static void check_kinematics(gdnOracle* o, gdnWorst* w, int sample, Scratch* s) {
    const gdnModel* g = o->gm;
    const gdnData* gd = o->gd;
    const mjData* md = o->md;
    int nb = g->nbody;
    gdn_worst_check(w, o->name, sample, "xpos", gd->xpos, md->xpos, 3 * nb, FLOOR_KIN, TOL);
    gdn_worst_check(w, o->name, sample, "xmat", gd->xmat, md->xmat, 9 * nb, FLOOR_KIN, TOL);
    double qerr = 0;
    for (int b = 0; b < nb; b++) {
        double e = gdn_oracle_quat_distance(gd->xquat + 4 * b, md->xquat + 4 * b);
        qerr = e <= qerr ? qerr : e;
    }
    gdn_worst_check_err(w, o->name, sample, "xquat", qerr, TOL);
    gdn_worst_check(w, o->name, sample, "xipos", gd->xipos, md->xipos, 3 * nb, FLOOR_KIN, TOL);
    gdn_worst_check(w, o->name, sample, "xanchor", gd->xanchor, md->xanchor, 3 * g->njnt,
                    FLOOR_KIN, TOL);

    // joint axes exist for hinge and slide only (ball/free axes are a MuJoCo placeholder)
    int n = 0;
    for (int j = 0; j < g->njnt; j++) {
        if (g->jnt_type[j] == GDN_JNT_HINGE || g->jnt_type[j] == GDN_JNT_SLIDE) {
            memcpy(s->axis_g + 3 * n, gd->xaxis + 3 * j, 3 * sizeof(double));
            memcpy(s->axis_m + 3 * n, md->xaxis + 3 * j, 3 * sizeof(double));
            n++;
        }
    }
    gdn_worst_check(w, o->name, sample, "xaxis", s->axis_g, s->axis_m, 3 * n, FLOOR_KIN, TOL);
    gdn_worst_check(w, o->name, sample, "geom_xpos", gd->geom_xpos, md->geom_xpos, 3 * g->ngeom,
                    FLOOR_KIN, TOL);
    gdn_worst_check(w, o->name, sample, "site_xpos", gd->site_xpos, md->site_xpos, 3 * g->nsite,
                    FLOOR_KIN, TOL);
}

// one random state: everything this test compares
// the root-most ancestor dof of dof i (the first dof of its tree)
static int dof_root(const gdnModel* g, int i) {
    while (g->dof_parentid[i] >= 0) {
        i = g->dof_parentid[i];
    }
    return i;
}

static int check_sample(gdnOracle* o, gdnWorst* w, int sample, unsigned long long* rng,
                        Scratch* s) {
    gdnModel* g = o->gm;
    gdnData* gd = o->gd;
    mjModel* mm = o->mm;
    mjData* md = o->md;
    int nv = g->nv;

    gdn_oracle_random_state(o, rng, GDN_RAND_ALL, 1.0);
    mj_forward(mm, md);
    gdnStatus st = gdn_forward(g, gd);
    if (st != GDN_OK) {
        fprintf(stderr, "%s sample %d: gdn_forward returned %s\n", o->name, sample,
                gdn_status_string(st));
        w->failures++;
        return 1;
    }

    // forward dynamics: kinematics, forces, qM, unconstrained acceleration
    check_kinematics(o, w, sample, s);
    gdn_worst_check(w, o->name, sample, "qfrc_bias", gd->qfrc_bias, md->qfrc_bias, nv,
                    FLOOR_DYN, TOL);
    gdn_worst_check(w, o->name, sample, "qfrc_passive", gd->qfrc_passive, md->qfrc_passive, nv,
                    FLOOR_DYN, TOL);
    gdn_worst_check(w, o->name, sample, "qfrc_actuator", gd->qfrc_actuator, md->qfrc_actuator,
                    nv, FLOOR_DYN, TOL);
    gdn_worst_check(w, o->name, sample, "qacc", gd->qacc, md->qacc_smooth, nv, FLOOR_DYN, TOL);
    gdn_oracle_full_m(o, s->dense_m);
    gdn_worst_check(w, o->name, sample, "qM(fwd)", gd->qM, s->dense_m, nv * nv, FLOOR_DYN, TOL);

    // CRB as a stage on its own (qM poisoned first so a stale matrix cannot pass): every entry
    // between two dofs of one tree (those gdn_crb writes; the others are zeros it relies on)
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
            if (dof_root(g, i) == dof_root(g, j)) {
                gd->qM[i * nv + j] = NAN;
            }
        }
    }
    gdn_kinematics(g, gd);
    gdn_crb(g, gd);
    gdn_worst_check(w, o->name, sample, "qM(crb)", gd->qM, s->dense_m, nv * nv, FLOOR_DYN, TOL);

    // RNE without acceleration: C(q, v) including gravity
    gdn_rne(g, gd, 0, s->res_g);
    mj_rne(mm, md, 0, s->res_m);
    gdn_worst_check(w, o->name, sample, "rne0", s->res_g, s->res_m, nv, FLOOR_DYN, TOL);

    // RNE with a random acceleration: M qacc + C, where gradyn's M includes the armature and
    // mj_rne's does not (mj_inverse adds armature * qacc itself)
    for (int i = 0; i < nv; i++) {
        s->qacc[i] = gdn_test_uniform(rng, -5, 5);
    }
    memcpy(gd->qacc, s->qacc, sizeof(double) * (size_t)nv);
    memcpy(md->qacc, s->qacc, sizeof(double) * (size_t)nv);
    gdn_rne(g, gd, 1, s->res_g);
    mj_rne(mm, md, 1, s->res_m);
    for (int i = 0; i < nv; i++) {
        s->res_m[i] += mm->dof_armature[i] * s->qacc[i];
    }
    gdn_worst_check(w, o->name, sample, "rne1", s->res_g, s->res_m, nv, FLOOR_DYN, TOL);

    // inverse dynamics, MuJoCo's convention (mj_inverse, no constraints):
    // qfrc_inverse = M qacc + C - qfrc_passive, armature in M; applied and actuator forces are
    // not subtracted (they are what qfrc_inverse must equal), so they stay in the state
    st = gdn_inverse(g, gd);
    mj_inverse(mm, md);
    if (st != GDN_OK) {
        fprintf(stderr, "%s sample %d: gdn_inverse returned %s\n", o->name, sample,
                gdn_status_string(st));
        w->failures++;
    }
    gdn_worst_check(w, o->name, sample, "inverse", gd->qfrc_inverse, md->qfrc_inverse, nv,
                    FLOOR_DYN, TOL);
    return 0;
}

// 100 random states of one model; prints the worst error per quantity
static int check_model(const char* path, gdnOracleSource source) {
    gdnOracle o;
    if (gdn_oracle_load_from(&o, path, source)) {
        return 1;
    }
    Scratch s;
    int ok = scratch_alloc(&s, o.gm->nv, o.gm->njnt);
    gdnWorst w;
    memset(&w, 0, sizeof(w));
    unsigned long long rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)strlen(o.name);
    for (int k = 0; ok && k < NSAMPLE; k++) {
        if (check_sample(&o, &w, k, &rng, &s)) {
            break;
        }
    }
    char label[256];
    snprintf(label, sizeof(label), "%s%s", o.name,
             source == GDN_ORACLE_FROM_MJMODEL ? "(mjModel)" : "");
    gdn_worst_print(&w, label);
    int warnings = gdn_oracle_warnings(&o);
    scratch_free(&s);
    gdn_oracle_free(&o);
    CHECK(ok);
    CHECK(warnings == 0);
    CHECK(w.failures == 0);
    return 0;
}

GDN_ORACLE_MODEL_SUITE_MAIN(check_model)
