// SPDX-License-Identifier: Apache-2.0
// Unit tests of kinematics, CRBA, RNEA, ABA and the Euler step on models built in memory.
//
// Models are built with gdn_model_alloc, either by hand (the pendulum) or by copying a compiled
// MuJoCo model field by field (gdn_model_from_mujoco; small MJCF strings below), so these tests
// do not depend on the MJCF loader; MuJoCo 2.2.2 is the oracle for the copied ones. Relative
// errors are ||a - b||_inf / max(||b||_inf, 1).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "model/model_alloc.h"
#include "oracle/from_mujoco.h"
#include "runner/test.h"

// ---------------------------------------------------------------- models

// MJCF of the test models: one feature each
static const char* const kPendulumXml =
    "<mujoco><option timestep='0.002'/><worldbody><body>"
    "<joint type='hinge' axis='0 1 0'/>"
    "<inertial pos='0 0 -0.5' mass='1.3' diaginertia='0.01 0.02 0.03'/>"
    "</body></worldbody></mujoco>";

static const char* const kSlideHingeXml =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body pos='0.1 0.2 0.3' quat='0.9 0.1 0.3 0.2'>"
    "<joint type='slide' axis='1 0.2 0'/>"
    "<inertial pos='0.01 0.02 -0.03' mass='2' fullinertia='0.05 0.04 0.03 0.001 0.002 0.003'/>"
    "<body pos='0.3 0 -0.1' euler='0.3 0.2 0.1'>"
    "<joint type='hinge' axis='0 0.3 1' pos='0.05 0 0.02' armature='0.01' damping='0.3'/>"
    "<inertial pos='0.2 0.01 0' mass='1' diaginertia='0.01 0.03 0.02'/>"
    "<body pos='0.4 0 0'><joint type='hinge' axis='1 0 0' ref='0.3'/>"
    "<joint type='slide' axis='0 1 0' armature='0.02'/>"
    "<inertial pos='0.1 0.1 0' mass='0.5' diaginertia='0.004 0.003 0.005'/>"
    "</body></body></body></worldbody></mujoco>";

static const char* const kBallChainXml =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body><joint type='ball' pos='0 0 0.02' damping='0.05'/>"
    "<inertial pos='0 0 -0.15' mass='1' fullinertia='0.009 0.008 0.004 0.0003 0.0002 -0.0001'/>"
    "<body pos='0 0 -0.3' quat='0.98 0.1 0.15 0'><joint type='ball' armature='0.005' damping='0.02'/>"
    "<inertial pos='0.01 0 -0.14' mass='0.9' diaginertia='0.008 0.0075 0.003'/>"
    "<body pos='0.05 0 -0.28' euler='0.2 0 -0.1'><joint type='slide' axis='0 1 0' stiffness='50'/>"
    "<joint type='ball'/>"
    "<inertial pos='0 0.01 -0.12' mass='0.7' diaginertia='0.005 0.0045 0.003'/>"
    "</body></body></body></worldbody></mujoco>";

static const char* const kFreeBodyXml =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body pos='0.3 -0.2 1' quat='0.8 0.2 0.1 0.3'><freejoint/>"
    "<inertial pos='0.05 -0.02 0.03' quat='0.9 0 0.2 0.1' mass='1.5' "
    "diaginertia='0.04 0.05 0.08'/>"
    "<body pos='0.2 0 0'><joint type='hinge' axis='0 0 1'/>"
    "<inertial pos='0.1 0 0' mass='0.4' diaginertia='0.001 0.002 0.002'/>"
    "<site pos='0.1 0.2 0' quat='0.7 0.7 0 0'/>"
    "</body><body pos='-0.2 0 0.1'>"
    "<inertial pos='0 0 0.05' mass='0.3' diaginertia='0.001 0.001 0.001'/>"
    "<geom type='sphere' size='0.05' pos='0 0.1 0' contype='0' conaffinity='0'/>"
    "</body></body></worldbody></mujoco>";

