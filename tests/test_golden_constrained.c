// SPDX-License-Identifier: Apache-2.0
// Golden hashes of the derivatives through the constraint solve: on every constrained test
// model under Newton, CG and PGS with both cones, A, B, a JVP and a VJP with every channel at
// 4 states of a 60-step rollout, then a 40-step trajectory adjoint with every output (statuses
// and the derivative reports hashed too, so a refusal is part of the path).
//
// The hashes must be the same at -O0, -O2 and under sanitizers (-ffp-contract=off, no
// fast-math, inputs from integer arithmetic). `test_golden_constrained --print` prints the
// table from the current code; a change that alters the arithmetic updates it with a note.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "runner/golden.h"
#include "runner/models.h"
#include "runner/test.h"

static const char* const kModels[] = {
    "cnstr_arm_motor", "cnstr_box",   "cnstr_fourbar",  "cnstr_frictionloss", "cnstr_pendulum",
    "cnstr_sphere",    "cnstr_weld",  "dcon_pairs",     "scene_drop_box",     "scene_tip",
    "sol_fourbar",     "sol_stack",   "tangent_box_scene", "tendon_fixed", "tendon_spatial",
    "tendon_wrap",
};
#define NMODEL ((int)(sizeof(kModels) / sizeof(kModels[0])))

typedef struct GoldenRow {
    const char* model;
    uint64_t path[6]; // Newton, CG, PGS x pyramidal, elliptic
} GoldenRow;

#include "golden_constrained_table.h"

static uint64_t hash_report(uint64_t h, const gdnData* d) {
    h = gdn_test_fnv1a(h, &d->deriv_flags, sizeof(d->deriv_flags));
    h = gdn_test_fnv1a(h, &d->deriv_state_margin, sizeof(double));
    return gdn_test_fnv1a(h, &d->deriv_activation_margin, sizeof(double));
}

