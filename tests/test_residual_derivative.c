// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of the smooth residual and of the body tangents, against central finite
// differences, the dot-product test and CRBA.
//
// Step sizes: one central step h = 1e-6 for every block: qpos along gdn_integrate_pos (tangent
// space), qvel, qacc, ctrl, W additive, inertia parameters through gdn_model_set_body_inertia
// with directions scaled per parameter class (mass 0.1 m + 1e-3, COM 0.05 m, inertia 0.1 x the
// body's trace). Relative errors are ||a - b||_inf / max(||b||_inf, floor): body tangents floor
// 1e-6; residual blocks floor 1e-4 x the largest force magnitude at the state (max_i |C_i| +
// |passive_i| + |actuator_i| + |applied_i|, at least 1), so an exactly zero block is compared
// with FD round-off (~1e-10 x that scale). Tolerance 1e-6 against FD, 1e-12 (relative to the
// sum of |terms|) for the dot-product test, 1e-12 for ga == M y and dense == JVP columns. The
// worst errors are printed per model.
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gradyn/gradyn.h>

#include "dynamics/com.h"
#include "kinematics/kinematics_derivative.h"
#include "gradient/residual.h"
#include "runner/models.h"
#include "runner/test.h"

#define EPS 1e-6
#define FD_TOL 1e-6
#define DOT_TOL 1e-12
#define FLOOR 1e-6
#define FD_FLOOR 1e-4

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

// every actuator type on hinge, slide, ball and free joints; ctrl and force limits; a free
// joint with a (quaternion) spring; a ball spring
static const char* act_xml =
    "<mujoco model='act'>"
    "<worldbody>"
    "<body name='root' pos='0 0 1'>"
    "  <freejoint name='free'/>"
    "  <geom type='box' size='0.1 0.15 0.2'/>"
    "  <body name='l1' pos='0.2 0 0'>"
    "    <joint name='ball' type='ball' stiffness='3' damping='0.2' armature='0.01'/>"
    "    <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>"
    "    <body name='l2' pos='0.3 0 0'>"
    "      <joint name='hA' type='hinge' axis='0 1 0' stiffness='1' springref='0.3'"
    "             damping='0.1'/>"
    "      <joint name='sA' type='slide' axis='1 0 0' damping='0.5'/>"
    "      <geom type='sphere' size='0.05' pos='0.1 0 0'/>"
    "    </body>"
    "  </body>"
    "</body>"
    "<body name='sprung' pos='1 0 1'>"
    "  <joint name='free2' type='free' stiffness='2' damping='0.1'/>"
    "  <geom type='box' size='0.1 0.05 0.02'/>"
    "</body>"
    "</worldbody>"
    "<actuator>"
    "  <motor joint='free' gear='1 2 3 0.1 0.2 0.3'/>"
    "  <motor joint='ball' gear='0.5 1 -0.3' ctrllimited='true' ctrlrange='-1 1'/>"
    "  <general joint='ball' gear='1 0 0.5' gaintype='affine' gainprm='1 0.5 0.2'"
    "           biastype='affine' biasprm='0.1 -1 -0.3'/>"
    "  <position joint='hA' kp='20' ctrllimited='true' ctrlrange='-0.5 0.5'/>"
    "  <velocity joint='sA' kv='3' forcelimited='true' forcerange='-0.5 0.5'/>"
    "  <general joint='hA' gaintype='affine' gainprm='2 1 0.5' biastype='affine'"
    "           biasprm='0.2 -3 -1' forcelimited='true' forcerange='-2 2'/>"
    "  <general joint='free2' gear='0 0 1 0 0 0' gaintype='affine' gainprm='1 0 0.4'"
    "           biastype='affine' biasprm='0 0 -0.5'/>"
    "</actuator>"
    "</mujoco>";

static gdnModel* load_string(const char* xml) {
    char err[1024] = "";
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "inline model: %s: %s\n", gdn_status_string(st), err);
        return NULL;
    }
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    return m;
}

