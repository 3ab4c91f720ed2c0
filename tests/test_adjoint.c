// SPDX-License-Identifier: Apache-2.0
// The trajectory adjoint vs central finite differences of gdn_rollout_objective, every block.
//
// FD: Richardson-extrapolated central differences D = (4 D(h/2) - D(h)) / 3 with
// D(h) = (J(p + h) - J(p - h)) / (2h), truncation O(h^4). Step sizes per parameter class, with
// s = 1e-5 (s = 1e-6 with penalty contact, see below):
//   q0 (tangent, gdn_integrate_pos; rad or m), v0, controls u_t:      h = s
//   vertices (body frame, written into m->vert_pos):                   h = s (m)
//   mass: h = s m_b        COM: h = s (m)
//   inertia entries: h = s max(1, trace(I_b) / 3) (kg m^2): a step relative to a hand's 1e-4
//   kg m^2 inertia would leave the rollout's round-off noise (1e-14 of J) dominant
//   (inertia perturbations go through gdn_model_set_body_inertia)
// Penalty contact: the force max(0, k depth - c v_z) has kinks, and the deep-contact humanoid32
// rollout has one within ~4e-6 of its nominal q0 (FD with h = 1e-5 is off by 20x there; with
// h <= 1e-6 it agrees with the adjoint to 1e-9), hence s = 1e-6.
// Error measure per block: ||adjoint - fd||_inf / max(||fd||_inf, floor), required <= 1e-6.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/models.h"
#include "runner/rollout_fd.h"
#include "runner/skins.h"
#include "runner/test.h"

#define REL_TOL 1e-6

// ---------------------------------------------------------------- models

// the adjoint differentiates the smooth + penalty step: every model is loaded with its
// constraint rows (floor contacts, joint limits) disabled, as issue 3's acceptance states
// ("contacts off, penalty on"); a constrained rollout is refused (test_contact_rollout).
// gdn_test_load_model (runner/models.h) loads them that way.

// ---------------------------------------------------------------- a rollout problem

// the rollout FD harness (runner/rollout_fd.h): objective gdn_fd_terminal_cost +
// gdn_fd_running_cost, FD step s per the header
typedef gdnFdProblem Problem;

// random state around qpos0 (tangent amplitude qamp), velocities (vamp), controls (uamp); FD
// base step s = 1e-5, or 1e-6 with penalty contact
static int problem_init(Problem* p, const char* name, gdnModel* m, int T, unsigned long long seed,
                        double qamp, double vamp, double uamp) {
    if (!gdn_fd_problem_init(p, name, m, T, seed, NULL, qamp, NULL, vamp, uamp)) {
        return 0;
    }
    p->h = p->hpi = m->penalty.enabled ? 1e-6 : 1e-5;
    p->q0_renormalize = 1; // as these cases' numbers were recorded
    p->name_width = 14;
    p->label_width = 6;
    p->count_width = 5;
    return 1;
}

// ---------------------------------------------------------------- finite differences

// compare the adjoint block with FD on entries [0, n) (stride: every stride-th entry) and
// print the worst error; floor: the smallest scale the error is relative to
static int check_block(Problem* p, gdnFdChannel ch, const char* label, const double* adj, int n,
                       int stride, double floor_) {
    if (n <= 0) {
        return 0;
    }
    int count = 0;
    int* idx = calloc((size_t)n, sizeof(int));
    if (!idx) {
        return 1;
    }
    for (int i = 0; i < n; i += stride) {
        // world row and COM/inertia of body 0 are not parameters
        if (ch == GDN_FD_PARAM && i < GDN_N_INERTIA_PARAMS) {
            continue;
        }
        idx[count++] = i;
    }
    double err = gdn_fd_block(p, ch, label, adj, idx, count, floor_, REL_TOL);
    free(idx);
    return !(err <= REL_TOL);
}

