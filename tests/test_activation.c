// SPDX-License-Identifier: Apache-2.0
// Actuator dynamics against MuJoCo 2.2.2: the compiled actuator constants (dyntype, dynprm,
// muscle parameters, activation limits, acc0, the simulated muscle length ranges), act_dot,
// actuator forces and qacc at random states (act included), rollouts under Euler and RK4 with
// activation clamping, keyframe activations, and the compiler's refusals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/test.h"

#define MODEL GDN_TEST_MODELS "/act_arm.xml"
#define NSAMPLES 100
// the same formulas evaluated in the same order up to the solves of M: a few ulps of the
// largest entry
#define TOL 1e-12
// acc0: the same solve of M (measured 0)
#define TOL_ACC0 1e-12
// a simulated length range is the extreme of a 1000-step rollout of the free arm pushed
// against its geometry: it is as sensitive as that rollout. The bound is 100 times MuJoCo's own
// change of the range after a 1e-12 change of qpos0 (measured in the test), at least 1e-12
#define LR_PERTURB 1e-12
// a 2000-step rollout of this damped arm (measured below 1e-11); the bound is 1e-6
#define TOL_ROLLOUT 1e-6

// ||a - b||_inf / max(||b||_inf, 1)
static double rel(const double* a, const double* b, int n) {
    return gdn_test_relerr(a, b, n, 1);
}

static int compiled_constants(void) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, MODEL) == 0);
    const gdnModel* gm = o.gm;
    const mjModel* mm = o.mm;
    CHECK(gm->nu == mm->nu && gm->na == mm->na && gm->na == 7);
    double worst = 0;
    for (int i = 0; i < gm->nu; i++) {
        CHECK(gm->actuator_dyntype[i] == mm->actuator_dyntype[i]);
        CHECK(gm->actuator_gaintype[i] == mm->actuator_gaintype[i]);
        CHECK(gm->actuator_biastype[i] == mm->actuator_biastype[i]);
        CHECK(gm->actuator_actlimited[i] == mm->actuator_actlimited[i]);
        CHECK(gm->actuator_ctrllimited[i] == mm->actuator_ctrllimited[i]);
        CHECK(gm->actuator_forcelimited[i] == mm->actuator_forcelimited[i]);
        CHECK(!memcmp(gm->actuator_dynprm + GDN_NDYN * i, mm->actuator_dynprm + mjNDYN * i,
                      GDN_NDYN * sizeof(double)));
        CHECK(!memcmp(gm->actuator_gainprm + GDN_NGAIN * i, mm->actuator_gainprm + mjNGAIN * i,
                      GDN_NGAIN * sizeof(double)));
        CHECK(!memcmp(gm->actuator_biasprm + GDN_NBIAS * i, mm->actuator_biasprm + mjNBIAS * i,
                      GDN_NBIAS * sizeof(double)));
        CHECK(!memcmp(gm->actuator_actrange + 2 * i, mm->actuator_actrange + 2 * i,
                      2 * sizeof(double)));
        CHECK(!memcmp(gm->actuator_lengthrange + 2 * i, mm->actuator_lengthrange + 2 * i,
                      2 * sizeof(double)) ||
              i == 6); // muscle_spatial's is simulated: below
        worst = gdn_oracle_worst(worst, rel(gm->actuator_acc0 + i, mm->actuator_acc0 + i, 1));
    }
    CHECK(worst <= TOL_ACC0);
    // MuJoCo's own range of muscle_spatial from qpos0 + 1e-12 (its compiler's LengthRange
    // options: these disabled, timestep 0.01)
    mjModel* mc = mj_copyModel(NULL, mm);
    CHECK(mc);
    mc->qpos0[0] += LR_PERTURB;
    mc->opt.disableflags = mjDSBL_FRICTIONLOSS | mjDSBL_CONTACT | mjDSBL_PASSIVE |
                           mjDSBL_GRAVITY | mjDSBL_ACTUATION;
    mc->opt.timestep = 0.01;
    mjLROpt lr;
    mj_defaultLROpt(&lr);
    lr.useexisting = 0;
    mjData* dc = mj_makeData(mc);
    char err[200] = "";
    CHECK(dc && mj_setLengthRange(mc, dc, 6, &lr, err, (int)sizeof err));
    const double self = rel(mc->actuator_lengthrange + 12, mm->actuator_lengthrange + 12, 2);
    const double ours = rel(gm->actuator_lengthrange + 12, mm->actuator_lengthrange + 12, 2);
    mj_deleteData(dc);
    mj_deleteModel(mc);
    printf("  acc0 vs MuJoCo %.1e; muscle_spatial's simulated length range [%.9f, %.9f] vs "
           "MuJoCo's %.1e (MuJoCo vs itself after a 1e-12 change of qpos0: %.1e)\n",
           worst, gm->actuator_lengthrange[12], gm->actuator_lengthrange[13], ours, self);
    CHECK(ours <= fmax(100 * self, 1e-12));
    // the keyframe's activations
    CHECK(gdn_data_reset_keyframe(gm, o.gd, 0) == GDN_OK);
    mj_resetDataKeyframe(mm, o.md, 0);
    CHECK(!memcmp(o.gd->act, o.md->act, (size_t)gm->na * sizeof(double)));
    gdn_oracle_free(&o);
    return 0;
}