// the models every test runs on: tests/models/*.xml, MuJoCo's humanoid.xml, the inline ones
#define NMODEL 10
static const char* model_names[NMODEL] = {
    "arm7.xml",   "ball_chain.xml", "box_spin.xml", "double_pendulum.xml", "humanoid32.xml",
    "pendulum.xml", "slider.xml",   "humanoid.xml", "multi",               "act"};

static gdnModel* load_model(int i) {
    if (i < 7) {
        return gdn_test_load_model(model_names[i]);
    }
    if (i == 7) {
        return gdn_test_load_model("/usr/share/mujoco/model/humanoid/humanoid.xml");
    }
    return load_string(i == 8 ? multi_xml : act_xml);
}

// random configuration (unit quaternions), velocity, controls and applied forces
static void random_state(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    gdn_test_random_qpos(m, d, rng);
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
    gdn_dof_axes_about(m, d, 1, cdof);
    gdn_com_vel(m, d, cdof, cvel, cdof_dot, NULL);
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

// ---------------------------------------------------------------- residual

// the model's inertia arrays (an exact restore after finite differences in the parameters)
typedef struct {
    double *mass, *ipos, *iquat, *inertia, *subtreemass;
    int* sameframe;
} saved_inertia;

static void save_inertia(const gdnModel* m, saved_inertia* s) {
    size_t nb = (size_t)m->nbody;
    s->mass = malloc(sizeof(double) * nb);
    s->subtreemass = malloc(sizeof(double) * nb);
    s->ipos = malloc(sizeof(double) * 3 * nb);
    s->inertia = malloc(sizeof(double) * 3 * nb);
    s->iquat = malloc(sizeof(double) * 4 * nb);
    s->sameframe = malloc(sizeof(int) * nb);
    memcpy(s->mass, m->body_mass, sizeof(double) * nb);
    memcpy(s->subtreemass, m->body_subtreemass, sizeof(double) * nb);
    memcpy(s->ipos, m->body_ipos, sizeof(double) * 3 * nb);
    memcpy(s->inertia, m->body_inertia, sizeof(double) * 3 * nb);
    memcpy(s->iquat, m->body_iquat, sizeof(double) * 4 * nb);
    memcpy(s->sameframe, m->body_sameframe, sizeof(int) * nb);
}

static void restore_inertia(gdnModel* m, const saved_inertia* s) {
    size_t nb = (size_t)m->nbody;
    memcpy(m->body_mass, s->mass, sizeof(double) * nb);
    memcpy(m->body_subtreemass, s->subtreemass, sizeof(double) * nb);
    memcpy(m->body_ipos, s->ipos, sizeof(double) * 3 * nb);
    memcpy(m->body_inertia, s->inertia, sizeof(double) * 3 * nb);
    memcpy(m->body_iquat, s->iquat, sizeof(double) * 4 * nb);
    memcpy(m->body_sameframe, s->sameframe, sizeof(int) * nb);
}

static void free_inertia(saved_inertia* s) {
    free(s->mass), free(s->subtreemass), free(s->ipos), free(s->inertia), free(s->iquat);
    free(s->sameframe);
}

// the blocks of the residual's inputs
enum { BLK_Q, BLK_V, BLK_A, BLK_U, BLK_P, BLK_W, NBLK };
static const char* blk_names[NBLK] = {"dq", "dv", "da", "du", "dparam", "dW"};

// r at (q (+) h dq, v + h dv, a + h da, u + h du, pi + h dpi, W + h dW) for one block
static void residual_shifted(gdnModel* m, gdnData* d, int blk, const double* dir, double h,
                             const double* a, const double* W, double* r) {
    int nq = m->nq, nv = m->nv, nu = m->nu, nb = m->nbody;
    double* q0 = malloc(sizeof(double) * (size_t)nq);
    double* v0 = malloc(sizeof(double) * (size_t)(nv + 1));
    double* u0 = malloc(sizeof(double) * (size_t)(nu + 1));
    double* a1 = malloc(sizeof(double) * (size_t)(nv + 1));
    double* W1 = malloc(sizeof(double) * 6 * (size_t)nb);
    saved_inertia si;
    save_inertia(m, &si);
    memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
    memcpy(u0, d->ctrl, sizeof(double) * (size_t)nu);
    memcpy(a1, a, sizeof(double) * (size_t)nv);
    memcpy(W1, W, sizeof(double) * 6 * (size_t)nb);
    switch (blk) {
    case BLK_Q:
        gdn_integrate_pos(m, d->qpos, dir, h);
        break;
    case BLK_V:
        for (int i = 0; i < nv; i++) {
            d->qvel[i] += h * dir[i];
        }
        break;
    case BLK_A:
        for (int i = 0; i < nv; i++) {
            a1[i] += h * dir[i];
        }
        break;
    case BLK_U:
        for (int i = 0; i < nu; i++) {
            d->ctrl[i] += h * dir[i];
        }
        break;
    case BLK_P:
        for (int b = 1; b < nb; b++) {
            gdnInertia in;
            double p[GDN_N_INERTIA_PARAMS];
            gdn_body_inertia(m, b, &in);
            gdn_inertia_params(&in, p);
            for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
                p[k] += h * dir[GDN_N_INERTIA_PARAMS * b + k];
            }
            gdn_inertia_from_params(p, &in);
            gdn_model_set_body_inertia(m, b, &in);
        }
        break;
    default:
        for (int i = 6; i < 6 * nb; i++) {
            W1[i] += h * dir[i];
        }
        break;
    }
    gdn_kinematics(m, d);
    gdn_residual_eval(m, d, a1, W1, r);
    restore_inertia(m, &si);
    free_inertia(&si);
    memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
    memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
    gdn_kinematics(m, d);
    free(q0), free(v0), free(u0), free(a1), free(W1);
}