// every block against FD; u_stride, vert_stride thin out the largest blocks
static int check_all(Problem* p, int u_stride, int vert_stride) {
    gdnModel* m = p->m;
    CHECK(gdn_fd_gradient_checked(p) == 0);
    int bad = 0;
    bad |= check_block(p, GDN_FD_Q0, "q0", p->g.qpos0, m->nv, 1, 1e-8);
    bad |= check_block(p, GDN_FD_V0, "v0", p->g.qvel0, m->nv, 1, 1e-8);
    bad |= check_block(p, GDN_FD_U, "u", p->g.ctrl, p->T * m->nu, u_stride, 1e-8);
    bad |= check_block(p, GDN_FD_VERT, "vert", p->g.vert, 3 * m->nvert, vert_stride, 1e-8);
    // parameters last: gdn_model_set_body_inertia restores them only to round-off
    if (p->g.param) {
        bad |= check_block(p, GDN_FD_PARAM, "pi", p->g.param, GDN_N_INERTIA_PARAMS * m->nbody, 1,
                           1e-8);
    }
    CHECK(!bad);
    return 0;
}

// ---------------------------------------------------------------- FD cases

static int test_pendulum(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("pendulum.xml");
    CHECK(m);
    CHECK(problem_init(&p, "pendulum", m, 200, 1, 0.8, 1.0, 2.0));
    int bad = check_all(&p, 1, 1);
    // all 10 parameters of the rod are nonzero sensitivities except by symmetry
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_chain_damped(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("adj_chain2.xml");
    CHECK(m);
    CHECK(problem_init(&p, "chain2", m, 150, 2, 0.6, 1.0, 1.0));
    int bad = check_all(&p, 1, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_revolute_prismatic_fixed(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("adj_rpf.xml");
    CHECK(m);
    CHECK(problem_init(&p, "rpf", m, 150, 3, 0.4, 0.8, 1.0));
    int bad = check_all(&p, 1, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_spherical_pendulum(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("adj_ball.xml");
    CHECK(m);
    CHECK(problem_init(&p, "ball", m, 150, 4, 0.7, 2.0, 0.3));
    int bad = check_all(&p, 1, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

// free base, tilted (model quat + random) and spinning; applied forces held constant: a
// generalized force on every dof and, with force_at_com, a world force on the leg's COM (its
// point of application moves with the COM parameters)
static int free_leg_case(const char* name, int force_at_com) {
    Problem p;
    gdnModel* m = gdn_test_load_model("adj_free_leg.xml");
    CHECK(m);
    CHECK(problem_init(&p, name, m, 150, 5, 0.3, 1.0, 1.0));
    p.v0[3] = 3.0; // spin about the local x axis
    p.v0[5] = -2.0;
    double qfrc[7] = {0.5, -0.2, 1.0, 0.05, 0.0, -0.03, 0.1};
    p.xfrc[6 * 2 + 4] = -0.02; // a torque on the leg
    if (force_at_com) {
        p.xfrc[6 * 2 + 0] = 0.3;
        p.xfrc[6 * 1 + 2] = -0.5;
    }
    p.r.qfrc_applied = qfrc;
    p.r.xfrc_applied = p.xfrc;
    int bad = check_all(&p, 1, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_free_lopsided_leg(void) {
    return free_leg_case("free_leg", 0);
}

static int test_xfrc_force_at_com(void) {
    return free_leg_case("free_leg_xfrc", 1);
}

static int test_humanoid32_penalty(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("humanoid32.xml");
    CHECK(m);
    CHECK(gdn_test_add_skins_and_penalty(m, 0.02, 5000, 50));
    CHECK(problem_init(&p, "humanoid32", m, 60, 6, 0.05, 0.3, 0.5));
    int bad = check_all(&p, 3, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

// MuJoCo's humanoid.xml, penalty contact on (skins from its geoms), the built-in objective
// (head to a target, control effort) plus the running cost of the other cases
static gdnStatus running_and_effort(const gdnModel* m, gdnData* s, int t, void* user,
                                    double* value, double* gq, double* gv, double* gu) {
    const gdnObjective* target = user;
    double a = 0, b = 0, gu2[64] = {0};
    if (m->nu > 64) {
        return GDN_ERR_ARG;
    }
    gdnStatus st = gdn_fd_running_cost(m, s, t, NULL, &a, gq, gv, gu);
    if (st == GDN_OK) {
        st = target->running.fn(m, s, t, target->running.user, &b, NULL, NULL,
                                gu ? gu2 : NULL);
    }
    for (int k = 0; gu && k < m->nu; k++) {
        gu[k] += gu2[k];
    }
    *value = a + b;
    return st;
}

static int test_humanoid_mujoco_penalty(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("/usr/share/mujoco/model/humanoid/humanoid.xml");
    CHECK(m);
    CHECK(gdn_test_add_skins_and_penalty(m, 0.02, 5000, 50));
    CHECK(problem_init(&p, "humanoid.xml", m, 40, 7, 0.05, 0.3, 0.5));
    gdnObjective target;
    p.target = (gdnTargetObjective){0};
    p.target.body = gdn_name2id(m, "body", "torso");
    CHECK(p.target.body > 0);
    p.target.point[2] = 0.19; // the head geom sits here in the torso frame
    p.target.target[0] = 0.3;
    p.target.target[2] = 1.2;
    p.target.weight = 1;
    p.target.ctrl_weight = 0.01;
    p.target.vel_weight = 0.001;
    CHECK(gdn_objective_target(m, &p.target, &target) == GDN_OK);
    p.obj.terminal = target.terminal;
    p.obj.running = (gdnCost){running_and_effort, &target, 0};
    int bad = check_all(&p, 7, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

// ---------------------------------------------------------------- box on plane

static gdnStatus final_height(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)m, (void)t, (void)user, (void)gv, (void)gu;
    *value = s->qpos[2];
    if (gq) {
        gq[2] = 1;
    }
    return GDN_OK;
}

// a resting box (8 corners, critically damped vertical mode): moving a bottom vertex up by dz
// in the body frame lowers the box by dz / 4 at equilibrium; top vertices never touch, and
// tangential vertex motion leaves the level box's height unchanged
static int test_box_on_plane(void) {
    gdnModel* m = gdn_test_load_model("adj_box.xml");
    CHECK(m);
    const double a = 0.125, k = 2500, c = 50;
    double corners[24];
    for (int i = 0; i < 8; i++) {
        corners[3 * i] = (i & 1) ? a : -a;
        corners[3 * i + 1] = (i & 2) ? a : -a;
        corners[3 * i + 2] = (i & 4) ? a : -a;
    }
    CHECK(gdn_model_set_collision_mesh(m, 1, corners, 8) == GDN_OK);
    CHECK(gdn_model_set_penalty(m, 1, 0.0, k, c) == GDN_OK);
    const int T = 1000;
    const double depth = m->body_mass[1] * -m->opt.gravity[2] / (4 * k);
    double q0[7] = {0, 0, a - depth, 1, 0, 0, 0}, v0[6] = {0};
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    gdnObjective obj = {{final_height, NULL, 0}, {NULL, NULL, 0}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 0, &tape, NULL, 0) == GDN_OK);
    double gvert[24], gq[6], gv[6];
    gdnAdjointGradients out = {0};
    out.vert = gvert;
    out.qpos0 = gq;
    out.qvel0 = gv;
    char err[256];
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);
    printf("  box: q_T z = %.12f (rest %.12f)\n", out.J, a - depth);
    for (int i = 0; i < 8; i++) {
        printf("  box vertex %d (%+.3f %+.3f %+.3f): dJ/dV = % .15f % .3g % .3g\n", i,
               corners[3 * i], corners[3 * i + 1], corners[3 * i + 2], gvert[3 * i + 2],
               gvert[3 * i], gvert[3 * i + 1]);
        if (i & 4) {
            CHECK(gvert[3 * i] == 0 && gvert[3 * i + 1] == 0 && gvert[3 * i + 2] == 0);
        } else {
            CHECK_NEAR(gvert[3 * i + 2], -0.25, 1e-6, 0);
            CHECK(gvert[3 * i] == 0 && gvert[3 * i + 1] == 0);
        }
    }
    // the box height forgets its initial height and vertical velocity
    CHECK(fabs(gq[2]) < 1e-9 && fabs(gv[2]) < 1e-9);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- constrained rollouts

// the gradient through the constraint solve (gradient/step_constrained.c): every channel vs FD
// on rollouts whose steps have rows all along or from some step on; the solver runs to
// tolerance 1e-14 so that FD differentiates converged solves (Newton reaches it)
static int constrained_case(const char* file, const char* name, int T, unsigned long long seed,
                            double qamp, double vamp, double uamp, int min_rows_steps) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    m->opt.tolerance = 1e-14;
    CHECK(problem_init(&p, name, m, T, seed, qamp, vamp, uamp));
    int bad = check_all(&p, 1, 1);
    // the rollout had rows: count the recorded steps with rows
    int with_rows = 0;
    for (int t = 0; t < T; t++) {
        gdnTapeStep rec;
        CHECK(gdn_tape_step(p.tape, t, &rec) == GDN_OK);
        with_rows += rec.nefc > 0;
    }
    printf("  %-14s %d of %d steps with constraint rows\n", name, with_rows, T);
    CHECK(with_rows >= min_rows_steps);
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_limit_pendulum(void) {
    return constrained_case("sol_pendulum_limit.xml", "limit", 300, 3, 0.3, 4.0, 0, 20);
}

static int test_connect_fourbar(void) {
    return constrained_case("cnstr_fourbar.xml", "fourbar", 200, 4, 0.02, 1.0, 0, 200);
}

static int test_limits_motor_arm(void) {
    return constrained_case("cnstr_arm_motor.xml", "arm_motor", 200, 6, 0.2, 2.0, 2.0, 50);
}

static int test_weld_boxes(void) {
    return constrained_case("cnstr_weld.xml", "weld", 150, 7, 0.02, 0.5, 0, 150);
}

static int test_frictionloss_arm(void) {
    return constrained_case("cnstr_frictionloss.xml", "frictionloss", 150, 5, 0.5, 2.0, 0, 150);
}

// fixed tendons (tendon_fixed.xml): tendon friction-loss rows every step, the limit row on
// some, tendon springs, dampers and actuators in every step
static int test_tendon_fixed(void) {
    return constrained_case("tendon_fixed.xml", "tendon_fixed", 150, 8, 0.3, 2.0, 1.0, 150);
}

// spatial tendons (tendon_spatial.xml: sites, a pulley, a ball joint on a path): the rows' and
// forces' J(q)
static int test_tendon_spatial(void) {
    return constrained_case("tendon_spatial.xml", "tendon_spatial", 150, 10, 0.3, 2.0, 1.0, 150);
}

// outside wraps around cylinders and a sphere (tendon_wrap.xml)
static int test_tendon_wrap(void) {
    return constrained_case("tendon_wrap.xml", "tendon_wrap", 150, 11, 0.3, 2.0, 0.5, 150);
}

// the same rollout without the constraint rows: the smooth steps' tape replay (the tendon
// forces' derivatives read no stored tendon array)
static int test_tendon_smooth(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("tendon_fixed.xml");
    CHECK(m);
    CHECK(problem_init(&p, "tendon_smooth", m, 150, 9, 0.3, 2.0, 1.0));
    int bad = check_all(&p, 1, 1);
    gdn_fd_problem_free(&p);
    return bad;
}

// ---------------------------------------------------------------- tape, determinism, errors

static int same(const double* a, const double* b, int n) {
    return memcmp(a, b, sizeof(double) * (size_t)n) == 0;
}

// checkpointing == full tape bit for bit, two runs bit-identical, and the adjoint's forward
// pass == a gdn_step loop (final state)
static int test_checkpoint_determinism(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("humanoid32.xml");
    CHECK(m);
    CHECK(gdn_test_add_skins_and_penalty(m, 0.02, 5000, 50));
    const int T = 100;
    CHECK(problem_init(&p, "humanoid32", m, T, 8, 0.05, 0.3, 0.5));
    const int nq = m->nq, nv = m->nv, nu = m->nu, np = GDN_N_INERTIA_PARAMS * m->nbody;
    const int nV = 3 * m->nvert;
    CHECK(gdn_fd_gradient(&p));
    gdnAdjointGradients ref = p.g;
    gdnAdjointGradients g2 = {0};
    double* buf = calloc((size_t)(2 * nv + T * nu + np + nV), sizeof(double));
    CHECK(buf);
    g2.qpos0 = buf;
    g2.qvel0 = g2.qpos0 + nv;
    g2.ctrl = g2.qvel0 + nv;
    g2.param = g2.ctrl + T * nu;
    g2.vert = g2.param + np;
    char err[256];
    // two runs
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &g2, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(&g2.J, &ref.J, sizeof(double)) == 0);
    CHECK(same(g2.qpos0, ref.qpos0, nv) && same(g2.qvel0, ref.qvel0, nv));
    CHECK(same(g2.ctrl, ref.ctrl, T * nu) && same(g2.param, ref.param, np));
    CHECK(same(g2.vert, ref.vert, nV));
    // checkpointing with several K
    int Ks[] = {2, 7, 10, 33, 100};
    for (int i = 0; i < 5; i++) {
        gdnTape* tk = NULL;
        CHECK(gdn_tape_create(m, T, Ks[i], &tk, err, sizeof(err)) == GDN_OK);
        memset(buf, 0, sizeof(double) * (size_t)(2 * nv + T * nu + np + nV));
        CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, tk, &g2, err, sizeof(err)) == GDN_OK);
        CHECK(memcmp(&g2.J, &ref.J, sizeof(double)) == 0);
        CHECK(same(g2.qpos0, ref.qpos0, nv) && same(g2.qvel0, ref.qvel0, nv));
        CHECK(same(g2.ctrl, ref.ctrl, T * nu) && same(g2.param, ref.param, np));
        CHECK(same(g2.vert, ref.vert, nV));
        printf("  K = %3d: gradients bit-identical to the full tape; states %zu vs %zu bytes\n",
               Ks[i], gdn_tape_state_bytes(tk), gdn_tape_state_bytes(p.tape));
        gdn_tape_free(tk);
    }
    // forward pass of the gradient == gdn_step loop
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    memcpy(d->qpos, p.q0, sizeof(double) * (size_t)nq);
    gdn_normalize_quat(m, d->qpos);
    memcpy(d->qvel, p.v0, sizeof(double) * (size_t)nv);
    for (int t = 0; t < T; t++) {
        memcpy(d->ctrl, p.u + t * nu, sizeof(double) * (size_t)nu);
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    double* qT = calloc((size_t)(nq + nv), sizeof(double));
    CHECK(gdn_tape_state(p.tape, T, qT, qT + nq) == GDN_OK);
    CHECK(same(qT, d->qpos, nq) && same(qT + nq, d->qvel, nv));
    free(qT);
    gdn_data_free(d);
    free(buf);
    gdn_fd_problem_free(&p);
    return 0;
}

static int test_gradient_errors(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("adj_free_leg.xml");
    CHECK(m);
    CHECK(problem_init(&p, "free_leg", m, 20, 9, 0.1, 0.1, 0.1));
    char err[256];
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, NULL, err, sizeof(err)) ==
          GDN_ERR_ARG);
    p.r.nstep = 0;
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &p.g, err, sizeof(err)) ==
          GDN_ERR_ARG);
    CHECK(isnan(p.g.J));
    p.r.nstep = 20;
    p.q0[4] = NAN;
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &p.g, err, sizeof(err)) ==
          GDN_ERR_NONFINITE);
    CHECK(strstr(err, "qpos0[4]") != NULL);
    p.q0[4] = m->qpos0[4];
    gdn_normalize_quat(m, p.q0);
    p.u[11] = 1e308;
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &p.g, err, sizeof(err)) ==
          GDN_ERR_NONFINITE);
    CHECK(strstr(err, "step 11") != NULL);
    p.u[11] = 0;
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &p.g, err, sizeof(err)) ==
          GDN_OK);
    // every output optional
    gdnAdjointGradients only_j = {0};
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, p.tape, &only_j, err, sizeof(err)) ==
          GDN_OK);
    CHECK(memcmp(&only_j.J, &p.g.J, sizeof(double)) == 0);
    gdn_fd_problem_free(&p);
    return 0;
}

