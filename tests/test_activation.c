// SPDX-License-Identifier: Apache-2.0
// Actuator dynamics against MuJoCo 2.2.2: the compiled actuator constants (dyntype, dynprm,
// muscle parameters, activation limits, acc0, the simulated muscle length ranges), act_dot,
// actuator forces and qacc at random states (act included), rollouts under Euler and RK4 with
// activation clamping, keyframe activations, and the compiler's refusals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>
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

static int compiled_constants_of(const char* path) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
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
    printf("  %s: acc0 vs MuJoCo %.1e; muscle_spatial's simulated length range [%.9f, %.9f] "
           "vs MuJoCo's %.1e (MuJoCo vs itself after a 1e-12 change of qpos0: %.1e)\n",
           o.name, worst, gm->actuator_lengthrange[12], gm->actuator_lengthrange[13], ours, self);
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
    double e_len = 0, e_force = 0, e_adot = 0, e_qfrc = 0, e_qacc = 0, e_sens = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        random_state(&o, &rng);
        CHECK(gdn_forward(o.gm, o.gd) == GDN_OK);
        mj_forward(o.mm, o.md);
        e_len = gdn_oracle_worst(e_len, rel(o.gd->actuator_length, o.md->actuator_length, nu));
        e_force = gdn_oracle_worst(e_force, rel(o.gd->actuator_force, o.md->actuator_force, nu));
        e_adot = gdn_oracle_worst(e_adot, rel(o.gd->act_dot, o.md->act_dot, na));
        e_qfrc = gdn_oracle_worst(e_qfrc, rel(o.gd->qfrc_actuator, o.md->qfrc_actuator, nv));
        e_qacc = gdn_oracle_worst(e_qacc, rel(o.gd->qacc, o.md->qacc, nv));
        e_sens = gdn_oracle_worst(e_sens, rel(o.gd->sensordata, o.md->sensordata,
                                              o.gm->nsensordata));
    }
    printf("  %d random states: actuator_length %.1e, actuator_force %.1e, act_dot %.1e, "
           "qfrc_actuator %.1e, qacc %.1e, sensordata (actuatorfrc) %.1e\n",
           NSAMPLES, e_len, e_force, e_adot, e_qfrc, e_qacc, e_sens);
    CHECK(e_len <= TOL && e_force <= TOL && e_adot <= TOL && e_qfrc <= TOL && e_qacc <= TOL &&
          e_sens <= TOL);
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
                            "invalid activation range") == 0);
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

// ---------------------------------------------------------------- derivatives (Euler)

#define NX (2 * 3 + 7) // 2 nv + na of act_arm
#define NU 9
// central differences of the step at eps 1e-6 on a smooth branch: truncation O(eps^2 f^(3))
// and round-off O(1e-16 / eps) relative to the entries
#define TOL_FD 1e-6
#define FD_EPS 1e-6