// worst errors over every model, per block
static double worst_fd[NBLK], worst_dot, worst_mass, worst_dense, worst_zero;

// one model at one state: every check of the residual derivatives
static int check_residual(gdnModel* m, gdnData* d, unsigned long long* rng, const char* name) {
    const int nv = m->nv, nu = m->nu, nb = m->nbody;
    const int nblk[NBLK] = {nv, nv, nv, nu, GDN_N_INERTIA_PARAMS * nb, 6 * nb};
    double* dir[NBLK];
    for (int k = 0; k < NBLK; k++) {
        dir[k] = calloc((size_t)nblk[k] + 1, sizeof(double));
    }
    double* a = malloc(sizeof(double) * (size_t)(nv + 1));
    double* W = calloc(6 * (size_t)nb, sizeof(double));
    double* r = malloc(sizeof(double) * (size_t)(nv + 1));
    double* rp = malloc(sizeof(double) * (size_t)(nv + 1));
    double* rm = malloc(sizeof(double) * (size_t)(nv + 1));
    double* fd = malloc(sizeof(double) * (size_t)(nv + 1));
    double* jvp = malloc(sizeof(double) * (size_t)(nv + 1));
    double* y = malloc(sizeof(double) * (size_t)(nv + 1));
    random_state(m, d, rng);
    random_vec(a, nv, rng);
    random_vec(W + 6, 6 * (nb - 1), rng);
    random_vec(dir[BLK_Q], nv, rng);
    random_vec(dir[BLK_V], nv, rng);
    random_vec(dir[BLK_A], nv, rng);
    random_vec(dir[BLK_U], nu, rng);
    random_vec(dir[BLK_W] + 6, 6 * (nb - 1), rng);
    // parameter directions scaled to each parameter (every body keeps a valid inertia)
    for (int b = 1; b < nb; b++) {
        gdnInertia in;
        double p[GDN_N_INERTIA_PARAMS];
        gdn_body_inertia(m, b, &in);
        gdn_inertia_params(&in, p);
        double iscale = fabs(p[4]) + fabs(p[5]) + fabs(p[6]) + 1e-6;
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
            double sc = k == 0 ? 0.1 * p[0] + 1e-3 : k < 4 ? 0.05 : 0.1 * iscale;
            dir[BLK_P][GDN_N_INERTIA_PARAMS * b + k] = sc * gdn_test_uniform(rng, -1, 1);
        }
    }
    gdn_kinematics(m, d);
    size_t mark = d->parena;

    // sanity: gdn_forward's qacc zeroes the residual (W = 0); the scale of the forces at this
    // state sets the floor of the FD comparisons (an exactly zero block, e.g. dr/dv of an
    // undamped pendulum, is compared with FD noise of order 1e-10 scale)
    double fscale = 1;
    {
        double* qacc = malloc(sizeof(double) * (size_t)(nv + 1));
        gdn_forward(m, d);
        memcpy(qacc, d->qacc, sizeof(double) * (size_t)nv);
        gdn_residual_eval(m, d, qacc, NULL, r);
        double scale = 0;
        for (int i = 0; i < nv; i++) {
            scale = fmax(scale, fabs(d->qfrc_bias[i]) + fabs(d->qfrc_passive[i]) +
                                    fabs(d->qfrc_actuator[i]) + fabs(d->qfrc_applied[i]));
        }
        double zero = 0;
        for (int i = 0; i < nv; i++) {
            zero = fmax(zero, fabs(r[i]) / fmax(scale, 1));
        }
        fscale = fmax(scale, 1);
        CHECK(zero <= 1e-12);
        worst_zero = fmax(worst_zero, zero);
        free(qacc);
    }
    gdn_kinematics(m, d);

    // per block: JVP vs central differences
    double errs[NBLK] = {0};
    for (int k = 0; k < NBLK; k++) {
        if (nblk[k] == 0) {
            continue;
        }
        gdnResidualDirection dd = {0};
        const double** slot[NBLK] = {&dd.dq, &dd.dv, &dd.da, &dd.du, &dd.dparam, &dd.dW};
        *slot[k] = dir[k];
        CHECK(gdn_residual_jvp_ex(m, d, a, W, &dd, jvp) == GDN_OK);
        CHECK(d->parena == mark);
        residual_shifted(m, d, k, dir[k], EPS, a, W, rp);
        residual_shifted(m, d, k, dir[k], -EPS, a, W, rm);
        for (int i = 0; i < nv; i++) {
            fd[i] = (rp[i] - rm[i]) / (2 * EPS);
        }
        errs[k] = gdn_test_relerr(jvp, fd, nv, FD_FLOOR * fscale);
        if (!(errs[k] <= FD_TOL)) {
            fprintf(stderr, "%s: block %s: JVP vs FD %.3g\n", name, blk_names[k], errs[k]);
            gdn_test_print_worst(jvp, fd, nv);
            return 1;
        }
        worst_fd[k] = fmax(worst_fd[k], errs[k]);
    }

    // the full JVP, with and without precomputed body tangents
    double* xi = malloc(sizeof(double) * 6 * (size_t)nb);
    double* eta = malloc(sizeof(double) * 6 * (size_t)nb);
    double* jvp2 = malloc(sizeof(double) * (size_t)(nv + 1));
    gdnResidualDirection full = {dir[BLK_Q], dir[BLK_V], dir[BLK_A], dir[BLK_U],
                                 dir[BLK_P], dir[BLK_W], NULL,       NULL, NULL};
    CHECK(gdn_residual_jvp_ex(m, d, a, W, &full, jvp) == GDN_OK);
    gdn_body_tangent_jvp(m, d, dir[BLK_Q], dir[BLK_V], xi, eta);
    full.xi = xi;
    full.eta = eta;
    CHECK(gdn_residual_jvp_ex(m, d, a, W, &full, jvp2) == GDN_OK);
    CHECK_ARRAY_REL(jvp2, jvp, nv, 1e-12, FLOOR);

    // dot-product test: <dr, y> == sum over blocks <dir, gbar>
    random_vec(y, nv, rng);
    double* g[NBLK];
    for (int k = 0; k < NBLK; k++) {
        g[k] = calloc((size_t)nblk[k] + 1, sizeof(double));
    }
    gdnResidualAdjoint out = {g[BLK_Q], g[BLK_V], g[BLK_A], g[BLK_U], g[BLK_P], g[BLK_W],
                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK(gdn_residual_vjp_ex(m, d, a, W, y, &out) == GDN_OK);
    CHECK(d->parena == mark);
    double lhs = dot(jvp, y, nv), rhs = 0, scale = 0;
    for (int k = 0; k < NBLK; k++) {
        double t = dot(dir[k], g[k], nblk[k]);
        rhs += t;
        scale += fabs(t);
    }
    double edot = fabs(lhs - rhs) / fmax(scale, 1e-300);
    if (!(edot <= DOT_TOL)) {
        fprintf(stderr, "%s: dot test %.3g (lhs %.17g rhs %.17g)\n", name, edot, lhs, rhs);
        return 1;
    }
    worst_dot = fmax(worst_dot, edot);

    // the split adjoint: xibar / etabar returned, finished by gdn_body_tangent_vjp
    {
        double* gq2 = calloc((size_t)nv + 1, sizeof(double));
        double* gv2 = calloc((size_t)nv + 1, sizeof(double));
        double* xb = malloc(sizeof(double) * 6 * (size_t)nb);
        double* eb = malloc(sizeof(double) * 6 * (size_t)nb);
        gdnResidualAdjoint split = {gq2, gv2, NULL, NULL, NULL, NULL, xb, eb,
                                    NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        CHECK(gdn_residual_vjp_ex(m, d, a, W, y, &split) == GDN_OK);
        gdn_body_tangent_vjp(m, d, xb, eb, gq2, gv2);
        CHECK_ARRAY_REL(gq2, g[BLK_Q], nv, 1e-12, FLOOR);
        CHECK_ARRAY_REL(gv2, g[BLK_V], nv, 1e-12, FLOOR);
        free(gq2), free(gv2), free(xb), free(eb);
    }

    // dr/da == M (gdn_crb, armature included): ga = M y
    gdn_crb(m, d);
    double* My = malloc(sizeof(double) * (size_t)(nv + 1));
    for (int i = 0; i < nv; i++) {
        My[i] = 0;
        for (int j = 0; j < nv; j++) {
            My[i] += d->qM[(size_t)i * (size_t)nv + (size_t)j] * y[j];
        }
    }
    double emass = gdn_test_relerr(g[BLK_A], My, nv, FLOOR);
    CHECK(emass <= 1e-12);
    worst_mass = fmax(worst_mass, emass);

    // the dense routine == JVP columns
    int ncol = 2 * nv + nu;
    double* X = malloc(sizeof(double) * (size_t)nv * (size_t)(ncol + 3));
    double* e = calloc((size_t)(nu > nv ? nu : nv) + 1, sizeof(double));
    double* col = malloc(sizeof(double) * (size_t)(nv + 1));
    CHECK(gdn_residual_dense_ex(m, d, a, W, X, ncol + 3) == GDN_OK);
    CHECK(d->parena == mark);
    double edense = 0;
    for (int c = 0; c < ncol; c++) {
        int blk = c < nv ? BLK_Q : c < 2 * nv ? BLK_V : BLK_U;
        int j = c < nv ? c : c < 2 * nv ? c - nv : c - 2 * nv;
        gdnResidualDirection dd = {0};
        e[j] = 1;
        if (blk == BLK_Q) {
            dd.dq = e;
        } else if (blk == BLK_V) {
            dd.dv = e;
        } else {
            dd.du = e;
        }
        CHECK(gdn_residual_jvp_ex(m, d, a, W, &dd, jvp) == GDN_OK);
        e[j] = 0;
        for (int i = 0; i < nv; i++) {
            col[i] = X[(size_t)i * (size_t)(ncol + 3) + (size_t)c];
        }
        edense = fmax(edense, gdn_test_relerr(col, jvp, nv, 1));
    }
    CHECK(edense <= 1e-12);
    worst_dense = fmax(worst_dense, edense);

    // d(M(q) w)/dq == the position columns' change of the dense sweep from a to a + w
    double* Xw = malloc(sizeof(double) * (size_t)nv * (size_t)(ncol + 3));
    double* Mw = malloc(sizeof(double) * (size_t)nv * (size_t)(nv + 1));
    double* aw = malloc(sizeof(double) * (size_t)(nv + 1));
    // its own stream: the FD samples' stream stays as it was
    unsigned long long rng_w = 0x5DEECE66DULL + (unsigned long long)nv;
    for (int i = 0; i < nv; i++) {
        aw[i] = a[i] + gdn_test_uniform(&rng_w, -1, 1);
    }
    CHECK(gdn_residual_dense_ex(m, d, aw, W, Xw, ncol + 3) == GDN_OK);
    for (int i = 0; i < nv; i++) {
        aw[i] -= a[i];
    }
    CHECK(gdn_residual_dense_inertia(m, d, aw, Mw, nv + 1) == GDN_OK);
    CHECK(d->parena == mark);
    double einertia = 0, dscale = 1e-300;
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
            const size_t k = (size_t)i * (size_t)(ncol + 3) + (size_t)j;
            dscale = fmax(dscale, fabs(Xw[k] - X[k]));
        }
    }
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
            const size_t k = (size_t)i * (size_t)(ncol + 3) + (size_t)j;
            const double diff = Xw[k] - X[k], mine = Mw[(size_t)i * (size_t)(nv + 1) + j];
            // both sides are sweeps with round-off relative to X's own entries
            const double tol = 1e-12 * (fabs(X[k]) + fabs(Xw[k]) + dscale);
            if (fabs(diff - mine) > tol) {
                fprintf(stderr, "%s: d(M w)/dq (%d, %d) = %.17g, dense difference %.17g\n",
                        name, i, j, mine, diff);
                return -1;
            }
            einertia = fmax(einertia, fabs(diff - mine) / (fabs(X[k]) + fabs(Xw[k]) + dscale));
        }
    }
    free(Xw), free(Mw), free(aw);

    // the simple forms equal the extended ones with W = NULL (no penalty contact here)
    CHECK(gdn_residual_jvp(m, d, a, dir[BLK_Q], dir[BLK_V], dir[BLK_U], dir[BLK_P], NULL,
                           dir[BLK_W], jvp2) == GDN_OK);
    gdnResidualDirection nw = {dir[BLK_Q], dir[BLK_V], NULL, dir[BLK_U], dir[BLK_P], dir[BLK_W],
                               NULL,       NULL,       NULL};
    CHECK(gdn_residual_jvp_ex(m, d, a, NULL, &nw, jvp) == GDN_OK);
    CHECK_ARRAY_REL(jvp2, jvp, nv, 1e-14, FLOOR);

    printf("  %-22s nv %2d  FD rel: dq %.1e dv %.1e da %.1e du %.1e dp %.1e dW %.1e  dot %.1e"
           "  M %.1e  dense %.1e  d(M w)/dq %.1e\n",
           name, nv, errs[0], errs[1], errs[2], errs[3], errs[4], errs[5], edot, emass, edense,
           einertia);
    for (int k = 0; k < NBLK; k++) {
        free(dir[k]);
        free(g[k]);
    }
    free(a), free(W), free(r), free(rp), free(rm), free(fd), free(jvp), free(jvp2), free(y);
    free(xi), free(eta), free(My), free(X), free(e), free(col);
    return 0;
}

