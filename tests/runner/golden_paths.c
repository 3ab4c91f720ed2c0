// SPDX-License-Identifier: Apache-2.0
// The golden path hashes (see golden_paths.h): a rollout per solver and cone, the derivatives.
#include "runner/golden_paths.h"

#include "runner/golden.h"

#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>

#include "runner/models.h"
#include "runner/test.h"

#define NSTEP 1000

const char* const gdn_golden_models[] = {
    "adj_ball",        "adj_box",          "adj_chain2",          "adj_flywheel",
    "adj_free_leg",    "adj_free_spin",    "adj_rpf",             "arm7",
    "ball_chain",      "box_penalty",      "box_spin",            "cnstr_box",
    "cnstr_fourbar",   "cnstr_frictionloss", "cnstr_pendulum",    "cnstr_sphere",
    "cnstr_weld",      "double_pendulum",  "humanoid32",          "pendulum",
    "scene_drop_box",  "scene_drop_capsule", "scene_drop_cylinder", "scene_drop_sphere",
    "scene_meshes",    "scene_slide",      "scene_slide_elliptic", "scene_tip",
    "slider",          "sol_box",          "sol_fourbar",         "sol_frictionloss",
    "sol_pendulum_limit", "sol_stack",    "tendon_fixed",        "tendon_spatial",
    "tendon_wrap",     "act_arm",          "act_limit",           "fluid_boxes",
    "fluid_ellipsoid",
};
const int gdn_golden_nmodels = (int)(sizeof(gdn_golden_models) / sizeof(gdn_golden_models[0]));

// a test model by name, with its own options
gdnModel* gdn_golden_load(const char* name) {
    char file[256];
    snprintf(file, sizeof(file), "%s.xml", name);
    return gdn_test_load_model_as_is(file);
}

// controls in the middle 40% of ctrlrange (or [-0.2, 0.2] unlimited), redrawn every 50 steps
static void draw_ctrl(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    for (int i = 0; i < m->nu; i++) {
        double lo = -1, hi = 1;
        if (m->actuator_ctrllimited[i]) {
            lo = m->actuator_ctrlrange[2 * i];
            hi = m->actuator_ctrlrange[2 * i + 1];
        }
        const double mid = 0.5 * (lo + hi), half = 0.2 * (hi - lo);
        d->ctrl[i] = gdn_test_uniform(rng, mid - half, mid + half);
    }
}

// start state: keyframe 0 when present, else qpos0, with a small deterministic velocity
static void start(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    gdn_data_reset(m, d);
    if (m->nkey > 0) {
        gdn_data_reset_keyframe(m, d, 0);
    }
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] += gdn_test_uniform(rng, -0.3, 0.3);
    }
}

// the rollout hash of one model under one solver and cone (status codes hashed too, so a
// refused step is part of the trajectory)
uint64_t gdn_golden_rollout_hash(gdnModel* m, int solver, int cone) {
    m->opt.solver = solver;
    m->opt.cone = cone;
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0;
    }
    unsigned long long rng = 0x243F6A8885A308D3ULL;
    start(m, d, &rng);
    uint64_t h = GDN_TEST_FNV_OFFSET;
    for (int k = 0; k < NSTEP; k++) {
        if (k % 50 == 0) {
            draw_ctrl(m, d, &rng);
        }
        const int status = (int)gdn_step(m, d);
        h = gdn_test_fnv1a(h, &status, sizeof(status));
        if (status != GDN_OK) {
            break;
        }
        h = gdn_test_fnv1a(h, d->qpos, sizeof(double) * (size_t)m->nq);
        h = gdn_test_fnv1a(h, d->qvel, sizeof(double) * (size_t)m->nv);
        if (m->na > 0) {
            h = gdn_test_fnv1a(h, d->act, sizeof(double) * (size_t)m->na);
        }
        h = gdn_test_fnv1a(h, d->qacc, sizeof(double) * (size_t)m->nv);
        h = gdn_test_fnv1a(h, &d->nefc, sizeof(d->nefc));
        h = gdn_test_fnv1a(h, d->efc_force, sizeof(double) * (size_t)d->nefc);
        h = gdn_test_fnv1a(h, d->efc_state, sizeof(int) * (size_t)d->nefc);
        h = gdn_test_fnv1a(h, &d->solver_iter, sizeof(d->solver_iter));
    }
    gdn_data_free(d);
    return h;
}

