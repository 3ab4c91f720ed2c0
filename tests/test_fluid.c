// SPDX-License-Identifier: Apache-2.0
// The medium's fluid forces (MuJoCo 2.2.2's inertia-box model and its ellipsoid model with the
// compiler's virtual mass and inertia: density, viscosity, wind) against MuJoCo's compiled
// geom_fluid and qfrc_passive at random states and along rollouts (Euler and RK4), and their
// exact derivatives: the step JVP vs central differences, the dot-product identity, A, B vs the
// JVPs and the trajectory adjoint vs FD, every case on both models; the inertia parameters'
// channel through the box law (kBoxes) and its refusal where moments coincide
// (gdn_test_fluid_water).
//
// Tolerances: qfrc_passive 1e-12 relative to its scale (the same law evaluated on velocities
// that agree to round-off; gradyn sums the wrench about the world origin where MuJoCo applies it
// at the COM, which moves the last bits); rollouts 1e-9 relative per step (constraints off, as
// test_oracle_rollout) and 1e-6 in qpos with contacts; derivatives as test_rk4's (relative
// 1e-6; the drag |l| l is C1 with a kink in its second derivative at l = 0, which the states
// drawn here never sit on).
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "runner/fluid_scenes.h"
#include "runner/models.h"
#include "runner/test.h"

// the scene under test (test_main runs every case on both)
static const char* g_xml = gdn_test_fluid_water;

static double inf_norm(const double* a, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        r = fabs(a[i]) <= r ? r : fabs(a[i]);
    }
    return r;
}

static int open_both(const char* xml, gdnOracle* o, int constraints) {
    char path[GDN_ORACLE_TMP_PATH];
    if (gdn_oracle_tmp_xml(xml, path)) {
        return 1;
    }
    const int status = gdn_oracle_load(o, path);
    remove(path);
    if (status) {
        return 1;
    }
    if (constraints) {
        o->gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
        o->mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    }
    return 0;
}

static int test_loaded(void) {
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(g_xml, strlen(g_xml), NULL, &m, err, sizeof(err), NULL, 0) ==
          GDN_OK);
    CHECK(m->opt.density == 1000 && m->opt.viscosity == 0.0009);
    CHECK(m->opt.wind[0] == 0.3 && m->opt.wind[1] == -0.2 && m->opt.wind[2] == 0.1);
    gdn_model_free(m);
    return 0;
}

// qfrc_passive equal to MuJoCo's at random states: water, air without wind, viscosity alone
static int test_passive_oracle(void) {
    static const double media[3][5] = {
        {1000, 0.0009, 0.3, -0.2, 0.1}, {1.2, 0, 0, 0, 0}, {0, 0.5, 0, 0, 0}};
    for (int c = 0; c < 3; c++) {
        gdnOracle o;
        CHECK(open_both(g_xml, &o, 0) == 0);
        o.gm->opt.density = o.mm->opt.density = media[c][0];
        o.gm->opt.viscosity = o.mm->opt.viscosity = media[c][1];
        for (int k = 0; k < 3; k++) {
            o.gm->opt.wind[k] = o.mm->opt.wind[k] = media[c][2 + k];
        }
        unsigned long long rng = 0x1234567887654321ULL + (unsigned long long)c;
        double worst = 0;
        for (int s = 0; s < 50; s++) {
            gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL, 3.0);
            CHECK(gdn_forward(o.gm, o.gd) == GDN_OK);
            mj_forward(o.mm, o.md);
            const double scale = fmax(inf_norm(o.md->qfrc_passive, o.gm->nv), 1e-3);
            for (int i = 0; i < o.gm->nv; i++) {
                worst = gdn_oracle_worst(
                    worst, fabs(o.gd->qfrc_passive[i] - o.md->qfrc_passive[i]) / scale);
            }
        }
        printf("  density %g viscosity %g wind (%g %g %g): qfrc_passive vs MuJoCo %.2e "
               "(50 states)\n",
               media[c][0], media[c][1], media[c][2], media[c][3], media[c][4], worst);
        gdn_oracle_free(&o);
        CHECK(worst <= 1e-12);
    }
    return 0;
}

