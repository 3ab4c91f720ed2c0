// SPDX-License-Identifier: Apache-2.0
// The RK4 integrator: rollouts against MuJoCo 2.2.2's mj_step with mjINT_RK4 (smooth models and
// the contact scenes), its exact derivatives (JVP, VJP, A, B, the trajectory adjoint) against
// central differences, the dot-product identity and MuJoCo's mjd_transitionFD.
//
// Tolerances and why:
// - smooth rollouts (constraints off, 300 steps from random states, controls at 20% of their
//   range): max(e_q, e_v) <= 1e-9 relative per step, as test_oracle_rollout's Euler bound (both
//   engines evaluate the same four accelerations to round-off, ~1e-15, amplified by < 1e3 over
//   the horizon on these models);
// - contact scenes (constraints on, 300 steps): qpos within 1e-6 in the tangent-space inf norm,
//   test_contact_rollout's Euler bound (the solves agree to their tolerance, 1e-8, not to
//   round-off);
// - FD checks: central differences with eps = 1e-6 (truncation ~eps^2 |x'''| ~ 1e-11, round-off
//   ~1e-16 / 1e-6 = 1e-10), relative error <= 1e-6 of the column scale; constrained samples
//   with Newton at tolerance 1e-12 and warm start off (each FD sample a pure function of its
//   state), by Richardson's fourth-order quotient at eps = 1e-5 (step_fd), and only where every
//   sample keeps the nominal step's row count;
// - identities: <w, J u> = <J' w, u> to 1e-12 relative, A's columns equal to JVPs of unit
//   directions to 1e-10.
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "oracle/rollout_scenes.h"
#include "runner/models.h"
#include "runner/test.h"

#define SMOOTH_STEPS 300
#define SMOOTH_TOL 1e-9
#define SCENE_STEPS 300
#define SCENE_TOL 1e-6
#define FD_EPS 1e-6
#define FD_EPS_CONSTRAINED 1e-5
#define FD_TOL 1e-6
#define DOT_TOL 1e-12

static double inf_norm(const double* a, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        r = fabs(a[i]) <= r ? r : fabs(a[i]);
    }
    return r;
}

// RK4 in both engines
static void use_rk4(gdnOracle* o) {
    o->gm->opt.integrator = GDN_INT_RK4;
    o->mm->opt.integrator = mjINT_RK4;
}

// ------------------------------------------------------------------ loading

static int test_load_option(void) {
    static const char xml[] =
        "<mujoco><option integrator='RK4' timestep='0.005'/><worldbody><body>"
        "<joint type='hinge'/><geom size='0.1' pos='0 0 -0.5'/></body></worldbody></mujoco>";
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(xml, sizeof(xml) - 1, NULL, &m, err, sizeof(err), NULL, 0) ==
          GDN_OK);
    CHECK(m->opt.integrator == GDN_INT_RK4);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    d->qpos[0] = 0.3;
    CHECK(gdn_step(m, d) == GDN_OK);
    CHECK(d->time == 0.005);
    // an unknown integrator code is refused by every call, the state unchanged
    m->opt.integrator = (gdnIntegrator)7;
    const double q = d->qpos[0];
    CHECK(gdn_step(m, d) == GDN_ERR_ARG);
    CHECK(d->qpos[0] == q);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ------------------------------------------------------------------ rollouts vs mj_step

// path: 300 RK4 steps from a random state in both engines, constraints off
static int smooth_rollout(const char* path) {
    gdnOracle o;
    if (gdn_oracle_load(&o, path)) {
        return 1;
    }
    use_rk4(&o);
    unsigned long long rng = 0x5851F42D4C957F2DULL;
    gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 1.0);
    const gdnModel* g = o.gm;
    for (int i = 0; i < g->nu; i++) {
        // controls at 20% of their range (the chaos bound of the header)
        o.gd->ctrl[i] *= 0.2;
    }
    gdn_oracle_copy_state(&o);
    double* scratch = calloc((size_t)g->nv + 1, sizeof(double));
    double worst = 0;
    int failed = 0;
    for (int k = 0; k < SMOOTH_STEPS && !failed; k++) {
        mj_step(o.mm, o.md);
        if (gdn_step(o.gm, o.gd) != GDN_OK) {
            failed = 1;
            break;
        }
        const double eq = gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, scratch) /
                          fmax(inf_norm(o.md->qpos, g->nq), 1);
        double ev = 0;
        for (int i = 0; i < g->nv; i++) {
            ev = gdn_oracle_worst(ev, fabs(o.gd->qvel[i] - o.md->qvel[i]));
        }
        ev /= fmax(inf_norm(o.md->qvel, g->nv), 1);
        worst = gdn_oracle_worst(worst, fmax(eq, ev));
        CHECK(o.gd->time == o.md->time);
    }
    printf("  %-22s %d RK4 steps: worst relative state error %.2e\n", o.name, SMOOTH_STEPS,
           worst);
    free(scratch);
    gdn_oracle_free(&o);
    CHECK(!failed);
    CHECK(worst <= SMOOTH_TOL);
    return 0;
}

