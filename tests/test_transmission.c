// SPDX-License-Identifier: Apache-2.0
// Slider-crank, site (with and without refsite), joint-in-parent and body (adhesion)
// transmissions against MuJoCo 2.2.2: the loader's checks; actuator_length / moment / velocity /
// force, qfrc_actuator, qacc (and act_dot with stateful actuators on them) at random states;
// 1000-step rollouts vs mj_step (Euler, RK4); the linearization (dynamics/transmission.h) vs
// central differences of the primal; transition Jacobians vs central FD of gdn_step and vs
// mjd_transitionFD; the JVP / VJP dot-product identity; the trajectory adjoint vs FD;
// actuatorpos / actuatorvel sensors on them (values vs MuJoCo, JVP vs FD, VJP); the body
// transmission's derivatives at a fixed contact set (dM/dq vs FD, A, B vs FD and
// mjd_transitionFD, the JVP / VJP, the trajectory adjoint vs FD under Euler, RK4 and implicit,
// a velocity-biased one under implicit too, its actuator sensors, the MPR flag and the refusal
// of a contact without a geometry tangent); the implicit integrator on every transmission.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>
#include <mujoco/mujoco.h>

#include "dynamics/transmission.h"
#include "kinematics/jacobian.h"
#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/rollout_fd.h"
#include "runner/test.h"

static const char* const MODELS[] = {"trn_slidercrank.xml", "trn_site.xml", "trn_inparent.xml",
                                     "trn_stateful.xml",
                                     "/usr/share/mujoco/model/slider_crank/slider_crank.xml"};
#define NMODEL ((int)(sizeof(MODELS) / sizeof(MODELS[0])))
#define NSAMPLES 40
// the same formulas in another order (and site frames recomputed from body frames): a few ulps
// of the largest entry; qacc through the mass matrix factorization: 1e-12 as well
#define TOL 1e-12
// the rollout bound (measured values printed)
#define TOL_ROLLOUT 1e-6
// central differences with eps 1e-6 of smooth primal quantities: truncation ~1e-12 times the
// third derivative, round-off ~1e-16 / 1e-6 = 1e-10; bound 1e-7 relative to max(|x|, 1)
#define EPS 1e-6
#define TOL_FD 1e-7
// vs MuJoCo's mjd_transitionFD (centered, eps 1e-6): its own accuracy (test_transition_oracle)
#define TOL_MJFD 1e-6
// the dot-product identity: exact up to round-off in sums of O(10^2) terms
#define TOL_DOT 1e-12

// tests/models unless absolute (MuJoCo's sample)
static void path_of(const char* file, char* path, size_t n) {
    if (file[0] == '/') {
        snprintf(path, n, "%s", file);
    } else {
        snprintf(path, n, "%s/%s", GDN_TEST_MODELS, file);
    }
}

// ---------------------------------------------------------------- forward vs MuJoCo

// the slider-crank determinant D of actuator i in MuJoCo's data (its branch)
static double crank_det(const mjModel* mm, const mjData* md, int i) {
    const int c = mm->actuator_trnid[2 * i], s = mm->actuator_trnid[2 * i + 1];
    const double r = mm->actuator_cranklength[i];
    double a[3] = {md->site_xmat[9 * s + 2], md->site_xmat[9 * s + 5], md->site_xmat[9 * s + 8]};
    double v[3], av = 0, vv = 0;
    for (int k = 0; k < 3; k++) {
        v[k] = md->site_xpos[3 * c + k] - md->site_xpos[3 * s + k];
        av += a[k] * v[k];
        vv += v[k] * v[k];
    }
    return av * av + r * r - vv;
}

static int forward_states(const char* file) {
    char path[1024];
    path_of(file, path, sizeof(path));
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    const gdnModel* gm = o.gm;
    const int nu = gm->nu, nv = gm->nv;
    for (int i = 0; i < nu; i++) {
        const int mt = o.mm->actuator_trntype[i];
        // MuJoCo keeps jointinparent on a hinge; gradyn compiles it to joint (the same)
        const int expect = mt == mjTRN_JOINTINPARENT &&
                                   (o.mm->jnt_type[o.mm->actuator_trnid[2 * i]] == mjJNT_HINGE ||
                                    o.mm->jnt_type[o.mm->actuator_trnid[2 * i]] == mjJNT_SLIDE)
                               ? mjTRN_JOINT
                               : mt;
        CHECK(gm->actuator_trntype[i] == expect);
        CHECK(gm->actuator_trnid[2 * i] == o.mm->actuator_trnid[2 * i]);
        CHECK(gm->actuator_trnid[2 * i + 1] == o.mm->actuator_trnid[2 * i + 1]);
        CHECK(gm->actuator_cranklength[i] == o.mm->actuator_cranklength[i]);
    }
    // actuator_acc0 = |M^-1 moment| at qpos0 (mj_setConst), from the same rows
    const double acc0 = gdn_test_relerr(gm->actuator_acc0, o.mm->actuator_acc0, nu, 1);
    printf("  %s: actuator_acc0 vs MuJoCo %.3g\n", o.name, acc0);
    CHECK(acc0 <= TOL);
    gdnWorst w;
    memset(&w, 0, sizeof(w));
    unsigned long long rng = 4242;
    int branch[2] = {0, 0};
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 2.0);
        gdn_oracle_copy_state(&o);
        mj_forward(o.mm, o.md);
        CHECK(gdn_forward(gm, o.gd) == GDN_OK);
        for (int i = 0; i < nu; i++) {
            if (gm->actuator_trntype[i] == GDN_TRN_SLIDERCRANK) {
                branch[crank_det(o.mm, o.md, i) > 0]++;
            }
        }
        gdn_worst_check(&w, o.name, s, "length", o.gd->actuator_length, o.md->actuator_length, nu,
                        1, TOL);
        gdn_worst_check(&w, o.name, s, "moment", o.gd->actuator_moment, o.md->actuator_moment,
                        nu * nv, 1, TOL);
        gdn_worst_check(&w, o.name, s, "velocity", o.gd->actuator_velocity,
                        o.md->actuator_velocity, nu, 1, TOL);
        gdn_worst_check(&w, o.name, s, "force", o.gd->actuator_force, o.md->actuator_force, nu, 1,
                        TOL);
        gdn_worst_check(&w, o.name, s, "qfrc_actuator", o.gd->qfrc_actuator,
                        o.md->qfrc_actuator, nv, 1, TOL);
        gdn_worst_check(&w, o.name, s, "qacc", o.gd->qacc, o.md->qacc, nv, 1, TOL);
        if (gm->na > 0) {
            gdn_worst_check(&w, o.name, s, "act_dot", o.gd->act_dot, o.md->act_dot, gm->na, 1,
                            TOL);
        }
    }
    gdn_worst_print(&w, o.name);
    if (branch[0] + branch[1] > 0) {
        printf("  %s: slider-crank branches over %d samples: D > 0 %d, D <= 0 %d\n", o.name,
               NSAMPLES, branch[1], branch[0]);
        CHECK(branch[0] > 0 && branch[1] > 0);
    }
    CHECK(gdn_oracle_warnings(&o) == 0);
    const int fails = w.failures;
    gdn_oracle_free(&o);
    CHECK(fails == 0);
    return 0;
}

static int test_forward(void) {
    for (int k = 0; k < NMODEL; k++) {
        CHECK(forward_states(MODELS[k]) == 0);
    }
    return 0;
}

// the models RK4 integrates stably at their timestep (the slider-cranks' light, damped links
// need Euler's implicit damping: RK4 diverges there in MuJoCo as well)
static int rk4_ok(const char* file) {
    return strstr(file, "trn_site") || strstr(file, "trn_inparent") || strstr(file, "trn_stateful");
}

// 1000 steps from a perturbed qpos0 with constant controls: qpos and qvel after every step
// (semi-implicit Euler, or RK4 in both engines)
static int rollout(const char* file, int rk4) {
    char path[1024];
    path_of(file, path, sizeof(path));
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    if (rk4) {
        o.gm->opt.integrator = GDN_INT_RK4;
        o.mm->opt.integrator = mjINT_RK4;
    }
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    gdn_data_reset(gm, gd);
    double* dq = calloc((size_t)gm->nv + 1, sizeof(double));
    double* scratch = calloc((size_t)gm->nv + 1, sizeof(double));
    CHECK(dq && scratch);
    for (int k = 0; k < gm->nv; k++) {
        dq[k] = 0.4 * sin(1.7 * k + 1);
        gd->qvel[k] = 0.3 * cos(0.9 * k);
    }
    gdn_integrate_pos(gm, gd->qpos, dq, 1);
    for (int i = 0; i < gm->nu; i++) {
        gd->ctrl[i] = 0.7 - 0.45 * i;
    }
    gdn_oracle_copy_state(&o);
    double worst = 0;
    for (int t = 0; t < 1000; t++) {
        mj_step(o.mm, o.md);
        CHECK(gdn_step(gm, gd) == GDN_OK);
        worst = gdn_oracle_worst(worst, gdn_oracle_qpos_distance(&o, gd->qpos, o.md->qpos,
                                                                 scratch));
        worst = gdn_oracle_worst(worst, gdn_test_relerr(gd->qvel, o.md->qvel, gm->nv, 1));
    }
    printf("  %s (%s): rollout 1000 steps: worst |q - q_mj|, |v - v_mj| %.3g\n", o.name,
           rk4 ? "RK4" : "Euler", worst);
    free(dq);
    free(scratch);
    CHECK(gdn_oracle_warnings(&o) == 0);
    gdn_oracle_free(&o);
    CHECK(worst <= TOL_ROLLOUT);
    return 0;
}

