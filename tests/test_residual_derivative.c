// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of the smooth residual and of the body tangents, against central finite
// differences, the dot-product test and CRBA.
//
// Step sizes: qpos tangent 1e-6 (along gdn_integrate_pos), qvel 1e-6 (additive). Relative
// errors are ||a - b||_inf / max(||b||_inf, FLOOR) with FLOOR = 1e-6; tolerance 1e-6 against
// FD, 1e-12 for the dot-product test. The worst errors are printed per model.
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "dynamics/com.h"
#include "gradient/body_tangent.h"
#include "runner/test.h"

#define EPS 1e-6
#define FD_TOL 1e-6
#define DOT_TOL 1e-12
#define FLOOR 1e-6

// several joints per body: free root, hinge + slide + hinge, a hinge followed by a ball, a ball
// followed by a slide (the loader rejects rotations after a ball, as MuJoCo's cdof assumes), springs, damping, armature
static const char* multi_xml =
    "<mujoco model='multi'>"
    "<option gravity='0.3 -0.2 -9.81'/>"
    "<worldbody>"
    "<body name='base' pos='0.1 0.2 0.5'>"
    "  <freejoint/>"
    "  <geom type='box' size='0.1 0.2 0.05' pos='0.02 0 0.01'/>"
    "  <body name='a' pos='0.2 0 0' quat='0.9 0.1 0.3 0'>"
    "    <joint name='h1' type='hinge' axis='0 1 0' pos='0.01 0.02 0.03' stiffness='3'"
    "           springref='0.2' damping='0.4' armature='0.02'/>"
    "    <joint name='s1' type='slide' axis='1 0.2 0' stiffness='5' damping='0.1'/>"
    "    <joint name='h2' type='hinge' axis='1 0 0.3' pos='0 0.05 0'/>"
    "    <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>"
    "    <body name='b' pos='0.3 0 0'>"
    "      <joint name='h3' type='hinge' axis='0 0 1' pos='0.05 0 0'/>"
    "      <joint name='ball1' type='ball' pos='0.02 0 0.01' stiffness='2' damping='0.3'"
    "             armature='0.01'/>"
    "      <geom type='ellipsoid' size='0.05 0.07 0.03' pos='0.1 0.02 0'/>"
    "      <body name='c' pos='0.15 0 0'>"
    "        <joint name='ball2' type='ball' pos='0 0.03 0'/>"
    "        <joint name='s2' type='slide' axis='0 0 1' damping='0.2'/>"
    "        <geom type='box' size='0.04 0.03 0.02' pos='0.03 0 0.02' euler='0.3 0.2 0.1'/>"
    "      </body>"
    "    </body>"
    "  </body>"
    "  <body name='d' pos='-0.2 0 0'>"
    "    <joint name='h4' type='hinge' axis='0 0 1'/>"
    "    <geom type='sphere' size='0.05' pos='-0.1 0 0'/>"
    "  </body>"
    "</body>"
    "<body name='e' pos='1 0 0'>"
    "  <joint name='s3' type='slide' axis='0 0 1' stiffness='4' springref='0.1'/>"
    "  <geom type='sphere' size='0.1'/>"
    "</body>"
    "</worldbody>"
    "</mujoco>";

static gdnModel* load_file(const char* path) {
    char err[1024] = "";
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, gdn_status_string(st), err);
        return NULL;
    }
    return m;
}

static gdnModel* load_string(const char* xml) {
    char err[1024] = "";
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "inline model: %s: %s\n", gdn_status_string(st), err);
        return NULL;
    }
    return m;
}

// the models every test runs on: tests/models/*.xml, MuJoCo's humanoid.xml, the inline ones
#define NMODEL 9
static const char* model_names[NMODEL] = {"arm7.xml",         "ball_chain.xml", "box_spin.xml",
                                          "double_pendulum.xml", "humanoid32.xml", "pendulum.xml",
                                          "slider.xml",       "humanoid.xml",   "multi"};

