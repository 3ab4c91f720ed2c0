// SPDX-License-Identifier: Apache-2.0
// The contact-step table: gdn_step and mj_step rollouts with contacts, limits and the
// constraint solve (Newton; CG and PGS in one row each) on, per-step time, mean solver
// iterations and where the trajectories separate.
#include "contact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "timer.h"

#ifndef GDN_TEST_MODELS
#    define GDN_TEST_MODELS "tests/models"
#endif

// the scenes: MuJoCo's humanoid falling on its floor from its standing qpos0, five boxes
// stacked on a plane, humanoid32 (26 limited hinges) dropped on its floor, the humanoid again
// with the CG solver and with the PGS solver in both engines, and two large MuJoCo samples
// (22 humanoids, 100 humanoids: nv about 600, where MuJoCo switches to sparse algebra)
#define NCONTACT 7
static const char* const contact_names[NCONTACT] = {
    "humanoid",       "stack5",       "humanoid32", "humanoid (CG)", "humanoid (PGS)",
    "22_humanoids",   "humanoid100"};
static const char* const contact_paths[NCONTACT] = {
    "/usr/share/mujoco/model/humanoid/humanoid.xml", GDN_TEST_MODELS "/sol_stack.xml",
    GDN_TEST_MODELS "/humanoid32.xml", "/usr/share/mujoco/model/humanoid/humanoid.xml",
    "/usr/share/mujoco/model/humanoid/humanoid.xml",
    "/usr/share/mujoco/model/humanoid/22_humanoids.xml",
    "/usr/share/mujoco/model/humanoid100/humanoid100.xml"};
// solver override in both engines (gdnSolver = mjtSolver values), -1: the model's own
static const int contact_solver[NCONTACT] = {-1, -1, -1, 1, 0, -1, -1};
// rollout length cap (the large models: a millisecond per step)
static const int contact_max_steps[NCONTACT] = {0, 0, 0, 0, 0, 300, 300};

// one scene in both engines
typedef struct contactScene {
    gdnModel* gm;
    gdnData* gd;
    mjModel* mm;
    mjData* md;
} contactScene;

// what one rollout reports
typedef struct rolloutStats {
    double seconds;
    long iterations;      // solver iterations summed over the steps with rows
    long steps_with_rows;
    long contacts;        // ncon summed over the steps
    long unconverged;     // gradyn: steps with rows whose solve did not converge
    int failed;           // gradyn: a step returned an error
} rolloutStats;

static void scene_free(contactScene* s) {
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

// load path in both engines with the model's own settings; 0 on success
static int scene_load(contactScene* s, const char* path, char* err, int err_size) {
    memset(s, 0, sizeof(*s));
    if (gdn_load_xml(path, &s->gm, err, err_size, NULL, 0) != GDN_OK ||
        gdn_data_create(s->gm, &s->gd) != GDN_OK) {
        scene_free(s);
        return -1;
    }
    s->mm = mj_loadXML(path, NULL, err, err_size);
    if (!s->mm) {
        scene_free(s);
        return -1;
    }
    s->md = mj_makeData(s->mm);
    if (s->mm->nq != s->gm->nq || s->mm->nv != s->gm->nv) {
        snprintf(err, (size_t)err_size, "sizes differ");
        scene_free(s);
        return -1;
    }
    return 0;
}

// one gradyn rollout of n steps from the initial state; qpos_out (n x nq) when non-NULL
static rolloutStats rollout_gradyn(contactScene* s, int n, double* qpos_out) {
    rolloutStats r = {0};
    gdn_data_reset(s->gm, s->gd);
    int nq = s->gm->nq;
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        if (gdn_step(s->gm, s->gd) != GDN_OK) {
            r.failed = 1;
            break;
        }
        if (s->gd->nefc > 0) {
            r.iterations += s->gd->solver_iter;
            r.steps_with_rows++;
            r.unconverged += !s->gd->solver_converged;
        }
        r.contacts += s->gd->ncon;
        if (qpos_out) {
            memcpy(qpos_out + (size_t)i * (size_t)nq, s->gd->qpos, sizeof(double) * (size_t)nq);
        }
    }
    r.seconds = bench_now() - t0;
    return r;
}

// one MuJoCo rollout of n steps from the initial state; qpos_out as above
static rolloutStats rollout_mujoco(contactScene* s, int n, double* qpos_out) {
    rolloutStats r = {0};
    mj_resetData(s->mm, s->md);
    int nq = s->mm->nq;
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        mj_step(s->mm, s->md);
        if (s->md->nefc > 0) {
            r.iterations += s->md->solver_iter;
            r.steps_with_rows++;
        }
        r.contacts += s->md->ncon;
        if (qpos_out) {
            memcpy(qpos_out + (size_t)i * (size_t)nq, s->md->qpos, sizeof(double) * (size_t)nq);
        }
    }
    r.seconds = bench_now() - t0;
    return r;
}