// x = (q, v, act) of d (hinges and slides only: the tangent space is qpos's)
static void get_x(const gdnModel* m, const gdnData* d, double* x) {
    memcpy(x, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(x + m->nv, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(x + 2 * m->nv, d->act, sizeof(double) * (size_t)m->na);
}

static void set_x(const gdnModel* m, gdnData* d, const double* x) {
    memcpy(d->qpos, x, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, x + m->nv, sizeof(double) * (size_t)m->nv);
    memcpy(d->act, x + 2 * m->nv, sizeof(double) * (size_t)m->na);
}

// d at (x, u) with time 0 and no warm start
static void set_xu(const gdnModel* m, gdnData* d, const double* x, const double* u) {
    set_x(m, d, x);
    memcpy(d->ctrl, u, sizeof(double) * (size_t)m->nu);
    d->time = 0;
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
}

// x' of one step from (x, u)
static int step_from(const gdnModel* m, gdnData* d, const double* x, const double* u,
                     double* x_next) {
    set_xu(m, d, x, u);
    if (gdn_step(m, d) != GDN_OK) {
        return 1;
    }
    get_x(m, d, x_next);
    return 0;
}

// [A | B] by central differences of MuJoCo's mj_step (eps FD_EPS, state (q, v, act) and ctrl
// columns; hinges and slides: qpos is the tangent space), from a reset data each sample
static void mujoco_fd(const mjModel* mm, mjData* md, const double* x0, const double* u0,
                      double* A, double* B) {
    for (int c = 0; c < NX + NU; c++) {
        double y[2][NX];
        for (int side = 0; side < 2; side++) {
            const double s = side ? -FD_EPS : FD_EPS;
            mj_resetData(mm, md);
            memcpy(md->qpos, x0, sizeof(double) * 3);
            memcpy(md->qvel, x0 + 3, sizeof(double) * 3);
            memcpy(md->act, x0 + 6, sizeof(double) * 7);
            memcpy(md->ctrl, u0, sizeof(double) * NU);
            if (c < 3) {
                md->qpos[c] += s;
            } else if (c < 6) {
                md->qvel[c - 3] += s;
            } else if (c < NX) {
                md->act[c - 6] += s;
            } else {
                md->ctrl[c - NX] += s;
            }
            mj_step(mm, md);
            memcpy(y[side], md->qpos, sizeof(double) * 3);
            memcpy(y[side] + 3, md->qvel, sizeof(double) * 3);
            memcpy(y[side] + 6, md->act, sizeof(double) * 7);
        }
        for (int r = 0; r < NX; r++) {
            const double v = (y[0][r] - y[1][r]) / (2 * FD_EPS);
            if (c < NX) {
                A[r * NX + c] = v;
            } else {
                B[r * NU + c - NX] = v;
            }
        }
    }
}

// central FD of the step along (dx, du)
static int step_fd(const gdnModel* m, gdnData* d, const double* x0, const double* u0,
                   const double* dx, const double* du, double* out) {
    double xp[NX], xm[NX], up[NU], um[NU], yp[NX], ym[NX];
    for (int k = 0; k < NX; k++) {
        xp[k] = x0[k] + FD_EPS * dx[k];
        xm[k] = x0[k] - FD_EPS * dx[k];
    }
    for (int k = 0; k < NU; k++) {
        up[k] = u0[k] + FD_EPS * du[k];
        um[k] = u0[k] - FD_EPS * du[k];
    }
    if (step_from(m, d, xp, up, yp) || step_from(m, d, xm, um, ym)) {
        return 1;
    }
    for (int k = 0; k < NX; k++) {
        out[k] = (yp[k] - ym[k]) / (2 * FD_EPS);
    }
    return 0;
}

static int step_derivatives_for(int integrator) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, MODEL) == 0);
    gdnModel* gm = o.gm;
    gdnData* d = o.gd;
    gm->opt.integrator = integrator;
    o.mm->opt.integrator = integrator == GDN_INT_RK4 ? mjINT_RK4 : mjINT_EULER;
    CHECK(2 * gm->nv + gm->na == NX && gm->nu == NU && gm->nq == gm->nv);
    unsigned long long rng = 0xd1ff5ULL;
    double e_fd = 0, e_dot = 0, e_ab = 0, e_mj = 0, e_mjself = 0, e_mjfd = 0;
    int nclamped = 0;
    static double A[NX * NX], B[NX * NU], Amj[NX * NX], Bmj[NX * NU], Amj2[NX * NX],
        Bmj2[NX * NU];
    for (int s = 0; s < 20; s++) {
        random_state(&o, &rng);
        double x0[NX], u0[NU];
        get_x(gm, d, x0);
        memcpy(u0, d->ctrl, sizeof u0);
        // the limited activations near a bound of their range (alternately inside and beyond
        // it) but not within the FD step of it: a clamp switching between the two samples has
        // no derivative
        for (int j = 0; j < gm->na; j++) {
            const int i = gm->nu - gm->na + j;
            if (gm->actuator_actlimited[i]) {
                const double bound = gm->actuator_actrange[2 * i + (s & 1)];
                x0[2 * gm->nv + j] = bound * (s % 4 < 2 ? 0.9 : 1.05);
            }
        }
        double dx[NX], du[NU], w[NX], y[NX];
        for (int k = 0; k < NX; k++) {
            dx[k] = gdn_test_uniform(&rng, -1, 1);
            w[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < NU; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        // JVP vs central FD
        set_xu(gm, d, x0, u0);
        CHECK(gdn_step_jvp_act(gm, d, dx, dx + 3, dx + 6, du, NULL, NULL, y, y + 3, y + 6) ==
              GDN_OK);
        double fd[NX];
        CHECK(step_fd(gm, d, x0, u0, dx, du, fd) == 0);
        e_fd = gdn_oracle_worst(e_fd, rel(y, fd, NX));
        // <J (dx, du), w> = <(dx, du), J' w>
        double gx[NX], gu[NU];
        set_xu(gm, d, x0, u0);
        CHECK(gdn_step_vjp_act(gm, d, w, w + 3, w + 6, gx, gx + 3, gx + 6, gu, NULL, NULL) ==
              GDN_OK);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < NX; k++) {
            lhs += y[k] * w[k];
            rhs += dx[k] * gx[k];
            scale += fabs(y[k] * w[k]);
        }
        for (int k = 0; k < NU; k++) {
            rhs += du[k] * gu[k];
        }
        e_dot = gdn_oracle_worst(e_dot, fabs(lhs - rhs) / fmax(scale, 1));
        // A dx + B du equals the JVP; A, B against MuJoCo's mjd_transitionFD
        set_xu(gm, d, x0, u0);
        CHECK(gdn_transition_jacobians(gm, d, A, B) == GDN_OK);
        double ab[NX];
        for (int r = 0; r < NX; r++) {
            ab[r] = 0;
            for (int c = 0; c < NX; c++) {
                ab[r] += A[r * NX + c] * dx[c];
            }
            for (int c = 0; c < NU; c++) {
                ab[r] += B[r * NU + c] * du[c];
            }
        }
        e_ab = gdn_oracle_worst(e_ab, rel(ab, y, NX));
        mj_resetData(o.mm, o.md);
        memcpy(o.md->qpos, x0, sizeof(double) * 3);
        memcpy(o.md->qvel, x0 + 3, sizeof(double) * 3);
        memcpy(o.md->act, x0 + 6, sizeof(double) * 7);
        memcpy(o.md->ctrl, u0, sizeof u0);
        if (integrator == GDN_INT_EULER) {
            // MuJoCo 2.2.2's own FD Jacobians (its RK4 ones are not self-consistent: their
            // eps 1e-6 and 4e-6 results differ by 0.75 here, so RK4 takes the FD below only)
            mjd_transitionFD(o.mm, o.md, FD_EPS, 1, Amj, Bmj, NULL, NULL);
            mjd_transitionFD(o.mm, o.md, 4 * FD_EPS, 1, Amj2, Bmj2, NULL, NULL);
            e_mj = gdn_oracle_worst(e_mj, rel(A, Amj, NX * NX));
            e_mj = gdn_oracle_worst(e_mj, rel(B, Bmj, NX * NU));
            e_mjself = gdn_oracle_worst(e_mjself, rel(Amj2, Amj, NX * NX));
            e_mjself = gdn_oracle_worst(e_mjself, rel(Bmj2, Bmj, NX * NU));
        }
        // central differences of mj_step itself, both integrators
        mujoco_fd(o.mm, o.md, x0, u0, Amj, Bmj);
        e_mjfd = gdn_oracle_worst(e_mjfd, rel(A, Amj, NX * NX));
        e_mjfd = gdn_oracle_worst(e_mjfd, rel(B, Bmj, NX * NU));
        for (int j = 0; j < gm->na; j++) {
            nclamped += A[(6 + j) * NX + 6 + j] == 0;
        }
    }
    printf("  20 random states (%s): JVP vs central FD %.1e, dot identity %.1e, A dx + B du "
           "vs JVP %.1e; A, B vs central FD of mj_step %.1e, vs mjd_transitionFD %.1e (its own eps "
           "1e-6 vs 4e-6: %.1e; Euler only); %d clamped activations\n",
           integrator == GDN_INT_RK4 ? "RK4" : "Euler", e_fd, e_dot, e_ab, e_mjfd, e_mj,
           e_mjself, nclamped);
    CHECK(e_fd <= TOL_FD && e_dot <= 1e-13 && e_ab <= 1e-12);
    CHECK(e_mj <= fmax(10 * e_mjself, TOL_FD) && e_mjfd <= TOL_FD);
    CHECK(nclamped > 0);
    // a muscle in steady state (act equal to its control, the time constant's switch): the
    // derivative is the primal's branch (deactivation: control <= act), flagged one-sided;
    // its one-sided FD (act raised: the same branch) agrees
    {
        double x0[NX] = {0.2, -0.3, 0.01, 0.1, -0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
        double u0[NU] = {0.2, 0.1, 0.3, -0.2, 0.5, 0.4, 0.6, 0.3, 0.5};
        x0[2 * gm->nv + 4] = u0[6]; // muscle_spatial: act = its control
        double dx[NX] = {0}, y[NX], yp[NX], y0[NX];
        dx[2 * gm->nv + 4] = 1;
        set_xu(gm, d, x0, u0);
        CHECK(gdn_step_jvp_act(gm, d, dx, dx + 3, dx + 6, NULL, NULL, NULL, y, y + 3, y + 6) ==
              GDN_OK);
        CHECK((d->deriv_flags & GDN_DERIV_NEAR_STATE) && d->deriv_state_margin == 0);
        double xp[NX];
        memcpy(xp, x0, sizeof xp);
        xp[2 * gm->nv + 4] += FD_EPS;
        CHECK(step_from(gm, d, xp, u0, yp) == 0 && step_from(gm, d, x0, u0, y0) == 0);
        double fd[NX];
        for (int k = 0; k < NX; k++) {
            fd[k] = (yp[k] - y0[k]) / FD_EPS;
        }
        CHECK(rel(y, fd, NX) <= 1e-5); // one-sided: O(eps) truncation
        // away from the switch: not flagged
        x0[2 * gm->nv + 4] = 0.3;
        set_xu(gm, d, x0, u0);
        CHECK(gdn_step_jvp_act(gm, d, dx, dx + 3, dx + 6, NULL, NULL, NULL, y, y + 3, y + 6) ==
              GDN_OK);
        CHECK(!(d->deriv_flags & GDN_DERIV_NEAR_STATE));
    }
    // NULL outputs are an argument error on every path (was a crash under RK4 with act)
    double z[NX] = {0};
    CHECK(gdn_step_jvp_act(gm, d, z, z, z, NULL, NULL, NULL, NULL, z, z) == GDN_ERR_ARG);
    CHECK(gdn_step_jvp(gm, d, z, z, NULL, NULL, NULL, z, NULL) == GDN_ERR_ARG);
    gdn_oracle_free(&o);
    return 0;
}

static int step_derivatives(void) {
    return step_derivatives_for(GDN_INT_EULER);
}

static int step_derivatives_rk4(void) {
    return step_derivatives_for(GDN_INT_RK4);
}

// a constrained step (joint limit rows) with activations: the implicit differentiation of the
// solve carries the act tangents through the force laws' inputs
static int constrained_step_derivatives(void) {
    gdnModel* m = NULL;
    char err[500];
    CHECK(gdn_load_xml(GDN_TEST_MODELS "/act_limit.xml", &m, err, sizeof err, NULL, 0) ==
          GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    enum { X = 2 * 2 + 3, U = 4 };
    CHECK(2 * m->nv + m->na == X && m->nu == U);
    unsigned long long rng = 0x11e17ULL;
    double e_fd = 0, e_dot = 0;
    int rows = 0;
    for (int s = 0; s < 10; s++) {
        // beyond a limit of each joint (rows active), moving into it
        double x0[X] = {0.65 * (s & 1 ? 1 : -1), s & 2 ? 0.35 : -1.05,
                        gdn_test_uniform(&rng, -1, 1), gdn_test_uniform(&rng, -1, 1),
                        gdn_test_uniform(&rng, -1, 1), gdn_test_uniform(&rng, -1, 0.4),
                        gdn_test_uniform(&rng, 0.1, 0.9)};
        double u0[U], dx[X], du[U], w[X], y[X], fd[X], gx[X], gu[U];
        for (int k = 0; k < U; k++) {
            u0[k] = gdn_test_uniform(&rng, 0.1, 0.9);
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < X; k++) {
            dx[k] = gdn_test_uniform(&rng, -1, 1);
            w[k] = gdn_test_uniform(&rng, -1, 1);
        }
        set_xu(m, d, x0, u0);
        CHECK(gdn_forward(m, d) == GDN_OK);
        rows += d->nefc;
        set_xu(m, d, x0, u0);
        CHECK(gdn_step_jvp_act(m, d, dx, dx + 2, dx + 4, du, NULL, NULL, y, y + 2, y + 4) ==
              GDN_OK);
        // central FD of the step (the rows' states held: eps well inside their margins)
        double xp[X], xm[X], up[U], um[U], yp[X], ym[X];
        for (int k = 0; k < X; k++) {
            xp[k] = x0[k] + FD_EPS * dx[k];
            xm[k] = x0[k] - FD_EPS * dx[k];
        }
        for (int k = 0; k < U; k++) {
            up[k] = u0[k] + FD_EPS * du[k];
            um[k] = u0[k] - FD_EPS * du[k];
        }
        CHECK(step_from(m, d, xp, up, yp) == 0 && step_from(m, d, xm, um, ym) == 0);
        for (int k = 0; k < X; k++) {
            fd[k] = (yp[k] - ym[k]) / (2 * FD_EPS);
        }
        e_fd = gdn_oracle_worst(e_fd, rel(y, fd, X));
        set_xu(m, d, x0, u0);
        CHECK(gdn_step_vjp_act(m, d, w, w + 2, w + 4, gx, gx + 2, gx + 4, gu, NULL, NULL) ==
              GDN_OK);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < X; k++) {
            lhs += y[k] * w[k];
            rhs += dx[k] * gx[k];
            scale += fabs(y[k] * w[k]);
        }
        for (int k = 0; k < U; k++) {
            rhs += du[k] * gu[k];
        }
        e_dot = gdn_oracle_worst(e_dot, fabs(lhs - rhs) / fmax(scale, 1));
    }
    printf("  act_limit, 10 states with %d limit rows: JVP vs central FD %.1e, dot identity "
           "%.1e\n",
           rows, e_fd, e_dot);
    CHECK(rows >= 10 && e_fd <= TOL_FD && e_dot <= 1e-13);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the trajectory adjoint with activations: dJ/d(q0, v0, act0, u) of a 200-step rollout against
// central differences of the rollout objective (eps 1e-6; a smooth rollout: the clamps the
// states visit are held over the perturbation)
static int trajectory_adjoint_for(int integrator) {
    gdnModel* m = NULL;
    char err[500];
    CHECK(gdn_load_xml(MODEL, &m, err, sizeof err, NULL, 0) == GDN_OK);
    m->opt.integrator = integrator;
    enum { T = 200 };
    const int nv = m->nv, nu = m->nu, na = m->na;
    gdnTargetObjective spec = {.body = 3, .point = {0.05, 0, 0}, .target = {0.3, 0, 0.5},
                               .weight = 1, .ctrl_weight = 1e-3, .vel_weight = 0.1};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, err, sizeof err) == GDN_OK);
    double q0[3] = {0.3, -0.4, 0.02}, v0[3] = {0.1, -0.2, 0.3};
    double act0[7] = {0.1, -0.05, 0.2, 0.3, 0.4, 0.5, 0.2};
    static double u[T * NU];
    unsigned long long rng = 0xad701ULL;
    for (int k = 0; k < T * nu; k++) {
        u[k] = gdn_test_uniform(&rng, 0.05, 0.6);
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.act0 = act0;
    r.ctrl = u;
    static double gq[3], gv[3], ga[7], gu[T * NU], gp[4 * GDN_N_INERTIA_PARAMS];
    gdnAdjointGradients g = {.qpos0 = gq, .qvel0 = gv, .act0 = ga, .ctrl = gu, .param = gp};
    CHECK(m->nbody == 4);
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &g, err, sizeof err) == GDN_OK);
    // central differences of J along each initial coordinate and a spread of controls
    double* coords[] = {q0, q0 + 1, q0 + 2, v0, v0 + 1, v0 + 2, act0, act0 + 1, act0 + 2,
                        act0 + 3, act0 + 4, act0 + 5, act0 + 6, u + 0, u + 5, u + 2 * NU + 6,
                        u + 50 * NU + 7, u + 120 * NU + 8, u + 199 * NU + 2};
    const double* grads[] = {gq, gq + 1, gq + 2, gv, gv + 1, gv + 2, ga, ga + 1, ga + 2,
                             ga + 3, ga + 4, ga + 5, ga + 6, gu + 0, gu + 5, gu + 2 * NU + 6,
                             gu + 50 * NU + 7, gu + 120 * NU + 8, gu + 199 * NU + 2};
    const int n = (int)(sizeof(coords) / sizeof(coords[0]));
    double worst = 0, gmax = 0;
    for (int k = 0; k < n; k++) {
        const double x = *coords[k];
        double Jp, Jm;
        *coords[k] = x + FD_EPS;
        CHECK(gdn_rollout_objective(m, &r, &obj, tape, &Jp, err, sizeof err) == GDN_OK);
        *coords[k] = x - FD_EPS;
        CHECK(gdn_rollout_objective(m, &r, &obj, tape, &Jm, err, sizeof err) == GDN_OK);
        *coords[k] = x;
        const double fd = (Jp - Jm) / (2 * FD_EPS);
        worst = gdn_oracle_worst(worst, fabs(*grads[k] - fd));
        gmax = fmax(gmax, fabs(fd));
    }
    printf("  200-step %s adjoint with %d activations: dJ/d(q0, v0, act0, u) vs central FD over %d "
           "coordinates %.1e (relative to the largest %.2e: %.1e)\n",
           integrator == GDN_INT_RK4 ? "RK4" : "Euler", na, n, worst, gmax, worst / gmax);
    CHECK(worst <= TOL_FD * fmax(gmax, 1));
    // the activations matter: dJ/dact0 is not zero
    CHECK(fabs(ga[0]) + fabs(ga[6]) > 1e-6);
    // a checkpointed tape without stored intermediates (every step replayed): the same
    // gradient bit for bit
    {
        gdnTapeOptions opt;
        gdn_tape_options_init(m, T, 10, &opt);
        opt.store_intermediates = 0;
        gdnTape* tape2 = NULL;
        CHECK(gdn_tape_create_opt(m, &opt, &tape2, err, sizeof err) == GDN_OK);
        static double gq2[3], gv2[3], ga2[7], gu2[T * NU], gp2[4 * GDN_N_INERTIA_PARAMS];
        gdnAdjointGradients g2 = {.qpos0 = gq2, .qvel0 = gv2, .act0 = ga2, .ctrl = gu2,
                                  .param = gp2};
        CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape2, &g2, err, sizeof err) == GDN_OK);
        CHECK(g2.J == g.J && !memcmp(gq2, gq, sizeof gq) && !memcmp(gv2, gv, sizeof gv) &&
              !memcmp(ga2, ga, sizeof ga) && !memcmp(gu2, gu, sizeof gu) &&
              !memcmp(gp2, gp, sizeof gp));
        gdn_tape_free(tape2);
    }
    // the rollout the adjoint differentiates is the simulator's, bit for bit (the tape holds
    // the last FD sample's rollout: the nominal one again first)
    double J0;
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J0, err, sizeof err) == GDN_OK);
    CHECK(J0 == g.J);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    memcpy(d->qpos, q0, sizeof q0);
    memcpy(d->qvel, v0, sizeof v0);
    memcpy(d->act, act0, sizeof act0);
    for (int t = 0; t < T; t++) {
        memcpy(d->ctrl, u + (size_t)t * NU, sizeof(double) * NU);
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    double qT[3], vT[3], aT[7];
    CHECK(gdn_tape_state(tape, T, qT, vT) == GDN_OK && gdn_tape_state_act(tape, T, aT) == GDN_OK);
    CHECK(!memcmp(qT, d->qpos, sizeof qT) && !memcmp(vT, d->qvel, sizeof vT) &&
          !memcmp(aT, d->act, sizeof aT));
    gdn_data_free(d);
    (void)nv;
    // dJ/dpi (the muscles scaled by acc0 included) along each body's mass and Izz, by central
    // differences through the setter (last: the setter's round trip moves the model's bits)
    double worst_p = 0, pmax = 0;
    for (int b = 1; b < m->nbody; b++) {
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k += 6) { // mass (0), Izz (6)
            gdnInertia I0, I;
            gdn_body_inertia(m, b, &I0);
            double p[GDN_N_INERTIA_PARAMS], Jp, Jm;
            const double e = k == 0 ? 1e-6 : 1e-8;
            gdn_inertia_params(&I0, p);
            p[k] += e;
            gdn_inertia_from_params(p, &I);
            CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
            CHECK(gdn_rollout_objective(m, &r, &obj, tape, &Jp, err, sizeof err) == GDN_OK);
            p[k] -= 2 * e;
            gdn_inertia_from_params(p, &I);
            CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
            CHECK(gdn_rollout_objective(m, &r, &obj, tape, &Jm, err, sizeof err) == GDN_OK);
            CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
            const double fd = (Jp - Jm) / (2 * e);
            worst_p = gdn_oracle_worst(worst_p, fabs(gp[GDN_N_INERTIA_PARAMS * b + k] - fd));
            pmax = fmax(pmax, fabs(fd));
        }
    }
    printf("  dJ/d(mass, Izz) of the 3 bodies vs FD %.1e (largest %.2e)\n", worst_p, pmax);
    CHECK(worst_p <= 1e-5 * fmax(pmax, 1));
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