static int rollout(int rk4, int constraints) {
    gdnOracle o;
    CHECK(open_both(g_xml, &o, constraints) == 0);
    o.gm->opt.integrator = rk4 ? GDN_INT_RK4 : GDN_INT_EULER;
    o.mm->opt.integrator = rk4 ? mjINT_RK4 : mjINT_EULER;
    unsigned long long rng = 0xABCDEF0123456789ULL;
    gdn_oracle_random_state(&o, &rng, GDN_RAND_QVEL, 2.0);
    double* scratch = calloc((size_t)o.gm->nv + 1, sizeof(double));
    double worst = 0;
    int maxcon = 0;
    for (int k = 0; k < 400; k++) {
        mj_step(o.mm, o.md);
        CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
        maxcon = o.gd->ncon > maxcon ? o.gd->ncon : maxcon;
        double e = gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, scratch);
        if (!constraints) {
            e /= fmax(inf_norm(o.md->qpos, o.gm->nq), 1);
        }
        worst = gdn_oracle_worst(worst, e);
    }
    printf("  %s, %s: 400 steps in water (up to %d contacts): worst qpos error %.2e\n",
           rk4 ? "RK4" : "Euler", constraints ? "contacts on" : "constraints off", maxcon, worst);
    free(scratch);
    gdn_oracle_free(&o);
    CHECK(!constraints || maxcon > 0);
    CHECK(worst <= (constraints ? 1e-6 : 1e-9));
    return 0;
}

static int test_rollouts(void) {
    for (int rk4 = 0; rk4 < 2; rk4++) {
        for (int c = 0; c < 2; c++) {
            CHECK(rollout(rk4, c) == 0);
        }
    }
    return 0;
}

// ------------------------------------------------------------------ derivatives

