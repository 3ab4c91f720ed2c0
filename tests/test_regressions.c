// SPDX-License-Identifier: Apache-2.0
// Regression tests that close gaps found by mutation testing (each names the bug it catches).
//
// Every case here was written against a deliberately injected bug that the rest of the suite
// did not detect; the comment above each case names that bug. Oracle comparisons use MuJoCo
// 2.2.2 with constraints disabled (tests/oracle); relative errors are
// ||gradyn - MuJoCo||_inf / max(||MuJoCo||_inf, 1).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/test.h"

#define TOL 1e-12
#define NSAMPLES 20

// write xml next to the build as name and return the path (static buffer)
static const char* write_model(const char* name, const char* xml) {
    static char path[1024];
    snprintf(path, sizeof(path), "%s/%s", GDN_BINARY_DIR, name);
    FILE* f = fopen(path, "w");
    if (!f) {
        return NULL;
    }
    fputs(xml, f);
    fclose(f);
    return path;
}

// ---------------------------------------------------------------- joint reference positions

// slide and hinge joints with nonzero ref under a rotated parent: the joint displacement is
// q - qpos0 (qpos0 = ref), so at q = qpos0 every body sits at its model pose
static const char kRefXml[] =
    "<mujoco model=\"refs\">\n"
    "  <compiler angle=\"radian\"/>\n"
    "  <option gravity=\"0 0 -9.81\"/>\n"
    "  <worldbody>\n"
    "    <body name=\"base\" pos=\"0.1 0.2 0.3\" euler=\"0.4 -0.3 0.2\">\n"
    "      <joint name=\"slide\" type=\"slide\" axis=\"0.3 0.5 1\" ref=\"0.3\"/>\n"
    "      <geom type=\"box\" size=\"0.1 0.2 0.05\" mass=\"1\"/>\n"
    "      <body name=\"arm\" pos=\"0 0.1 0.2\">\n"
    "        <joint name=\"hinge\" type=\"hinge\" axis=\"1 0.2 0\" pos=\"0 0 -0.05\" ref=\"0.5\"/>\n"
    "        <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0.1\" size=\"0.03\" mass=\"0.5\"/>\n"
    "        <body name=\"tip\" pos=\"0.3 0 0.1\">\n"
    "          <joint name=\"slide2\" type=\"slide\" axis=\"0 1 0\" ref=\"-0.2\"/>\n"
    "          <geom type=\"sphere\" size=\"0.05\" mass=\"0.2\"/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

// catches: slide displacement not offset by qpos0 (ref) in kinematics
static int test_slide_hinge_ref_kinematics(void) {
    const char* path = write_model("test_regressions_refs.xml", kRefXml);
    CHECK(path);
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    CHECK_NEAR(gm->qpos0[0], 0.3, 0, 0);
    CHECK_NEAR(gm->qpos0[2], -0.2, 0, 0);

    // at qpos0 each body is at its model pose: the tip at base * arm * tip offsets
    gdn_data_reset(gm, gd);
    mj_resetData(o.mm, o.md);
    gdn_kinematics(gm, gd);
    mj_kinematics(o.mm, o.md);
    CHECK_ARRAY_REL(gd->xpos, o.md->xpos, 3 * gm->nbody, TOL, 1);
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(gd->xpos[3 + k], gm->body_pos[3 + k], 0, 1e-15);
    }

    // random configurations: frames and anchors as MuJoCo
    unsigned long long rng = 77;
    double worst = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS, 1);
        gdn_kinematics(gm, gd);
        mj_kinematics(o.mm, o.md);
        worst = fmax(worst, gdn_test_relerr(gd->xpos, o.md->xpos, 3 * gm->nbody, 1));
        worst = fmax(worst, gdn_test_relerr(gd->xmat, o.md->xmat, 9 * gm->nbody, 1));
        worst = fmax(worst, gdn_test_relerr(gd->xanchor, o.md->xanchor, 3 * gm->njnt, 1));
    }
    printf("  ref kinematics vs MuJoCo: rel error %.2e\n", worst);
    CHECK(worst <= TOL);
    gdn_oracle_free(&o);
    return 0;
}

// ---------------------------------------------------------------- non-finite inputs to the step

