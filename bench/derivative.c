// SPDX-License-Identifier: Apache-2.0
// Issue-3 benchmark tables: the trajectory adjoint against the forward rollout (smooth and with
// penalty contact; dJ/dq0 only vs every block) and exact A, B against mjd_transitionFD.
//
// Adjoint rows: one fixed rollout per model (q0 = qpos0 (+) a small tangent offset, v0 small,
// u_t a sine schedule inside ctrlrange), the built-in target objective on body 1 plus control
// effort. "rollout" = gdn_rollout_objective; "grad q0" = gdn_adjoint_rollout_gradient with only
// dJ/dq0 requested (every other output NULL: the parameter channels are skipped); "grad all" =
// every block (dJ/dq0, dJ/dv0, dJ/du, dJ/dpi for every body, dJ/dV for every vertex). Penalty
// variant: the MJCF skins, plane 2 cm above the lowest vertex at q0 (contact from t = 0),
// k = 5000 N/m, c = 50 N s/m per vertex.
// Jacobian rows: from each random state, gdn_transition_jacobians (A and B) vs
// mjd_transitionFD(eps 1e-6, forward or centered) with constraints disabled.
#include "derivative.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>

#include "interleave.h"

#ifndef GDN_TEST_MODELS
#    define GDN_TEST_MODELS "tests/models"
#endif

const char* const bench_deriv_model_names[] = {"humanoid", "pendulum"};
const char* const bench_deriv_model_paths[] = {
    "/usr/share/mujoco/model/humanoid/humanoid.xml", GDN_TEST_MODELS "/pendulum.xml"};
const int bench_nderiv_models = 2;

typedef struct benchDeriv {
    int T;
    double* q0;        // (nq)
    double* v0;        // (nv)
    double* u;         // (T x nu)
    gdnRollout r;
    gdnTargetObjective spec;
    gdnObjective obj;
    gdnTape* tape;
    double* g;         // every gradient block, one buffer
    gdnAdjointGradients one, all;
    gdnPenalty penalty;  // the penalty setting of the contact rows (enabled = 1)
    double* A;         // (2nv x 2nv) and B (2nv x nu): gradyn, then MuJoCo
    double* B;
    double* Amj;
    double* Bmj;
} benchDeriv;

// ---------------------------------------------------------------- kernels

static void with_penalty(benchModel* bm, int on) {
    bm->gm->penalty = bm->deriv->penalty;
    bm->gm->penalty.enabled = on;
}

static void rollout_smooth(benchModel* bm, int s) {
    (void)s;
    double J;
    with_penalty(bm, 0);
    gdn_rollout_objective(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape, &J, NULL, 0);
}

static void grad_q0_smooth(benchModel* bm, int s) {
    (void)s;
    with_penalty(bm, 0);
    gdn_adjoint_rollout_gradient(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape,
                                 &bm->deriv->one, NULL, 0);
}

static void grad_all_smooth(benchModel* bm, int s) {
    (void)s;
    with_penalty(bm, 0);
    gdn_adjoint_rollout_gradient(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape,
                                 &bm->deriv->all, NULL, 0);
}

static void rollout_penalty(benchModel* bm, int s) {
    (void)s;
    double J;
    with_penalty(bm, 1);
    gdn_rollout_objective(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape, &J, NULL, 0);
}

static void grad_q0_penalty(benchModel* bm, int s) {
    (void)s;
    with_penalty(bm, 1);
    gdn_adjoint_rollout_gradient(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape,
                                 &bm->deriv->one, NULL, 0);
}

static void grad_all_penalty(benchModel* bm, int s) {
    (void)s;
    with_penalty(bm, 1);
    gdn_adjoint_rollout_gradient(bm->gm, &bm->deriv->r, &bm->deriv->obj, bm->deriv->tape,
                                 &bm->deriv->all, NULL, 0);
}

