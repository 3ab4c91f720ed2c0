// SPDX-License-Identifier: Apache-2.0
// The batch calls' full state and sensors (gdn_rollout_batch_full, gdn_adjoint_batch_full, the
// pool variants): act0 / act / sensordata equal the serial gdn_step loop bit for bit at every
// thread count, sensordata follows MuJoCo 2.2.2's mj_step, dJ/dact0 equals the single-rollout
// adjoint and central differences, act and sensor cotangents vs central differences, refusals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/batch.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>
#include <mujoco/mujoco.h>

#include "batch/workspace.h"
#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/test.h"

// Tolerances. Sensors vs MuJoCo, relative to max(|MuJoCo's value|_inf, 1) per sensor, those of
// tests/test_sensors.c: position and velocity stage 1e-12 (closed forms of the kinematics),
// acceleration stage 1e-8 (the solvers' shared tolerance). act after one step vs mj_step:
// 1e-12 (act_dot is a closed form, bit-equal at random states in test_activation.c).
// Central differences (relative to max(|analytic|, |fd|, 1e-6)): 1e-6, the bound
// test_sensors.c and test_activation.c use for rollouts of 40 to 100 steps; eps 1e-6, and
// 3e-6 for dJ/dact0 (components of 3e-4 to 2: at 1e-6 the differences' round-off reaches
// 1e-7 relative; the truncation is O(eps^2), 8.9e-6 at 1e-4 and 8.9e-8 at 1e-5 on act_arm's
// stiffest muscle component).
#define TOL_POSVEL 1e-12
#define TOL_ACC 1e-8
#define TOL_ACT 1e-12
#define TOL_FD 1e-6
#define FD_EPS 1e-6
#define FD_EPS_ACT 3e-6

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREAD_COUNTS 4

// ---------------------------------------------------------------- inputs and references

// a batch's inputs: qpos0 around the model's, qvel0, act0 and ctrl uniform
typedef struct state_inputs {
    int nbatch, T;
    double *qpos0, *qvel0, *act0, *ctrl;
} state_inputs;

