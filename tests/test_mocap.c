// SPDX-License-Identifier: Apache-2.0
// Mocap bodies against MuJoCo 2.2.2: the compiled fields and keyframes, the loader's refusals,
// rollouts with moving mocap bodies (a weld to one, a mocap paddle pushing a free box, under
// Euler and RK4), and the derivatives with the mocap poses held (JVP vs FD, the trajectory
// adjoint with gdnRollout.mocap_pos vs FD).
//
// Tolerances: compiled fields equal (the same arithmetic: copies and one normalization);
// rollouts within 1e-6 in the tangent-space inf norm over 300 steps (test_contact_rollout's
// bound: the solves agree to their tolerance); derivative checks as test_rk4's (relative 1e-6,
// Newton at tolerance 1e-12, warm start off, Richardson's fourth-order quotient at 1e-5).
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "runner/test.h"

// a free box held by a weld to a mocap body, and a second free box pushed by a mocap paddle
static const char kScene[] =
    "<mujoco>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 0.1'/>\n"
    "    <body name='hand' mocap='true' pos='0 0 1' quat='2 0 0 0'>\n"
    "      <geom type='sphere' size='0.05' contype='0' conaffinity='0'/>\n"
    "    </body>\n"
    "    <body name='held' pos='0 0 0.8'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.1 0.05 0.05' mass='0.5'/>\n"
    "    </body>\n"
    "    <body name='paddle' mocap='true' pos='-0.3 1 0.1'>\n"
    "      <geom type='box' size='0.02 0.2 0.1'/>\n"
    "    </body>\n"
    "    <body name='pushed' pos='0 1 0.1'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.1 0.1 0.1' mass='1'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <equality>\n"
    "    <weld body1='held' body2='hand' solref='0.02 1'/>\n"
    "  </equality>\n"
    "  <keyframe>\n"
    "    <key name='k' mpos='0.1 0.2 1.1 -0.4 1 0.1' mquat='0 1 0 0 1 0 0 0'/>\n"
    "  </keyframe>\n"
    "</mujoco>\n";

static int load_both(const char* xml, gdnModel** gm, mjModel** mm) {
    char err[1024];
    *gm = NULL;
    *mm = NULL;
    if (gdn_load_xml_string(xml, strlen(xml), NULL, gm, err, sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "gradyn: %s\n", err);
        return 1;
    }
    *mm = gdn_oracle_mj_from_string(xml);
    return *mm ? 0 : 1;
}

static int test_compiled(void) {
    gdnModel* gm;
    mjModel* mm;
    CHECK(load_both(kScene, &gm, &mm) == 0);
    CHECK(gm->nmocap == 2 && mm->nmocap == 2);
    for (int b = 0; b < gm->nbody; b++) {
        CHECK(gm->body_mocapid[b] == mm->body_mocapid[b]);
        CHECK(gm->body_weldid[b] == mm->body_weldid[b]);
    }
    CHECK(memcmp(gm->key_mpos, mm->key_mpos, sizeof(double) * 6) == 0);
    CHECK(memcmp(gm->key_mquat, mm->key_mquat, sizeof(double) * 8) == 0);
    gdnData* d = NULL;
    CHECK(gdn_data_create(gm, &d) == GDN_OK);
    mjData* md = mj_makeData(mm);
    // reset: the bodies' own poses; keyframe: the key's
    CHECK(memcmp(d->mocap_pos, md->mocap_pos, sizeof(double) * 6) == 0);
    CHECK(memcmp(d->mocap_quat, md->mocap_quat, sizeof(double) * 8) == 0);
    CHECK(gdn_data_reset_keyframe(gm, d, 0) == GDN_OK);
    mj_resetDataKeyframe(mm, md, 0);
    CHECK(memcmp(d->mocap_pos, md->mocap_pos, sizeof(double) * 6) == 0);
    CHECK(memcmp(d->mocap_quat, md->mocap_quat, sizeof(double) * 8) == 0);
    // kinematics from an unnormalized mocap quaternion: normalized in place, frames equal
    d->mocap_quat[4] = 0.3;
    d->mocap_quat[5] = 0.4;
    d->mocap_quat[6] = 0.1;
    d->mocap_quat[7] = -0.8;
    memcpy(md->mocap_quat, d->mocap_quat, sizeof(double) * 8);
    gdn_kinematics(gm, d);
    mj_kinematics(mm, md);
    CHECK(memcmp(d->mocap_quat, md->mocap_quat, sizeof(double) * 8) == 0);
    CHECK_ARRAY_REL(d->xpos, md->xpos, 3 * gm->nbody, 1e-15, 1);
    CHECK_ARRAY_REL(d->xquat, md->xquat, 4 * gm->nbody, 1e-15, 1);
    CHECK_ARRAY_REL(d->geom_xpos, md->geom_xpos, 3 * gm->ngeom, 1e-15, 1);
    mj_deleteData(md);
    gdn_data_free(d);
    gdn_model_free(gm);
    mj_deleteModel(mm);
    return 0;
}

