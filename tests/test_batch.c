// SPDX-License-Identifier: Apache-2.0
// The batch calls: rollouts and gradients equal the serial calls bit for bit at every thread
// count, domain randomization, diverging entries, the qpos-gradient convention vs finite
// differences, hostile inputs; the batch pool: equal results over repeated calls of varying
// sizes, no allocation when nothing grows, refused sizes, busy pools.
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/batch.h>
#include <gradyn/gradyn.h>

#include "batch/workspace.h"
#include "runner/models.h"
#include "runner/test.h"

#define MUJOCO_MODELS "/usr/share/mujoco/model"

static const int thread_counts[] = {1, 2, 3, 7};
#define NTHREAD_COUNTS 4

// ---------------------------------------------------------------- inputs and references

// a batch's inputs: qpos0 = the model's qpos0 plus noise (quaternions left slightly off unit,
// as a caller may pass them), qvel0 and ctrl uniform
typedef struct batch_inputs {
    int nbatch, T;
    double *qpos0, *qvel0, *ctrl;
} batch_inputs;

static void inputs_make(const gdnModel* m, int nbatch, int T, double qnoise, double vscale,
                        double uscale, unsigned long long seed, batch_inputs* in) {
    unsigned long long rng = seed;
    in->nbatch = nbatch;
    in->T = T;
    in->qpos0 = malloc(sizeof(double) * (size_t)(nbatch * m->nq + 1));
    in->qvel0 = malloc(sizeof(double) * (size_t)(nbatch * m->nv + 1));
    in->ctrl = malloc(sizeof(double) * (size_t)(nbatch * T * m->nu + 1));
    for (int b = 0; b < nbatch; b++) {
        for (int i = 0; i < m->nq; i++) {
            in->qpos0[b * m->nq + i] = m->qpos0[i] + gdn_test_uniform(&rng, -qnoise, qnoise);
        }
        for (int i = 0; i < m->nv; i++) {
            in->qvel0[b * m->nv + i] = gdn_test_uniform(&rng, -vscale, vscale);
        }
    }
    for (int i = 0; i < nbatch * T * m->nu; i++) {
        in->ctrl[i] = gdn_test_uniform(&rng, -uscale, uscale);
    }
}

static void inputs_free(batch_inputs* in) {
    free(in->qpos0);
    free(in->qvel0);
    free(in->ctrl);
}

// the reference of one entry: a gdn_step loop on a fresh gdnData. Returns the failing step or
// -1; rows after a failure are left as they are
static int serial_rollout(const gdnModel* m, const double* qpos0, const double* qvel0,
                          const double* ctrl, int T, double* qpos, double* qvel, int* ncon) {
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return -2;
    }
    memcpy(d->qpos, qpos0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, qvel0, sizeof(double) * (size_t)m->nv);
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    int failed = -1;
    for (int t = 0; t < T; t++) {
        if (m->nu > 0) {
            memcpy(d->ctrl, ctrl + (size_t)t * (size_t)m->nu, sizeof(double) * (size_t)m->nu);
        }
        if (gdn_step(m, d) != GDN_OK) {
            failed = t;
            break;
        }
        ncon[t] = d->ncon;
        memcpy(qpos + (size_t)(t + 1) * (size_t)m->nq, d->qpos, sizeof(double) * (size_t)m->nq);
        memcpy(qvel + (size_t)(t + 1) * (size_t)m->nv, d->qvel, sizeof(double) * (size_t)m->nv);
    }
    if (failed < 0) {
        ncon[T] = gdn_forward(m, d) == GDN_OK ? d->ncon : -1;
    }
    gdn_data_free(d);
    return failed;
}

// the batch's outputs
typedef struct batch_outputs {
    double *qpos, *qvel;
    int* ncon;
    gdnBatchStatus* status;
} batch_outputs;

static void outputs_alloc(const gdnModel* m, int nbatch, int T, batch_outputs* o) {
    o->qpos = malloc(sizeof(double) * (size_t)nbatch * (size_t)(T + 1) * (size_t)(m->nq + 1));
    o->qvel = malloc(sizeof(double) * (size_t)nbatch * (size_t)(T + 1) * (size_t)(m->nv + 1));
    o->ncon = malloc(sizeof(int) * (size_t)nbatch * (size_t)(T + 1));
    o->status = malloc(sizeof(gdnBatchStatus) * (size_t)nbatch);
}

static void outputs_free(batch_outputs* o) {
    free(o->qpos);
    free(o->qvel);
    free(o->ncon);
    free(o->status);
}

// the serial references of every entry of in (models[b] or models[0]) into ref
static int serial_batch(const gdnModel* const* models, int nmodel, const batch_inputs* in,
                        batch_outputs* ref) {
    const gdnModel* m0 = models[0];
    for (int b = 0; b < in->nbatch; b++) {
        const gdnModel* m = models[nmodel == 1 ? 0 : b];
        int f = serial_rollout(m, in->qpos0 + b * m0->nq, in->qvel0 + b * m0->nv,
                               in->ctrl + (size_t)b * (size_t)in->T * (size_t)m0->nu, in->T,
                               ref->qpos + (size_t)b * (size_t)(in->T + 1) * (size_t)m0->nq,
                               ref->qvel + (size_t)b * (size_t)(in->T + 1) * (size_t)m0->nv,
                               ref->ncon + (size_t)b * (size_t)(in->T + 1));
        if (f != -1) {
            fprintf(stderr, "serial reference of entry %d failed at step %d\n", b, f);
            return 1;
        }
    }
    return 0;
}

// batch == serial reference, bit for bit, at every thread count
static int check_rollout_batch(const gdnModel* const* models, int nmodel, const batch_inputs* in,
                               const char* label) {
    const gdnModel* m = models[0];
    const int nb = in->nbatch, T = in->T;
    batch_outputs ref, out;
    outputs_alloc(m, nb, T, &ref);
    outputs_alloc(m, nb, T, &out);
    int fail = serial_batch(models, nmodel, in, &ref);
    const size_t nqb = sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)m->nq;
    const size_t nvb = sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)m->nv;
    const size_t ncb = sizeof(int) * (size_t)nb * (size_t)(T + 1);
    for (int k = 0; !fail && k < NTHREAD_COUNTS; k++) {
        char err[256];
        memset(out.qpos, 0xab, nqb);
        gdnStatus st = gdn_rollout_batch(models, nmodel, nb, T, in->qpos0, in->qvel0, in->ctrl,
                                         thread_counts[k], out.qpos, out.qvel, out.ncon,
                                         out.status, err, sizeof(err));
        if (st != GDN_OK) {
            fprintf(stderr, "%s: gdn_rollout_batch: %s\n", label, err);
            fail = 1;
            break;
        }
        for (int b = 0; b < nb; b++) {
            if (out.status[b].status != GDN_OK || out.status[b].step != -1) {
                fprintf(stderr, "%s: entry %d: %s\n", label, b, out.status[b].message);
                fail = 1;
            }
        }
        if (memcmp(out.qpos, ref.qpos, nqb) != 0 || memcmp(out.qvel, ref.qvel, nvb) != 0 ||
            memcmp(out.ncon, ref.ncon, ncb) != 0) {
            fprintf(stderr, "%s: nthread %d differs from the serial gdn_step loop\n", label,
                    thread_counts[k]);
            fail = 1;
        }
    }
    int contacts = 0;
    for (int i = 0; i < nb * (T + 1); i++) {
        contacts += ref.ncon[i];
    }
    printf("  %s: nq %d nv %d nu %d, %d entries x %d steps, %d contacts in all: %s\n", label,
           m->nq, m->nv, m->nu, nb, T, contacts, fail ? "DIFFERS" : "bit for bit at 1, 2, 3, 7");
    outputs_free(&ref);
    outputs_free(&out);
    return fail;
}

// ---------------------------------------------------------------- rollout tests

static int rollout_case(const char* file, int as_is, int nbatch, int T, double qnoise) {
    gdnModel* m = as_is ? gdn_test_load_model_as_is(file) : gdn_test_load_model(file);
    if (!m) {
        return 1;
    }
    batch_inputs in;
    inputs_make(m, nbatch, T, qnoise, 0.5, 1.0, 0x1234567ULL + (unsigned long long)nbatch, &in);
    const gdnModel* models[1] = {m};
    int fail = check_rollout_batch(models, 1, &in, file);
    inputs_free(&in);
    gdn_model_free(m);
    return fail;
}

static int test_rollout_test_models(void) {
    int fail = 0;
    fail |= rollout_case("pendulum.xml", 1, 5, 200, 0.3);
    fail |= rollout_case("double_pendulum.xml", 1, 6, 200, 0.3);
    fail |= rollout_case("adj_free_leg.xml", 1, 5, 150, 0.01);
    fail |= rollout_case("ball_chain.xml", 1, 4, 150, 0.01);
    fail |= rollout_case("cnstr_box.xml", 1, 5, 200, 0.01);
    fail |= rollout_case("scene_drop_box.xml", 1, 5, 300, 0.01);
    fail |= rollout_case("cnstr_fourbar.xml", 1, 4, 200, 0.01);
    return fail;
}

static int test_rollout_mujoco_models(void) {
    int fail = 0;
    fail |= rollout_case(MUJOCO_MODELS "/humanoid/humanoid.xml", 1, 8, 300, 0.02);
    fail |= rollout_case(MUJOCO_MODELS "/mug/mug.xml", 1, 4, 200, 0.01);
    fail |= rollout_case(MUJOCO_MODELS "/humanoid100/humanoid100.xml", 1, 2, 20, 0.0);
    // nq = nv = 0 (MuJoCo's flag.xml was that case while its <composite> was dropped; the
    // loader refuses <composite> by name now)
    fail |= rollout_case("static_scene.xml", 1, 3, 10, 0.0);
    return fail;
}