static int test_rollout(void) {
    for (int k = 0; k < NMODEL; k++) {
        CHECK(rollout(MODELS[k], 0) == 0);
        if (rk4_ok(MODELS[k])) {
            CHECK(rollout(MODELS[k], 1) == 0);
        }
    }
    return 0;
}

// ---------------------------------------------------------------- the linearization vs FD

// the slider-crank determinant D of actuator i in gradyn's data
static double crank_det_gdn(const gdnModel* m, const gdnData* d, int i) {
    const int c = m->actuator_trnid[2 * i], s = m->actuator_trnid[2 * i + 1];
    const double r = m->actuator_cranklength[i];
    double a[3] = {d->site_xmat[9 * s + 2], d->site_xmat[9 * s + 5], d->site_xmat[9 * s + 8]};
    double v[3], av = 0, vv = 0;
    for (int k = 0; k < 3; k++) {
        v[k] = d->site_xpos[3 * c + k] - d->site_xpos[3 * s + k];
        av += a[k] * v[k];
        vv += v[k] * v[k];
    }
    return av * av + r * r - vv;
}

// per moving actuator: L, V, M equal to the primal's; lrow vs FD of actuator_length, H vs FD of
// actuator_moment, along every e_c
static int linear_model(const char* file, int nsample, double* worst_fd) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nq = m->nq, nu = m->nu;
    const size_t n = (size_t)nv;
    double* buf = calloc(6 * n + 6 * ((size_t)m->nbody + n) + 6 * n + 2 * n * n + 2 * (size_t)nq +
                             4 * n * (size_t)nu + 2 * (size_t)nu,
                         sizeof(double));
    CHECK(buf);
    double *S = buf, *scratch = S + 6 * n, *lrow = scratch + 6 * ((size_t)m->nbody + n);
    double *M = lrow + n, *e = M + n, *H = e + n;
    double *q0 = H + n * n, *qa = q0 + nq, *Mp = qa + nq, *Mm = Mp + n * (size_t)nu;
    double *Lp = Mm + n * (size_t)nu, *Lm = Lp + nu;
    unsigned long long rng = 31;
    int branch[2] = {0, 0};
    double worst_primal = 0, wl = 0, wh = 0;
    int count = 0;
    for (int s = 0; s < nsample; s++) {
        gdn_test_random_qpos_qvel(m, d, &rng);
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        CHECK(gdn_forward(m, d) == GDN_OK);
        gdn_dof_axes_about(m, d, 0, S);
        for (int i = 0; i < nu; i++) {
            if (!gdn_transmission_moving(m, i)) {
                continue;
            }
            count++;
            if (m->actuator_trntype[i] == GDN_TRN_SLIDERCRANK) {
                branch[crank_det_gdn(m, d, i) > 0]++;
            }
            double L, V, g;
            CHECK(gdn_transmission_linear(m, d, S, i, &L, &V, lrow, M, H, &g, scratch) == 0);
            CHECK(g == 1);
            worst_primal = fmax(worst_primal,
                                gdn_test_relerr(M, d->actuator_moment + (size_t)i * n, nv, 1));
            worst_primal = fmax(worst_primal, fabs(L - d->actuator_length[i]) /
                                                  fmax(1, fabs(d->actuator_length[i])));
            worst_primal = fmax(worst_primal, fabs(V - d->actuator_velocity[i]) /
                                                  fmax(1, fabs(d->actuator_velocity[i])));
        }
        // FD columns of every actuator's length and moment
        for (int c = 0; c < nv; c++) {
            memset(e, 0, sizeof(double) * n);
            e[c] = 1;
            for (int sg = 0; sg < 2; sg++) {
                memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
                gdn_integrate_pos(m, d->qpos, e, sg ? -EPS : EPS);
                CHECK(gdn_forward(m, d) == GDN_OK);
                memcpy(sg ? Mm : Mp, d->actuator_moment, sizeof(double) * n * (size_t)nu);
                memcpy(sg ? Lm : Lp, d->actuator_length, sizeof(double) * (size_t)nu);
            }
            // the difference quotients of column c, every actuator (into Mp, Lp)
            for (size_t k = 0; k < n * (size_t)nu; k++) {
                Mp[k] = (Mp[k] - Mm[k]) / (2 * EPS);
            }
            for (int i = 0; i < nu; i++) {
                Lp[i] = (Lp[i] - Lm[i]) / (2 * EPS);
            }
            // compare column c of each moving actuator
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            CHECK(gdn_forward(m, d) == GDN_OK);
            for (int i = 0; i < nu; i++) {
                if (!gdn_transmission_moving(m, i)) {
                    continue;
                }
                double L, V, g;
                CHECK(gdn_transmission_linear(m, d, S, i, &L, &V, lrow, M, H, &g, scratch) == 0);
            CHECK(g == 1);
                double hc_err = 0, scale = 1;
                for (int r = 0; r < nv; r++) {
                    scale = fmax(scale, fabs(Mp[(size_t)i * n + (size_t)r]));
                }
                for (int r = 0; r < nv; r++) {
                    hc_err = fmax(hc_err, fabs(H[(size_t)r * n + (size_t)c] -
                                               Mp[(size_t)i * n + (size_t)r]));
                }
                hc_err /= scale;
                const double l_err = fabs(lrow[c] - Lp[i]) / fmax(1, fabs(Lp[i]));
                wl = fmax(wl, l_err);
                wh = fmax(wh, hc_err);
                if (!(l_err <= TOL_FD && hc_err <= TOL_FD)) {
                    fprintf(stderr, "%s sample %d actuator %d column %d: lrow %.3g vs FD %.3g, "
                                    "H column error %.3g\n",
                            file, s, i, c, lrow[c], Lp[i], hc_err);
                    for (int r = 0; r < nv; r++) {
                        fprintf(stderr, "   r %d: H %.6g FD %.6g\n", r, H[(size_t)r * n + (size_t)c],
                                Mp[(size_t)i * n + (size_t)r]);
                    }
                    return 1;
                }
            }
        }
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    }
    printf("  %s: %d linearizations (slider-crank D > 0: %d, D <= 0: %d): L, V, M vs the primal "
           "%.3g; length row vs FD %.3g, dM/dq vs FD %.3g\n",
           file, count, branch[1], branch[0], worst_primal, wl, wh);
    *worst_fd = fmax(*worst_fd, fmax(wl, wh));
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(count > 0);
    CHECK(worst_primal <= TOL);
    // the trn_slidercrank model's short crank takes both branches
    CHECK(!strstr(file, "trn_slidercrank") || (branch[0] > 0 && branch[1] > 0));
    return 0;
}

static int test_linearization(void) {
    double worst = 0;
    for (int k = 0; k < NMODEL; k++) {
        CHECK(linear_model(MODELS[k], 10, &worst) == 0);
    }
    return 0;
}

// ---------------------------------------------------------------- step derivatives