static int test_rollout_smooth(void) {
    static const char* const models[] = {"pendulum.xml", "double_pendulum.xml", "arm7.xml",
                                         "ball_chain.xml", "box_spin.xml", "adj_free_spin.xml",
                                         "humanoid32.xml", "tendon_fixed.xml",
                                         "tendon_spatial.xml", "tendon_arm26.xml"};
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, models[i]);
        CHECK(smooth_rollout(path) == 0);
    }
    CHECK(smooth_rollout(GDN_ORACLE_MJ_HUMANOID) == 0);
    return 0;
}

static int test_rollout_scenes(void) {
    for (int s = 0; s < gdn_oracle_rollout_nscenes; s++) {
        const gdnRolloutScene* sc = gdn_oracle_rollout_scenes + s;
        gdnOracle o;
        CHECK(gdn_oracle_rollout_open(&o, sc) == 0);
        use_rk4(&o);
        double* scratch = calloc((size_t)o.gm->nv + 1, sizeof(double));
        double worst = 0;
        int maxefc = 0;
        for (int k = 0; k < SCENE_STEPS; k++) {
            mj_step(o.mm, o.md);
            CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
            worst = gdn_oracle_worst(
                worst, gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, scratch));
            maxefc = o.gd->nefc > maxefc ? o.gd->nefc : maxefc;
        }
        printf("  %-18s %d RK4 steps (up to %d rows): worst qpos distance %.2e\n", sc->name,
               SCENE_STEPS, maxefc, worst);
        free(scratch);
        gdn_oracle_free(&o);
        CHECK(maxefc > 0);
        CHECK(worst <= SCENE_TOL);
    }
    return 0;
}

// ------------------------------------------------------------------ derivatives

// a model ready for the derivative checks: RK4, Newton at tolerance 1e-12, warm start off
static gdnModel* load_rk4(const char* file, int constrained) {
    gdnModel* m = constrained ? gdn_test_load_model_as_is(file) : gdn_test_load_model(file);
    if (m) {
        m->opt.integrator = GDN_INT_RK4;
        m->opt.solver = GDN_SOL_NEWTON;
        m->opt.tolerance = 1e-12;
        m->opt.iterations = 1000;
        m->opt.disableflags |= GDN_DSBL_WARMSTART;
    }
    return m;
}