static gdnModel* load_model(int i) {
    char path[1024];
    if (i < 7) {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, model_names[i]);
        return load_file(path);
    }
    if (i == 7) {
        return load_file("/usr/share/mujoco/model/humanoid/humanoid.xml");
    }
    return load_string(multi_xml);
}

// random configuration (unit quaternions), velocity, controls and applied forces
static void random_state(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    gdn_data_reset(m, d);
    for (int i = 0; i < m->nq; i++) {
        d->qpos[i] = gdn_test_uniform(rng, -1, 1);
    }
    gdn_normalize_quat(m, d->qpos);
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(rng, -2, 2);
        d->qfrc_applied[i] = gdn_test_uniform(rng, -1, 1);
    }
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = gdn_test_uniform(rng, -1.2, 1.2);
    }
    for (int i = 6; i < 6 * m->nbody; i++) {
        d->xfrc_applied[i] = gdn_test_uniform(rng, -1, 1);
    }
}

static void random_vec(double* x, int n, unsigned long long* rng) {
    for (int i = 0; i < n; i++) {
        x[i] = gdn_test_uniform(rng, -1, 1);
    }
}

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

// body velocities V_b = [w; v at the origin] from the com-frame cvel: v_O = v_c + c x w
static void body_velocities(const gdnModel* m, gdnData* d, double* V) {
    double* cdof = malloc(sizeof(double) * 6 * (size_t)(m->nv + 1));
    double* cdof_dot = malloc(sizeof(double) * 6 * (size_t)(m->nv + 1));
    double* cvel = malloc(sizeof(double) * 6 * (size_t)m->nbody);
    gdn_com_dofs(m, d, cdof);
    gdn_com_vel(m, d, cdof, cvel, cdof_dot);
    for (int b = 0; b < m->nbody; b++) {
        const double* c = d->subtree_com + 3 * m->body_rootid[b];
        const double* v = cvel + 6 * b;
        double* o = V + 6 * b;
        o[0] = v[0];
        o[1] = v[1];
        o[2] = v[2];
        o[3] = v[3] + c[1] * v[2] - c[2] * v[1];
        o[4] = v[4] + c[2] * v[0] - c[0] * v[2];
        o[5] = v[5] + c[0] * v[1] - c[1] * v[0];
    }
    free(cdof);
    free(cdof_dot);
    free(cvel);
}

// ---------------------------------------------------------------- body tangents

// xi and eta by central differences: rotation from (R+ - R-) R0' / (2 eps) (skew part), the
// origin's linear part from the body origin's displacement, eta from V(q +- eps dq, v +- eps dv)
static void body_tangent_fd(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                            double* xi, double* eta) {
    int nq = m->nq, nv = m->nv, nb = m->nbody;
    double* q0 = malloc(sizeof(double) * (size_t)nq);
    double* v0 = malloc(sizeof(double) * (size_t)(nv + 1));
    double* R0 = malloc(sizeof(double) * 9 * (size_t)nb);
    double* x0 = malloc(sizeof(double) * 3 * (size_t)nb);
    double* Rs[2];
    double* xs[2];
    double* Vs[2];
    memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
    gdn_kinematics(m, d);
    memcpy(R0, d->xmat, sizeof(double) * 9 * (size_t)nb);
    memcpy(x0, d->xpos, sizeof(double) * 3 * (size_t)nb);
    for (int s = 0; s < 2; s++) {
        double h = s == 0 ? EPS : -EPS;
        Rs[s] = malloc(sizeof(double) * 9 * (size_t)nb);
        xs[s] = malloc(sizeof(double) * 3 * (size_t)nb);
        Vs[s] = malloc(sizeof(double) * 6 * (size_t)nb);
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        gdn_integrate_pos(m, d->qpos, dq, h);
        for (int i = 0; i < nv; i++) {
            d->qvel[i] = v0[i] + h * dv[i];
        }
        gdn_kinematics(m, d);
        memcpy(Rs[s], d->xmat, sizeof(double) * 9 * (size_t)nb);
        memcpy(xs[s], d->xpos, sizeof(double) * 3 * (size_t)nb);
        body_velocities(m, d, Vs[s]);
    }
    for (int b = 0; b < nb; b++) {
        double A[9];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double s = 0;
                for (int k = 0; k < 3; k++) {
                    s += (Rs[0][9 * b + 3 * i + k] - Rs[1][9 * b + 3 * i + k]) *
                         R0[9 * b + 3 * j + k];
                }
                A[3 * i + j] = s / (2 * EPS);
            }
        }
        double* o = xi + 6 * b;
        o[0] = 0.5 * (A[7] - A[5]);
        o[1] = 0.5 * (A[2] - A[6]);
        o[2] = 0.5 * (A[3] - A[1]);
        const double* p = x0 + 3 * b;
        double dx[3];
        for (int i = 0; i < 3; i++) {
            dx[i] = (xs[0][3 * b + i] - xs[1][3 * b + i]) / (2 * EPS);
        }
        o[3] = dx[0] - (o[1] * p[2] - o[2] * p[1]);
        o[4] = dx[1] - (o[2] * p[0] - o[0] * p[2]);
        o[5] = dx[2] - (o[0] * p[1] - o[1] * p[0]);
        for (int i = 0; i < 6; i++) {
            eta[6 * b + i] = (Vs[0][6 * b + i] - Vs[1][6 * b + i]) / (2 * EPS);
        }
    }
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    gdn_kinematics(m, d);
    for (int s = 0; s < 2; s++) {
        free(Rs[s]);
        free(xs[s]);
        free(Vs[s]);
    }
    free(q0);
    free(v0);
    free(R0);
    free(x0);
}