// an entry per thread or fewer: nbatch 1 and 2 with nthread 7 (capped), nthread 0 (all cores)
static int test_rollout_small_batches(void) {
    gdnModel* m = gdn_test_load_model_as_is("scene_drop_box.xml");
    CHECK(m);
    const gdnModel* models[1] = {m};
    int fail = 0;
    for (int nb = 1; nb <= 2; nb++) {
        batch_inputs in;
        inputs_make(m, nb, 50, 0.01, 0.5, 1.0, 77, &in);
        fail |= check_rollout_batch(models, 1, &in, "scene_drop_box (small batch)");
        // nthread 0 = all cores
        batch_outputs a, b;
        outputs_alloc(m, nb, 50, &a);
        outputs_alloc(m, nb, 50, &b);
        char err[256];
        CHECK(gdn_rollout_batch(models, 1, nb, 50, in.qpos0, in.qvel0, in.ctrl, 0, a.qpos,
                                a.qvel, NULL, a.status, err, sizeof(err)) == GDN_OK);
        CHECK(gdn_rollout_batch(models, 1, nb, 50, in.qpos0, in.qvel0, in.ctrl, 1, b.qpos,
                                b.qvel, NULL, b.status, err, sizeof(err)) == GDN_OK);
        CHECK(memcmp(a.qpos, b.qpos, sizeof(double) * (size_t)nb * 51 * (size_t)m->nq) == 0);
        outputs_free(&a);
        outputs_free(&b);
        inputs_free(&in);
    }
    gdn_model_free(m);
    return fail;
}

// every solver and cone, and the penalty contact model
static int test_rollout_solvers(void) {
    const gdnSolver solvers[3] = {GDN_SOL_PGS, GDN_SOL_CG, GDN_SOL_NEWTON};
    int fail = 0;
    for (int k = 0; k < 6; k++) {
        gdnModel* m = gdn_test_load_model_as_is("cnstr_box.xml");
        CHECK(m);
        m->opt.solver = solvers[k % 3];
        m->opt.cone = k < 3 ? GDN_CONE_PYRAMIDAL : GDN_CONE_ELLIPTIC;
        batch_inputs in;
        inputs_make(m, 4, 150, 0.01, 0.5, 1.0, 300 + (unsigned long long)k, &in);
        const gdnModel* models[1] = {m};
        char label[64];
        snprintf(label, sizeof(label), "cnstr_box solver %d cone %d", (int)m->opt.solver,
                 (int)m->opt.cone);
        fail |= check_rollout_batch(models, 1, &in, label);
        inputs_free(&in);
        gdn_model_free(m);
    }
    fail |= rollout_case("box_penalty.xml", 1, 4, 200, 0.01);
    return fail;
}

// domain randomization: nbatch models with different masses equal per-model serial runs and
// differ from one another
static int test_rollout_domain_randomization(void) {
    enum { NB = 5, T = 200 };
    gdnModel* models[NB];
    const char* file = MUJOCO_MODELS "/humanoid/humanoid.xml";
    for (int b = 0; b < NB; b++) {
        models[b] = gdn_test_load_model_as_is(file);
        CHECK(models[b]);
        for (int body = 1; body < models[b]->nbody; body++) {
            gdnInertia in;
            gdn_body_inertia(models[b], body, &in);
            double s = 1 + 0.15 * b * (body % 3 == 0 ? -1 : 1) / NB;
            in.mass *= s;
            for (int k = 0; k < 9; k++) {
                in.inertia[k] *= s;
            }
            CHECK(gdn_model_set_body_inertia(models[b], body, &in) == GDN_OK);
        }
    }
    batch_inputs in;
    inputs_make(models[0], NB, T, 0.0, 0.0, 0.4, 99, &in);
    // the same initial state for every entry: only the masses differ
    for (int b = 1; b < NB; b++) {
        memcpy(in.qpos0 + b * models[0]->nq, in.qpos0, sizeof(double) * (size_t)models[0]->nq);
        memcpy(in.ctrl + (size_t)b * T * (size_t)models[0]->nu, in.ctrl,
               sizeof(double) * T * (size_t)models[0]->nu);
    }
    int fail = check_rollout_batch((const gdnModel* const*)models, NB, &in,
                                   "humanoid, 5 mass scalings");
    // the entries differ (the models were used)
    batch_outputs o;
    outputs_alloc(models[0], NB, T, &o);
    char err[256];
    CHECK(gdn_rollout_batch((const gdnModel* const*)models, NB, NB, T, in.qpos0, in.qvel0,
                            in.ctrl, 2, o.qpos, o.qvel, NULL, o.status, err,
                            sizeof(err)) == GDN_OK);
    const size_t row = (size_t)(T + 1) * (size_t)models[0]->nq;
    for (int b = 1; b < NB; b++) {
        CHECK(memcmp(o.qpos, o.qpos + b * row, sizeof(double) * row) != 0);
    }
    // a model of other sizes is refused, naming the size
    gdnModel* other = gdn_test_load_model_as_is("pendulum.xml");
    CHECK(other);
    gdnModel* saved = models[3];
    models[3] = other;
    gdnStatus st = gdn_rollout_batch((const gdnModel* const*)models, NB, NB, T, in.qpos0,
                                     in.qvel0, in.ctrl, 2, o.qpos, o.qvel, NULL, o.status, err,
                                     sizeof(err));
    CHECK(st == GDN_ERR_ARG);
    CHECK(strstr(err, "models[3]") && strstr(err, "nq"));
    printf("  other sizes: %s\n", err);
    models[3] = saved;
    gdn_model_free(other);
    outputs_free(&o);
    inputs_free(&in);
    for (int b = 0; b < NB; b++) {
        gdn_model_free(models[b]);
    }
    return fail;
}

