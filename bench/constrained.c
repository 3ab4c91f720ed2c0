// SPDX-License-Identifier: Apache-2.0
// Issue-9 benchmark tables: derivatives through the constraint solve, contacts and limits on in
// both engines.
//
// Adjoint rows (humanoid.xml falling onto its floor): q0 = qpos0, v0 = 0, u_t = 0, the built-in
// target objective (torso at (0, 0, 1) at T, control effort 1e-3, final velocity 1e-3).
// "rollout" = gdn_rollout_objective; "grad q0" = gdn_adjoint_rollout_gradient with dJ/dq0 only;
// "grad all" = dJ/dq0, dJ/dv0, dJ/du_t and dJ/dpi of every body. T = 200 and 1000 on one full
// tape (gdn_tape_create's default reserve).
// Jacobian and per-step rows: states of a MuJoCo rollout from qpos0 (humanoid.xml: steps 150,
// 154, ..., lying on its floor; cnstr_arm_motor: driven into its limits, steps 150, 154, ...;
// bench/models/arm7_contact.xml: fallen onto its floor, steps 400, 404, ...), qpos, qvel, ctrl
// and qacc_warmstart copied into both engines; gdn_transition_jacobians
// vs mjd_transitionFD(eps 1e-6, forward and centered), gdn_step_vjp (state and control
// cotangents; and with every body's inertia parameters), gdn_step vs mj_step from the same state.
#include "constrained.h"

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
#ifndef GDN_BENCH_MODELS
#    define GDN_BENCH_MODELS "bench/models"
#endif

#define CNSTR_NSTATES 8
#define CNSTR_NT 2
static const int cnstr_T[CNSTR_NT] = {200, 1000};

const char* const bench_cnstr_model_names[] = {"humanoid_floor", "cnstr_arm_motor",
                                               "arm7_contact"};
const char* const bench_cnstr_model_paths[] = {
    "/usr/share/mujoco/model/humanoid/humanoid.xml", GDN_TEST_MODELS "/cnstr_arm_motor.xml",
    GDN_BENCH_MODELS "/arm7_contact.xml"};
const int bench_cnstr_model_adjoint[] = {1, 0, 0};
const int bench_ncnstr_models = 3;

// per model: the MuJoCo step of the first state, the stride between states, the constant
// controls of the rollout that reaches them (the rest zero)
static const int cnstr_first_step[] = {150, 150, 400};
static const int cnstr_stride[] = {4, 4, 4};
static const double cnstr_ctrl[][8] = {{0}, {1.0, 1.0, 1.0}, {0, 1.5}};

typedef struct benchCnstr {
    int adjoint;           // the adjoint rows run on this model
    double* q0;            // (nq) rollout: qpos0
    double* v0;            // (nv) zero
    double* u;             // (Tmax x nu) zero
    gdnRollout r[CNSTR_NT];
    gdnTargetObjective spec;
    gdnObjective obj;
    gdnTape* tape;         // one full tape of Tmax steps
    double* g;             // every gradient block, one buffer
    gdnAdjointGradients one[CNSTR_NT], all[CNSTR_NT];
    double* warm;          // (nstates x nv) qacc_warmstart of each state
    double* A;             // (2nv x 2nv) and B (2nv x nu): gradyn, then MuJoCo
    double* B;
    double* Amj;
    double* Bmj;
    double* w;             // (2nv) the VJP's next-state cotangent
    double* gout;          // the VJP's outputs: gqpos (nv), gqvel (nv), gctrl (nu), gparam
} benchCnstr;

// ---------------------------------------------------------------- kernels

// state s (time 0, qpos, qvel, ctrl, warm start) into one engine
static void state_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    memcpy(bm->gd->qacc_warmstart, bm->cnstr->warm + (size_t)s * (size_t)bm->nv,
           sizeof(double) * (size_t)bm->nv);
}

static void state_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    memcpy(bm->md->qacc_warmstart, bm->cnstr->warm + (size_t)s * (size_t)bm->nv,
           sizeof(double) * (size_t)bm->nv);
}

