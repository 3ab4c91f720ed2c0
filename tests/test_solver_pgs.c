// SPDX-License-Identifier: Apache-2.0
// PGS constraint solver (MuJoCo 2.2.2's mj_solPGS) vs MuJoCo's PGS, vs our Newton, in rollouts,
// and on degenerate input.
//
// 1. MuJoCo's rows at the solver scenes (tests/oracle/solver_scenes.c, plus two welds) solved by
//    both engines' PGS from the same warm start with 1, 5 and 30 sweeps: same efc_force, qacc,
//    efc_state and sweep count. Then at MuJoCo's default tolerance 1e-8: the same number of
//    sweeps before the improvement test stops both.
// 2. Converged PGS (tolerance 1e-15) against our Newton solve of the same rows.
// 3. 500-step rollouts, gdn_step vs mj_step, both with solver PGS at default settings.
// 4. No rows, a short arena at every size, malformed elliptic rows, non-finite rows.
#define _POSIX_C_SOURCE 199309L // clock_gettime

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "constraint/solver.h"
#include "oracle/oracle.h"
#include "oracle/rollout_scenes.h"
#include "oracle/solver_problem.h"
#include "oracle/solver_scenes.h"
#include "runner/test.h"

// Agreement with MuJoCo's PGS after k sweeps. The AR diagonal and elliptic blocks, b, the
// factor of M and the map back to qacc are MuJoCo's operations in MuJoCo's order (same bits);
// only the row residual is summed differently (b_i + z_i . y + R_i f_i with y = Z' f kept
// current, against MuJoCo's b_i + AR_i . f over the dense row): a few ulps of
// |b_i| + sum_j |AR_ij f_j| per row update. A projected Gauss-Seidel sweep does not expand
// differences (each row update is a projection in the AR metric), so they add up over the
// updates: about k nefc eps relative to |f|, 30 x 120 x 1.1e-16 = 4e-13 for the largest problem
// at 30 sweeps, 1.3e-11 at 1000 sweeps. The discontinuous branches (a change that raises the
// cost by > 1e-10 is undone, a normal force below 1e-15 takes the normal update, the QCQP's
// stopping tests) could amplify round-off, but none of these problems sits on one.
#define MATCH_SWEEPS 1e-12  // relative, 1..30 sweeps
#define MATCH_CONVERGE 1e-10 // relative, up to 1000 sweeps

// converged PGS vs Newton (see test_converged_equals_newton)
#define CONVERGED_TOL 1e-15
#define CONVERGED_MAXSWEEP 100000
#define NEWTON_TOL 1e-6

// rollouts (see test_rollouts)
#define NSTEP 500
#define ROLLOUT_TOL 1e-9

// scenes beyond the shared ones: equality welds (two free bodies, a body to the world)
static const gdnSolverScene extra_scenes[] = {
    {.name = "welds", .path = "cnstr_weld.xml", .steps = 30, .qvel0 = {0.5, 0, 0.2, 1, 0, 2}},
};
#define NEXTRA ((int)(sizeof(extra_scenes) / sizeof(extra_scenes[0])))

static int nscenes(void) {
    return gdn_oracle_solver_nscenes + NEXTRA;
}

static const gdnSolverScene* scene(int i) {
    return i < gdn_oracle_solver_nscenes ? &gdn_oracle_solver_scenes[i]
                                         : &extra_scenes[i - gdn_oracle_solver_nscenes];
}

// ||a - b||_inf / max(||b||_inf, ||c||_inf, floor) (c: NULL or a second scale)
static double relerr3(const double* a, const double* b, const double* c, int n, double floor_) {
    double e = 0, s = floor_;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
        if (c) {
            s = fmax(s, fabs(c[i]));
        }
    }
    return e / s;
}