static void inputs_make(const gdnModel* m, int nbatch, int T, unsigned long long seed,
                        state_inputs* in) {
    unsigned long long rng = seed;
    in->nbatch = nbatch;
    in->T = T;
    in->qpos0 = malloc(sizeof(double) * (size_t)(nbatch * m->nq + 1));
    in->qvel0 = malloc(sizeof(double) * (size_t)(nbatch * m->nv + 1));
    in->act0 = malloc(sizeof(double) * (size_t)(nbatch * m->na + 1));
    in->ctrl = malloc(sizeof(double) * (size_t)(nbatch * T * m->nu + 1));
    for (int b = 0; b < nbatch; b++) {
        // hinge / slide qpos0 perturbed; quaternions kept unit
        memcpy(in->qpos0 + b * m->nq, m->qpos0, sizeof(double) * (size_t)m->nq);
        for (int j = 0; j < m->njnt; j++) {
            if (m->jnt_type[j] == GDN_JNT_HINGE || m->jnt_type[j] == GDN_JNT_SLIDE) {
                in->qpos0[b * m->nq + m->jnt_qposadr[j]] += gdn_test_uniform(&rng, -0.2, 0.2);
            }
        }
        for (int i = 0; i < m->nv; i++) {
            in->qvel0[b * m->nv + i] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
        // inside every actrange and the muscles' [0, 1]
        for (int i = 0; i < m->na; i++) {
            in->act0[b * m->na + i] = gdn_test_uniform(&rng, 0.1, 0.4);
        }
    }
    for (int i = 0; i < nbatch * T * m->nu; i++) {
        in->ctrl[i] = gdn_test_uniform(&rng, 0.05, 0.6);
    }
}

static void inputs_free(state_inputs* in) {
    free(in->qpos0);
    free(in->qvel0);
    free(in->act0);
    free(in->ctrl);
}

// the outputs of one rollout call (or of the serial references)
typedef struct state_outputs {
    double *qpos, *qvel, *act, *sens;
    int* ncon;
    gdnBatchStatus* status;
    size_t nq_bytes, nv_bytes, na_bytes, ns_bytes, nc_bytes;
} state_outputs;

static void outputs_alloc(const gdnModel* m, int nbatch, int T, state_outputs* o) {
    const size_t rows = (size_t)nbatch * (size_t)(T + 1);
    o->nq_bytes = sizeof(double) * rows * (size_t)m->nq;
    o->nv_bytes = sizeof(double) * rows * (size_t)m->nv;
    o->na_bytes = sizeof(double) * rows * (size_t)m->na;
    o->ns_bytes = sizeof(double) * (size_t)nbatch * (size_t)T * (size_t)m->nsensordata;
    o->nc_bytes = sizeof(int) * rows;
    o->qpos = malloc(o->nq_bytes + 8);
    o->qvel = malloc(o->nv_bytes + 8);
    o->act = malloc(o->na_bytes + 8);
    o->sens = malloc(o->ns_bytes + 8);
    o->ncon = malloc(o->nc_bytes + 8);
    o->status = malloc(sizeof(gdnBatchStatus) * (size_t)nbatch);
}

static void outputs_free(state_outputs* o) {
    free(o->qpos);
    free(o->qvel);
    free(o->act);
    free(o->sens);
    free(o->ncon);
    free(o->status);
}

// the reference of entry b: a gdn_step loop on a fresh gdnData with d->act = act0 (NULL: the
// reset's zeros), recording x_t and each step's sensordata. 0, or 1 on a failure
static int serial_entry(const gdnModel* m, const state_inputs* in, int b, int with_act0,
                        state_outputs* ref) {
    const int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu, ns = m->nsensordata, T = in->T;
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 1;
    }
    double* qpos = ref->qpos + (size_t)b * (size_t)(T + 1) * (size_t)nq;
    double* qvel = ref->qvel + (size_t)b * (size_t)(T + 1) * (size_t)nv;
    double* act = ref->act + (size_t)b * (size_t)(T + 1) * (size_t)na;
    double* sens = ref->sens + (size_t)b * (size_t)T * (size_t)ns;
    int* ncon = ref->ncon + (size_t)b * (size_t)(T + 1);
    memcpy(d->qpos, in->qpos0 + b * nq, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, in->qvel0 + b * nv, sizeof(double) * (size_t)nv);
    if (with_act0) {
        memcpy(d->act, in->act0 + b * na, sizeof(double) * (size_t)na);
    }
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)nv);
    memcpy(act, d->act, sizeof(double) * (size_t)na);
    int fail = 0;
    // the steps: row t + 1 of the state, row t of the sensors
    for (int t = 0; t < T && !fail; t++) {
        memcpy(d->ctrl, in->ctrl + ((size_t)b * (size_t)T + (size_t)t) * (size_t)nu,
               sizeof(double) * (size_t)nu);
        if (gdn_step(m, d) != GDN_OK) {
            fail = 1;
            break;
        }
        ncon[t] = d->ncon;
        memcpy(qpos + (size_t)(t + 1) * (size_t)nq, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(qvel + (size_t)(t + 1) * (size_t)nv, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(act + (size_t)(t + 1) * (size_t)na, d->act, sizeof(double) * (size_t)na);
        memcpy(sens + (size_t)t * (size_t)ns, d->sensordata, sizeof(double) * (size_t)ns);
    }
    if (!fail) {
        ncon[T] = gdn_forward(m, d) == GDN_OK ? d->ncon : -1;
    }
    gdn_data_free(d);
    return fail;
}

// 1 unless every entry of a call reported GDN_OK
static int entries_failed(const gdnBatchStatus* status, int nbatch, const char* label) {
    int fail = 0;
    for (int b = 0; b < nbatch; b++) {
        if (status[b].status != GDN_OK || status[b].step != -1) {
            fprintf(stderr, "%s: entry %d: %s\n", label, b, status[b].message);
            fail = 1;
        }
    }
    return fail;
}

// 1 unless out equals ref in every array, bit for bit
static int outputs_differ(const state_outputs* out, const state_outputs* ref) {
    return memcmp(out->qpos, ref->qpos, ref->nq_bytes) != 0 ||
           memcmp(out->qvel, ref->qvel, ref->nv_bytes) != 0 ||
           memcmp(out->act, ref->act, ref->na_bytes) != 0 ||
           memcmp(out->sens, ref->sens, ref->ns_bytes) != 0 ||
           memcmp(out->ncon, ref->ncon, ref->nc_bytes) != 0;
}

// ---------------------------------------------------------------- rollouts vs the serial loop

// gdn_rollout_batch_full == the serial loop (act0 given and NULL) at nthread 1, 2, 3, 7 and on
// a pool over repeated calls (which allocate nothing after the first); gdn_rollout_batch's
// qpos / qvel equal the act0 = NULL call's
static int rollout_case(const char* file, int as_is, int nbatch, int T) {
    gdnModel* m = as_is ? gdn_test_load_model_as_is(file) : gdn_test_load_model(file);
    CHECK(m);
    state_inputs in;
    inputs_make(m, nbatch, T, 0x5eed + (unsigned long long)T, &in);
    const gdnModel* ms[1] = {m};
    state_outputs ref, out;
    outputs_alloc(m, nbatch, T, &ref);
    outputs_alloc(m, nbatch, T, &out);
    int fail = 0;
    char err[256];
    int nonzero_sens = 0, nonzero_act = 0;
    for (int with_act0 = 1; with_act0 >= 0 && !fail; with_act0--) {
        for (int b = 0; b < nbatch; b++) {
            fail |= serial_entry(m, &in, b, with_act0, &ref);
        }
        const double* a0 = with_act0 ? in.act0 : NULL;
        // the one-shot call at every thread count
        for (int k = 0; k < NTHREAD_COUNTS && !fail; k++) {
            memset(out.sens, 0xab, ref.ns_bytes);
            memset(out.act, 0xab, ref.na_bytes);
            gdnStatus st = gdn_rollout_batch_full(ms, 1, nbatch, T, in.qpos0, in.qvel0, a0,
                                                  in.ctrl, thread_counts[k], out.qpos, out.qvel,
                                                  out.act, out.sens, out.ncon, out.status, err,
                                                  sizeof(err));
            if (st != GDN_OK) {
                fprintf(stderr, "%s: %s\n", file, err);
                fail = 1;
                break;
            }
            fail |= entries_failed(out.status, nbatch, file);
            if (outputs_differ(&out, &ref)) {
                fprintf(stderr, "%s: act0 %s, nthread %d differs from the serial loop\n", file,
                        a0 ? "given" : "NULL", thread_counts[k]);
                fail = 1;
            }
        }
        // a pool of 2 workers, three calls: the same results, no allocation after the first
        gdnBatchPool* pool = NULL;
        CHECK(gdn_batch_pool_create(m, 2, &pool, err, sizeof(err)) == GDN_OK);
        size_t nalloc = 0;
        for (int call = 0; call < 3 && !fail; call++) {
            memset(out.sens, 0xcd, ref.ns_bytes);
            CHECK(gdn_batch_pool_rollout_full(pool, ms, 1, nbatch, T, in.qpos0, in.qvel0, a0,
                                              in.ctrl, out.qpos, out.qvel, out.act, out.sens,
                                              out.ncon, out.status, err,
                                              sizeof(err)) == GDN_OK);
            fail |= entries_failed(out.status, nbatch, file) || outputs_differ(&out, &ref);
            if (call == 0) {
                nalloc = gdn_batch_pool_allocations(pool);
            }
            fail |= gdn_batch_pool_allocations(pool) != nalloc;
        }
        gdn_batch_pool_free(pool);
        // the old call: the state of act0 = NULL
        if (!with_act0 && !fail) {
            CHECK(gdn_rollout_batch(ms, 1, nbatch, T, in.qpos0, in.qvel0, in.ctrl, 2, out.qpos,
                                    out.qvel, out.ncon, out.status, err, sizeof(err)) == GDN_OK);
            fail |= memcmp(out.qpos, ref.qpos, ref.nq_bytes) != 0 ||
                    memcmp(out.qvel, ref.qvel, ref.nv_bytes) != 0;
        }
        for (size_t i = 0; i < ref.ns_bytes / sizeof(double); i++) {
            nonzero_sens += ref.sens[i] != 0;
        }
        for (size_t i = 0; i < ref.na_bytes / sizeof(double); i++) {
            nonzero_act += ref.act[i] != 0;
        }
    }
    printf("  %s: na %d nsensordata %d, %d entries x %d steps (%d nonzero act, %d nonzero "
           "sensor values): %s\n", file, m->na, m->nsensordata, nbatch, T, nonzero_act,
           nonzero_sens, fail ? "DIFFERS" : "bit for bit at 1, 2, 3, 7 threads and on a pool");
    CHECK(m->nsensordata == 0 || nonzero_sens > 0);
    CHECK(m->na == 0 || nonzero_act > 0);
    outputs_free(&ref);
    outputs_free(&out);
    inputs_free(&in);
    gdn_model_free(m);
    return fail;
}

static int test_rollout_serial_equal(void) {
    int fail = 0;
    fail |= rollout_case("act_arm.xml", 1, 5, 300);
    fail |= rollout_case("act_arm_rk4.xml", 1, 4, 200);
    fail |= rollout_case("trn_stateful.xml", 1, 3, 200);
    fail |= rollout_case("sensors_contact.xml", 1, 3, 200);
    fail |= rollout_case("sensors_deriv.xml", 1, 3, 100);
    fail |= rollout_case("pendulum.xml", 1, 3, 50);
    return fail;
}

// ---------------------------------------------------------------- sensordata vs MuJoCo

// the batch's sensordata row t against mj_step from the batch's x_t (qpos, qvel, act, ctrl_t,
// time; MuJoCo's sensors of the state the step starts from), per stage's tolerance, and the
// batch's act row t + 1 against MuJoCo's act after that step; gradyn's model is the oracle's
static int mujoco_case(const char* file, int constraints, gdnWorst* total) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    if (constraints) {
        o.mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
        o.gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    }
    const gdnModel* m = o.gm;
    const int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu, ns = m->nsensordata;
    enum { NB = 3, T = 150 };
    state_inputs in;
    inputs_make(m, NB, T, 0xfeed, &in);
    state_outputs out;
    outputs_alloc(m, NB, T, &out);
    char err[256];
    const gdnModel* ms[1] = {m};
    // the warm start MuJoCo's constrained steps read: gradyn's, from a serial loop
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_rollout_batch_full(ms, 1, NB, T, in.qpos0, in.qvel0, in.act0, in.ctrl, 2, out.qpos,
                                 out.qvel, out.act, out.sens, out.ncon, out.status, err,
                                 sizeof(err)) == GDN_OK);
    CHECK(!entries_failed(out.status, NB, file));
    gdnWorst w = {0};
    int ok = 1;
    for (int b = 0; b < NB; b++) {
        gdn_data_reset(m, d);
        memcpy(d->qpos, in.qpos0 + b * nq, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, in.qvel0 + b * nv, sizeof(double) * (size_t)nv);
        memcpy(d->act, in.act0 + b * na, sizeof(double) * (size_t)na);
        mj_resetData(o.mm, o.md);
        for (int t = 0; t < T; t++) {
            const size_t row = (size_t)b * (size_t)(T + 1) + (size_t)t;
            const double* u = in.ctrl + ((size_t)b * (size_t)T + (size_t)t) * (size_t)nu;
            // MuJoCo from the batch's x_t, gradyn's warm start and time
            memcpy(o.md->qpos, out.qpos + row * (size_t)nq, sizeof(double) * (size_t)nq);
            memcpy(o.md->qvel, out.qvel + row * (size_t)nv, sizeof(double) * (size_t)nv);
            memcpy(o.md->act, out.act + row * (size_t)na, sizeof(double) * (size_t)na);
            memcpy(o.md->ctrl, u, sizeof(double) * (size_t)nu);
            memcpy(o.md->qacc_warmstart, d->qacc_warmstart, sizeof(double) * (size_t)nv);
            o.md->time = d->time;
            mj_step(o.mm, o.md);
            memcpy(d->ctrl, u, sizeof(double) * (size_t)nu);
            CHECK(gdn_step(m, d) == GDN_OK);
            // every sensor at its stage's tolerance
            const double* s = out.sens + ((size_t)b * (size_t)T + (size_t)t) * (size_t)ns;
            for (int i = 0; i < m->nsensor; i++) {
                const int adr = m->sensor_adr[i], dim = m->sensor_dim[i];
                const int acc = m->sensor_needstage[i] == GDN_STAGE_ACC;
                ok &= gdn_worst_check(&w, file, t, acc ? "sensor acc" : "sensor pos/vel",
                                      s + adr, o.md->sensordata + adr, dim, 1,
                                      acc ? TOL_ACC : TOL_POSVEL);
            }
            if (na > 0) {
                ok &= gdn_worst_check(&w, file, t, "act", out.act + (row + 1) * (size_t)na,
                                      o.md->act, na, 1, TOL_ACT);
            }
        }
    }
    gdn_worst_print(&w, file);
    for (int k = 0; k < w.n; k++) {
        gdn_worst_add(total, w.name[k], w.err[k]);
    }
    ok &= gdn_oracle_warnings(&o) == 0;
    gdn_data_free(d);
    outputs_free(&out);
    inputs_free(&in);
    gdn_oracle_free(&o);
    CHECK(ok);
    return 0;
}

