// SPDX-License-Identifier: Apache-2.0
// Trajectory-adjoint plumbing without the step VJP: validation, tape, checkpoints, primal.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/skins.h"
#include "runner/models.h"
#include "runner/test.h"

// a running cost in qpos coordinates: l = sum_i a_i qpos_i^2 + b_i qvel_i + c_k u_k^2
static gdnStatus running_quad(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)t;
    (void)user;
    double l = 0;
    for (int i = 0; i < m->nq; i++) {
        double a = 0.1 + 0.01 * i;
        l += a * s->qpos[i] * s->qpos[i];
        if (gq) {
            gq[i] = 2 * a * s->qpos[i];
        }
    }
    for (int i = 0; i < m->nv; i++) {
        double b = 0.05 - 0.003 * i;
        l += b * s->qvel[i];
        if (gv) {
            gv[i] = b;
        }
    }
    for (int k = 0; k < m->nu; k++) {
        l += 0.02 * s->ctrl[k] * s->ctrl[k];
        if (gu) {
            gu[k] = 0.04 * s->ctrl[k];
        }
    }
    *value = l;
    return GDN_OK;
}

// terminal cost: g = sum_i w_i qpos_i + 0.5 |qvel|^2
static gdnStatus terminal_lin(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)t;
    (void)user;
    (void)gu;
    double g = 0;
    for (int i = 0; i < m->nq; i++) {
        double w = 1 - 0.07 * i;
        g += w * s->qpos[i];
        if (gq) {
            gq[i] = w;
        }
    }
    for (int i = 0; i < m->nv; i++) {
        g += 0.5 * s->qvel[i] * s->qvel[i];
        if (gv) {
            gv[i] = s->qvel[i];
        }
    }
    *value = g;
    return GDN_OK;
}

static gdnStatus failing_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)m, (void)s, (void)user, (void)gq, (void)gv, (void)gu;
    *value = 0;
    return t == 3 ? GDN_ERR_ARG : GDN_OK;
}

static void random_controls(unsigned long long* rng, double* u, int n, double amp) {
    for (int i = 0; i < n; i++) {
        u[i] = gdn_test_uniform(rng, -amp, amp);
    }
}

// <g, q> for a qpos-coordinate gradient at q (+) eps e_k, central FD vs the tangent map
static int tangent_map_on(const char* name) {
    gdnModel* m = gdn_test_load_model_as_is(name);
    CHECK(m);
    const int nq = m->nq, nv = m->nv;
    double* q = malloc(sizeof(double) * (size_t)(4 * nq + 3 * nv));
    double* g = q + nq;
    double* qp = g + nq;
    double* qm = qp + nq;
    double* e = qm + nq;
    double* gt = e + nv;
    double* fd = gt + nv;
    unsigned long long rng = 7;
    for (int trial = 0; trial < 5; trial++) {
        memcpy(q, m->qpos0, sizeof(double) * (size_t)nq);
        for (int i = 0; i < nv; i++) {
            e[i] = gdn_test_uniform(&rng, -1, 1);
        }
        gdn_integrate_pos(m, q, e, 1.0);
        for (int i = 0; i < nq; i++) {
            g[i] = gdn_test_uniform(&rng, -1, 1);
        }
        gdn_qpos_grad_to_tangent(m, q, g, gt);
        const double eps = 1e-5;
        for (int k = 0; k < nv; k++) {
            memset(e, 0, sizeof(double) * (size_t)nv);
            e[k] = 1;
            memcpy(qp, q, sizeof(double) * (size_t)nq);
            memcpy(qm, q, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, qp, e, eps);
            gdn_integrate_pos(m, qm, e, -eps);
            double fp = 0, fm = 0;
            for (int i = 0; i < nq; i++) {
                fp += g[i] * qp[i];
                fm += g[i] * qm[i];
            }
            fd[k] = (fp - fm) / (2 * eps);
        }
        CHECK_ARRAY_REL(gt, fd, nv, 1e-8, 1e-3);
    }
    free(q);
    gdn_model_free(m);
    return 0;
}

