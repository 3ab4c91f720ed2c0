// SPDX-License-Identifier: Apache-2.0
// Penalty ground contact: resting box and free fall, J'f against gdn_jac, the wrench JVP/VJP
// against central differences and each other, MJCF skins, mesh readers and bad files.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "dynamics/body_wrench.h"
#include "kinematics/kinematics_derivative.h"
#include "mjcf/mesh_file.h"
#include "penalty/penalty.h"
#include "runner/test.h"

#define BOX_XML GDN_TEST_MODELS "/box_penalty.xml"
#define TMP_DIR GDN_BINARY_DIR "/test_penalty_tmp"

static char g_err[2048];
static char g_warn[8192];

// the penalty contact alone: the models' constraint rows (MuJoCo's contacts with the same
// floor, limits) are disabled, so the penalty forces are the only contact
static gdnModel* load_file(const char* path) {
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, g_err, sizeof(g_err), g_warn, sizeof(g_warn)) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, g_err);
        return NULL;
    }
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    return m;
}

static gdnStatus load_string(const char* xml, const char* dir, gdnModel** m) {
    gdnStatus st = gdn_load_xml_string(xml, strlen(xml), dir, m, g_err, sizeof(g_err), g_warn,
                                       sizeof(g_warn));
    if (st == GDN_OK) {
        (*m)->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    }
    return st;
}

// write a file into TMP_DIR; returns its path (static buffer per call site is enough here)
static const char* write_tmp(const char* name, const void* bytes, size_t len) {
    static char path[4][512];
    static int slot;
    mkdir(TMP_DIR, 0755);
    char* p = path[slot++ % 4];
    snprintf(p, 512, "%s/%s", TMP_DIR, name);
    FILE* f = fopen(p, "wb");
    if (!f) {
        return NULL;
    }
    fwrite(bytes, 1, len, f);
    fclose(f);
    return p;
}

// ---------------------------------------------------------------- forward

// MuJoCo 2.2.2 loads the same file (custom numerics are part of MJCF)
static int test_mujoco_loads_box_penalty(void) {
    char err[1000] = "";
    mjModel* mm = mj_loadXML(BOX_XML, NULL, err, sizeof(err));
    CHECK(mm != NULL);
    CHECK(mm->nnumeric == 1);
    mj_deleteModel(mm);
    return 0;
}