static int step_at(const gdnModel* m, gdnData* d, const double* q0, const double* v0,
                   const double* dq, const double* dv, double s, double* out) {
    memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)m->nv);
    gdn_integrate_pos(m, d->qpos, dq, s);
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] += s * dv[i];
    }
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
    if (gdn_step(m, d) != GDN_OK) {
        return 1;
    }
    memcpy(out, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(out + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    return 0;
}

// constrained: the states are those of a rollout in contact with the floor (Newton at 1e-12,
// warm start off, Richardson's fourth-order quotient at eps 1e-5, samples on the nominal row
// count only)
static int derivatives(int rk4, int constrained) {
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(g_xml, strlen(g_xml), NULL, &m, err, sizeof(err), NULL, 0) ==
          GDN_OK);
    if (constrained) {
        m->opt.tolerance = 1e-12;
        m->opt.iterations = 1000;
        m->opt.disableflags |= GDN_DSBL_WARMSTART;
    } else {
        m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    }
    m->opt.integrator = rk4 ? GDN_INT_RK4 : GDN_INT_EULER;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, n = 2 * nv;
    unsigned long long rng = 0x0F1E2D3C4B5A6978ULL;
    double* buf = calloc(12 * (size_t)(nq + nv) + 2 * (size_t)n * (size_t)n, sizeof(double));
    double* q0 = buf;
    double* v0 = q0 + nq;
    double* dq = v0 + nv;
    double* dv = dq + nv;
    double* jq = dv + nv;
    double* jv = jq + nv;
    double* wq = jv + nv;
    double* wv = wq + nv;
    double* gq = wv + nv;
    double* gv = gq + nv;
    double* xp = gv + nv;
    double* xm = xp + nq + nv;
    double* fq = xm + nq + nv;
    double* A = fq + nv + nq;
    double* xp2 = calloc(2 * (size_t)(nq + nv) + (size_t)nv, sizeof(double));
    double* xm2 = xp2 + nq + nv;
    double* fq2 = xm2 + nq + nv;
    double worst_fd = 0, worst_dot = 0, worst_a = 0;
    int compared = 0, with_rows = 0;
    for (int s = 0; s < 5; s++) {
        if (constrained) {
            // in contact, moving: the ellipsoid law's Kutta and drag terms are homogeneous of
            // degree 0 and 1 in v, their curvature ~1/|v|, so resting bodies would leave the
            // central quotient's truncation error, not the derivative, to be measured
            for (int k = 0; k < 60; k++) {
                CHECK(gdn_step(m, d) == GDN_OK);
            }
            for (int i = 0; i < nv; i++) {
                d->qvel[i] += gdn_test_uniform(&rng, -0.5, 0.5);
            }
        } else {
            gdn_test_random_qpos_qvel(m, d, &rng);
        }
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        for (int i = 0; i < nv; i++) {
            dq[i] = gdn_test_uniform(&rng, -1, 1);
            dv[i] = gdn_test_uniform(&rng, -1, 1);
            wq[i] = gdn_test_uniform(&rng, -1, 1);
            wv[i] = gdn_test_uniform(&rng, -1, 1);
        }
        memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_jvp(m, d, dq, dv, NULL, NULL, NULL, jq, jv) == GDN_OK);
        const int nefc0 = d->nefc;
        with_rows += nefc0 > 0;
        const double eps = constrained ? 1e-5 : 1e-6;
        int same = 1;
        CHECK(step_at(m, d, q0, v0, dq, dv, eps, xp) == 0);
        same &= d->nefc == nefc0;
        CHECK(step_at(m, d, q0, v0, dq, dv, -eps, xm) == 0);
        same &= d->nefc == nefc0;
        gdn_difference_pos(m, fq, 2 * eps, xm, xp);
        if (constrained) {
            CHECK(step_at(m, d, q0, v0, dq, dv, 2 * eps, xp2) == 0);
            same &= d->nefc == nefc0;
            CHECK(step_at(m, d, q0, v0, dq, dv, -2 * eps, xm2) == 0);
            same &= d->nefc == nefc0;
            gdn_difference_pos(m, fq2, 4 * eps, xm2, xp2);
        }
        double scale = fmax(fmax(inf_norm(jq, nv), inf_norm(jv, nv)), 1), e = 0, kink = 0;
        // with rows, also a central quotient at eps / 100: a sample whose quotients disagree
        // crossed a row's activation or state inside one of the step's stages (an RK4 stage's
        // rows are not visible in the row count after the step), and is not on one branch
        double f7[64];
        double xs7p[128], xs7m[128];
        const int smooth_check = constrained && nq + nv <= 128 && nv <= 64;
        if (smooth_check) {
            CHECK(step_at(m, d, q0, v0, dq, dv, eps / 100, xs7p) == 0);
            CHECK(step_at(m, d, q0, v0, dq, dv, -eps / 100, xs7m) == 0);
            gdn_difference_pos(m, f7, eps / 50, xs7m, xs7p);
        }
        for (int i = 0; i < nv; i++) {
            double fqi = fq[i], fv = (xp[nq + i] - xm[nq + i]) / (2 * eps);
            if (constrained) {
                fqi = (4 * fqi - fq2[i]) / 3;
                fv = (4 * fv - (xp2[nq + i] - xm2[nq + i]) / (4 * eps)) / 3;
            }
            if (smooth_check) {
                const double fv7 = (xs7p[nq + i] - xs7m[nq + i]) / (eps / 50);
                kink = fmax(kink, fmax(fabs(fqi - f7[i]), fabs(fv - fv7)) / scale);
            }
            e = gdn_oracle_worst(e, fmax(fabs(fqi - jq[i]), fabs(fv - jv[i])) / scale);
        }
        same &= !(kink > 1e-5);
        if (same) {
            worst_fd = gdn_oracle_worst(worst_fd, e);
            compared++;
        }
        // the rollout continues from the sampled state
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        // <w, J u> = <J' w, u>
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_vjp(m, d, wq, wv, gq, gv, NULL, NULL, NULL) == GDN_OK);
        double lhs = 0, rhs = 0, mag = 0;
        for (int i = 0; i < nv; i++) {
            lhs += wq[i] * jq[i] + wv[i] * jv[i];
            rhs += gq[i] * dq[i] + gv[i] * dv[i];
            mag += fabs(wq[i] * jq[i]) + fabs(wv[i] * jv[i]);
        }
        worst_dot = gdn_oracle_worst(worst_dot, fabs(lhs - rhs) / mag);
        // A [dq; dv] = the JVP
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        CHECK(gdn_transition_jacobians(m, d, A, NULL) == GDN_OK);
        e = 0;
        for (int r = 0; r < n; r++) {
            double y = 0;
            for (int c = 0; c < nv; c++) {
                y += A[(size_t)r * n + c] * dq[c] + A[(size_t)r * n + nv + c] * dv[c];
            }
            e = gdn_oracle_worst(e, fabs(y - (r < nv ? jq[r] : jv[r - nv])) / scale);
        }
        worst_a = gdn_oracle_worst(worst_a, e);
    }
    printf("  %s, %s: JVP vs FD %.2e (%d of 5 states on one branch), dot identity %.2e, A vs "
           "JVP %.2e\n",
           rk4 ? "RK4" : "Euler", constrained ? "in contact" : "constraints off", worst_fd,
           compared, worst_dot, worst_a);
    free(xp2);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(compared >= 3);
    CHECK(!constrained || with_rows == 5);
    CHECK(worst_fd <= 1e-6);
    CHECK(worst_dot <= 1e-12);
    CHECK(worst_a <= 1e-10);
    return 0;
}

static int test_derivatives(void) {
    for (int rk4 = 0; rk4 < 2; rk4++) {
        for (int c = 0; c < 2; c++) {
            CHECK(derivatives(rk4, c) == 0);
        }
    }
    return 0;
}

// dJ/dv0 of a 50-step rollout in water vs central differences (Euler and RK4)
// a T-step rollout in a medium from v0 = vscale sin(0.7 i + 0.3) with constraints off and a
// target objective on body's point, taped: the shared setup of the adjoint checks below
typedef struct {
    gdnModel* m;
    gdnData* d;
    double* v0;
    gdnRollout r;
    gdnTargetObjective spec; // the objective reads it (kept with it)
    gdnObjective obj;
    gdnTape* tape;
} waterRun;