static int trajectory_adjoint(void) {
    return trajectory_adjoint_for(GDN_INT_EULER);
}

static int trajectory_adjoint_rk4(void) {
    return trajectory_adjoint_for(GDN_INT_RK4);
}

// The inertia-parameter channel with muscles: a muscle whose peak force is scale / acc0 moves
// with the inertias through acc0 (the setter recomputes it): the step JVP along each body's
// parameters against central differences of steps through gdn_model_set_body_inertia, the
// parameter VJP against the JVP (dot identity), on act_arm.xml (acc0-scaled muscles) and
// act_limit.xml (explicit forces, limit rows)
static int param_derivatives_of(const char* path, const double* x0, const double* u0, int nx,
                                double* worst_fd, double* worst_dot) {
    char err[500];
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(path, &m, err, sizeof err, NULL, 0) == GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int n10 = GDN_N_INERTIA_PARAMS, nb = m->nbody, nv = m->nv;
    CHECK(nx == 2 * nv + m->na);
    double* dparam = calloc((size_t)(nb * n10), sizeof(double));
    double* gparam = calloc((size_t)(nb * n10), sizeof(double));
    double y[NX], yp[NX], ym[NX], fd[NX], w[NX];
    for (int b = 1; b < nb; b++) {
        gdnInertia I0;
        gdn_body_inertia(m, b, &I0);
        double p0[GDN_N_INERTIA_PARAMS], dir[GDN_N_INERTIA_PARAMS];
        gdn_inertia_params(&I0, p0);
        unsigned long long rng = 0x9a7a3ULL + (unsigned long long)b;
        for (int k = 0; k < n10; k++) {
            dir[k] = gdn_test_uniform(&rng, -1, 1) * (k == 0 ? 0.3 : k < 4 ? 0.01 : 1e-3);
        }
        memset(dparam, 0, sizeof(double) * (size_t)(nb * n10));
        memcpy(dparam + n10 * b, dir, sizeof dir);
        set_xu(m, d, x0, u0);
        CHECK(gdn_step_jvp_act(m, d, NULL, NULL, NULL, NULL, dparam, NULL, y, y + nv,
                               y + 2 * nv) == GDN_OK);
        for (int side = 0; side < 2; side++) {
            double p[GDN_N_INERTIA_PARAMS];
            for (int k = 0; k < n10; k++) {
                p[k] = p0[k] + (side ? -FD_EPS : FD_EPS) * dir[k];
            }
            gdnInertia I;
            gdn_inertia_from_params(p, &I);
            CHECK(gdn_model_set_body_inertia(m, b, &I) == GDN_OK);
            CHECK(step_from(m, d, x0, u0, side ? ym : yp) == 0);
        }
        CHECK(gdn_model_set_body_inertia(m, b, &I0) == GDN_OK);
        for (int k = 0; k < nx; k++) {
            fd[k] = (yp[k] - ym[k]) / (2 * FD_EPS);
            w[k] = gdn_test_uniform(&rng, -1, 1);
        }
        *worst_fd = gdn_oracle_worst(*worst_fd, rel(y, fd, nx));
        // <J dparam, w> = <dparam, J' w>
        memset(gparam, 0, sizeof(double) * (size_t)(nb * n10));
        set_xu(m, d, x0, u0);
        CHECK(gdn_step_vjp_act(m, d, w, w + nv, w + 2 * nv, NULL, NULL, NULL, NULL, gparam,
                               NULL) == GDN_OK);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < nx; k++) {
            lhs += y[k] * w[k];
            scale += fabs(y[k] * w[k]);
        }
        for (int k = 0; k < nb * n10; k++) {
            rhs += dparam[k] * gparam[k];
        }
        *worst_dot = gdn_oracle_worst(*worst_dot, fabs(lhs - rhs) / fmax(scale, 1e-12));
    }
    free(dparam);
    free(gparam);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static int param_derivatives(void) {
    double fd_arm = 0, dot_arm = 0, fd_lim = 0, dot_lim = 0;
    const double x_arm[NX] = {0.3, -0.4, 0.02, 0.1, -0.2, 0.3, 0.1, -0.05, 0.2, 0.3, 0.4, 0.5, 0.2};
    const double u_arm[NU] = {0.2, 0.1, 0.3, -0.2, 0.5, 0.4, 0.6, 0.3, 0.5};
    CHECK(param_derivatives_of(MODEL, x_arm, u_arm, NX, &fd_arm, &dot_arm) == 0);
    // inside the joint ranges (no rows), the limited activations inside theirs
    const double x_lim[7] = {0.2, -0.4, 0.3, -0.5, 0.4, -0.2, 0.5};
    const double u_lim[4] = {0.3, 0.6, 0.2, 0.7};
    CHECK(param_derivatives_of(GDN_TEST_MODELS "/act_limit.xml", x_lim, u_lim, 7, &fd_lim,
                               &dot_lim) == 0);
    printf("  inertia parameters, every body: act_arm (muscles scaled by acc0) JVP vs FD through "
           "the setter %.1e, dot identity %.1e; act_limit %.1e, %.1e\n",
           fd_arm, dot_arm, fd_lim, dot_lim);
    CHECK(fd_arm <= TOL_FD && fd_lim <= TOL_FD && dot_arm <= 1e-12 && dot_lim <= 1e-12);
    return 0;
}