static int test_sensors_vs_mujoco(void) {
    gdnWorst total = {0};
    int fail = 0;
    fail |= mujoco_case("act_arm.xml", 0, &total);
    fail |= mujoco_case("act_arm_rk4.xml", 0, &total);
    fail |= mujoco_case("sensors_contact.xml", 1, &total);
    fail |= mujoco_case("sensors_deriv.xml", 1, &total);
    gdn_worst_print(&total, "all models");
    return fail;
}

// ---------------------------------------------------------------- gradients

// random cotangents: cq (T+1) x nq, cv (T+1) x nv, ca (T+1) x na per entry, cs T x
// nsensordata per entry (zero on the clock, whose time the objective's scratch gets from t)
typedef struct cotangents {
    double *cq, *cv, *ca, *cs;
} cotangents;

static void cotangents_make(const gdnModel* m, int nbatch, int T, unsigned long long seed,
                            cotangents* c) {
    unsigned long long rng = seed;
    const size_t nq = (size_t)nbatch * (size_t)(T + 1) * (size_t)m->nq;
    const size_t nv = (size_t)nbatch * (size_t)(T + 1) * (size_t)m->nv;
    const size_t ns = (size_t)nbatch * (size_t)T * (size_t)m->nsensordata;
    const size_t na = (size_t)nbatch * (size_t)(T + 1) * (size_t)m->na;
    c->cq = malloc(sizeof(double) * (nq + 1));
    c->cv = malloc(sizeof(double) * (nv + 1));
    c->ca = malloc(sizeof(double) * (na + 1));
    c->cs = malloc(sizeof(double) * (ns + 1));
    for (size_t i = 0; i < na; i++) {
        c->ca[i] = gdn_test_uniform(&rng, -1, 1) / (double)T;
    }
    for (size_t i = 0; i < nq; i++) {
        c->cq[i] = gdn_test_uniform(&rng, -1, 1) / (double)T;
    }
    for (size_t i = 0; i < nv; i++) {
        c->cv[i] = gdn_test_uniform(&rng, -1, 1) / (double)T;
    }
    for (size_t r = 0; r < (size_t)nbatch * (size_t)T; r++) {
        for (int i = 0; i < m->nsensor; i++) {
            const int zero = m->sensor_type[i] == GDN_SENS_CLOCK;
            for (int k = 0; k < m->sensor_dim[i]; k++) {
                c->cs[r * (size_t)m->nsensordata + (size_t)(m->sensor_adr[i] + k)] =
                    zero ? 0 : gdn_test_uniform(&rng, -1, 1) / (double)T;
            }
        }
    }
}