// ---------------------------------------------------------------- cost

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// best of reps: forward rollout, gradient w.r.t. state and controls only, gradient with all
// inertia parameters and vertices too (printed, not asserted)
static int time_problem(Problem* p, int reps) {
    char err[256];
    double J, tf = INFINITY, t1 = INFINITY, ta = INFINITY;
    gdnAdjointGradients few = p->g;
    few.param = NULL;
    few.vert = NULL;
    few.ctrl = NULL;
    few.qvel0 = NULL;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        CHECK(gdn_rollout_objective(p->m, &p->r, &p->obj, p->tape, &J, err, sizeof(err)) ==
              GDN_OK);
        double t_1 = now();
        CHECK(gdn_adjoint_rollout_gradient(p->m, &p->r, &p->obj, p->tape, &few, err,
                                           sizeof(err)) == GDN_OK);
        double t_2 = now();
        CHECK(gdn_adjoint_rollout_gradient(p->m, &p->r, &p->obj, p->tape, &p->g, err,
                                           sizeof(err)) == GDN_OK);
        double t_3 = now();
        tf = fmin(tf, t_1 - t0);
        t1 = fmin(t1, t_2 - t_1);
        ta = fmin(ta, t_3 - t_2);
    }
    int np = GDN_N_INERTIA_PARAMS * (p->m->nbody - 1) + 3 * p->m->nvert;
    printf("  %-22s T %4d: forward %8.3f ms | gradient dJ/dq0 only %8.3f ms (%.2fx) | "
           "all blocks incl. %d parameters %8.3f ms (%.2fx) | all/one %.3f\n",
           p->name, p->T, 1e3 * tf, 1e3 * t1, t1 / tf, np, 1e3 * ta, ta / tf, ta / t1);
    return 0;
}