// entries that diverge are reported with their step, their later rows NaN; the others exact
static int test_rollout_divergence(void) {
    enum { NB = 6, T = 100 };
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(m);
    const gdnModel* models[1] = {m};
    batch_inputs in;
    inputs_make(m, NB, T, 0.3, 0.5, 1.0, 5, &in);
    in.qvel0[1 * m->nv + 0] = 1e300; // diverges at once
    in.qvel0[4 * m->nv + 1] = 1e150; // squares overflow
    batch_outputs ref, out;
    outputs_alloc(m, NB, T, &ref);
    outputs_alloc(m, NB, T, &out);
    for (int k = 0; k < NTHREAD_COUNTS; k++) {
        char err[256];
        CHECK(gdn_rollout_batch(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, thread_counts[k],
                                out.qpos, out.qvel, out.ncon, out.status, err,
                                sizeof(err)) == GDN_OK);
        for (int b = 0; b < NB; b++) {
            double* q = out.qpos + (size_t)b * (T + 1) * (size_t)m->nq;
            double* v = out.qvel + (size_t)b * (T + 1) * (size_t)m->nv;
            int* nc = out.ncon + (size_t)b * (T + 1);
            const gdnBatchStatus* s = &out.status[b];
            if (b == 1 || b == 4) {
                CHECK(s->status == GDN_ERR_NONFINITE);
                CHECK(s->step >= 0 && s->step < T);
                CHECK(strstr(s->message, "step") && strstr(s->message, "diverged"));
                if (k == 0) {
                    printf("  %s (%s)\n", s->message,
                           gdn_status_string(s->status));
                }
                // rows 0 .. step finite, the rest NaN
                for (int t = 0; t <= T; t++) {
                    for (int i = 0; i < m->nq; i++) {
                        CHECK(t <= s->step ? isfinite(q[t * m->nq + i]) : isnan(q[t * m->nq + i]));
                    }
                    for (int i = 0; i < m->nv; i++) {
                        CHECK(t <= s->step ? isfinite(v[t * m->nv + i]) : isnan(v[t * m->nv + i]));
                    }
                    CHECK(t < s->step ? nc[t] >= 0 : nc[t] == -1);
                }
                CHECK(memcmp(q, in.qpos0 + b * m->nq, sizeof(double) * (size_t)m->nq) == 0);
            } else {
                CHECK(s->status == GDN_OK && s->step == -1 && s->message[0] == '\0');
                int f = serial_rollout(m, in.qpos0 + b * m->nq, in.qvel0 + b * m->nv,
                                       in.ctrl + (size_t)b * T * (size_t)m->nu, T,
                                       ref.qpos, ref.qvel, ref.ncon);
                CHECK(f == -1);
                CHECK(memcmp(q, ref.qpos, sizeof(double) * (T + 1) * (size_t)m->nq) == 0);
                CHECK(memcmp(v, ref.qvel, sizeof(double) * (T + 1) * (size_t)m->nv) == 0);
            }
        }
    }
    // huge controls on a motor-driven model (humanoid's ctrlrange clamps them; the entry is
    // either fine or reported), the others exact
    gdnModel* h = gdn_test_load_model_as_is(MUJOCO_MODELS "/humanoid/humanoid.xml");
    CHECK(h);
    const gdnModel* hm[1] = {h};
    batch_inputs hin;
    inputs_make(h, 3, 50, 0.01, 0.1, 0.4, 8, &hin);
    for (int i = 0; i < 50 * h->nu; i++) {
        hin.ctrl[1 * 50 * h->nu + i] = i % 2 ? 1e300 : -1e300;
    }
    batch_outputs ho, href;
    outputs_alloc(h, 3, 50, &ho);
    outputs_alloc(h, 3, 50, &href);
    char err[256];
    CHECK(gdn_rollout_batch(hm, 1, 3, 50, hin.qpos0, hin.qvel0, hin.ctrl, 3, ho.qpos, ho.qvel,
                            ho.ncon, ho.status, err, sizeof(err)) == GDN_OK);
    CHECK(serial_batch(hm, 1, &hin, &href) == 0);
    CHECK(memcmp(ho.qpos, href.qpos, sizeof(double) * 3 * 51 * (size_t)h->nq) == 0);
    CHECK(ho.status[0].status == GDN_OK && ho.status[2].status == GDN_OK);
    printf("  humanoid, ctrl +-1e300: %s\n", gdn_status_string(ho.status[1].status));
    outputs_free(&href);
    outputs_free(&ho);
    inputs_free(&hin);
    gdn_model_free(h);
    outputs_free(&ref);
    outputs_free(&out);
    inputs_free(&in);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- gradients

// the reference's linear objective (the batch's, written out again): row 0's qpos term valued
// at the raw qpos0 with no gradient (added outside)
typedef struct ref_cost {
    const double *cq, *cv, *qpos0;
} ref_cost;

static gdnStatus ref_cost_fn(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                             double* gq, double* gv, double* gu) {
    (void)gu;
    const ref_cost* c = user;
    const double* q = t == 0 ? c->qpos0 : s->qpos;
    double v = 0;
    for (int i = 0; i < m->nq; i++) {
        v += c->cq[t * m->nq + i] * q[i];
        if (gq && t > 0) {
            gq[i] = c->cq[t * m->nq + i];
        }
    }
    for (int i = 0; i < m->nv; i++) {
        v += c->cv[t * m->nv + i] * s->qvel[i];
        if (gv) {
            gv[i] = c->cv[t * m->nv + i];
        }
    }
    *value = v;
    return GDN_OK;
}

// batch gradient outputs
typedef struct grad_outputs {
    double *J, *qpos0, *qtan, *qvel0, *ctrl, *param;
    double* cp[8]; // vert, geom friction, solref, solimp, size, pair friction, solref, solimp
    gdnBatchStatus* status;
    gdnBatchGradients g;
} grad_outputs;

static void grads_alloc(const gdnModel* m, int nb, int T, grad_outputs* o) {
    o->J = malloc(sizeof(double) * (size_t)nb);
    o->qpos0 = malloc(sizeof(double) * (size_t)(nb * m->nq + 1));
    o->qtan = malloc(sizeof(double) * (size_t)(nb * m->nv + 1));
    o->qvel0 = malloc(sizeof(double) * (size_t)(nb * m->nv + 1));
    o->ctrl = malloc(sizeof(double) * (size_t)(nb * T * m->nu + 1));
    o->param = malloc(sizeof(double) * (size_t)(nb * m->nbody * 10));
    o->status = malloc(sizeof(gdnBatchStatus) * (size_t)nb);
    o->g = (gdnBatchGradients){.J = o->J, .qpos0 = o->qpos0, .qpos0_tangent = o->qtan,
                               .qvel0 = o->qvel0, .ctrl = o->ctrl, .param = o->param};
    for (int k = 0; k < 8; k++) {
        o->cp[k] = NULL;
    }
}

// doubles per entry of the contact-parameter array k of grad_outputs.cp
static int cp_size(const gdnModel* m, int k) {
    const int n[8] = {3 * m->nvert, 3 * m->ngeom, 2 * m->ngeom, 5 * m->ngeom,
                      3 * m->ngeom, 5 * m->npair, 2 * m->npair, 5 * m->npair};
    return n[k];
}

// allocate the contact-parameter outputs too and point the batch's gradients at them
static void grads_want_contact(const gdnModel* m, int nb, grad_outputs* o) {
    for (int k = 0; k < 8; k++) {
        o->cp[k] = malloc(sizeof(double) * (size_t)(nb * cp_size(m, k) + 1));
    }
    o->g.vert = o->cp[0];
    o->g.geom_friction = o->cp[1];
    o->g.geom_solref = o->cp[2];
    o->g.geom_solimp = o->cp[3];
    o->g.geom_size = o->cp[4];
    o->g.pair_friction = o->cp[5];
    o->g.pair_solref = o->cp[6];
    o->g.pair_solimp = o->cp[7];
}

static void grads_free(grad_outputs* o) {
    for (int k = 0; k < 8; k++) {
        free(o->cp[k]);
    }
    free(o->J);
    free(o->qpos0);
    free(o->qtan);
    free(o->qvel0);
    free(o->ctrl);
    free(o->param);
    free(o->status);
}

// random cotangents for nb entries
static void make_cotangents(const gdnModel* m, int nb, int T, unsigned long long seed,
                            double** cq, double** cv) {
    unsigned long long rng = seed;
    *cq = malloc(sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)(m->nq + 1));
    *cv = malloc(sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)(m->nv + 1));
    for (int i = 0; i < nb * (T + 1) * m->nq; i++) {
        (*cq)[i] = gdn_test_uniform(&rng, -1, 1);
    }
    for (int i = 0; i < nb * (T + 1) * m->nv; i++) {
        (*cv)[i] = gdn_test_uniform(&rng, -1, 1);
    }
}

// the serial reference of a gradient batch: gdn_adjoint_rollout_gradient per entry on one tape
// (entry b on models[b] or models[0]), the qpos0 gradients of both conventions assembled as
// docs/batch.md says; the contact-parameter arrays when contact_params. 0 when every entry ran
static int serial_gradients(const gdnModel* const* models, int nmodel, const batch_inputs* in,
                            const double* cq_all, const double* cv_all, int contact_params,
                            grad_outputs* ref) {
    const gdnModel* m0 = models[0];
    const int nq = m0->nq, nv = m0->nv, nu = m0->nu, np = m0->nbody * 10, T = in->T;
    gdnTape* tape = NULL;
    char err[256];
    CHECK(gdn_tape_create(m0, T, 1, &tape, err, sizeof(err)) == GDN_OK);
    double* gtan = malloc(sizeof(double) * (size_t)(nv + 1));
    double* g0 = malloc(sizeof(double) * (size_t)(nv + 1));
    double* qn = malloc(sizeof(double) * (size_t)(nq + 1));
    int fail = 0;
    for (int b = 0; b < in->nbatch && !fail; b++) {
        const gdnModel* m = models[nmodel == 1 ? 0 : b];
        gdnRollout r;
        gdn_rollout_init(m, T, &r);
        r.qpos0 = in->qpos0 + b * nq;
        r.qvel0 = in->qvel0 + b * nv;
        r.ctrl = in->ctrl + (size_t)b * T * (size_t)nu;
        ref_cost c = {cq_all + (size_t)b * (T + 1) * nq, cv_all + (size_t)b * (T + 1) * nv,
                      r.qpos0};
        gdnObjective obj = {.terminal = {ref_cost_fn, &c, 0}, .running = {ref_cost_fn, &c, 0}};
        gdnAdjointGradients g;
        memset(&g, 0, sizeof(g));
        g.qpos0 = gtan;
        g.qvel0 = ref->qvel0 + b * nv;
        g.ctrl = ref->ctrl + (size_t)b * T * nu;
        g.param = ref->param + b * np;
        if (contact_params) {
            double** dst[8] = {&g.vert, &g.geom_friction, &g.geom_solref, &g.geom_solimp,
                               &g.geom_size, &g.pair_friction, &g.pair_solref, &g.pair_solimp};
            for (int k = 0; k < 8; k++) {
                *dst[k] = ref->cp[k] + b * cp_size(m0, k);
            }
        }
        gdnStatus st = gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &g, err, sizeof(err));
        if (st != GDN_OK) {
            fprintf(stderr, "reference entry %d: %s\n", b, err);
            fail = 1;
            break;
        }
        ref->J[b] = g.J;
        gdn_tangent_grad_to_qpos(m, r.qpos0, gtan, ref->qpos0 + b * nq);
        for (int i = 0; i < nq; i++) {
            ref->qpos0[b * nq + i] += c.cq[i];
        }
        memcpy(qn, r.qpos0, sizeof(double) * (size_t)nq);
        gdn_normalize_quat(m, qn);
        gdn_qpos_grad_to_tangent(m, qn, c.cq, g0);
        for (int i = 0; i < nv; i++) {
            ref->qtan[b * nv + i] = gtan[i] + g0[i];
        }
    }
    free(gtan);
    free(g0);
    free(qn);
    gdn_tape_free(tape);
    return fail;
}