static void cotangents_free(cotangents* c) {
    free(c->cq);
    free(c->cv);
    free(c->ca);
    free(c->cs);
}

// J of entry b from a rollout's outputs: sum_t <cq_t, qpos_t> + <cv_t, qvel_t> (+ <ca_t,
// act_t> + <cs_t, s_t> with_sens)
static double objective(const gdnModel* m, int T, int b, const state_outputs* o,
                        const cotangents* c, int with_sens) {
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, ns = (size_t)m->nsensordata;
    const size_t na = (size_t)m->na;
    double J = 0;
    for (size_t i = 0; with_sens && i < (size_t)(T + 1) * na; i++) {
        J += c->ca[(size_t)b * (size_t)(T + 1) * na + i] * o->act[i];
    }
    for (size_t i = 0; i < (size_t)(T + 1) * nq; i++) {
        J += c->cq[(size_t)b * (size_t)(T + 1) * nq + i] * o->qpos[i];
    }
    for (size_t i = 0; i < (size_t)(T + 1) * nv; i++) {
        J += c->cv[(size_t)b * (size_t)(T + 1) * nv + i] * o->qvel[i];
    }
    for (size_t i = 0; with_sens && i < (size_t)T * ns; i++) {
        J += c->cs[(size_t)b * (size_t)T * ns + i] * o->sens[i];
    }
    return J;
}

// the single-rollout reference objective: the batch's linear objective (qpos coordinates, row
// 0's qpos gradient left to the caller), computed the same way
typedef struct ref_cost {
    const double *cq, *cv;
} ref_cost;

static gdnStatus ref_cost_fn(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                             double* gqpos, double* gqvel, double* gctrl) {
    (void)gctrl;
    const ref_cost* c = user;
    const double* cq = c->cq + (size_t)t * (size_t)m->nq;
    const double* cv = c->cv + (size_t)t * (size_t)m->nv;
    double v = 0;
    for (int i = 0; i < m->nq; i++) {
        v += cq[i] * s->qpos[i];
    }
    if (gqpos && t > 0) {
        memcpy(gqpos, cq, sizeof(double) * (size_t)m->nq);
    }
    for (int i = 0; i < m->nv; i++) {
        v += cv[i] * s->qvel[i];
    }
    if (gqvel) {
        memcpy(gqvel, cv, sizeof(double) * (size_t)m->nv);
    }
    *value = v;
    return GDN_OK;
}