static int test_residual(void) {
    unsigned long long rng = 4242;
    for (int mi = 0; mi < NMODEL; mi++) {
        gdnModel* m = load_model(mi);
        CHECK(m);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        for (int sample = 0; sample < 2; sample++) {
            CHECK(check_residual(m, d, &rng, model_names[mi]) == 0);
        }
        if (mi == NMODEL - 1) {
            // every disable flag the primal honours
            static const int flags[] = {GDN_DSBL_GRAVITY, GDN_DSBL_PASSIVE, GDN_DSBL_ACTUATION,
                                        GDN_DSBL_CLAMPCTRL};
            static const char* fnames[] = {"act -gravity", "act -passive", "act -actuation",
                                           "act -clampctrl"};
            for (int f = 0; f < 4; f++) {
                m->opt.disableflags = flags[f];
                CHECK(check_residual(m, d, &rng, fnames[f]) == 0);
            }
            m->opt.disableflags = 0;
        }
        gdn_data_free(d);
        gdn_model_free(m);
    }
    printf("  residual worst: FD rel dq %.2e dv %.2e da %.2e du %.2e dparam %.2e dW %.2e;"
           " dot %.2e; M %.2e; dense %.2e; r(forward qacc) %.2e\n",
           worst_fd[0], worst_fd[1], worst_fd[2], worst_fd[3], worst_fd[4], worst_fd[5],
           worst_dot, worst_mass, worst_dense, worst_zero);
    return 0;
}