// the batch gradient equals gdn_adjoint_rollout_gradient per entry bit for bit, at every thread
// count
static int adjoint_case(const char* file, int as_is, int nb, int T, double qnoise) {
    gdnModel* m = as_is ? gdn_test_load_model_as_is(file) : gdn_test_load_model(file);
    CHECK(m);
    const gdnModel* models[1] = {m};
    const int nq = m->nq, nv = m->nv, nu = m->nu, np = m->nbody * 10;
    batch_inputs in;
    inputs_make(m, nb, T, qnoise, 0.5, 0.5, 4242, &in);
    // quaternions within GDN_ADJOINT_QUAT_TOL (passed as they are)
    for (int b = 0; b < nb; b++) {
        gdn_normalize_quat(m, in.qpos0 + b * nq);
    }
    double *cq, *cv;
    make_cotangents(m, nb, T, 31, &cq, &cv);
    grad_outputs ref, out;
    grads_alloc(m, nb, T, &ref);
    grads_alloc(m, nb, T, &out);
    const int contact_params = !m->penalty.enabled && m->nmesh == 0;
    if (contact_params) {
        grads_want_contact(m, nb, &ref);
        grads_want_contact(m, nb, &out);
    }
    // the reference: one tape, the entries in order
    char err[256];
    CHECK(serial_gradients(models, 1, &in, cq, cv, contact_params, &ref) == 0);
    int fail = 0;
    for (int k = 0; k < NTHREAD_COUNTS; k++) {
        CHECK(gdn_adjoint_batch(models, 1, nb, T, in.qpos0, in.qvel0, in.ctrl, cq, cv,
                                thread_counts[k], &out.g, out.status, err,
                                sizeof(err)) == GDN_OK);
        for (int b = 0; b < nb; b++) {
            if (out.status[b].status != GDN_OK) {
                fprintf(stderr, "%s: entry %d: %s\n", file, b, out.status[b].message);
                fail = 1;
            }
        }
        if (memcmp(out.J, ref.J, sizeof(double) * nb) ||
            memcmp(out.qpos0, ref.qpos0, sizeof(double) * nb * nq) ||
            memcmp(out.qtan, ref.qtan, sizeof(double) * nb * nv) ||
            memcmp(out.qvel0, ref.qvel0, sizeof(double) * nb * nv) ||
            memcmp(out.ctrl, ref.ctrl, sizeof(double) * nb * T * nu) ||
            memcmp(out.param, ref.param, sizeof(double) * nb * np)) {
            fprintf(stderr, "%s: nthread %d: the batch gradient differs from the serial one\n",
                    file, thread_counts[k]);
            fail = 1;
        }
        for (int c = 0; contact_params && c < 8; c++) {
            if (memcmp(out.cp[c], ref.cp[c], sizeof(double) * (size_t)(nb * cp_size(m, c)))) {
                fprintf(stderr, "%s: nthread %d: contact parameter gradient %d differs\n", file,
                        thread_counts[k], c);
                fail = 1;
            }
        }
    }
    // a NULL output is skipped, the others unchanged (without param the parameter channels
    // are skipped: the other gradients keep their bits)
    gdnBatchGradients some = {.qpos0 = out.qpos0, .qvel0 = out.qvel0};
    for (size_t i = 0; i < (size_t)(nb * nq); i++) {
        out.qpos0[i] = NAN; // (written again below, or the comparison fails)
    }
    for (size_t i = 0; i < (size_t)(nb * nv); i++) {
        out.qvel0[i] = NAN;
    }
    CHECK(gdn_adjoint_batch(models, 1, nb, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 2, &some,
                            out.status, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(out.qpos0, ref.qpos0, sizeof(double) * nb * nq) == 0);
    CHECK(memcmp(out.qvel0, ref.qvel0, sizeof(double) * nb * nv) == 0);
    double cpmax = 0;
    for (int c = 0; contact_params && c < 8; c++) {
        for (int i = 0; i < nb * cp_size(m, c); i++) {
            cpmax = fmax(cpmax, fabs(out.cp[c][i]));
        }
    }
    printf("  %s: %d entries x %d steps: the batch gradient equals the serial adjoint bit for "
           "bit at 1, 2, 3, 7 threads%s (largest contact-parameter gradient %.3g)\n", file, nb,
           T, fail ? ": NO" : "", cpmax);
    free(cq);
    free(cv);
    grads_free(&ref);
    grads_free(&out);
    inputs_free(&in);
    gdn_model_free(m);
    return fail;
}

static int test_adjoint_serial_equal(void) {
    int fail = 0;
    fail |= adjoint_case("double_pendulum.xml", 0, 5, 100, 0.3);
    fail |= adjoint_case("adj_free_leg.xml", 0, 6, 80, 0.05);
    fail |= adjoint_case("adj_ball.xml", 0, 4, 80, 0.05);
    fail |= adjoint_case("cnstr_pendulum.xml", 1, 4, 100, 0.05);
    fail |= adjoint_case("scene_drop_box.xml", 1, 3, 120, 0.01);
    fail |= adjoint_case(MUJOCO_MODELS "/humanoid/humanoid.xml", 1, 3, 150, 0.01);
    return fail;
}

// domain randomization in the gradient batch: entry b equals a one-entry batch on models[b]
// (itself equal to gdn_adjoint_rollout_gradient, adjoint_serial_equal), the parameter
// gradients included, and the entries differ
static int test_adjoint_domain_randomization(void) {
    enum { NB = 4, T = 80 };
    gdnModel* models[NB];
    for (int b = 0; b < NB; b++) {
        models[b] = gdn_test_load_model("adj_free_leg.xml");
        CHECK(models[b]);
        gdnInertia in;
        gdn_body_inertia(models[b], 2, &in);
        in.mass *= 1 + 0.2 * b;
        in.com[0] += 0.01 * b;
        CHECK(gdn_model_set_body_inertia(models[b], 2, &in) == GDN_OK);
    }
    const gdnModel* m = models[0];
    const int nq = m->nq, nv = m->nv, nu = m->nu, np = m->nbody * 10;
    batch_inputs in;
    inputs_make(m, NB, T, 0.0, 0.5, 0.5, 71, &in);
    double *cq, *cv;
    make_cotangents(m, NB, T, 72, &cq, &cv);
    grad_outputs all, one;
    grads_alloc(m, NB, T, &all);
    grads_alloc(m, 1, T, &one);
    char err[256];
    CHECK(gdn_adjoint_batch((const gdnModel* const*)models, NB, NB, T, in.qpos0, in.qvel0,
                            in.ctrl, cq, cv, 3, &all.g, all.status, err, sizeof(err)) == GDN_OK);
    for (int b = 0; b < NB; b++) {
        const gdnModel* mb[1] = {models[b]};
        CHECK(all.status[b].status == GDN_OK);
        CHECK(gdn_adjoint_batch(mb, 1, 1, T, in.qpos0 + b * nq, in.qvel0 + b * nv,
                                in.ctrl + (size_t)b * T * nu, cq + (size_t)b * (T + 1) * nq,
                                cv + (size_t)b * (T + 1) * nv, 1, &one.g, one.status, err,
                                sizeof(err)) == GDN_OK);
        CHECK(one.status[0].status == GDN_OK);
        CHECK(all.J[b] == one.J[0]);
        CHECK(memcmp(all.qpos0 + b * nq, one.qpos0, sizeof(double) * nq) == 0);
        CHECK(memcmp(all.qvel0 + b * nv, one.qvel0, sizeof(double) * nv) == 0);
        CHECK(memcmp(all.ctrl + (size_t)b * T * nu, one.ctrl, sizeof(double) * T * nu) == 0);
        CHECK(memcmp(all.param + b * np, one.param, sizeof(double) * np) == 0);
    }
    CHECK(all.param[2 * 10] != all.param[np + 2 * 10]);
    printf("  adj_free_leg, 4 leg masses: entry b == a batch on models[b] alone, bit for bit\n");
    free(cq);
    free(cv);
    grads_free(&all);
    grads_free(&one);
    inputs_free(&in);
    for (int b = 0; b < NB; b++) {
        gdn_model_free(models[b]);
    }
    return 0;
}

// J of the rollout batch's outputs for the linear objective (cq, cv): entry 0
static double rollout_J(const gdnModel* m, int T, const double* qpos0, const double* qvel0,
                        const double* ctrl, const double* cq, const double* cv,
                        batch_outputs* o) {
    const gdnModel* models[1] = {m};
    char err[256];
    if (gdn_rollout_batch(models, 1, 1, T, qpos0, qvel0, ctrl, 1, o->qpos, o->qvel, NULL,
                          o->status, err, sizeof(err)) != GDN_OK ||
        o->status[0].status != GDN_OK) {
        return NAN;
    }
    double J = 0;
    for (int t = 0; t <= T; t++) {
        double v = 0;
        for (int i = 0; i < m->nq; i++) {
            v += cq[t * m->nq + i] * o->qpos[t * m->nq + i];
        }
        for (int i = 0; i < m->nv; i++) {
            v += cv[t * m->nv + i] * o->qvel[t * m->nv + i];
        }
        J += v;
    }
    return J;
}

// dJ/dqpos0 (raw qpos coordinates), dJ/dqvel0 and dJ/dctrl against central differences of the
// rollout map; quat_scale scales the quaternions of qpos0 off unit norm
static int fd_case(const char* file, int T, double quat_scale) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    const gdnModel* models[1] = {m};
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    batch_inputs in;
    inputs_make(m, 1, T, 0.2, 0.8, 0.5, 2024, &in);
    gdn_normalize_quat(m, in.qpos0);
    int nquat = 0;
    for (int j = 0; j < m->njnt; j++) {
        int type = m->jnt_type[j];
        if (type == GDN_JNT_FREE || type == GDN_JNT_BALL) {
            double* q = in.qpos0 + m->jnt_qposadr[j] + (type == GDN_JNT_FREE ? 3 : 0);
            for (int k = 0; k < 4; k++) {
                q[k] *= quat_scale;
            }
            nquat++;
        }
    }
    double *cq, *cv;
    make_cotangents(m, 1, T, 555, &cq, &cv);
    grad_outputs g;
    grads_alloc(m, 1, T, &g);
    char err[256];
    CHECK(gdn_adjoint_batch(models, 1, 1, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g,
                            g.status, err, sizeof(err)) == GDN_OK);
    if (g.status[0].status != GDN_OK) {
        fprintf(stderr, "%s\n", g.status[0].message);
        return 1;
    }
    batch_outputs o;
    outputs_alloc(m, 1, T, &o);
    const double J0 = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
    CHECK_NEAR(g.J[0], J0, 1e-12, 1e-12);
    const double h = 1e-6;
    double* fd = malloc(sizeof(double) * (size_t)(nq + nv + T * nu));
    // raw qpos coordinates, every one (quaternion components too, off the unit sphere)
    for (int i = 0; i < nq; i++) {
        double x = in.qpos0[i];
        in.qpos0[i] = x + h;
        double jp = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.qpos0[i] = x - h;
        double jm = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.qpos0[i] = x;
        fd[i] = (jp - jm) / (2 * h);
    }
    CHECK_ARRAY_REL(g.qpos0, fd, nq, 1e-6, 1.0);
    double e_q = gdn_test_relerr(g.qpos0, fd, nq, 1.0);
    // qvel0
    for (int i = 0; i < nv; i++) {
        double x = in.qvel0[i];
        in.qvel0[i] = x + h;
        double jp = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.qvel0[i] = x - h;
        double jm = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.qvel0[i] = x;
        fd[i] = (jp - jm) / (2 * h);
    }
    CHECK_ARRAY_REL(g.qvel0, fd, nv, 1e-6, 1.0);
    // a few controls
    for (int i = 0; i < T * nu; i += 7) {
        double x = in.ctrl[i];
        in.ctrl[i] = x + h;
        double jp = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.ctrl[i] = x - h;
        double jm = rollout_J(m, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &o);
        in.ctrl[i] = x;
        CHECK_NEAR(g.ctrl[i], (jp - jm) / (2 * h), 1e-6, 1e-7);
    }
    // the tangent version: the gradient along normalize(q0) (+) delta
    double* qn = malloc(sizeof(double) * (size_t)nq);
    double* qp = malloc(sizeof(double) * (size_t)nq);
    double* dv = calloc((size_t)nv, sizeof(double));
    memcpy(qn, in.qpos0, sizeof(double) * (size_t)nq);
    gdn_normalize_quat(m, qn);
    for (int i = 0; i < nv; i++) {
        double jpm[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            memcpy(qp, qn, sizeof(double) * (size_t)nq);
            memset(dv, 0, sizeof(double) * (size_t)nv);
            dv[i] = sgn ? -h : h;
            gdn_integrate_pos(m, qp, dv, 1.0);
            jpm[sgn] = rollout_J(m, T, qp, in.qvel0, in.ctrl, cq, cv, &o);
        }
        fd[i] = (jpm[0] - jpm[1]) / (2 * h);
    }
    // row 0 is raw: when q0 is off unit the tangent version values row 0 at normalize(q0)
    // (+) delta, which the finite difference above does too
    CHECK_ARRAY_REL(g.qtan, fd, nv, 1e-6, 1.0);
    double e_t = gdn_test_relerr(g.qtan, fd, nv, 1.0);
    printf("  %s (%d quaternions, |q| = %g), T %d: dJ/dqpos0 raw vs central differences %.2g, "
           "tangent %.2g\n", file, nquat, quat_scale, T, e_q, e_t);
    free(qn);
    free(qp);
    free(dv);
    free(fd);
    outputs_free(&o);
    grads_free(&g);
    free(cq);
    free(cv);
    inputs_free(&in);
    gdn_model_free(m);
    return 0;
}