// relative error of a directional derivative against its central difference
static double fd_error(double analytic, double fd) {
    return fabs(analytic - fd) / fmax(fmax(fabs(analytic), fabs(fd)), 1e-6);
}

// dJ/dact0 (and qvel0, ctrl) of gdn_adjoint_batch_full: equal to gdn_adjoint_rollout_gradient
// with gdnRollout.act0 bit for bit (J, act0, qvel0, ctrl) at nthread 1, 2, 3; dJ/dact0 per
// component and along a random direction vs central differences of gdn_rollout_batch_full
static int act0_case(const char* file, int T) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    enum { NB = 3 };
    const int nv = m->nv, na = m->na, nu = m->nu;
    CHECK(na > 0);
    state_inputs in;
    inputs_make(m, NB, T, 0xac70, &in);
    cotangents c;
    cotangents_make(m, NB, T, 0xc07a, &c);
    const gdnModel* ms[1] = {m};
    char err[256];
    double* ga = calloc((size_t)(NB * na), sizeof(double));
    double* gv = calloc((size_t)(NB * nv), sizeof(double));
    double* gu = calloc((size_t)(NB * T * nu), sizeof(double));
    double* J = calloc(NB, sizeof(double));
    double* ra = calloc((size_t)na, sizeof(double));
    double* rv = calloc((size_t)nv, sizeof(double));
    double* ru = calloc((size_t)(T * nu), sizeof(double));
    gdnBatchStatus st[NB];
    int fail = 0;
    // the single-rollout references
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, err, sizeof(err)) == GDN_OK);
    for (int k = 0; k < 3; k++) {
        gdnBatchGradients g;
        memset(&g, 0, sizeof(g));
        g.J = J;
        g.act0 = ga;
        g.qvel0 = gv;
        g.ctrl = gu;
        CHECK(gdn_adjoint_batch_full(ms, 1, NB, T, in.qpos0, in.qvel0, in.act0, in.ctrl, c.cq,
                                     c.cv, NULL, NULL, thread_counts[k], &g, st, err,
                                     sizeof(err)) == GDN_OK);
        CHECK(!entries_failed(st, NB, file));
        for (int b = 0; b < NB; b++) {
            gdnRollout r;
            gdn_rollout_init(m, T, &r);
            r.qpos0 = in.qpos0 + b * m->nq;
            r.qvel0 = in.qvel0 + b * nv;
            r.act0 = in.act0 + b * na;
            r.ctrl = in.ctrl + (size_t)b * (size_t)T * (size_t)nu;
            ref_cost rc = {c.cq + (size_t)b * (size_t)(T + 1) * (size_t)m->nq,
                           c.cv + (size_t)b * (size_t)(T + 1) * (size_t)nv};
            gdnObjective obj = {{ref_cost_fn, &rc, 0}, {ref_cost_fn, &rc, 0}};
            gdnAdjointGradients out;
            memset(&out, 0, sizeof(out));
            out.act0 = ra;
            out.qvel0 = rv;
            out.ctrl = ru;
            CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) ==
                  GDN_OK);
            if (memcmp(&out.J, J + b, sizeof(double)) || memcmp(ra, ga + b * na, sizeof(double) * (size_t)na) ||
                memcmp(rv, gv + b * nv, sizeof(double) * (size_t)nv) ||
                memcmp(ru, gu + (size_t)b * (size_t)T * (size_t)nu, sizeof(double) * (size_t)(T * nu))) {
                fprintf(stderr, "%s: entry %d, nthread %d: the batch adjoint differs from "
                        "gdn_adjoint_rollout_gradient\n", file, b, thread_counts[k]);
                fail = 1;
            }
        }
    }
    gdn_tape_free(tape);
    // central differences of the batch rollout's J along each act0 component and a random
    // direction, entry by entry
    state_outputs o;
    outputs_alloc(m, 1, T, &o);
    double* a0 = calloc((size_t)na, sizeof(double));
    double* dir = calloc((size_t)na, sizeof(double));
    unsigned long long rng = 0xd1;
    double worst = 0;
    for (int b = 0; b < NB; b++) {
        for (int j = 0; j <= na; j++) {
            for (int i = 0; i < na; i++) {
                dir[i] = j < na ? (i == j) : gdn_test_uniform(&rng, -1, 1);
            }
            double analytic = 0, Jpm[2];
            for (int i = 0; i < na; i++) {
                analytic += ga[b * na + i] * dir[i];
            }
            for (int sgn = 0; sgn < 2; sgn++) {
                const double e = sgn ? -FD_EPS_ACT : FD_EPS_ACT;
                for (int i = 0; i < na; i++) {
                    a0[i] = in.act0[b * na + i] + e * dir[i];
                }
                CHECK(gdn_rollout_batch_full(ms, 1, 1, T, in.qpos0 + b * m->nq,
                                             in.qvel0 + b * nv, a0,
                                             in.ctrl + (size_t)b * (size_t)T * (size_t)nu, 1,
                                             o.qpos, o.qvel, NULL, NULL, NULL, o.status, err,
                                             sizeof(err)) == GDN_OK);
                CHECK(o.status[0].status == GDN_OK);
                Jpm[sgn] = objective(m, T, b, &o, &c, 0);
            }
            const double fd = (Jpm[0] - Jpm[1]) / (2 * FD_EPS_ACT);
            worst = fmax(worst, fd_error(analytic, fd));
        }
    }
    printf("  %s: na %d, %d entries x %d steps: batch = single-rollout adjoint bit for bit "
           "(J, act0, qvel0, ctrl; 1, 2, 3 threads); dJ/dact0 vs central FD (eps 3e-6) %.2g\n", file, na,
           NB, T, worst);
    fail |= !(worst <= TOL_FD);
    free(a0);
    free(dir);
    outputs_free(&o);
    free(ga);
    free(gv);
    free(gu);
    free(J);
    free(ra);
    free(rv);
    free(ru);
    cotangents_free(&c);
    inputs_free(&in);
    gdn_model_free(m);
    return fail;
}