static uint64_t path_hash(gdnModel* m, int solver, int cone) {
    m->opt.solver = solver;
    m->opt.cone = cone;
    const int nv = m->nv, nu = m->nu, np = m->nbody * GDN_N_INERTIA_PARAMS, n = 2 * nv;
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0;
    }
    // A, B; tq, tv, oq, ov, gq, gv (nv); tp, gp (np); tu, gu (nu + 1); gctrl, ctrl (40 nu)
    double* buf = calloc((size_t)(n * n + n * (nu + 1) + 6 * nv + 2 * np + 82 * (nu + 1)),
                         sizeof(double));
    double *A = buf, *B = A + n * n, *tq = B + n * (nu + 1), *tv = tq + nv, *oq = tv + nv;
    double *ov = oq + nv, *gq = ov + nv, *gv = gq + nv, *tp = gv + nv, *gp = tp + np;
    double *tu = gp + np, *gu = tu + nu + 1, *gctrl = gu + nu + 1;
    unsigned long long rng = 0xA4093822299F31D0ULL;
    for (int i = 0; i < nv; i++) {
        d->qvel[i] = gdn_test_uniform(&rng, -0.3, 0.3);
    }
    uint64_t h = GDN_TEST_FNV_OFFSET;
    for (int k = 0; k < 60; k++) {
        if (k % 15 == 14) {
            int st = (int)gdn_transition_jacobians(m, d, A, B);
            h = gdn_test_fnv1a(h, &st, sizeof(st));
            h = gdn_test_fnv1a(h, A, sizeof(double) * (size_t)(n * n));
            h = gdn_test_fnv1a(h, B, sizeof(double) * (size_t)(n * nu));
            h = hash_report(h, d);
            for (int i = 0; i < nv; i++) {
                tq[i] = gdn_test_uniform(&rng, -1, 1);
                tv[i] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int i = 0; i < nu; i++) {
                tu[i] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int i = 0; i < np; i++) {
                tp[i] = i < GDN_N_INERTIA_PARAMS ? 0 : gdn_test_uniform(&rng, -0.01, 0.01);
            }
            st = (int)gdn_step_jvp(m, d, tq, tv, nu ? tu : NULL, tp, NULL, oq, ov);
            h = gdn_test_fnv1a(h, &st, sizeof(st));
            h = gdn_test_fnv1a(h, oq, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, ov, sizeof(double) * (size_t)nv);
            memset(gp, 0, sizeof(double) * (size_t)np);
            st = (int)gdn_step_vjp(m, d, tq, tv, gq, gv, nu ? gu : NULL, gp, NULL);
            h = gdn_test_fnv1a(h, &st, sizeof(st));
            h = gdn_test_fnv1a(h, gq, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, gv, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, gu, sizeof(double) * (size_t)nu);
            h = gdn_test_fnv1a(h, gp, sizeof(double) * (size_t)np);
            h = hash_report(h, d);
        }
        if (gdn_step(m, d) != GDN_OK) {
            h = gdn_test_fnv1a(h, &k, sizeof(k));
            break;
        }
    }
    // the trajectory adjoint from there, every output
    const int T = 40;
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    for (int t = 0; t < T * nu; t++) {
        gctrl[t] = 0.1 * (double)((t % 7) - 3);
    }
    double* ctrl = gctrl + T * nu;
    memcpy(ctrl, gctrl, sizeof(double) * (size_t)(T * nu));
    r.qpos0 = d->qpos;
    r.qvel0 = d->qvel;
    r.ctrl = nu > 0 ? ctrl : NULL;
    gdnTargetObjective spec = {.body = m->nbody - 1, .point = {0.01, 0.02, 0.03},
                               .target = {0.1, 0.2, 0.3}, .weight = 1, .ctrl_weight = 1e-3,
                               .vel_weight = 1e-2};
    gdnObjective obj;
    gdnTape* tape = NULL;
    if (gdn_objective_target(m, &spec, &obj) == GDN_OK &&
        gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK) {
        memset(gp, 0, sizeof(double) * (size_t)np);
        gdnAdjointGradients out = {.qpos0 = oq, .qvel0 = ov, .ctrl = gctrl, .param = gp};
        const int st = (int)gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, NULL, 0);
        h = gdn_test_fnv1a(h, &st, sizeof(st));
        if (st == GDN_OK) {
            h = gdn_test_fnv1a(h, &out.J, sizeof(double));
            h = gdn_test_fnv1a(h, oq, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, ov, sizeof(double) * (size_t)nv);
            h = gdn_test_fnv1a(h, gctrl, sizeof(double) * (size_t)(T * nu));
            h = gdn_test_fnv1a(h, gp, sizeof(double) * (size_t)np);
        }
        gdn_tape_free(tape);
    }
    free(buf);
    gdn_data_free(d);
    return h;
}

// the model's six hashes (Newton, CG, PGS x pyramidal, elliptic)
static int compute(const char* name, uint64_t* hash) {
    const int solvers[3] = {GDN_SOL_NEWTON, GDN_SOL_CG, GDN_SOL_PGS};
    for (int s = 0; s < 3; s++) {
        for (int c = 0; c < 2; c++) {
            char file[256];
            snprintf(file, sizeof(file), "%s.xml", name);
            gdnModel* m = gdn_test_load_model_as_is(file);
            if (!m) {
                return 1;
            }
            hash[2 * s + c] = path_hash(m, solvers[s], c);
            gdn_model_free(m);
        }
    }
    return 0;
}

// committed row i
static const char* committed(int i, uint64_t* hash) {
    memcpy(hash, kGolden[i].path, sizeof(kGolden[i].path));
    return kGolden[i].model;
}

static const gdnTestGolden kTable = {kModels, NMODEL, (int)(sizeof(kGolden) / sizeof(kGolden[0])),
                                     6, "6 constrained derivative paths", compute, committed};

int main(int argc, char** argv) {
    return gdn_test_golden_main(argc, argv, "golden_constrained", &kTable);
}