static int test_adjoint_qpos_convention(void) {
    int fail = 0;
    fail |= fd_case("double_pendulum.xml", 60, 1.0);
    fail |= fd_case("adj_free_leg.xml", 60, 1.0);
    fail |= fd_case("adj_free_leg.xml", 60, 1.0 + 3e-7); // within GDN_ADJOINT_QUAT_TOL
    fail |= fd_case("adj_free_leg.xml", 60, 1.3);        // normalized before the adjoint
    fail |= fd_case("adj_ball.xml", 60, 0.8);
    return fail;
}

// a failing entry of the gradient batch: reported with its step and message, NaN outputs, the
// others exact
static int test_adjoint_entry_errors(void) {
    enum { NB = 4, T = 60 };
    gdnModel* m = gdn_test_load_model("double_pendulum.xml");
    CHECK(m);
    const gdnModel* models[1] = {m};
    batch_inputs in;
    inputs_make(m, NB, T, 0.3, 0.5, 0.5, 9, &in);
    in.qvel0[2 * m->nv] = 1e300;
    double *cq, *cv;
    make_cotangents(m, NB, T, 3, &cq, &cv);
    grad_outputs a, b;
    grads_alloc(m, NB, T, &a);
    grads_alloc(m, NB, T, &b);
    char err[256];
    CHECK(gdn_adjoint_batch(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 3, &a.g,
                            a.status, err, sizeof(err)) == GDN_OK);
    CHECK(a.status[2].status == GDN_ERR_NONFINITE);
    CHECK(a.status[2].step >= 0);
    CHECK(strncmp(a.status[2].message, "entry 2: step", 13) == 0);
    printf("  %s\n", a.status[2].message);
    CHECK(isnan(a.J[2]) && isnan(a.qpos0[2 * m->nq]) && isnan(a.qvel0[2 * m->nv]) &&
          isnan(a.ctrl[2 * T * m->nu]) && isnan(a.qtan[2 * m->nv]));
    // the other entries as in a batch without the failing one
    in.qvel0[2 * m->nv] = 0;
    CHECK(gdn_adjoint_batch(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &b.g,
                            b.status, err, sizeof(err)) == GDN_OK);
    for (int e = 0; e < NB; e++) {
        CHECK(b.status[e].status == GDN_OK);
        if (e != 2) {
            CHECK(a.status[e].status == GDN_OK);
            CHECK(a.J[e] == b.J[e]);
            CHECK(memcmp(a.qpos0 + e * m->nq, b.qpos0 + e * m->nq, sizeof(double) * m->nq) == 0);
            CHECK(memcmp(a.ctrl + e * T * m->nu, b.ctrl + e * T * m->nu,
                         sizeof(double) * T * m->nu) == 0);
        }
    }
    // a vanishing quaternion: GDN_ERR_ARG for that entry only
    gdnModel* f = gdn_test_load_model("adj_free_leg.xml");
    CHECK(f);
    const gdnModel* fm[1] = {f};
    batch_inputs fin;
    inputs_make(f, 2, 20, 0.0, 0.5, 0.5, 10, &fin);
    memset(fin.qpos0 + f->nq + 3, 0, 4 * sizeof(double));
    grad_outputs fg;
    grads_alloc(f, 2, 20, &fg);
    CHECK(gdn_adjoint_batch(fm, 1, 2, 20, fin.qpos0, fin.qvel0, fin.ctrl, NULL, NULL, 2, &fg.g,
                            fg.status, err, sizeof(err)) == GDN_OK);
    CHECK(fg.status[0].status == GDN_OK && fg.status[1].status == GDN_ERR_ARG);
    CHECK(fg.status[1].step == -1 && isnan(fg.qpos0[f->nq]));
    // no cotangents: J = 0 and zero gradients
    CHECK(fg.J[0] == 0 && fg.qpos0[0] == 0 && fg.qvel0[0] == 0);
    printf("  %s\n", fg.status[1].message);
    grads_free(&fg);
    inputs_free(&fin);
    gdn_model_free(f);
    // an unconverged solve on one model of a domain-randomized batch (iterations 1)
    gdnModel* dm[3];
    for (int e = 0; e < 3; e++) {
        dm[e] = gdn_test_load_model_as_is("scene_drop_box.xml");
        CHECK(dm[e]);
    }
    dm[1]->opt.iterations = 1;
    dm[1]->opt.tolerance = 1e-14;
    batch_inputs din;
    inputs_make(dm[0], 3, 300, 0.0, 0.0, 0.0, 11, &din);
    grad_outputs dg;
    grads_alloc(dm[0], 3, 300, &dg);
    double *dcq, *dcv;
    make_cotangents(dm[0], 3, 300, 12, &dcq, &dcv);
    CHECK(gdn_adjoint_batch((const gdnModel* const*)dm, 3, 3, 300, din.qpos0, din.qvel0,
                            din.ctrl, dcq, dcv, 2, &dg.g, dg.status, err, sizeof(err)) == GDN_OK);
    printf("  domain-randomized entry with 1 solver iteration: %s (%s)\n",
           dg.status[1].message[0] ? dg.status[1].message : "ok",
           gdn_status_string(dg.status[1].status));
    CHECK(dg.status[0].status == GDN_OK && dg.status[2].status == GDN_OK);
    CHECK(dg.status[1].status == GDN_ERR_UNCONVERGED && dg.status[1].step > 0);
    CHECK(isnan(dg.J[1]) && isfinite(dg.J[0]) && isfinite(dg.J[2]));
    // entries 0 and 2 as with the default model for all
    grad_outputs dref;
    grads_alloc(dm[0], 3, 300, &dref);
    CHECK(gdn_adjoint_batch((const gdnModel* const*)dm, 1, 3, 300, din.qpos0, din.qvel0,
                            din.ctrl, dcq, dcv, 1, &dref.g, dref.status, err,
                            sizeof(err)) == GDN_OK);
    CHECK(dref.J[0] == dg.J[0] && dref.J[2] == dg.J[2]);
    CHECK(memcmp(dref.qpos0, dg.qpos0, sizeof(double) * (size_t)dm[0]->nq) == 0);
    grads_free(&dref);
    free(dcq);
    free(dcv);
    grads_free(&dg);
    inputs_free(&din);
    for (int e = 0; e < 3; e++) {
        gdn_model_free(dm[e]);
    }
    free(cq);
    free(cv);
    grads_free(&a);
    grads_free(&b);
    inputs_free(&in);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- hostile inputs

static int test_hostile_inputs(void) {
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    CHECK(m);
    CHECK(m->nu > 0);
    const gdnModel* models[2] = {m, m};
    const gdnModel* with_null[2] = {m, NULL};
    enum { NB = 2, T = 10 };
    batch_inputs in;
    inputs_make(m, NB, T, 0.1, 0.1, 0.1, 1, &in);
    batch_outputs o;
    outputs_alloc(m, NB, T, &o);
    grad_outputs g;
    grads_alloc(m, NB, T, &g);
    double *cq, *cv;
    make_cotangents(m, NB, T, 2, &cq, &cv);
    char err[256];
#define ROLL(mods, nm, nb, t, q, v, u, nt, oq, ov, st_)                                       \
    gdn_rollout_batch(mods, nm, nb, t, q, v, u, nt, oq, ov, NULL, st_, err, sizeof(err))
    CHECK(ROLL(NULL, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(with_null, 2, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(strstr(err, "models[1]"));
    CHECK(ROLL(models, 3, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 0, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, 0, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, -5, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, 0, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, -1, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, -1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(strstr(err, "nthread"));
    CHECK(ROLL(models, 1, NB, T, NULL, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, NULL, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, NULL, 1, o.qpos, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, NULL, o.qvel, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, NULL, o.status) ==
          GDN_ERR_ARG);
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, NULL) ==
          GDN_ERR_ARG);
    // sizes that overflow are refused before any allocation
    CHECK(ROLL(models, 1, INT_MAX, INT_MAX, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel,
               o.status) == GDN_ERR_ARG);
    CHECK(strstr(err, "overflow"));
    // non-finite inputs name the entry
    const double nan_inf[2] = {NAN, INFINITY};
    for (int k = 0; k < 2; k++) {
        double save = in.qpos0[m->nq + 1];
        in.qpos0[m->nq + 1] = nan_inf[k];
        CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
              GDN_ERR_NONFINITE);
        CHECK(strstr(err, "entry 1") && strstr(err, "qpos0"));
        in.qpos0[m->nq + 1] = save;
        save = in.qvel0[0];
        in.qvel0[0] = nan_inf[k];
        CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
              GDN_ERR_NONFINITE);
        in.qvel0[0] = save;
        save = in.ctrl[(T + 3) * m->nu - 1];
        in.ctrl[(T + 3) * m->nu - 1] = nan_inf[k];
        CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel, o.status) ==
              GDN_ERR_NONFINITE);
        CHECK(strstr(err, "entry 1") && strstr(err, "ctrl[1][2]"));
        in.ctrl[(T + 3) * m->nu - 1] = save;
    }
    // a NULL or empty error buffer
    CHECK(gdn_rollout_batch(models, 1, 0, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel,
                            NULL, o.status, NULL, 0) == GDN_ERR_ARG);
    CHECK(gdn_rollout_batch(models, 1, 0, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel,
                            NULL, o.status, err, 0) == GDN_ERR_ARG);
    CHECK(gdn_rollout_batch(models, 1, 0, T, in.qpos0, in.qvel0, in.ctrl, 1, o.qpos, o.qvel,
                            NULL, o.status, err, 1) == GDN_ERR_ARG);
    CHECK(err[0] == '\0');
    // options out of range on the model: every entry reports gdn_step's GDN_ERR_ARG at step 0
    double ts = m->opt.timestep;
    m->opt.timestep = -1;
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, 2, o.qpos, o.qvel, o.status) ==
          GDN_OK);
    CHECK(o.status[0].status == GDN_ERR_ARG && o.status[0].step == 0);
    CHECK(o.status[1].status == GDN_ERR_ARG && isnan(o.qpos[(T + 1) * m->nq + m->nq]));
    m->opt.timestep = ts;
    // huge thread counts are capped
    CHECK(ROLL(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, INT_MAX, o.qpos, o.qvel,
               o.status) == GDN_OK);
    CHECK(o.status[0].status == GDN_OK && o.status[1].status == GDN_OK);