// A, B vs central FD of gdn_step (eps 1e-6) and vs MuJoCo's mjd_transitionFD (the state
// [dq, dv, act], MuJoCo's layout); the JVP against A x + B u, the VJP by the dot-product
// identity
static int step_model(const char* file, int integrator) {
    char path[1024];
    path_of(file, path, sizeof(path));
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    // (mjd_transitionFD is the oracle under Euler only: RK4's perturbed steps skip the first
    // stage's position or velocity stage, tests/test_rk4.c; under RK4 and implicit the FD of
    // gdn_step, which follows mj_step there, is the reference)
    const int rk4 = integrator != GDN_INT_EULER;
    o.gm->opt.integrator = integrator;
    o.mm->opt.integrator = integrator == GDN_INT_RK4        ? mjINT_RK4
                           : integrator == GDN_INT_IMPLICIT ? mjINT_IMPLICIT
                                                            : mjINT_EULER;
    const gdnModel* m = o.gm;
    gdnData* d = o.gd;
    const int nv = m->nv, nu = m->nu, nq = m->nq, na = m->na, n = 2 * nv + na;
    CHECK(o.mm->na == na);
    double* buf = calloc((size_t)(5 * n * n + 5 * n * nu + 8 * n + 4 * nq + 3 * nu + 2 * na + 4),
                         sizeof(double));
    CHECK(buf);
    double *A = buf, *Amj = A + n * n, *Afd = Amj + n * n, *B = Afd + n * n, *Bmj = B + n * nu;
    double *Bfd = Bmj + n * nu, *x = Bfd + n * nu, *y = x + n, *jx = y + n, *g = jx + n;
    double *ax = g + n, *col = ax + n, *q0 = col + n, *v0 = q0 + nq, *u0 = v0 + nv;
    double *qp = u0 + nu, *qm = qp + nq, *gu = qm + nq, *du = gu + nu;
    double *Amj5 = du + nu, *Bmj5 = Amj5 + n * n, *a0 = Bmj5 + n * nu, *ap = a0 + na;
    int masked = 0;
    unsigned long long rng = 0xBEEF;
    double e_fd = 0, e_mj = 0, e_jvp = 0, e_dot = 0;
    for (int s = 0; s < 4; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 1.0);
        for (int j = 0; j < na; j++) {
            d->act[j] = gdn_test_uniform(&rng, -0.5, 0.5);
            o.md->act[j] = d->act[j];
        }
        gdn_oracle_copy_state(&o);
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(u0, d->ctrl, sizeof(double) * (size_t)nu);
        memcpy(a0, d->act, sizeof(double) * (size_t)na);
        CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_OK);
        if (!rk4) {
            mjd_transitionFD(o.mm, o.md, 1e-6, 1, Amj, Bmj, NULL, NULL);
            // MuJoCo 2.2.2's FD is occasionally broken on single entries (test_transition_oracle:
            // a free joint's quaternion): entries where its eps 1e-6 and 1e-5 columns disagree by
            // more than 1e-4 of max(|A|, 1) are excluded (ours copied over) and counted
            mjd_transitionFD(o.mm, o.md, 1e-5, 1, Amj5, Bmj5, NULL, NULL);
            double amax = 1;
            for (int k = 0; k < n * n; k++) {
                amax = fmax(amax, fabs(Amj[k]));
            }
            for (int k = 0; k < n * n; k++) {
                if (fabs(Amj[k] - Amj5[k]) > 1e-4 * amax) {
                    Amj[k] = A[k];
                    masked++;
                }
            }
            for (int k = 0; k < n * nu; k++) {
                if (fabs(Bmj[k] - Bmj5[k]) > 1e-4 * amax) {
                    Bmj[k] = B[k];
                    masked++;
                }
            }
        }
        // our own central FD: column j of [A B] (j: dq, dv, act, then ctrl)
        for (int j = 0; j < n + nu; j++) {
            for (int sg = 0; sg < 2; sg++) {
                const double h = sg ? -EPS : EPS;
                gdn_data_reset(m, d);
                memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
                memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
                memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
                memcpy(d->act, a0, sizeof(double) * (size_t)na);
                if (j < nv) {
                    memset(col, 0, sizeof(double) * (size_t)n);
                    col[j] = 1;
                    gdn_integrate_pos(m, d->qpos, col, h);
                } else if (j < 2 * nv) {
                    d->qvel[j - nv] += h;
                } else if (j < n) {
                    d->act[j - 2 * nv] += h;
                } else {
                    d->ctrl[j - n] += h;
                }
                CHECK(gdn_step(m, d) == GDN_OK);
                memcpy(sg ? qm : qp, d->qpos, sizeof(double) * (size_t)nq);
                if (sg == 0) {
                    memcpy(jx, d->qvel, sizeof(double) * (size_t)nv);
                    memcpy(ap, d->act, sizeof(double) * (size_t)na);
                } else {
                    for (int k = 0; k < nv; k++) {
                        jx[k] = (jx[k] - d->qvel[k]) / (2 * EPS);
                    }
                    for (int k = 0; k < na; k++) {
                        ap[k] = (ap[k] - d->act[k]) / (2 * EPS);
                    }
                }
            }
            // position rows: (qp (-) qm) / (2 eps)
            gdn_difference_pos(m, col, 2 * EPS, qm, qp);
            double* dst = j < n ? Afd : Bfd;
            const int cols = j < n ? n : nu, c = j < n ? j : j - n;
            for (int r = 0; r < nv; r++) {
                dst[r * cols + c] = col[r];
                dst[(nv + r) * cols + c] = jx[r];
            }
            for (int r = 0; r < na; r++) {
                dst[(2 * nv + r) * cols + c] = ap[r];
            }
        }
        gdn_data_reset(m, d);
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        memcpy(d->act, a0, sizeof(double) * (size_t)na);
        const double ea = gdn_test_relerr(A, Afd, n * n, 1), eb = gdn_test_relerr(B, Bfd, n * nu, 1);
        const double ma = gdn_test_relerr(A, Amj, n * n, 1), mb = gdn_test_relerr(B, Bmj, n * nu, 1);
        // (mjd_transitionFD is no oracle for RK4: its perturbed steps skip the first stage's
        // position or velocity stage, tests/test_rk4.c; there the FD of gdn_step, which
        // follows mj_step's RK4 to 1.5e-13 in the rollouts above, is the reference)
        if (!(fmax(ea, eb) <= TOL_FD * 10 && (rk4 || fmax(ma, mb) <= TOL_MJFD))) {
            fprintf(stderr, "%s sample %d: A vs FD %.3g, B vs FD %.3g, A vs MuJoCo %.3g, B vs "
                            "MuJoCo %.3g\n", o.name, s, ea, eb, ma, mb);
            CHECK_ARRAY_REL(A, Afd, n * n, TOL_FD * 10, 1);
            CHECK_ARRAY_REL(B, Bfd, n * nu, TOL_FD * 10, 1);
            return 1;
        }
        e_fd = fmax(e_fd, fmax(ea, eb));
        e_mj = rk4 ? 0 : fmax(e_mj, fmax(ma, mb));
        // JVP = A x + B du; <g, J x> = <J' g, x>
        for (int k = 0; k < n; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_step_jvp_act(m, d, x, x + nv, na ? x + 2 * nv : NULL, du, NULL, NULL, jx,
                               jx + nv, na ? jx + 2 * nv : NULL) == GDN_OK);
        for (int r = 0; r < n; r++) {
            double sum = 0;
            for (int c = 0; c < n; c++) {
                sum += A[r * n + c] * x[c];
            }
            for (int c = 0; c < nu; c++) {
                sum += B[r * nu + c] * du[c];
            }
            ax[r] = sum;
        }
        e_jvp = fmax(e_jvp, gdn_test_relerr(jx, ax, n, 1));
        CHECK(gdn_step_vjp_act(m, d, y, y + nv, na ? y + 2 * nv : NULL, g, g + nv,
                               na ? g + 2 * nv : NULL, gu, NULL, NULL) == GDN_OK);
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            lhs += y[k] * jx[k];
            rhs += g[k] * x[k];
            mag += fabs(y[k] * jx[k]) + fabs(g[k] * x[k]);
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
            mag += fabs(gu[k] * du[k]);
        }
        e_dot = fmax(e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    char mj[96];
    if (rk4) {
        snprintf(mj, sizeof(mj), "mjd_transitionFD compared under Euler only");
    } else {
        snprintf(mj, sizeof(mj), "vs mjd_transitionFD %.3g (%d unreliable MuJoCo entries excluded)",
                 e_mj, masked);
    }
    printf("  %s (na %d, %s): A, B vs central FD of gdn_step %.3g, %s; JVP vs A x + B u %.3g; "
           "dot-product identity %.3g\n",
           o.name, na,
           integrator == GDN_INT_RK4        ? "RK4"
           : integrator == GDN_INT_IMPLICIT ? "implicit"
                                            : "Euler",
           e_fd, mj, e_jvp, e_dot);
    free(buf);
    gdn_oracle_free(&o);
    CHECK(e_jvp <= TOL);
    CHECK(e_dot <= TOL_DOT);
    CHECK(masked <= 4);
    return 0;
}

static int test_step_derivatives(void) {
    for (int k = 0; k < NMODEL; k++) {
        CHECK(step_model(MODELS[k], GDN_INT_EULER) == 0);
        // RK4's chain of stages; the implicit integrator (velocity-gain actuators on these
        // transmissions: qDeriv's kv M' M moving with q by dM/dq)
        if (rk4_ok(MODELS[k])) {
            CHECK(step_model(MODELS[k], GDN_INT_RK4) == 0);
        }
        CHECK(step_model(MODELS[k], GDN_INT_IMPLICIT) == 0);
    }
    return 0;
}

// ---------------------------------------------------------------- trajectory adjoint vs FD

// the adjoint of a 40-step rollout objective (runner/rollout_fd.h) vs Richardson central FD
// on q0, v0 and every control: relative 1e-6 (the harness's bound elsewhere)
static int adjoint_model(const char* file, int integrator) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    m->opt.integrator = integrator;
    gdnFdProblem p;
    CHECK(gdn_fd_problem_init(&p, file, m, 40, 17, NULL, 0.4, NULL, 0.5, 0.8));
    CHECK(gdn_fd_gradient_checked(&p) == 0);
    const int nv = p.m->nv, nu = p.m->nu;
    int* idx = calloc((size_t)(40 * nu + nv + 1), sizeof(int));
    CHECK(idx);
    for (int k = 0; k < 40 * nu + nv; k++) {
        idx[k] = k;
    }
    double e = 0;
    e = fmax(e, gdn_fd_block(&p, GDN_FD_Q0, "q0", p.g.qpos0, idx, nv, 1e-8, 1e-6));
    e = fmax(e, gdn_fd_block(&p, GDN_FD_V0, "v0", p.g.qvel0, idx, nv, 1e-8, 1e-6));
    e = fmax(e, gdn_fd_block(&p, GDN_FD_U, "u", p.g.ctrl, idx, 40 * nu, 1e-8, 1e-6));
    free(idx);
    gdn_fd_problem_free(&p);
    CHECK(e <= 1e-6);
    return 0;
}

