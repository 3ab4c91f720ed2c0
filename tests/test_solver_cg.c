// SPDX-License-Identifier: Apache-2.0
// CG constraint solver (MuJoCo 2.2.2's mj_solCG) vs MuJoCo's CG and vs our Newton.
//
// 1. MuJoCo's rows at the solver scenes (tests/oracle/solver_scenes.c: both cones, condim 1-6,
//    friction loss, limits, connect), CG in both engines at tolerance 1e-12: qacc and efc_force
//    within MATCH_TOL of MuJoCo's and the same iteration count and row states. Every input of
//    the solve is MuJoCo's (rows, dense M, qacc_smooth) and M^-1 is the tree LDL' of M in
//    MuJoCo's order, so the iterates are expected bit for bit: all 28 scenes were bit-equal when
//    written.
// 2. Converged CG vs our Newton on the same problems. The cost is M-strongly convex (Gauss term
//    plus convex row costs), so for any a with gradient g and the minimizer a*:
//    |a - a*|_M <= |g|_{M^-1}; checked as |a_cg - a_newton|_M <= |g_cg|_{M^-1} +
//    |g_newton|_{M^-1} (+ round-off). CG stops on small improvement with |g|_{M^-1} up to ~1e-4
//    here, so CG and Newton differ by far more than CG and MuJoCo's CG.
// 3. Rollouts with CG vs mj_step with mjSOL_CG at default settings (tolerance 1e-8): the same
//    scenes as test_contact_rollout. Our step's inputs carry CRB / RNE round-off; CG's
//    improvement test turns that into a different iteration count now and then, and CG's
//    solution at 1e-8 is only as close as its residual, so in sensitive scenes (stack, tip,
//    humanoid) the rollouts part. Bound: max qpos distance <= max(1e-9, 10 x MuJoCo's own CG
//    rollout distance after a 1e-12 change of one qpos), and bit-level scenes keep MuJoCo's
//    iteration totals. Along MuJoCo's own rollout, MuJoCo's inputs given to our CG take
//    MuJoCo's iteration count at every step.
// 4. Robustness: every arena size from too small to enough gives GDN_ERR_MEMORY (qacc =
//    qacc_smooth, not converged, counted) or the full solution, never a crash; an iteration cap
//    is reported as unconverged with MuJoCo's capped iterate; non-finite rows never give a
//    converged non-finite answer.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "constraint/solver.h"
#include "oracle/oracle.h"
#include "oracle/rollout_scenes.h"
#include "oracle/solver_problem.h"
#include "oracle/solver_scenes.h"
#include "runner/test.h"

#define HUMANOID GDN_ORACLE_MJ_HUMANOID

#define TIGHT_ITER 1000  // iterations of the tight comparisons (MuJoCo's CG needs up to 112)
#define MATCH_TOL 1e-12  // CG vs MuJoCo's CG, relative qacc and efc_force (observed: 0)
// CG vs Newton at tolerance 1e-12, beside the strong-convexity bound: qacc relative to
// max(|qacc|_inf, 1) and efc_force relative (observed <= 6.5e-5 and 8.1e-7; CG stops on the
// improvement test with |g|_{M^-1} up to 4e-5)
#define NEWTON_QACC_TOL 1e-3
#define NEWTON_FORCE_TOL 1e-5
#define ROLL_NSTEP 500
#define ROLL_ROUNDOFF 1e-9 // rollout bound floor (bit-level scenes: observed <= 7e-14)
#define ROLL_SENSITIVITY 10 // rollout bound: times MuJoCo's own 1e-12 sensitivity
#define MAXEFC 1024