// a resting box: total normal force m g, depth m g / (4 k) at each bottom corner, tops free
static int test_resting_box(void) {
    gdnModel* m = load_file(BOX_XML);
    CHECK(m != NULL);
    CHECK(m->penalty.enabled == 1 && m->penalty.height == 0);
    CHECK(m->penalty.stiffness == 10000 && m->penalty.damping == 100);
    CHECK(m->nvert == 8 && m->body_vertnum[1] == 8 && m->body_vertnum[0] == 0);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int t = 0; t < 4000; t++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    CHECK(gdn_forward(m, d) == GDN_OK);
    const double mass = m->body_subtreemass[1], g = -m->opt.gravity[2];
    const double k = m->penalty.stiffness;
    double total = 0;
    int nbottom = 0;
    for (int i = 0; i < m->nvert; i++) {
        const double* x = d->vert_xpos + 3 * i;
        const double* f = d->vert_force + 3 * i;
        CHECK(f[0] == 0 && f[1] == 0);
        total += f[2];
        if (x[2] < 0) {
            nbottom++;
            CHECK_NEAR(-x[2], mass * g / (4 * k), 1e-9, 0);
            CHECK_NEAR(f[2], mass * g / 4, 1e-9, 0);
        } else {
            CHECK(f[2] == 0);
        }
    }
    CHECK(nbottom == 4 && d->nvert_active == 4);
    CHECK_NEAR(total, mass * g, 1e-12, 0);
    for (int i = 0; i < m->nv; i++) {
        CHECK(fabs(d->qvel[i]) < 1e-12);
        CHECK(fabs(d->qacc[i]) < 1e-9);
    }
    printf("    resting box: depth %.6e (m g / 4k = %.6e), sum f_z %.15g (m g = %.15g)\n",
           -d->vert_xpos[2], mass * g / (4 * k), total, mass * g);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// free fall is Euler's exact sequence until the first corner crosses the plane; then the box
// lands, stops above -5 mm and comes to rest
static int test_free_fall_then_contact(void) {
    gdnModel* m = load_file(BOX_XML);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const double h = m->opt.timestep, g = -m->opt.gravity[2], z0 = d->qpos[2];
    int landed = -1;
    double lowest = 1;
    for (int n = 1; n <= 2000; n++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        if (landed < 0 && d->nvert_active == 0) {
            // v_n = -g h n, z_n = z0 - g h^2 n (n + 1) / 2
            CHECK_NEAR(d->qvel[2], -g * h * n, 1e-12, 1e-15);
            CHECK_NEAR(d->qpos[2], z0 - g * h * h * n * (n + 1) / 2, 1e-12, 1e-15);
        } else if (landed < 0) {
            landed = n;
        }
        lowest = fmin(lowest, d->qpos[2] - 0.1);
    }
    // the corners reach z = 0 after falling 0.2 m: t = sqrt(2 * 0.2 / g) = 0.2 s = 100 steps
    CHECK(landed > 95 && landed < 110);
    CHECK(lowest > -5e-3);
    CHECK(fabs(d->qvel[2]) < 1e-9);
    printf("    free fall: first contact force at step %d, lowest corner %.3e m\n", landed,
           lowest);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// a chain with a free base and a hinge child, several skins below the plane and moving
static const char* CHAIN_XML =
    "<mujoco><custom><numeric name='gradyn_penalty' data='0.05 3000 40'/></custom>"
    "<worldbody><body name='base' pos='0 0 0.1' euler='10 -20 5'><freejoint/>"
    "<geom type='box' size='0.2 0.1 0.05' pos='0.01 0 0'/>"
    "<body name='leg' pos='0.2 0 0'><joint type='hinge' axis='0 1 0' damping='0.3'/>"
    "<geom type='capsule' fromto='0 0 0 0.1 0 -0.25' size='0.03'/>"
    "<body name='foot' pos='0.1 0 -0.25'><joint type='ball'/>"
    "<geom type='sphere' size='0.04' pos='0.02 0 0'/>"
    "<geom type='cylinder' size='0.03 0.02' euler='90 0 0' contype='0' conaffinity='1'/>"
    "</body></body></body></worldbody></mujoco>";

static void random_state(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(rng, -1, 1);
    }
    double dq[64] = {0};
    for (int i = 0; i < m->nv; i++) {
        dq[i] = gdn_test_uniform(rng, -0.2, 0.2);
    }
    gdn_integrate_pos(m, d->qpos, dq, 1);
}

// qfrc_penalty equals sum_i J_p(x_i)' f_i from gdn_jac, and the step integrates it like an
// applied force, bit for bit
static int test_generalized_force_matches_jac(void) {
    gdnModel* m = NULL;
    CHECK(load_string(CHAIN_XML, NULL, &m) == GDN_OK);
    CHECK(m->nv == 10 && m->nvert == 8 + 10 + 6 + 16);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 7;
    double worst = 0;
    int tested = 0;
    for (int trial = 0; trial < 40; trial++) {
        gdn_data_reset(m, d);
        random_state(m, d, &rng);
        CHECK(gdn_forward(m, d) == GDN_OK);
        const int nv = m->nv;
        double expect[64] = {0}, jacp[3 * 64];
        for (int b = 1; b < m->nbody; b++) {
            for (int i = m->body_vertadr[b]; i < m->body_vertadr[b] + m->body_vertnum[b]; i++) {
                gdn_jac(m, d, jacp, NULL, d->vert_xpos + 3 * i, b);
                for (int j = 0; j < nv; j++) {
                    for (int r = 0; r < 3; r++) {
                        expect[j] += jacp[r * nv + j] * d->vert_force[3 * i + r];
                    }
                }
            }
        }
        if (d->nvert_active == 0) {
            continue;
        }
        tested++;
        worst = fmax(worst, gdn_test_relerr(d->qfrc_penalty, expect, nv, 1e-3));
        CHECK_ARRAY_REL(d->qfrc_penalty, expect, nv, 1e-13, 1e-3);

        // the same step with the contact force as qfrc_applied: identical next state
        // (the step's own qfrc_penalty: its kinematics renormalizes the quaternions)
        double qpos[64], qvel[64], pen[64];
        memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
        memcpy(qvel, d->qvel, sizeof(double) * (size_t)nv);
        CHECK(gdn_step(m, d) == GDN_OK);
        memcpy(pen, d->qfrc_penalty, sizeof(double) * (size_t)nv);
        double qpos1[64], qvel1[64];
        memcpy(qpos1, d->qpos, sizeof(double) * (size_t)m->nq);
        memcpy(qvel1, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
        memcpy(d->qvel, qvel, sizeof(double) * (size_t)nv);
        memcpy(d->qfrc_applied, pen, sizeof(double) * (size_t)nv);
        m->penalty.enabled = 0;
        CHECK(gdn_step(m, d) == GDN_OK);
        m->penalty.enabled = 1;
        for (int i = 0; i < m->nq; i++) {
            if (qpos1[i] != d->qpos[i]) {
                fprintf(stderr, "qpos[%d] %.17g vs %.17g\n", i, qpos1[i], d->qpos[i]);
            }
        }
        CHECK(memcmp(qpos1, d->qpos, sizeof(double) * (size_t)m->nq) == 0);
        CHECK(memcmp(qvel1, d->qvel, sizeof(double) * (size_t)nv) == 0);
    }
    CHECK(tested >= 10);
    printf("    qfrc_penalty vs sum J' f (gdn_jac): max rel error %.2e over %d states\n", worst,
           tested);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- derivative pieces

// W (6 x nbody) at the current qpos, qvel, vertices (kinematics included)
static void wrenches(const gdnModel* m, gdnData* d, double* W) {
    double V[6 * 8], S[6 * 48];
    gdn_kinematics(m, d);
    gdn_body_velocities(m, d, S, V);
    gdn_penalty_wrenches(m, d, V, W);
}

// xi, eta of a single free body (body 1) under (dq, dv), built by hand:
//   xi_ang = R dq_ang, xi_lin = dq_lin - xi_ang x o;
//   w = R v_ang, v_O = v_lin - w x o; dw = xi_ang x w + R dv_ang,
//   eta_lin = dv_lin - dw x o - w x dq_lin
static void free_body_tangents(const gdnData* d, const double* dq, const double* dv, double* xi,
                               double* eta) {
    const double* R = d->xmat + 9;
    const double* o = d->xpos + 3;
    memset(xi, 0, 12 * sizeof(double));
    memset(eta, 0, 12 * sizeof(double));
    double* xa = xi + 6;
    double* ea = eta + 6;
    double w[3], t[3], u[3];
    for (int r = 0; r < 3; r++) {
        xa[r] = R[3 * r] * dq[3] + R[3 * r + 1] * dq[4] + R[3 * r + 2] * dq[5];
        w[r] = R[3 * r] * d->qvel[3] + R[3 * r + 1] * d->qvel[4] + R[3 * r + 2] * d->qvel[5];
        ea[r] = R[3 * r] * dv[3] + R[3 * r + 1] * dv[4] + R[3 * r + 2] * dv[5];
    }
    t[0] = xa[1] * o[2] - xa[2] * o[1];
    t[1] = xa[2] * o[0] - xa[0] * o[2];
    t[2] = xa[0] * o[1] - xa[1] * o[0];
    u[0] = xa[1] * w[2] - xa[2] * w[1];
    u[1] = xa[2] * w[0] - xa[0] * w[2];
    u[2] = xa[0] * w[1] - xa[1] * w[0];
    for (int r = 0; r < 3; r++) {
        xa[3 + r] = dq[r] - t[r];
        ea[r] += u[r];
    }
    const double* dw = ea;
    double a[3] = {dw[1] * o[2] - dw[2] * o[1], dw[2] * o[0] - dw[0] * o[2],
                   dw[0] * o[1] - dw[1] * o[0]};
    double b[3] = {w[1] * dq[2] - w[2] * dq[1], w[2] * dq[0] - w[0] * dq[2],
                   w[0] * dq[1] - w[1] * dq[0]};
    for (int r = 0; r < 3; r++) {
        ea[3 + r] = dv[r] - a[r] - b[r];
    }
}

// a tilted, spinning, sinking box: JVP vs central differences in (q, v, vertices), and the VJP
// is its exact transpose
static int test_wrench_jvp_vjp(void) {
    gdnModel* m = load_file(BOX_XML);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const double q0[7] = {0.03, -0.02, 0.08, 0.95, 0.2, -0.15, 0.1};
    const double v0[6] = {0.3, -0.2, -0.4, 1.1, -0.7, 0.5};
    unsigned long long rng = 11;
    double worst_fd = 0, worst_dot = 0;
    for (int trial = 0; trial < 10; trial++) {
        double dq[6], dv[6], dvert[24];
        for (int i = 0; i < 6; i++) {
            dq[i] = gdn_test_uniform(&rng, -1, 1);
            dv[i] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int i = 0; i < 24; i++) {
            dvert[i] = gdn_test_uniform(&rng, -1, 1);
        }
        // primal and analytic tangent
        memcpy(d->qpos, q0, sizeof(q0));
        gdn_normalize_quat(m, d->qpos);
        memcpy(d->qvel, v0, sizeof(v0));
        double W[12], dW[12], xi[12], eta[12];
        wrenches(m, d, W);
        CHECK(d->nvert_active == 3);
        free_body_tangents(d, dq, dv, xi, eta);
        CHECK(gdn_penalty_wrench_jvp(m, d, xi, eta, dvert, dW) == GDN_OK);

        // central differences along (dq, dv, dvert) with step eps
        const double eps = 1e-6;
        double Wp[12], Wm[12], fd[12];
        double base_pos[24];
        memcpy(base_pos, m->vert_pos, sizeof(base_pos));
        for (int s = -1; s <= 1; s += 2) {
            memcpy(d->qpos, q0, sizeof(q0));
            gdn_normalize_quat(m, d->qpos);
            gdn_integrate_pos(m, d->qpos, dq, s * eps);
            for (int i = 0; i < 6; i++) {
                d->qvel[i] = v0[i] + s * eps * dv[i];
            }
            for (int i = 0; i < 24; i++) {
                m->vert_pos[i] = base_pos[i] + s * eps * dvert[i];
            }
            wrenches(m, d, s < 0 ? Wm : Wp);
            CHECK(d->nvert_active == 3);
        }
        memcpy(m->vert_pos, base_pos, sizeof(base_pos));
        for (int i = 0; i < 12; i++) {
            fd[i] = (Wp[i] - Wm[i]) / (2 * eps);
        }
        double err = gdn_test_relerr(dW, fd, 12, 1);
        worst_fd = fmax(worst_fd, err);
        CHECK_ARRAY_REL(dW, fd, 12, 1e-7, 1);

        // <dW, Wbar> == <xi, xibar> + <eta, etabar> + <dvert, gvert> for random inputs
        memcpy(d->qpos, q0, sizeof(q0));
        gdn_normalize_quat(m, d->qpos);
        memcpy(d->qvel, v0, sizeof(v0));
        wrenches(m, d, W);
        double Wbar[12], xibar[12] = {0}, etabar[12] = {0}, gvert[24] = {0};
        for (int i = 0; i < 12; i++) {
            Wbar[i] = gdn_test_uniform(&rng, -1, 1);
            xi[i] = gdn_test_uniform(&rng, -1, 1);
            eta[i] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_penalty_wrench_jvp(m, d, xi, eta, dvert, dW) == GDN_OK);
        CHECK(gdn_penalty_wrench_vjp(m, d, Wbar, xibar, etabar, gvert) == GDN_OK);
        double lhs = 0, rhs = 0, scale = 0;
        for (int i = 6; i < 12; i++) {
            lhs += dW[i] * Wbar[i];
            rhs += xi[i] * xibar[i] + eta[i] * etabar[i];
            scale += fabs(xi[i] * xibar[i]) + fabs(eta[i] * etabar[i]);
        }
        for (int i = 0; i < 24; i++) {
            rhs += dvert[i] * gvert[i];
            scale += fabs(dvert[i] * gvert[i]);
        }
        worst_dot = fmax(worst_dot, fabs(lhs - rhs) / scale);
        CHECK(fabs(lhs - rhs) <= 1e-14 * scale);
        // world rows stay zero; top (inactive) vertices get no gradient
        for (int i = 0; i < 6; i++) {
            CHECK(dW[i] == 0 && xibar[i] == 0 && etabar[i] == 0);
        }
    }
    printf("    wrench JVP vs central FD (eps 1e-6): max rel error %.2e; "
           "<J u, w> - <u, J' w>: %.2e relative\n", worst_fd, worst_dot);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// end to end on the chain: xi, eta from gdn_body_tangent_jvp, then the wrench JVP, against
// central differences of W in (q, v, vertices); states whose active set changes within +-eps
// are skipped
static int test_wrench_jvp_through_body_tangent(void) {
    gdnModel* m = NULL;
    CHECK(load_string(CHAIN_XML, NULL, &m) == GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, nvert = m->nvert, nb6 = 6 * m->nbody;
    unsigned long long rng = 19;
    double worst = 0;
    int tested = 0;
    double* base_pos = malloc(sizeof(double) * 3 * (size_t)nvert);
    double* dvert = malloc(sizeof(double) * 3 * (size_t)nvert);
    CHECK(base_pos && dvert);
    memcpy(base_pos, m->vert_pos, sizeof(double) * 3 * (size_t)nvert);
    for (int trial = 0; trial < 40 && tested < 10; trial++) {
        gdn_data_reset(m, d);
        random_state(m, d, &rng);
        gdn_normalize_quat(m, d->qpos);
        double q0[64], v0[64], dq[64], dv[64];
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        for (int i = 0; i < nv; i++) {
            dq[i] = gdn_test_uniform(&rng, -1, 1);
            dv[i] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int i = 0; i < 3 * nvert; i++) {
            dvert[i] = gdn_test_uniform(&rng, -1, 1);
        }
        double W[24], dW[24], xi[24], eta[24], Wp[24], Wm[24], fd[24];
        wrenches(m, d, W);
        int active = d->nvert_active;
        gdn_body_tangent_jvp(m, d, dq, dv, xi, eta);
        CHECK(gdn_penalty_wrench_jvp(m, d, xi, eta, dvert, dW) == GDN_OK);
        const double eps = 1e-6;
        int same = active > 0;
        for (int s = -1; s <= 1; s += 2) {
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, d->qpos, dq, s * eps);
            for (int i = 0; i < nv; i++) {
                d->qvel[i] = v0[i] + s * eps * dv[i];
            }
            for (int i = 0; i < 3 * nvert; i++) {
                m->vert_pos[i] = base_pos[i] + s * eps * dvert[i];
            }
            wrenches(m, d, s < 0 ? Wm : Wp);
            same = same && d->nvert_active == active;
        }
        memcpy(m->vert_pos, base_pos, sizeof(double) * 3 * (size_t)nvert);
        if (!same) {
            continue;
        }
        tested++;
        for (int i = 0; i < nb6; i++) {
            fd[i] = (Wp[i] - Wm[i]) / (2 * eps);
        }
        double err = gdn_test_relerr(dW, fd, nb6, 1);
        worst = fmax(worst, err);
        CHECK_ARRAY_REL(dW, fd, nb6, 1e-7, 1);
    }
    CHECK(tested >= 5);
    printf("    W tangent through gdn_body_tangent_jvp vs central FD (eps 1e-6): max rel error "
           "%.2e over %d states\n", worst, tested);
    free(base_pos);
    free(dvert);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// VJP accumulates (+=) and NULL outputs are skipped
static int test_vjp_accumulates(void) {
    gdnModel* m = load_file(BOX_XML);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    d->qpos[2] = 0.09;
    double W[12], Wbar[12] = {0, 0, 0, 0, 0, 0, 0.3, -0.2, 0.1, 0.5, 0.4, 1.0};
    wrenches(m, d, W);
    CHECK(d->nvert_active == 4);
    double g1[24] = {0}, g2[24] = {0};
    CHECK(gdn_penalty_wrench_vjp(m, d, Wbar, NULL, NULL, g1) == GDN_OK);
    CHECK(gdn_penalty_wrench_vjp(m, d, Wbar, NULL, NULL, g2) == GDN_OK);
    CHECK(gdn_penalty_wrench_vjp(m, d, Wbar, NULL, NULL, g2) == GDN_OK);
    for (int i = 0; i < 24; i++) {
        CHECK(g2[i] == 2 * g1[i]);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- API

static int test_api(void) {
    gdnModel* m = load_file(BOX_XML);
    CHECK(m != NULL);
    CHECK(gdn_model_set_penalty(NULL, 1, 0, 1, 1) == GDN_ERR_ARG);
    CHECK(gdn_model_set_penalty(m, 1, 0, -1, 1) == GDN_ERR_ARG);
    CHECK(gdn_model_set_penalty(m, 1, NAN, 1, 1) == GDN_ERR_ARG);
    CHECK(gdn_model_set_penalty(m, 1, 0, 1, -1) == GDN_ERR_ARG);
    CHECK(m->penalty.stiffness == 10000);
    CHECK(gdn_model_set_penalty(m, 1, 0.5, 2000, 10) == GDN_OK);
    CHECK(m->penalty.height == 0.5 && m->penalty.stiffness == 2000 && m->penalty.damping == 10);

    const double tri[9] = {0, 0, -0.2, 0.1, 0, -0.2, 0, 0.1, -0.2};
    const double bad[3] = {0, INFINITY, 0};
    CHECK(gdn_model_set_collision_mesh(NULL, 1, tri, 3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_collision_mesh(m, 0, tri, 3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_collision_mesh(m, 2, tri, 3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_collision_mesh(m, 1, NULL, 3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_collision_mesh(m, 1, tri, -1) == GDN_ERR_ARG);
    CHECK(gdn_model_set_collision_mesh(m, 1, bad, 1) == GDN_ERR_ARG);
    CHECK(m->nvert == 8);

    gdnData* stale = NULL;
    CHECK(gdn_data_create(m, &stale) == GDN_OK);
    CHECK(gdn_model_set_collision_mesh(m, 1, tri, 3) == GDN_OK);
    CHECK(m->nvert == 3 && m->body_vertnum[1] == 3 && m->body_vertadr[1] == 0);
    CHECK(memcmp(m->vert_pos, tri, sizeof(tri)) == 0);
    // data created before the edit is refused, never overrun
    CHECK(gdn_forward(m, stale) == GDN_ERR_ARG);
    CHECK(gdn_step(m, stale) != GDN_OK);
    gdn_data_free(stale);

    // the plane at 0.5 with the new skin 0.2 below the origin: the three points push up
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    d->qpos[2] = 0.6;
    CHECK(gdn_forward(m, d) == GDN_OK);
    CHECK(d->nvert_active == 3);
    CHECK_NEAR(d->vert_force[2], 2000 * 0.1, 1e-12, 0);
    gdn_data_free(d);

    // removing the skin leaves no vertices; disabling leaves tau untouched
    CHECK(gdn_model_set_collision_mesh(m, 1, NULL, 0) == GDN_OK);
    CHECK(m->nvert == 0);
    CHECK(gdn_model_set_penalty(m, 0, 0, 0, 0) == GDN_OK);
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_step(m, d) == GDN_OK);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- MJCF

static int check_point(const gdnModel* m, int i, double x, double y, double z) {
    const double* p = m->vert_pos + 3 * i;
    if (fabs(p[0] - x) > 1e-12 || fabs(p[1] - y) > 1e-12 || fabs(p[2] - z) > 1e-12) {
        fprintf(stderr, "vertex %d = (%g %g %g), expected (%g %g %g)\n", i, p[0], p[1], p[2], x,
                y, z);
        return 1;
    }
    return 0;
}

// every primitive's skin, transformed by the geom pose into the body frame; which geoms count
static int test_mjcf_primitive_skins(void) {
    const char* xml =
        "<mujoco><worldbody><geom type='plane' size='1 1 1'/><geom type='box' size='1 1 1'/>"
        "<body name='a'><freejoint/>"
        "<geom type='box' size='0.1 0.2 0.3' pos='1 0 0'/>"
        "<geom type='sphere' size='0.5' euler='0 0 90'/>"
        "<geom type='capsule' size='0.1 0.4'/>"
        "<geom type='cylinder' size='0.2 0.3'/>"
        "<geom type='ellipsoid' size='0.1 0.2 0.3'/>"
        "<geom type='box' size='1 1 1' contype='0' conaffinity='0'/>"
        "</body></worldbody></mujoco>";
    gdnModel* m = NULL;
    CHECK(load_string(xml, NULL, &m) == GDN_OK);
    CHECK(m->penalty.enabled == 0);
    CHECK(m->body_vertnum[0] == 0);
    CHECK(m->nvert == 8 + 6 + 10 + 16 + 6);
    // box corners: x fastest, offset by pos
    CHECK(check_point(m, 0, 0.9, -0.2, -0.3) == 0);
    CHECK(check_point(m, 7, 1.1, 0.2, 0.3) == 0);
    // sphere rotated 90 degrees about z: +x of the geom is +y of the body
    CHECK(check_point(m, 8, 0, 0.5, 0) == 0);
    CHECK(check_point(m, 10, -0.5, 0, 0) == 0);
    // capsule: poles at +-(half-length + radius), rings at the end-cap centres
    CHECK(check_point(m, 14, 0, 0, 0.5) == 0);
    CHECK(check_point(m, 15, 0.1, 0, 0.4) == 0);
    CHECK(check_point(m, 19, 0, 0, -0.5) == 0);
    CHECK(check_point(m, 23, 0, -0.1, -0.4) == 0);
    // cylinder rims
    CHECK(check_point(m, 24, 0.2, 0, 0.3) == 0);
    CHECK(check_point(m, 32, 0.2, 0, -0.3) == 0);
    // ellipsoid
    CHECK(check_point(m, 40, 0.1, 0, 0) == 0);
    CHECK(check_point(m, 45, 0, 0, -0.3) == 0);
    gdn_model_free(m);
    return 0;
}

// the custom numeric: read, validated; other numerics ignored
static int test_mjcf_custom_numeric(void) {
    gdnModel* m = NULL;
    CHECK(load_string("<mujoco><custom><numeric name='other' data='1 2'/>"
                      "<numeric name='gradyn_penalty' size='3' data='-0.1 500 2.5'/>"
                      "<text name='t' data='x'/></custom><worldbody/></mujoco>",
                      NULL, &m) == GDN_OK);
    CHECK(m->penalty.enabled == 1 && m->penalty.height == -0.1);
    CHECK(m->penalty.stiffness == 500 && m->penalty.damping == 2.5);
    CHECK(g_warn[0] == '\0');
    gdn_model_free(m);
    const char* bad[] = {
        "<mujoco><custom><numeric name='gradyn_penalty' data='0 1'/></custom></mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty' data='0 -1 1'/></custom></mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty' data='0 1 1 1'/></custom></mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty'/></custom></mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty' data='0 1 nan'/></custom></mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty' size='4' data='0 1 1'/></custom>"
        "</mujoco>",
        "<mujoco><custom><numeric name='gradyn_penalty' data='0 1 1'/>"
        "<numeric name='gradyn_penalty' data='0 1 1'/></custom></mujoco>",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gdnStatus st = load_string(bad[i], NULL, &m);
        if (st == GDN_OK || m || !strstr(g_err, "numeric")) {
            fprintf(stderr, "bad numeric %zu accepted or unclear: %s\n", i, g_err);
            return 1;
        }
    }
    return 0;
}

// binary STL of a tetrahedron (4 triangles, 4 distinct vertices)
static size_t make_binary_stl(unsigned char* out) {
    const float p[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const int tri[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
    memset(out, 0, 84 + 200);
    memcpy(out, "solid but binary", 16); // a binary header may start with "solid"
    out[80] = 4;
    for (int t = 0; t < 4; t++) {
        for (int k = 0; k < 3; k++) {
            memcpy(out + 84 + 50 * t + 12 + 12 * k, p[tri[t][k]], sizeof(p[0]));
        }
    }
    return 84 + 200;
}

// is (x, y, z) within 1e-6 of one of the body-frame skin vertices first..first+n-1? (mesh
// vertices are compiled as MuJoCo does: float32, re-centred, in principal axes)
static int has_point(const gdnModel* m, int first, int n, double x, double y, double z) {
    for (int i = first; i < first + n; i++) {
        const double* p = m->vert_pos + 3 * i;
        if (fabs(p[0] - x) < 1e-6 && fabs(p[1] - y) < 1e-6 && fabs(p[2] - z) < 1e-6) {
            return 1;
        }
    }
    fprintf(stderr, "no skin vertex near (%g %g %g)\n", x, y, z);
    return 0;
}

// binary STL of ntri triangles p[9 t .. 9 t + 8] (the header says "solid", as some do)
static size_t make_stl(unsigned char* out, const float* p, int ntri) {
    memset(out, 0, 84 + 50 * (size_t)ntri);
    memcpy(out, "solid", 5);
    out[80] = (unsigned char)ntri;
    for (int t = 0; t < ntri; t++) {
        memcpy(out + 84 + 50 * t + 12, p + 9 * t, 9 * sizeof(float));
    }
    return 84 + 50 * (size_t)ntri;
}

// STL (binary) and OBJ files through meshdir, with scale and refpos, deduplicated; an ASCII
// STL is refused naming the file, as MuJoCo 2.2.2 refuses it
static int test_mjcf_mesh_files(void) {
    unsigned char stl[284];
    size_t n = make_binary_stl(stl);
    CHECK(write_tmp("meshes_bin.stl", stl, n));
    // the ASCII file's four triangles, binary
    const float asc[36] = {0, 0, 0, 0, 1, 0, 1, 0, 0,      0, 0, 0, 1, 0, 0, 0, 0, -1.5e-1f,
                           1, 0, 0, 0, 1, 0, 0, 0, -1.5e-1f, 0, 1, 0, 0, 0, 0, 0, 0, -1.5e-1f};
    unsigned char asc_bin[284];
    CHECK(write_tmp("asc_bin.stl", asc_bin, make_stl(asc_bin, asc, 4)));
    const char* ascii = "solid tri\n"
                        " facet normal 0 0 0\n outer loop\n vertex 0 0 0\n vertex 0 1 0\n"
                        " vertex 1 0 0\n endloop\n endfacet\n"
                        " facet normal 0 0 0\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n"
                        " vertex 0 0 -1.5e-1\n endloop\n endfacet\n"
                        " facet normal 0 0 0\n outer loop\n vertex 1 0 0\n vertex 0 1 0\n"
                        " vertex 0 0 -1.5e-1\n endloop\n endfacet\n"
                        " facet normal 0 0 0\n outer loop\n vertex 0 1 0\n vertex 0 0 0\n"
                        " vertex 0 0 -1.5e-1\n endloop\n endfacet\nendsolid\n";
    CHECK(write_tmp("ascii.STL", ascii, strlen(ascii)));
    gdnModel* m = NULL;
    CHECK(load_string("<mujoco><asset><mesh name='asc' file='ascii.STL'/></asset><worldbody>"
                      "<body><geom type='mesh' mesh='asc'/></body></worldbody></mujoco>",
                      TMP_DIR, &m) == GDN_ERR_PARSE && !m);
    CHECK(strstr(g_err, "ascii.STL") && strstr(g_err, "binary STL only"));
    const char* obj = "# corner\nmtllib x.mtl\nvn 0 0 1\nv 1 2 3\nv -1 -2 -3 1.0\n"
                      "vt 0.5 0.5\nv 1 2 3\nv 2 2 3\nv 1 3 3\nv 1 2 4\n";
    CHECK(write_tmp("shape.obj", obj, strlen(obj)));
    mkdir(TMP_DIR "/sub", 0755);
    CHECK(write_tmp("sub/moved.obj", obj, strlen(obj)));

    const char* xml =
        "<mujoco><compiler meshdir='.'/><asset>"
        "<mesh file='meshes_bin.stl' scale='2 3 4'/>"
        "<mesh name='asc' file='asc_bin.stl'/>"
        "<mesh file='shape.obj' refpos='1 0 0'/>"
        "<mesh name='inline' vertex='0 0 0  0 0 1  0 0 1  1 0 0  0 1 0'/>"
        "<texture name='tx' type='2d' builtin='checker' width='8' height='8'/>"
        "</asset><worldbody><body><freejoint/>"
        "<geom type='mesh' mesh='meshes_bin' pos='0 0 1'/>"
        "<geom type='mesh' mesh='asc' euler='0 0 180'/>"
        "<geom type='mesh' mesh='shape'/>"
        "<geom type='mesh' mesh='inline'/>"
        "<geom type='box' size='.1 .1 .1' contype='0' conaffinity='0'/>"
        "</body></worldbody></mujoco>";
    gdnStatus st = load_string(xml, TMP_DIR, &m);
    if (st != GDN_OK) {
        fprintf(stderr, "%s\n", g_err);
    }
    CHECK(st == GDN_OK);
    CHECK(m->nvert == 4 + 4 + 5 + 4);
    CHECK(has_point(m, 0, 4, 0, 0, 1) && has_point(m, 0, 4, 2, 0, 1));
    CHECK(has_point(m, 0, 4, 0, 3, 1) && has_point(m, 0, 4, 0, 0, 5));
    CHECK(has_point(m, 4, 4, -1, 0, 0));      // rotated 180 degrees about z
    CHECK(has_point(m, 4, 4, 0, 0, -0.15));
    CHECK(has_point(m, 8, 5, 0, 2, 3));       // refpos subtracted
    CHECK(has_point(m, 8, 5, -2, -2, -3));
    CHECK(has_point(m, 13, 4, 0, 0, 1));
    gdn_model_free(m);

    // assetdir is not MJCF 2.2.2 (its schema refuses it, as MuJoCo 2.2.2 does); meshdir,
    // relative to the model directory
    CHECK(load_string("<mujoco><compiler assetdir='sub'/></mujoco>", TMP_DIR, &m) ==
          GDN_ERR_PARSE);
    CHECK(load_string("<mujoco><compiler meshdir='sub'/><asset><mesh file='moved.obj'/></asset>"
                      "<worldbody><body><geom type='mesh' mesh='moved'/>"
                      "<geom size='1' contype='0' conaffinity='0'/></body></worldbody></mujoco>",
                      TMP_DIR, &m) == GDN_OK);
    CHECK(m->nvert == 5);
    gdn_model_free(m);
    return 0;
}

// bad mesh files and references: errors naming the file and the cause, never a crash
static int test_mjcf_bad_meshes(void) {
    unsigned char stl[284];
    size_t n = make_binary_stl(stl);
    stl[0] = 'x';
    CHECK(write_tmp("truncated.stl", stl, n - 7));
    CHECK(write_tmp("badascii.stl", "solid x\n vertex 1 2\n vertex 1 2 3\n", 34));
    CHECK(write_tmp("nan.obj", "v 1 2 3\nv 1 nan 3\n", 18));
    CHECK(write_tmp("empty.obj", "# nothing\n", 10));
    CHECK(write_tmp("mesh.ply", "ply\n", 4));
    float inf = INFINITY;
    make_binary_stl(stl);
    memcpy(stl + 84 + 12 + 4, &inf, 4);
    CHECK(write_tmp("inf.stl", stl, n));
    struct {
        const char* file;
        const char* cause;
    } cases[] = {{"missing.stl", "cannot open"},   {"truncated.stl", "wrong size"},
                 {"badascii.stl", "binary STL only"}, {"nan.obj", "line 2"},
                 {"empty.obj", "no vertices"},     {"mesh.ply", "unsupported"},
                 {"inf.stl", "non-finite"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char xml[512];
        snprintf(xml, sizeof(xml),
                 "<mujoco><asset><mesh name='m' file='%s'/></asset><worldbody><body>"
                 "<geom type='mesh' mesh='m'/></body></worldbody></mujoco>",
                 cases[i].file);
        gdnModel* m = NULL;
        gdnStatus st = load_string(xml, TMP_DIR, &m);
        if (st == GDN_OK || m || !strstr(g_err, cases[i].file) ||
            !strstr(g_err, cases[i].cause)) {
            fprintf(stderr, "case %s: status %d, message '%s'\n", cases[i].file, (int)st, g_err);
            gdn_model_free(m);
            return 1;
        }
    }
    const char* bad_xml[] = {
        "<mujoco><worldbody><body><geom type='mesh' mesh='nope'/></body></worldbody></mujoco>",
        "<mujoco><asset><mesh name='a'/></asset></mujoco>",
        "<mujoco><asset><mesh name='a' vertex='1 2'/></asset></mujoco>",
        "<mujoco><asset><mesh name='a' vertex='1 2 3'/><mesh name='a' vertex='1 2 3'/></asset>"
        "</mujoco>",
        "<mujoco><asset><mesh name='a' vertex='1 2 3' refquat='0 0 0 0'/></asset></mujoco>",
    };
    for (size_t i = 0; i < sizeof(bad_xml) / sizeof(bad_xml[0]); i++) {
        gdnModel* m = NULL;
        if (load_string(bad_xml[i], TMP_DIR, &m) == GDN_OK || m) {
            fprintf(stderr, "bad mesh xml %zu accepted\n", i);
            gdn_model_free(m);
            return 1;
        }
    }
    // a mesh geom that does not collide is not read (MuJoCo's mug: contype 0 mesh)
    gdnModel* m = load_file("/usr/share/mujoco/model/mug/mug.xml");
    CHECK(m != NULL);
    gdn_model_free(m);
    return 0;
}

// the readers on hostile bytes: deterministic mutations of valid files never crash
static int test_mesh_parse_fuzz(void) {
    unsigned char stl[284];
    size_t n = make_binary_stl(stl);
    const char* ascii = "solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                        "vertex 0 1 0\nendloop\nendfacet\nendsolid a\n";
    const char* obj = "v 1 2 3\nv 4 5 6\nvn 0 0 1\nf 1 2 1\n";
    unsigned long long rng = 3;
    int accepted = 0, rejected = 0;
    for (int trial = 0; trial < 3000; trial++) {
        unsigned char buf[sizeof(stl) + 64]; // the largest seed plus room for insertions
        size_t len;
        gdnMeshFormat fmt;
        if (trial % 3 == 0) {
            memcpy(buf, stl, n);
            len = n;
            fmt = GDN_MESH_STL;
        } else if (trial % 3 == 1) {
            len = strlen(ascii);
            memcpy(buf, ascii, len);
            fmt = GDN_MESH_STL;
        } else {
            len = strlen(obj);
            memcpy(buf, obj, len);
            fmt = GDN_MESH_OBJ;
        }
        int edits = 1 + (int)gdn_test_uniform(&rng, 0, 4);
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)gdn_test_uniform(&rng, 0, (double)len);
            int kind = (int)gdn_test_uniform(&rng, 0, 3);
            if (kind == 0) {
                buf[at] = (unsigned char)gdn_test_uniform(&rng, 0, 256);
            } else if (kind == 1) {
                len = at; // truncate
            } else {
                buf[at] = "v 0.e-+\n"[(int)gdn_test_uniform(&rng, 0, 8)];
            }
        }
        double* v = NULL;
        int nv = 0;
        char cause[128];
        gdnStatus st = gdn_mesh_parse(fmt, buf, len, &v, &nv, cause, (int)sizeof(cause));
        if (st == GDN_OK) {
            CHECK(v && nv > 0);
            for (int i = 0; i < 3 * nv; i++) {
                CHECK(isfinite(v[i]));
            }
            accepted++;
        } else {
            CHECK(!v && nv == 0 && cause[0]);
            rejected++;
        }
        free(v);
    }
    printf("    mesh reader fuzz: %d accepted, %d rejected\n", accepted, rejected);
    return 0;
}

static const gdnTestCase cases[] = {
    {"mujoco_loads_box_penalty", test_mujoco_loads_box_penalty},
    {"resting_box", test_resting_box},
    {"free_fall_then_contact", test_free_fall_then_contact},
    {"generalized_force_matches_jac", test_generalized_force_matches_jac},
    {"wrench_jvp_vjp", test_wrench_jvp_vjp},
    {"wrench_jvp_through_body_tangent", test_wrench_jvp_through_body_tangent},
    {"vjp_accumulates", test_vjp_accumulates},
    {"api", test_api},
    {"mjcf_primitive_skins", test_mjcf_primitive_skins},
    {"mjcf_custom_numeric", test_mjcf_custom_numeric},
    {"mjcf_mesh_files", test_mjcf_mesh_files},
    {"mjcf_bad_meshes", test_mjcf_bad_meshes},
    {"mesh_parse_fuzz", test_mesh_parse_fuzz},
};

GDN_TEST_MAIN(cases)