static int test_timing(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model("pendulum.xml");
    CHECK(m);
    CHECK(problem_init(&p, "pendulum", m, 1000, 10, 0.5, 0.5, 1.0));
    CHECK(time_problem(&p, 20) == 0);
    gdn_fd_problem_free(&p);

    m = gdn_test_load_model("/usr/share/mujoco/model/humanoid/humanoid.xml");
    CHECK(m);
    CHECK(problem_init(&p, "humanoid.xml", m, 200, 11, 0.05, 0.3, 0.5));
    CHECK(time_problem(&p, 10) == 0);
    gdn_fd_problem_free(&p);

    m = gdn_test_load_model("/usr/share/mujoco/model/humanoid/humanoid.xml");
    CHECK(m);
    CHECK(gdn_test_add_skins_and_penalty(m, 0.02, 5000, 50));
    CHECK(problem_init(&p, "humanoid.xml+penalty", m, 200, 11, 0.05, 0.3, 0.5));
    CHECK(time_problem(&p, 10) == 0);
    gdn_fd_problem_free(&p);
    return 0;
}

// joint equalities (eq_joint.xml: hinges and slides coupled by polynomials, a held joint) and
// tendon equalities (eq_tendon.xml: a fixed tendon following a cubic of a spatial one, a held
// spatial tendon): one row per equality every step, J(q) through the polynomials and ten_J
static int test_equality_joint(void) {
    return constrained_case("eq_joint.xml", "eq_joint", 150, 12, 0.3, 2.0, 1.0, 150);
}