// 1. CG in both engines on MuJoCo's rows: same iterates
static int test_match_mujoco(void) {
    int bitequal = 0;
    double worst_qacc = 0, worst_force = 0;
    for (int i = 0; i < gdn_oracle_solver_nscenes; i++) {
        gdnSolverScene s = gdn_oracle_solver_scenes[i];
        s.iterations = TIGHT_ITER;
        gdnSolverOutcome o;
        CHECK(gdn_oracle_solver_run(&s, mjSOL_CG, GDN_SOL_CG, &o) == 0);
        CHECK(o.nefc > 0);
        CHECK(o.err_qacc <= MATCH_TOL);
        CHECK(o.err_force <= MATCH_TOL);
        CHECK(o.converged == 1);
        CHECK(o.iter_gdn == o.iter_mj);
        CHECK(o.state_mismatch == 0);
        bitequal += o.err_qacc == 0 && o.err_force == 0;
        worst_qacc = fmax(worst_qacc, o.err_qacc);
        worst_force = fmax(worst_force, o.err_force);
    }
    printf("  CG vs MuJoCo CG: %d scenes, %d bit-equal, worst qacc %.2e efc_force %.2e, "
           "iteration counts all equal\n",
           gdn_oracle_solver_nscenes, bitequal, worst_qacc, worst_force);
    return 0;
}

// sqrt(x' M^-1 x) and sqrt(x' M x) with MuJoCo's factor and M (md after mj_forward)
static double norm_minv(const mjModel* mm, mjData* md, const double* x) {
    double y[GDN_ORACLE_SOLVER_MAXNV];
    mj_solveM(mm, md, y, x, 1);
    return sqrt(fmax(0, mju_dot(x, y, mm->nv)));
}

static double norm_m(const mjModel* mm, mjData* md, const double* x) {
    double y[GDN_ORACLE_SOLVER_MAXNV];
    mj_mulM(mm, md, y, x);
    return sqrt(fmax(0, mju_dot(x, y, mm->nv)));
}

// |g|_{M^-1} of our current solution: g = M qacc - qfrc_smooth - qfrc_constraint
static double gradient_norm(const mjModel* mm, mjData* md, const gdnData* gd) {
    double g[GDN_ORACLE_SOLVER_MAXNV];
    mj_mulM(mm, md, g, gd->qacc);
    for (int i = 0; i < mm->nv; i++) {
        g[i] -= gd->qfrc_smooth[i] + gd->qfrc_constraint[i];
    }
    return norm_minv(mm, md, g);
}

// 2. converged CG vs our Newton on the same problem
static int test_newton_agreement(void) {
    double worst_qacc = 0, worst_force = 0, worst_ratio = 0;
    for (int i = 0; i < gdn_oracle_solver_nscenes; i++) {
        gdnSolverScene s = gdn_oracle_solver_scenes[i];
        s.iterations = TIGHT_ITER;
        gdnSolverProblem p;
        CHECK(gdn_oracle_solver_open(&s, mjSOL_CG, &p) == 0);
        const int nv = p.mm->nv, nefc = p.md->nefc;
        CHECK(nefc <= MAXEFC);
        double qacc_cg[GDN_ORACLE_SOLVER_MAXNV], force_cg[MAXEFC], e[GDN_ORACLE_SOLVER_MAXNV];
        CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_CG) == GDN_OK);
        CHECK(p.gd->solver_converged == 1);
        const int iter_cg = p.gd->solver_iter;
        memcpy(qacc_cg, p.gd->qacc, sizeof(double) * (size_t)nv);
        memcpy(force_cg, p.gd->efc_force, sizeof(double) * (size_t)nefc);
        const double g_cg = gradient_norm(p.mm, p.md, p.gd);
        CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_NEWTON) == GDN_OK);
        CHECK(p.gd->solver_converged == 1);
        const double g_newton = gradient_norm(p.mm, p.md, p.gd);
        for (int k = 0; k < nv; k++) {
            e[k] = qacc_cg[k] - p.gd->qacc[k];
        }
        // strong convexity (slack for the round-off of the norms themselves)
        const double dist = norm_m(p.mm, p.md, e);
        const double bound = g_cg + g_newton;
        CHECK(dist <= bound + 1e-12);
        const double err_qacc = gdn_test_relerr(qacc_cg, p.gd->qacc, nv, 1.0);
        const double err_force = gdn_test_relerr(force_cg, p.gd->efc_force, nefc, 1e-6);
        printf("  %-24s CG iter %3d  |a_cg - a_newton|_M %.2e <= |g_cg| %.2e + |g_newton| "
               "%.2e  qacc %.2e  efc_force %.2e\n",
               s.name, iter_cg, dist, g_cg, g_newton, err_qacc, err_force);
        CHECK(err_qacc <= NEWTON_QACC_TOL);
        CHECK(err_force <= NEWTON_FORCE_TOL);
        worst_qacc = fmax(worst_qacc, err_qacc);
        worst_force = fmax(worst_force, err_force);
        worst_ratio = fmax(worst_ratio, dist / fmax(bound, 1e-300));
        gdn_oracle_solver_close(&p);
    }
    printf("  CG vs Newton: worst qacc %.2e (relative to max(|qacc|, 1)), efc_force %.2e, "
           "worst |e|_M / bound %.3f\n", worst_qacc, worst_force, worst_ratio);
    return 0;
}