// actuatorfrc of stateful actuators (joint, fixed- and spatial-tendon transmissions, muscles):
// gdn_sensor_jvp_act along (dq, dv, dact, du) vs central FD of gdn_forward's sensordata, and
// the dot identity with gdn_sensor_vjp_act
static int sensor_derivatives(void) {
    char err[500];
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(MODEL, &m, err, sizeof err, NULL, 0) == GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int ns = m->nsensordata;
    double ds[16], sp[16], sm[16], gsd[16], gx[NX], gu[NU], dx[NX], du[NU];
    CHECK(ns <= 16);
    unsigned long long rng = 0x5e75ULL;
    double worst = 0, worst_dot = 0;
    for (int s = 0; s < 20; s++) {
        double x0[NX], u0[NU];
        for (int k = 0; k < NX; k++) {
            x0[k] = gdn_test_uniform(&rng, -0.5, 0.5);
            dx[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < NU; k++) {
            u0[k] = gdn_test_uniform(&rng, 0.1, 0.6);
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            gsd[k] = gdn_test_uniform(&rng, -1, 1);
        }
        double* out[2] = {sp, sm};
        for (int side = 0; side < 2; side++) {
            double x[NX], u[NU];
            for (int k = 0; k < NX; k++) {
                x[k] = x0[k] + (side ? -FD_EPS : FD_EPS) * dx[k];
            }
            for (int k = 0; k < NU; k++) {
                u[k] = u0[k] + (side ? -FD_EPS : FD_EPS) * du[k];
            }
            set_xu(m, d, x, u);
            CHECK(gdn_forward(m, d) == GDN_OK);
            memcpy(out[side], d->sensordata, sizeof(double) * (size_t)ns);
        }
        set_xu(m, d, x0, u0);
        CHECK(gdn_forward(m, d) == GDN_OK);
        CHECK(gdn_sensor_jvp_act(m, d, dx, dx + 3, dx + 6, du, ds) == GDN_OK);
        double fd[16];
        for (int k = 0; k < ns; k++) {
            fd[k] = (sp[k] - sm[k]) / (2 * FD_EPS);
        }
        worst = gdn_oracle_worst(worst, rel(ds, fd, ns));
        CHECK(gdn_sensor_vjp_act(m, d, gsd, gx, gx + 3, gx + 6, gu) == GDN_OK);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < ns; k++) {
            lhs += gsd[k] * ds[k];
            scale += fabs(gsd[k] * ds[k]);
        }
        for (int k = 0; k < NX; k++) {
            rhs += gx[k] * dx[k];
        }
        for (int k = 0; k < NU; k++) {
            rhs += gu[k] * du[k];
        }
        worst_dot = gdn_oracle_worst(worst_dot, fabs(lhs - rhs) / fmax(scale, 1));
    }
    printf("  actuatorfrc of stateful actuators: sensor JVP (with act) vs FD %.1e, dot identity "
           "%.1e\n",
           worst, worst_dot);
    CHECK(worst <= TOL_FD && worst_dot <= 1e-13);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static int compiled_constants(void) {
    CHECK(compiled_constants_of(MODEL) == 0);
    // an RK4 model's ranges are simulated with Euler, as MuJoCo's evalAct does
    CHECK(compiled_constants_of(GDN_TEST_MODELS "/act_arm_rk4.xml") == 0);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"compiled_constants", compiled_constants},
        {"forward_random_states", forward_random_states},
        {"rollouts_euler_rk4", rollouts_euler_rk4},
        {"compiler_refusals", compiler_refusals},
        {"step_derivatives", step_derivatives},
        {"step_derivatives_rk4", step_derivatives_rk4},
        {"constrained_step_derivatives", constrained_step_derivatives},
        {"trajectory_adjoint", trajectory_adjoint},
        {"trajectory_adjoint_rk4", trajectory_adjoint_rk4},
        {"param_derivatives", param_derivatives},
        {"sensor_derivatives", sensor_derivatives},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