// (q', v') of one step from (q (+) s dq, v + s dv, u + s du) into out (nq + nv); the rows'
// count after the step into *nefc
static int step_from(const gdnModel* m, gdnData* d, const double* q0, const double* v0,
                     const double* u0, const double* dq, const double* dv, const double* du,
                     double s, double* out, int* nefc) {
    memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)m->nv);
    memcpy(d->ctrl, u0, sizeof(double) * (size_t)m->nu);
    if (dq) {
        gdn_integrate_pos(m, d->qpos, dq, s);
    }
    for (int i = 0; dv && i < m->nv; i++) {
        d->qvel[i] += s * dv[i];
    }
    for (int i = 0; du && i < m->nu; i++) {
        d->ctrl[i] += s * du[i];
    }
    if (gdn_step(m, d) != GDN_OK) {
        return 1;
    }
    memcpy(out, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(out + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    *nefc = d->nefc;
    return 0;
}

// the step's tangent from central differences (dq', dv') in the tangent space: with rows
// Richardson's fourth-order combination (4 D(eps) - D(2 eps)) / 3 of two central quotients, as
// the contact's impedance curve makes the second-order quotient's truncation error (eps^2 times
// the third derivative) large: measured 7e-7 relative at eps = 1e-6 and 7e-5 at 1e-5 on the
// sliding box
static int step_fd(const gdnModel* m, gdnData* d, const double* q0, const double* v0,
                   const double* u0, const double* dq, const double* dv, const double* du,
                   double* fq, double* fv, int* same_branch) {
    const int nq = m->nq, nv = m->nv;
    const int rows = !(m->opt.disableflags & GDN_DSBL_CONSTRAINT);
    const double eps = rows ? FD_EPS_CONSTRAINED : FD_EPS;
    double* xp = calloc(5 * (size_t)(nq + nv) + 2 * (size_t)nv, sizeof(double));
    double* xm = xp + nq + nv;
    double* xp2 = xm + nq + nv;
    double* xm2 = xp2 + nq + nv;
    double* x0 = xm2 + nq + nv;
    double* f2q = x0 + nq + nv;
    int np = 0, nm = 0, n0 = 0, np2 = 0, nm2 = 0;
    int bad = step_from(m, d, q0, v0, u0, NULL, NULL, NULL, 0, x0, &n0) ||
              step_from(m, d, q0, v0, u0, dq, dv, du, eps, xp, &np) ||
              step_from(m, d, q0, v0, u0, dq, dv, du, -eps, xm, &nm);
    if (rows) {
        bad = bad || step_from(m, d, q0, v0, u0, dq, dv, du, 2 * eps, xp2, &np2) ||
              step_from(m, d, q0, v0, u0, dq, dv, du, -2 * eps, xm2, &nm2);
    }
    if (!bad) {
        gdn_difference_pos(m, fq, 2 * eps, xm, xp);
        for (int i = 0; i < nv; i++) {
            fv[i] = (xp[nq + i] - xm[nq + i]) / (2 * eps);
        }
    }
    if (!bad && rows) {
        gdn_difference_pos(m, f2q, 4 * eps, xm2, xp2);
        for (int i = 0; i < nv; i++) {
            const double f2v = (xp2[nq + i] - xm2[nq + i]) / (4 * eps);
            fq[i] = (4 * fq[i] - f2q[i]) / 3;
            fv[i] = (4 * fv[i] - f2v) / 3;
        }
    }
    *same_branch = np == n0 && nm == n0 && (!rows || (np2 == n0 && nm2 == n0));
    free(xp);
    return bad;
}

// JVP vs FD, VJP vs JVP (dot identity), A, B vs JVPs of unit directions, at `nstate` states
// of a rollout from the model's start; returns the number of FD-compared states via *compared
static int check_derivatives(const char* file, int constrained, int nstate, int* compared) {
    gdnModel* m = load_rk4(file, constrained);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, nu = m->nu, n = 2 * nv;
    unsigned long long rng = 0x2545F4914F6CDD1DULL;
    if (!constrained) {
        gdn_test_random_qpos_qvel(m, d, &rng);
    } else {
        gdn_data_reset(m, d);
        for (int i = 0; i < nv; i++) {
            d->qvel[i] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
    }
    for (int i = 0; i < nu; i++) {
        d->ctrl[i] = gdn_test_uniform(&rng, -0.3, 0.3);
    }
    const size_t sz = (size_t)(nq + 4 * nv + nu + 1);
    double* q0 = calloc(sz, sizeof(double));
    double* v0 = q0 + nq;
    double* u0 = v0 + nv;
    double* dq = calloc(16 * (size_t)(nv + nu + 1), sizeof(double));
    double* dv = dq + nv;
    double* du = dv + nv;
    double* jq = du + nu + 1;
    double* jv = jq + nv;
    double* fq = jv + nv;
    double* fv = fq + nv;
    double* wq = fv + nv;
    double* wv = wq + nv;
    double* gq = wv + nv;
    double* gv = gq + nv;
    double* gu = gv + nv;
    double* A = calloc((size_t)n * (size_t)n + (size_t)n * (size_t)(nu + 1), sizeof(double));
    double* B = A + (size_t)n * (size_t)n;
    double worst_fd = 0, worst_dot = 0, worst_ab = 0;
    *compared = 0;
    for (int s = 0; s < nstate; s++) {
        // advance 7 steps between samples (contact scenes settle into contact)
        for (int k = 0; k < 7; k++) {
            CHECK(gdn_step(m, d) == GDN_OK);
        }
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(u0, d->ctrl, sizeof(double) * (size_t)nu);
        for (int i = 0; i < nv; i++) {
            dq[i] = gdn_test_uniform(&rng, -1, 1);
            dv[i] = gdn_test_uniform(&rng, -1, 1);
            wq[i] = gdn_test_uniform(&rng, -1, 1);
            wv[i] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int i = 0; i < nu; i++) {
            du[i] = gdn_test_uniform(&rng, -1, 1);
        }
        // JVP at (q0, v0, u0)
        step_from(m, d, q0, v0, u0, NULL, NULL, NULL, 0, fq, &(int){0});
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_jvp(m, d, dq, dv, du, NULL, NULL, jq, jv) == GDN_OK);
        // the state is restored by the derivative: a step from it equals the step before
        int same = 0;
        CHECK(step_fd(m, d, q0, v0, u0, dq, dv, du, fq, fv, &same) == 0);
        if (same) {
            double scale = fmax(fmax(inf_norm(fq, nv), inf_norm(fv, nv)), 1);
            double e = 0;
            for (int i = 0; i < nv; i++) {
                e = gdn_oracle_worst(e, fmax(fabs(jq[i] - fq[i]), fabs(jv[i] - fv[i])) / scale);
            }
            worst_fd = gdn_oracle_worst(worst_fd, e);
            (*compared)++;
        }
        // VJP and the dot identity <w, J u> = <J' w, u>
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        CHECK(gdn_step_vjp(m, d, wq, wv, gq, gv, gu, NULL, NULL) == GDN_OK);
        double lhs = 0, rhs = 0, mag = 0;
        for (int i = 0; i < nv; i++) {
            lhs += wq[i] * jq[i] + wv[i] * jv[i];
            rhs += gq[i] * dq[i] + gv[i] * dv[i];
            mag += fabs(wq[i] * jq[i]) + fabs(wv[i] * jv[i]);
        }
        for (int i = 0; i < nu; i++) {
            rhs += gu[i] * du[i];
        }
        worst_dot = gdn_oracle_worst(worst_dot, fabs(lhs - rhs) / fmax(mag, 1e-300));
        // A, B: A [dq; dv] + B du equals the JVP
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_OK);
        double e = 0, scale = fmax(fmax(inf_norm(jq, nv), inf_norm(jv, nv)), 1);
        for (int r = 0; r < n; r++) {
            double y = 0;
            for (int c = 0; c < nv; c++) {
                y += A[(size_t)r * n + c] * dq[c] + A[(size_t)r * n + nv + c] * dv[c];
            }
            for (int c = 0; c < nu; c++) {
                y += B[(size_t)r * nu + c] * du[c];
            }
            e = gdn_oracle_worst(e, fabs(y - (r < nv ? jq[r] : jv[r - nv])) / scale);
        }
        worst_ab = gdn_oracle_worst(worst_ab, e);
    }
    printf("  %-24s %d states (%d FD-compared): JVP vs FD %.2e, dot identity %.2e, "
           "[A B] vs JVP %.2e\n",
           file, nstate, *compared, worst_fd, worst_dot, worst_ab);
    free(A);
    free(dq);
    free(q0);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(worst_fd <= FD_TOL);
    CHECK(worst_dot <= DOT_TOL);
    CHECK(worst_ab <= 1e-10);
    return 0;
}