// the derivative hash of one model with constraints disabled (penalty models keep penalty):
// A and B, one JVP and one VJP with every channel at 5 states of a 100-step rollout, and a
// 60-step trajectory adjoint of the built-in target objective with every output
uint64_t gdn_golden_derivative_hash(gdnModel* m) {
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    const int nq = m->nq, nv = m->nv, nu = m->nu, np = m->nbody * GDN_N_INERTIA_PARAMS;
    const int nvert3 = 3 * m->nvert;
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0;
    }
    // x = (q, v, act): A is nx x nx, B nx x nu (na = 0: 2 nv)
    const int na = m->na, nx = 2 * nv + na;
    const size_t nbuf = (size_t)nx * (size_t)nx + (size_t)nx * (size_t)(nu + 1) +
                        8 * (size_t)(nq + nv + nu + np + nvert3 + 1) + 60 * (size_t)(nu + 1) +
                        4 * (size_t)(na + 1);
    double* buf = calloc(nbuf, sizeof(double));
    double* A = buf;
    double* B = A + nx * nx;
    double* ta = B + nx * (nu + 1); // the act tangent and its images (na + 1 each)
    double* oa = ta + na + 1;
    double* ga = oa + na + 1;
    double* tq = ga + na + 1;
    double* tv = tq + nv + 1;
    double* tu = tv + nv + 1;
    double* tp = tu + nu + 1;
    double* tx = tp + np + 1;
    double* oq = tx + nvert3 + 1;
    double* ov = oq + nq + nv + 1;
    double* ou = ov + nv + 1;
    double* op = ou + nu + 1;
    double* ox = op + np + 1;
    double* gctrl = ox + nvert3 + 1;
    unsigned long long rng = 0x13198A2E03707344ULL;
    start(m, d, &rng);
    uint64_t h = GDN_TEST_FNV_OFFSET;
    for (int k = 0; k < 100; k++) {
        if (k % 50 == 0) {
            draw_ctrl(m, d, &rng);
        }
        if (k % 20 == 0) {
            int status = (int)gdn_transition_jacobians(m, d, A, B);
            h = gdn_test_fnv1a(h, &status, sizeof(status));
            h = gdn_test_fnv1a(h, A, sizeof(double) * (size_t)nx * (size_t)nx);
            h = gdn_test_fnv1a(h, B, sizeof(double) * (size_t)nx * (size_t)nu);
            for (int i = 0; i < nv; i++) {
                tq[i] = gdn_test_uniform(&rng, -1, 1);
                tv[i] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int i = 0; i < nu; i++) {
                tu[i] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int i = 0; i < np; i++) {
                tp[i] = i < GDN_N_INERTIA_PARAMS ? 0 : gdn_test_uniform(&rng, -0.1, 0.1);
            }
            for (int i = 0; i < nvert3; i++) {
                tx[i] = gdn_test_uniform(&rng, -0.1, 0.1);
            }
            // (a model with activations: the act channels too)
            for (int i = 0; i < na; i++) {
                ta[i] = gdn_test_uniform(&rng, -1, 1);
            }
            status = na ? (int)gdn_step_jvp_act(m, d, tq, tv, ta, tu, tp, tx, oq, ov, oa)
                        : (int)gdn_step_jvp(m, d, tq, tv, tu, tp, tx, oq, ov);
            h = gdn_test_fnv1a(h, &status, sizeof(status));
            h = gdn_test_fnv1a(h, oq, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, ov, sizeof(double) * (size_t)nv);
            if (na) {
                h = gdn_test_fnv1a(h, oa, sizeof(double) * (size_t)na);
            }
            memset(op, 0, sizeof(double) * (size_t)np);
            memset(ox, 0, sizeof(double) * (size_t)nvert3);
            status = na ? (int)gdn_step_vjp_act(m, d, tq, tv, ta, oq, ov, ga, ou, op, ox)
                        : (int)gdn_step_vjp(m, d, tq, tv, oq, ov, ou, op, ox);
            h = gdn_test_fnv1a(h, &status, sizeof(status));
            if (na) {
                h = gdn_test_fnv1a(h, ga, sizeof(double) * (size_t)na);
            }
            h = gdn_test_fnv1a(h, oq, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, ov, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, ou, sizeof(double) * (size_t)nu);
            h = gdn_test_fnv1a(h, op, sizeof(double) * (size_t)np);
            h = gdn_test_fnv1a(h, ox, sizeof(double) * (size_t)nvert3);
        }
        if (gdn_step(m, d) != GDN_OK) {
            h = gdn_test_fnv1a(h, &k, sizeof(k));
            break;
        }
    }

    // trajectory adjoint from the rollout's final state, 60 steps, full tape and K = 7
    const int T = 60;
    double* ctrl = calloc((size_t)T * (size_t)(nu + 1), sizeof(double));
    for (int t = 0; t < T * nu; t++) {
        ctrl[t] = d->ctrl[t % (nu > 0 ? nu : 1)];
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = d->qpos;
    r.qvel0 = d->qvel;
    r.act0 = na ? d->act : NULL;
    r.ctrl = nu > 0 ? ctrl : NULL;
    gdnTargetObjective spec = {.body = m->nbody - 1, .point = {0.01, 0.02, 0.03},
                               .target = {0.1, 0.2, 0.3}, .weight = 1, .ctrl_weight = 1e-3,
                               .vel_weight = 1e-2};
    gdnObjective obj;
    if (gdn_objective_target(m, &spec, &obj) == GDN_OK) {
        for (int K = 1; K <= 7; K += 6) {
            gdnTape* tape = NULL;
            if (gdn_tape_create(m, T, K, &tape, NULL, 0) != GDN_OK) {
                continue;
            }
            memset(op, 0, sizeof(double) * (size_t)np);
            memset(ox, 0, sizeof(double) * (size_t)nvert3);
            gdnAdjointGradients out = {.qpos0 = oq, .qvel0 = ov, .ctrl = gctrl, .param = op,
                                       .vert = nvert3 ? ox : NULL, .act0 = na ? ga : NULL};
            const int status = (int)gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, NULL, 0);
            h = gdn_test_fnv1a(h, &status, sizeof(status));
            if (status == GDN_OK) {
                h = gdn_test_fnv1a(h, &out.J, sizeof(double));
                h = gdn_test_fnv1a(h, oq, sizeof(double) * (size_t)nv);
                h = gdn_test_fnv1a(h, ov, sizeof(double) * (size_t)nv);
                h = gdn_test_fnv1a(h, gctrl, sizeof(double) * (size_t)T * (size_t)nu);
                h = gdn_test_fnv1a(h, op, sizeof(double) * (size_t)np);
                h = gdn_test_fnv1a(h, ox, sizeof(double) * (size_t)nvert3);
                if (na) {
                    h = gdn_test_fnv1a(h, ga, sizeof(double) * (size_t)na);
                }
            }
            gdn_tape_free(tape);
        }
    }
    free(ctrl);
    free(buf);
    gdn_data_free(d);
    return h;
}