// MuJoCo refuses a mocap body that is not a fixed child of the world; so does gradyn, by name
static int test_refused(void) {
    static const char* const bad[] = {
        "<mujoco><worldbody><body><joint/><geom size='0.1'/>"
        "<body name='m' mocap='true'><geom size='0.1'/></body></body></worldbody></mujoco>",
        "<mujoco><worldbody><body name='m' mocap='true'><joint/><geom size='0.1'/></body>"
        "</worldbody></mujoco>",
    };
    for (int i = 0; i < 2; i++) {
        gdnModel* m = NULL;
        char err[1024];
        CHECK(gdn_load_xml_string(bad[i], strlen(bad[i]), NULL, &m, err, sizeof(err), NULL, 0) ==
              GDN_ERR_MODEL);
        CHECK(strstr(err, "mocap body 'm' is not a fixed child of world") != NULL);
        CHECK(strstr(err, "<string>:1") != NULL);
        CHECK(gdn_oracle_mj_from_string(bad[i]) == NULL);
    }
    return 0;
}

// the mocap poses at step k: the hand circles, the paddle sweeps in +x, both turn
static void mocap_path(int k, double* pos, double* quat) {
    const double t = 0.002 * k;
    pos[0] = 0.2 * sin(3 * t);
    pos[1] = 0.2 * cos(3 * t) - 0.2;
    pos[2] = 1 + 0.1 * t;
    pos[3] = -0.3 + 0.6 * t;
    pos[4] = 1;
    pos[5] = 0.1;
    quat[0] = cos(0.5 * t);
    quat[1] = sin(0.5 * t);
    quat[2] = quat[3] = 0;
    quat[4] = cos(0.2 * t);
    quat[5] = quat[6] = 0;
    quat[7] = sin(0.2 * t);
}

static int rollout(int rk4) {
    gdnModel* gm;
    mjModel* mm;
    CHECK(load_both(kScene, &gm, &mm) == 0);
    gm->opt.integrator = rk4 ? GDN_INT_RK4 : GDN_INT_EULER;
    mm->opt.integrator = rk4 ? mjINT_RK4 : mjINT_EULER;
    gdnData* d = NULL;
    CHECK(gdn_data_create(gm, &d) == GDN_OK);
    mjData* md = mj_makeData(mm);
    double worst = 0, dq[64];
    int maxcon = 0;
    for (int k = 0; k < 300; k++) {
        mocap_path(k, d->mocap_pos, d->mocap_quat);
        memcpy(md->mocap_pos, d->mocap_pos, sizeof(double) * 6);
        memcpy(md->mocap_quat, d->mocap_quat, sizeof(double) * 8);
        CHECK(gdn_step(gm, d) == GDN_OK);
        mj_step(mm, md);
        mj_differentiatePos(mm, dq, 1.0, md->qpos, d->qpos);
        for (int i = 0; i < mm->nv; i++) {
            worst = gdn_oracle_worst(worst, fabs(dq[i]));
        }
        maxcon = d->ncon > maxcon ? d->ncon : maxcon;
    }
    printf("  %s: 300 steps, up to %d contacts, weld and moving paddle: worst qpos distance "
           "%.2e\n",
           rk4 ? "RK4" : "Euler", maxcon, worst);
    // the paddle reached the pushed box: it moved in +x
    CHECK(d->qpos[7] > 0.01);
    mj_deleteData(md);
    gdn_data_free(d);
    gdn_model_free(gm);
    mj_deleteModel(mm);
    CHECK(maxcon > 0);
    CHECK(worst <= 1e-6);
    return 0;
}