static int test_adjoint(void) {
    for (int k = 0; k < NMODEL; k++) {
        CHECK(adjoint_model(MODELS[k], GDN_INT_EULER) == 0);
        if (rk4_ok(MODELS[k])) {
            CHECK(adjoint_model(MODELS[k], GDN_INT_RK4) == 0);
        }
        CHECK(adjoint_model(MODELS[k], GDN_INT_IMPLICIT) == 0);
    }
    return 0;
}


// ---------------------------------------------------------------- loader

// xml must fail to load in both engines, gradyn's message containing what
static int refused(const char* xml, gdnStatus status, const char* what) {
    gdnModel* m = NULL;
    char err[1024] = "";
    const gdnStatus st = gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, sizeof(err), NULL, 0);
    if (st != status || m || !strstr(err, what)) {
        fprintf(stderr, "expected status %d naming '%s', got %d: %s\n", (int)status, what, (int)st,
                err);
        gdn_model_free(m);
        return 1;
    }
    printf("  refused: %s\n", err);
    if (status == GDN_ERR_MODEL) {
        fprintf(stderr, "(MuJoCo's own refusal follows)\n");
        mjModel* mm = gdn_oracle_mj_from_string(xml);
        if (mm) {
            fprintf(stderr, "MuJoCo loads it\n");
            mj_deleteModel(mm);
            return 1;
        }
    }
    return 0;
}

#define WORLD                                                                              \
    "<mujoco><worldbody><site name='w' zaxis='1 0 0'/><body name='b'><joint name='j'/>"    \
    "<geom size='.1'/><site name='s' pos='.1 0 0'/></body></worldbody>"