static gdnStatus rollout(benchModel* bm, int k) {
    double J;
    return gdn_rollout_objective(bm->gm, &bm->cnstr->r[k], &bm->cnstr->obj, bm->cnstr->tape, &J,
                                 NULL, 0);
}

static gdnStatus gradient(benchModel* bm, int k, int all, char* err, int err_size) {
    benchCnstr* c = bm->cnstr;
    return gdn_adjoint_rollout_gradient(bm->gm, &c->r[k], &c->obj, c->tape,
                                        all ? &c->all[k] : &c->one[k], err, err_size);
}

static void k_rollout_200(benchModel* bm, int s) {
    (void)s;
    rollout(bm, 0);
}

static void k_grad_q0_200(benchModel* bm, int s) {
    (void)s;
    gradient(bm, 0, 0, NULL, 0);
}

static void k_grad_all_200(benchModel* bm, int s) {
    (void)s;
    gradient(bm, 0, 1, NULL, 0);
}

static void k_rollout_1000(benchModel* bm, int s) {
    (void)s;
    rollout(bm, 1);
}

static void k_grad_q0_1000(benchModel* bm, int s) {
    (void)s;
    gradient(bm, 1, 0, NULL, 0);
}

static void k_grad_all_1000(benchModel* bm, int s) {
    (void)s;
    gradient(bm, 1, 1, NULL, 0);
}

static gdnStatus jacobians(benchModel* bm, int s) {
    state_gradyn(bm, s);
    return gdn_transition_jacobians(bm->gm, bm->gd, bm->cnstr->A, bm->cnstr->B);
}

static void k_jac_gradyn(benchModel* bm, int s) {
    jacobians(bm, s);
}

static void k_fd_forward(benchModel* bm, int s) {
    state_mujoco(bm, s);
    mjd_transitionFD(bm->mm, bm->md, 1e-6, 0, bm->cnstr->Amj, bm->cnstr->Bmj, NULL, NULL);
}

static void k_fd_centered(benchModel* bm, int s) {
    state_mujoco(bm, s);
    mjd_transitionFD(bm->mm, bm->md, 1e-6, 1, bm->cnstr->Amj, bm->cnstr->Bmj, NULL, NULL);
}

// the step VJP: state and control cotangents (params 0) or every body's parameters too
static gdnStatus vjp(benchModel* bm, int s, int params) {
    benchCnstr* c = bm->cnstr;
    const int nv = bm->nv, nu = bm->nu;
    state_gradyn(bm, s);
    double* gp = c->gout + 2 * nv + nu;
    if (params) {
        memset(gp, 0, sizeof(double) * (size_t)bm->gm->nbody * GDN_N_INERTIA_PARAMS);
    }
    return gdn_step_vjp(bm->gm, bm->gd, c->w, c->w + nv, c->gout, c->gout + nv,
                        nu ? c->gout + 2 * nv : NULL, params ? gp : NULL, NULL);
}

static void k_vjp(benchModel* bm, int s) {
    vjp(bm, s, 0);
}

static void k_vjp_param(benchModel* bm, int s) {
    vjp(bm, s, 1);
}

static void k_step_gradyn(benchModel* bm, int s) {
    state_gradyn(bm, s);
    gdn_step(bm->gm, bm->gd);
}

static void k_step_mujoco(benchModel* bm, int s) {
    state_mujoco(bm, s);
    mj_step(bm->mm, bm->md);
}