static int test_derivatives_smooth(void) {
    static const char* const models[] = {"arm7.xml", "ball_chain.xml", "adj_free_spin.xml",
                                         "adj_free_leg.xml", "humanoid32.xml",
                                         "tendon_fixed.xml", "tendon_spatial.xml",
                                         "tendon_wrap.xml"};
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        int compared = 0;
        CHECK(check_derivatives(models[i], 0, 4, &compared) == 0);
        CHECK(compared == 4);
    }
    return 0;
}

static int test_derivatives_constrained(void) {
    static const char* const models[] = {"scene_slide.xml", "scene_slide_elliptic.xml",
                                         "sol_pendulum_limit.xml", "sol_fourbar.xml",
                                         "cnstr_frictionloss.xml", "scene_drop_box.xml",
                                         "tendon_fixed.xml", "tendon_spatial.xml",
                                         "eq_joint.xml", "eq_tendon.xml"};
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        int compared = 0;
        CHECK(check_derivatives(models[i], 1, 6, &compared) == 0);
        CHECK(compared >= 3);
    }
    return 0;
}

// ------------------------------------------------------------------ A, B vs MuJoCo's RK4 step

// MuJoCo 2.2.2's mjd_transitionFD is no oracle for RK4: its perturbed steps call
// mj_stepSkip(m, d, mjSTAGE_POS or mjSTAGE_VEL), whose first mj_forwardSkip skips the position
// (or velocity) stage, so the first RK4 stage reuses the intermediates the previous perturbed
// step's last stage left in mjData (engine_derivative.c: "ignore skipstage" applies to the
// integrator only). The oracle here is therefore central differences of MuJoCo's full mj_step
// with RK4 (the same eps as mjd_transitionFD, 1e-6): column j of [A B] is
// (step(x (+) eps e_j) (-) step(x (-) eps e_j)) / 2 eps, differenced in MuJoCo's tangent space.
// mjd_transitionFD's error is printed beside it to document the bug.
static void mj_step_from(const mjModel* mm, mjData* md, const double* q, const double* v,
                         const double* u, int col, double s, double* out) {
    const int nq = mm->nq, nv = mm->nv;
    memcpy(md->qpos, q, sizeof(double) * (size_t)nq);
    memcpy(md->qvel, v, sizeof(double) * (size_t)nv);
    memcpy(md->ctrl, u, sizeof(double) * (size_t)mm->nu);
    memset(md->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
    md->time = 0;
    if (col < nv) {
        double dq[512] = {0};
        dq[col] = 1;
        mj_integratePos(mm, md->qpos, dq, s);
    } else if (col < 2 * nv) {
        md->qvel[col - nv] += s;
    } else {
        md->ctrl[col - 2 * nv] += s;
    }
    mj_step(mm, md);
    memcpy(out, md->qpos, sizeof(double) * (size_t)nq);
    memcpy(out + nq, md->qvel, sizeof(double) * (size_t)nv);
}

static int transition_vs_mujoco(const char* path) {
    gdnOracle o;
    if (gdn_oracle_load(&o, path)) {
        return 1;
    }
    use_rk4(&o);
    unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 1.0);
    const int nq = o.gm->nq, nv = o.gm->nv, nu = o.gm->nu, n = 2 * nv;
    CHECK(nv <= 512);
    for (int i = 0; i < nu; i++) {
        // inside ctrlrange, so that no sample is clamped
        o.gd->ctrl[i] *= 0.5;
    }
    gdn_oracle_copy_state(&o);
    double* A = calloc(3 * ((size_t)n * n + (size_t)n * (size_t)(nu + 1)) + 4 * (size_t)(nq + nv),
                       sizeof(double));
    double* B = A + (size_t)n * n;
    double* Am = B + (size_t)n * (size_t)(nu + 1);
    double* Bm = Am + (size_t)n * n;
    double* Af = Bm + (size_t)n * (size_t)(nu + 1);
    double* Bf = Af + (size_t)n * n;
    double* q = Bf + (size_t)n * (size_t)(nu + 1);
    double* v = q + nq;
    double* xp = v + nv;
    double* xm = xp + nq + nv;
    double* u = xm + nq + nv;
    memcpy(q, o.gd->qpos, sizeof(double) * (size_t)nq);
    memcpy(v, o.gd->qvel, sizeof(double) * (size_t)nv);
    memcpy(u, o.gd->ctrl, sizeof(double) * (size_t)nu);
    CHECK(gdn_transition_jacobians(o.gm, o.gd, A, B) == GDN_OK);
    mjd_transitionFD(o.mm, o.md, 1e-6, 1, Am, nu > 0 ? Bm : NULL, NULL, NULL);
    for (int col = 0; col < n + nu; col++) {
        mj_step_from(o.mm, o.md, q, v, u, col, 1e-6, xp);
        mj_step_from(o.mm, o.md, q, v, u, col, -1e-6, xm);
        double dq[512];
        mj_differentiatePos(o.mm, dq, 2e-6, xm, xp);
        for (int r = 0; r < n; r++) {
            const double val = r < nv ? dq[r] : (xp[nq + r - nv] - xm[nq + r - nv]) / 2e-6;
            if (col < n) {
                Af[(size_t)r * n + col] = val;
            } else {
                Bf[(size_t)r * nu + col - n] = val;
            }
        }
    }
    const double sa = fmax(inf_norm(Af, n * n), 1), sb = fmax(inf_norm(Bf, n * nu), 1);
    double ea = 0, eb = 0, ma = 0;
    for (int k = 0; k < n * n; k++) {
        ea = gdn_oracle_worst(ea, fabs(A[k] - Af[k]) / sa);
        ma = gdn_oracle_worst(ma, fabs(Am[k] - Af[k]) / sa);
    }
    for (int k = 0; k < n * nu; k++) {
        eb = gdn_oracle_worst(eb, fabs(B[k] - Bf[k]) / sb);
    }
    printf("  %-22s A vs FD of MuJoCo's RK4 mj_step %.2e, B %.2e (mjd_transitionFD's A: %.2e)\n",
           o.name, ea, eb, ma);
    free(A);
    gdn_oracle_free(&o);
    CHECK(ea <= FD_TOL);
    CHECK(eb <= FD_TOL);
    return 0;
}