// what one rollout comparison measured
typedef struct RollReport {
    double worst;         // max over steps of |ours (-) MuJoCo CG| (tangent inf norm)
    int separate;         // first step apart by > 1e-6 (-1: never)
    double self;          // the same for MuJoCo CG vs MuJoCo CG after a 1e-12 qpos change
    int self_separate;
    double newton;        // MuJoCo Newton vs MuJoCo CG, for scale
    long iter_mj, iter_gdn;
    int unconverged;      // our steps with rows reported unconverged
    int solves, solve_mismatch; // MuJoCo's inputs to our CG: solves, iteration mismatches
} RollReport;

// CG rollouts of the scene: ours and MuJoCo's (plus MuJoCo's perturbed and Newton copies)
static int roll_scene(const gdnRolloutScene* rs, RollReport* r) {
    gdnOracle o;
    memset(r, 0, sizeof(*r));
    r->separate = r->self_separate = -1;
    if (gdn_oracle_rollout_open(&o, rs)) {
        return 1;
    }
    mjModel* mm = o.mm;
    mm->opt.solver = mjSOL_CG;
    o.gm->opt.solver = GDN_SOL_CG;
    const int nq = mm->nq, nv = mm->nv;
    mjData* perturbed = mj_copyData(NULL, mm, o.md);
    mjData* newton = mj_copyData(NULL, mm, o.md);
    mjData* inputs = mj_makeData(mm);
    if (!perturbed || !newton || !inputs || nv > GDN_ORACLE_SOLVER_MAXNV) {
        gdn_oracle_free(&o);
        return 1;
    }
    perturbed->qpos[nq > 2 ? 2 : 0] += 1e-12;
    gdnData* solo = NULL; // MuJoCo's inputs at each step of its own rollout, our CG alone
    int fail = gdn_data_create(o.gm, &solo) != GDN_OK;
    double scratch[GDN_ORACLE_SOLVER_MAXNV];
    for (int t = 0; t < ROLL_NSTEP && !fail; t++) {
        // MuJoCo's solve at this state, its inputs to our CG
        mj_copyData(inputs, mm, o.md);
        mj_forward(mm, inputs);
        if (inputs->nefc > 0 && gdn_oracle_solver_copy(mm, inputs, solo) == 0) {
            memcpy(solo->qacc_warmstart, o.md->qacc_warmstart, sizeof(double) * (size_t)nv);
            fail = gdn_solve_constraint(o.gm, solo) != GDN_OK;
            r->solves++;
            r->solve_mismatch += solo->solver_iter != inputs->solver_iter;
        }
        mj_step(mm, o.md);
        mj_step(mm, perturbed);
        mm->opt.solver = mjSOL_NEWTON;
        mj_step(mm, newton);
        mm->opt.solver = mjSOL_CG;
        if (gdn_step(o.gm, o.gd) != GDN_OK) {
            fail = 1;
        }
        r->iter_mj += o.md->solver_iter;
        r->iter_gdn += o.gd->solver_iter;
        r->unconverged += o.gd->nefc > 0 && !o.gd->solver_converged;
        const double dist = gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, scratch);
        const double self = gdn_oracle_qpos_distance(&o, perturbed->qpos, o.md->qpos, scratch);
        r->worst = gdn_oracle_worst(r->worst, dist);
        r->self = gdn_oracle_worst(r->self, self);
        r->newton = gdn_oracle_worst(r->newton, gdn_oracle_qpos_distance(&o, newton->qpos,
                                                                         o.md->qpos, scratch));
        if (!(dist <= 1e-6) && r->separate < 0) {
            r->separate = t + 1;
        }
        if (!(self <= 1e-6) && r->self_separate < 0) {
            r->self_separate = t + 1;
        }
    }
    gdn_data_free(solo);
    mj_deleteData(inputs);
    mj_deleteData(newton);
    mj_deleteData(perturbed);
    gdn_oracle_free(&o);
    return fail;
}