static int test_equality_tendon(void) {
    return constrained_case("eq_tendon.xml", "eq_tendon", 150, 13, 0.3, 2.0, 1.0, 150);
}

static const gdnTestCase cases[] = {
    {"pendulum", test_pendulum},
    {"chain_damped", test_chain_damped},
    {"revolute_prismatic_fixed", test_revolute_prismatic_fixed},
    {"spherical_pendulum", test_spherical_pendulum},
    {"free_lopsided_leg", test_free_lopsided_leg},
    {"xfrc_force_at_com", test_xfrc_force_at_com},
    {"humanoid32_penalty", test_humanoid32_penalty},
    {"humanoid_mujoco_penalty", test_humanoid_mujoco_penalty},
    {"box_on_plane", test_box_on_plane},
    {"limit_pendulum", test_limit_pendulum},
    {"connect_fourbar", test_connect_fourbar},
    {"frictionloss_arm", test_frictionloss_arm},
    {"limits_motor_arm", test_limits_motor_arm},
    {"weld_boxes", test_weld_boxes},
    {"tendon_fixed", test_tendon_fixed},
    {"tendon_smooth", test_tendon_smooth},
    {"tendon_spatial", test_tendon_spatial},
    {"tendon_wrap", test_tendon_wrap},
    {"equality_joint", test_equality_joint},
    {"equality_tendon", test_equality_tendon},
    {"checkpoint_determinism", test_checkpoint_determinism},
    {"gradient_errors", test_gradient_errors},
    {"timing", test_timing},
};

GDN_TEST_MAIN(cases)