// ---------------------------------------------------------------- timing (printed only)

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// microseconds per call of each routine on humanoid.xml (best of 5 batches)
static int test_timing(void) {
    gdnModel* m = load_model(7);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 99;
    random_state(m, d, &rng);
    const int nv = m->nv, nb = m->nbody, ncol = 2 * nv + m->nu;
    double* a = malloc(sizeof(double) * (size_t)nv);
    double* dq = malloc(sizeof(double) * (size_t)nv);
    double* r = malloc(sizeof(double) * (size_t)nv);
    double* g = calloc(4 * (size_t)nv + 10 * (size_t)nb + 6 * (size_t)nb + (size_t)m->nu,
                       sizeof(double));
    double* X = malloc(sizeof(double) * (size_t)nv * (size_t)ncol);
    random_vec(a, nv, &rng);
    random_vec(dq, nv, &rng);
    gdn_kinematics(m, d);
    memcpy(d->qacc, a, sizeof(double) * (size_t)nv);
    double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
    const int reps = 2000;
    for (int batch = 0; batch < 5; batch++) {
        double t0 = now_seconds();
        for (int k = 0; k < reps; k++) {
            gdn_rne(m, d, 1, r);
        }
        double t1 = now_seconds();
        for (int k = 0; k < reps; k++) {
            gdn_residual_jvp(m, d, a, dq, dq, NULL, NULL, NULL, NULL, r);
        }
        double t2 = now_seconds();
        for (int k = 0; k < reps; k++) {
            gdn_residual_vjp(m, d, a, dq, g, g + nv, g + 2 * nv, g + 3 * nv,
                             g + 3 * nv + 10 * nb);
        }
        double t3 = now_seconds();
        for (int k = 0; k < reps; k++) {
            gdn_residual_dense(m, d, a, X, ncol);
        }
        double t4 = now_seconds();
        for (int k = 0; k < reps; k++) {
            gdn_body_tangent_jvp(m, d, dq, dq, X, X + 6 * nb);
        }
        double t5 = now_seconds();
        double t[5] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4};
        for (int i = 0; i < 5; i++) {
            best[i] = fmin(best[i], 1e6 * t[i] / reps);
        }
    }
    printf("  humanoid.xml (nv %d): gdn_rne %.2f us, residual JVP %.2f us, VJP (all params) "
           "%.2f us, dense dr/dq + dr/dv + dr/du %.2f us, body tangent JVP %.2f us\n",
           nv, best[0], best[1], best[2], best[3], best[4]);
    free(a), free(dq), free(r), free(g), free(X);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"timing", test_timing},
    {"residual", test_residual},
    {"body_tangent", test_body_tangent},
    {"set_body_inertia", test_set_body_inertia},
};

GDN_TEST_MAIN(cases)