static int test_transition_mujoco(void) {
    static const char* const models[] = {"arm7.xml", "ball_chain.xml", "box_spin.xml",
                                         "humanoid32.xml"};
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, models[i]);
        CHECK(transition_vs_mujoco(path) == 0);
    }
    CHECK(transition_vs_mujoco(GDN_ORACLE_MJ_HUMANOID) == 0);
    return 0;
}

// ------------------------------------------------------------------ the trajectory adjoint

// J of the target objective over T steps from (q0, v0) with controls ctrl (T x nu)
static double rollout_J(const gdnModel* m, const gdnObjective* obj, gdnTape* tape,
                        const double* q0, const double* v0, const double* ctrl, int T) {
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = m->nu > 0 ? ctrl : NULL;
    double J = NAN;
    if (gdn_rollout_objective(m, &r, obj, tape, &J, NULL, 0) != GDN_OK) {
        return NAN;
    }
    return J;
}

// dJ/du_t and dJ/dv0 from one adjoint pass vs central differences of the rollout, on tapes
// with every state and with checkpoints every 7 steps, and on one without the recorded stage
// accelerations (bit for bit the same gradient); the adjoint's forward pass equals a gdn_step
// loop bit for bit
static int adjoint_check(const char* file, int constrained, int T) {
    gdnModel* m = load_rk4(file, constrained);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    unsigned long long rng = 0xB5026F5AA96619E9ULL;
    gdn_data_reset(m, d);
    for (int i = 0; i < nv; i++) {
        d->qvel[i] = gdn_test_uniform(&rng, -0.5, 0.5);
    }
    double* q0 = calloc((size_t)(nq + nv), sizeof(double));
    double* v0 = q0 + nq;
    memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
    double* ctrl = calloc((size_t)T * (size_t)(nu + 1) * 3 + 2 * (size_t)nv, sizeof(double));
    double* g1 = ctrl + (size_t)T * (size_t)(nu + 1);
    double* g7 = g1 + (size_t)T * (size_t)(nu + 1);
    double* gv1 = g7 + (size_t)T * (size_t)(nu + 1);
    double* gv7 = gv1 + nv;
    for (int k = 0; k < T * nu; k++) {
        ctrl[k] = gdn_test_uniform(&rng, -0.3, 0.3);
    }
    gdnTargetObjective spec = {.body = m->nbody - 1, .point = {0.01, 0.02, 0.03},
                               .target = {0.1, 0.2, 0.3}, .weight = 1, .ctrl_weight = 1e-3,
                               .vel_weight = 1e-2};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape *tape1 = NULL, *tape7 = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape1, NULL, 0) == GDN_OK);
    CHECK(gdn_tape_create(m, T, 7, &tape7, NULL, 0) == GDN_OK);
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = nu > 0 ? ctrl : NULL;
    char err[512];
    gdnAdjointGradients out1 = {.qvel0 = gv1, .ctrl = g1};
    gdnAdjointGradients out7 = {.qvel0 = gv7, .ctrl = g7};
    gdnStatus st = gdn_adjoint_rollout_gradient(m, &r, &obj, tape1, &out1, err, sizeof(err));
    if (st != GDN_OK) {
        fprintf(stderr, "adjoint: %s\n", err);
    }
    CHECK(st == GDN_OK);
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape7, &out7, err, sizeof(err)) == GDN_OK);
    CHECK(memcmp(g1, g7, sizeof(double) * (size_t)T * (size_t)nu) == 0);
    CHECK(memcmp(gv1, gv7, sizeof(double) * (size_t)nv) == 0);
    CHECK(out1.J == out7.J);
    // a tape made while the model was Euler keeps no stage accelerations: its reverse pass
    // replays every step to find them, with the same bits
    {
        m->opt.integrator = GDN_INT_EULER;
        gdnTape* tape_e = NULL;
        CHECK(gdn_tape_create(m, T, 1, &tape_e, NULL, 0) == GDN_OK);
        m->opt.integrator = GDN_INT_RK4;
        gdnAdjointGradients oute = {.qvel0 = gv7, .ctrl = g7};
        CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape_e, &oute, err, sizeof(err)) ==
              GDN_OK);
        CHECK(memcmp(g1, g7, sizeof(double) * (size_t)T * (size_t)nu) == 0);
        CHECK(memcmp(gv1, gv7, sizeof(double) * (size_t)nv) == 0);
        gdn_tape_free(tape_e);
    }
    // the forward pass is the simulator: the same final state as a gdn_step loop
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)nv);
    for (int t = 0; t < T; t++) {
        memcpy(d->ctrl, ctrl + (size_t)t * (size_t)nu, sizeof(double) * (size_t)nu);
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    gdnTapeStep last;
    CHECK(gdn_tape_step(tape1, T - 1, &last) == GDN_OK);
    CHECK(memcmp(last.qacc, d->qacc, sizeof(double) * (size_t)nv) == 0);
    // FD of J in a few controls and in every qvel0 entry
    double worst = 0, scale = fmax(inf_norm(g1, T * nu), inf_norm(gv1, nv));
    for (int c = 0; c < 6 && nu > 0; c++) {
        const int k = (int)((unsigned)(c * 7919) % (unsigned)(T * nu));
        const double keep = ctrl[k];
        ctrl[k] = keep + FD_EPS;
        const double Jp = rollout_J(m, &obj, tape1, q0, v0, ctrl, T);
        ctrl[k] = keep - FD_EPS;
        const double Jm = rollout_J(m, &obj, tape1, q0, v0, ctrl, T);
        ctrl[k] = keep;
        worst = gdn_oracle_worst(worst, fabs((Jp - Jm) / (2 * FD_EPS) - g1[k]) / scale);
    }
    for (int i = 0; i < nv; i++) {
        const double keep = v0[i];
        v0[i] = keep + FD_EPS;
        const double Jp = rollout_J(m, &obj, tape1, q0, v0, ctrl, T);
        v0[i] = keep - FD_EPS;
        const double Jm = rollout_J(m, &obj, tape1, q0, v0, ctrl, T);
        v0[i] = keep;
        worst = gdn_oracle_worst(worst, fabs((Jp - Jm) / (2 * FD_EPS) - gv1[i]) / scale);
    }
    printf("  %-24s %d RK4 steps: adjoint vs FD %.2e (J = %.6g)\n", file, T, worst, out1.J);
    gdn_tape_free(tape1);
    gdn_tape_free(tape7);
    free(ctrl);
    free(q0);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(worst <= FD_TOL);
    return 0;
}

static int test_adjoint(void) {
    CHECK(adjoint_check("arm7.xml", 0, 60) == 0);
    CHECK(adjoint_check("adj_free_leg.xml", 0, 40) == 0);
    CHECK(adjoint_check("sol_pendulum_limit.xml", 1, 40) == 0);
    CHECK(adjoint_check("scene_slide.xml", 1, 30) == 0);
    CHECK(adjoint_check("tendon_fixed.xml", 1, 30) == 0);
    CHECK(adjoint_check("tendon_spatial.xml", 1, 30) == 0);
    CHECK(adjoint_check("tendon_wrap.xml", 1, 30) == 0);
    CHECK(adjoint_check("eq_joint.xml", 1, 30) == 0);
    CHECK(adjoint_check("eq_tendon.xml", 1, 30) == 0);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"load_option", test_load_option},
        {"rollout_smooth", test_rollout_smooth},
        {"rollout_scenes", test_rollout_scenes},
        {"derivatives_smooth", test_derivatives_smooth},
        {"derivatives_constrained", test_derivatives_constrained},
        {"transition_mujoco", test_transition_mujoco},
        {"adjoint", test_adjoint},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