// MuJoCo's checks of the transmission attributes (and the body transmission refused by name);
// a default class carries cranklength
static int test_loader(void) {
    CHECK(!refused(WORLD "<actuator><general body='x'/></actuator></mujoco>", GDN_ERR_MODEL,
                  "transmission target 'x' not found"));
    CHECK(!refused(WORLD "<actuator><adhesion body='b'/></actuator></mujoco>", GDN_ERR_MODEL,
                  "required attribute missing: 'ctrlrange'"));
    CHECK(!refused(WORLD "<actuator><adhesion body='b' ctrlrange='-1 1'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "adhesion control range cannot be negative"));
    CHECK(!refused(WORLD "<actuator><adhesion body='b' ctrlrange='0 1' gain='-1'/></actuator>"
                         "</mujoco>",
                  GDN_ERR_MODEL, "adhesion gain cannot be negative"));
    CHECK(!refused(WORLD "<actuator><motor cranksite='s' cranklength='.2'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "missing base site for slider-crank"));
    CHECK(!refused(WORLD "<actuator><motor cranksite='s' slidersite='x' cranklength='.2'/>"
                        "</actuator></mujoco>",
                  GDN_ERR_MODEL, "base site 'x' not found"));
    CHECK(!refused(WORLD "<actuator><motor cranksite='s' slidersite='w'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "crank length must be positive"));
    CHECK(!refused(WORLD "<actuator><motor joint='j' slidersite='w'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "only be used in slidercrank"));
    CHECK(!refused(WORLD "<actuator><motor joint='j' refsite='w'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "refsite can only be used with site"));
    CHECK(!refused(WORLD "<actuator><motor site='x'/></actuator></mujoco>", GDN_ERR_MODEL,
                  "'x' not found"));
    CHECK(!refused(WORLD "<actuator><motor site='s' refsite='x'/></actuator></mujoco>",
                  GDN_ERR_MODEL, "reference site 'x' not found"));
    const char* xml = WORLD "<default><motor cranklength='.3'/></default>"
                            "<actuator><motor cranksite='s' slidersite='w' gear='2'/><motor site='s' refsite='w'/>"
                            "<motor jointinparent='j'/></actuator></mujoco>";
    gdnModel* m = NULL;
    char err[1024] = "";
    const gdnStatus st = gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "%s\n", err);
    }
    CHECK(st == GDN_OK);
    mjModel* mm = gdn_oracle_mj_from_string(xml);
    CHECK(mm && mm->nu == 3 && m->nu == 3);
    for (int i = 0; i < 3; i++) {
        CHECK(m->actuator_trnid[2 * i] == mm->actuator_trnid[2 * i]);
        CHECK(m->actuator_trnid[2 * i + 1] == mm->actuator_trnid[2 * i + 1]);
        CHECK(m->actuator_cranklength[i] == mm->actuator_cranklength[i]);
    }
    CHECK(m->actuator_trntype[0] == GDN_TRN_SLIDERCRANK && m->actuator_trntype[1] == GDN_TRN_SITE);
    CHECK(m->actuator_trntype[2] == GDN_TRN_JOINT); // jointinparent on a hinge
    mj_deleteModel(mm);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- actuator sensors

// actuatorpos / actuatorvel on the new transmissions: sensordata vs MuJoCo; gdn_sensor_jvp vs
// central FD of sensordata along a random (dq, dv) (eps 1e-6: the bound TOL_FD), gdn_sensor_vjp
// by the dot-product identity
static int sensor_model(const char* file) {
    char path[1024];
    path_of(file, path, sizeof(path));
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    const gdnModel* m = o.gm;
    gdnData* d = o.gd;
    const int nv = m->nv, nq = m->nq, ns = m->nsensordata;
    if (ns == 0) {
        gdn_oracle_free(&o);
        return 0;
    }
    double* buf = calloc((size_t)(6 * ns + 6 * nv + 2 * nq), sizeof(double));
    CHECK(buf);
    double *ds = buf, *sp = ds + ns, *sm = sp + ns, *fd = sm + ns, *y = fd + ns;
    double *x = y + ns, *g = x + 2 * nv, *v0 = g + 2 * nv, *q0 = v0 + nv;
    unsigned long long rng = 515;
    double e_mj = 0, e_fd = 0, e_dot = 0;
    for (int s = 0; s < 6; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 2.0);
        gdn_oracle_copy_state(&o);
        mj_forward(o.mm, o.md);
        CHECK(gdn_forward(m, d) == GDN_OK);
        e_mj = fmax(e_mj, gdn_test_relerr(d->sensordata, o.md->sensordata, ns, 1));
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        for (int k = 0; k < 2 * nv; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_sensor_jvp(m, d, x, x + nv, NULL, ds) == GDN_OK);
        CHECK(gdn_sensor_vjp(m, d, y, g, g + nv, NULL) == GDN_OK);
        for (int sg = 0; sg < 2; sg++) {
            const double h = sg ? -EPS : EPS;
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, d->qpos, x, h);
            for (int k = 0; k < nv; k++) {
                d->qvel[k] = v0[k] + h * x[nv + k];
            }
            CHECK(gdn_forward(m, d) == GDN_OK);
            memcpy(sg ? sm : sp, d->sensordata, sizeof(double) * (size_t)ns);
        }
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        CHECK(gdn_forward(m, d) == GDN_OK);
        for (int k = 0; k < ns; k++) {
            fd[k] = (sp[k] - sm[k]) / (2 * EPS);
        }
        e_fd = fmax(e_fd, gdn_test_relerr(ds, fd, ns, 1));
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < ns; k++) {
            lhs += y[k] * ds[k];
            mag += fabs(y[k] * ds[k]);
        }
        for (int k = 0; k < 2 * nv; k++) {
            rhs += g[k] * x[k];
            mag += fabs(g[k] * x[k]);
        }
        e_dot = fmax(e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    printf("  %s: %d actuator sensor values: vs MuJoCo %.3g; JVP vs FD %.3g; dot-product "
           "identity %.3g\n",
           o.name, ns, e_mj, e_fd, e_dot);
    free(buf);
    gdn_oracle_free(&o);
    CHECK(e_mj <= TOL);
    CHECK(e_fd <= TOL_FD);
    CHECK(e_dot <= TOL_DOT);
    return 0;
}

static int test_sensors(void) {
    for (int k = 0; k < NMODEL; k++) {
        CHECK(sensor_model(MODELS[k]) == 0);
    }
    return 0;
}

// ---------------------------------------------------------------- body (adhesion)

#define ADHESION GDN_TEST_MODELS "/trn_adhesion.xml"

// constraints on in both engines, Newton at tolerance 1e-12, no warm start; cone as given
static int load_constrained(gdnOracle* o, const char* path, int elliptic) {
    if (gdn_oracle_load_tight(o, path)) {
        return 1;
    }
    o->gm->opt.cone = elliptic ? GDN_CONE_ELLIPTIC : GDN_CONE_PYRAMIDAL;
    o->mm->opt.cone = elliptic ? mjCONE_ELLIPTIC : mjCONE_PYRAMIDAL;
    return 0;
}

// states near the floor (contacts included and in the gap) vs mj_forward: the moment and the
// forces to a few ulps, qacc to the solve's accuracy; then a 1000-step rollout held down by
// the adhesion, vs mj_step
static int adhesion_cone(int elliptic) {
    gdnOracle o;
    CHECK(load_constrained(&o, ADHESION, elliptic) == 0);
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    const int nu = gm->nu, nv = gm->nv;
    gdnWorst w;
    memset(&w, 0, sizeof(w));
    unsigned long long rng = 99;
    double* dq = calloc((size_t)nv + 1, sizeof(double));
    double* scratch = calloc((size_t)nv + 1, sizeof(double));
    CHECK(dq && scratch);
    int gap = 0, included = 0;
    double mmax = 0, fmax_ = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_data_reset(gm, gd);
        for (int k = 0; k < nv; k++) {
            dq[k] = gdn_test_uniform(&rng, -0.03, 0.03);
            gd->qvel[k] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
        gdn_integrate_pos(gm, gd->qpos, dq, 1);
        for (int i = 0; i < nu; i++) {
            gd->ctrl[i] = gdn_test_uniform(&rng, -0.2, 1.5);
        }
        gdn_oracle_copy_state(&o);
        mj_forward(o.mm, o.md);
        CHECK(gdn_forward(gm, gd) == GDN_OK);
        CHECK(gd->ncon == o.md->ncon && gd->nefc == o.md->nefc);
        for (int k = 0; k < nu * nv; k++) {
            mmax = fmax(mmax, fabs(o.md->actuator_moment[k]));
        }
        for (int k = 0; k < nv; k++) {
            fmax_ = fmax(fmax_, fabs(o.md->qfrc_actuator[k]));
        }
        for (int j = 0; j < gd->ncon; j++) {
            gap += gd->contact[j].exclude == 1;
            included += gd->contact[j].exclude == 0;
        }
        gdn_worst_check(&w, o.name, s, "moment", gd->actuator_moment, o.md->actuator_moment,
                        nu * nv, 1, TOL);
        gdn_worst_check(&w, o.name, s, "velocity", gd->actuator_velocity,
                        o.md->actuator_velocity, nu, 1, TOL);
        gdn_worst_check(&w, o.name, s, "force", gd->actuator_force, o.md->actuator_force, nu, 1,
                        TOL);
        gdn_worst_check(&w, o.name, s, "qfrc_actuator", gd->qfrc_actuator, o.md->qfrc_actuator,
                        nv, 1, TOL);
        gdn_worst_check(&w, o.name, s, "qacc", gd->qacc, o.md->qacc, nv, 1, 1e-8);
    }
    gdn_worst_print(&w, elliptic ? "adhesion/elliptic" : "adhesion/pyramidal");
    printf("  %d contacts included, %d in the gap; |moment| up to %.3g, |qfrc_actuator| up to "
           "%.3g\n", included, gap, mmax, fmax_);
    CHECK(w.failures == 0);
    CHECK(included > 0 && gap > 0 && mmax > 0.1 && fmax_ > 0.1);
    // the rollout: both bodies pressed down by their adhesion
    gdn_data_reset(gm, gd);
    for (int i = 0; i < nu; i++) {
        gd->ctrl[i] = 0.8 - 0.3 * i;
    }
    gd->qvel[0] = 0.3;
    gd->qvel[8] = -0.2;
    gdn_oracle_copy_state(&o);
    double worst = 0;
    for (int t = 0; t < 1000; t++) {
        mj_step(o.mm, o.md);
        CHECK(gdn_step(gm, gd) == GDN_OK);
        worst = gdn_oracle_worst(worst, gdn_oracle_qpos_distance(&o, gd->qpos, o.md->qpos,
                                                                 scratch));
        worst = gdn_oracle_worst(worst, gdn_test_relerr(gd->qvel, o.md->qvel, nv, 1));
    }
    printf("  adhesion (%s): rollout 1000 steps: worst |q - q_mj|, |v - v_mj| %.3g\n",
           elliptic ? "elliptic" : "pyramidal", worst);
    free(dq);
    free(scratch);
    CHECK(gdn_oracle_warnings(&o) == 0);
    gdn_oracle_free(&o);
    CHECK(worst <= TOL_ROLLOUT);
    return 0;
}

static int test_adhesion(void) {
    CHECK(adhesion_cone(0) == 0);
    CHECK(adhesion_cone(1) == 0);
    return 0;
}

// ---------------------------------------------------------------- body (adhesion) derivatives

// the box and capsule on the floor (trn_adhesion), and a box and a sphere pressed onto a
// spring-loaded plate (trn_adhesion_pair: both contact sides move, sphere contacts in the gap,
// a velocity-biased body actuator on the plate)
static const char* const ADH_MODELS[] = {"trn_adhesion.xml", "trn_adhesion_pair.xml"};
#define NADH ((int)(sizeof(ADH_MODELS) / sizeof(ADH_MODELS[0])))
// the steps at rest (controls 0.5) from qpos0 that press the bodies onto their supports
#define ADH_SETTLE 150

// qbase: the state ADH_SETTLE steps from qpos0 with every control 0.5 (model m's own options)
static int adhesion_base(const gdnModel* m, double* qbase) {
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = 0.5;
    }
    for (int t = 0; t < ADH_SETTLE; t++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    memcpy(qbase, d->qpos, sizeof(double) * (size_t)m->nq);
    gdn_data_free(d);
    return 0;
}

// a state near qbase: qpos = qbase (+) uniform(+-0.01) tangent, qvel uniform(+-0.3), controls
// uniform over [-0.1, 1.1] of their range (a few clamped)
static void adhesion_state(const gdnModel* m, gdnData* d, const double* qbase,
                           unsigned long long* rng, double* dq) {
    gdn_data_reset(m, d);
    memcpy(d->qpos, qbase, sizeof(double) * (size_t)m->nq);
    for (int k = 0; k < m->nv; k++) {
        dq[k] = gdn_test_uniform(rng, -0.01, 0.01);
        d->qvel[k] = gdn_test_uniform(rng, -0.3, 0.3);
    }
    gdn_integrate_pos(m, d->qpos, dq, 1);
    for (int i = 0; i < m->nu; i++) {
        const double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
        d->ctrl[i] = lo + (hi - lo) * gdn_test_uniform(rng, -0.1, 1.1);
    }
}

// the contact set and row states of d after a forward or step: ncon, nefc, each contact's
// geoms and exclude, each row's type and state, into sig (returns its length)
static int contact_signature(const gdnData* d, int* sig) {
    int n = 0;
    sig[n++] = d->ncon;
    sig[n++] = d->nefc;
    for (int j = 0; j < d->ncon && j < 64; j++) {
        sig[n++] = d->contact[j].geom1;
        sig[n++] = d->contact[j].geom2;
        sig[n++] = d->contact[j].exclude;
    }
    for (int r = 0; r < d->nefc && r < 256; r++) {
        sig[n++] = d->efc_type[r];
        sig[n++] = d->efc_state[r];
    }
    return n;
}

static int same_signature(const int* a, int na, const int* b, int nb) {
    return na == nb && !memcmp(a, b, sizeof(int) * (size_t)na);
}

#define SIGMAX (2 + 3 * 64 + 2 * 256)

// the body transmissions' linearization at states near rest (constraints on: the contacts
// exist): L, V, M vs the primal's; dM/dq (H) vs central FD of actuator_moment along every
// e_c whose +-eps forwards keep the contact set (the others counted, not compared)
static int adhesion_linear(const char* file, double* worst) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nq = m->nq, nu = m->nu;
    const size_t n = (size_t)nv;
    double* buf = calloc(6 * n + 6 * ((size_t)m->nbody + n) + 4 * n + n * n + 3 * (size_t)nq +
                             3 * n * (size_t)nu,
                         sizeof(double));
    int* sig = calloc(3 * SIGMAX, sizeof(int));
    CHECK(buf && sig);
    double *S = buf, *scratch = S + 6 * n, *lrow = scratch + 6 * ((size_t)m->nbody + n);
    double *M = lrow + n, *e = M + n, *dq = e + n, *H = dq + n;
    double *q0 = H + n * n, *qbase = q0 + nq, *Mp = qbase + nq, *Mm = Mp + n * (size_t)nu;
    CHECK(adhesion_base(m, qbase) == 0);
    unsigned long long rng = 77;
    double wp = 0, wh = 0;
    int compared = 0, skipped = 0, gap = 0, included = 0;
    for (int s = 0; s < 8; s++) {
        adhesion_state(m, d, qbase, &rng, dq);
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        CHECK(gdn_forward(m, d) == GDN_OK);
        const int ns = contact_signature(d, sig);
        for (int j = 0; j < d->ncon; j++) {
            gap += d->contact[j].exclude == 1;
            included += d->contact[j].exclude == 0;
        }
        gdn_dof_axes_about(m, d, 0, S);
        for (int c = 0; c < nv; c++) {
            memset(e, 0, sizeof(double) * n);
            e[c] = 1;
            int keep = 1;
            for (int sg = 0; sg < 2; sg++) {
                memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
                gdn_integrate_pos(m, d->qpos, e, sg ? -EPS : EPS);
                CHECK(gdn_forward(m, d) == GDN_OK);
                keep &= same_signature(sig, ns, sig + SIGMAX, contact_signature(d, sig + SIGMAX));
                memcpy(sg ? Mm : Mp, d->actuator_moment, sizeof(double) * n * (size_t)nu);
            }
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            CHECK(gdn_forward(m, d) == GDN_OK);
            if (!keep) {
                skipped++;
                continue;
            }
            for (int i = 0; i < nu; i++) {
                if (m->actuator_trntype[i] != GDN_TRN_BODY) {
                    continue;
                }
                double L, V, g;
                CHECK(gdn_transmission_linear(m, d, S, i, &L, &V, lrow, M, H, &g, scratch) == 0);
                CHECK(g == 1 && L == 0);
                wp = fmax(wp, gdn_test_relerr(M, d->actuator_moment + (size_t)i * n, nv, 1));
                wp = fmax(wp, fabs(V - d->actuator_velocity[i]) /
                                  fmax(1, fabs(d->actuator_velocity[i])));
                double err = 0, scale = 1;
                for (int r = 0; r < nv; r++) {
                    const double fd = (Mp[(size_t)i * n + (size_t)r] -
                                       Mm[(size_t)i * n + (size_t)r]) / (2 * EPS);
                    scale = fmax(scale, fabs(fd));
                    err = fmax(err, fabs(H[(size_t)r * n + (size_t)c] - fd));
                }
                wh = fmax(wh, err / scale);
                compared++;
                if (!(err / scale <= TOL_FD)) {
                    fprintf(stderr, "%s sample %d actuator %d column %d: dM/dq vs FD %.3g\n",
                            file, s, i, c, err / scale);
                    return 1;
                }
            }
        }
    }
    printf("  %s: %d body-transmission columns (%d contacts included, %d in the gap; %d "
           "columns changed the contact set, skipped): M, V vs the primal %.3g; dM/dq vs FD "
           "%.3g\n",
           file, compared, included, gap, skipped, wp, wh);
    *worst = fmax(*worst, wh);
    free(sig);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(compared > 0 && included > 0 && skipped <= compared / 10);
    CHECK(wp <= TOL);
    return 0;
}

static int test_adhesion_linearization(void) {
    double worst = 0;
    for (int k = 0; k < NADH; k++) {
        CHECK(adhesion_linear(ADH_MODELS[k], &worst) == 0);
    }
    return 0;
}

// A, B (gdn_transition_jacobians) at states near rest vs central FD of gdn_step (eps 1e-7, the
// columns whose +-eps steps keep the contact set and row states; the others copied over and
// counted) and, under Euler, vs MuJoCo's mjd_transitionFD (the same columns; eps 1e-6 to
// TOL_MJFD, eps 1e-7 printed); the JVP vs A x + B u; the VJP by the dot-product identity.
// Newton at tolerance 1e-12, no warm start. The contacts' stiff third derivative leaves
// central FD a truncation error ~1.2e5 eps^2 relative (measured on trn_adhesion: 1.2e-7 at eps
// 1e-6, 1.1e-8 at 3e-7, 1.2e-5 at 1e-5); at eps 1e-7 round-off dominates (~4e-9), hence eps
// 1e-7 and the bound ADH_TOL_FD
#define ADH_EPS 1e-7
#define ADH_TOL_FD 5e-8
static int adhesion_step(const char* file, int integrator, int elliptic) {
    char path[1024];
    path_of(file, path, sizeof(path));
    gdnOracle o;
    CHECK(load_constrained(&o, path, elliptic) == 0);
    o.gm->opt.integrator = integrator;
    o.mm->opt.integrator = integrator == GDN_INT_RK4 ? mjINT_RK4
                           : integrator == GDN_INT_IMPLICIT ? mjINT_IMPLICIT
                                                            : mjINT_EULER;
    const gdnModel* m = o.gm;
    gdnData* d = o.gd;
    const int nv = m->nv, nu = m->nu, nq = m->nq, n = 2 * nv;
    CHECK(o.mm->na == 0 && m->na == 0);
    double* buf = calloc((size_t)(4 * n * n + 4 * n * nu + 8 * n + 5 * nq + 3 * nu + 4),
                         sizeof(double));
    int* sig = calloc(2 * SIGMAX, sizeof(int));
    CHECK(buf && sig);
    double *A = buf, *Amj = A + n * n, *Afd = Amj + n * n, *B = Afd + n * n, *Bmj = B + n * nu;
    double *Bfd = Bmj + n * nu, *x = Bfd + n * nu, *y = x + n, *jx = y + n, *g = jx + n;
    double *ax = g + n, *col = ax + n, *q0 = col + n, *v0 = q0 + nq, *u0 = v0 + nv;
    double *qp = u0 + nu, *qm = qp + nq, *gu = qm + nq, *du = gu + nu, *qbase = du + nu;
    double *dq = qbase + nq, *Amj5 = dq + n, *Bmj5 = Amj5 + n * n;
    CHECK(adhesion_base(m, qbase) == 0);
    unsigned long long rng = 0xAD5;
    double e_fd = 0, e_mj = 0, e_mj5 = 0, e_jvp = 0, e_dot = 0, e_jfd = 0;
    int njfd = 0;
    int skipped = 0, masked = 0;
    const int euler = integrator == GDN_INT_EULER;
    for (int s = 0; s < 4; s++) {
        adhesion_state(m, d, qbase, &rng, dq);
        gdn_oracle_copy_state(&o);
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(u0, d->ctrl, sizeof(double) * (size_t)nu);
        CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_OK);
        if (euler) {
            mjd_transitionFD(o.mm, o.md, 1e-6, 1, Amj, Bmj, NULL, NULL);
            // the single entries MuJoCo's FD breaks (test_transition_oracle) excluded as in
            // step_model: its eps 1e-6 and 1e-5 columns disagreeing by > 1e-4 of max(|A|, 1)
            mjd_transitionFD(o.mm, o.md, 1e-5, 1, Amj5, Bmj5, NULL, NULL);
            double amax = 1;
            for (int k = 0; k < n * n; k++) {
                amax = fmax(amax, fabs(Amj[k]));
            }
            for (int k = 0; k < n * n; k++) {
                if (fabs(Amj[k] - Amj5[k]) > 1e-4 * amax) {
                    Amj[k] = A[k];
                    masked++;
                }
            }
            for (int k = 0; k < n * nu; k++) {
                if (fabs(Bmj[k] - Bmj5[k]) > 1e-4 * amax) {
                    Bmj[k] = B[k];
                    masked++;
                }
            }
            // and its eps 1e-7 columns (printed: truncation gone, round-off ~1e-9)
            mjd_transitionFD(o.mm, o.md, 1e-7, 1, Amj5, Bmj5, NULL, NULL);
        }
        // the nominal step's contact set and row states
        CHECK(gdn_step(m, d) == GDN_OK);
        const int ns = contact_signature(d, sig);
        for (int j = 0; j < n + nu; j++) {
            int keep = 1;
            for (int sg = 0; sg < 2; sg++) {
                const double h = sg ? -ADH_EPS : ADH_EPS;
                gdn_data_reset(m, d);
                memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
                memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
                memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
                if (j < nv) {
                    memset(col, 0, sizeof(double) * (size_t)n);
                    col[j] = 1;
                    gdn_integrate_pos(m, d->qpos, col, h);
                } else if (j < n) {
                    d->qvel[j - nv] += h;
                } else {
                    d->ctrl[j - n] += h;
                }
                CHECK(gdn_step(m, d) == GDN_OK);
                keep &= same_signature(sig, ns, sig + SIGMAX, contact_signature(d, sig + SIGMAX));
                memcpy(sg ? qm : qp, d->qpos, sizeof(double) * (size_t)nq);
                if (sg == 0) {
                    memcpy(jx, d->qvel, sizeof(double) * (size_t)nv);
                } else {
                    for (int k = 0; k < nv; k++) {
                        jx[k] = (jx[k] - d->qvel[k]) / (2 * ADH_EPS);
                    }
                }
            }
            gdn_difference_pos(m, col, 2 * ADH_EPS, qm, qp);
            double* dst = j < n ? Afd : Bfd;
            double* mj = j < n ? Amj : Bmj;
            const double* ours = j < n ? A : B;
            const int cols = j < n ? n : nu, c = j < n ? j : j - n;
            for (int r = 0; r < nv; r++) {
                dst[r * cols + c] = col[r];
                dst[(nv + r) * cols + c] = jx[r];
            }
            if (!keep) {
                // a column across a contact-set or row-state change: ours copied over
                skipped++;
                for (int r = 0; r < n; r++) {
                    dst[r * cols + c] = ours[r * cols + c];
                    mj[r * cols + c] = ours[r * cols + c];
                }
            }
        }
        gdn_data_reset(m, d);
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        const double ea = gdn_test_relerr(A, Afd, n * n, 1);
        const double eb = gdn_test_relerr(B, Bfd, n * nu, 1);
        const double ma = euler ? gdn_test_relerr(A, Amj, n * n, 1) : 0;
        const double mb = euler ? gdn_test_relerr(B, Bmj, n * nu, 1) : 0;
        if (euler) {
            // MuJoCo's eps 1e-7 columns, the masked and skipped entries ours
            for (int k = 0; k < n * n; k++) {
                Amj5[k] = Amj[k] == A[k] ? A[k] : Amj5[k];
            }
            for (int k = 0; k < n * nu; k++) {
                Bmj5[k] = Bmj[k] == B[k] ? B[k] : Bmj5[k];
            }
            e_mj5 = fmax(e_mj5, fmax(gdn_test_relerr(A, Amj5, n * n, 1),
                                     gdn_test_relerr(B, Bmj5, n * nu, 1)));
        }
        if (!(fmax(ea, eb) <= ADH_TOL_FD && fmax(ma, mb) <= TOL_MJFD)) {
            fprintf(stderr, "%s sample %d: A vs FD %.3g, B vs FD %.3g, A vs MuJoCo %.3g, B vs "
                            "MuJoCo %.3g\n", o.name, s, ea, eb, ma, mb);
            gdn_test_print_worst(A, Afd, n * n);
            gdn_test_print_worst(B, Bfd, n * nu);
            return 1;
        }
        e_fd = fmax(e_fd, fmax(ea, eb));
        e_mj = fmax(e_mj, fmax(ma, mb));
        for (int k = 0; k < n; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_step_jvp(m, d, x, x + nv, du, NULL, NULL, jx, jx + nv) == GDN_OK);
        for (int r = 0; r < n; r++) {
            double sum = 0;
            for (int c = 0; c < n; c++) {
                sum += A[r * n + c] * x[c];
            }
            for (int c = 0; c < nu; c++) {
                sum += B[r * nu + c] * du[c];
            }
            ax[r] = sum;
        }
        e_jvp = fmax(e_jvp, gdn_test_relerr(jx, ax, n, 1));
        // and the JVP vs central FD of gdn_step along (x, du) itself, when both sides keep the
        // contact set
        int keep = 1;
        for (int sg = 0; sg < 2; sg++) {
            const double h = sg ? -ADH_EPS : ADH_EPS;
            gdn_data_reset(m, d);
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, d->qpos, x, h);
            for (int k = 0; k < nv; k++) {
                d->qvel[k] = v0[k] + h * x[nv + k];
            }
            for (int k = 0; k < nu; k++) {
                d->ctrl[k] = u0[k] + h * du[k];
            }
            CHECK(gdn_step(m, d) == GDN_OK);
            keep &= same_signature(sig, ns, sig + SIGMAX, contact_signature(d, sig + SIGMAX));
            memcpy(sg ? qm : qp, d->qpos, sizeof(double) * (size_t)nq);
            if (!sg) {
                memcpy(ax + nv, d->qvel, sizeof(double) * (size_t)nv);
            }
        }
        gdn_difference_pos(m, ax, 2 * ADH_EPS, qm, qp);
        for (int k = 0; k < nv; k++) {
            ax[nv + k] = (ax[nv + k] - d->qvel[k]) / (2 * ADH_EPS);
        }
        if (keep) {
            e_jfd = fmax(e_jfd, gdn_test_relerr(jx, ax, n, 1));
            njfd++;
        }
        gdn_data_reset(m, d);
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        CHECK(gdn_step_vjp(m, d, y, y + nv, g, g + nv, gu, NULL, NULL) == GDN_OK);
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            lhs += y[k] * jx[k];
            rhs += g[k] * x[k];
            mag += fabs(y[k] * jx[k]) + fabs(g[k] * x[k]);
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
            mag += fabs(gu[k] * du[k]);
        }
        e_dot = fmax(e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    const char* name = integrator == GDN_INT_RK4        ? "RK4"
                       : integrator == GDN_INT_IMPLICIT ? "implicit"
                                                        : "Euler";
    char mj[160];
    if (euler) {
        snprintf(mj, sizeof(mj), "vs mjd_transitionFD eps 1e-6 %.3g, eps 1e-7 %.3g (%d "
                 "unreliable MuJoCo entries excluded)", e_mj, e_mj5, masked);
    } else {
        snprintf(mj, sizeof(mj), "(mjd_transitionFD compared under Euler only)");
    }
    printf("  %s (%s, %s): A, B vs central FD (eps 1e-7) of gdn_step %.3g (%d of %d columns "
           "changed the contact set, skipped), %s; JVP vs A x + B u %.3g, vs central FD %.3g "
           "(%d of 4 directions kept the contact set); dot-product identity %.3g\n",
           o.name, name, elliptic ? "elliptic" : "pyramidal", e_fd, skipped, 4 * (n + nu), mj, e_jvp, e_jfd, njfd, e_dot);
    free(sig);
    free(buf);
    CHECK(gdn_oracle_warnings(&o) == 0);
    gdn_oracle_free(&o);
    CHECK(skipped <= (n + nu));
    CHECK(e_jvp <= TOL);
    CHECK(njfd >= 3 && e_jfd <= ADH_TOL_FD);
    CHECK(e_dot <= TOL_DOT);
    CHECK(masked <= 4);
    return 0;
}

static int test_adhesion_step(void) {
    for (int k = 0; k < NADH; k++) {
        CHECK(adhesion_step(ADH_MODELS[k], GDN_INT_EULER, 0) == 0);
        CHECK(adhesion_step(ADH_MODELS[k], GDN_INT_RK4, 0) == 0);
        // elliptic cones (an included contact's moment row: its first row of efc_J)
        CHECK(adhesion_step(ADH_MODELS[k], GDN_INT_EULER, 1) == 0);
    }
    // the implicit integrator: trn_adhesion (no velocity gain on its body actuators) and
    // trn_adhesion_pair (a velocity-biased body actuator: qDeriv's kv M' M moves with q)
    CHECK(adhesion_step(ADH_MODELS[0], GDN_INT_IMPLICIT, 0) == 0);
    CHECK(adhesion_step(ADH_MODELS[1], GDN_INT_IMPLICIT, 0) == 0);
    return 0;
}

// the adjoint of a 40-step rollout from near rest (constraints on, solver tolerance 1e-14)
// vs Richardson central FD on q0, v0 (h = 1e-6) and every control (h = 1e-5; the controls
// shifted into their ranges), every FD rollout on the nominal rollout's contact sets and row
// states; and the same gradient from a checkpointed tape
static int adhesion_adjoint(const char* file, int integrator) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    m->opt.integrator = integrator;
    m->opt.tolerance = 1e-14;
    m->opt.iterations = 200;
    double* qbase = calloc((size_t)m->nq, sizeof(double));
    CHECK(qbase);
    CHECK(adhesion_base(m, qbase) == 0);
    gdnFdProblem p;
    const int T = 40;
    CHECK(gdn_fd_problem_init(&p, file, m, T, 23, qbase, 0.005, NULL, 0.2, 0.3));
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < p.m->nu; i++) {
            const double lo = p.m->actuator_ctrlrange[2 * i];
            const double hi = p.m->actuator_ctrlrange[2 * i + 1];
            p.u[t * p.m->nu + i] += 0.5 * (lo + hi);
        }
    }
    p.h = 1e-6;
    CHECK(gdn_fd_gradient_checked(&p) == 0);
    CHECK(gdn_fd_record_rows(&p) == 0);
    const int nv = p.m->nv, nu = p.m->nu;
    int* idx = calloc((size_t)(T * nu + nv + 1), sizeof(int));
    CHECK(idx);
    for (int k = 0; k < T * nu + nv; k++) {
        idx[k] = k;
    }
    double e = 0;
    e = fmax(e, gdn_fd_block(&p, GDN_FD_Q0, "q0", p.g.qpos0, idx, nv, 1e-8, 1e-5));
    e = fmax(e, gdn_fd_block(&p, GDN_FD_V0, "v0", p.g.qvel0, idx, nv, 1e-8, 1e-5));
    // the controls' FD at h = 1e-5: their |dJ/du| is small (~5e-3), round-off at h = 1e-6
    // leaves ~5e-7 relative (~1 / h measured), truncation is below it at 1e-5
    p.h = 1e-5;
    e = fmax(e, gdn_fd_block(&p, GDN_FD_U, "u", p.g.ctrl, idx, T * nu, 1e-8, 1e-5));
    if (p.branch_fails) {
        fprintf(stderr, "%s: %d FD rollouts left the nominal branch (first at step %d)\n",
                p.name, p.branch_fails, p.first_t);
    }
    const int fails = p.branch_fails;
    // a checkpointed tape (every 7th state kept, the segments replayed): the same gradient
    gdnTape* ck = NULL;
    char err[512] = "";
    CHECK(gdn_tape_create(p.m, T, 7, &ck, err, (int)sizeof(err)) == GDN_OK);
    double* gbuf = calloc((size_t)(2 * nv + T * nu), sizeof(double));
    CHECK(gbuf);
    gdnAdjointGradients gk;
    memset(&gk, 0, sizeof(gk));
    gk.qpos0 = gbuf;
    gk.qvel0 = gbuf + nv;
    gk.ctrl = gbuf + 2 * nv;
    CHECK(gdn_adjoint_rollout_gradient(p.m, &p.r, &p.obj, ck, &gk, err, (int)sizeof(err)) ==
          GDN_OK);
    const double eck = fmax(gdn_test_relerr(gk.qpos0, p.g.qpos0, nv, 1e-8),
                            fmax(gdn_test_relerr(gk.qvel0, p.g.qvel0, nv, 1e-8),
                                 gdn_test_relerr(gk.ctrl, p.g.ctrl, T * nu, 1e-8)));
    gdn_tape_free(ck);
    free(gbuf);
    CHECK(eck <= 1e-12);
    const char* iname = integrator == GDN_INT_RK4        ? "RK4"
                        : integrator == GDN_INT_IMPLICIT ? "implicit"
                                                         : "Euler";
    printf("  %s (%s): trajectory adjoint vs FD %.3g (checkpointed tape vs full %.3g)\n", file,
           iname, e, eck);
    free(idx);
    free(qbase);
    gdn_fd_problem_free(&p);
    CHECK(fails == 0);
    CHECK(e <= 2e-6);
    return 0;
}

static int test_adhesion_adjoint(void) {
    for (int k = 0; k < NADH; k++) {
        CHECK(adhesion_adjoint(ADH_MODELS[k], GDN_INT_EULER) == 0);
        CHECK(adhesion_adjoint(ADH_MODELS[k], GDN_INT_RK4) == 0);
    }
    CHECK(adhesion_adjoint(ADH_MODELS[0], GDN_INT_IMPLICIT) == 0);
    CHECK(adhesion_adjoint(ADH_MODELS[1], GDN_INT_IMPLICIT) == 0);
    return 0;
}

// actuatorpos / vel / frc sensors on body transmissions (trn_adhesion_pair), constraints on:
// values vs MuJoCo; gdn_sensor_jvp vs central FD along a random (dq, dv) whose +-eps forwards
// keep the contact set; gdn_sensor_vjp by the dot-product identity
static int test_adhesion_sensors(void) {
    char path[1024];
    path_of(ADH_MODELS[1], path, sizeof(path));
    gdnOracle o;
    CHECK(gdn_oracle_load_tight(&o, path) == 0);
    const gdnModel* m = o.gm;
    gdnData* d = o.gd;
    const int nv = m->nv, nq = m->nq, ns = m->nsensordata, nu = m->nu;
    CHECK(ns > 0);
    double* buf = calloc((size_t)(6 * ns + 7 * nv + 3 * nq + 2 * nu), sizeof(double));
    int* sig = calloc(2 * SIGMAX, sizeof(int));
    CHECK(buf && sig);
    double *ds = buf, *sp = ds + ns, *sm = sp + ns, *fd = sm + ns, *y = fd + ns;
    double *x = y + ns, *g = x + 2 * nv, *v0 = g + 2 * nv, *q0 = v0 + nv, *qbase = q0 + nq;
    double *dq = qbase + nq, *gu = dq + nv, *du = gu + nu;
    CHECK(adhesion_base(m, qbase) == 0);
    unsigned long long rng = 616;
    double e_mj = 0, e_fd = 0, e_dot = 0, smax = 0;
    int compared = 0;
    for (int s = 0; s < 8; s++) {
        adhesion_state(m, d, qbase, &rng, dq);
        gdn_oracle_copy_state(&o);
        mj_forward(o.mm, o.md);
        CHECK(gdn_forward(m, d) == GDN_OK);
        const int nsig = contact_signature(d, sig);
        e_mj = fmax(e_mj, gdn_test_relerr(d->sensordata, o.md->sensordata, ns, 1));
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        for (int k = 0; k < 2 * nv; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_sensor_jvp(m, d, x, x + nv, du, ds) == GDN_OK);
        CHECK(gdn_sensor_vjp(m, d, y, g, g + nv, gu) == GDN_OK);
        int keep = 1;
        const double* u0 = o.md->ctrl;
        for (int sg = 0; sg < 2; sg++) {
            const double h = sg ? -EPS : EPS;
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, d->qpos, x, h);
            for (int k = 0; k < nv; k++) {
                d->qvel[k] = v0[k] + h * x[nv + k];
            }
            for (int k = 0; k < nu; k++) {
                d->ctrl[k] = u0[k] + h * du[k];
            }
            CHECK(gdn_forward(m, d) == GDN_OK);
            keep &= same_signature(sig, nsig, sig + SIGMAX, contact_signature(d, sig + SIGMAX));
            memcpy(sg ? sm : sp, d->sensordata, sizeof(double) * (size_t)ns);
        }
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        CHECK(gdn_forward(m, d) == GDN_OK);
        for (int k = 0; k < ns; k++) {
            fd[k] = (sp[k] - sm[k]) / (2 * EPS);
            smax = fmax(smax, fabs(fd[k]));
        }
        if (keep) {
            compared++;
            e_fd = fmax(e_fd, gdn_test_relerr(ds, fd, ns, 1));
        }
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < ns; k++) {
            lhs += y[k] * ds[k];
            mag += fabs(y[k] * ds[k]);
        }
        for (int k = 0; k < 2 * nv; k++) {
            rhs += g[k] * x[k];
            mag += fabs(g[k] * x[k]);
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
            mag += fabs(gu[k] * du[k]);
        }
        e_dot = fmax(e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    printf("  %s: %d actuator sensor values on body transmissions: vs MuJoCo %.3g; JVP vs FD "
           "%.3g (%d of 8 directions kept the contact set; |d sensordata| up to %.3g); "
           "dot-product identity %.3g\n",
           o.name, ns, e_mj, e_fd, compared, smax, e_dot);
    free(sig);
    free(buf);
    gdn_oracle_free(&o);
    CHECK(compared >= 6 && smax > 0.1);
    CHECK(e_mj <= TOL);
    CHECK(e_fd <= TOL_FD);
    CHECK(e_dot <= TOL_DOT);
    return 0;
}

// a body transmission's contacts from MPR with a curved shape, in the gap (no rows: the smooth
// step): an ellipsoid over a large sphere is differentiated at MPR's converged limit (the step
// JVP succeeds and reports GDN_DERIV_MPR_LIMIT; with the actuator's transmission made a joint
// one the same step reports nothing); the ellipsoid over a box's face (a support tie of the
// face's corners: no geometry tangent) is refused, the trajectory adjoint naming
// GDN_TRN_BODY_WHAT
#define MPR_SCENE(support, pose)                                                            \
    "<mujoco><worldbody>" support "<body name='e' " pose ">"                                \
    "<freejoint/><geom type='ellipsoid' size='.08 .07 .06' margin='.02' gap='.02'/></body>" \
    "</worldbody><actuator><adhesion body='e' ctrlrange='0 1'/></actuator></mujoco>"

static int test_adhesion_mpr(void) {
    const char* xml[2] = {
        MPR_SCENE("<geom type='sphere' size='.5'/>", "pos='.02 .01 .565' euler='10 5 0'"),
        MPR_SCENE("<geom type='box' size='.5 .5 .5'/>", "pos='0 0 .565'")};
    for (int k = 0; k < 3; k++) {
        const int sphere = k < 2, with = k != 1;
        gdnModel* m = NULL;
        char err[512] = "";
        const char* x_ = xml[sphere ? 0 : 1];
        CHECK(gdn_load_xml_string(x_, strlen(x_), NULL, &m, err, sizeof(err), NULL, 0) ==
              GDN_OK);
        if (!with) {
            m->actuator_trntype[0] = GDN_TRN_JOINT;
            m->actuator_trnid[0] = 0;
        }
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        d->ctrl[0] = 0.5;
        CHECK(gdn_forward(m, d) == GDN_OK);
        CHECK(d->ncon == 1 && d->contact[0].exclude == 1 && d->nefc == 0);
        double x[12] = {0.1, -0.2, 0.3, 0.2, 0.1, -0.3, 0.5, -0.1, 0.2, 0.3, 0.1, -0.2}, y[12];
        const gdnStatus st = gdn_step_jvp(m, d, x, x + 6, NULL, NULL, NULL, y, y + 6);
        if (sphere) {
            CHECK(st == GDN_OK);
            printf("  ellipsoid over a sphere, %s: deriv_flags %d\n",
                   with ? "body transmission" : "joint transmission", d->deriv_flags);
            CHECK(((d->deriv_flags & GDN_DERIV_MPR_LIMIT) != 0) == with);
        } else {
            CHECK(st == GDN_ERR_UNSUPPORTED);
            CHECK(gdn_transmission_body_refusal(m, d) != NULL);
            gdnRollout r;
            gdn_rollout_init(m, 3, &r);
            double ctrl[3] = {0.5, 0.5, 0.5};
            r.qpos0 = d->qpos;
            r.qvel0 = x;
            r.ctrl = ctrl;
            gdnTargetObjective spec = {1, {0, 0, 0}, {0.3, 0, 0.1}, 1, 0, 0};
            gdnObjective obj;
            CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
            gdnTape* tape = NULL;
            CHECK(gdn_tape_create(m, 3, 1, &tape, err, (int)sizeof(err)) == GDN_OK);
            gdnAdjointGradients out;
            memset(&out, 0, sizeof(out));
            CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, (int)sizeof(err)) ==
                  GDN_ERR_UNSUPPORTED);
            printf("  ellipsoid over a box's face: adjoint: %s\n", err);
            CHECK(strstr(err, GDN_TRN_BODY_WHAT));
            gdn_tape_free(tape);
        }
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}

static const gdnTestCase CASES[] = {
    {"loader", test_loader},
    {"forward", test_forward},
    {"rollout", test_rollout},
    {"linearization", test_linearization},
    {"step_derivatives", test_step_derivatives},
    {"adjoint", test_adjoint},
    {"sensors", test_sensors},
    {"adhesion", test_adhesion},
    {"adhesion_linearization", test_adhesion_linearization},
    {"adhesion_step", test_adhesion_step},
    {"adhesion_adjoint", test_adhesion_adjoint},
    {"adhesion_sensors", test_adhesion_sensors},
    {"adhesion_mpr", test_adhesion_mpr},
};
GDN_TEST_MAIN(CASES)
