// SPDX-License-Identifier: Apache-2.0
// The trajectory adjoint against exact closed forms of the discrete (semi-implicit Euler) rollout.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/test.h"

#define TOL 1e-12

static gdnModel* load_test_model(const char* name) {
    char path[1024], err[512];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, name);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, err, sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, err);
        return NULL;
    }
    return m;
}

// ---------------------------------------------------------------- flywheel
//
// Hinge about z through the COM, motor torque tau = 0.02 (gear 1), Izz = I = 0.05, h = 1/480,
// T = 96, q0 = v0 = 0. M = I, a = tau / I every step, so semi-implicit Euler gives
//   v_t = t h a,   q_T = h sum_{s=1}^T v_s = h^2 (tau / I) T (T + 1) / 2
// and for J = q_T:
//   dJ/dIzz  = -q_T / I  = -h^2 tau T (T + 1) / (2 I^2)    (the discrete form of -T_total tau /
//              I^2 with T_total = h^2 T (T + 1) / 2: the continuous t^2 / 2 becomes that sum)
//   dJ/du_t  = h^2 (T - t) / I,   dJ/dq0 = 1,   dJ/dv0 = T h,
//   every other inertia parameter 0 (the COM is on the axis; Ixz, Iyz only load the bearing).

static gdnStatus final_angle(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                             double* gq, double* gv, double* gu) {
    (void)m, (void)t, (void)user, (void)gv, (void)gu;
    *value = s->qpos[0];
    if (gq) {
        gq[0] = 1;
    }
    return GDN_OK;
}