// qacc error against MuJoCo's, relative to the size of the terms qacc is summed from: qacc =
// qacc_smooth + sum_i M^-1 J_i' f_i, so force errors of a few ulps of the forces move qacc by
// ulps of sum_i |M^-1 J_i' f_i|, which can be far above |qacc| (at rest qacc is the small
// difference of qacc_smooth and the constraint term; a weld's row forces largely cancel).
// ||qacc - MuJoCo's||_inf / max_k (|qacc_smooth_k| + sum_i |(M^-1 J_i')_k f_i|) with MuJoCo's
// M^-1 and forces (md after mj_forward)
static double qacc_err(const mjModel* mm, mjData* md, const double* qacc) {
    const int nv = mm->nv;
    double scale[GDN_ORACLE_SOLVER_MAXNV], col[GDN_ORACLE_SOLVER_MAXNV];
    for (int k = 0; k < nv; k++) {
        scale[k] = fabs(md->qacc_smooth[k]);
    }
    for (int i = 0; i < md->nefc; i++) {
        mj_solveM(mm, md, col, md->efc_J + (size_t)i * (size_t)nv, 1);
        for (int k = 0; k < nv; k++) {
            scale[k] += fabs(col[k] * md->efc_force[i]);
        }
    }
    double err = 0, size = 1e-6;
    for (int k = 0; k < nv; k++) {
        err = fmax(err, fabs(qacc[k] - md->qacc[k]));
        size = fmax(size, scale[k]);
    }
    return err / size;
}

// ||qacc - ref||_inf relative to the largest of |ref|, |qacc_smooth| and |ref - qacc_smooth|
static double qacc_gap(const double* qacc, const double* ref, const double* qacc_smooth, int nv) {
    double e = 0, s = 1e-6;
    for (int i = 0; i < nv; i++) {
        e = fmax(e, fabs(qacc[i] - ref[i]));
        s = fmax(s, fmax(fabs(ref[i]), fmax(fabs(qacc_smooth[i]), fabs(ref[i] - qacc_smooth[i]))));
    }
    return e / s;
}

// MuJoCo's PGS solve (mj_forward from the saved warm start) and ours on its rows, with the same
// sweeps and tolerance in both; 0 on success
static int solve_both(gdnSolverProblem* p, int iterations, double tolerance) {
    p->mm->opt.solver = mjSOL_PGS;
    p->mm->opt.iterations = iterations;
    p->mm->opt.tolerance = tolerance;
    p->gm->opt.iterations = iterations;
    p->gm->opt.tolerance = tolerance;
    memcpy(p->md->qacc_warmstart, p->warm, sizeof(double) * (size_t)p->mm->nv);
    mj_forward(p->mm, p->md);
    if (gdn_oracle_solver_copy(p->mm, p->md, p->gd)) {
        return 1;
    }
    gdnStatus st = gdn_oracle_solver_solve(p, GDN_SOL_PGS);
    if (st != GDN_OK) {
        fprintf(stderr, "%s: %s\n", p->scene->name, gdn_status_string(st));
        return 1;
    }
    return 0;
}

// our PGS vs MuJoCo's after solve_both: force and qacc errors, sweeps, states
typedef struct Match {
    double err_force, err_qacc;
    int iter_mj, iter_gdn;
    int state_mismatch; // rows whose efc_state differs from MuJoCo's, cone-boundary ties aside
    int state_ties;     // rows of elliptic contacts on the cone boundary whose state differs
} Match;

// An elliptic contact whose friction the cone QCQP put on the ellipse has mu N = T in exact
// arithmetic (N = f_0 / mu, T = |f_j / friction_j|), where the dual state changes from
// satisfied (mu N >= T) to cone: its state is a round-off tie. 1 when the contact at row i
// (MuJoCo's forces) is within 1e-12 of that boundary
static int on_cone_boundary(const mjData* md, int i) {
    if (md->efc_type[i] != mjCNSTR_CONTACT_ELLIPTIC) {
        return 0;
    }
    const int first = md->contact[md->efc_id[i]].efc_address;
    const mjContact* con = md->contact + md->efc_id[i];
    double t2 = 0;
    for (int j = 1; j < con->dim; j++) {
        const double u = md->efc_force[first + j] / con->friction[j - 1];
        t2 += u * u;
    }
    const double muN = con->mu * (md->efc_force[first] / con->mu), T = sqrt(t2);
    return fabs(muN - T) <= 1e-12 * fmax(fabs(muN), T);
}

