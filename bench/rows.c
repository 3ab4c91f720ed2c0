// SPDX-License-Identifier: Apache-2.0
// The benchmark rows: for each quantity, the gradyn call sequence and its MuJoCo counterpart.
//
// Like for like: every row starts from a raw state (qpos, qvel, ctrl and, where the quantity
// needs one, a joint force or acceleration) copied into the engine's data, and ends with the
// quantity computed from scratch, kinematics included, on both sides. MuJoCo splits its
// position stage into mj_kinematics (poses) and mj_comPos (cinert, cdof) and its velocity
// stage into mj_comVel (cvel, cdof_dot) and mj_rne; a row calls exactly the stages its
// quantity depends on, and nothing else (no tendons, transmission, sensors or collision).
#include <string.h>

#include "rows.h"

// ---------------------------------------------------------------- kinematics

// gradyn: body, joint, geom and site poses plus subtree COMs
static void kin_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    gdn_kinematics(bm->gm, bm->gd);
}

// MuJoCo: body, joint, geom and site poses
static void kin_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mj_kinematics(bm->mm, bm->md);
}

// ---------------------------------------------------------------- RNEA: M(q) a + C(q, v)

static void rne_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    memcpy(bm->gd->qacc, bm->force + (size_t)s * (size_t)bm->nv, sizeof(double) * (size_t)bm->nv);
    gdn_kinematics(bm->gm, bm->gd);
    gdn_rne(bm->gm, bm->gd, 1, bm->gd->qfrc_inverse);
}

static void rne_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    memcpy(bm->md->qacc, bm->force + (size_t)s * (size_t)bm->nv, sizeof(double) * (size_t)bm->nv);
    mj_kinematics(bm->mm, bm->md);
    mj_comPos(bm->mm, bm->md);
    mj_comVel(bm->mm, bm->md);
    mj_rne(bm->mm, bm->md, 1, bm->md->qfrc_inverse);
    // armature: gdn_rne's M includes it, mj_rne leaves it to mj_inverse
    for (int i = 0; i < bm->nv; i++) {
        bm->md->qfrc_inverse[i] += bm->mm->dof_armature[i] * bm->md->qacc[i];
    }
}

// ---------------------------------------------------------------- CRBA: M(q)

// gradyn: dense M (armature included)
static void crb_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    gdn_kinematics(bm->gm, bm->gd);
    gdn_crb(bm->gm, bm->gd);
}

// MuJoCo: sparse M (armature included), not factored
static void crb_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mj_kinematics(bm->mm, bm->md);
    mj_comPos(bm->mm, bm->md);
    mj_crb(bm->mm, bm->md);
}

// ---------------------------------------------------------------- ABA: qacc = M^-1 (tau - C)

// gradyn: the articulated-body algorithm
static void aba_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    gdn_kinematics(bm->gm, bm->gd);
    gdn_aba(bm->gm, bm->gd, bm->force + (size_t)s * (size_t)bm->nv, NULL, bm->gd->qacc);
}

// MuJoCo has no ABA: its acceleration path is CRB, sparse LDL', RNE bias, then two triangular
// solves (what mj_forward does without constraints, minus passive forces and actuation)
static void aba_mujoco(benchModel* bm, int s) {
    const mjModel* m = bm->mm;
    mjData* d = bm->md;
    bench_state_mujoco(bm, s);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_factorM(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    mju_sub(bm->scratch, bm->force + (size_t)s * (size_t)bm->nv, d->qfrc_bias, bm->nv);
    mj_solveM(m, d, d->qacc, bm->scratch, 1);
}

// ---------------------------------------------------------------- ABA, position stage excluded

// gradyn: gdn_aba on a data whose kinematics were computed at setup (outside the timing)
static void aba_pre_gradyn(benchModel* bm, int s) {
    gdn_aba(bm->gm, bm->gd_pre[s], bm->force + (size_t)s * (size_t)bm->nv, NULL, bm->gd->qacc);
}

// MuJoCo: the acceleration path after mj_kinematics + mj_comPos (done at setup)
static void aba_pre_mujoco(benchModel* bm, int s) {
    const mjModel* m = bm->mm;
    mjData* d = bm->md_pre[s];
    mj_crb(m, d);
    mj_factorM(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    mju_sub(bm->scratch, bm->force + (size_t)s * (size_t)bm->nv, d->qfrc_bias, bm->nv);
    mj_solveM(m, d, bm->md->qacc, bm->scratch, 1);
}

// ---------------------------------------------------------------- forward dynamics (no step)

static void forward_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    gdn_forward(bm->gm, bm->gd);
}

static void forward_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mj_forward(bm->mm, bm->md);
}

// ---------------------------------------------------------------- full smooth step

static void step_gradyn(benchModel* bm, int s) {
    bench_state_gradyn(bm, s);
    gdn_step(bm->gm, bm->gd);
}

static void step_mujoco(benchModel* bm, int s) {
    bench_state_mujoco(bm, s);
    mj_step(bm->mm, bm->md);
}

const benchRow bench_rows[] = {
    {"kinematics", "gdn_kinematics", "mj_kinematics", kin_gradyn, kin_mujoco,
     BENCH_OUT_XPOS},
    {"rnea", "gdn_kinematics + gdn_rne(acc)",
     "mj_kinematics + mj_comPos + mj_comVel + mj_rne(acc) + armature qacc", rne_gradyn, rne_mujoco,
     BENCH_OUT_QFRC_INVERSE},
    {"crba", "gdn_kinematics + gdn_crb", "mj_kinematics + mj_comPos + mj_crb", crb_gradyn,
     crb_mujoco, BENCH_OUT_QM},
    {"aba", "gdn_kinematics + gdn_aba",
     "mj_kinematics + mj_comPos + mj_crb + mj_factorM + mj_comVel + mj_rne + mj_solveM",
     aba_gradyn, aba_mujoco, BENCH_OUT_QACC},
    {"aba_pre", "gdn_aba (gdn_kinematics done outside the timing)",
     "mj_crb + mj_factorM + mj_comVel + mj_rne + mj_solveM (mj_kinematics + mj_comPos done "
     "outside the timing)", aba_pre_gradyn, aba_pre_mujoco, BENCH_OUT_QACC},
    {"forward", "gdn_forward", "mj_forward", forward_gradyn, forward_mujoco,
     BENCH_OUT_QACC},
    {"step", "gdn_step", "mj_step", step_gradyn, step_mujoco, BENCH_OUT_NEXT_STATE},
};
const int bench_nrows = (int)(sizeof(bench_rows) / sizeof(bench_rows[0]));