// 3. rollouts with CG vs mj_step with mjSOL_CG
static int test_rollouts(void) {
    for (int i = 0; i < gdn_oracle_rollout_nscenes; i++) {
        const gdnRolloutScene* rs = gdn_oracle_rollout_scenes + i;
        RollReport r;
        CHECK(roll_scene(rs, &r) == 0);
        printf("  %-16s worst qpos %.2e (apart > 1e-6 at step %d) | MuJoCo CG vs itself after "
               "1e-12: %.2e (step %d) | MuJoCo Newton vs CG %.2e | CG iterations %ld (MuJoCo "
               "%ld), unconverged %d | MuJoCo's inputs: %d solves, %d iteration mismatches\n",
               rs->name, r.worst, r.separate, r.self, r.self_separate, r.newton, r.iter_gdn,
               r.iter_mj, r.unconverged, r.solves, r.solve_mismatch);
        CHECK(r.worst <= fmax(ROLL_ROUNDOFF, ROLL_SENSITIVITY * r.self));
        // no separation before MuJoCo separates from itself after 1e-12
        CHECK(r.separate < 0 || (r.self_separate > 0 && r.separate >= r.self_separate / 2));
        // bit-level scenes: MuJoCo's iteration totals
        CHECK(r.worst > 1e-12 || r.iter_gdn == r.iter_mj);
        CHECK(r.unconverged == 0);
        CHECK(r.solves > 0);
        CHECK(r.solve_mismatch == 0);
    }
    return 0;
}

// 4a. an iteration cap: reported unconverged, with MuJoCo's capped iterate
static int test_unconverged_reported(void) {
    // the kicked stack needs 108 CG iterations at 1e-12: MuJoCo's default cap of 100
    const gdnSolverScene* kicked = gdn_oracle_solver_scene("stack kicked");
    CHECK(kicked != NULL);
    gdnSolverScene capped = *kicked;
    gdnSolverOutcome o;
    CHECK(gdn_oracle_solver_run(&capped, mjSOL_CG, GDN_SOL_CG, &o) == 0);
    CHECK(o.iter_mj == 100 && o.iter_gdn == 100);
    CHECK(o.converged == 0);
    CHECK(o.err_qacc <= MATCH_TOL && o.err_force <= MATCH_TOL);
    gdnSolverScene one = {.name = "humanoid 1 iteration", .path = HUMANOID,
                          .cone = mjCONE_ELLIPTIC, .steps = 600, .kick = 3, .coldstart = 1,
                          .iterations = 1};
    CHECK(gdn_oracle_solver_run(&one, mjSOL_CG, GDN_SOL_CG, &o) == 0);
    CHECK(o.iter_mj == 1 && o.iter_gdn == 1);
    CHECK(o.converged == 0);
    CHECK(o.err_qacc <= MATCH_TOL && o.err_force <= MATCH_TOL);
    return 0;
}