// exact A, B from a raw state (contact off, as MuJoCo's constraints are)
static void jac_gradyn(benchModel* bm, int s) {
    with_penalty(bm, 0);
    bench_state_gradyn(bm, s);
    gdn_transition_jacobians(bm->gm, bm->gd, bm->deriv->A, bm->deriv->B);
}

static void fd_forward_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mjd_transitionFD(bm->mm, bm->md, 1e-6, 0, bm->deriv->Amj, bm->deriv->Bmj, NULL, NULL);
}

static void fd_centered_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mjd_transitionFD(bm->mm, bm->md, 1e-6, 1, bm->deriv->Amj, bm->deriv->Bmj, NULL, NULL);
}

const benchDerivKernel bench_deriv_kernels[] = {
    {"rollout", "gdn_rollout_objective, T steps, no contact", 0, rollout_smooth},
    {"grad_q0", "gdn_adjoint_rollout_gradient, dJ/dq0 only", 0, grad_q0_smooth},
    {"grad_all", "gdn_adjoint_rollout_gradient, every block", 0, grad_all_smooth},
    {"rollout_pen", "gdn_rollout_objective with penalty contact", 0, rollout_penalty},
    {"grad_q0_pen", "gradient with penalty contact, dJ/dq0 only", 0, grad_q0_penalty},
    {"grad_all_pen", "gradient with penalty contact, every block", 0, grad_all_penalty},
    {"jacobians", "gdn_transition_jacobians (A and B)", 0, jac_gradyn},
    {"jacobians", "mjd_transitionFD(eps 1e-6, centered)", 1, fd_centered_mujoco},
    {"jacobians_fwd", "mjd_transitionFD(eps 1e-6, forward)", 1, fd_forward_mujoco},
};
const int bench_nderiv_kernels =
    (int)(sizeof(bench_deriv_kernels) / sizeof(bench_deriv_kernels[0]));

// ---------------------------------------------------------------- setup

// the penalty plane: 2 cm above the lowest skin vertex at q0
static void penalty_plane(benchModel* bm, const double* q0) {
    const gdnModel* m = bm->gm;
    gdnData* d = bm->gd;
    memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
    gdn_kinematics(m, d);
    double zmin = INFINITY;
    for (int b = 1; b < m->nbody; b++) {
        const double* R = d->xmat + 9 * b;
        for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
            const double* p = m->vert_pos + 3 * v;
            zmin = fmin(zmin, d->xpos[3 * b + 2] + R[6] * p[0] + R[7] * p[1] + R[8] * p[2]);
        }
    }
    bm->deriv->penalty = (gdnPenalty){1, isfinite(zmin) ? zmin + 0.02 : 0.0, 5000.0, 50.0};
}