static Match match(const gdnSolverProblem* p) {
    Match r;
    mjData* md = p->md;
    const gdnData* gd = p->gd;
    r.err_force = relerr3(gd->efc_force, md->efc_force, NULL, md->nefc, 1e-6);
    r.err_qacc = qacc_err(p->mm, md, gd->qacc);
    r.iter_mj = md->solver_iter;
    r.iter_gdn = gd->solver_iter;
    r.state_mismatch = r.state_ties = 0;
    for (int i = 0; i < md->nefc; i++) {
        if (gd->efc_state[i] != md->efc_state[i]) {
            if (on_cone_boundary(md, i)) {
                r.state_ties++;
            } else {
                r.state_mismatch++;
            }
        }
    }
    return r;
}

// 1, 5 and 30 sweeps in both engines (tolerance -inf: no sweep count stops early; with 0 the
// scaled improvement of a converged sweep is a round-off +-1e-14, or a kept change up to
// +1e-10, and either engine may stop first)
static int test_sweeps_match_mujoco(void) {
    const int sweeps[3] = {1, 5, 30};
    double worst_force[3] = {0}, worst_qacc[3] = {0};
    int ties[3] = {0};
    for (int i = 0; i < nscenes(); i++) {
        gdnSolverProblem p;
        CHECK(gdn_oracle_solver_open(scene(i), mjSOL_NEWTON, &p) == 0);
        CHECK(p.md->nefc > 0);
        for (int k = 0; k < 3; k++) {
            CHECK(solve_both(&p, sweeps[k], -HUGE_VAL) == 0);
            Match r = match(&p);
            if (!(r.err_force <= MATCH_SWEEPS && r.err_qacc <= MATCH_SWEEPS) ||
                r.iter_gdn != sweeps[k] || r.iter_mj != sweeps[k] || r.state_mismatch) {
                printf("  %-24s %2d sweeps: efc_force %.2e qacc %.2e sweeps %d (MuJoCo %d), "
                       "%d states differ\n",
                       scene(i)->name, sweeps[k], r.err_force, r.err_qacc, r.iter_gdn, r.iter_mj,
                       r.state_mismatch);
            }
            CHECK(r.iter_gdn == sweeps[k] && r.iter_mj == sweeps[k]);
            CHECK(r.err_force <= MATCH_SWEEPS);
            CHECK(r.err_qacc <= MATCH_SWEEPS);
            CHECK(r.state_mismatch == 0);
            CHECK(p.gd->solver_converged == 0);
            worst_force[k] = fmax(worst_force[k], r.err_force);
            worst_qacc[k] = fmax(worst_qacc[k], r.err_qacc);
            ties[k] += r.state_ties;
        }
        gdn_oracle_solver_close(&p);
    }
    for (int k = 0; k < 3; k++) {
        printf("  %d scenes, %2d sweeps: worst efc_force %.2e, qacc %.2e (relative), same sweep "
               "counts, same states but %d elliptic rows on the cone boundary (ties)\n",
               nscenes(), sweeps[k], worst_force[k], worst_qacc[k], ties[k]);
    }
    return 0;
}

// MuJoCo's default tolerance 1e-8, up to 1000 sweeps: both stop after the same sweep (the
// termination rule and the improvement measure are MuJoCo's)
static int test_termination_matches_mujoco(void) {
    double worst_force = 0, worst_qacc = 0;
    int converged = 0, ties = 0;
    for (int i = 0; i < nscenes(); i++) {
        gdnSolverProblem p;
        CHECK(gdn_oracle_solver_open(scene(i), mjSOL_NEWTON, &p) == 0);
        CHECK(solve_both(&p, 1000, 1e-8) == 0);
        Match r = match(&p);
        printf("  %-24s nefc %3d  sweeps %4d (MuJoCo %4d)  converged %d  efc_force %.2e  "
               "qacc %.2e  improvement %.2e\n",
               scene(i)->name, p.md->nefc, r.iter_gdn, r.iter_mj, p.gd->solver_converged,
               r.err_force, r.err_qacc, p.gd->solver_residual);
        CHECK(r.iter_gdn == r.iter_mj);
        CHECK(r.err_force <= MATCH_CONVERGE);
        CHECK(r.err_qacc <= MATCH_CONVERGE);
        CHECK(r.state_mismatch == 0);
        // converged: the last sweep's scaled improvement is below the tolerance
        CHECK(p.gd->solver_converged == (p.gd->solver_residual < 1e-8));
        CHECK(p.gd->solver_converged || p.gd->solver_iter == 1000);
        converged += p.gd->solver_converged;
        ties += r.state_ties;
        worst_force = fmax(worst_force, r.err_force);
        worst_qacc = fmax(worst_qacc, r.err_qacc);
        gdn_oracle_solver_close(&p);
    }
    printf("  tolerance 1e-8: %d of %d scenes converged within 1000 sweeps; sweep counts equal "
           "MuJoCo's in all; worst efc_force %.2e, qacc %.2e; %d cone-boundary state ties\n",
           converged, nscenes(), worst_force, worst_qacc, ties);
    CHECK(converged >= nscenes() - 1);
    return 0;
}