static int test_adjoint_act0(void) {
    int fail = 0;
    fail |= act0_case("act_arm.xml", 100);
    fail |= act0_case("act_arm_rk4.xml", 60);
    fail |= act0_case("trn_stateful.xml", 80);
    return fail;
}

// act and sensor cotangents (every sensor's, actuatorfrc's act channel included):
// gdn_adjoint_batch_full's J equals the rollout's objective (the act and sensordata of
// gdn_rollout_batch_full) to round-off, and its gradients vs central differences along random
// directions of qpos0 (tangent), qvel0, act0 and ctrl
static int sensor_cotangent_case(const char* file, int T) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    enum { NB = 2 };
    const int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu;
    state_inputs in;
    inputs_make(m, NB, T, 0x5e45, &in);
    cotangents c;
    cotangents_make(m, NB, T, 0x5e46, &c);
    const gdnModel* ms[1] = {m};
    char err[256];
    double* gq = calloc((size_t)(NB * nv), sizeof(double));
    double* gv = calloc((size_t)(NB * nv), sizeof(double));
    double* ga = calloc((size_t)(NB * na + 1), sizeof(double));
    double* gu = calloc((size_t)(NB * T * nu + 1), sizeof(double));
    double J[NB];
    gdnBatchStatus st[NB];
    gdnBatchGradients g;
    memset(&g, 0, sizeof(g));
    g.J = J;
    g.qpos0_tangent = gq;
    g.qvel0 = gv;
    g.act0 = ga;
    g.ctrl = gu;
    CHECK(gdn_adjoint_batch_full(ms, 1, NB, T, in.qpos0, in.qvel0, in.act0, in.ctrl, c.cq, c.cv,
                                 c.ca, c.cs, 2, &g, st, err, sizeof(err)) == GDN_OK);
    CHECK(!entries_failed(st, NB, file));
    // the same call on one thread: bit for bit
    double J1[NB];
    g.J = J1;
    double* gv1 = calloc((size_t)(NB * nv), sizeof(double));
    g.qvel0 = gv1;
    CHECK(gdn_adjoint_batch_full(ms, 1, NB, T, in.qpos0, in.qvel0, in.act0, in.ctrl, c.cq, c.cv,
                                 c.ca, c.cs, 1, &g, st, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(J, J1, sizeof(J)) == 0 && memcmp(gv, gv1, sizeof(double) * (size_t)(NB * nv)) == 0);
    // on a pool, three calls: bit for bit, no allocation after the first
    gdnBatchPool* pool = NULL;
    CHECK(gdn_batch_pool_create(m, 2, &pool, err, sizeof(err)) == GDN_OK);
    size_t nalloc = 0;
    for (int call = 0; call < 3; call++) {
        memset(J1, 0, sizeof(J1));
        memset(gv1, 0, sizeof(double) * (size_t)(NB * nv));
        CHECK(gdn_batch_pool_adjoint_full(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.act0,
                                          in.ctrl, c.cq, c.cv, c.ca, c.cs, &g, st, err,
                                          sizeof(err)) == GDN_OK);
        CHECK(memcmp(J, J1, sizeof(J)) == 0 &&
              memcmp(gv, gv1, sizeof(double) * (size_t)(NB * nv)) == 0);
        if (call == 0) {
            nalloc = gdn_batch_pool_allocations(pool);
        }
        CHECK(gdn_batch_pool_allocations(pool) == nalloc);
    }
    gdn_batch_pool_free(pool);
    free(gv1);
    state_outputs o;
    outputs_alloc(m, 1, T, &o);
    double* q = calloc((size_t)nq, sizeof(double));
    double* v = calloc((size_t)nv, sizeof(double));
    double* a = calloc((size_t)na + 1, sizeof(double));
    double* u = calloc((size_t)(T * nu) + 1, sizeof(double));
    double* dq = calloc((size_t)nv, sizeof(double));
    double* dv = calloc((size_t)nv, sizeof(double));
    double* da = calloc((size_t)na + 1, sizeof(double));
    double* du = calloc((size_t)(T * nu) + 1, sizeof(double));
    unsigned long long rng = 0xf00d;
    double worst = 0, worst_J = 0;
    for (int b = 0; b < NB; b++) {
        const double* u0 = in.ctrl + (size_t)b * (size_t)T * (size_t)nu;
        // J at the inputs: the objective of the rollout's outputs
        CHECK(gdn_rollout_batch_full(ms, 1, 1, T, in.qpos0 + b * nq, in.qvel0 + b * nv,
                                     in.act0 + b * na, u0, 1, o.qpos, o.qvel, o.act, o.sens,
                                     NULL, o.status, err, sizeof(err)) == GDN_OK);
        worst_J = fmax(worst_J, fabs(J[b] - objective(m, T, b, &o, &c, 1)) / fmax(fabs(J[b]), 1));
        for (int dirk = 0; dirk < 3; dirk++) {
            double analytic = 0, Jpm[2];
            for (int i = 0; i < nv; i++) {
                dq[i] = gdn_test_uniform(&rng, -1, 1);
                dv[i] = gdn_test_uniform(&rng, -1, 1);
                analytic += gq[b * nv + i] * dq[i] + gv[b * nv + i] * dv[i];
            }
            for (int i = 0; i < na; i++) {
                da[i] = gdn_test_uniform(&rng, -1, 1);
                analytic += ga[b * na + i] * da[i];
            }
            for (int i = 0; i < T * nu; i++) {
                du[i] = gdn_test_uniform(&rng, -1, 1);
                analytic += gu[(size_t)b * (size_t)T * (size_t)nu + (size_t)i] * du[i];
            }
            for (int sgn = 0; sgn < 2; sgn++) {
                const double e = sgn ? -FD_EPS : FD_EPS;
                memcpy(q, in.qpos0 + b * nq, sizeof(double) * (size_t)nq);
                gdn_integrate_pos(m, q, dq, e);
                for (int i = 0; i < nv; i++) {
                    v[i] = in.qvel0[b * nv + i] + e * dv[i];
                }
                for (int i = 0; i < na; i++) {
                    a[i] = in.act0[b * na + i] + e * da[i];
                }
                for (int i = 0; i < T * nu; i++) {
                    u[i] = u0[i] + e * du[i];
                }
                CHECK(gdn_rollout_batch_full(ms, 1, 1, T, q, v, a, u, 1, o.qpos, o.qvel, o.act,
                                             o.sens, NULL, o.status, err, sizeof(err)) ==
                      GDN_OK);
                CHECK(o.status[0].status == GDN_OK);
                // row 0's qpos is q itself: its cotangent's share is in the tangent gradient
                Jpm[sgn] = objective(m, T, b, &o, &c, 1);
            }
            worst = fmax(worst, fd_error(analytic, (Jpm[0] - Jpm[1]) / (2 * FD_EPS)));
        }
    }
    printf("  %s: na %d nsensordata %d, %d entries x %d steps, cotangents on qpos, qvel, act "
           "and sensordata (1 = 2 threads = a pool's repeated calls, bit for bit): J vs the "
           "rollout's objective %.2g, gradients (qpos0 tangent, qvel0, act0, ctrl) vs central "
           "FD %.2g\n", file, na, m->nsensordata, NB, T, worst_J, worst);
    int fail = !(worst <= TOL_FD) || !(worst_J <= 1e-12);
    free(q);
    free(v);
    free(a);
    free(u);
    free(dq);
    free(dv);
    free(da);
    free(du);
    outputs_free(&o);
    free(gq);
    free(gv);
    free(ga);
    free(gu);
    cotangents_free(&c);
    inputs_free(&in);
    gdn_model_free(m);
    return fail;
}