const benchCnstrKernel bench_cnstr_kernels[] = {
    {"rollout_c200", "gdn_rollout_objective, 200 steps", 0, 1, k_rollout_200},
    {"grad_q0_c200", "gdn_adjoint_rollout_gradient, 200 steps, dJ/dq0 only", 0, 1, k_grad_q0_200},
    {"grad_all_c200", "gdn_adjoint_rollout_gradient, 200 steps, every channel", 0, 1,
     k_grad_all_200},
    {"rollout_c1000", "gdn_rollout_objective, 1000 steps", 0, 1, k_rollout_1000},
    {"grad_q0_c1000", "gdn_adjoint_rollout_gradient, 1000 steps, dJ/dq0 only", 0, 1,
     k_grad_q0_1000},
    {"grad_all_c1000", "gdn_adjoint_rollout_gradient, 1000 steps, every channel", 0, 1,
     k_grad_all_1000},
    {"jacobians_c", "gdn_transition_jacobians (A and B) through the constrained step", 0, 0,
     k_jac_gradyn},
    {"jacobians_c", "mjd_transitionFD(eps 1e-6, centered), constraints on", 1, 0, k_fd_centered},
    {"jacobians_c_fwd", "mjd_transitionFD(eps 1e-6, forward), constraints on", 1, 0,
     k_fd_forward},
    {"vjp_c", "gdn_step_vjp: state and control cotangents", 0, 0, k_vjp},
    {"vjp_c_param", "gdn_step_vjp: state, control and inertia-parameter cotangents", 0, 0,
     k_vjp_param},
    {"step_c", "gdn_step from the state", 0, 0, k_step_gradyn},
    {"step_c", "mj_step from the state", 1, 0, k_step_mujoco},
};
const int bench_ncnstr_kernels = (int)(sizeof(bench_cnstr_kernels) / sizeof(bench_cnstr_kernels[0]));

// ---------------------------------------------------------------- setup

// the states: a MuJoCo rollout from qpos0 with the model's constant controls; state k is the
// state after cnstr_first_step + k cnstr_stride steps, with MuJoCo's warm start
static void trajectory_states(benchModel* bm, int i) {
    mjModel* mm = bm->mm;
    mjData* md = bm->md;
    const int nq = bm->nq, nv = bm->nv, nu = bm->nu;
    mj_resetData(mm, md);
    for (int a = 0; a < nu; a++) {
        md->ctrl[a] = a < 8 ? cnstr_ctrl[i][a] : 0.0;
    }
    int step = 0;
    for (int k = 0; k < bm->nstates; k++) {
        for (; step < cnstr_first_step[i] + k * cnstr_stride[i]; step++) {
            mj_step(mm, md);
        }
        memcpy(bm->qpos + (size_t)k * (size_t)nq, md->qpos, sizeof(double) * (size_t)nq);
        memcpy(bm->qvel + (size_t)k * (size_t)nv, md->qvel, sizeof(double) * (size_t)nv);
        memcpy(bm->ctrl + (size_t)k * (size_t)nu, md->ctrl, sizeof(double) * (size_t)nu);
        memcpy(bm->cnstr->warm + (size_t)k * (size_t)nv, md->qacc_warmstart,
               sizeof(double) * (size_t)nv);
    }
}

// the adjoint model's rollouts, objective, tape and gradient outputs
static int adjoint_setup(benchModel* bm, char* err, int err_size) {
    benchCnstr* c = bm->cnstr;
    const gdnModel* m = bm->gm;
    const int nq = m->nq, nv = m->nv, nu = m->nu, nb = m->nbody;
    const int Tmax = cnstr_T[CNSTR_NT - 1];
    c->q0 = calloc((size_t)(nq + nv) + (size_t)Tmax * (size_t)nu + 1, sizeof(double));
    c->g = calloc(2 * (size_t)nv + (size_t)Tmax * (size_t)nu +
                      (size_t)nb * GDN_N_INERTIA_PARAMS + 1, sizeof(double));
    if (!c->q0 || !c->g) {
        snprintf(err, (size_t)err_size, "out of memory");
        return -1;
    }
    c->v0 = c->q0 + nq;
    c->u = c->v0 + nv;
    memcpy(c->q0, m->qpos0, sizeof(double) * (size_t)nq);
    for (int k = 0; k < CNSTR_NT; k++) {
        gdn_rollout_init(m, cnstr_T[k], &c->r[k]);
        c->r[k].qpos0 = c->q0;
        c->r[k].qvel0 = c->v0;
        c->r[k].ctrl = nu ? c->u : NULL;
        c->one[k].qpos0 = c->g;
        c->all[k].qpos0 = c->g;
        c->all[k].qvel0 = c->g + nv;
        c->all[k].ctrl = nu ? c->g + 2 * nv : NULL;
        c->all[k].param = c->g + 2 * nv + (size_t)cnstr_T[k] * (size_t)nu;
    }
    c->spec.body = 1;
    c->spec.target[2] = 1.0;
    c->spec.weight = 1.0;
    c->spec.ctrl_weight = 1e-3;
    c->spec.vel_weight = 1e-3;
    if (gdn_objective_target(m, &c->spec, &c->obj) != GDN_OK) {
        snprintf(err, (size_t)err_size, "gdn_objective_target failed");
        return -1;
    }
    if (gdn_tape_create(m, Tmax, 1, &c->tape, err, err_size) != GDN_OK) {
        return -1;
    }
    return 0;
}