// catches: the step's qpos finiteness check removed (the NaN then surfaces as a bad qacc and is
// reported under the wrong warning)
static int test_step_nonfinite_qpos(void) {
    gdnModel* m = gdn_test_load_model("slider.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const double bad[2] = {NAN, INFINITY};
    for (int t = 0; t < 2; t++) {
        gdn_data_reset(m, d);
        d->qvel[0] = 0.25;
        d->qpos[1] = bad[t];
        CHECK(gdn_step(m, d) == GDN_ERR_NONFINITE);
        CHECK(d->warning[GDN_WARN_BADQPOS] == 1);
        CHECK(d->warning[GDN_WARN_BADQACC] == 0);
        CHECK(d->time == 0);
        CHECK(d->qvel[0] == 0.25);
        CHECK(d->parena == 0);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// catches: the step's ctrl finiteness check removed (actuation would zero the controls and the
// step would go on with GDN_OK)
static int test_step_nonfinite_ctrl(void) {
    gdnModel* m = gdn_test_load_model("slider.xml");
    CHECK(m);
    CHECK(m->nu == 3);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    double* qpos = calloc((size_t)m->nq, sizeof(double));
    double* qvel = calloc((size_t)m->nv, sizeof(double));
    CHECK(qpos && qvel);
    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int t = 0; t < 3; t++) {
        gdn_data_reset(m, d);
        d->qvel[1] = -0.5;
        d->ctrl[0] = 0.2;
        d->ctrl[1] = bad[t];
        memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
        memcpy(qvel, d->qvel, sizeof(double) * (size_t)m->nv);
        CHECK(gdn_step(m, d) == GDN_ERR_NONFINITE);
        CHECK(d->warning[GDN_WARN_BADCTRL] == 1);
        CHECK(d->time == 0);
        CHECK(memcmp(qpos, d->qpos, sizeof(double) * (size_t)m->nq) == 0);
        CHECK(memcmp(qvel, d->qvel, sizeof(double) * (size_t)m->nv) == 0);
    }
    free(qpos);
    free(qvel);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- huge controls

// catches: a finite but huge control (|ctrl| > 1e10 after clamping) not treated as bad. MuJoCo
// 2.2.2 then zeroes every control for the actuator forces and warns; a limited actuator's huge
// control is clamped first and so is not bad
static int test_huge_ctrl_vs_mujoco(void) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/slider.xml", GDN_TEST_MODELS);
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    gdnData* gd = o.gd;
    CHECK(o.gm->nu == 3 && o.gm->actuator_ctrllimited[0] && !o.gm->actuator_ctrllimited[1]);
    unsigned long long rng = 5;
    const double ctrl[2][3] = {{0.5, 2e10, 0.1}, {1e11, 0.3, -0.2}};
    const int warned[2] = {1, 0};
    for (int c = 0; c < 2; c++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL, 1);
        memcpy(gd->ctrl, ctrl[c], sizeof(ctrl[c]));
        gdn_oracle_copy_state(&o);
        CHECK(gdn_forward(o.gm, gd) == GDN_OK);
        mj_forward(o.mm, o.md);
        CHECK(gd->warning[GDN_WARN_BADCTRL] == warned[c]);
        CHECK(o.md->warning[mjWARN_BADCTRL].number == warned[c]);
        CHECK_ARRAY_REL(gd->actuator_force, o.md->actuator_force, 3, TOL, 1);
        CHECK_ARRAY_REL(gd->qfrc_actuator, o.md->qfrc_actuator, o.gm->nv, TOL, 1);
        CHECK_ARRAY_REL(gd->qacc, o.md->qacc, o.gm->nv, 1e-10, 1);
    }
    CHECK(gd->actuator_force[0] != 0);
    gdn_oracle_free(&o);
    return 0;
}

// ---------------------------------------------------------------- disabled gravity

// catches: ABA ignoring GDN_DSBL_GRAVITY (forward dynamics and the step, against MuJoCo with
// mjDSBL_GRAVITY, on every test model and MuJoCo's humanoid)
static int gravity_disabled_model(const char* path, double* worst) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    o.gm->opt.disableflags |= GDN_DSBL_GRAVITY;
    o.mm->opt.disableflags |= mjDSBL_GRAVITY;
    int nv = o.gm->nv, nq = o.gm->nq;
    unsigned long long rng = 99;
    for (int s = 0; s < NSAMPLES / 4; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_ALL, 1);
        CHECK(gdn_forward(o.gm, o.gd) == GDN_OK);
        mj_forward(o.mm, o.md);
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qacc, o.md->qacc, nv, 1));
        CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
        mj_step(o.mm, o.md);
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qvel, o.md->qvel, nv, 1));
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qpos, o.md->qpos, nq, 1));
    }
    gdn_oracle_free(&o);
    return 0;
}

