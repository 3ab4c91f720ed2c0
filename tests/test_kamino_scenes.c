// SPDX-License-Identifier: Apache-2.0
// Kamino scenes: a hinge pendulum against gradyn's reduced-coordinate gdn_step, a box resting
// on a plane (sum of normal impulses m g h, no drift), a four-bar closed by an equality connect
// (closure error over 10^4 steps).
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "runner/test.h"

static char g_err[2048];

static gdnModel* load(const char* name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, name);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, g_err);
        return NULL;
    }
    return m;
}

// max |q_kamino - q_gdn| over T seconds of the pendulum at step h
static int pendulum_error(double h, double T, double* err, double* iters) {
    gdnModel* m = load("kamino_pendulum.xml");
    CHECK(m);
    m->opt.timestep = h;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_data_reset_keyframe(m, d, 0) == GDN_OK);
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.tol_primal = s.tol_dual = s.tol_compl = 1e-12;
    s.max_iterations = 500;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    CHECK(gdn_kamino_reset(km, kd, NULL, d->qpos, d->qvel) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    int n = (int)lround(T / h);
    double e = 0, it = 0;
    for (int k = 0; k < n; k++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        CHECK(w->status.converged);
        it += w->status.iterations;
        e = fmax(e, fabs(w->qpos[0] - d->qpos[0]));
    }
    *err = e;
    *iters = it / n;
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the same open chain under both solvers: first-order agreement (the difference halves with h)
static int test_pendulum(void) {
    double e1, e2, e3, i1, i2, i3;
    CHECK(pendulum_error(1e-3, 1.0, &e1, &i1) == 0);
    CHECK(pendulum_error(5e-4, 1.0, &e2, &i2) == 0);
    CHECK(pendulum_error(2.5e-4, 1.0, &e3, &i3) == 0);
    printf("  pendulum vs gdn_step over 1 s: max |dq| = %.3g (h 1e-3, %.1f it), %.3g (h 5e-4), "
           "%.3g (h 2.5e-4); ratios %.2f %.2f\n",
           e1, i1, e2, e3, e1 / e2, e2 / e3);
    CHECK(e1 < 1e-4);
    CHECK(e1 / e2 > 1.7 && e2 / e3 > 1.7); // at least first order in h
    CHECK(i1 <= 50);
    return 0;
}

// max over 1 s of the joint-space difference between Kamino and gdn_step on an open chain
// (hinge, ball, cylindrical) at step h: hinge / slide coordinates, the ball's relative angle
static int chain_error(double h, double* err) {
    gdnModel* m = load("kamino_chain.xml");
    CHECK(m);
    m->opt.timestep = h;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_data_reset_keyframe(m, d, 0) == GDN_OK);
    gdn_normalize_quat(m, d->qpos);
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.tol_primal = s.tol_dual = s.tol_compl = 1e-12;
    s.max_iterations = 500;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_body_joint(km, 3) == GDN_KAMINO_CYLINDRICAL);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    CHECK(gdn_kamino_reset(km, kd, NULL, d->qpos, d->qvel) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    double e = 0;
    int n = (int)lround(1.0 / h);
    for (int k = 0; k < n; k++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        CHECK(w->status.converged);
        const double* a = w->qpos;
        const double* b = d->qpos;
        e = fmax(e, fabs(a[0] - b[0]));
        double dot = fabs(a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]);
        e = fmax(e, 2 * acos(fmin(1, dot)));
        e = fmax(e, fmax(fabs(a[5] - b[5]), fabs(a[6] - b[6])));
    }
    *err = e;
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the same chain's joint-space error over 1 s at h = 1e-3 against gdn_step at h / 50 (a
// reference two orders more accurate), for Kamino with and without the curvature bias and for
// gdn_step at h
static int chain_reference(double err[3]) {
    const double h = 1e-3;
    const int sub = 50;
    gdnModel* mr = load("kamino_chain.xml");
    gdnModel* m = load("kamino_chain.xml");
    CHECK(mr && m);
    mr->opt.timestep = h / sub;
    m->opt.timestep = h;
    gdnData *dr = NULL, *d = NULL;
    CHECK(gdn_data_create(mr, &dr) == GDN_OK && gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_data_reset_keyframe(mr, dr, 0) == GDN_OK && gdn_data_reset_keyframe(m, d, 0) == GDN_OK);
    gdn_normalize_quat(mr, dr->qpos);
    gdn_normalize_quat(m, d->qpos);
    gdnKaminoModel* km[2] = {NULL, NULL};
    gdnKaminoData* kd[2] = {NULL, NULL};
    for (int c = 0; c < 2; c++) {
        gdnKaminoSettings s;
        gdn_kamino_settings_default(&s);
        s.curvature_bias = c;
        s.tol_primal = s.tol_dual = s.tol_compl = 1e-12;
        s.max_iterations = 500;
        CHECK(gdn_kamino_model_create(m, &s, km + c, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
        CHECK(gdn_kamino_data_create(km[c], 1, kd + c) == GDN_OK);
        CHECK(gdn_kamino_reset(km[c], kd[c], NULL, d->qpos, d->qvel) == GDN_OK);
    }
    err[0] = err[1] = err[2] = 0;
    for (int k = 0; k < 1000; k++) {
        for (int i = 0; i < sub; i++) {
            CHECK(gdn_step(mr, dr) == GDN_OK);
        }
        CHECK(gdn_step(m, d) == GDN_OK);
        const double* q[3] = {NULL, NULL, d->qpos};
        for (int c = 0; c < 2; c++) {
            CHECK(gdn_kamino_step(km[c], kd[c]) == GDN_OK);
            q[c] = gdn_kamino_world(kd[c], 0)->qpos;
        }
        for (int c = 0; c < 3; c++) {
            const double *a = q[c], *b = dr->qpos;
            double e = fmax(fabs(a[0] - b[0]), fmax(fabs(a[5] - b[5]), fabs(a[6] - b[6])));
            const double dot = fabs(a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]);
            err[c] = fmax(err[c], fmax(e, 2 * acos(fmin(1, dot))));
        }
    }
    for (int c = 0; c < 2; c++) {
        gdn_kamino_data_free(kd[c]);
        gdn_kamino_model_free(km[c]);
    }
    gdn_data_free(dr);
    gdn_data_free(d);
    gdn_model_free(mr);
    gdn_model_free(m);
    return 0;
}

static int test_open_chain(void) {
    double e1, e2, e3;
    CHECK(chain_error(1e-3, &e1) == 0);
    CHECK(chain_error(5e-4, &e2) == 0);
    CHECK(chain_error(2.5e-4, &e3) == 0);
    printf("  open chain (hinge, ball, cylindrical) vs gdn_step over 1 s: max joint-space "
           "difference %.3g (h 1e-3), %.3g (h 5e-4), %.3g (h 2.5e-4)\n",
           e1, e2, e3);
    CHECK(e1 / e2 > 1.7 && e2 / e3 > 1.7);
    CHECK(e1 < 0.05); // two first-order integrators: O(h) apart, converging together
    double r[3];
    CHECK(chain_reference(r) == 0);
    printf("  open chain at h 1e-3 vs gdn_step at h / 50 over 1 s: Kamino %.3g (curvature bias "
           "off: %.3g), gdn_step %.3g\n",
           r[1], r[0], r[2]);
    // the bias keeps the velocity tangent at mid-step: Kamino is the more accurate of the two
    CHECK(r[1] < r[0] / 3 && r[1] < r[2] / 3);
    return 0;
}

// a 1 kg box resting on the plane: the normal impulses carry m g h, nothing drifts
static int test_resting_box(void) {
    gdnModel* m = load("kamino_box.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    double h = m->opt.timestep, mg = 9.81 * m->body_mass[1];
    double x0[3] = {w->body_pos[3], w->body_pos[4], w->body_pos[5]};
    double worst = 0, drift = 0, zmin = 1e9, zmax = -1e9, it = 0;
    int unconv = 0;
    for (int k = 0; k < 1000; k++) {
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        CHECK(w->ncontact >= 1);
        double sn = 0, st = 0;
        for (int c = 0; c < w->ncontact; c++) {
            sn += w->contact[c].force[2] * h;
            st = fmax(st, fabs(w->contact[c].force[0]) + fabs(w->contact[c].force[1]));
        }
        unconv += !w->status.converged;
        it += w->status.iterations;
        if (k >= 10) {
            worst = fmax(worst, fabs(sn - mg * h));
        }
        drift = fmax(drift, hypot(w->body_pos[3] - x0[0], w->body_pos[4] - x0[1]));
        zmin = fmin(zmin, w->body_pos[5]);
        zmax = fmax(zmax, w->body_pos[5]);
    }
    printf("  resting box: %d contacts, max |sum lambda_n - m g h| = %.3g N s (m g h = %.4g), "
           "z in [%.9f, %.9f], horizontal drift %.3g m, %.1f it/step, %d unconverged\n",
           w->ncontact, worst, mg * h, zmin, zmax, drift, it / 1000, unconv);
    CHECK(worst <= 1e-6 * mg * h * 100);
    CHECK(drift <= 1e-9);
    CHECK(zmax - zmin <= 1e-5);
    CHECK(fabs(w->body_u[5]) <= 1e-6);
    CHECK(unconv == 0);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// the four-bar's loop stays closed: |p_coupler - p_rocker| at the connect anchor over 10^4
// steps, the crank driven by a constant torque
// the rocker angle psi of the four-bar for crank angle phi (both about +y): the coupler length
// |B(psi) - A(phi)| = b with A = a (cos phi, -sin phi), B = (d + c sin psi, c cos psi) in the x-z
// plane, by Newton's method from psi0 (the closed-form loop equation of Freudenstein's kind)
static double fourbar_psi(double phi, double psi0) {
    const double a = 0.1, b2 = 0.2 * 0.2 + 0.25 * 0.25, c = 0.25, d = 0.3; // Grashof crank-rocker
    double psi = psi0;
    for (int it = 0; it < 50; it++) {
        double ax = a * cos(phi), az = -a * sin(phi);
        double bx = d + c * sin(psi), bz = c * cos(psi);
        double f = (bx - ax) * (bx - ax) + (bz - az) * (bz - az) - b2;
        double df = 2 * (bx - ax) * c * cos(psi) - 2 * (bz - az) * c * sin(psi);
        double step = f / df;
        psi -= step;
        if (fabs(step) < 1e-16) {
            break;
        }
    }
    return psi;
}

static int fourbar_closure(double alpha, double tol, int nstep, double rate, int gravity,
                           int proj, double* closure, double* omega, double* iters,
                           double* out_err) {
    gdnModel* m = load("kamino_fourbar.xml");
    CHECK(m);
    if (!gravity) {
        m->opt.disableflags |= GDN_DSBL_GRAVITY;
    }
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.alpha = alpha;
    s.tol_primal = s.tol_dual = s.tol_compl = tol;
    s.max_iterations = 500;
    s.projection_iterations = proj;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    int crank = gdn_name2id(m, "body", "crank");
    double c = 0, om = 0, it = 0, oerr = 0, psi = 0;
    for (int k = 0; k < nstep; k++) {
        // rate > 0: the crank driven toward that rate by an explicit P torque on its joint
        w->xfrc_applied[6 * crank + 4] = rate > 0 ? 0.05 * (rate - w->qvel[0]) : 0;
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        it += w->status.iterations;
        // the anchors from the body poses (not from MJCF kinematics of the recovered joints,
        // which would hide the loop error)
        c = fmax(c, gdn_kamino_connect_error(km, w));
        om = fmax(om, fabs(w->qvel[0]));
        psi = fourbar_psi(w->qpos[0], psi);
        oerr = fmax(oerr, fabs(w->qpos[2] - psi));
    }
    *out_err = oerr;
    *closure = c;
    *omega = om;
    *iters = it / nstep;
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

static int test_fourbar(void) {
    // the closure error is the one-step drift of a linear COM update on a curved path,
    // ~ (omega h)^2 L / 2, divided by alpha at steady state: measured for a swinging linkage
    // (gravity) and for a slowly driven crank (no gravity, 0.05 rad/s)
    // (the last run: gradyn's post-step projection, 3 Gauss-Newton iterations at most)
    const struct {
        double alpha, tol, rate;
        int gravity, proj;
    } runs[] = {{0.01, 1e-6, 0, 1, 0},    {1, 1e-10, 0, 1, 0}, {0.01, 1e-6, 0.05, 0, 0},
                {1, 1e-10, 0.05, 0, 0},   {0.01, 1e-6, 0, 1, 3}};
    double c[5], om[5], it[5], oe[5];
    for (int r = 0; r < 5; r++) {
        CHECK(fourbar_closure(runs[r].alpha, runs[r].tol, 10000, runs[r].rate, runs[r].gravity,
                              runs[r].proj, c + r, om + r, it + r, oe + r) == 0);
        printf("  four-bar 10^4 steps (%s, alpha %g, tol %g, projection %d): closure %.3g m, "
               "output angle vs loop equation %.3g rad, max crank rate %.3g rad/s, %.1f "
               "it/step\n",
               runs[r].gravity ? "swinging under gravity" : "driven at 0.05 rad/s", runs[r].alpha,
               runs[r].tol, runs[r].proj, c[r], oe[r], om[r], it[r]);
    }
    CHECK(c[3] < 1e-9);
    CHECK(oe[3] < 1e-8);
    CHECK(c[4] < 1e-9);
    CHECK(oe[4] < 1e-8);
    return 0;
}

// a slide and a hinge driven into their limits: they stop there, the violation shrinks by the
// fraction beta per step once the motion has stopped
static int test_limits(void) {
    gdnModel* m = load("kamino_limit.xml");
    CHECK(m);
    gdnKaminoSettings st;
    gdn_kamino_settings_default(&st);
    st.tol_primal = st.tol_dual = st.tol_compl = 1e-12;
    st.max_iterations = 500;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &st, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    double qvel[2] = {0.7, -1.3};
    CHECK(gdn_kamino_reset(km, kd, NULL, NULL, qvel) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    double beta = st.beta, h = m->opt.timestep;
    double viol[2][400];
    int nlim = 0;
    for (int k = 0; k < 400; k++) {
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        CHECK(w->status.converged);
        nlim = w->status.nlimit > nlim ? w->status.nlimit : nlim;
        viol[0][k] = w->qpos[0] - 0.1;
        viol[1][k] = -0.5 - w->qpos[1];
    }
    double ratio[2], over[2];
    for (int j = 0; j < 2; j++) {
        int k0 = 0;
        while (k0 < 398 && viol[j][k0] <= 0) {
            k0++;
        }
        over[j] = viol[j][k0];
        ratio[j] = viol[j][k0 + 1] / viol[j][k0];
        if (!(over[j] > 0 && over[j] <= fabs(qvel[j]) * h * 1.01)) { // one step of motion
            fprintf(stderr, "joint %d: k0 %d overshoot %.6g\n", j, k0, over[j]);
            return 1;
        }
    }
    printf("  limits (rows only when violated): slide overshoot %.3g m, hinge %.3g rad, next-step ratios %.9f %.9f "
           "(1 - beta = %.2f), final qvel %.3g %.3g\n",
           over[0], over[1], ratio[0], ratio[1], 1 - beta, w->qvel[0], w->qvel[1]);
    CHECK(nlim >= 1);
    // (the hinge's ratio is off by 1.04e-6: at the stopping step the joint rows' curvature bias
    // is that of the start twist, 1.3 rad/s, while the arm stops, so the anchor moves h^2 / 2 c
    // ~ 1e-7 m before the projection puts it back, which shifts the angle by 1e-6 of the
    // overshoot; without the bias the ratio is 0.99 to 1e-9, but the arm has slowed by 1.8e-4
    // on its way: test_free_spin)
    CHECK(fabs(ratio[0] - (1 - beta)) <= 1e-6 && fabs(ratio[1] - (1 - beta)) <= 2e-6);
    // after the stop, the Baumgarte push-back speed beta * overshoot / h at most
    CHECK(fabs(w->qvel[0]) <= beta * over[0] / h * 1.01 + 1e-9);
    CHECK(fabs(w->qvel[1]) <= beta * over[1] / h * 1.01 + 1e-9);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// worlds are independent: world 0 of a batch whose other world holds another state (a box
// dropped from higher, with contacts) is bit-identical to a lone world
static int test_world_independence(void) {
    gdnModel* m = load("kamino_box.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData *one = NULL, *two = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &one) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 2, &two) == GDN_OK);
    double q[7] = {0, 0, 0.5, 1, 0, 0, 0}, v[6] = {0.3, 0, 0, 0, 0, 1};
    unsigned char mask[2] = {0, 1};
    CHECK(gdn_kamino_reset(km, two, mask, q, v) == GDN_OK);
    double q0[7] = {0, 0, 0.3, 0.9950041652780258, 0.09983341664682815, 0, 0};
    CHECK(gdn_kamino_reset(km, one, NULL, q0, NULL) == GDN_OK);
    mask[0] = 1;
    mask[1] = 0;
    CHECK(gdn_kamino_reset(km, two, mask, q0, NULL) == GDN_OK);
    gdnKaminoWorld* a = gdn_kamino_world(one, 0);
    gdnKaminoWorld* b = gdn_kamino_world(two, 0);
    gdnKaminoWorld* c = gdn_kamino_world(two, 1);
    int contacts = 0;
    for (int k = 0; k < 1000; k++) {
        CHECK(gdn_kamino_step(km, one) == GDN_OK);
        CHECK(gdn_kamino_step(km, two) == GDN_OK);
        contacts += a->ncontact > 0;
        CHECK(!memcmp(a->body_pos, b->body_pos, 6 * sizeof(double)));
        CHECK(!memcmp(a->body_quat, b->body_quat, 8 * sizeof(double)));
        CHECK(!memcmp(a->body_u, b->body_u, 12 * sizeof(double)));
        CHECK(a->nrow == b->nrow && !memcmp(a->lambda, b->lambda, (size_t)a->nrow * 8));
        CHECK(!memcmp(&a->status, &b->status, sizeof(a->status)));
    }
    CHECK(contacts > 500);
    CHECK(memcmp(a->body_pos, c->body_pos, 6 * sizeof(double)));
    printf("  world independence: 1000 steps with contacts (%d steps), bit-identical\n",
           contacts);
    gdn_kamino_data_free(one);
    gdn_kamino_data_free(two);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// cost of a step (printed, not checked: the machine is shared): the four-bar at the default
// settings, swinging under gravity, 1 and 16 worlds
static int test_timing(void) {
    gdnModel* m = load("kamino_fourbar.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    for (int nw = 1; nw <= 16; nw *= 16) {
        gdnKaminoData* kd = NULL;
        CHECK(gdn_kamino_data_create(km, nw, &kd) == GDN_OK);
        struct timespec t0, t1;
        int n = 2000;
        double it = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int k = 0; k < n; k++) {
            CHECK(gdn_kamino_step(km, kd) == GDN_OK);
            it += gdn_kamino_world(kd, 0)->status.iterations;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
                    1e3 / n / nw;
        printf("  timing: four-bar, %d world(s): %.2f us per world-step, %.1f PADMM it/step "
               "(default tol 1e-6)\n",
               nw, us, it / n);
        gdn_kamino_data_free(kd);
    }
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// the hinge arm of kamino_limit.xml spinning freely (no gravity, 300 steps, before its limit):
// its rate is kept to 1e-7 with the curvature bias (the default); without it the rows, made
// at the step's start pose, take the centripetal part of the motion out of every step's
// velocity and the arm slows by about (omega h)^2 / 2 per step
static double spin_loss(int curvature_bias) {
    gdnModel* m = load("kamino_limit.xml");
    if (!m) {
        return NAN;
    }
    gdnKaminoSettings st;
    gdn_kamino_settings_default(&st);
    st.curvature_bias = curvature_bias;
    st.tol_primal = st.tol_dual = st.tol_compl = 1e-12;
    st.max_iterations = 500;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    double loss = NAN;
    if (gdn_kamino_model_create(m, &st, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK &&
        gdn_kamino_data_create(km, 1, &kd) == GDN_OK) {
        const double qvel[2] = {0, -1.3};
        gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
        int ok = gdn_kamino_reset(km, kd, NULL, NULL, qvel) == GDN_OK;
        for (int k = 0; k < 300 && ok; k++) {
            ok = gdn_kamino_step(km, kd) == GDN_OK && w->status.nlimit == 0;
        }
        loss = ok ? 1 - w->qvel[1] / qvel[1] : (double)NAN; // the fraction of the rate lost
    }
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return loss;
}

static int test_free_spin(void) {
    const double with = spin_loss(1), without = spin_loss(0);
    printf("  free spin at 1.3 rad/s, 300 steps: relative rate loss %.3g with the curvature "
           "bias, %.3g without\n",
           with, without);
    CHECK(fabs(with) < 1e-7);
    CHECK(without > 1e-5); // (the loss this test guards against)
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"pendulum", test_pendulum},
        {"open_chain", test_open_chain},
        {"resting_box", test_resting_box},
        {"fourbar", test_fourbar},
        {"limits", test_limits},
        {"free_spin", test_free_spin},
        {"world_independence", test_world_independence},
        {"timing", test_timing},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