static int water_begin(const char* xml, int integrator, int T, double vscale, int body,
                       const double point[3], waterRun* w) {
    memset(w, 0, sizeof(*w));
    char err[512];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &w->m, err, sizeof(err), NULL, 0) ==
          GDN_OK);
    w->m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    w->m->opt.integrator = integrator;
    CHECK(gdn_data_create(w->m, &w->d) == GDN_OK);
    const int nv = w->m->nv;
    w->v0 = calloc((size_t)nv, sizeof(double));
    CHECK(w->v0);
    for (int i = 0; i < nv; i++) {
        w->v0[i] = vscale * sin(0.7 * i + 0.3);
    }
    gdn_rollout_init(w->m, T, &w->r);
    w->r.qpos0 = w->d->qpos;
    w->r.qvel0 = w->v0;
    w->spec = (gdnTargetObjective){.body = body, .target = {0.2, 1.1, 0.8}, .weight = 1,
                                   .vel_weight = 1e-2};
    memcpy(w->spec.point, point, sizeof(w->spec.point));
    CHECK(gdn_objective_target(w->m, &w->spec, &w->obj) == GDN_OK);
    CHECK(gdn_tape_create(w->m, T, 1, &w->tape, NULL, 0) == GDN_OK);
    return 0;
}

static void water_end(waterRun* w) {
    gdn_tape_free(w->tape);
    free(w->v0);
    gdn_data_free(w->d);
    gdn_model_free(w->m);
}

static int adjoint(int rk4) {
    waterRun w;
    const double point[3] = {0, 0, 0};
    CHECK(water_begin(g_xml, rk4 ? GDN_INT_RK4 : GDN_INT_EULER, 50, 0.5, 3, point, &w) == 0);
    const int nv = w.m->nv;
    double* g = calloc((size_t)nv, sizeof(double));
    char err[512];
    gdnAdjointGradients out = {.qvel0 = g};
    CHECK(gdn_adjoint_rollout_gradient(w.m, &w.r, &w.obj, w.tape, &out, err, sizeof(err)) ==
          GDN_OK);
    double worst = 0;
    const double scale = inf_norm(g, nv);
    for (int i = 0; i < nv; i++) {
        const double keep = w.v0[i];
        double Jp, Jm;
        w.v0[i] = keep + 1e-6;
        CHECK(gdn_rollout_objective(w.m, &w.r, &w.obj, w.tape, &Jp, err, sizeof(err)) == GDN_OK);
        w.v0[i] = keep - 1e-6;
        CHECK(gdn_rollout_objective(w.m, &w.r, &w.obj, w.tape, &Jm, err, sizeof(err)) == GDN_OK);
        w.v0[i] = keep;
        worst = gdn_oracle_worst(worst, fabs((Jp - Jm) / 2e-6 - g[i]) / scale);
    }
    printf("  %s: 50 steps in water: dJ/dv0 vs FD %.2e\n", rk4 ? "RK4" : "Euler", worst);
    free(g);
    water_end(&w);
    CHECK(worst <= 1e-6);
    return 0;
}

static int test_adjoint(void) {
    CHECK(adjoint(0) == 0);
    CHECK(adjoint(1) == 0);
    return 0;
}

// the parameter channel of a model in water with equal-moment bodies (gdn_test_fluid_water:
// capsules, a square box) is refused by name (no derivative exists there), never a wrong dJ/dpi
static int test_param_refused(void) {
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(g_xml, strlen(g_xml), NULL, &m, err, sizeof(err), NULL, 0) ==
          GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, np = GDN_N_INERTIA_PARAMS * m->nbody;
    double* b = calloc(4 * (size_t)nv + 2 * (size_t)np, sizeof(double));
    double *o1 = b, *o2 = b + nv, *w = b + 2 * nv, *p = b + 4 * nv, *gp = p + np;
    p[GDN_N_INERTIA_PARAMS] = 1;
    CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, p, NULL, o1, o2) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_step_vjp(m, d, w, w, o1, o2, NULL, gp, NULL) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_step_jvp(m, d, w, w, NULL, NULL, NULL, o1, o2) == GDN_OK);
    gdnRollout r;
    gdn_rollout_init(m, 5, &r);
    r.qpos0 = d->qpos;
    r.qvel0 = d->qvel;
    gdnTargetObjective spec = {.body = 1, .target = {0, 0, 1}, .weight = 1};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, 5, 1, &tape, NULL, 0) == GDN_OK);
    gdnAdjointGradients out = {.param = gp};
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) ==
          GDN_ERR_UNSUPPORTED);
    CHECK(strstr(err, "fluid") != NULL);
    gdn_tape_free(tape);
    free(b);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the ellipsoid model's compiled coefficients equal MuJoCo's; then every case again on it