int bench_cnstr_load(benchModel* bm, int i, char* err, int err_size) {
    if (bench_model_load(bm, bench_cnstr_model_names[i], bench_cnstr_model_paths[i],
                         BENCH_SOURCE_XML, CNSTR_NSTATES, 1, err, err_size) != 0) {
        return -1;
    }
    // constraints back on in both engines (bench_model_load disables them)
    bm->mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    bm->gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    const int nv = bm->nv, nu = bm->nu, n = 2 * nv;
    benchCnstr* c = calloc(1, sizeof(benchCnstr));
    if (!c) {
        snprintf(err, (size_t)err_size, "out of memory");
        bench_model_free(bm);
        return -1;
    }
    bm->cnstr = c;
    c->adjoint = bench_cnstr_model_adjoint[i];
    c->warm = calloc((size_t)bm->nstates * (size_t)nv + 1, sizeof(double));
    c->A = calloc(2 * (size_t)(n * n + n * nu) + 1, sizeof(double));
    c->w = calloc((size_t)(n + 2 * nv + nu) + (size_t)bm->gm->nbody * GDN_N_INERTIA_PARAMS + 1,
                  sizeof(double));
    if (!c->warm || !c->A || !c->w) {
        snprintf(err, (size_t)err_size, "out of memory");
        bench_model_free(bm);
        return -1;
    }
    c->B = c->A + n * n;
    c->Amj = c->B + n * nu;
    c->Bmj = c->Amj + n * n;
    c->gout = c->w + n;
    for (int j = 0; j < n; j++) {
        c->w[j] = sin(j + 1.0);
    }
    trajectory_states(bm, i);
    if (c->adjoint && adjoint_setup(bm, err, err_size) != 0) {
        bench_model_free(bm);
        return -1;
    }
    return 0;
}

void bench_cnstr_free(benchModel* bm) {
    benchCnstr* c = bm->cnstr;
    if (!c) {
        return;
    }
    gdn_tape_free(c->tape);
    free(c->q0);
    free(c->g);
    free(c->warm);
    free(c->A);
    free(c->w);
    free(c);
    bm->cnstr = NULL;
}

// ---------------------------------------------------------------- tables

// the adjoint rows at one T: statuses, steps with rows and flagged steps, then the timing
static int adjoint_row(benchModel* bm, int k, int batches, double seconds) {
    benchCnstr* c = bm->cnstr;
    const int T = cnstr_T[k];
    char err[512] = "";
    gdnStatus st = rollout(bm, k);
    if (st == GDN_OK) {
        st = gradient(bm, k, 0, err, (int)sizeof(err));
    }
    if (st == GDN_OK) {
        st = gradient(bm, k, 1, err, (int)sizeof(err));
    }
    if (st != GDN_OK) {
        printf("| %s | %d | %d | (gradient failed: %s: %s) | | | | | | | | | | |\n", bm->name,
               bm->nv, T, gdn_status_string(st), err);
        return 1;
    }
    // what the rollout met: steps with rows, their mean row and contact counts, the steps the
    // backward pass flagged (a row near a state boundary or its activation margin)
    int with_rows = 0, flagged = 0;
    long rows = 0, contacts = 0;
    for (int t = 0; t < T; t++) {
        gdnTapeStep rec;
        if (gdn_tape_step(c->tape, t, &rec) != GDN_OK) {
            continue;
        }
        with_rows += rec.nefc > 0;
        rows += rec.nefc;
        contacts += rec.ncon;
        flagged += rec.deriv_flags != 0;
    }
    benchKernel* kernels[2][3] = {{k_rollout_200, k_grad_q0_200, k_grad_all_200},
                                  {k_rollout_1000, k_grad_q0_1000, k_grad_all_1000}};
    double med[3], spread[3];
    if (bench_time_interleaved(kernels[k], 3, bm, batches, seconds, med, spread) != 0) {
        printf("| %s | %d | %d | (timing failed) | | | | | | | | | | |\n", bm->name, bm->nv, T);
        return 1;
    }
    int nparam = (bm->gm->nbody - 1) * GDN_N_INERTIA_PARAMS;
    double flat = med[2] / med[1] - 1.0;
    printf("| %s | %d | %d | %d | %.1f | %.1f | %d | %.3f | %.3f | %.3f | **%.2f** | **%.2f** | "
           "%+.1f%% (%s) | %.1f | %d | %.0f%% |\n",
           bm->name, bm->nv, T, with_rows, with_rows ? (double)rows / with_rows : 0.0,
           with_rows ? (double)contacts / with_rows : 0.0, flagged, 1e3 * med[0], 1e3 * med[1],
           1e3 * med[2], med[1] / med[0], med[2] / med[0], 100 * flat,
           fabs(flat) <= 0.10 ? "within 10%" : "NOT within 10%", 1e6 * (med[2] - med[0]) / T,
           nparam, 100 * fmax(spread[0], fmax(spread[1], spread[2])));
    fflush(stdout);
    return 0;
}