// first step where max |qpos_g - qpos_m| exceeds tol (n when never), and the difference at
// step 100
static int separation_step(const double* qg, const double* qm, int n, int nq, double tol,
                           double* at100) {
    int first = n;
    *at100 = NAN;
    for (int i = 0; i < n; i++) {
        double diff = 0;
        for (int j = 0; j < nq; j++) {
            double e = fabs(qg[(size_t)i * (size_t)nq + j] - qm[(size_t)i * (size_t)nq + j]);
            diff = e > diff || e != e ? e : diff;
        }
        if (i == 99) {
            *at100 = diff;
        }
        if (first == n && !(diff <= tol)) {
            first = i + 1;
        }
    }
    return first;
}

// one table row: agreement, then interleaved timed rollouts
static int contact_row(const char* name, const char* path, int solver, int batches, int steps) {
    contactScene s;
    char err[1024] = "";
    if (scene_load(&s, path, err, (int)sizeof(err)) != 0) {
        printf("| %s | | (not loaded: %s) | | | | | | |\n", name, err);
        return 1;
    }
    if (solver >= 0) {
        s.gm->opt.solver = solver;
        s.mm->opt.solver = solver;
    }
    int nq = s.gm->nq;
    double* qg = malloc(sizeof(double) * (size_t)steps * (size_t)nq);
    double* qm = malloc(sizeof(double) * (size_t)steps * (size_t)nq);
    double* times[2] = {malloc(sizeof(double) * (size_t)batches),
                        malloc(sizeof(double) * (size_t)batches)};
    if (!qg || !qm || !times[0] || !times[1]) {
        free(qg);
        free(qm);
        free(times[0]);
        free(times[1]);
        scene_free(&s);
        return 1;
    }

    // agreement and the iteration / contact statistics (deterministic: one rollout each)
    rolloutStats g = rollout_gradyn(&s, steps, qg);
    rolloutStats m = rollout_mujoco(&s, steps, qm);
    double at100 = 0;
    int separate = separation_step(qg, qm, g.failed ? 0 : steps, nq, 1e-6, &at100);

    // timing: warm-up, then batches alternating which engine goes first
    rollout_gradyn(&s, steps, NULL);
    rollout_mujoco(&s, steps, NULL);
    for (int b = 0; b < batches; b++) {
        for (int k = 0; k < 2; k++) {
            int e = (b + k) % 2;
            rolloutStats r = e ? rollout_mujoco(&s, steps, NULL) : rollout_gradyn(&s, steps, NULL);
            times[e][b] = r.seconds / steps;
        }
    }
    double tg = bench_median(times[0], batches), tm = bench_median(times[1], batches);
    double iter_g = g.steps_with_rows ? (double)g.iterations / (double)g.steps_with_rows : 0;
    double iter_m = m.steps_with_rows ? (double)m.iterations / (double)m.steps_with_rows : 0;
    printf("| %s | %d | %d x %g s | %.1f | %.2f | %.2f | %.2f | %.3f | %.3f | %s%d | %.1e |\n",
           name, s.gm->nv, steps, s.gm->opt.timestep, (double)g.contacts / steps, 1e6 * tg,
           1e6 * tm, tm / tg, iter_g, iter_m, separate == steps ? ">" : "",
           separate, at100);
    if (g.unconverged || g.failed) {
        printf("|   %s: %ld unconverged gradyn solves%s | | | | | | | | | |\n", name,
               g.unconverged, g.failed ? ", a step FAILED" : "");
    }
    fflush(stdout);
    int failed = g.failed;
    free(qg);
    free(qm);
    free(times[0]);
    free(times[1]);
    scene_free(&s);
    return failed;
}

int bench_contact_table(int batches, int steps) {
    printf("\ncontact step (issue 4): gdn_step vs mj_step with contacts, limits and the "
           "constraint solve on, each model's own options (solver, iterations, tolerance, cone; "
           "the CG and PGS rows set that solver in both engines); one "
           "rollout of N steps from the initial state per batch, %d batches per engine, "
           "interleaved; median time per step\n\n", batches);
    printf("| model | nv | rollout | mean ncon | gradyn µs/step | MuJoCo µs/step | "
           "MuJoCo/gradyn | gradyn iters | MuJoCo iters | same qpos (1e-6) until step | "
           "qpos diff at step 100 |\n");
    printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int failures = 0;
    for (int k = 0; k < NCONTACT; k++) {
        int n = contact_max_steps[k] > 0 && contact_max_steps[k] < steps ? contact_max_steps[k]
                                                                         : steps;
        failures += contact_row(contact_names[k], contact_paths[k], contact_solver[k], batches,
                                n);
    }
    printf("\n- iters: mean solver iterations per step over the steps with constraint rows\n"
           "- same qpos until step: the first step where max |qpos_gradyn - qpos_MuJoCo| > 1e-6 "
           "(\">N\": never within the rollout)\n");
    return failures;
}