static int test_ellipsoid(void) {
    gdnOracle o;
    CHECK(open_both(gdn_test_fluid_ellipsoid, &o, 0) == 0);
    double worst = 0;
    int on = 0;
    for (int g = 0; g < o.gm->ngeom; g++) {
        on += o.gm->geom_fluid[GDN_NFLUID * g] > 0;
        for (int k = 0; k < GDN_NFLUID; k++) {
            const double a = o.gm->geom_fluid[GDN_NFLUID * g + k];
            const double b = o.mm->geom_fluid[GDN_NFLUID * g + k];
            worst = gdn_oracle_worst(worst, fabs(a - b) / fmax(fabs(b), 1e-300));
        }
    }
    printf("  %d ellipsoid geoms: geom_fluid vs MuJoCo's compiler %.2e relative\n", on, worst);
    gdn_oracle_free(&o);
    CHECK(on == 5);
    CHECK(worst <= 1e-14);
    g_xml = gdn_test_fluid_ellipsoid;
    int failed = test_passive_oracle() || test_rollouts() || test_derivatives() || test_adjoint();
    g_xml = gdn_test_fluid_water;
    CHECK(!failed);
    return 0;
}

// every body in the ellipsoid model (gdn_test_fluid_ellipsoid with the box's geom on too): the
// model reads the geoms, not the inertias, so the inertia-parameter channel is exact and not
// refused (step JVP along every body's parameters vs central FD through
// gdn_model_set_body_inertia); the geom-size channel (semi-axes, virtual inertia) is refused by
// name
static int test_param_ellipsoid(void) {
    char* xml = malloc(strlen(gdn_test_fluid_ellipsoid) + 17);
    CHECK(xml);
    memcpy(xml, gdn_test_fluid_ellipsoid, strlen(gdn_test_fluid_ellipsoid) + 1);
    char* off = strstr(xml, "\n              fluidshape='none'/>");
    CHECK(off);
    memmove(off, off + strlen("\n              fluidshape='none'"),
            strlen(off + strlen("\n              fluidshape='none'")) + 1);
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    free(xml);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, nb = m->nbody, n10 = GDN_N_INERTIA_PARAMS;
    double* buf = calloc((size_t)(4 * nq + 8 * nv + nb * n10), sizeof(double));
    double *q0 = buf, *xp = q0 + nq, *xm = xp + nq + nv, *v0 = xm + nq + nv;
    double *oq = v0 + nv, *ov = oq + nv, *fq = ov + nv, *dp = fq + nv;
    double* zero = dp + nb * n10;
    memcpy(q0, m->qpos0, sizeof(double) * (size_t)nq);
    unsigned long long rng = 0xe111ULL;
    for (int k = 0; k < nv; k++) {
        v0[k] = gdn_test_uniform(&rng, -1, 1);
    }
    double worst = 0, mag = 0;
    for (int b = 1; b < nb; b++) {
        gdnInertia I0;
        gdn_body_inertia(m, b, &I0);
        double p0[GDN_N_INERTIA_PARAMS], dir[GDN_N_INERTIA_PARAMS];
        gdn_inertia_params(&I0, p0);
        for (int k = 0; k < n10; k++) {
            dir[k] = gdn_test_uniform(&rng, -1, 1) * (k == 0 ? 0.1 : k < 4 ? 0.01 : 1e-4);
        }
        memset(dp, 0, sizeof(double) * (size_t)(nb * n10));
        memcpy(dp + n10 * b, dir, sizeof(dir));
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, dp, NULL, oq, ov) == GDN_OK);
        const double eps = 1e-6;
        for (int side = 0; side < 2; side++) {
            double p[GDN_N_INERTIA_PARAMS];
            for (int k = 0; k < n10; k++) {
                p[k] = p0[k] + (side ? -eps : eps) * dir[k];
            }
            gdnInertia I;
            gdn_inertia_from_params(p, &I);
            CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
            CHECK(step_at(m, d, q0, v0, zero, zero, 0, side ? xm : xp) == 0);
        }
        CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
        gdn_difference_pos(m, fq, 2 * eps, xm, xp);
        for (int k = 0; k < nv; k++) {
            const double fv = (xp[nq + k] - xm[nq + k]) / (2 * eps);
            worst = fmax(worst, fmax(fabs(fq[k] - oq[k]), fabs(fv - ov[k])));
            mag = fmax(mag, fmax(fabs(fq[k]), fabs(fv)));
        }
    }
    printf("  all-ellipsoid medium: step JVP along every body's inertia parameters vs FD through "
           "the setter %.2e (largest %.2e)\n",
           worst, mag);
    CHECK(worst <= 1e-6 * fmax(mag, 1));
    // the size channel is refused by name
    double* gs = calloc(3 * (size_t)m->ngeom, sizeof(double));
    gdnContactParamGradients cp = {.geom_size = gs};
    CHECK(gdn_step_jvp_contact_params(m, d, NULL, NULL, NULL, NULL, NULL, &cp, oq, ov) ==
          GDN_ERR_UNSUPPORTED);
    free(gs);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// bodies whose principal moments all differ (the box law's axes are differentiable): boxes,