#undef ROLL
    // the gradient batch: the same checks, NULL out, non-finite cotangents
#define GRAD(mods, nm, nb, t, q, v, u, c1, c2, nt, out_, st_)                                 \
    gdn_adjoint_batch(mods, nm, nb, t, q, v, u, c1, c2, nt, out_, st_, err, sizeof(err))
    CHECK(GRAD(NULL, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_ARG);
    CHECK(GRAD(models, 1, NB, 0, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_ARG);
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, -2, &g.g, g.status) ==
          GDN_ERR_ARG);
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, NULL, g.status) ==
          GDN_ERR_ARG);
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, NULL) ==
          GDN_ERR_ARG);
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, NULL, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_ARG);
    cq[(T + 1) * m->nq + 3] = NAN;
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_NONFINITE);
    CHECK(strstr(err, "entry 1") && strstr(err, "cqpos"));
    cq[(T + 1) * m->nq + 3] = 0;
    cv[5] = INFINITY;
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_NONFINITE);
    cv[5] = 0;
    in.qvel0[1] = NAN;
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &g.g, g.status) ==
          GDN_ERR_NONFINITE);
    in.qvel0[1] = 0;
    CHECK(GRAD(models, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, 0, &g.g, g.status) ==
          GDN_OK);
    CHECK(g.status[0].status == GDN_OK && g.status[1].status == GDN_OK);
#undef GRAD
    // the pull-back ignores NULL
    gdn_tangent_grad_to_qpos(NULL, in.qpos0, in.qvel0, g.qpos0);
    gdn_tangent_grad_to_qpos(m, NULL, in.qvel0, g.qpos0);
    gdn_tangent_grad_to_qpos(m, in.qpos0, NULL, g.qpos0);
    gdn_tangent_grad_to_qpos(m, in.qpos0, in.qvel0, NULL);
    free(cq);
    free(cv);
    grads_free(&g);
    outputs_free(&o);
    inputs_free(&in);
    gdn_model_free(m);
    return 0;
}

