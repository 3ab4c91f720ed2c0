// SPDX-License-Identifier: Apache-2.0
// The issue-10 table: gdn_kamino_step (maximal coordinates, hard rows, PADMM with the default
// settings) vs mj_step (reduced coordinates, soft equality connects) on the same MJCF files.
//
// Scenes: the four-bar, the slider-crank and the two-leg Jansen walker of tests/models, cranks
// asked for 3 rad/s (as examples/kamino_mechanisms.c), and the five-box stack (contacts only).
// Both engines start from qpos0 at rest; the window starts at t = 0.2 s (the drive has spun up)
// and is `window` steps long. Every batch resets its engine and steps to 0.2 s untimed, so each
// batch simulates the same interval with the same warm starts.
#include "kamino.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>
#include <mujoco/mujoco.h>

#include "timer.h"

#ifndef GDN_TEST_MODELS
#    define GDN_TEST_MODELS "tests/models"
#endif

#define NKAMINO 4
#define KAMINO_T0 0.2           // s: start of the timed window
#define KAMINO_ROW "kamino_step" // the row name of --count / --list
static const char* const kamino_names[NKAMINO] = {"kamino_fourbar", "kamino_slidercrank",
                                                  "kamino_leg", "kamino_stack5"};
static const char* const kamino_files[NKAMINO] = {
    GDN_TEST_MODELS "/kamino_mech_fourbar.xml", GDN_TEST_MODELS "/kamino_mech_slidercrank.xml",
    GDN_TEST_MODELS "/kamino_mech_leg.xml", GDN_TEST_MODELS "/kamino_scene_stack5.xml"};
// every actuator's control (the cranks' velocity actuators: target rad/s)
static const double kamino_ctrl[NKAMINO] = {3, 3, 3, 0};
// issue 10's goals (us per step; 0: none)
static const double kamino_goal_us[NKAMINO] = {3, 0, 60, 0};

// one scene in both engines
typedef struct kaminoScene {
    double ctrl;
    int prefix;          // steps to KAMINO_T0
    gdnModel* gm;
    gdnKaminoModel* km;
    gdnKaminoData* kd;
    gdnKaminoWorld* w;
    mjModel* mm;
    mjData* md;
} kaminoScene;

// what one statistics run of the window reports
typedef struct kaminoStats {
    int failed;          // a step returned an error (Kamino), or the state went non-finite
    double iter_mean;    // Kamino: PADMM iterations per step; MuJoCo: solver iterations
    double iter_median;
    int iter_max;
    int unconverged;     // Kamino: steps whose solve did not converge
    double refactor;     // Kamino: mean PADMM refactorizations (penalty updates) per step
    double nrow;         // mean rows (Kamino) / nefc (MuJoCo) per step
    double ncon;         // mean contacts per step
    double closure;      // largest equality-connect anchor distance over the window, m
} kaminoStats;

static void scene_free(kaminoScene* s) {
    gdn_kamino_data_free(s->kd);
    gdn_kamino_model_free(s->km);
    gdn_model_free(s->gm);
    if (s->md) {
        mj_deleteData(s->md);
    }
    if (s->mm) {
        mj_deleteModel(s->mm);
    }
    memset(s, 0, sizeof(*s));
}

// scene i in both engines: gradyn's loader, Kamino with the default settings (settings NULL:
// the file's kamino_restitution), one world; MuJoCo with the file's own options. 0 on success
static int scene_load(kaminoScene* s, int i, char* err, int err_size) {
    memset(s, 0, sizeof(*s));
    s->ctrl = kamino_ctrl[i];
    if (gdn_load_xml(kamino_files[i], &s->gm, err, err_size, NULL, 0) != GDN_OK ||
        gdn_kamino_model_create(s->gm, NULL, &s->km, err, err_size, NULL, 0) != GDN_OK) {
        scene_free(s);
        return -1;
    }
    if (gdn_kamino_data_create(s->km, 1, &s->kd) != GDN_OK) {
        snprintf(err, (size_t)err_size, "gdn_kamino_data_create failed");
        scene_free(s);
        return -1;
    }
    s->w = gdn_kamino_world(s->kd, 0);
    s->mm = mj_loadXML(kamino_files[i], NULL, err, err_size);
    if (!s->mm) {
        scene_free(s);
        return -1;
    }
    s->md = mj_makeData(s->mm);
    if (s->mm->nq != s->gm->nq || s->mm->nu != s->gm->nu || !s->md) {
        snprintf(err, (size_t)err_size, "sizes differ");
        scene_free(s);
        return -1;
    }
    s->prefix = (int)lround(KAMINO_T0 / s->gm->opt.timestep);
    return 0;
}