// a two-geom body with a rotated principal frame, a chain with a hinge held on its limit (the
// constrained path) and a ball
static const char kBoxes[] =
    "<mujoco>\n"
    "  <option density='1000' viscosity='0.0009' wind='0.3 -0.2 0.1' timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'><freejoint/>\n"
    "      <geom type='box' size='0.2 0.05 0.02' mass='2'/></body>\n"
    "    <body pos='0 1 1' euler='20 30 40'><freejoint/>\n"
    "      <geom type='ellipsoid' size='0.1 0.2 0.05' mass='0.5'/>\n"
    "      <geom type='sphere' size='0.05' pos='0.1 0.04 0.02' mass='0.1'/></body>\n"
    "    <body pos='-1 0 1'><joint type='hinge' axis='0 1 0' limited='true' range='-0.1 0.1'/>\n"
    "      <geom type='box' size='0.03 0.05 0.2' pos='0 0 -0.2' mass='1'/>\n"
    "      <body pos='0 0 -0.4'><joint type='ball'/>\n"
    "        <geom type='box' size='0.1 0.06 0.02' pos='0 0 -0.1' mass='0.7'/></body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

// x = (qpos, qvel) after one step from (q0, v0) with body b's parameters p (the setter)
static int step_with_params(gdnModel* m, gdnData* d, int b, const double* p, const double* q0,
                            const double* v0, double* x) {
    gdnInertia I;
    gdn_inertia_from_params(p, &I);
    if (gdn_model_set_body_inertia(m, b, &I) != GDN_OK) {
        return 1;
    }
    memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)m->nv);
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
    if (gdn_step(m, d) != GDN_OK) {
        return 1;
    }
    memcpy(x, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(x + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    return 0;
}

// The inertia-box law's parameter channel at random states: the step JVP along each body's 10
// parameters vs central FD through gdn_model_set_body_inertia (eps 1e-6 on directions scaled
// to each parameter's size; relative 1e-6 as the other derivative checks here), and the
// dot-product identity <w, J dp> = <J' w, dp> (relative 1e-12: the same arithmetic transposed;
// 1e-11 under the implicit integrator, whose qDeriv term is a polarization quotient
// (r(v + s a) - r(v - s a)) / 2s that cancels leading digits: 5e-13 there without a medium)
static int param_box(const char* xml, int integrator, int constrained, const char* label) {
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    m->opt.integrator = integrator;
    if (constrained) {
        m->opt.tolerance = 1e-12;
        m->opt.iterations = 1000;
        m->opt.disableflags |= GDN_DSBL_WARMSTART;
    } else {
        m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    }
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, nb = m->nbody, n10 = GDN_N_INERTIA_PARAMS;
    double* buf = calloc((size_t)(3 * nq + 10 * nv) + 2 * (size_t)(nb * n10), sizeof(double));
    double *q0 = buf, *xp = q0 + nq, *xm = xp + nq + nv, *v0 = xm + nq + nv;
    double *oq = v0 + nv, *ov = oq + nv, *fq = ov + nv, *wq = fq + nv, *wv = wq + nv;
    double *dp = wv + nv, *gp = dp + nb * n10;
    unsigned long long rng = 0xb0c5ULL + (unsigned long long)integrator;
    double worst = 0, mag = 0, dot = 0;
    int rows = 0;
    for (int trial = 0; trial < 4; trial++) {
        memcpy(q0, m->qpos0, sizeof(double) * (size_t)nq);
        for (int k = 0; k < nv; k++) {
            v0[k] = gdn_test_uniform(&rng, -2, 2);
        }
        if (constrained) {
            // the hinge beyond its upper limit: its limit row is active
            q0[m->jnt_qposadr[2]] = 0.15;
        }
        for (int b = 1; b < nb; b++) {
            gdnInertia I0;
            gdn_body_inertia(m, b, &I0);
            double p0[GDN_N_INERTIA_PARAMS], dir[GDN_N_INERTIA_PARAMS], p[GDN_N_INERTIA_PARAMS];
            gdn_inertia_params(&I0, p0);
            const double iscale = fmax(fabs(p0[4]), fmax(fabs(p0[5]), fabs(p0[6])));
            for (int k = 0; k < n10; k++) {
                dir[k] = gdn_test_uniform(&rng, -1, 1) *
                         (k == 0 ? 0.1 * p0[0] : k < 4 ? 0.01 : 0.1 * iscale);
            }
            memset(dp, 0, sizeof(double) * (size_t)(nb * n10));
            memcpy(dp + n10 * b, dir, sizeof(dir));
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
            memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
            CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, dp, NULL, oq, ov) == GDN_OK);
            rows = d->nefc > rows ? d->nefc : rows;
            // the identity with a random cotangent
            for (int k = 0; k < nv; k++) {
                wq[k] = gdn_test_uniform(&rng, -1, 1);
                wv[k] = gdn_test_uniform(&rng, -1, 1);
            }
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
            memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
            memset(gp, 0, sizeof(double) * (size_t)(nb * n10)); // gparam accumulates
            CHECK(gdn_step_vjp(m, d, wq, wv, NULL, NULL, NULL, gp, NULL) == GDN_OK);
            double lhs = 0, rhs = 0, size = 0;
            for (int k = 0; k < nv; k++) {
                lhs += wq[k] * oq[k] + wv[k] * ov[k];
                size += fabs(wq[k] * oq[k]) + fabs(wv[k] * ov[k]);
            }
            for (int k = 0; k < nb * n10; k++) {
                rhs += gp[k] * dp[k];
            }
            dot = gdn_oracle_worst(dot, fabs(lhs - rhs) / fmax(size, 1e-300));
            const double eps = 1e-6;
            for (int side = 0; side < 2; side++) {
                for (int k = 0; k < n10; k++) {
                    p[k] = p0[k] + (side ? -eps : eps) * dir[k];
                }
                CHECK(step_with_params(m, d, b, p, q0, v0, side ? xm : xp) == 0);
            }
            CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
            gdn_difference_pos(m, fq, 2 * eps, xm, xp);
            for (int k = 0; k < nv; k++) {
                const double fv = (xp[nq + k] - xm[nq + k]) / (2 * eps);
                worst = fmax(worst, fmax(fabs(fq[k] - oq[k]), fabs(fv - ov[k])));
                mag = fmax(mag, fmax(fabs(fq[k]), fabs(fv)));
            }
        }
    }
    printf("  %s: step JVP along each body's inertia parameters vs FD through the setter %.2e "
           "(largest %.2e, %d rows), dot identity %.2e\n",
           label, worst, mag, rows, dot);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(!constrained || rows > 0);
    CHECK(worst <= 1e-6 * fmax(mag, 1));
    CHECK(dot <= (integrator == GDN_INT_IMPLICIT ? 1e-11 : 1e-12));
    return 0;
}