// |A, B - MuJoCo's centered FD with eps| / max(|FD|, 1), inf norms, at state s
static double fd_error(benchModel* bm, int s, double eps) {
    const int n = 2 * bm->nv, nu = bm->nu;
    state_mujoco(bm, s);
    mjd_transitionFD(bm->mm, bm->md, eps, 1, bm->cnstr->Amj, bm->cnstr->Bmj, NULL, NULL);
    double scale = 1, diff = 0;
    for (int i = 0; i < n * (n + nu); i++) {
        scale = fmax(scale, fabs(bm->cnstr->Amj[i]));
        diff = fmax(diff, fabs(bm->cnstr->A[i] - bm->cnstr->Amj[i]));
    }
    return diff / scale;
}

// agreement with MuJoCo's centered FD over the states: the worst error against eps 1e-6 (*e6)
// and the worst of each state's better one of eps 1e-6 and 1e-7 (*best: an FD whose +-eps
// samples straddle a contact activation or a row's state change is far off at one eps and
// not at the other); the number of states whose gdn_transition_jacobians failed in *failed,
// the flagged ones in *flagged
static void jacobian_agreement(benchModel* bm, double* e6, double* best, int* failed,
                               int* flagged) {
    *e6 = 0;
    *best = 0;
    *failed = 0;
    *flagged = 0;
    for (int s = 0; s < bm->nstates; s++) {
        if (jacobians(bm, s) != GDN_OK) {
            (*failed)++;
            continue;
        }
        *flagged += bm->gd->deriv_flags != 0;
        double a = fd_error(bm, s, 1e-6), b = fd_error(bm, s, 1e-7);
        *e6 = fmax(*e6, a);
        *best = fmax(*best, fmin(a, b));
    }
}

// the per-state numbers: mean ncon and nefc (gradyn's forward at each state), and the VJP and
// step statuses
typedef struct stateStats {
    double ncon, nefc;
    int vjp_failed, step_failed;
} stateStats;

static stateStats state_stats(benchModel* bm) {
    stateStats r = {0, 0, 0, 0};
    for (int s = 0; s < bm->nstates; s++) {
        state_gradyn(bm, s);
        gdn_forward(bm->gm, bm->gd);
        r.ncon += bm->gd->ncon;
        r.nefc += bm->gd->nefc;
        r.vjp_failed += vjp(bm, s, 1) != GDN_OK;
        state_gradyn(bm, s);
        r.step_failed += gdn_step(bm->gm, bm->gd) != GDN_OK;
    }
    r.ncon /= bm->nstates;
    r.nefc /= bm->nstates;
    return r;
}

// the measured per-state kernels of one model (k_jac, FD forward, FD centered, VJP, VJP with
// parameters, gdn_step, mj_step)
typedef struct stateTimes {
    int ok;
    double med[7], spread[7], agree6, agree_best;
    int jac_failed, jac_flagged;
    stateStats st;
} stateTimes;