// random state with act drawn in [-1.5, 1.5] (beyond every actrange: the clamps engage)
static void random_state(gdnOracle* o, unsigned long long* rng) {
    gdn_oracle_random_state(o, rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 2.0);
    for (int j = 0; j < o->gm->na; j++) {
        o->gd->act[j] = o->md->act[j] = gdn_test_uniform(rng, -1.5, 1.5);
    }
}

// the force laws at MuJoCo's compiled length ranges (their own agreement: compiled_constants)
static int forward_random_states(void) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, MODEL) == 0);
    memcpy(o.gm->actuator_lengthrange, o.mm->actuator_lengthrange,
           2 * sizeof(double) * (size_t)o.gm->nu);
    const int nu = o.gm->nu, na = o.gm->na, nv = o.gm->nv;
    unsigned long long rng = 0xac7ac7ULL;
    double e_len = 0, e_force = 0, e_adot = 0, e_qfrc = 0, e_qacc = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        random_state(&o, &rng);
        CHECK(gdn_forward(o.gm, o.gd) == GDN_OK);
        mj_forward(o.mm, o.md);
        e_len = gdn_oracle_worst(e_len, rel(o.gd->actuator_length, o.md->actuator_length, nu));
        e_force = gdn_oracle_worst(e_force, rel(o.gd->actuator_force, o.md->actuator_force, nu));
        e_adot = gdn_oracle_worst(e_adot, rel(o.gd->act_dot, o.md->act_dot, na));
        e_qfrc = gdn_oracle_worst(e_qfrc, rel(o.gd->qfrc_actuator, o.md->qfrc_actuator, nv));
        e_qacc = gdn_oracle_worst(e_qacc, rel(o.gd->qacc, o.md->qacc, nv));
    }
    printf("  %d random states: actuator_length %.1e, actuator_force %.1e, act_dot %.1e, "
           "qfrc_actuator %.1e, qacc %.1e\n",
           NSAMPLES, e_len, e_force, e_adot, e_qfrc, e_qacc);
    CHECK(e_len <= TOL && e_force <= TOL && e_adot <= TOL && e_qfrc <= TOL && e_qacc <= TOL);
    CHECK(gdn_oracle_warnings(&o) == 0);
    gdn_oracle_free(&o);
    return 0;
}

// 2000 steps from a random state with constant random controls, both engines, the given
// integrator, at MuJoCo's length ranges; the worst state error over the rollout
static int rollout(int integrator, double* worst_out) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, MODEL) == 0);
    memcpy(o.gm->actuator_lengthrange, o.mm->actuator_lengthrange,
           2 * sizeof(double) * (size_t)o.gm->nu);
    o.gm->opt.integrator = integrator;
    o.mm->opt.integrator = integrator == GDN_INT_RK4 ? mjINT_RK4 : mjINT_EULER;
    const int nv = o.gm->nv, na = o.gm->na;
    unsigned long long rng = 0x5ca1ab1eULL + (unsigned long long)integrator;
    random_state(&o, &rng);
    for (int i = 0; i < nv; i++) {
        o.gd->qvel[i] = o.md->qvel[i] = 0.2 * o.gd->qvel[i];
    }
    double* dq = malloc(sizeof(double) * (size_t)nv);
    CHECK(dq);
    double worst = 0;
    int clamped = 0;
    for (int t = 0; t < 2000; t++) {
        CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
        mj_step(o.mm, o.md);
        double e = gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, dq);
        e = gdn_oracle_worst(e, rel(o.gd->qvel, o.md->qvel, nv));
        e = gdn_oracle_worst(e, rel(o.gd->act, o.md->act, na));
        worst = gdn_oracle_worst(worst, e);
        // the intvelocity activation (act 2) sits at its range's bound
        clamped |= fabs(o.gd->act[2]) == 0.5;
    }
    free(dq);
    *worst_out = worst;
    CHECK(clamped);
    CHECK(gdn_oracle_warnings(&o) == 0);
    gdn_oracle_free(&o);
    return 0;
}