int gdn_golden_compute(const char* name, int integrator, uint64_t* hash) {
    const int solvers[3] = {GDN_SOL_NEWTON, GDN_SOL_CG, GDN_SOL_PGS};
    const int cones[2] = {GDN_CONE_PYRAMIDAL, GDN_CONE_ELLIPTIC};
    for (int k = 0; k < 7; k++) {
        gdnModel* m = gdn_golden_load(name);
        if (!m) {
            return 1;
        }
        m->opt.integrator = (gdnIntegrator)integrator;
        hash[k] = k < 6 ? gdn_golden_rollout_hash(m, solvers[k / 2], cones[k % 2])
                        : gdn_golden_derivative_hash(m);
        gdn_model_free(m);
    }
    return 0;
}

// the table under test (one per process) and its integrator
static const GoldenRow* g_rows;
static int g_integrator;

static int compute_row(const char* name, uint64_t* hash) {
    return gdn_golden_compute(name, g_integrator, hash);
}

static const char* committed_row(int i, uint64_t* hash) {
    memcpy(hash, g_rows[i].rollout, sizeof(g_rows[i].rollout));
    hash[6] = g_rows[i].derivative;
    return g_rows[i].model;
}

int gdn_golden_integrator_main(int argc, char** argv, int integrator, const char* name,
                               const char* what, const GoldenRow* rows, int nrow) {
    g_rows = rows;
    g_integrator = integrator;
    const gdnTestGolden table = {gdn_golden_models, gdn_golden_nmodels, nrow, 7, what,
                                 compute_row, committed_row};
    return gdn_test_golden_main(argc, argv, name, &table);
}