// Kamino at the window's start: reset to qpos0 at rest, the controls, KAMINO_T0 of steps;
// 0 on success
static int kamino_start(kaminoScene* s) {
    if (gdn_kamino_reset(s->km, s->kd, NULL, NULL, NULL) != GDN_OK) {
        return -1;
    }
    for (int a = 0; a < s->gm->nu; a++) {
        s->w->ctrl[a] = s->ctrl;
    }
    for (int k = 0; k < s->prefix; k++) {
        if (gdn_kamino_step(s->km, s->kd) != GDN_OK) {
            return -1;
        }
    }
    return 0;
}

// MuJoCo at the window's start, the same way
static void mujoco_start(kaminoScene* s) {
    mj_resetData(s->mm, s->md);
    for (int a = 0; a < s->mm->nu; a++) {
        s->md->ctrl[a] = s->ctrl;
    }
    for (int k = 0; k < s->prefix; k++) {
        mj_step(s->mm, s->md);
    }
}

// seconds for n steps (the timed loop: nothing but the steps); -1 when a Kamino step failed
static double kamino_steps(kaminoScene* s, int n) {
    int failed = 0;
    double t0 = bench_now();
    for (int k = 0; k < n; k++) {
        failed |= gdn_kamino_step(s->km, s->kd) != GDN_OK;
    }
    double t = bench_now() - t0;
    return failed ? -1 : t;
}

static double mujoco_steps(kaminoScene* s, int n) {
    double t0 = bench_now();
    for (int k = 0; k < n; k++) {
        mj_step(s->mm, s->md);
    }
    return bench_now() - t0;
}

// one window of engine e (0 Kamino, 1 MuJoCo) from its start: the window's seconds (the start
// untimed), -1 when a Kamino step failed
static double window_seconds(kaminoScene* s, int e, int window) {
    if (e == 0) {
        return kamino_start(s) != 0 ? -1 : kamino_steps(s, window);
    }
    mujoco_start(s);
    return mujoco_steps(s, window);
}

// ---------------------------------------------------------------- loop closure

// world point of a body-frame point of body b in MuJoCo's kinematics
static void mujoco_point(const mjModel* m, const mjData* d, int b, const double* local,
                         double out[3]) {
    const double* R = d->xmat + 9 * b;
    for (int k = 0; k < 3; k++) {
        out[k] = d->xpos[3 * b + k] + R[3 * k] * local[0] + R[3 * k + 1] * local[1] +
                 R[3 * k + 2] * local[2];
    }
    (void)m;
}