static int test_gravity_disabled_vs_mujoco(void) {
    char path[1024];
    double worst = 0;
    for (int i = 0; i < gdn_oracle_nmodels; i++) {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, gdn_oracle_models[i]);
        CHECK(gravity_disabled_model(path, &worst) == 0);
    }
    CHECK(gravity_disabled_model(GDN_ORACLE_MJ_HUMANOID, &worst) == 0);
    printf("  gravity disabled, qacc and one step vs MuJoCo: rel error %.2e\n", worst);
    CHECK(worst <= 1e-10);
    return 0;
}

// ---------------------------------------------------------------- configuration difference

// catches: gdn_difference_pos with the ball (or free) quaternion difference reversed.
//   difference(q, integrate(q, v, dt), dt) = v,  and equal to mj_differentiatePos
static int test_difference_pos_inverts_integrate(void) {
    const char* files[] = {"ball_chain.xml", "humanoid32.xml", "slider.xml", "box_spin.xml"};
    const double dt = 0.01;
    double worst_inv = 0, worst_mj = 0;
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, files[f]);
        gdnOracle o;
        CHECK(gdn_oracle_load(&o, path) == 0);
        int nq = o.gm->nq, nv = o.gm->nv;
        double* q2 = calloc((size_t)nq, sizeof(double));
        double* v = calloc((size_t)nv, sizeof(double));
        double* vm = calloc((size_t)nv, sizeof(double));
        CHECK(q2 && v && vm);
        unsigned long long rng = 31 + f;
        for (int s = 0; s < NSAMPLES; s++) {
            gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL, 3);
            memcpy(q2, o.gd->qpos, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(o.gm, q2, o.gd->qvel, dt);
            gdn_difference_pos(o.gm, v, dt, o.gd->qpos, q2);
            mj_differentiatePos(o.mm, vm, dt, o.gd->qpos, q2);
            worst_inv = fmax(worst_inv, gdn_test_relerr(v, o.gd->qvel, nv, 1));
            worst_mj = fmax(worst_mj, gdn_test_relerr(v, vm, nv, 1));
        }
        free(q2);
        free(v);
        free(vm);
        gdn_oracle_free(&o);
    }
    printf("  difference(integrate) = v: %.2e, vs mj_differentiatePos: %.2e\n", worst_inv,
           worst_mj);
    CHECK(worst_inv <= 1e-9);
    CHECK(worst_mj <= 1e-9);
    return 0;
}

// ---------------------------------------------------------------- scratch arena

// catches: a missing gdn_arena_reset in any public stage (RNE, ABA, CRBA, energy, ...): every
// call must leave the arena as it found it, and many forward calls must never exhaust it
static int arena_model(const char* file) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    m->opt.enableflags |= GDN_ENBL_ENERGY;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double* buf = calloc(9 * (size_t)nv, sizeof(double));
    CHECK(buf);
    double *tau = buf, *extra = buf + nv, *out = buf + 2 * nv, *jac = buf + 3 * nv;
    double point[3] = {0.1, 0.2, 0.3};
    unsigned long long rng = 3;
    gdn_data_reset(m, d);
    for (int i = 0; i < m->nq; i++) {
        d->qpos[i] += gdn_test_uniform(&rng, -0.3, 0.3);
    }
    gdn_normalize_quat(m, d->qpos);
    for (int i = 0; i < nv; i++) {
        d->qvel[i] = gdn_test_uniform(&rng, -1, 1);
        tau[i] = gdn_test_uniform(&rng, -1, 1);
        extra[i] = 0.01;
    }
    gdn_kinematics(m, d);
    CHECK(d->parena == 0);
    gdn_crb(m, d);
    CHECK(d->parena == 0);
    gdn_rne(m, d, 0, out);
    CHECK(d->parena == 0);
    gdn_rne(m, d, 1, out);
    CHECK(d->parena == 0);
    gdn_aba(m, d, tau, NULL, out);
    CHECK(d->parena == 0);
    gdn_aba(m, d, tau, extra, out);
    CHECK(d->parena == 0);
    gdn_passive(m, d);
    CHECK(d->parena == 0);
    gdn_actuation(m, d);
    CHECK(d->parena == 0);
    gdn_energy(m, d);
    CHECK(d->parena == 0);
    gdn_jac(m, d, jac, jac + 3 * nv, point, m->nbody - 1);
    CHECK(d->parena == 0);
    CHECK(gdn_forward(m, d) == GDN_OK);
    CHECK(d->parena == 0);
    CHECK(gdn_inverse(m, d) == GDN_OK);
    CHECK(d->parena == 0);
    CHECK(gdn_step(m, d) == GDN_OK);
    CHECK(d->parena == 0);
    for (int k = 0; k < 3000; k++) {
        CHECK(gdn_forward(m, d) == GDN_OK);
    }
    CHECK(d->parena == 0);
    CHECK(d->warning[GDN_WARN_ARENA] == 0);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static int test_arena_balanced(void) {
    const char* files[] = {"slider.xml", "humanoid32.xml", "ball_chain.xml"};
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        CHECK(arena_model(files[f]) == 0);
    }
    return 0;
}