// PGS run to convergence (scaled improvement below 1e-15, at most 100000 sweeps) against our
// Newton solve (tolerance 1e-12, equal to MuJoCo's Newton to 1e-8 by test_solver). Both
// minimize strictly convex problems dual to each other (R > 0), with one solution; PGS
// converges linearly, and what it leaves at that tolerance depends on the rate (measured
// 1e-16 to 1e-7 relative): NEWTON_TOL bounds it.
// MuJoCo 2.2.2's PGS can stall on elliptic cones: from a contact whose forces are all zero only
// the normal row is updated (clamped at 0), so a contact that only a joint normal and friction
// step would open stays closed, and every sweep is a fixed point. That happens in three kicked
// elliptic scenes, where MuJoCo's own PGS ends 0.2 to 1 (relative) from its own Newton solution
// at any number of sweeps. There we require MuJoCo's stalled answer (MATCH_CONVERGE).
static int test_converged_equals_newton(void) {
    double worst_force = 0, worst_qacc = 0;
    int stalled = 0;
    for (int i = 0; i < nscenes(); i++) {
        gdnSolverProblem p;
        CHECK(gdn_oracle_solver_open(scene(i), mjSOL_NEWTON, &p) == 0);
        const int nv = p.mm->nv, nefc = p.md->nefc;
        double qacc_newton[GDN_ORACLE_SOLVER_MAXNV], force_newton[1024];
        double qacc_mj_newton[GDN_ORACLE_SOLVER_MAXNV], force_mj_newton[1024];
        CHECK(nefc <= 1024);
        memcpy(qacc_mj_newton, p.md->qacc, sizeof(double) * (size_t)nv);
        memcpy(force_mj_newton, p.md->efc_force, sizeof(double) * (size_t)nefc);
        CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_NEWTON) == GDN_OK);
        CHECK(p.gd->solver_converged == 1);
        memcpy(qacc_newton, p.gd->qacc, sizeof(double) * (size_t)nv);
        memcpy(force_newton, p.gd->efc_force, sizeof(double) * (size_t)nefc);

        CHECK(solve_both(&p, CONVERGED_MAXSWEEP, CONVERGED_TOL) == 0);
        CHECK(p.gd->solver_converged == 1);
        const double* qs = p.gd->qacc_smooth;
        double ef = relerr3(p.gd->efc_force, force_newton, NULL, nefc, 1e-6);
        double ea = qacc_gap(p.gd->qacc, qacc_newton, qs, nv);
        double mj_gap = relerr3(p.md->efc_force, force_mj_newton, NULL, nefc, 1e-6);
        Match r = match(&p);
        int stall = mj_gap > 1e-3;
        if (stall) {
            // the stop at 1e-15 is a round-off tie (the stalled sweeps' improvement is noise):
            // compare with MuJoCo at a fixed sweep count instead
            CHECK(solve_both(&p, 1000, -HUGE_VAL) == 0);
            r = match(&p);
        }
        printf("  %-24s %5d sweeps: vs Newton efc_force %.2e qacc %.2e", scene(i)->name,
               p.gd->solver_iter, ef, ea);
        if (stall) {
            printf("; MuJoCo's PGS stalls too (%.1e from its Newton); 1000 sweeps: ours vs "
                   "MuJoCo's efc_force %.2e qacc %.2e",
                   mj_gap, r.err_force, r.err_qacc);
        }
        printf("\n");
        if (stall) {
            stalled++;
            CHECK(p.mm->opt.cone == mjCONE_ELLIPTIC);
            CHECK(r.err_force <= MATCH_CONVERGE && r.err_qacc <= MATCH_CONVERGE);
        } else {
            CHECK(ef <= NEWTON_TOL);
            CHECK(ea <= NEWTON_TOL);
            worst_force = fmax(worst_force, ef);
            worst_qacc = fmax(worst_qacc, ea);
        }
        gdn_oracle_solver_close(&p);
    }
    printf("  converged PGS vs Newton: worst efc_force %.2e, qacc %.2e (relative) over %d scenes; "
           "%d elliptic scenes where MuJoCo's PGS stalls\n",
           worst_force, worst_qacc, nscenes() - stalled, stalled);
    CHECK(stalled <= 3);
    return 0;
}