static int rollouts_euler_rk4(void) {
    double euler = 0, rk4 = 0;
    CHECK(rollout(GDN_INT_EULER, &euler) == 0);
    CHECK(rollout(GDN_INT_RK4, &rk4) == 0);
    printf("  2000-step rollouts vs mj_step (qpos, qvel, act): Euler %.1e, RK4 %.1e\n", euler,
           rk4);
    CHECK(euler <= TOL_ROLLOUT && rk4 <= TOL_ROLLOUT);
    return 0;
}

// a model string in both engines: both refuse it, gradyn's message containing want
static int refused_as_mujoco(const char* xml, const char* want) {
    char err[1000] = "", mjerr[1000] = "";
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml_string(xml, strlen(xml), ".", &m, err, sizeof err, NULL, 0);
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    mj_makeEmptyFileVFS(&vfs, "refused.xml", (int)strlen(xml));
    memcpy(vfs.filedata[vfs.nfile - 1], xml, strlen(xml));
    mjModel* mm = mj_loadXML("refused.xml", &vfs, mjerr, sizeof mjerr);
    mj_deleteVFS(&vfs);
    printf("    gradyn: %s\n    MuJoCo: %s\n", err, mjerr);
    int ok = st != GDN_OK && !m && strstr(err, want) && !mm;
    gdn_model_free(m);
    mj_deleteModel(mm);
    return ok ? 0 : 1;
}

static int compiler_refusals(void) {
#define ARM "<mujoco><worldbody><body><joint name='j' axis='0 1 0'/><geom size='.1'/></body>" \
            "</worldbody><actuator>"
    CHECK(refused_as_mujoco(ARM "<general joint='j' dyntype='filter'/><motor joint='j'/>"
                                "</actuator></mujoco>",
                            "stateless actuators must come before stateful actuators") == 0);
    CHECK(refused_as_mujoco(ARM "<muscle joint='j' lmin='1.2'/></actuator></mujoco>",
                            "lmin<1<lmax") == 0);
    CHECK(refused_as_mujoco(ARM "<muscle joint='j' range='1 0.5'/></actuator></mujoco>",
                            "range[0]<range[1]") == 0);
    CHECK(refused_as_mujoco(ARM "<general joint='j' actlimited='true' actrange='1 -1' "
                                "dyntype='integrator'/></actuator></mujoco>",
                            "invalid act range") == 0);
    CHECK(refused_as_mujoco(ARM "<general joint='j' actlimited='true' actrange='-1 1'/>"
                                "</actuator></mujoco>",
                            "actrange specified but dyntype is 'none'") == 0);
    // gradyn has no user callbacks: refused by name (MuJoCo loads it and uses zero act_dot)
    char err[1000] = "";
    gdnModel* m = NULL;
    const char* user = ARM "<general joint='j' dyntype='user'/></actuator></mujoco>";
    CHECK(gdn_load_xml_string(user, strlen(user), ".", &m, err, sizeof err, NULL, 0) ==
          GDN_ERR_UNSUPPORTED);
    CHECK(strstr(err, "user actuator dynamics"));
    // a joint muscle whose range the simulation cannot find (an unlimited hinge turns
    // forever): MuJoCo's message
    CHECK(refused_as_mujoco(ARM "<muscle joint='j'/></actuator></mujoco>",
                            "Lengthrange computation did not converge") == 0);
#undef ARM
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"compiled_constants", compiled_constants},
        {"forward_random_states", forward_random_states},
        {"rollouts_euler_rk4", rollouts_euler_rk4},
        {"compiler_refusals", compiler_refusals},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