static stateTimes time_states(benchModel* bm, int batches, double seconds) {
    stateTimes r;
    memset(&r, 0, sizeof(r));
    jacobian_agreement(bm, &r.agree6, &r.agree_best, &r.jac_failed, &r.jac_flagged);
    r.st = state_stats(bm);
    benchKernel* k[7] = {k_jac_gradyn, k_fd_forward, k_fd_centered, k_vjp, k_vjp_param,
                         k_step_gradyn, k_step_mujoco};
    r.ok = bench_time_interleaved(k, 7, bm, batches, seconds, r.med, r.spread) == 0;
    return r;
}

int bench_cnstr_tables(int batches, double batch_seconds) {
    benchModel bms[8];
    int loaded[8] = {0}, failures = 0;
    stateTimes times[8];
    char err[2048];
    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (bench_cnstr_load(&bms[i], i, err, (int)sizeof(err)) != 0) {
            printf("(%s not loaded: %s)\n", bench_cnstr_model_names[i], err);
            failures++;
            continue;
        }
        loaded[i] = 1;
    }

    printf("\nconstrained adjoint (issue 9): humanoid.xml falling onto its floor from qpos0 (v0 = 0, "
           "u = 0), contacts and limits on; one gradient (forward rollout + backward pass "
           "through every constraint solve) vs the forward rollout alone; times in ms, median "
           "of %d interleaved batches\n\n", batches);
    printf("| model | nv | T | steps with rows | mean nefc | mean ncon | flagged steps | "
           "rollout ms | grad dJ/dq0 only ms | grad all channels ms | q0-only / rollout | "
           "all / rollout | all vs q0-only (flat: within 10%%?) | backward µs/step | params | "
           "spread |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (loaded[i] && bms[i].cnstr->adjoint) {
            for (int k = 0; k < CNSTR_NT; k++) {
                failures += adjoint_row(&bms[i], k, batches, batch_seconds);
            }
        }
    }
    printf("\n- all channels: dJ/dq0, dJ/dv0, dJ/du_t (T x nu) and dJ/dpi (10 per body); "
           "backward µs/step = (grad all - rollout) / T\n"
           "- flagged steps: the backward pass's per-step report (a row within 1e-6 of a state "
           "boundary or of its activation margin)\n");

    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (loaded[i]) {
            times[i] = time_states(&bms[i], batches, batch_seconds);
        }
    }
    printf("\ntransition Jacobians through the constrained step (issue 9): A (2nv x 2nv), B "
           "(2nv x nu) at %d states of a MuJoCo rollout (humanoid.xml: steps 150, 154, ... "
           "lying on its floor), copied into both engines with the warm start; µs per call\n\n",
           CNSTR_NSTATES);
    printf("| model | nv | nu | mean ncon | mean nefc | gradyn exact µs | MuJoCo FD forward µs | "
           "MuJoCo FD centered µs | forward / gradyn | centered / gradyn | agree (vs centered 1e-6) "
           "| agree (vs best of centered 1e-6, 1e-7) | spread |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (!loaded[i]) {
            continue;
        }
        stateTimes* t = &times[i];
        benchModel* bm = &bms[i];
        if (!t->ok || t->jac_failed) {
            printf("| %s | %d | %d | (%d of %d gdn_transition_jacobians calls failed) | | | | | "
                   "| | | |\n", bm->name, bm->nv, bm->nu, t->jac_failed, bm->nstates);
            failures++;
            continue;
        }
        printf("| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | **%.1f** | **%.1f** | %.0e "
               "| %.0e | %.0f%% |\n", bm->name, bm->nv, bm->nu, t->st.ncon, t->st.nefc,
               1e6 * t->med[0], 1e6 * t->med[1], 1e6 * t->med[2], t->med[1] / t->med[0],
               t->med[2] / t->med[0], t->agree6, t->agree_best, 100 * fmax(t->spread[0], fmax(t->spread[1], t->spread[2])));
        if (t->jac_flagged) {
            printf("|   %s: %d of %d states flagged (a row near a regime boundary) | | | | | | | "
                   "| | | | |\n", bm->name, t->jac_flagged, bm->nstates);
        }
    }
    printf("\n- agree: worst ||A, B - MuJoCo's centered FD||_inf / max(||FD||_inf, 1) over the "
           "states (MuJoCo's FD error); at eps 1e-6 alone, and with each state's better one of "
           "eps 1e-6 and 1e-7 (an FD whose samples straddle a contact activation or a row state "
           "change is far off at one eps)\n");

    printf("\nper-step derivative cost at the same states (issue 9; Inria's Simple reports 5 µs "
           "for 7 DOF to 95 µs for a 36-DOF humanoid for one step's contact derivatives); µs "
           "per call\n\n");
    printf("| model | nv | mean ncon | mean nefc | gdn_step µs | mj_step µs | "
           "gdn_transition_jacobians µs | jacobians - step µs | gdn_step_vjp µs | "
           "gdn_step_vjp + params µs | vjp - step µs | spread |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < bench_ncnstr_models; i++) {
        stateTimes* t = &times[i];
        if (!loaded[i] || !t->ok) {
            continue;
        }
        benchModel* bm = &bms[i];
        double sp = 0;
        for (int k = 0; k < 7; k++) {
            sp = k == 1 || k == 2 ? sp : fmax(sp, t->spread[k]);
        }
        printf("| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
               "%.0f%% |\n", bm->name, bm->nv, t->st.ncon, t->st.nefc, 1e6 * t->med[5],
               1e6 * t->med[6], 1e6 * t->med[0], 1e6 * (t->med[0] - t->med[5]),
               1e6 * t->med[3], 1e6 * t->med[4], 1e6 * (t->med[3] - t->med[5]), 100 * sp);
        if (t->st.vjp_failed || t->st.step_failed) {
            printf("|   %s: %d VJP and %d step failures over %d states | | | | | | | | | | | |\n",
                   bm->name, t->st.vjp_failed, t->st.step_failed, bm->nstates);
            failures++;
        }
    }
    printf("\n- every gradyn call includes its own forward pass (kinematics, collision, rows, "
           "the solve): \"- step\" columns subtract gdn_step at the same state; the trajectory "
           "adjoint's backward pass reads the tape instead (backward µs/step above)\n");
    fflush(stdout);
    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (loaded[i]) {
            bench_model_free(&bms[i]);
        }
    }
    return failures;
}