static int test_flywheel(void) {
    gdnModel* m = load_test_model("adj_flywheel.xml");
    CHECK(m);
    const int T = 96;
    const double tau = 0.02, h = m->opt.timestep;
    CHECK(h == 1.0 / 480);
    gdnInertia in;
    gdn_body_inertia(m, 1, &in);
    const double I = in.inertia[8];
    CHECK(I == 0.05);
    double u[96], q0 = 0, v0 = 0;
    for (int t = 0; t < T; t++) {
        u[t] = tau;
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = &q0;
    r.qvel0 = &v0;
    r.ctrl = u;
    gdnObjective obj = {{final_angle, NULL, 0}, {NULL, NULL, 0}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    double gq, gv, gu[96], gp[20];
    gdnAdjointGradients out = {.qpos0 = &gq, .qvel0 = &gv, .ctrl = gu, .param = gp};
    char err[256];
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);

    const double qT = h * h * (tau / I) * T * (T + 1) / 2;
    const double dJdI = -qT / I;
    printf("  flywheel: q_T = %.17g (closed form %.17g)\n", out.J, qT);
    printf("  flywheel: dJ/dIzz = %.17g (closed form -q_T / I = %.17g, rel err %.2e)\n",
           gp[10 + 6], dJdI, fabs(gp[16] - dJdI) / fabs(dJdI));
    CHECK_NEAR(out.J, qT, TOL, 0);
    CHECK_NEAR(gp[10 + 6], dJdI, TOL, 0);
    CHECK_NEAR(gq, 1.0, TOL, 0);
    CHECK_NEAR(gv, T * h, TOL, 0);
    double worst = 0;
    for (int t = 0; t < T; t++) {
        double expect = h * h * (T - t) / I;
        worst = fmax(worst, fabs(gu[t] - expect) / expect);
        CHECK_NEAR(gu[t], expect, TOL, 0);
    }
    printf("  flywheel: dJ/du_t worst rel err %.2e\n", worst);
    for (int k = 0; k < 10; k++) {
        CHECK(gp[k] == 0); // world row
        if (k != 6) {
            CHECK(fabs(gp[10 + k]) <= TOL * fabs(dJdI));
        }
    }
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- free body
//
// Free body, no gravity, COM at the body origin, inertia diag(Ix, Iy, Iz). Inputs held over the
// rollout: a motor torque tau_t about the BODY x axis (the free joint's rotational dofs are
// local, so this is a body-frame thrust of the attitude), a motor force F_t along world x and
// a constant world force f_a (qfrc_applied). Initial spin omega0 about body x. (A body-frame
// LINEAR thrust cannot be written with the step's inputs: free-joint linear dofs and
// xfrc_applied are world-frame.)
// Spinning about a principal axis, omega x I omega = 0, so omega stays on x:
//   omega_t = omega0 + h sum_{s<t} tau_s / Ix,   v_t = v0 + h sum_{s<t} f_s / m,
//   f_s = F_s e_x + f_a,
//   theta_T = h sum_{s=1}^T omega_s,  quat_T = quat0 (x) [cos(theta_T/2), sin(theta_T/2), 0, 0]
//   p_T = p0 + h sum_{s=1}^T v_s
// (each Euler step multiplies by exp about the same local axis, so the rotations compose
// exactly). With constant inputs and S = T (T + 1) / 2:
//   theta_T = T h omega0 + h^2 S tau / Ix,   p_T = p0 + T h v0 + h^2 S f / m.
// Objective J = c.p_T + a.quat_T (quaternion COORDINATES: exercises the tangent map) + b.v_T
// + e.omega_T. With A = a . (quat0 (x) [-sin(theta/2), cos(theta/2), 0, 0] / 2) = dJ/dtheta:
//   dJ/dm      = -(c.f) h^2 S / m^2 - (b.f) T h / m^2
//   dJ/dIx     = -A h^2 S tau / Ix^2 - e_x T h tau / Ix^2,   dJ/dIy = dJ/dIz = 0
//   dJ/dq0     = [c ; a . (quat0 (x) [0, e_k / 2] (x) r)]  (r = [cos(theta/2), sin(theta/2), 0, 0])
//   dJ/dv0     = [T h c + b ; A T h + e_x, -, -]  (the y, z spin components couple through the
//                gyroscopic term and are not checked here)
//   dJ/dtau_t  = A h^2 (T - t) / Ix + e_x h / Ix,   dJ/dF_t = c_x h^2 (T - t) / m + b_x h / m

typedef struct SpinWeights {
    double c[3], a[4], b[3], e[3];
} SpinWeights;

static gdnStatus spin_objective(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                                double* gq, double* gv, double* gu) {
    (void)m, (void)t, (void)gu;
    const SpinWeights* w = user;
    double J = 0;
    for (int i = 0; i < 3; i++) {
        J += w->c[i] * s->qpos[i] + w->b[i] * s->qvel[i] + w->e[i] * s->qvel[3 + i];
    }
    for (int i = 0; i < 4; i++) {
        J += w->a[i] * s->qpos[3 + i];
    }
    *value = J;
    if (gq) {
        memcpy(gq, w->c, sizeof(w->c));
        memcpy(gq + 3, w->a, sizeof(w->a));
    }
    if (gv) {
        memcpy(gv, w->b, sizeof(w->b));
        memcpy(gv + 3, w->e, sizeof(w->e));
    }
    return GDN_OK;
}

static void mulquat(double r[4], const double p[4], const double q[4]) {
    double t[4];
    t[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
    t[1] = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
    t[2] = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
    t[3] = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
    memcpy(r, t, sizeof(t));
}

static double dot4(const double a[4], const double b[4]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static int test_free_body_thrust(void) {
    gdnModel* m = load_test_model("adj_free_spin.xml");
    CHECK(m);
    CHECK(m->nu == 2 && m->nv == 6);
    const int T = 200;
    const double h = m->opt.timestep, tau = 0.05, F = 0.3, omega0 = 1.5;
    gdnInertia in;
    gdn_body_inertia(m, 1, &in);
    const double mass = in.mass, Ix = in.inertia[0];
    CHECK(mass == 2 && Ix == 0.1);
    double u[2 * 200];
    for (int t = 0; t < T; t++) {
        u[2 * t] = tau;
        u[2 * t + 1] = F;
    }
    const double fa[3] = {0.05, 0.1, -0.2};
    double qfrc[6] = {fa[0], fa[1], fa[2], 0, 0, 0};
    double q0[7], v0[6] = {0.2, -0.1, 0.05, omega0, 0, 0};
    memcpy(q0, m->qpos0, sizeof(q0));
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = u;
    r.qfrc_applied = qfrc;
    SpinWeights w = {{0.7, -0.3, 0.5}, {0.3, -0.5, 0.8, 0.4}, {0.2, 0.6, -0.1}, {0.7, -0.4, 0.2}};
    gdnObjective obj = {{spin_objective, &w, 0}, {NULL, NULL, 0}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    double gq[6], gv[6], gu[2 * 200], gp[20];
    gdnAdjointGradients out = {.qpos0 = gq, .qvel0 = gv, .ctrl = gu, .param = gp};
    char err[256];
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);

    // closed forms
    const double S = 0.5 * T * (T + 1);
    const double f[3] = {F + fa[0], fa[1], fa[2]};
    const double theta = T * h * omega0 + h * h * S * tau / Ix;
    const double rq[4] = {cos(theta / 2), sin(theta / 2), 0, 0};
    const double drq[4] = {-0.5 * sin(theta / 2), 0.5 * cos(theta / 2), 0, 0};
    const double* quat0 = q0 + 3;
    double quatT[4], dquat[4];
    mulquat(quatT, quat0, rq);
    mulquat(dquat, quat0, drq);
    const double A = dot4(w.a, dquat);
    double J = 0, cf = 0, bf = 0;
    for (int i = 0; i < 3; i++) {
        double pT = q0[i] + T * h * v0[i] + h * h * S * f[i] / mass;
        double vT = v0[i] + T * h * f[i] / mass;
        J += w.c[i] * pT + w.b[i] * vT;
        cf += w.c[i] * f[i];
        bf += w.b[i] * f[i];
    }
    J += dot4(w.a, quatT) + w.e[0] * (omega0 + T * h * tau / Ix);
    printf("  free body: J = %.17g (closed form %.17g)\n", out.J, J);
    CHECK_NEAR(out.J, J, TOL, 0);

    const double dJdm = -cf * h * h * S / (mass * mass) - bf * T * h / (mass * mass);
    const double dJdIx = -A * h * h * S * tau / (Ix * Ix) - w.e[0] * T * h * tau / (Ix * Ix);
    printf("  free body: dJ/dm = %.17g (closed %.17g), dJ/dIxx = %.17g (closed %.17g)\n",
           gp[10], dJdm, gp[14], dJdIx);
    CHECK_NEAR(gp[10], dJdm, TOL, 0);
    CHECK_NEAR(gp[14], dJdIx, TOL, 0);
    CHECK(fabs(gp[15]) <= TOL * fabs(dJdIx) && fabs(gp[16]) <= TOL * fabs(dJdIx));

    // dJ/dq0: translation c, rotation a . (quat0 (x) [0, e_k / 2] (x) r)
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(gq[k], w.c[k], TOL, 0);
        double ek[4] = {0, 0, 0, 0}, t1[4], t2[4];
        ek[1 + k] = 0.5;
        mulquat(t1, quat0, ek);
        mulquat(t2, t1, rq);
        CHECK_NEAR(gq[3 + k], dot4(w.a, t2), TOL, 1e-15);
    }
    // dJ/dv0: linear T h c + b, spin about x A T h + e_x
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(gv[k], T * h * w.c[k] + w.b[k], TOL, 0);
    }
    CHECK_NEAR(gv[3], A * T * h + w.e[0], TOL, 0);
    // controls
    double worst = 0;
    for (int t = 0; t < T; t++) {
        double dtau = A * h * h * (T - t) / Ix + w.e[0] * h / Ix;
        double dF = w.c[0] * h * h * (T - t) / mass + w.b[0] * h / mass;
        worst = fmax(worst, fabs(gu[2 * t] - dtau) / fabs(dtau));
        worst = fmax(worst, fabs(gu[2 * t + 1] - dF) / fabs(dF));
        CHECK_NEAR(gu[2 * t], dtau, TOL, 0);
        CHECK_NEAR(gu[2 * t + 1], dF, TOL, 0);
    }
    printf("  free body: dJ/du_t worst rel err %.2e\n", worst);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"flywheel", test_flywheel},
    {"free_body_thrust", test_free_body_thrust},
};

GDN_TEST_MAIN(cases)