// dJ/dpi of a 40-step rollout in the medium vs central FD of the objective through the setter
// (relative 1e-6 of the gradient's scale), Euler and RK4
static int param_box_adjoint(int integrator) {
    waterRun w;
    const double point[3] = {0.05, 0, 0};
    CHECK(water_begin(kBoxes, integrator, 40, 1.5, 2, point, &w) == 0);
    gdnModel* m = w.m;
    const int np = GDN_N_INERTIA_PARAMS * m->nbody;
    double* g = calloc((size_t)np, sizeof(double));
    char err[512];
    gdnAdjointGradients out = {.param = g};
    CHECK(gdn_adjoint_rollout_gradient(m, &w.r, &w.obj, w.tape, &out, err, sizeof(err)) ==
          GDN_OK);
    double worst = 0;
    const double scale = inf_norm(g, np);
    for (int b = 1; b < m->nbody; b++) {
        gdnInertia I0, I;
        gdn_body_inertia(m, b, &I0);
        double p0[GDN_N_INERTIA_PARAMS], p[GDN_N_INERTIA_PARAMS];
        gdn_inertia_params(&I0, p0);
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
            const double eps = 1e-6 * (k == 0 ? p0[0] : k < 4 ? 0.1 : p0[4]);
            double J[2];
            for (int side = 0; side < 2; side++) {
                memcpy(p, p0, sizeof(p));
                p[k] += side ? -eps : eps;
                gdn_inertia_from_params(p, &I);
                CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
                CHECK(gdn_rollout_objective(m, &w.r, &w.obj, w.tape, &J[side], err,
                                            sizeof(err)) == GDN_OK);
            }
            CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
            const double fd = (J[0] - J[1]) / (2 * eps);
            worst = gdn_oracle_worst(worst, fabs(fd - g[GDN_N_INERTIA_PARAMS * b + k]) /
                                                fmax(scale, 1e-300));
        }
    }
    printf("  %s: 40 steps in water, bodies with distinct moments: dJ/dpi vs FD %.2e "
           "(largest %.2e)\n",
           integrator == GDN_INT_RK4 ? "RK4" : "Euler", worst, scale);
    free(g);
    water_end(&w);
    CHECK(worst <= 1e-6);
    return 0;
}