static int test_tangent_map(void) {
    CHECK(tangent_map_on("ball_chain.xml") == 0);
    CHECK(tangent_map_on("humanoid32.xml") == 0);
    CHECK(tangent_map_on("adj_free_leg.xml") == 0);
    return 0;
}

// The rollout recorded on the tape is a plain gdn_step loop, bit for bit (penalty contact on,
// free root, damping, springs), with a full tape and with checkpointing
static int test_forward_bit_identical(void) {
    gdnModel* m = gdn_test_load_model_as_is("humanoid32.xml");
    CHECK(m);
    CHECK(gdn_test_add_skins_and_penalty(m, 0.01, 5000, 50));
    CHECK(m->nvert > 0);
    const int T = 120, nq = m->nq, nv = m->nv, nu = m->nu;
    double* u = malloc(sizeof(double) * (size_t)(T * nu + 2 * nq + 2 * nv));
    double* q0 = u + T * nu;
    double* v0 = q0 + nq;
    double* qt = v0 + nv;
    double* vt = qt + nq;
    unsigned long long rng = 11;
    random_controls(&rng, u, T * nu, 0.8);
    memcpy(q0, m->qpos0, sizeof(double) * (size_t)nq);
    for (int i = 0; i < nv; i++) {
        v0[i] = gdn_test_uniform(&rng, -0.5, 0.5);
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = u;
    gdnObjective obj = {{terminal_lin, NULL, 0}, {running_quad, NULL, 0}};

    gdnTape* full = NULL;
    gdnTape* ck = NULL;
    char err[256];
    CHECK(gdn_tape_create(m, T, 1, &full, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_create(m, T, 7, &ck, err, sizeof(err)) == GDN_OK);
    double J1, J2;
    CHECK(gdn_rollout_objective(m, &r, &obj, full, &J1, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_rollout_objective(m, &r, &obj, ck, &J2, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(&J1, &J2, sizeof(double)) == 0);

    // reference: gdn_step from x_0 = qpos0 with quaternions normalized
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    gdn_normalize_quat(m, d->qpos);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    double Jref = 0;
    int contacts = 0;
    for (int t = 0; t <= T; t++) {
        CHECK(gdn_tape_state(full, t, qt, vt) == GDN_OK);
        CHECK(memcmp(qt, d->qpos, sizeof(double) * (size_t)nq) == 0);
        CHECK(memcmp(vt, d->qvel, sizeof(double) * (size_t)nv) == 0);
        if (t % 7 == 0 || t == T) {
            CHECK(gdn_tape_state(ck, t, qt, vt) == GDN_OK);
            CHECK(memcmp(qt, d->qpos, sizeof(double) * (size_t)nq) == 0);
            CHECK(memcmp(vt, d->qvel, sizeof(double) * (size_t)nv) == 0);
        } else {
            CHECK(gdn_tape_state(ck, t, qt, vt) == GDN_ERR_ARG);
        }
        if (t == T) {
            break;
        }
        memcpy(d->ctrl, u + t * nu, sizeof(double) * (size_t)nu);
        CHECK(gdn_step(m, d) == GDN_OK);
        contacts += d->nvert_active;
    }
    printf("  humanoid32 + penalty: %d steps bit-identical to gdn_step, %d vertex contacts\n", T,
           contacts);
    CHECK(contacts > 0);
    (void)Jref;

    // two runs bit-identical
    double J3;
    CHECK(gdn_rollout_objective(m, &r, &obj, full, &J3, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(&J1, &J3, sizeof(double)) == 0);

    gdn_data_free(d);
    gdn_tape_free(full);
    gdn_tape_free(ck);
    free(u);
    gdn_model_free(m);
    return 0;
}

// J = sum_t l(x_t, u_t) + g(x_T) summed in time order, from the recorded states
static int test_objective_value(void) {
    gdnModel* m = gdn_test_load_model_as_is("adj_free_leg.xml");
    CHECK(m);
    const int T = 50, nq = m->nq, nv = m->nv, nu = m->nu;
    double u[50], q0[8], v0[7], qt[8], vt[7];
    unsigned long long rng = 5;
    random_controls(&rng, u, T * nu, 1);
    memcpy(q0, m->qpos0, sizeof(q0));
    for (int i = 0; i < nv; i++) {
        v0[i] = gdn_test_uniform(&rng, -1, 1);
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = u;
    gdnObjective obj = {{terminal_lin, NULL, 0}, {running_quad, NULL, 0}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    double J;
    char err[256];
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J, err, sizeof(err)) == GDN_OK);
    gdnData* s = NULL;
    CHECK(gdn_data_create(m, &s) == GDN_OK);
    double sum = 0, value;
    for (int t = 0; t < T; t++) {
        CHECK(gdn_tape_state(tape, t, s->qpos, s->qvel) == GDN_OK);
        memcpy(s->ctrl, u + t * nu, sizeof(double) * (size_t)nu);
        CHECK(running_quad(m, s, t, NULL, &value, NULL, NULL, NULL) == GDN_OK);
        sum += value;
    }
    CHECK(gdn_tape_state(tape, T, qt, vt) == GDN_OK);
    memcpy(s->qpos, qt, sizeof(qt));
    memcpy(s->qvel, vt, sizeof(vt));
    CHECK(terminal_lin(m, s, T, NULL, &value, NULL, NULL, NULL) == GDN_OK);
    sum += value;
    CHECK(memcmp(&sum, &J, sizeof(double)) == 0);
    (void)nq;
    gdn_data_free(s);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

// the built-in objective's terminal gradient (tangent, from gdn_jac) vs central FD
static int test_target_objective(void) {
    gdnModel* m = gdn_test_load_model_as_is("humanoid32.xml");
    CHECK(m);
    const int nq = m->nq, nv = m->nv;
    gdnTargetObjective spec = {0};
    spec.body = m->nbody - 1;
    spec.point[0] = 0.03;
    spec.point[2] = -0.05;
    spec.target[0] = 0.4;
    spec.target[1] = -0.2;
    spec.target[2] = 0.9;
    spec.weight = 2;
    spec.ctrl_weight = 0.1;
    spec.vel_weight = 0.3;
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    CHECK(obj.terminal.grad_tangent == 1 && obj.running.fn != NULL);
    gdnData* s = NULL;
    CHECK(gdn_data_create(m, &s) == GDN_OK);
    double* q = malloc(sizeof(double) * (size_t)(nq + 4 * nv));
    double* e = q + nq;
    double* gq = e + nv;
    double* gv = gq + nv;
    double* fd = gv + nv;
    unsigned long long rng = 3;
    memcpy(q, m->qpos0, sizeof(double) * (size_t)nq);
    for (int i = 0; i < nv; i++) {
        e[i] = gdn_test_uniform(&rng, -0.5, 0.5);
        s->qvel[i] = gdn_test_uniform(&rng, -1, 1);
    }
    gdn_integrate_pos(m, q, e, 1.0);
    double value;
    memcpy(s->qpos, q, sizeof(double) * (size_t)nq);
    CHECK(obj.terminal.fn(m, s, 10, obj.terminal.user, &value, gq, gv, NULL) == GDN_OK);
    for (int k = 0; k < nv; k++) {
        double f[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            memset(e, 0, sizeof(double) * (size_t)nv);
            e[k] = 1;
            memcpy(s->qpos, q, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, s->qpos, e, sgn ? -1e-6 : 1e-6);
            CHECK(obj.terminal.fn(m, s, 10, obj.terminal.user, &f[sgn], NULL, NULL, NULL) ==
                  GDN_OK);
        }
        fd[k] = (f[0] - f[1]) / 2e-6;
    }
    CHECK_ARRAY_REL(gq, fd, nv, 1e-7, 1e-6);
    for (int i = 0; i < nv; i++) {
        CHECK(gv[i] == 2 * 0.3 * s->qvel[i]);
    }
    // bad specs
    spec.body = 0;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_ERR_ARG);
    spec.body = 1;
    spec.weight = NAN;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_ERR_ARG);
    free(q);
    gdn_data_free(s);
    gdn_model_free(m);
    return 0;
}

// every error path returns a status and a message, never crashes
static int test_errors(void) {
    gdnModel* m = gdn_test_load_model_as_is("adj_free_leg.xml");
    CHECK(m);
    const int T = 20, nq = m->nq, nv = m->nv, nu = m->nu;
    double u[20], q0[8], v0[7];
    memset(u, 0, sizeof(u));
    memcpy(q0, m->qpos0, sizeof(q0));
    memset(v0, 0, sizeof(v0));
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = u;
    gdnObjective obj = {{terminal_lin, NULL, 0}, {running_quad, NULL, 0}};
    gdnTape* tape = NULL;
    char err[256];
    CHECK(gdn_tape_create(m, T, 1, &tape, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_bytes_per_step(tape) == sizeof(double) * (size_t)(nq + 2 * nv));
    double J;
#define EXPECT(status, substring)                                                        \
    do {                                                                                 \
        err[0] = '\0';                                                                   \
        CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J, err, sizeof(err)) == status); \
        CHECK(isnan(J));                                                                 \
        if (!strstr(err, substring)) {                                                   \
            fprintf(stderr, "message '%s' lacks '%s'\n", err, substring);                \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

    // NaN in q0, v0, u, applied forces
    q0[2] = NAN;
    EXPECT(GDN_ERR_NONFINITE, "qpos0[2]");
    q0[2] = m->qpos0[2];
    v0[4] = INFINITY;
    EXPECT(GDN_ERR_NONFINITE, "qvel0[4]");
    v0[4] = 0;
    u[13] = NAN;
    EXPECT(GDN_ERR_NONFINITE, "step 13");
    u[13] = 0;
    double qfrc[7] = {0, 0, 0, 0, 0, 0, NAN};
    r.qfrc_applied = qfrc;
    EXPECT(GDN_ERR_NONFINITE, "qfrc_applied[6]");
    r.qfrc_applied = NULL;
    // wrong sizes
    r.nv = nv + 1;
    EXPECT(GDN_ERR_ARG, "differ from the model");
    r.nv = nv;
    r.nu = nu + 2;
    EXPECT(GDN_ERR_ARG, "differ from the model");
    r.nu = nu;
    // T <= 0, T beyond the tape
    r.nstep = 0;
    EXPECT(GDN_ERR_ARG, "positive");
    r.nstep = -3;
    EXPECT(GDN_ERR_ARG, "positive");
    r.nstep = T + 1;
    EXPECT(GDN_ERR_ARG, "max_steps");
    r.nstep = T;
    // quaternion off unit norm beyond the tolerance; within it: normalized and accepted
    q0[3] *= 1 + 1e-4;
    EXPECT(GDN_ERR_ARG, "norm");
    memcpy(q0, m->qpos0, sizeof(q0));
    for (int i = 3; i < 7; i++) {
        q0[i] *= 1 + 5e-7;
    }
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J, err, sizeof(err)) == GDN_OK);
    double x0[8];
    CHECK(gdn_tape_state(tape, 0, x0, NULL) == GDN_OK);
    CHECK(fabs(x0[3] * x0[3] + x0[4] * x0[4] + x0[5] * x0[5] + x0[6] * x0[6] - 1) < 1e-15);
    memcpy(q0, m->qpos0, sizeof(q0));
    // NULL arguments
    CHECK(gdn_rollout_objective(NULL, &r, &obj, tape, &J, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_rollout_objective(m, NULL, &obj, tape, &J, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_rollout_objective(m, &r, &obj, NULL, &J, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, NULL, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J, NULL, 0) == GDN_OK);
    r.ctrl = NULL;
    EXPECT(GDN_ERR_ARG, "NULL");
    r.ctrl = u;
    gdnObjective none = {{NULL, NULL, 0}, {NULL, NULL, 0}};
    CHECK(gdn_rollout_objective(m, &r, &none, tape, &J, err, sizeof(err)) == GDN_ERR_ARG);
    // a failing callback names the step
    gdnObjective bad = {{NULL, NULL, 0}, {failing_cost, NULL, 0}};
    CHECK(gdn_rollout_objective(m, &r, &bad, tape, &J, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "step 3") != NULL);
    // a step that blows up mid-rollout: the control at step 7 overflows the acceleration
    u[7] = 1e308;
    EXPECT(GDN_ERR_NONFINITE, "step 7");
    CHECK(gdn_tape_state(tape, 0, NULL, NULL) == GDN_ERR_ARG);
    u[7] = 0;
    // a tape made for another model shape
    gdnModel* other = gdn_test_load_model_as_is("pendulum.xml");
    CHECK(other);
    gdnTape* tape2 = NULL;
    CHECK(gdn_tape_create(other, T, 1, &tape2, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_rollout_objective(m, &r, &obj, tape2, &J, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "tape") != NULL);
    // tape creation errors
    gdnTape* t3 = (gdnTape*)&J;
    CHECK(gdn_tape_create(m, 0, 1, &t3, err, sizeof(err)) == GDN_ERR_ARG && t3 == NULL);
    CHECK(gdn_tape_create(m, 10, -1, &t3, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_tape_create(NULL, 10, 1, &t3, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_tape_bytes_per_step(NULL) == 0);
    gdn_tape_free(NULL);
#undef EXPECT
    gdn_tape_free(tape2);
    gdn_model_free(other);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

// memory: the full tape stores (nq + 2 nv) doubles per step (the state and its integrated
// acceleration); checkpointing O(T/K + K) of them, plus the final state and, with K > 1, a warm
// start (nv) per checkpoint; every record slot adds the solve reserve (default options)
static int test_tape_memory(void) {
    gdnModel* m = gdn_test_load_model_as_is("/usr/share/mujoco/model/humanoid/humanoid.xml");
    CHECK(m);
    const int T = 1000;
    const size_t stride = sizeof(double) * (size_t)(m->nq + 2 * m->nv);
    const size_t final = sizeof(double) * (size_t)(m->nq + m->nv);
    int Ks[] = {1, 10, 32, 100};
    for (int i = 0; i < 4; i++) {
        gdnTape* tape = NULL;
        gdnTapeOptions opt;
        gdn_tape_options_init(m, T, Ks[i], &opt);
        CHECK(opt.solve_bytes_per_step ==
              gdn_tape_solve_bytes(m, 4 * m->nbody, 16 * m->nbody + 2 * m->nv, 0));
        CHECK(gdn_tape_create(m, T, Ks[i], &tape, NULL, 0) == GDN_OK);
        CHECK(gdn_tape_bytes_per_step(tape) == stride);
        size_t ncheck = (size_t)((T + Ks[i] - 1) / Ks[i]);
        size_t states = ncheck + (size_t)(Ks[i] - 1);
        size_t warm = Ks[i] > 1 ? ncheck * sizeof(double) * (size_t)m->nv : 0;
        size_t reserve = states * opt.solve_bytes_per_step;
        CHECK(gdn_tape_state_bytes(tape) == states * stride + warm + final + reserve);
        CHECK(gdn_tape_bytes_used(tape) == gdn_tape_state_bytes(tape) - reserve);
        printf("  humanoid.xml T = %d, K = %3d: %zu bytes per state, %zu bytes of states, "
               "%zu of them the solve reserve\n",
               T, Ks[i], stride, gdn_tape_state_bytes(tape), reserve);
        gdn_tape_free(tape);
    }
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"tangent_map", test_tangent_map},
    {"forward_bit_identical", test_forward_bit_identical},
    {"objective_value", test_objective_value},
    {"target_objective", test_target_objective},
    {"errors", test_errors},
    {"tape_memory", test_tape_memory},
};

GDN_TEST_MAIN(cases)