static int test_adjoint_sensor_cotangents(void) {
    int fail = 0;
    fail |= sensor_cotangent_case("sensors_deriv.xml", 40);
    fail |= sensor_cotangent_case("act_arm.xml", 60);
    fail |= sensor_cotangent_case("act_arm_rk4.xml", 40);
    fail |= sensor_cotangent_case("trn_stateful.xml", 40);
    // actuator sensors of motors on a ball, a free joint and a hinge's joint-in-parent
    fail |= sensor_cotangent_case("sensors_ball_actuator.xml", 40);
    return fail;
}

// the refusal of sensor cotangents at a state (sensors_inside_wrap.xml at qpos 0: its tendon
// wraps inside without a root): entry 0 fails with GDN_ERR_UNSUPPORTED at step 0, its message
// naming the sensor and the cause, NaN outputs; entry 1 (another qpos0) succeeds; the call
// returns GDN_OK
static int test_sensor_cotangent_refusals(void) {
    gdnModel* m = gdn_test_load_model_as_is("sensors_inside_wrap.xml");
    CHECK(m);
    if (!m) {
        return 1;
    }
    const int T = 1, ns = m->nsensordata;
    double q0[2] = {0, 0.05}, v0[2] = {0, 0}, u[2] = {0, 0};
    double* cs = calloc((size_t)(2 * T * ns), sizeof(double));
    for (int i = 0; i < 2 * T * ns; i++) {
        cs[i] = 0.5;
    }
    double J[2], gv[2];
    gdnBatchGradients g;
    memset(&g, 0, sizeof(g));
    g.J = J;
    g.qvel0 = gv;
    gdnBatchStatus st[2];
    char err[256];
    const gdnModel* ms[1] = {m};
    CHECK(gdn_adjoint_batch_full(ms, 1, 2, T, q0, v0, NULL, u, NULL, NULL, NULL, cs, 2, &g, st,
                                 err, sizeof(err)) == GDN_OK);
    CHECK(st[0].status == GDN_ERR_UNSUPPORTED && st[0].step == 0);
    CHECK(strstr(st[0].message, "'tl' (tendonpos)") != NULL);
    CHECK(strstr(st[0].message, "without a root") != NULL);
    CHECK(isnan(J[0]) && isnan(gv[0]));
    CHECK(st[1].status == GDN_OK && isfinite(J[1]) && isfinite(gv[1]));
    printf("  sensors_inside_wrap.xml: %s\n", st[0].message);
    free(cs);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- hostile inputs

// non-finite act0 / csensordata, models of other na or nsensordata, a failing entry's act and
// sensordata rows: statuses and messages, no crash
static int test_hostile_inputs(void) {
    gdnModel* m = gdn_test_load_model_as_is("act_arm.xml");
    gdnModel* p = gdn_test_load_model_as_is("pendulum.xml");
    // two models of equal sizes but na: a motor and a filter actuator on the same hinge
    static const char xml[] = "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\"0.1\"/>"
                              "</body></worldbody><actuator><general joint=\"j\" dyntype=\"%s\"/>"
                              "</actuator></mujoco>";
    gdnModel* na_models[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        char buf[512], e[256];
        snprintf(buf, sizeof(buf), xml, k ? "filter" : "none");
        CHECK(gdn_load_xml_string(buf, strlen(buf), NULL, &na_models[k], e, sizeof(e), NULL, 0) ==
              GDN_OK);
    }
    CHECK(m && p && na_models[0]->na == 0 && na_models[1]->na == 1);
    const int T = 20;
    state_inputs in;
    inputs_make(m, 2, T, 9, &in);
    state_outputs o;
    outputs_alloc(m, 2, T, &o);
    char err[256];
    const gdnModel* ms[1] = {m};
    // act0 not finite: refused before anything runs, the entry and column named
    in.act0[m->na + 3] = NAN;
    CHECK(gdn_rollout_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl, 1, o.qpos,
                                 o.qvel, o.act, o.sens, NULL, o.status, err,
                                 sizeof(err)) == GDN_ERR_NONFINITE);
    CHECK(strstr(err, "act0[1][0][3]"));
    printf("  %s\n", err);
    gdnBatchGradients g;
    memset(&g, 0, sizeof(g));
    double J[2];
    g.J = J;
    gdnBatchStatus st[2];
    CHECK(gdn_adjoint_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl, NULL, NULL,
                                 NULL, NULL, 1, &g, st, err, sizeof(err)) == GDN_ERR_NONFINITE);
    in.act0[m->na + 3] = 0.2;
    // cact not finite
    double* ca = calloc((size_t)(2 * (T + 1) * m->na), sizeof(double));
    ca[(T + 1) * m->na + 2 * m->na + 4] = NAN;
    CHECK(gdn_adjoint_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl, NULL, NULL,
                                 ca, NULL, 1, &g, st, err, sizeof(err)) == GDN_ERR_NONFINITE);
    CHECK(strstr(err, "cact[1][2][4]"));
    printf("  %s\n", err);
    free(ca);
    // csensordata not finite
    double* cs = calloc((size_t)(2 * T * m->nsensordata), sizeof(double));
    cs[T * m->nsensordata + 5] = INFINITY;
    CHECK(gdn_adjoint_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl, NULL, NULL,
                                 NULL, cs, 1, &g, st, err, sizeof(err)) == GDN_ERR_NONFINITE);
    CHECK(strstr(err, "csensordata[1][0][5]"));
    printf("  %s\n", err);
    free(cs);
    // models of other activation counts: GDN_ERR_ARG naming the size
    const gdnModel* mixed[2] = {na_models[0], na_models[1]};
    double z[4] = {0, 0, 0, 0};
    CHECK(gdn_rollout_batch_full(mixed, 2, 2, T, z, z, NULL, in.ctrl, 1, o.qpos, o.qvel, NULL,
                                 NULL, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "na 1"));
    printf("  %s\n", err);
    gdnBatchPool* pool = NULL;
    CHECK(gdn_batch_pool_create(p, 1, &pool, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_batch_pool_rollout_full(pool, ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl,
                                      o.qpos, o.qvel, o.act, o.sens, NULL, o.status, err,
                                      sizeof(err)) == GDN_ERR_ARG);
    gdn_batch_pool_free(pool);
    // a diverging entry: its act rows after the failing step and sensordata rows from it NaN
    in.qvel0[m->nv] = 1e300;
    CHECK(gdn_rollout_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, in.act0, in.ctrl, 2, o.qpos,
                                 o.qvel, o.act, o.sens, NULL, o.status, err,
                                 sizeof(err)) == GDN_OK);
    CHECK(o.status[0].status == GDN_OK && o.status[1].status != GDN_OK);
    const int t = o.status[1].step;
    CHECK(t >= 0 && t < T);
    const double* act1 = o.act + (size_t)(T + 1) * (size_t)m->na;
    const double* sens1 = o.sens + (size_t)T * (size_t)m->nsensordata;
    CHECK(!isnan(act1[0]) && isnan(act1[(size_t)(t + 1) * (size_t)m->na]) &&
          isnan(act1[(size_t)(T + 1) * (size_t)m->na - 1]));
    CHECK(isnan(sens1[(size_t)t * (size_t)m->nsensordata]) &&
          isnan(sens1[(size_t)T * (size_t)m->nsensordata - 1]));
    printf("  %s\n", o.status[1].message);
    // NULL outputs stay NULL-safe; na = 0 with act0 NULL
    CHECK(gdn_rollout_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, NULL, in.ctrl, 2, o.qpos,
                                 o.qvel, NULL, NULL, NULL, o.status, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_rollout_batch_full(ms, 1, 2, T, in.qpos0, in.qvel0, NULL, in.ctrl, 2, NULL, o.qvel,
                                 NULL, NULL, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    outputs_free(&o);
    inputs_free(&in);
    gdn_model_free(m);
    gdn_model_free(na_models[0]);
    gdn_model_free(na_models[1]);
    gdn_model_free(p);
    return 0;
}

static const gdnTestCase cases[] = {
    {"rollout_serial_equal", test_rollout_serial_equal},
    {"sensors_vs_mujoco", test_sensors_vs_mujoco},
    {"adjoint_act0", test_adjoint_act0},
    {"adjoint_sensor_cotangents", test_adjoint_sensor_cotangents},
    {"sensor_cotangent_refusals", test_sensor_cotangent_refusals},
    {"hostile_inputs", test_hostile_inputs},
};

GDN_TEST_MAIN(cases)