// several joints of several types on one body, a welded child, a second tree, actuators
static const char* const kMultiJointXml =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body pos='0 0 0.5'>"
    "<joint type='hinge' axis='1 0 0' pos='0 0.1 0' damping='0.1'/>"
    "<joint type='slide' axis='0 0 1' stiffness='5' springref='0.1'/>"
    "<joint type='hinge' axis='0 1 1' armature='0.03'/>"
    "<joint type='ball' pos='0.05 0 0'/>"
    "<inertial pos='0.02 0.03 -0.1' quat='0.6 0.8 0 0' mass='1.2' diaginertia='0.03 0.02 0.01'/>"
    "<body pos='0 0 -0.3' euler='0.1 0.2 0.3'>"
    "<inertial pos='0 0.05 0' mass='0.5' diaginertia='0.003 0.002 0.001'/>"
    "<body pos='0.1 0 0'><joint name='h' type='hinge' axis='0 1 0' pos='0 0 0.05'/>"
    "<inertial pos='0.1 0 0' mass='0.4' diaginertia='0.002 0.002 0.001'/>"
    "</body></body></body>"
    "<body pos='1 0 0'><joint type='hinge' axis='0 1 0'/>"
    "<inertial pos='0 0 -0.2' mass='0.8' diaginertia='0.01 0.01 0.005'/></body>"
    "</worldbody>"
    "<actuator><motor joint='h' gear='2' ctrlrange='-1 1' ctrllimited='true'/></actuator>"
    "</mujoco>";

typedef struct Pair {
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
} Pair;

// compile xml in MuJoCo (constraints disabled) and copy it into a gradyn model
static int pair_load(Pair* p, const char* xml) {
    memset(p, 0, sizeof(*p));
    char err[512] = "";
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    mj_makeEmptyFileVFS(&vfs, "model.xml", (int)strlen(xml));
    memcpy(vfs.filedata[vfs.nfile - 1], xml, strlen(xml));
    p->mm = mj_loadXML("model.xml", &vfs, err, sizeof(err));
    mj_deleteVFS(&vfs);
    if (!p->mm) {
        fprintf(stderr, "MuJoCo: %s\n", err);
        return 1;
    }
    p->mm->opt.disableflags |= mjDSBL_CONSTRAINT;
    p->md = mj_makeData(p->mm);
    p->gm = gdn_model_from_mujoco(p->mm);
    if (!p->gm || gdn_data_create(p->gm, &p->gd) != GDN_OK) {
        return 1;
    }
    return 0;
}

static void pair_free(Pair* p) {
    gdn_data_free(p->gd);
    gdn_model_free(p->gm);
    mj_deleteData(p->md);
    mj_deleteModel(p->mm);
}

