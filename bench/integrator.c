// SPDX-License-Identifier: Apache-2.0
// The integrator table (issue 12): Euler and RK4 steps of gradyn and MuJoCo 2.2.2 over whole
// rollouts, and the trajectory adjoint's cost relative to its rollout under RK4.
#include "integrator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "timer.h"

#ifndef GDN_TEST_MODELS
#    define GDN_TEST_MODELS "tests/models"
#endif

// the scenes: MuJoCo's humanoid with constraints off (smooth) and falling on its floor
// (contacts), the 7-dof arm (smooth, damped), the five-box stack (contacts), arm26's spatial
// tendons with sphere and cylinder wrapping driven by motors (tendon-driven), and MuJoCo's own
// arm26 sample: the same tendons driven by six muscles (activation states, muscle gain and
// bias, length ranges simulated at load)
#define NSCENE 6
static const char* const scene_names[NSCENE] = {"humanoid (smooth)", "humanoid (floor)", "arm7",
                                                "stack5", "arm26 tendons", "arm26 muscles"};
static const char* const scene_paths[NSCENE] = {
    "/usr/share/mujoco/model/humanoid/humanoid.xml",
    "/usr/share/mujoco/model/humanoid/humanoid.xml", GDN_TEST_MODELS "/arm7.xml",
    GDN_TEST_MODELS "/sol_stack.xml", GDN_TEST_MODELS "/tendon_arm26.xml",
    "/usr/share/mujoco/model/tendon_arm/arm26.xml"};
static const int scene_smooth[NSCENE] = {1, 0, 1, 0, 0, 0};

typedef struct scene {
    gdnModel* gm;
    gdnData* gd;
    mjModel* mm;
    mjData* md;
} scene;

static void scene_free(scene* s) {
    gdn_data_free(s->gd);
    gdn_model_free(s->gm);
    if (s->md) {
        mj_deleteData(s->md);
    }
    if (s->mm) {
        mj_deleteModel(s->mm);
    }
    memset(s, 0, sizeof(*s));
}

static int scene_load(scene* s, int i, char* err, int err_size) {
    memset(s, 0, sizeof(*s));
    if (gdn_load_xml(scene_paths[i], &s->gm, err, err_size, NULL, 0) != GDN_OK ||
        gdn_data_create(s->gm, &s->gd) != GDN_OK) {
        scene_free(s);
        return -1;
    }
    s->mm = mj_loadXML(scene_paths[i], NULL, err, err_size);
    if (!s->mm) {
        scene_free(s);
        return -1;
    }
    s->md = mj_makeData(s->mm);
    if (scene_smooth[i]) {
        s->gm->opt.disableflags |= GDN_DSBL_CONSTRAINT;
        s->mm->opt.disableflags |= mjDSBL_CONSTRAINT;
    }
    return 0;
}

// seconds per step of one rollout of n steps from the initial state (-1: a step failed)
static double rollout_gradyn(scene* s, int n) {
    gdn_data_reset(s->gm, s->gd);
    const double t0 = bench_now();
    for (int k = 0; k < n; k++) {
        if (gdn_step(s->gm, s->gd) != GDN_OK) {
            return -1;
        }
    }
    return (bench_now() - t0) / n;
}

static double rollout_mujoco(scene* s, int n) {
    mj_resetData(s->mm, s->md);
    const double t0 = bench_now();
    for (int k = 0; k < n; k++) {
        mj_step(s->mm, s->md);
    }
    return (bench_now() - t0) / n;
}

// max |qpos_g - qpos_mj| after n steps of each
static double final_difference(scene* s, int n) {
    rollout_gradyn(s, n);
    rollout_mujoco(s, n);
    double e = 0;
    for (int i = 0; i < s->gm->nq; i++) {
        const double d = fabs(s->gd->qpos[i] - s->md->qpos[i]);
        e = d > e || d != d ? d : e;
    }
    return e;
}

// one row: gradyn and MuJoCo rollouts under one integrator, batches interleaved (the order
// alternating), medians
// the integrators, by gradyn's code: names and MuJoCo's codes
static const char* const integ_names[3] = {"Euler", "RK4", "implicit"};
static const int integ_gdn[3] = {GDN_INT_EULER, GDN_INT_RK4, GDN_INT_IMPLICIT};
static const int integ_mj[3] = {mjINT_EULER, mjINT_RK4, mjINT_IMPLICIT};

static int step_row(int i, int integ, int batches, int steps) {
    scene s;
    char err[1024] = "";
    if (scene_load(&s, i, err, (int)sizeof(err)) != 0) {
        printf("| %s | %s | (not loaded: %s) | | | |\n", scene_names[i], integ_names[integ],
               err);
        return 1;
    }
    s.gm->opt.integrator = integ_gdn[integ];
    s.mm->opt.integrator = integ_mj[integ];
    double* t = malloc(sizeof(double) * 2 * (size_t)batches);
    if (!t) {
        scene_free(&s);
        return 1;
    }
    const double diff = final_difference(&s, steps);
    int failed = 0;
    for (int b = 0; b < batches; b++) {
        for (int k = 0; k < 2; k++) {
            const int e = (b + k) % 2;
            const double sec = e ? rollout_mujoco(&s, steps) : rollout_gradyn(&s, steps);
            failed |= sec < 0;
            t[e * batches + b] = sec;
        }
    }
    const double g = bench_median(t, batches), m = bench_median(t + batches, batches);
    printf("| %s | %s | %.2f | %.2f | %.2f | %.1e |\n", scene_names[i], integ_names[integ],
           1e6 * g, 1e6 * m, g / m, diff);
    free(t);
    scene_free(&s);
    return failed;
}