// the pull-back inverts gdn_qpos_grad_to_tangent at unit quaternions
static int test_pullback_identity(void) {
    gdnModel* m = gdn_test_load_model("ball_chain.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 17;
    gdn_test_random_qpos(m, d, &rng);
    double* gt = malloc(sizeof(double) * (size_t)m->nv);
    double* gq = malloc(sizeof(double) * (size_t)m->nq);
    double* back = malloc(sizeof(double) * (size_t)m->nv);
    for (int i = 0; i < m->nv; i++) {
        gt[i] = gdn_test_uniform(&rng, -1, 1);
    }
    gdn_tangent_grad_to_qpos(m, d->qpos, gt, gq);
    gdn_qpos_grad_to_tangent(m, d->qpos, gq, back);
    CHECK_ARRAY_REL(back, gt, m->nv, 1e-14, 1.0);
    free(gt);
    free(gq);
    free(back);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- the batch pool

// 1 when the gradient outputs of nb entries are equal bit for bit (contact: the contact
// parameters too)
static int grads_equal(const gdnModel* m, int nb, int T, int contact, const grad_outputs* a,
                       const grad_outputs* b) {
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nu = (size_t)m->nu;
    int eq = memcmp(a->J, b->J, sizeof(double) * (size_t)nb) == 0 &&
             memcmp(a->qpos0, b->qpos0, sizeof(double) * (size_t)nb * nq) == 0 &&
             memcmp(a->qtan, b->qtan, sizeof(double) * (size_t)nb * nv) == 0 &&
             memcmp(a->qvel0, b->qvel0, sizeof(double) * (size_t)nb * nv) == 0 &&
             memcmp(a->ctrl, b->ctrl, sizeof(double) * (size_t)nb * (size_t)T * nu) == 0 &&
             memcmp(a->param, b->param, sizeof(double) * (size_t)nb * (size_t)m->nbody * 10) == 0;
    for (int k = 0; contact && k < 8; k++) {
        eq = eq && memcmp(a->cp[k], b->cp[k], sizeof(double) * (size_t)(nb * cp_size(m, k))) == 0;
    }
    return eq;
}

// the calls of one pool test: entries and steps, growing and shrinking T and nbatch
static const int pool_calls[][2] = {{4, 30}, {2, 10}, {7, 45}, {3, 45}, {5, 20}, {1, 60}};
#define NPOOL_CALLS 6

// domain-randomized copies of file: entry b's model with its bodies' masses scaled
static int load_randomized(const char* file, int n, gdnModel** models) {
    for (int b = 0; b < n; b++) {
        models[b] = gdn_test_load_model_as_is(file);
        CHECK(models[b]);
        for (int body = 1; body < models[b]->nbody; body++) {
            gdnInertia in;
            gdn_body_inertia(models[b], body, &in);
            const double s = 1 + 0.1 * b * (body % 2 ? 1 : -1) / n;
            in.mass *= s;
            for (int k = 0; k < 9; k++) {
                in.inertia[k] *= s;
            }
            CHECK(gdn_model_set_body_inertia(models[b], body, &in) == GDN_OK);
        }
    }
    return 0;
}

// one pool per thread count running the calls of pool_calls in turn: every rollout equals the
// serial gdn_step loops and gdn_rollout_batch bit for bit, every gradient
// gdn_adjoint_rollout_gradient per entry and gdn_adjoint_batch bit for bit; randomized: a
// model per entry (of the 7 made) instead of one shared
static int pool_case(const char* file, int randomized, int contact) {
    gdnModel* models[7];
    CHECK(load_randomized(file, 7, models) == 0);
    const gdnModel* m = models[0];
    int fail = 0;
    for (int k = 0; k < NTHREAD_COUNTS && !fail; k++) {
        gdnBatchPool* pool = NULL;
        char err[256];
        CHECK(gdn_batch_pool_create(m, thread_counts[k], &pool, err, sizeof(err)) == GDN_OK);
        CHECK(gdn_batch_pool_nthread(pool) == thread_counts[k]);
        for (int c = 0; c < NPOOL_CALLS && !fail; c++) {
            const int nb = pool_calls[c][0], T = pool_calls[c][1];
            const int nmodel = randomized ? nb : 1;
            const gdnModel* const* ms = (const gdnModel* const*)models;
            batch_inputs in;
            inputs_make(m, nb, T, 0.01, 0.3, 0.4, 900 + (unsigned long long)(10 * k + c), &in);
            for (int b = 0; b < nb; b++) {
                gdn_normalize_quat(m, in.qpos0 + b * m->nq);
            }
            // the rollout: pool == serial loops == one-shot call
            batch_outputs ref, one, got;
            outputs_alloc(m, nb, T, &ref);
            outputs_alloc(m, nb, T, &one);
            outputs_alloc(m, nb, T, &got);
            const size_t nqb = sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)m->nq;
            const size_t nvb = sizeof(double) * (size_t)nb * (size_t)(T + 1) * (size_t)m->nv;
            const size_t ncb = sizeof(int) * (size_t)nb * (size_t)(T + 1);
            memset(got.qpos, 0xab, nqb);
            CHECK(serial_batch(ms, nmodel, &in, &ref) == 0);
            CHECK(gdn_rollout_batch(ms, nmodel, nb, T, in.qpos0, in.qvel0, in.ctrl,
                                    thread_counts[k], one.qpos, one.qvel, one.ncon, one.status,
                                    err, sizeof(err)) == GDN_OK);
            CHECK(gdn_batch_pool_rollout(pool, ms, nmodel, nb, T, in.qpos0, in.qvel0, in.ctrl,
                                         got.qpos, got.qvel, got.ncon, got.status, err,
                                         sizeof(err)) == GDN_OK);
            for (int b = 0; b < nb; b++) {
                CHECK(got.status[b].status == GDN_OK && got.status[b].step == -1);
            }
            if (memcmp(got.qpos, ref.qpos, nqb) || memcmp(got.qvel, ref.qvel, nvb) ||
                memcmp(got.ncon, ref.ncon, ncb) || memcmp(got.qpos, one.qpos, nqb) ||
                memcmp(got.qvel, one.qvel, nvb) || memcmp(got.ncon, one.ncon, ncb)) {
                fprintf(stderr, "%s: pool of %d threads, call %d (%d x %d): the rollout "
                        "differs\n", file, thread_counts[k], c, nb, T);
                fail = 1;
            }
            // the gradient: pool == gdn_adjoint_rollout_gradient per entry == one-shot call
            double *cq, *cv;
            make_cotangents(m, nb, T, 1000 + (unsigned long long)c, &cq, &cv);
            grad_outputs gref, gone, ggot;
            grads_alloc(m, nb, T, &gref);
            grads_alloc(m, nb, T, &gone);
            grads_alloc(m, nb, T, &ggot);
            if (contact) {
                grads_want_contact(m, nb, &gref);
                grads_want_contact(m, nb, &gone);
                grads_want_contact(m, nb, &ggot);
            }
            CHECK(serial_gradients(ms, nmodel, &in, cq, cv, contact, &gref) == 0);
            CHECK(gdn_adjoint_batch(ms, nmodel, nb, T, in.qpos0, in.qvel0, in.ctrl, cq, cv,
                                    thread_counts[k], &gone.g, gone.status, err,
                                    sizeof(err)) == GDN_OK);
            CHECK(gdn_batch_pool_adjoint(pool, ms, nmodel, nb, T, in.qpos0, in.qvel0, in.ctrl,
                                         cq, cv, &ggot.g, ggot.status, err,
                                         sizeof(err)) == GDN_OK);
            for (int b = 0; b < nb; b++) {
                if (ggot.status[b].status != GDN_OK) {
                    fprintf(stderr, "%s\n", ggot.status[b].message);
                    fail = 1;
                }
            }
            if (!grads_equal(m, nb, T, contact, &ggot, &gref) ||
                !grads_equal(m, nb, T, contact, &ggot, &gone)) {
                fprintf(stderr, "%s: pool of %d threads, call %d (%d x %d): the gradient "
                        "differs\n", file, thread_counts[k], c, nb, T);
                fail = 1;
            }
            grads_free(&gref);
            grads_free(&gone);
            grads_free(&ggot);
            free(cq);
            free(cv);
            outputs_free(&ref);
            outputs_free(&one);
            outputs_free(&got);
            inputs_free(&in);
        }
        gdn_batch_pool_free(pool);
    }
    printf("  %s%s: pools of 1, 2, 3, 7 threads, %d calls each (T 30, 10, 45, 45, 20, 60; "
           "nbatch 4, 2, 7, 3, 5, 1): rollouts and gradients %s\n", file,
           randomized ? " (a model per entry)" : "", NPOOL_CALLS,
           fail ? "DIFFER" : "equal the serial and one-shot calls bit for bit");
    for (int b = 0; b < 7; b++) {
        gdn_model_free(models[b]);
    }
    return fail;
}

static int test_pool_equal(void) {
    int fail = 0;
    fail |= pool_case("double_pendulum.xml", 0, 1);
    fail |= pool_case("adj_free_leg.xml", 1, 1);
    fail |= pool_case("scene_drop_box.xml", 0, 1);
    fail |= pool_case(MUJOCO_MODELS "/humanoid/humanoid.xml", 1, 0);
    return fail;
}

// repeated calls with the same or a smaller T and nbatch allocate nothing: the pool's
// allocation count and every worker's data and tape stay as they are; a longer T grows the
// tapes (the count moves), more entries give the next worker its memory
static int test_pool_no_allocation(void) {
    gdnModel* m = gdn_test_load_model_as_is(MUJOCO_MODELS "/humanoid/humanoid.xml");
    CHECK(m);
    const gdnModel* ms[1] = {m};
    gdnBatchPool* pool = NULL;
    char err[256];
    CHECK(gdn_batch_pool_create(m, 2, &pool, err, sizeof(err)) == GDN_OK);
    const size_t n0 = gdn_batch_pool_allocations(pool);
    CHECK(n0 > 0);
    batch_inputs in;
    inputs_make(m, 4, 40, 0.01, 0.1, 0.3, 5150, &in);
    batch_outputs o;
    outputs_alloc(m, 4, 40, &o);
    grad_outputs g;
    grads_alloc(m, 4, 40, &g);
    double *cq, *cv;
    make_cotangents(m, 4, 40, 5151, &cq, &cv);
#define ROLL(nb, T)                                                                         \
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, nb, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,     \
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_OK)
#define GRAD(nb, T)                                                                         \
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, nb, T, in.qpos0, in.qvel0, in.ctrl, cq, cv,     \
                                 &g.g, g.status, err, sizeof(err)) == GDN_OK)
    // one entry: worker 0's data only
    ROLL(1, 40);
    CHECK(gdn_batch_pool_allocations(pool) == n0 + 1);
    CHECK(pool->workers[0].data && !pool->workers[1].data);
    // two entries or more: worker 1's data too, then nothing
    ROLL(4, 40);
    const size_t n1 = gdn_batch_pool_allocations(pool);
    CHECK(n1 == n0 + 2);
    const gdnData* d0 = pool->workers[0].data;
    const gdnData* d1 = pool->workers[1].data;
    for (int r = 0; r < 5; r++) {
        ROLL(4, 40);
        ROLL(2, 10);
        ROLL(3, 40);
    }
    CHECK(gdn_batch_pool_allocations(pool) == n1);
    CHECK(pool->workers[0].data == d0 && pool->workers[1].data == d1);
    // the first gradient: a tape and a buffer per worker
    GRAD(4, 30);
    const size_t n2 = gdn_batch_pool_allocations(pool);
    CHECK(n2 == n1 + 4);
    CHECK(pool->workers[0].tape_steps == 30 && pool->workers[1].tape_steps == 30);
    const gdnTape* t0 = pool->workers[0].tape;
    const gdnTape* t1 = pool->workers[1].tape;
    for (int r = 0; r < 5; r++) {
        GRAD(4, 30);
        GRAD(2, 12);
        GRAD(4, 1);
        ROLL(4, 40); // rollouts do not touch the tapes, nor the tapes the data
    }
    CHECK(gdn_batch_pool_allocations(pool) == n2);
    CHECK(pool->workers[0].tape == t0 && pool->workers[1].tape == t1);
    // a longer T: both tapes replaced by tapes of 40 steps, then nothing again
    GRAD(4, 40);
    const size_t n3 = gdn_batch_pool_allocations(pool);
    CHECK(n3 == n2 + 2);
    CHECK(pool->workers[0].tape_steps == 40 && pool->workers[1].tape_steps == 40);
    GRAD(4, 40);
    GRAD(3, 25);
    CHECK(gdn_batch_pool_allocations(pool) == n3);
    // the shrunk call's gradient equals a one-shot call's (a tape longer than T gives the
    // same bits)
    grad_outputs one;
    grads_alloc(m, 4, 40, &one);
    CHECK(gdn_adjoint_batch(ms, 1, 3, 25, in.qpos0, in.qvel0, in.ctrl, cq, cv, 1, &one.g,
                            one.status, err, sizeof(err)) == GDN_OK);
    CHECK(grads_equal(m, 3, 25, 0, &g, &one));
    printf("  humanoid, 2 workers: %zu allocations at creation, %zu after the rollouts, %zu "
           "after the gradients of T 30, %zu after T 40; 15 repeated rollouts and 20 gradients "
           "of T <= 40 allocated nothing\n", n0, n1, n2, n3);
#undef ROLL
#undef GRAD
    grads_free(&one);
    free(cq);
    free(cv);
    grads_free(&g);
    outputs_free(&o);
    inputs_free(&in);
    gdn_batch_pool_free(pool);
    gdn_model_free(m);
    return 0;
}