int bench_deriv_setup(benchModel* bm, char* err, int err_size) {
    const gdnModel* m = bm->gm;
    const int nq = m->nq, nv = m->nv, nu = m->nu, nb = m->nbody, n = 2 * nv;
    benchDeriv* c = calloc(1, sizeof(benchDeriv));
    if (!c) {
        snprintf(err, (size_t)err_size, "out of memory");
        return -1;
    }
    bm->deriv = c;
    c->T = nv > 1 ? 200 : 1000;
    size_t ng = 2 * (size_t)nv + (size_t)(c->T * nu) + (size_t)nb * GDN_N_INERTIA_PARAMS +
                3 * (size_t)m->nvert;
    c->q0 = calloc((size_t)(nq + nv) + (size_t)(c->T * nu) + 1, sizeof(double));
    c->g = calloc(ng + 1, sizeof(double));
    c->A = calloc(2 * (size_t)(n * n + n * nu) + 1, sizeof(double));
    if (!c->q0 || !c->g || !c->A) {
        snprintf(err, (size_t)err_size, "out of memory");
        return -1;
    }
    c->v0 = c->q0 + nq;
    c->u = c->v0 + nv;
    c->B = c->A + n * n;
    c->Amj = c->B + n * nu;
    c->Bmj = c->Amj + n * n;

    // q0 = qpos0 (+) 0.05 cos(i), v0 = 0.3 sin(i), u_t[i] = 0.5 sin(0.05 t + i) in ctrlrange
    double* dq = c->g;
    for (int i = 0; i < nv; i++) {
        dq[i] = 0.05 * cos(i + 1.0);
        c->v0[i] = 0.3 * sin(i + 1.0);
    }
    memcpy(c->q0, m->qpos0, sizeof(double) * (size_t)nq);
    gdn_integrate_pos(m, c->q0, dq, 1.0);
    for (int t = 0; t < c->T; t++) {
        for (int i = 0; i < nu; i++) {
            c->u[t * nu + i] = 0.5 * sin(0.05 * t + i);
        }
    }
    memset(c->g, 0, sizeof(double) * ng);
    penalty_plane(bm, c->q0);

    gdn_rollout_init(m, c->T, &c->r);
    c->r.qpos0 = c->q0;
    c->r.qvel0 = c->v0;
    c->r.ctrl = nu ? c->u : NULL;
    c->spec.body = 1;
    c->spec.target[2] = 1.0;
    c->spec.weight = 1.0;
    c->spec.ctrl_weight = 1e-3;
    if (gdn_objective_target(m, &c->spec, &c->obj) != GDN_OK ||
        gdn_tape_create(m, c->T, 1, &c->tape, err, err_size) != GDN_OK) {
        return -1;
    }
    c->one.qpos0 = c->g;
    c->all.qpos0 = c->g;
    c->all.qvel0 = c->g + nv;
    c->all.ctrl = nu ? c->g + 2 * nv : NULL;
    c->all.param = c->g + 2 * nv + c->T * nu;
    c->all.vert = c->all.param + nb * GDN_N_INERTIA_PARAMS;
    return 0;
}

void bench_deriv_free(benchModel* bm) {
    benchDeriv* c = bm->deriv;
    if (!c) {
        return;
    }
    gdn_tape_free(c->tape);
    free(c->q0);
    free(c->g);
    free(c->A);
    free(c);
    bm->deriv = NULL;
}

// ---------------------------------------------------------------- tables

// worst |A - A_mj| / max(|A_mj|, 1) over A and B at the first few states (centered FD)
static double jacobian_agreement(benchModel* bm) {
    const int n = 2 * bm->nv, nu = bm->nu;
    double worst = 0;
    for (int s = 0; s < bm->nstates && s < 4; s++) {
        jac_gradyn(bm, s);
        fd_centered_mujoco(bm, s);
        double scale = 1, diff = 0;
        for (int i = 0; i < n * (n + nu); i++) {
            scale = fmax(scale, fabs(bm->deriv->Amj[i]));
            diff = fmax(diff, fabs(bm->deriv->A[i] - bm->deriv->Amj[i]));
        }
        worst = fmax(worst, diff / scale);
    }
    return worst;
}