// the rollout scenes used here (tests/oracle/rollout_scenes.c, test_contact_rollout's), in this
// order
static const char* const roll_names[] = {
    "drop_box",       "drop_sphere",    "slide_pyramidal", "slide_elliptic", "tip_over_edge",
    "five_box_stack", "pendulum_limit", "fourbar_connect", "humanoid",
};
#define NROLL ((int)(sizeof(roll_names) / sizeof(roll_names[0])))

// a scene loaded in both engines (our loader, collision, rows) with constraints on and solver
// PGS at the model's own iterations and tolerance; the initial state in both datas
static int roll_open(const gdnRolloutScene* rs, gdnOracle* o) {
    if (gdn_oracle_rollout_open(o, rs)) {
        return 1;
    }
    o->mm->opt.solver = mjSOL_PGS;
    o->gm->opt.solver = GDN_SOL_PGS;
    return 0;
}

// seconds of CLOCK_MONOTONIC
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// microseconds per step of NSTEP-step PGS rollouts from the initial state, ours and mj_step,
// interleaved, the best of 5 (printed only)
static void print_rollout_timing(const gdnRolloutScene* rs) {
    gdnOracle o;
    if (!rs || roll_open(rs, &o)) {
        return;
    }
    mjData* init = mj_copyData(NULL, o.mm, o.md);
    double best_gdn = INFINITY, best_mj = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        gdn_data_reset(o.gm, o.gd);
        memcpy(o.gd->qpos, init->qpos, sizeof(double) * (size_t)o.mm->nq);
        memcpy(o.gd->qvel, init->qvel, sizeof(double) * (size_t)o.mm->nv);
        mj_copyData(o.md, o.mm, init);
        double t0 = now();
        for (int t = 0; t < NSTEP; t++) {
            gdn_step(o.gm, o.gd);
        }
        double t1 = now();
        for (int t = 0; t < NSTEP; t++) {
            mj_step(o.mm, o.md);
        }
        double t2 = now();
        best_gdn = fmin(best_gdn, (t1 - t0) / NSTEP);
        best_mj = fmin(best_mj, (t2 - t1) / NSTEP);
    }
    printf("  %s with PGS (%d iterations, tolerance %g): gdn_step %.1f us/step, mj_step %.1f "
           "us/step (best of 5 %d-step rollouts, interleaved)\n",
           rs->name, o.gm->opt.iterations, o.gm->opt.tolerance, 1e6 * best_gdn, 1e6 * best_mj,
           NSTEP);
    mj_deleteData(init);
    gdn_oracle_free(&o);
}