static int test_rollout_euler(void) {
    return rollout(0);
}

static int test_rollout_rk4(void) {
    return rollout(1);
}

// a non-finite mocap pose is refused before anything changes
static int test_nonfinite(void) {
    gdnModel* gm;
    mjModel* mm;
    CHECK(load_both(kScene, &gm, &mm) == 0);
    gdnData* d = NULL;
    CHECK(gdn_data_create(gm, &d) == GDN_OK);
    d->mocap_pos[1] = NAN;
    const double q = d->qpos[2];
    CHECK(gdn_step(gm, d) == GDN_ERR_NONFINITE);
    CHECK(d->qpos[2] == q && d->time == 0);
    gdn_data_free(d);
    gdn_model_free(gm);
    mj_deleteModel(mm);
    return 0;
}

// J(v0) of a rollout with the mocap poses given (held) and its adjoint
static int test_adjoint(void) {
    gdnModel* gm;
    mjModel* mm;
    CHECK(load_both(kScene, &gm, &mm) == 0);
    mj_deleteModel(mm);
    gm->opt.tolerance = 1e-12;
    gm->opt.iterations = 1000;
    gm->opt.disableflags |= GDN_DSBL_WARMSTART;
    const int T = 40, nq = gm->nq, nv = gm->nv;
    gdnData* d = NULL;
    CHECK(gdn_data_create(gm, &d) == GDN_OK);
    double mpos[6], mquat[8];
    mocap_path(60, mpos, mquat);
    double* v0 = calloc((size_t)nv * 3, sizeof(double));
    double* g = v0 + nv;
    for (int i = 0; i < nv; i++) {
        v0[i] = 0.1 * sin(1.0 + i);
    }
    gdnRollout r;
    gdn_rollout_init(gm, T, &r);
    r.qpos0 = d->qpos;
    r.qvel0 = v0;
    r.mocap_pos = mpos;
    r.mocap_quat = mquat;
    gdnTargetObjective spec = {.body = 2, .point = {0, 0, 0}, .target = {0.1, 0.0, 0.9},
                               .weight = 1, .vel_weight = 1e-2};
    gdnObjective obj;
    CHECK(gdn_objective_target(gm, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(gm, T, 1, &tape, NULL, 0) == GDN_OK);
    char err[512];
    gdnAdjointGradients out = {.qvel0 = g};
    CHECK(gdn_adjoint_rollout_gradient(gm, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);
    // the mocap poses matter: the same rollout with the model's own poses differs
    gdnRollout r0 = r;
    r0.mocap_pos = r0.mocap_quat = NULL;
    double J0 = 0;
    CHECK(gdn_rollout_objective(gm, &r0, &obj, tape, &J0, err, sizeof(err)) == GDN_OK);
    CHECK(fabs(J0 - out.J) > 1e-6);
    double worst = 0, scale = 0;
    for (int i = 0; i < nv; i++) {
        scale = fmax(scale, fabs(g[i]));
    }
    for (int i = 0; i < nv; i++) {
        const double keep = v0[i], eps = 1e-5;
        double J[4];
        const double s[4] = {eps, -eps, 2 * eps, -2 * eps};
        for (int k = 0; k < 4; k++) {
            v0[i] = keep + s[k];
            CHECK(gdn_rollout_objective(gm, &r, &obj, tape, &J[k], err, sizeof(err)) == GDN_OK);
        }
        v0[i] = keep;
        const double d1 = (J[0] - J[1]) / (2 * eps), d2 = (J[2] - J[3]) / (4 * eps);
        worst = gdn_oracle_worst(worst, fabs((4 * d1 - d2) / 3 - g[i]) / scale);
    }
    printf("  %d steps, weld to a posed mocap body: dJ/dv0 vs FD %.2e\n", T, worst);
    (void)nq;
    gdn_tape_free(tape);
    free(v0);
    gdn_data_free(d);
    gdn_model_free(gm);
    CHECK(worst <= 1e-6);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"compiled", test_compiled},         {"refused", test_refused},
        {"rollout_euler", test_rollout_euler}, {"rollout_rk4", test_rollout_rk4},
        {"nonfinite", test_nonfinite},       {"adjoint", test_adjoint},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