// A public model the team did not write (tests/models/public: dm_control's fish, density 5000,
// every body in the inertia-box model): dJ/dpi of a 50-step swim with constant controls vs
// central FD through the setter. The step is 3e-6 of each parameter's scale: the drag's axes
// turn by s_lj / (lambda_j - lambda_l) and the tail's moments differ by ~40% of 1e-7, so the
// quotient's truncation error (second order: 1.4e-4 relative at 1e-4, gradcheck's default)
// needs a small step, and round-off a large one (1.1e-5 at 3e-8); relative 1e-6 of the
// gradient's scale
static int test_param_fish(void) {
    gdnModel* m = gdn_test_load_model_as_is("public/dm_control/fish.xml");
    CHECK(m);
    CHECK(m->opt.density == 5000);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int T = 50, nu = m->nu, np = GDN_N_INERTIA_PARAMS * m->nbody;
    double* u = calloc((size_t)(T * nu) + (size_t)np, sizeof(double));
    double* g = u + T * nu;
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < nu; i++) {
            u[t * nu + i] = 0.5 * sin(0.9 * i + 0.1 * t);
        }
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = d->qpos;
    r.qvel0 = d->qvel;
    r.ctrl = u;
    gdnTargetObjective spec = {.body = m->nbody - 1, .target = {0.1, 0.2, 0.3}, .weight = 1};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    char err[512];
    gdnAdjointGradients out = {.param = g};
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);
    const double scale = inf_norm(g, np);
    double worst = 0;
    int checked = 0;
    for (int b = 1; b < m->nbody; b++) {
        gdnInertia I0, I;
        gdn_body_inertia(m, b, &I0);
        double p0[GDN_N_INERTIA_PARAMS], p[GDN_N_INERTIA_PARAMS];
        gdn_inertia_params(&I0, p0);
        if (m->body_inertiasource[b] == 2) {
            continue; // the compiler's own inertia: the setter refuses it
        }
        const double tr = (p0[4] + p0[5] + p0[6]) / 3;
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
            const double eps = 3e-6 * (k == 0 ? p0[0] : k < 4 ? 0.1 : tr);
            double J[2];
            for (int side = 0; side < 2; side++) {
                memcpy(p, p0, sizeof(p));
                p[k] += side ? -eps : eps;
                gdn_inertia_from_params(p, &I);
                CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
                CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J[side], err, sizeof(err)) ==
                      GDN_OK);
            }
            CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
            const double fd = (J[0] - J[1]) / (2 * eps);
            worst = gdn_oracle_worst(worst, fabs(fd - g[GDN_N_INERTIA_PARAMS * b + k]) /
                                                fmax(scale, 1e-300));
            checked++;
        }
    }
    printf("  dm_control fish (public), %d steps: dJ/dpi vs FD %.2e relative (%d parameters, "
           "largest %.2e)\n",
           T, worst, checked, scale);
    gdn_tape_free(tape);
    free(u);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(checked >= 40);
    CHECK(worst <= 1e-6);
    return 0;
}

// the inertia-box law differentiated in its parameters under every integrator, with and
// without constraint rows; the viscous medium alone (density 0, rotation-invariant law) is
// not refused even for gdn_test_fluid_water's equal-moment capsules
static int test_param_box(void) {
    CHECK(param_box(kBoxes, GDN_INT_EULER, 0, "Euler") == 0);
    CHECK(param_box(kBoxes, GDN_INT_RK4, 0, "RK4") == 0);
    CHECK(param_box(kBoxes, GDN_INT_IMPLICIT, 0, "implicit") == 0);
    CHECK(param_box(kBoxes, GDN_INT_EULER, 1, "Euler, hinge on its limit") == 0);
    CHECK(param_box(kBoxes, GDN_INT_IMPLICIT, 1, "implicit, hinge on its limit") == 0);
    char* xml = malloc(strlen(gdn_test_fluid_water) + 1);
    CHECK(xml);
    memcpy(xml, gdn_test_fluid_water, strlen(gdn_test_fluid_water) + 1);
    char* rho = strstr(xml, "density='1000'");
    CHECK(rho);
    memcpy(rho, "density='0000'", strlen("density='0000'"));
    const int failed = param_box(xml, GDN_INT_EULER, 0, "viscosity alone, equal moments");
    free(xml);
    CHECK(!failed);
    CHECK(param_box_adjoint(GDN_INT_EULER) == 0);
    CHECK(param_box_adjoint(GDN_INT_RK4) == 0);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"ellipsoid", test_ellipsoid},
        {"param_refused", test_param_refused},
        {"param_ellipsoid", test_param_ellipsoid},
        {"param_box", test_param_box},
        {"param_fish", test_param_fish},
        {"loaded", test_loaded},         {"passive_oracle", test_passive_oracle},
        {"rollouts", test_rollouts},     {"derivatives", test_derivatives},
        {"adjoint", test_adjoint},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