// NSTEP steps of gdn_step and mj_step with solver PGS at default iterations and tolerance.
// Collision, rows and M agree with MuJoCo to round-off (test_contact_rollout), the PGS iterate
// to ~1e-14 after any number of sweeps (above), and every step takes MuJoCo's sweep count (the
// improvement test is MuJoCo's; a step whose improvement sat within round-off of the tolerance
// could take one sweep more or less: none does). So the rollouts differ by round-off grown by
// the dynamics; MuJoCo's own growth of a 1e-12 change of the initial height is printed beside
// ours (~1e-11 over 500 steps in all but the stack, where it flips a contact at step 2).
// Measured: at most 1.2e-12 (slide_pyramidal; humanoid 2.5e-13), within MuJoCo's own growth
// of 1e-12; ROLLOUT_TOL = 1e-9 leaves three orders of magnitude for compiler and library
// round-off differences, and is still 1000x tighter than test_contact_rollout's Newton 1e-6.
static int test_rollouts(void) {
    double worst_all = 0;
    for (int k = 0; k < NROLL; k++) {
        const gdnRolloutScene* rs = gdn_oracle_rollout_scene(roll_names[k]);
        CHECK(rs != NULL);
        gdnOracle o;
        CHECK(roll_open(rs, &o) == 0);
        mjData* perturbed = mj_copyData(NULL, o.mm, o.md);
        CHECK(perturbed != NULL);
        perturbed->qpos[o.mm->nq > 2 ? 2 : 0] += 1e-12;
        double scratch[GDN_ORACLE_SOLVER_MAXNV];
        double worst = 0, worst_self = 0;
        long sweeps_gdn = 0, sweeps_mj = 0;
        int solves = 0, iter_mismatch = 0, unconverged = 0;
        for (int t = 0; t < NSTEP; t++) {
            mj_step(o.mm, o.md);
            mj_step(o.mm, perturbed);
            CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
            CHECK(o.gd->nefc == o.md->nefc);
            solves += o.gd->nefc > 0;
            sweeps_gdn += o.gd->solver_iter;
            sweeps_mj += o.md->solver_iter;
            iter_mismatch += o.gd->solver_iter != o.md->solver_iter;
            unconverged += o.gd->nefc > 0 && !o.gd->solver_converged;
            worst = gdn_oracle_worst(
                worst, gdn_oracle_qpos_distance(&o, o.gd->qpos, o.md->qpos, scratch));
            worst_self = gdn_oracle_worst(
                worst_self, gdn_oracle_qpos_distance(&o, perturbed->qpos, o.md->qpos, scratch));
        }
        printf("  %-16s %d steps: worst qpos %.2e | PGS sweeps %ld (MuJoCo %ld), %d of %d solves "
               "with another count, %d unconverged | MuJoCo after a 1e-12 change: %.2e\n",
               rs->name, NSTEP, worst, sweeps_gdn, sweeps_mj, iter_mismatch, solves, unconverged,
               worst_self);
        CHECK(solves > 0);
        CHECK(worst <= ROLLOUT_TOL);
        CHECK(iter_mismatch == 0);
        CHECK(gdn_oracle_warnings(&o) == 0);
        worst_all = fmax(worst_all, worst);
        mj_deleteData(perturbed);
        gdn_oracle_free(&o);
    }
    printf("  PGS rollouts: worst qpos difference %.2e over %d scenes\n", worst_all, NROLL);
    print_rollout_timing(gdn_oracle_rollout_scene("humanoid"));
    return 0;
}