// ---------------------------------------------------------------- forward outputs

// catches: gdn_forward's qfrc_smooth with the bias added instead of subtracted (qacc comes from
// ABA and stays right, so only the published qfrc_smooth shows it). Also compares qfrc_bias,
// qacc_smooth and qM after gdn_forward, on every test model and MuJoCo's humanoid.
static int forward_outputs_model(const char* path, double* worst) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    int nv = o.gm->nv;
    double* dense = calloc((size_t)nv * (size_t)nv, sizeof(double));
    CHECK(dense);
    unsigned long long rng = 4242;
    for (int s = 0; s < NSAMPLES / 4; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_ALL, 1);
        CHECK(gdn_forward(o.gm, o.gd) == GDN_OK);
        mj_forward(o.mm, o.md);
        gdn_oracle_full_m(&o, dense);
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qfrc_smooth, o.md->qfrc_smooth, nv, 1));
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qfrc_bias, o.md->qfrc_bias, nv, 1));
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qacc_smooth, o.md->qacc_smooth, nv, 1));
        *worst = fmax(*worst, gdn_test_relerr(o.gd->qM, dense, nv * nv, 1));
    }
    free(dense);
    gdn_oracle_free(&o);
    return 0;
}

static int test_forward_outputs_vs_mujoco(void) {
    char path[1024];
    double worst = 0;
    for (int i = 0; i < gdn_oracle_nmodels; i++) {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, gdn_oracle_models[i]);
        CHECK(forward_outputs_model(path, &worst) == 0);
    }
    CHECK(forward_outputs_model(GDN_ORACLE_MJ_HUMANOID, &worst) == 0);
    printf("  qfrc_smooth, qfrc_bias, qacc_smooth, qM after gdn_forward vs MuJoCo: %.2e\n",
           worst);
    CHECK(worst <= 1e-10);
    return 0;
}

// ---------------------------------------------------------------- shapes and frames

// one geom per body (so the body's inertial frame is the geom's): box and ellipsoid given by
// fromto, an ellipsoid with three different radii, a cylinder; sites and geoms rotated in
// their bodies by every orientation form
static const char kShapesXml[] =
    "<mujoco model=\"shapes\">\n"
    "  <compiler angle=\"degree\"/>\n"
    "  <worldbody>\n"
    "    <body name=\"a\" pos=\"0 0 1\">\n"
    "      <joint type=\"ball\"/>\n"
    "      <geom type=\"box\" fromto=\"0 0 0 0.2 0.1 0.3\" size=\"0.05 0.02\" density=\"700\"/>\n"
    "      <site name=\"s1\" pos=\"0.1 0 0\" euler=\"10 20 30\"/>\n"
    "      <body name=\"b\" pos=\"0.2 0.1 0.3\">\n"
    "        <joint type=\"hinge\" axis=\"0 1 0\"/>\n"
    "        <geom type=\"ellipsoid\" fromto=\"0 0 0 0.1 -0.2 0.05\" size=\"0.04 0.03\"/>\n"
    "        <site name=\"s2\" pos=\"0 0.1 0\" axisangle=\"1 1 0 40\"/>\n"
    "        <body name=\"c\" pos=\"0.1 -0.2 0.05\">\n"
    "          <joint type=\"slide\" axis=\"1 0 0\"/>\n"
    "          <geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\" pos=\"0.05 0 0\"\n"
    "                euler=\"15 -25 35\"/>\n"
    "          <site name=\"s3\" pos=\"0 0 0.1\" zaxis=\"1 2 3\"/>\n"
    "          <body name=\"d\" pos=\"0 0 0.3\">\n"
    "            <joint type=\"hinge\" axis=\"1 0 0\"/>\n"
    "            <geom type=\"cylinder\" size=\"0.05 0.1\" pos=\"0 0.02 0\"\n"
    "                  xyaxes=\"0 1 0 -1 0 0.5\" mass=\"0.4\"/>\n"
    "            <site name=\"s4\" pos=\"0.01 0.02 0.03\" quat=\"0.9 0.1 -0.3 0.2\"/>\n"
    "          </body>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