void bench_cnstr_list(void) {
    for (int i = 0; i < bench_ncnstr_models; i++) {
        for (int k = 0; k < bench_ncnstr_kernels; k++) {
            if (bench_cnstr_kernels[k].adjoint && !bench_cnstr_model_adjoint[i]) {
                continue;
            }
            printf("%s/%s/%s\n", bench_cnstr_model_names[i], bench_cnstr_kernels[k].name,
                   bench_cnstr_kernels[k].mujoco ? "mujoco" : "gradyn");
        }
    }
}

int bench_cnstr_count(const char* model, const char* row, int mujoco, long calls) {
    int mi = -1;
    const benchCnstrKernel* kernel = NULL;
    for (int i = 0; i < bench_ncnstr_models; i++) {
        if (!strcmp(bench_cnstr_model_names[i], model)) {
            mi = i;
        }
    }
    for (int k = 0; k < bench_ncnstr_kernels; k++) {
        if (!strcmp(bench_cnstr_kernels[k].name, row) && bench_cnstr_kernels[k].mujoco == mujoco) {
            kernel = &bench_cnstr_kernels[k];
        }
    }
    if (mi < 0 || !kernel || (kernel->adjoint && !bench_cnstr_model_adjoint[mi])) {
        return 2;
    }
    benchModel bm;
    char err[2048];
    if (bench_cnstr_load(&bm, mi, err, (int)sizeof(err)) != 0) {
        fprintf(stderr, "gdn_bench: %s\n", err);
        return 1;
    }
    for (long i = 0; i < calls; i++) {
        kernel->run(&bm, (int)(i % bm.nstates));
    }
    bench_model_free(&bm);
    return 0;
}