// no rows (a scene without contacts, and nefc = 0 given directly); the arena short by any
// amount; malformed elliptic rows; non-finite rows: a status, never a crash
static int test_robustness(void) {
    // a rollout without rows: qacc = qacc_smooth, converged, 0 sweeps
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, GDN_TEST_MODELS "/double_pendulum.xml") == 0);
    o.gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    o.gm->opt.solver = GDN_SOL_PGS;
    for (int t = 0; t < 10; t++) {
        CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
        CHECK(o.gd->nefc == 0 && o.gd->solver_iter == 0 && o.gd->solver_converged == 1);
    }
    gdn_oracle_free(&o);

    gdnSolverProblem p;
    const gdnSolverScene* kicked = gdn_oracle_solver_scene("humanoid kicked ellip");
    CHECK(kicked != NULL);
    CHECK(gdn_oracle_solver_open(kicked, mjSOL_NEWTON, &p) == 0);
    gdnModel* gm = p.gm;
    gdnData* gd = p.gd;
    const int nv = gm->nv, nefc = p.md->nefc;
    gm->opt.solver = GDN_SOL_PGS;
    gm->opt.iterations = 100;
    gm->opt.tolerance = 1e-8;

    // nefc = 0 straight into the solver
    gd->nefc = 0;
    gd->solver_iter = 0;
    CHECK(gdn_solver_pgs(gm, gd, NULL, NULL, 100) == GDN_OK);
    CHECK(gd->solver_iter == 0 && gd->solver_converged == 1);
    for (int k = 0; k < nv; k++) {
        CHECK(gd->qacc[k] == gd->qacc_smooth[k] && gd->qfrc_constraint[k] == 0);
    }
    gd->nefc = nefc;

    // the arena short by any amount: GDN_ERR_MEMORY (counted) and the unconstrained answer, or
    // the full solve; the same solve once the arena is back
    CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_PGS) == GDN_OK);
    double qacc_full[GDN_ORACLE_SOLVER_MAXNV];
    memcpy(qacc_full, gd->qacc, sizeof(double) * (size_t)nv);
    const size_t used = gd->maxuse_arena, parena = gd->parena;
    int short_calls = 0;
    for (size_t left = 0; left <= used - parena + 64; left += 64) {
        const size_t narena = gd->narena;
        gd->narena = parena + left;
        int warn = gd->warning[GDN_WARN_ARENA];
        gdnStatus st = gdn_oracle_solver_solve(&p, GDN_SOL_PGS);
        gd->narena = narena;
        CHECK(st == GDN_OK || st == GDN_ERR_MEMORY);
        CHECK(gd->parena == parena);
        if (st == GDN_ERR_MEMORY) {
            short_calls++;
            CHECK(gd->warning[GDN_WARN_ARENA] > warn);
            CHECK(gd->solver_converged == 0);
            for (int k = 0; k < nv; k++) {
                CHECK(gd->qacc[k] == gd->qacc_smooth[k]);
            }
        } else {
            CHECK(memcmp(gd->qacc, qacc_full, sizeof(double) * (size_t)nv) == 0);
        }
    }
    CHECK(short_calls > 0);
    // the direct call with no arena left
    {
        const size_t narena = gd->narena;
        gd->narena = gd->parena;
        CHECK(gdn_solver_pgs(gm, gd, NULL, NULL, 100) == GDN_ERR_MEMORY);
        gd->narena = narena;
    }
    printf("  arena short by 0 .. %zu bytes: %d budgets refused with GDN_ERR_MEMORY, the others "
           "solved to the same bits\n",
           used - parena, short_calls);

    // an elliptic contact whose rows run past nefc, or with dim 7: GDN_ERR_ARG (from the solver
    // and from the entry, before the warm start reads the rows), the unconstrained answer
    int first_elliptic = -1;
    for (int i = 0; i < nefc && first_elliptic < 0; i++) {
        if (gd->efc_type[i] == GDN_CNSTR_CONTACT_ELLIPTIC) {
            first_elliptic = i;
        }
    }
    CHECK(first_elliptic >= 0);
    gdnContact* con = gd->contact + gd->efc_id[first_elliptic];
    const int dim = con->dim;
    const int bad_dims[2] = {7, nefc + 1};
    for (int k = 0; k < 2; k++) {
        con->dim = bad_dims[k];
        CHECK(gdn_solver_pgs(gm, gd, NULL, NULL, 10) == GDN_ERR_ARG);
        CHECK(gdn_oracle_solver_solve(&p, GDN_SOL_PGS) == GDN_ERR_ARG);
        CHECK(gd->solver_converged == 0);
        for (int j = 0; j < nv; j++) {
            CHECK(gd->qacc[j] == gd->qacc_smooth[j]);
        }
    }
    con->dim = dim;

    // non-finite rows or forces: never converged with a non-finite qacc
    gd->efc_aref[0] = NAN;
    gdnStatus st = gdn_oracle_solver_solve(&p, GDN_SOL_PGS);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    for (int j = 0; j < nv; j++) {
        CHECK(isfinite(gd->qacc[j]));
    }
    gd->efc_aref[0] = p.md->efc_aref[0];
    gd->efc_R[1] = INFINITY;
    st = gdn_oracle_solver_solve(&p, GDN_SOL_PGS);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    for (int j = 0; j < nv; j++) {
        CHECK(isfinite(gd->qacc[j]));
    }
    gdn_oracle_solver_close(&p);
    return 0;
}

static const gdnTestCase cases[] = {
    {"robustness", test_robustness},
    {"sweeps_match_mujoco", test_sweeps_match_mujoco},
    {"termination_matches_mujoco", test_termination_matches_mujoco},
    {"converged_equals_newton", test_converged_equals_newton},
    {"rollouts", test_rollouts},
};

GDN_TEST_MAIN(cases)
