// SPDX-License-Identifier: Apache-2.0
// Kamino on the mechanism models of tests/models/kamino_mech_*.xml: the driven four-bar's rocker
// against Freudenstein's equation and its loop closure, the offset slider-crank against its
// closed form, the two-leg Jansen walker standing (printed: the PADMM settings it needs).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "kamino/kamino.h"
#include "runner/kamino_reference.h"
#include "runner/test.h"

static char g_err[2048];

static gdnModel* load(const char* name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, name);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, g_err);
        return NULL;
    }
    return m;
}

// largest loop-closure residual (the connect rows, the last block)
static double closure(const gdnKaminoModel* km, gdnKaminoData* kd) {
    double r[6];
    int j = km->njoint - 1;
    gdn_kamino_block_rows(km, kd->world, j, r, NULL, NULL);
    return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

typedef struct Run {
    double alpha, tol;
    int proj; // settings.projection_iterations (-1: the default)
    int curvature; // settings.curvature_bias (-1: the default)
    double out_err, closure;
    double iters;
    int unconverged;
} Run;

// nstep steps of the crank driven at rate; out_err: the rocker (four-bar) or slider (slider-
// crank) against its closed form
static int mech_run(const char* file, int slider, double rate, int nstep, Run* run) {
    gdnModel* m = load(file);
    CHECK(m);
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.alpha = run->alpha;
    s.tol_primal = s.tol_dual = s.tol_compl = run->tol;
    s.max_iterations = 1000;
    if (run->proj >= 0) {
        s.projection_iterations = run->proj;
    }
    run->proj = s.projection_iterations; // (printed)
    if (run->curvature >= 0) {
        s.curvature_bias = run->curvature;
    }
    run->curvature = s.curvature_bias;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    int crank = m->jnt_qposadr[gdn_name2id(m, "joint", "crank")];
    int out = m->jnt_qposadr[gdn_name2id(m, "joint", slider ? "slider" : "rocker")];
    gdnKrefFourbar fb = gdn_kref_fourbar_model();
    double th4_0 = atan2(0.33, -0.176), th4 = th4_0, e = 0, c = 0, it = 0;
    int unc = 0;
    for (int k = 0; k < nstep; k++) {
        w->ctrl[0] = rate;
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        unc += !w->status.converged;
        it += w->status.iterations;
        double th2 = w->qpos[crank];
        if (slider) {
            double x = 0.34 + w->qpos[out];
            e = fmax(e, fabs(x - gdn_kref_slider_x(KREF_SLIDER_CRANK, KREF_SLIDER_ROD,
                                                   KREF_SLIDER_OFFSET, th2)));
        } else {
            th4 = gdn_kref_fourbar_output(&fb, th2, th4);
            e = fmax(e, fabs(th4_0 + w->qpos[out] - th4));
        }
        c = fmax(c, closure(km, kd));
    }
    CHECK(fabs(w->qpos[crank]) > 10); // the crank turned (over 1.5 turns)
    run->out_err = e;
    run->closure = c;
    run->iters = it / nstep;
    run->unconverged = unc;
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

static int test_fourbar(void) {
    // Kamino's own velocity-level recovery (projection 0) at alpha 0.01 and 1 (kamino.md's
    // target alone at alpha 1: curvature bias off), then the defaults (the pose projection on)
    // at PADMM tolerance 1e-8, then alpha 1 with the curvature bias and no projection
    Run r[4] = {{0.01, 1e-6, 0, -1, 0, 0, 0, 0}, {1.0, 1e-10, 0, 0, 0, 0, 0, 0},
                {0.01, 1e-8, -1, -1, 0, 0, 0, 0}, {1.0, 1e-10, 0, 1, 0, 0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        CHECK(mech_run("kamino_mech_fourbar.xml", 0, 2.0, 10000, r + i) == 0);
        printf("  four-bar (kamino_mech_fourbar, crank at 2 rad/s, 10^4 steps of 2 ms, alpha %g, "
               "tol %g, projection %d, curvature bias %d): rocker vs Freudenstein %.3g rad, "
               "closure %.3g m, %.1f it/step, %d unconverged\n",
               r[i].alpha, r[i].tol, r[i].proj, r[i].curvature, r[i].out_err, r[i].closure,
               r[i].iters, r[i].unconverged);
    }
    CHECK(r[2].closure < 1e-9 && r[2].out_err < 1e-8 && r[2].unconverged == 0);
    // the error is the closure error's; MuJoCo's soft connect: 1.5e-4 rad, 4.4e-5 m
    CHECK(r[0].out_err < 1e-3 && r[1].out_err < 1e-5);
    CHECK(r[1].closure < 1e-6); // the one-step drift (omega h)^2 L / 2 ~ 8e-7 m at alpha 1
    // the curvature bias leaves the O(h^3) drift h^2 / 2 (c(u+) - c(u)): 1.8e-8 m at alpha 1,
    // and at alpha 0.01 9.5e-8 m (1.2e-5 m without it)
    CHECK(r[3].closure < 5e-8 && r[0].closure < 5e-7);
    CHECK(r[0].unconverged == 0 && r[1].unconverged == 0 && r[3].unconverged == 0);
    return 0;
}

static int test_slider_crank(void) {
    Run r[4] = {{0.01, 1e-6, 0, -1, 0, 0, 0, 0}, {1.0, 1e-10, 0, 0, 0, 0, 0, 0},
                {0.01, 1e-8, -1, -1, 0, 0, 0, 0}, {1.0, 1e-10, 0, 1, 0, 0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        CHECK(mech_run("kamino_mech_slidercrank.xml", 1, 2.0, 10000, r + i) == 0);
        printf("  slider-crank (crank at 2 rad/s, 10^4 steps of 2 ms, alpha %g, tol %g, projection "
               "%d, curvature bias %d): slider vs closed form %.3g m, closure %.3g m, %.1f "
               "it/step, %d unconverged\n",
               r[i].alpha, r[i].tol, r[i].proj, r[i].curvature, r[i].out_err, r[i].closure,
               r[i].iters, r[i].unconverged);
    }
    CHECK(r[2].closure < 1e-9 && r[2].out_err < 1e-8 && r[2].unconverged == 0);
    CHECK(r[0].out_err < 1e-3 && r[1].out_err < 1e-5);
    CHECK(r[1].closure < 1e-6);
    CHECK(r[3].closure < 1e-7 && r[0].closure < 5e-7); // curvature bias: 4.7e-8 m, 1.5e-7 m
    CHECK(r[0].unconverged == 0 && r[1].unconverged == 0 && r[3].unconverged == 0);
    return 0;
}

// the walker standing at ctrl 0 for 1 s: default PADMM (rho 1) against rho 0.01
static int test_leg(void) {
    gdnModel* m = load("kamino_mech_leg.xml");
    CHECK(m);
    for (int v = 0; v < 2; v++) {
        gdnKaminoSettings s;
        gdn_kamino_settings_default(&s);
        if (v) {
            s.rho = 0.01;
        }
        gdnKaminoModel* km = NULL;
        gdnKaminoData* kd = NULL;
        CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
        CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
        gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
        int n = (int)lround(1.0 / m->opt.timestep), unc = 0;
        double it = 0, worst = 0;
        for (int k = 0; k < n; k++) {
            CHECK(gdn_kamino_step(km, kd) == GDN_OK);
            unc += !w->status.converged;
            it += w->status.iterations;
            for (int i = 0; i < w->status.nbilateral; i++) {
                worst = fmax(worst, fabs(kd->world->resid[i]));
            }
        }
        printf("  leg standing 1 s (%d rows, %d contacts at the end, rho %g): %.1f it/step, %d of "
               "%d steps unconverged, largest joint residual %.3g\n",
               w->nrow, w->ncontact, s.rho, it / n, unc, n, worst);
        if (v) {
            CHECK(unc == 0);
            CHECK(worst < 1e-5);
        }
        gdn_kamino_data_free(kd);
        gdn_kamino_model_free(km);
    }
    gdn_model_free(m);
    return 0;
}

static int cmp_int(const void* a, const void* b) {
    return *(const int*)a - *(const int*)b;
}

// PADMM iterations per step at tolerance 1e-8 on the scene files with the default settings: the
// issue's goal, a median of at most 50 and no capped solve, on every one
static int test_iterations(void) {
    const char* files[] = {"kamino_scene_box_rest.xml",       "kamino_scene_box_slide.xml",
                           "kamino_scene_slide_frictionless.xml", "kamino_scene_incline_hold.xml",
                           "kamino_scene_incline_slide.xml",  "kamino_scene_sphere_roll.xml",
                           "kamino_scene_ball_bounce.xml",    "kamino_scene_stack5.xml",
                           "kamino_scene_pinch.xml",          "kamino_mech_fourbar.xml",
                           "kamino_mech_slidercrank.xml",     "kamino_mech_leg.xml"};
    enum { NSTEP = 500 };
    static int its[NSTEP];
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        gdnModel* m = load(files[f]);
        CHECK(m);
        gdnKaminoSettings s;
        gdn_kamino_settings_default(&s);
        s.restitution = m->opt.kamino_restitution;
        s.tol_primal = s.tol_dual = s.tol_compl = 1e-8;
        gdnKaminoModel* km = NULL;
        gdnKaminoData* kd = NULL;
        CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
        CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
        gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
        int unc = 0, n = 0;
        for (int k = 0; k < NSTEP; k++) {
            CHECK(gdn_kamino_step(km, kd) == GDN_OK);
            if (w->nrow > 0) {
                its[n++] = w->status.iterations;
                unc += !w->status.converged;
            }
        }
        qsort(its, (size_t)n, sizeof(int), cmp_int);
        printf("  iterations at tol 1e-8, %-36s median %3d, max %3d, %3d of %d solves capped\n",
               files[f], n ? its[n / 2] : 0, n ? its[n - 1] : 0, unc, n);
        // issue 10: tolerance 1e-8 within a median of 50 iterations, every solve converged
        CHECK(n > 0 && its[n / 2] <= 50 && unc == 0);
        gdn_kamino_data_free(kd);
        gdn_kamino_model_free(km);
        gdn_model_free(m);
    }
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"fourbar", test_fourbar},
        {"slider_crank", test_slider_crank},
        {"leg", test_leg},
        {"iterations", test_iterations},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