static int test_body_tangent(void) {
    unsigned long long rng = 12345;
    double worst_fd = 0, worst_dot = 0;
    for (int mi = 0; mi < NMODEL; mi++) {
        gdnModel* m = load_model(mi);
        CHECK(m);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        int nv = m->nv, nb = m->nbody;
        size_t n6 = 6 * (size_t)nb;
        double* dq = malloc(sizeof(double) * (size_t)nv);
        double* dv = malloc(sizeof(double) * (size_t)nv);
        double* xi = malloc(sizeof(double) * n6);
        double* eta = malloc(sizeof(double) * n6);
        double* xi_fd = malloc(sizeof(double) * n6);
        double* eta_fd = malloc(sizeof(double) * n6);
        double* xibar = malloc(sizeof(double) * n6);
        double* etabar = malloc(sizeof(double) * n6);
        double* gq = calloc((size_t)nv, sizeof(double));
        double* gv = calloc((size_t)nv, sizeof(double));
        double model_fd = 0, model_dot = 0;
        for (int sample = 0; sample < 3; sample++) {
            random_state(m, d, &rng);
            random_vec(dq, nv, &rng);
            random_vec(dv, nv, &rng);
            gdn_kinematics(m, d);
            size_t mark = d->parena;
            gdn_body_tangent_jvp(m, d, dq, dv, xi, eta);
            CHECK(d->parena == mark);
            body_tangent_fd(m, d, dq, dv, xi_fd, eta_fd);
            double e1 = gdn_test_relerr(xi, xi_fd, (int)n6, FLOOR);
            double e2 = gdn_test_relerr(eta, eta_fd, (int)n6, FLOOR);
            CHECK_ARRAY_REL(xi, xi_fd, (int)n6, FD_TOL, FLOOR);
            CHECK_ARRAY_REL(eta, eta_fd, (int)n6, FD_TOL, FLOOR);
            model_fd = fmax(model_fd, fmax(e1, e2));
            // <J u, w> == <u, J' w>
            random_vec(xibar, (int)n6, &rng);
            random_vec(etabar, (int)n6, &rng);
            memset(gq, 0, sizeof(double) * (size_t)nv);
            memset(gv, 0, sizeof(double) * (size_t)nv);
            gdn_body_tangent_vjp(m, d, xibar, etabar, gq, gv);
            CHECK(d->parena == mark);
            double lhs = dot(xi, xibar, (int)n6) + dot(eta, etabar, (int)n6);
            double rhs = dot(dq, gq, nv) + dot(dv, gv, nv);
            double scale = fabs(dot(xi, xibar, (int)n6)) + fabs(dot(eta, etabar, (int)n6)) + 1e-300;
            double e3 = fabs(lhs - rhs) / scale;
            CHECK(e3 <= DOT_TOL);
            model_dot = fmax(model_dot, e3);
        }
        printf("  body tangent %-20s nv %2d: FD rel %.2e, dot rel %.2e\n", model_names[mi], nv,
               model_fd, model_dot);
        worst_fd = fmax(worst_fd, model_fd);
        worst_dot = fmax(worst_dot, model_dot);
        free(dq), free(dv), free(xi), free(eta), free(xi_fd), free(eta_fd);
        free(xibar), free(etabar), free(gq), free(gv);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    printf("  body tangent worst: FD rel %.2e, dot rel %.2e\n", worst_fd, worst_dot);
    return 0;
}

// ---------------------------------------------------------------- set_body_inertia

static int test_set_body_inertia(void) {
    unsigned long long rng = 777;
    for (int mi = 0; mi < NMODEL; mi++) {
        gdnModel* m = load_model(mi);
        CHECK(m);
        double worst = 0;
        for (int b = 1; b < m->nbody; b++) {
            // round trip of the compiled inertia, then of a random full inertia
            for (int trial = 0; trial < 2; trial++) {
                gdnInertia in, out;
                gdn_body_inertia(m, b, &in);
                if (trial == 1) {
                    double a[9], p[GDN_N_INERTIA_PARAMS];
                    random_vec(a, 9, &rng);
                    // I = A A' + 0.1 identity: symmetric positive definite
                    for (int i = 0; i < 3; i++) {
                        for (int j = 0; j < 3; j++) {
                            double s = i == j ? 0.1 : 0;
                            for (int k = 0; k < 3; k++) {
                                s += a[3 * i + k] * a[3 * j + k];
                            }
                            in.inertia[3 * i + j] = s;
                        }
                    }
                    gdn_inertia_params(&in, p);
                    gdn_inertia_from_params(p, &in);
                    in.mass = gdn_test_uniform(&rng, 0.1, 3);
                    random_vec(in.com, 3, &rng);
                }
                CHECK(gdn_model_set_body_inertia(m, b, &in) == GDN_OK);
                gdn_body_inertia(m, b, &out);
                CHECK(out.mass == in.mass);
                for (int i = 0; i < 3; i++) {
                    CHECK(out.com[i] == in.com[i]);
                }
                double e = gdn_test_relerr(out.inertia, in.inertia, 9, 1e-300);
                CHECK(e <= 1e-14);
                worst = fmax(worst, e);
            }
        }
        // subtree masses
        double total = 0;
        for (int b = 1; b < m->nbody; b++) {
            total += m->body_mass[b];
        }
        CHECK_NEAR(m->body_subtreemass[0], total, 1e-14, 0);
        // bad arguments leave the model unchanged
        gdnInertia bad;
        gdn_body_inertia(m, 1, &bad);
        double mass1 = m->body_mass[1];
        CHECK(gdn_model_set_body_inertia(m, 0, &bad) == GDN_ERR_ARG);
        CHECK(gdn_model_set_body_inertia(m, m->nbody, &bad) == GDN_ERR_ARG);
        CHECK(gdn_model_set_body_inertia(m, 1, NULL) == GDN_ERR_ARG);
        bad.mass = -1;
        CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
        bad.mass = NAN;
        CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
        bad.mass = 1;
        bad.inertia[4] = INFINITY;
        CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
        CHECK(m->body_mass[1] == mass1);
        printf("  set_body_inertia %-20s round trip rel %.2e\n", model_names[mi], worst);
        gdn_model_free(m);
    }
    return 0;
}

static const gdnTestCase cases[] = {
    {"body_tangent", test_body_tangent},
    {"set_body_inertia", test_set_body_inertia},
};

GDN_TEST_MAIN(cases)