// world inertia tensor R(q) diag(I) R(q)' of a body (independent of the principal-axis order)
static void inertia_tensor(double T[9], const double inertia[3], const double quat[4]) {
    double R[9];
    mju_quat2Mat(R, quat);
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            T[3 * r + c] = 0;
            for (int k = 0; k < 3; k++) {
                T[3 * r + c] += R[3 * r + k] * inertia[k] * R[3 * c + k];
            }
        }
    }
}

// catches: fromto box/ellipsoid sizes not rearranged, ellipsoid inertia axes permuted, site
// frames ignoring the site orientation (compiled sizes, masses, inertia tensors, and the
// geom/site/inertial frames of random configurations against MuJoCo)
static int test_shapes_and_frames_vs_mujoco(void) {
    const char* path = write_model("test_regressions_shapes.xml", kShapesXml);
    CHECK(path);
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    const gdnModel* g = o.gm;
    const mjModel* m = o.mm;
    CHECK(g->ngeom == 4 && g->nsite == 4);
    CHECK_ARRAY_REL(g->geom_size, m->geom_size, 3 * g->ngeom, TOL, 1e-6);
    CHECK_ARRAY_REL(g->geom_pos, m->geom_pos, 3 * g->ngeom, TOL, 1);
    CHECK_ARRAY_REL(g->body_mass, m->body_mass, g->nbody, TOL, 1e-6);
    CHECK_ARRAY_REL(g->body_ipos, m->body_ipos, 3 * g->nbody, TOL, 1);
    for (int b = 0; b < g->nbody; b++) {
        double Tg[9], Tm[9];
        inertia_tensor(Tg, g->body_inertia + 3 * b, g->body_iquat + 4 * b);
        inertia_tensor(Tm, m->body_inertia + 3 * b, m->body_iquat + 4 * b);
        CHECK_ARRAY_REL(Tg, Tm, 9, TOL, 1e-9);
    }
    unsigned long long rng = 8;
    double worst = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS, 1);
        gdn_kinematics(g, o.gd);
        mj_kinematics(o.mm, o.md);
        worst = fmax(worst, gdn_test_relerr(o.gd->geom_xpos, o.md->geom_xpos, 3 * g->ngeom, 1));
        worst = fmax(worst, gdn_test_relerr(o.gd->geom_xmat, o.md->geom_xmat, 9 * g->ngeom, 1));
        worst = fmax(worst, gdn_test_relerr(o.gd->site_xpos, o.md->site_xpos, 3 * g->nsite, 1));
        worst = fmax(worst, gdn_test_relerr(o.gd->site_xmat, o.md->site_xmat, 9 * g->nsite, 1));
        worst = fmax(worst, gdn_test_relerr(o.gd->xipos, o.md->xipos, 3 * g->nbody, 1));
    }
    printf("  geom, site and inertial frames vs MuJoCo: rel error %.2e\n", worst);
    CHECK(worst <= TOL);
    gdn_oracle_free(&o);
    return 0;
}

static const gdnTestCase kCases[] = {
    {"slide_hinge_ref_kinematics", test_slide_hinge_ref_kinematics},
    {"step_nonfinite_qpos", test_step_nonfinite_qpos},
    {"step_nonfinite_ctrl", test_step_nonfinite_ctrl},
    {"huge_ctrl_vs_mujoco", test_huge_ctrl_vs_mujoco},
    {"gravity_disabled_vs_mujoco", test_gravity_disabled_vs_mujoco},
    {"difference_pos_inverts_integrate", test_difference_pos_inverts_integrate},
    {"arena_balanced", test_arena_balanced},
    {"forward_outputs_vs_mujoco", test_forward_outputs_vs_mujoco},
    {"shapes_and_frames_vs_mujoco", test_shapes_and_frames_vs_mujoco},
};

GDN_TEST_MAIN(kCases)