// models of other sizes than the pool's are refused naming the size; a failing call (a NaN
// control) or a diverging entry leaves the pool usable: the next call equals the serial loops
static int test_pool_errors(void) {
    gdnModel* m = gdn_test_load_model_as_is("double_pendulum.xml");
    gdnModel* other = gdn_test_load_model_as_is("pendulum.xml");
    CHECK(m && other);
    enum { NB = 4, T = 50 };
    gdnBatchPool* pool = NULL;
    char err[256];
    CHECK(gdn_batch_pool_create(m, 3, &pool, err, sizeof(err)) == GDN_OK);
    batch_inputs in;
    inputs_make(m, NB, T, 0.3, 0.5, 0.5, 4711, &in);
    batch_outputs o, ref;
    outputs_alloc(m, NB, T, &o);
    outputs_alloc(m, NB, T, &ref);
    grad_outputs g, gref;
    grads_alloc(m, NB, T, &g);
    grads_alloc(m, NB, T, &gref);
    double *cq, *cv;
    make_cotangents(m, NB, T, 4712, &cq, &cv);
    const gdnModel* ms[1] = {m};
    const gdnModel* wrong[1] = {other};
    const gdnModel* mixed[NB] = {m, m, other, m};
    // other sizes: the pool's (models[0]) and the batch's (models[2])
    CHECK(gdn_batch_pool_rollout(pool, wrong, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "models[0] has nq 1") && strstr(err, "pool was created for nq 2"));
    printf("  %s\n", err);
    CHECK(gdn_batch_pool_adjoint(pool, wrong, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv,
                                 &g.g, g.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "pool was created for nq 2"));
    CHECK(gdn_batch_pool_rollout(pool, mixed, NB, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "models[2] has nq 1"));
    // a NaN control: refused before anything runs, naming the entry and the step
    const size_t at = (size_t)2 * T * (size_t)m->nu + (size_t)(T / 2) * (size_t)m->nu;
    in.ctrl[at] = NAN;
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_ERR_NONFINITE);
    CHECK(strstr(err, "entry 2") && strstr(err, "ctrl[2][25]"));
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &g.g,
                                 g.status, err, sizeof(err)) == GDN_ERR_NONFINITE);
    in.ctrl[at] = 0.1;
    // a diverging entry (its state overflows during the rollout): reported, the others exact
    const double saved = in.qvel0[1 * m->nv + 1];
    in.qvel0[1 * m->nv + 1] = 1e150;
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, o.ncon, o.status, err, sizeof(err)) == GDN_OK);
    CHECK(o.status[1].status == GDN_ERR_NONFINITE && o.status[1].step >= 0);
    CHECK(o.status[0].status == GDN_OK && o.status[2].status == GDN_OK);
    CHECK(isnan(o.qpos[(size_t)(2 * (T + 1) - 1) * (size_t)m->nq]));
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &g.g,
                                 g.status, err, sizeof(err)) == GDN_OK);
    CHECK(g.status[1].status == GDN_ERR_NONFINITE && isnan(g.J[1]));
    CHECK(g.status[0].status == GDN_OK && g.status[3].status == GDN_OK);
    printf("  pool, diverging entry: %s\n", g.status[1].message);
    // the pool still works: the next calls equal the serial references bit for bit
    in.qvel0[1 * m->nv + 1] = saved;
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, o.ncon, o.status, err, sizeof(err)) == GDN_OK);
    CHECK(serial_batch(ms, 1, &in, &ref) == 0);
    CHECK(memcmp(o.qpos, ref.qpos, sizeof(double) * NB * (T + 1) * (size_t)m->nq) == 0);
    CHECK(memcmp(o.qvel, ref.qvel, sizeof(double) * NB * (T + 1) * (size_t)m->nv) == 0);
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &g.g,
                                 g.status, err, sizeof(err)) == GDN_OK);
    CHECK(serial_gradients(ms, 1, &in, cq, cv, 0, &gref) == 0);
    for (int b = 0; b < NB; b++) {
        CHECK(g.status[b].status == GDN_OK);
    }
    CHECK(grads_equal(m, NB, T, 0, &g, &gref));
    // NULL arguments
    CHECK(gdn_batch_pool_rollout(NULL, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_batch_pool_adjoint(NULL, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, &g.g,
                                 g.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, NULL, o.qvel,
                                 NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, cq, cv, NULL,
                                 g.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_batch_pool_rollout(pool, NULL, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, NULL, 0) == GDN_ERR_ARG);
    gdnBatchPool* none = (gdnBatchPool*)&in; // overwritten with NULL on error
    CHECK(gdn_batch_pool_create(NULL, 1, &none, err, sizeof(err)) == GDN_ERR_ARG && !none);
    CHECK(gdn_batch_pool_create(m, -1, &none, err, sizeof(err)) == GDN_ERR_ARG && !none);
    CHECK(strstr(err, "nthread"));
    CHECK(gdn_batch_pool_create(m, 1, NULL, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_batch_pool_nthread(NULL) == 0);
    gdn_batch_pool_free(NULL);
    // nthread 0: one worker per core; huge counts capped
    gdnBatchPool* p0 = NULL;
    CHECK(gdn_batch_pool_create(m, 0, &p0, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_batch_pool_nthread(p0) == gdn_batch_workers(0, GDN_BATCH_MAX_THREADS));
    gdn_batch_pool_free(p0);
    CHECK(gdn_batch_pool_create(m, INT_MAX, &p0, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_batch_pool_nthread(p0) <= GDN_BATCH_MAX_THREADS);
    CHECK(gdn_batch_pool_rollout(p0, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos, o.qvel,
                                 NULL, o.status, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(o.qpos, ref.qpos, sizeof(double) * NB * (T + 1) * (size_t)m->nq) == 0);
    gdn_batch_pool_free(p0);
    free(cq);
    free(cv);
    grads_free(&g);
    grads_free(&gref);
    outputs_free(&o);
    outputs_free(&ref);
    inputs_free(&in);
    gdn_batch_pool_free(pool);
    gdn_model_free(other);
    gdn_model_free(m);
    return 0;
}

// a concurrent call on one pool: the pool's flag held (as a running call holds it) makes every
// call return GDN_ERR_ARG at once without writing the outputs; two threads calling one pool
// repeatedly get either a correct result or that refusal, never anything else
typedef struct pool_hammer {
    gdnBatchPool* pool;
    const gdnModel* const* models;
    const batch_inputs* in;
    const batch_outputs* ref;
    int calls, ok, busy, wrong;
} pool_hammer;

static void* hammer_main(void* arg) {
    pool_hammer* h = arg;
    const gdnModel* m = h->models[0];
    const int nb = h->in->nbatch, T = h->in->T;
    batch_outputs o;
    outputs_alloc(m, nb, T, &o);
    char err[256];
    for (int r = 0; r < h->calls; r++) {
        gdnStatus st = gdn_batch_pool_rollout(h->pool, h->models, 1, nb, T, h->in->qpos0,
                                              h->in->qvel0, h->in->ctrl, o.qpos, o.qvel, NULL,
                                              o.status, err, sizeof(err));
        if (st == GDN_OK &&
            memcmp(o.qpos, h->ref->qpos, sizeof(double) * (size_t)nb * (size_t)(T + 1) *
                                             (size_t)m->nq) == 0) {
            h->ok++;
        } else if (st == GDN_ERR_ARG && strstr(err, "busy")) {
            h->busy++;
        } else {
            h->wrong++;
        }
    }
    outputs_free(&o);
    return NULL;
}

static int test_pool_busy(void) {
    gdnModel* m = gdn_test_load_model_as_is("scene_drop_box.xml");
    CHECK(m);
    const gdnModel* ms[1] = {m};
    enum { NB = 3, T = 60 };
    gdnBatchPool* pool = NULL;
    char err[256];
    CHECK(gdn_batch_pool_create(m, 2, &pool, err, sizeof(err)) == GDN_OK);
    batch_inputs in;
    inputs_make(m, NB, T, 0.01, 0.3, 0.3, 77, &in);
    batch_outputs o, ref;
    outputs_alloc(m, NB, T, &o);
    outputs_alloc(m, NB, T, &ref);
    grad_outputs g;
    grads_alloc(m, NB, T, &g);
    CHECK(serial_batch(ms, 1, &in, &ref) == 0);
    // held: refused, the outputs untouched
    CHECK(gdn_batch_pool_acquire(pool, err, sizeof(err)) == GDN_OK);
    memset(o.qpos, 0x5a, sizeof(double) * NB * (T + 1) * (size_t)m->nq);
    const double marker = o.qpos[0];
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "busy"));
    printf("  %s\n", err);
    CHECK(gdn_batch_pool_adjoint(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, NULL, NULL,
                                 &g.g, g.status, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(strstr(err, "busy"));
    CHECK(memcmp(&o.qpos[0], &marker, sizeof(double)) == 0);
    gdn_batch_pool_release(pool);
    CHECK(gdn_batch_pool_rollout(pool, ms, 1, NB, T, in.qpos0, in.qvel0, in.ctrl, o.qpos,
                                 o.qvel, NULL, o.status, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(o.qpos, ref.qpos, sizeof(double) * NB * (T + 1) * (size_t)m->nq) == 0);
    // two threads on one pool
    pool_hammer h[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        h[i] = (pool_hammer){.pool = pool, .models = ms, .in = &in, .ref = &ref, .calls = 40};
        CHECK(pthread_create(&th[i], NULL, hammer_main, &h[i]) == 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
    }
    CHECK(h[0].wrong == 0 && h[1].wrong == 0);
    CHECK(h[0].ok + h[0].busy == 40 && h[1].ok + h[1].busy == 40);
    CHECK(h[0].ok + h[1].ok > 0);
    printf("  two threads x 40 rollouts on one pool: %d ran (bit for bit), %d refused as busy, "
           "0 other\n", h[0].ok + h[1].ok, h[0].busy + h[1].busy);
    grads_free(&g);
    outputs_free(&o);
    outputs_free(&ref);
    inputs_free(&in);
    gdn_batch_pool_free(pool);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"rollout_test_models", test_rollout_test_models},
    {"rollout_mujoco_models", test_rollout_mujoco_models},
    {"rollout_small_batches", test_rollout_small_batches},
    {"rollout_solvers", test_rollout_solvers},
    {"rollout_domain_randomization", test_rollout_domain_randomization},
    {"rollout_divergence", test_rollout_divergence},
    {"adjoint_serial_equal", test_adjoint_serial_equal},
    {"adjoint_domain_randomization", test_adjoint_domain_randomization},
    {"adjoint_qpos_convention", test_adjoint_qpos_convention},
    {"adjoint_entry_errors", test_adjoint_entry_errors},
    {"pullback_identity", test_pullback_identity},
    {"hostile_inputs", test_hostile_inputs},
    {"pool_equal", test_pool_equal},
    {"pool_no_allocation", test_pool_no_allocation},
    {"pool_errors", test_pool_errors},
    {"pool_busy", test_pool_busy},
};

GDN_TEST_MAIN(cases)