// 4b. every arena size from none to enough: GDN_ERR_MEMORY with the fallback, or the solution
// of the full arena (bit for bit, same iterations and convergence flag)
static int check_arena_sweep(const gdnSolverScene* s) {
    gdnSolverProblem p;
    CHECK(s != NULL);
    CHECK(gdn_oracle_solver_open(s, mjSOL_CG, &p) == 0);
    gdnData* gd = p.gd;
    const int nv = p.mm->nv, nefc = gd->nefc;
    double qacc_ref[GDN_ORACLE_SOLVER_MAXNV];
    gd->maxuse_arena = gd->parena;
    const size_t base = gd->parena;
    CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_CG) == GDN_OK);
    const int iter_ref = gd->solver_iter, converged_ref = gd->solver_converged;
    memcpy(qacc_ref, gd->qacc, sizeof(double) * (size_t)nv);
    const size_t need = gd->maxuse_arena - base;
    int nmemory = 0, nok = 0;
    for (size_t avail = 0; avail <= need + 128; avail += 8) {
        gd->parena = gd->narena - avail;
        const int warnings = gd->warning[GDN_WARN_ARENA];
        gdnStatus st = gdn_oracle_solver_solve(&p, GDN_SOL_CG);
        CHECK(gd->parena == gd->narena - avail);
        CHECK(st == GDN_OK || st == GDN_ERR_MEMORY);
        if (st == GDN_ERR_MEMORY) {
            nmemory++;
            CHECK(gd->solver_converged == 0);
            CHECK(gd->warning[GDN_WARN_ARENA] > warnings);
            CHECK(memcmp(gd->qacc, gd->qacc_smooth, sizeof(double) * (size_t)nv) == 0);
            for (int i = 0; i < nefc; i++) {
                CHECK(gd->efc_force[i] == 0);
            }
        } else {
            nok++;
            CHECK(gd->solver_iter == iter_ref && gd->solver_converged == converged_ref);
            CHECK(memcmp(gd->qacc, qacc_ref, sizeof(double) * (size_t)nv) == 0);
        }
    }
    printf("  %-24s arena %zu bytes needed: %d sizes out of memory, %d solved\n", s->name,
           need, nmemory, nok);
    CHECK(nmemory > 0 && nok > 0);
    gd->parena = base;
    gdn_oracle_solver_close(&p);
    return 0;
}

static int test_arena_too_small(void) {
    // converges
    CHECK(check_arena_sweep(gdn_oracle_solver_scene("humanoid kicked ellip")) == 0);
    // capped at 100 iterations, unconverged
    return check_arena_sweep(gdn_oracle_solver_scene("stack kicked ellip dim6"));
}

// 4c. no rows; non-finite rows: never a crash, never a converged non-finite answer
static int test_degenerate(void) {
    const gdnSolverScene* limit = gdn_oracle_solver_scene("pendulum at limit");
    CHECK(limit != NULL);
    gdnSolverProblem p;
    CHECK(gdn_oracle_solver_open(limit, mjSOL_CG, &p) == 0);
    gdnData* gd = p.gd;
    CHECK(gd->nefc == 1);
    gd->nefc = 0;
    CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_CG) == GDN_OK);
    CHECK(gd->solver_converged == 1 && gd->solver_iter == 0);
    CHECK(gd->qacc[0] == gd->qacc_smooth[0] && gd->qacc_warmstart[0] == gd->qacc_smooth[0]);
    gd->nefc = 1;
    const double aref = gd->efc_aref[0];
    gd->efc_aref[0] = NAN;
    gdnStatus st = gdn_oracle_solver_solve(&p, GDN_SOL_CG);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    CHECK(isfinite(gd->qacc[0]));
    gd->efc_aref[0] = aref;
    gd->qfrc_smooth[0] = INFINITY;
    st = gdn_oracle_solver_solve(&p, GDN_SOL_CG);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    CHECK(st != GDN_OK || isfinite(gd->qacc[0]));
    gdn_oracle_solver_close(&p);
    return 0;
}

static const gdnTestCase cases[] = {
    {"match_mujoco", test_match_mujoco},
    {"newton_agreement", test_newton_agreement},
    {"rollouts", test_rollouts},
    {"unconverged_reported", test_unconverged_reported},
    {"arena_too_small", test_arena_too_small},
    {"degenerate", test_degenerate},
};

GDN_TEST_MAIN(cases)