// | model | nv | contact | T | rollout | grad q0 | grad all | ratios |
static void adjoint_rows(benchModel* bm, int batches, double seconds) {
    const gdnModel* m = bm->gm;
    for (int pen = 0; pen < 2; pen++) {
        benchKernel* k[3];
        for (int i = 0; i < 3; i++) {
            k[i] = bench_deriv_kernels[3 * pen + i].run;
        }
        double med[3], spread[3];
        if (bench_time_interleaved(k, 3, bm, batches, seconds, med, spread) != 0) {
            printf("| %s | %d | %s | (timing failed) |\n", bm->name, bm->nv, pen ? "penalty" : "none");
            continue;
        }
        // contact along the penalty rollout (so the rows are not contact-free): steps with a
        // vertex in contact, and the mean number of vertices in contact over those steps
        int steps_in_contact = 0;
        long vertex_steps = 0;
        for (int t = 0; pen && t < bm->deriv->T; t++) {
            gdn_tape_state(bm->deriv->tape, t, bm->gd->qpos, bm->gd->qvel);
            with_penalty(bm, 1);
            gdn_forward(bm->gm, bm->gd);
            steps_in_contact += bm->gd->nvert_active > 0;
            vertex_steps += bm->gd->nvert_active;
        }
        with_penalty(bm, 0);
        int nparam = (m->nbody - 1) * GDN_N_INERTIA_PARAMS + 3 * m->nvert;
        double sp = fmax(spread[0], fmax(spread[1], spread[2]));
        printf("| %s | %d | %s | %d | %.3f | %.3f | %.3f | **%.2f** | **%.2f** | %.3f | %d | "
               "%.0f%% |\n", bm->name, bm->nv,
               pen ? "penalty" : "none", bm->deriv->T,
               1e3 * med[0], 1e3 * med[1], 1e3 * med[2], med[1] / med[0], med[2] / med[0],
               med[2] / med[1], nparam, 100 * sp);
        if (pen) {
            printf("|  |  | (contact in %d of %d steps, %.1f of %d vertices on average) |  |  |"
                   "  |  |  |  |  |  |  |\n", steps_in_contact, bm->deriv->T,
                   steps_in_contact ? (double)vertex_steps / steps_in_contact : 0.0, m->nvert);
        }
        fflush(stdout);
    }
}

int bench_deriv_tables(int batches, double batch_seconds, int nstates,
                       unsigned long long seed) {
    benchModel bms[8];
    int loaded[8] = {0}, failures = 0;
    char err[2048];
    for (int i = 0; i < bench_nderiv_models; i++) {
        if (bench_model_load(&bms[i], bench_deriv_model_names[i], bench_deriv_model_paths[i],
                             BENCH_SOURCE_XML, nstates, seed, err, (int)sizeof(err)) != 0 ||
            bench_deriv_setup(&bms[i], err, (int)sizeof(err)) != 0) {
            printf("(%s not loaded: %s)\n", bench_deriv_model_names[i], err);
            failures++;
            continue;
        }
        loaded[i] = 1;
    }

    printf("\nadjoint: one gradient (forward rollout + backward pass) vs the forward rollout "
           "alone; times in ms, median of %d interleaved batches\n\n", batches);
    printf("| model | nv | contact | T | rollout ms | grad dJ/dq0 only ms | grad all blocks ms "
           "| q0-only / rollout | all / rollout | all / q0-only | params + vertex coords | "
           "spread |\n");
    printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < bench_nderiv_models; i++) {
        if (loaded[i]) {
            adjoint_rows(&bms[i], batches, batch_seconds);
        }
    }

    printf("\ntransition Jacobians A (2nv x 2nv), B (2nv x nu) from a raw state, constraints "
           "disabled; µs per call\n\n");
    printf("| model | nv | nu | gradyn exact µs | MuJoCo FD forward µs | MuJoCo FD centered µs "
           "| forward / gradyn | centered / gradyn | agree (vs centered) | spread |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < bench_nderiv_models; i++) {
        if (!loaded[i] || bms[i].nv < 2) {
            continue;
        }
        benchModel* bm = &bms[i];
        benchKernel* k[3] = {jac_gradyn, fd_forward_mujoco, fd_centered_mujoco};
        double med[3], spread[3];
        double agree = jacobian_agreement(bm);
        if (bench_time_interleaved(k, 3, bm, batches, batch_seconds, med, spread) == 0) {
            printf("| %s | %d | %d | %.1f | %.1f | %.1f | **%.1f** | **%.1f** | %.0e | %.0f%% |\n",
                   bm->name, bm->nv, bm->nu, 1e6 * med[0], 1e6 * med[1], 1e6 * med[2],
                   med[1] / med[0], med[2] / med[0], agree,
                   100 * fmax(spread[0], fmax(spread[1], spread[2])));
        }
    }
    for (int i = 0; i < bench_nderiv_models; i++) {
        if (loaded[i]) {
            bench_model_free(&bms[i]);
        }
    }
    return failures;
}