// the adjoint row: gradient (forward + backward, every dJ/du_t) over its rollout, both under
// one integrator, on the target objective from the model's initial state
static int adjoint_row(int i, int integ, int batches, int steps) {
    scene s;
    char err[1024] = "";
    if (scene_load(&s, i, err, (int)sizeof(err)) != 0) {
        printf("| %s | %s | (not loaded: %s) | | |\n", scene_names[i], integ_names[integ],
               err);
        return 1;
    }
    gdnModel* m = s.gm;
    m->opt.integrator = integ_gdn[integ];
    const int nu = m->nu;
    double* ctrl = calloc((size_t)steps * (size_t)(nu + 1) * 2 + 2 * (size_t)batches,
                          sizeof(double));
    double* gctrl = ctrl + (size_t)steps * (size_t)(nu + 1);
    double* t = gctrl + (size_t)steps * (size_t)(nu + 1);
    gdnTape* tape = NULL;
    gdnObjective obj;
    gdnTargetObjective spec = {.body = m->nbody - 1, .point = {0, 0, 0},
                               .target = {0.1, 0.2, 0.3}, .weight = 1, .ctrl_weight = 1e-3,
                               .vel_weight = 1e-2};
    int failed = !ctrl || gdn_tape_create(m, steps, 1, &tape, err, (int)sizeof(err)) != GDN_OK ||
                 gdn_objective_target(m, &spec, &obj) != GDN_OK;
    gdnRollout r;
    gdn_rollout_init(m, steps, &r);
    gdn_data_reset(m, s.gd);
    r.qpos0 = s.gd->qpos;
    r.qvel0 = s.gd->qvel;
    r.ctrl = nu > 0 ? ctrl : NULL;
    for (int k = 0; !failed && k < steps * nu; k++) {
        ctrl[k] = 0.1 * sin(0.37 * k);
    }
    for (int b = 0; !failed && b < batches; b++) {
        for (int k = 0; k < 2 && !failed; k++) {
            const int e = (b + k) % 2;
            double J = 0;
            const double t0 = bench_now();
            gdnAdjointGradients out = {.ctrl = gctrl};
            failed |= e ? gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err,
                                                       (int)sizeof(err)) != GDN_OK
                        : gdn_rollout_objective(m, &r, &obj, tape, &J, err,
                                                (int)sizeof(err)) != GDN_OK;
            t[e * batches + b] = bench_now() - t0;
        }
    }
    if (failed) {
        printf("| %s | %s | (failed: %s) | | |\n", scene_names[i], integ_names[integ], err);
    } else {
        const double fwd = bench_median(t, batches), grad = bench_median(t + batches, batches);
        printf("| %s | %s | %.3f | %.3f | %.2f |\n", scene_names[i], integ_names[integ],
               1e3 * fwd, 1e3 * grad, grad / fwd);
    }
    gdn_tape_free(tape);
    free(ctrl);
    scene_free(&s);
    return failed;
}

int bench_integrator_table(int batches, int steps) {
    printf("\n### Integrators: gdn_step vs mj_step per step, Euler, RK4 and implicit (%d-step rollouts, "
           "median of %d interleaved batches)\n\n",
           steps, batches);
    printf("| scene | integrator | gradyn us/step | MuJoCo us/step | ratio | final |dqpos| |\n");
    printf("|---|---|---|---|---|---|\n");
    int failures = 0;
    for (int i = 0; i < NSCENE; i++) {
        for (int integ = 0; integ < 3; integ++) {
            failures += step_row(i, integ, batches, steps);
        }
    }
    const int adj_steps = steps < 300 ? steps : 300;
    printf("\n### The trajectory adjoint under each integrator: gradient (forward + backward, all dJ/du_t) "
           "vs its rollout (%d steps, median of %d interleaved batches)\n\n",
           adj_steps, batches);
    printf("| scene | integrator | rollout ms | gradient ms | gradient / rollout |\n");
    printf("|---|---|---|---|---|\n");
    const int adj_scenes[3] = {2, 0, 1};
    for (int k = 0; k < 3; k++) {
        for (int integ = 0; integ < 3; integ++) {
            failures += adjoint_row(adj_scenes[k], integ, batches, adj_steps);
        }
    }
    // the muscle model (activation states)
    for (int integ = 0; integ < 3; integ++) {
        failures += adjoint_row(5, integ, batches, adj_steps);
    }
    return failures;
}