// random state in gradyn's data, copied to MuJoCo's: hinge/slide qpos uniform in
// [-2 min(spread, 1), 2 min(spread, 1)], quaternions normalize(identity + spread * uniform(-1, 1)^4) (any
// orientation for spread >= 1), |qvel| <= vscale, ctrl and qfrc_applied
static void random_state(Pair* p, unsigned long long* rng, double spread, double vscale) {
    const gdnModel* m = p->gm;
    gdnData* d = p->gd;
    gdn_data_reset(m, d);
    for (int j = 0; j < m->njnt; j++) {
        double* q = d->qpos + m->jnt_qposadr[j];
        int type = m->jnt_type[j];
        if (type == GDN_JNT_FREE) {
            for (int i = 0; i < 3; i++) {
                q[i] = gdn_test_uniform(rng, -1, 1);
            }
            q += 3;
        }
        if (type == GDN_JNT_FREE || type == GDN_JNT_BALL) {
            for (int i = 0; i < 4; i++) {
                q[i] = (i == 0) + spread * gdn_test_uniform(rng, -1, 1);
            }
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int i = 0; i < 4; i++) {
                q[i] /= n;
            }
        } else {
            q[0] = gdn_test_uniform(rng, -2 * fmin(spread, 1), 2 * fmin(spread, 1));
        }
    }
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(rng, -vscale, vscale);
        d->qfrc_applied[i] = gdn_test_uniform(rng, -1, 1);
    }
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = gdn_test_uniform(rng, -1.5, 1.5);
    }
    mj_resetData(p->mm, p->md);
    memcpy(p->md->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(p->md->qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(p->md->ctrl, d->ctrl, sizeof(double) * (size_t)m->nu);
    memcpy(p->md->qfrc_applied, d->qfrc_applied, sizeof(double) * (size_t)m->nv);
}

static const char* const kModels[] = {kPendulumXml, kSlideHingeXml, kBallChainXml, kFreeBodyXml,
                                      kMultiJointXml};
static const char* const kModelNames[] = {"pendulum", "slide_hinge", "ball_chain", "free_body",
                                          "multi_joint"};
#define NMODELS ((int)(sizeof(kModels) / sizeof(kModels[0])))
#define NSAMPLES 50

// ---------------------------------------------------------------- closed forms

// hand-built pendulum: hinge about y at the origin, COM at (0, 0, -l):
// qacc = -m g l sin(q) / (I_yy + m l^2)
static int test_pendulum_closed_form(void) {
    gdnModelSizes sz = {.nq = 1, .nv = 1, .nbody = 2, .njnt = 1, .nnames = 1};
    gdnModel* m = gdn_model_alloc(&sz);
    CHECK(m);
    const double mass = 1.3, l = 0.5, iyy = 0.02, g = 9.81;
    m->opt.timestep = 0.002;
    m->opt.gravity[2] = -g;
    m->body_parentid[1] = 0;
    m->body_rootid[1] = 1;
    m->body_weldid[1] = 1;
    m->body_jntnum[1] = 1;
    m->body_jntadr[0] = -1;
    m->body_dofadr[0] = -1;
    m->body_dofnum[1] = 1;
    m->body_geomadr[0] = m->body_geomadr[1] = -1;
    for (int b = 0; b < 2; b++) {
        m->body_quat[4 * b] = 1;
        m->body_iquat[4 * b] = 1;
    }
    m->body_ipos[3 + 2] = -l;
    m->body_mass[1] = mass;
    m->body_subtreemass[0] = m->body_subtreemass[1] = mass;
    m->body_inertia[3] = 0.01;
    m->body_inertia[4] = iyy;
    m->body_inertia[5] = 0.03;
    m->jnt_type[0] = GDN_JNT_HINGE;
    m->jnt_bodyid[0] = 1;
    m->jnt_axis[1] = 1;
    m->dof_bodyid[0] = 1;
    m->dof_parentid[0] = -1;
    m->names[0] = 0;
    gdnData* d;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int k = 0; k < 8; k++) {
        double q = -3 + 0.8 * k;
        d->qpos[0] = q;
        d->qvel[0] = 0.1 * k;
        CHECK(gdn_forward(m, d) == GDN_OK);
        double expect = -mass * g * l * sin(q) / (iyy + mass * l * l);
        CHECK_NEAR(d->qacc[0], expect, 1e-14, 1e-14);
        CHECK_NEAR(d->qM[0], iyy + mass * l * l, 1e-15, 0);
        CHECK_NEAR(d->qfrc_bias[0], mass * g * l * sin(q), 1e-14, 1e-14);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// a free body (no joints below it) falls with qacc = (g, 0) exactly; positions follow
// MuJoCo's semi-implicit Euler: v_n = n h g, p_n = p_0 + h^2 g n (n + 1) / 2
static int test_free_fall(void) {
    Pair p;
    CHECK(pair_load(&p,
                    "<mujoco><option timestep='0.002'/><worldbody><body pos='0 0 1'>"
                    "<freejoint/><inertial pos='0.1 0 0' mass='2' diaginertia='0.1 0.2 0.3'/>"
                    "</body></worldbody></mujoco>") == 0);
    gdnData* d = p.gd;
    const double h = p.gm->opt.timestep, g = p.gm->opt.gravity[2];
    for (int n = 1; n <= 500; n++) {
        CHECK(gdn_step(p.gm, d) == GDN_OK);
        CHECK(d->qacc[0] == 0 && d->qacc[1] == 0 && d->qacc[2] == g);
        CHECK(d->qacc[3] == 0 && d->qacc[4] == 0 && d->qacc[5] == 0);
    }
    CHECK_NEAR(d->qvel[2], 500 * h * g, 1e-12, 0);
    CHECK_NEAR(d->qpos[2], 1 + h * h * g * 500 * 501 / 2, 1e-12, 0);
    CHECK(d->qpos[3] == 1 && d->qpos[4] == 0 && d->qpos[5] == 0 && d->qpos[6] == 0);
    pair_free(&p);
    return 0;
}

// a torque-free tumbling body keeps a unit quaternion over 10^4 steps
static int test_spinning_body_unit_quat(void) {
    Pair p;
    CHECK(pair_load(&p, "<mujoco><option timestep='0.002' gravity='0 0 0'/><worldbody><body>"
                        "<freejoint/><inertial pos='0 0 0' mass='1' diaginertia='0.1 0.2 0.3'/>"
                        "</body></worldbody></mujoco>") == 0);
    gdnData* d = p.gd;
    d->qvel[3] = 3;
    d->qvel[4] = 0.2;
    d->qvel[5] = -1;
    double worst = 0;
    for (int n = 0; n < 10000; n++) {
        CHECK(gdn_step(p.gm, d) == GDN_OK);
        const double* q = d->qpos + 3;
        double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        worst = fmax(worst, fabs(norm - 1));
    }
    CHECK(worst <= 1e-12);
    pair_free(&p);
    return 0;
}

// implicit damping: a hinge with damping b and no other force, one step gives
// v' = v M / (M + h b)
static int test_implicit_damping(void) {
    Pair p;
    CHECK(pair_load(&p, "<mujoco><option timestep='0.01' gravity='0 0 0'/><worldbody><body>"
                        "<joint type='hinge' axis='0 0 1' damping='2.5' armature='0.1'/>"
                        "<inertial pos='0.3 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
                        "</body></worldbody></mujoco>") == 0);
    gdnData* d = p.gd;
    d->qvel[0] = 1.7;
    const double M = 0.01 + 1 * 0.3 * 0.3 + 0.1, h = 0.01, b = 2.5;
    CHECK(gdn_step(p.gm, d) == GDN_OK);
    CHECK_NEAR(d->qvel[0], 1.7 * M / (M + h * b), 1e-15, 0);
    CHECK_NEAR(d->qpos[0], h * 1.7 * M / (M + h * b), 1e-15, 0);
    pair_free(&p);
    return 0;
}

// non-finite input is rejected and leaves the state unchanged
static int test_step_rejects_nonfinite(void) {
    Pair p;
    CHECK(pair_load(&p, kBallChainXml) == 0);
    gdnData* d = p.gd;
    d->qvel[1] = NAN;
    double q0 = d->qpos[0];
    CHECK(gdn_step(p.gm, d) == GDN_ERR_NONFINITE);
    CHECK(d->warning[GDN_WARN_BADQVEL] == 1 && d->time == 0 && d->qpos[0] == q0);
    d->qvel[1] = 0;
    d->qpos[0] = 0.3; // not unit: the rollback must restore it unnormalized
    p.gm->dof_armature[0] = NAN;
    CHECK(gdn_step(p.gm, d) == GDN_ERR_NONFINITE);
    CHECK(d->warning[GDN_WARN_BADQACC] == 1 && d->time == 0 && d->qpos[0] == 0.3);
    p.gm->dof_armature[0] = 0;
    CHECK(gdn_step(p.gm, d) == GDN_OK);
    pair_free(&p);
    return 0;
}

// ---------------------------------------------------------------- identities

// ABA(q, v, RNEA(q, v, a)) == a; RNEA(q, v, ABA(q, v, tau)) == tau; qM qacc + qfrc_bias == tau; qM symmetric positive definite
static int test_identities(void) {
    unsigned long long rng = 12345;
    for (int k = 0; k < NMODELS; k++) {
        Pair p;
        CHECK(pair_load(&p, kModels[k]) == 0);
        const gdnModel* m = p.gm;
        gdnData* d = p.gd;
        int nv = m->nv;
        double* tau = calloc((size_t)nv, sizeof(double));
        double* acc = calloc((size_t)nv, sizeof(double));
        double* mv = calloc((size_t)nv, sizeof(double));
        double* L = calloc((size_t)nv * (size_t)nv, sizeof(double));
        double worst_aba = 0, worst_rne = 0, worst_crb = 0, worst_sym = 0;
        for (int s = 0; s < NSAMPLES; s++) {
            random_state(&p, &rng, 1e3, 2);
            CHECK(gdn_forward(m, d) == GDN_OK);
            // inverse then forward
            for (int i = 0; i < nv; i++) {
                d->qacc[i] = gdn_test_uniform(&rng, -3, 3);
            }
            memcpy(acc, d->qacc, sizeof(double) * (size_t)nv);
            gdn_rne(m, d, 1, tau);
            double back[64], tau2[64];
            gdn_aba(m, d, tau, NULL, back);
            worst_aba = fmax(worst_aba, gdn_test_relerr(back, acc, nv, 1));
            // forward then inverse: backward stable, so tight in force space
            memcpy(d->qacc, back, sizeof(double) * (size_t)nv);
            gdn_rne(m, d, 1, tau2);
            worst_rne = fmax(worst_rne, gdn_test_relerr(tau2, tau, nv, 1));
            // M qacc + C = tau
            for (int i = 0; i < nv; i++) {
                mv[i] = d->qfrc_bias[i];
                for (int j = 0; j < nv; j++) {
                    mv[i] += d->qM[i * nv + j] * acc[j];
                }
            }
            worst_crb = fmax(worst_crb, gdn_test_relerr(mv, tau, nv, 1));
            // symmetric, and Cholesky succeeds
            for (int i = 0; i < nv; i++) {
                for (int j = 0; j < nv; j++) {
                    worst_sym = fmax(worst_sym, fabs(d->qM[i * nv + j] - d->qM[j * nv + i]));
                }
            }
            for (int j = 0; j < nv; j++) {
                double diag = d->qM[j * nv + j];
                for (int t = 0; t < j; t++) {
                    diag -= L[j * nv + t] * L[j * nv + t];
                }
                CHECK(diag > 0);
                L[j * nv + j] = sqrt(diag);
                for (int i = j + 1; i < nv; i++) {
                    double x = d->qM[i * nv + j];
                    for (int t = 0; t < j; t++) {
                        x -= L[i * nv + t] * L[j * nv + t];
                    }
                    L[i * nv + j] = x / L[j * nv + j];
                }
            }
        }
        printf("  %-12s ABA(RNEA(a)) %.1e  RNEA(ABA(tau)) %.1e  M a + C %.1e  asym %.1e\n",
               kModelNames[k], worst_aba, worst_rne, worst_crb, worst_sym);
        // ABA(RNEA(a)) loses cond(M) digits; the force-space identities do not
        CHECK(worst_aba <= 1e-9 && worst_rne <= 1e-12 && worst_crb <= 1e-12 && worst_sym == 0);
        free(tau);
        free(acc);
        free(mv);
        free(L);
        pair_free(&p);
    }
    return 0;
}

// ---------------------------------------------------------------- MuJoCo oracle

// kinematics, qM, qfrc_bias, qacc_smooth and qfrc_inverse against MuJoCo on random states
static int test_against_mujoco(void) {
    unsigned long long rng = 777;
    for (int k = 0; k < NMODELS; k++) {
        Pair p;
        CHECK(pair_load(&p, kModels[k]) == 0);
        const gdnModel* m = p.gm;
        gdnData* d = p.gd;
        mjModel* mm = p.mm;
        mjData* md = p.md;
        int nv = m->nv;
        double* full = calloc((size_t)nv * (size_t)nv, sizeof(double));
        double e_kin = 0, e_m = 0, e_bias = 0, e_acc = 0, e_inv = 0;
        for (int s = 0; s < NSAMPLES; s++) {
            random_state(&p, &rng, 1e3, 2);
            mj_forward(mm, md);
            CHECK(gdn_forward(m, d) == GDN_OK);
            e_kin = fmax(e_kin, gdn_test_relerr(d->xpos, md->xpos, 3 * m->nbody, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->xquat, md->xquat, 4 * m->nbody, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->xipos, md->xipos, 3 * m->nbody, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->ximat, md->ximat, 9 * m->nbody, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->xanchor, md->xanchor, 3 * m->njnt, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->xaxis, md->xaxis, 3 * m->njnt, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->subtree_com, md->subtree_com, 3 * m->nbody, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->geom_xmat, md->geom_xmat, 9 * m->ngeom, 1));
            e_kin = fmax(e_kin, gdn_test_relerr(d->site_xpos, md->site_xpos, 3 * m->nsite, 1));
            mj_fullM(mm, full, md->qM);
            e_m = fmax(e_m, gdn_test_relerr(d->qM, full, nv * nv, 1));
            e_bias = fmax(e_bias, gdn_test_relerr(d->qfrc_bias, md->qfrc_bias, nv, 1));
            e_acc = fmax(e_acc, gdn_test_relerr(d->qacc, md->qacc_smooth, nv, 1));
            // inverse dynamics at a random acceleration
            for (int i = 0; i < nv; i++) {
                d->qacc[i] = md->qacc[i] = gdn_test_uniform(&rng, -3, 3);
            }
            mj_inverse(mm, md);
            CHECK(gdn_inverse(m, d) == GDN_OK);
            e_inv = fmax(e_inv, gdn_test_relerr(d->qfrc_inverse, md->qfrc_inverse, nv, 1));
        }
        printf("  %-12s kin %.1e  qM %.1e  bias %.1e  qacc %.1e  inverse %.1e\n", kModelNames[k],
               e_kin, e_m, e_bias, e_acc, e_inv);
        CHECK(e_kin <= 1e-14 && e_m <= 1e-12 && e_bias <= 1e-12 && e_acc <= 1e-10 &&
              e_inv <= 1e-12);
        free(full);
        pair_free(&p);
    }
    return 0;
}

// 1000-step rollouts against mj_step (Euler, constraints disabled). Chaotic models amplify
// round-off exponentially (multi_joint: 3e-17 after 10 steps, 4e-14 after 300, 6e-8 after
// 1000), so the bound is max(1e-9, 10 x MuJoCo's own divergence from a copy of itself whose
// qvel was perturbed by 1e-13)
static int test_rollout_against_mujoco(void) {
    unsigned long long rng = 99;
    for (int k = 0; k < NMODELS; k++) {
        Pair p;
        CHECK(pair_load(&p, kModels[k]) == 0);
        const gdnModel* m = p.gm;
        gdnData* d = p.gd;
        random_state(&p, &rng, 0.3, 1);
        // a constant applied torque would spin the light bodies up until Euler diverges
        memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
        memset(p.md->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
        mjData* twin = mj_copyData(NULL, p.mm, p.md);
        for (int i = 0; i < m->nv; i++) {
            twin->qvel[i] += 1e-13;
        }
        double* dq = calloc((size_t)m->nv, sizeof(double));
        double worst_q = 0, worst_v = 0, self_q = 0, self_v = 0;
        for (int n = 0; n < 1000; n++) {
            mj_step(p.mm, p.md);
            mj_step(p.mm, twin);
            CHECK(gdn_step(m, d) == GDN_OK);
            mj_differentiatePos(p.mm, dq, 1, p.md->qpos, d->qpos);
            for (int i = 0; i < m->nv; i++) {
                worst_q = fmax(worst_q, fabs(dq[i]));
            }
            worst_v = fmax(worst_v, gdn_test_relerr(d->qvel, p.md->qvel, m->nv, 1));
            mj_differentiatePos(p.mm, dq, 1, p.md->qpos, twin->qpos);
            for (int i = 0; i < m->nv; i++) {
                self_q = fmax(self_q, fabs(dq[i]));
            }
            self_v = fmax(self_v, gdn_test_relerr(twin->qvel, p.md->qvel, m->nv, 1));
        }
        printf("  %-12s 1000 steps: |dq| %.1e  qvel %.1e   MuJoCo vs its perturbed self: "
               "|dq| %.1e  qvel %.1e\n",
               kModelNames[k], worst_q, worst_v, self_q, self_v);
        CHECK(worst_q <= fmax(1e-9, 10 * self_q) && worst_v <= fmax(1e-9, 10 * self_v));
        CHECK(fabs(d->time - p.md->time) <= 1e-12);
        free(dq);
        mj_deleteData(twin);
        pair_free(&p);
    }
    return 0;
}

static const gdnTestCase kCases[] = {
    {"pendulum_closed_form", test_pendulum_closed_form},
    {"free_fall", test_free_fall},
    {"spinning_body_unit_quat", test_spinning_body_unit_quat},
    {"implicit_damping", test_implicit_damping},
    {"step_rejects_nonfinite", test_step_rejects_nonfinite},
    {"identities", test_identities},
    {"against_mujoco", test_against_mujoco},
    {"rollout_against_mujoco", test_rollout_against_mujoco},
};

int main(int argc, char** argv) {
    return gdn_test_main(argc, argv, kCases, (int)(sizeof(kCases) / sizeof(kCases[0])));
}