static double dist3(const double a[3], const double b[3]) {
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

// largest distance between the two anchors of the connects in Kamino's current poses
static double kamino_closure(const kaminoScene* s) {
    return gdn_kamino_connect_error(s->km, s->w);
}

// the same in MuJoCo's current state (its kinematics recomputed: mj_step leaves xpos at the
// state before the step)
static double mujoco_closure(const kaminoScene* s) {
    const mjModel* m = s->mm;
    mj_kinematics(s->mm, s->md);
    double worst = 0;
    for (int e = 0; e < m->neq; e++) {
        if (m->eq_type[e] != mjEQ_CONNECT) {
            continue;
        }
        const double* data = m->eq_data + mjNEQDATA * e;
        double p1[3], p2[3];
        mujoco_point(m, s->md, m->eq_obj1id[e], data, p1);
        mujoco_point(m, s->md, m->eq_obj2id[e], data + 3, p2);
        worst = fmax(worst, dist3(p1, p2));
    }
    return worst;
}

// ---------------------------------------------------------------- statistics

// one untimed window of each engine from its start: iterations, convergence, rows, contacts,
// closure; qpos_k, qpos_m (nq) receive the joint state at the window's end
static void window_stats(kaminoScene* s, int window, double* iters, kaminoStats* ks,
                         kaminoStats* ms, double* qpos_k, double* qpos_m) {
    memset(ks, 0, sizeof(*ks));
    memset(ms, 0, sizeof(*ms));
    const int nq = s->gm->nq;
    double sum = 0, rows = 0, con = 0, refactor = 0;
    if (kamino_start(s) != 0) {
        ks->failed = 1;
    }
    for (int k = 0; k < window && !ks->failed; k++) {
        if (gdn_kamino_step(s->km, s->kd) != GDN_OK) {
            ks->failed = 1;
            break;
        }
        const gdnKaminoStatus* st = &s->w->status;
        iters[k] = st->iterations;
        sum += st->iterations;
        ks->iter_max = st->iterations > ks->iter_max ? st->iterations : ks->iter_max;
        ks->unconverged += !st->converged;
        refactor += st->refactorizations;
        rows += st->nrow;
        con += st->ncontact;
        ks->closure = fmax(ks->closure, kamino_closure(s));
    }
    ks->iter_mean = sum / window;
    ks->iter_median = ks->failed ? (double)NAN : bench_median(iters, window);
    ks->nrow = rows / window;
    ks->refactor = refactor / window;
    ks->ncon = con / window;
    memcpy(qpos_k, s->w->qpos, sizeof(double) * (size_t)nq);

    mujoco_start(s);
    sum = rows = con = 0;
    for (int k = 0; k < window; k++) {
        mj_step(s->mm, s->md);
        iters[k] = s->md->solver_iter;
        sum += s->md->solver_iter;
        ms->iter_max = s->md->solver_iter > ms->iter_max ? s->md->solver_iter : ms->iter_max;
        rows += s->md->nefc;
        con += s->md->ncon;
        ms->closure = fmax(ms->closure, mujoco_closure(s));
    }
    ms->iter_mean = sum / window;
    ms->iter_median = bench_median(iters, window);
    ms->nrow = rows / window;
    ms->ncon = con / window;
    memcpy(qpos_m, s->md->qpos, sizeof(double) * (size_t)nq);
    for (int j = 0; j < nq; j++) {
        ms->failed |= !isfinite(qpos_m[j]);
    }
}

// ---------------------------------------------------------------- the table

// one scene: statistics, a warm-up, then the interleaved timed batches (each window timed
// alone, repeated so a batch lasts about batch_seconds)
static int kamino_row(int i, int batches, double batch_seconds, int window) {
    kaminoScene s;
    char err[1024] = "";
    if (scene_load(&s, i, err, (int)sizeof(err)) != 0) {
        printf("| %s | (not loaded: %s) | | | | | | | | | | | | | |\n", kamino_names[i], err);
        return 1;
    }
    const int nq = s.gm->nq;
    double* iters = malloc(sizeof(double) * (size_t)window);
    double* qk = malloc(sizeof(double) * 2 * (size_t)nq + 1);
    double* times[2] = {malloc(sizeof(double) * (size_t)batches),
                        malloc(sizeof(double) * (size_t)batches)};
    int failed = !iters || !qk || !times[0] || !times[1];
    kaminoStats ks, ms;
    if (!failed) {
        window_stats(&s, window, iters, &ks, &ms, qk, qk + nq);
        failed = ks.failed;
    }

    // a warm-up window of each (timed: a batch repeats the window until it lasts about
    // batch_seconds), then batches alternating which engine goes first
    int reps[2] = {1, 1};
    for (int e = 0; e < 2 && !failed; e++) {
        double t = window_seconds(&s, e, window);
        failed |= t < 0;
        reps[e] = t > 0 && t < batch_seconds ? (int)ceil(batch_seconds / t) : 1;
    }
    for (int b = 0; b < batches && !failed; b++) {
        for (int k = 0; k < 2 && !failed; k++) {
            int e = (b + k) % 2;
            double t = 0;
            for (int r = 0; r < reps[e] && !failed; r++) {
                double tr = window_seconds(&s, e, window);
                failed |= tr < 0;
                t += tr;
            }
            times[e][b] = t / ((double)window * reps[e]);
        }
    }
    if (failed) {
        printf("| %s | (a Kamino step FAILED or out of memory) | | | | | | | | | | | | | |\n",
               kamino_names[i]);
    } else {
        double tk = bench_median(times[0], batches), tm = bench_median(times[1], batches);
        double spread = 0;
        for (int e = 0; e < 2; e++) {
            double med = e ? tm : tk;
            spread = fmax(spread, (bench_quantile_sorted(times[e], batches, 0.75) -
                                   bench_quantile_sorted(times[e], batches, 0.25)) / med);
        }
        double dq = 0;
        for (int j = 0; j < nq; j++) {
            dq = fmax(dq, fabs(qk[j] - qk[nq + j]));
        }
        char goal[32] = "-";
        if (kamino_goal_us[i] > 0) {
            snprintf(goal, sizeof(goal), "%g (%s)", kamino_goal_us[i],
                     1e6 * tk < kamino_goal_us[i] ? "met" : "missed");
        }
        printf("| %s | %d | %.1f | %.1f | **%.2f** | %.0f | %.2f | **%.2f** | %s | %.1f | %g | "
               "%d | %d | %.2f | %.2f | %.1e | %.1e | %.1e | %.0f%% |\n",
               kamino_names[i], s.gm->nbody - 1, ks.nrow, ks.ncon, 1e6 * tk, 1.0 / tk, 1e6 * tm,
               tk / tm, goal, ks.iter_mean, ks.iter_median, ks.iter_max, ks.unconverged,
               ks.refactor, ms.iter_mean, ks.closure, ms.closure, dq, 100 * spread);
    }
    fflush(stdout);
    free(iters);
    free(qk);
    free(times[0]);
    free(times[1]);
    scene_free(&s);
    return failed;
}

int bench_kamino_table(int batches, double batch_seconds, int window) {
    gdnKaminoSettings d;
    gdn_kamino_settings_default(&d);
    printf("\nKamino (issue 10): gdn_kamino_step (PADMM, default settings: tolerances %g / %g / "
           "%g, at most %d iterations, rho %g (bilateral %g, penalty update %d), eta %g, warm "
           "start %d, projection iterations %d) vs mj_step on the same MJCF file (equality "
           "connects closing the loops, each file's own options); cranks asked for 3 rad/s; every "
           "window resets both engines to qpos0, steps %g s untimed and times the next %d steps; "
           "%d batches of ~%.0f ms of windows per engine, interleaved; median time per step\n\n",
           d.tol_primal, d.tol_dual, d.tol_compl, d.max_iterations, d.rho, d.rho_bilateral,
           d.penalty_update, d.eta, d.warmstart, d.projection_iterations, KAMINO_T0, window,
           batches, 1e3 * batch_seconds);
    printf("| scene | bodies | Kamino rows | ncon | Kamino µs/step | Kamino steps/s | "
           "MuJoCo µs/step | Kamino/MuJoCo | goal µs | PADMM iters mean | median | max | "
           "unconverged steps | refactorizations per step | MuJoCo iters mean | "
           "Kamino closure max m | MuJoCo closure max m | qpos diff at end | spread |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
           "---:|---:|\n");
    int failures = 0;
    for (int i = 0; i < NKAMINO; i++) {
        failures += kamino_row(i, batches, batch_seconds, window);
    }
    printf("\n- scenes: tests/models/kamino_mech_fourbar.xml, kamino_mech_slidercrank.xml, "
           "kamino_mech_leg.xml (two Jansen legs, 6 connects, feet on the floor), "
           "kamino_scene_stack5.xml (five boxes at rest, contacts only)\n"
           "- Kamino rows, ncon: mean rows of the dual problem and contacts per step over the "
           "window; PADMM iters over the window's steps; refactorizations: PADMM's penalty "
           "updates per step (each a refactorization); unconverged: steps of the %d whose "
           "solve stopped at the iteration cap (%d)\n"
           "- closure max: the largest distance between the two anchors of an equality connect "
           "over the window (Kamino's hard rows vs MuJoCo's soft connects); qpos diff: max "
           "|qpos_Kamino - qpos_MuJoCo| at the window's end (two formulations: agreement is not "
           "expected to be tight)\n"
           "- the cost split of the Kamino step (assembly, factorization, iterations): "
           "bench/callgrind.sh (callgrind inclusive instruction counts)\n", window,
           d.max_iterations);
    return failures;
}

// ---------------------------------------------------------------- --list, --count

void bench_kamino_list(void) {
    for (int i = 0; i < NKAMINO; i++) {
        printf("%s/%s/gradyn\n%s/%s/mujoco\n", kamino_names[i], KAMINO_ROW, kamino_names[i],
               KAMINO_ROW);
    }
}

int bench_kamino_count(const char* model, const char* row, int mujoco, long calls) {
    int mi = -1;
    for (int i = 0; i < NKAMINO; i++) {
        if (!strcmp(kamino_names[i], model)) {
            mi = i;
        }
    }
    if (mi < 0 || strcmp(row, KAMINO_ROW) != 0) {
        return 2;
    }
    kaminoScene s;
    char err[1024] = "";
    if (scene_load(&s, mi, err, (int)sizeof(err)) != 0) {
        fprintf(stderr, "gdn_bench: %s\n", err);
        return 1;
    }
    int failed = 0;
    if (mujoco) {
        mujoco_start(&s);
        for (long k = 0; k < calls; k++) {
            mj_step(s.mm, s.md);
        }
    } else {
        failed = kamino_start(&s) != 0;
        for (long k = 0; k < calls && !failed; k++) {
            failed = gdn_kamino_step(s.km, s.kd) != GDN_OK;
        }
    }
    if (failed) {
        fprintf(stderr, "gdn_bench: a Kamino step of %s failed\n", model);
    }
    scene_free(&s);
    return failed;
}
