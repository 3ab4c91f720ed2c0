// SPDX-License-Identifier: Apache-2.0
// The Newton solve keeps what implicit differentiation needs: d->solver_H, the Cholesky factor
// of the primal Hessian at the solution. At the minimum the gradient M a - qfrc_smooth - J' f(a)
// vanishes; with the active set fixed, differentiating it gives H da = d qfrc_smooth, so
//   d qacc / d qfrc_applied = H^-1     (qfrc_smooth contains qfrc_applied with weight 1).
// Checks, on states along our own rollouts of the contact scenes (both cones, limits, an
// equality), solved with Newton at tolerance 1e-14:
// 1. L L' = M + sum over quadratic rows D_i J_i' J_i when no elliptic contact is in the cone
//    state (the cone Hessians are MuJoCo's formulas, covered by check 2): to HESS_TOL relative.
//    L comes from rank-one updates and downdates, hence round-off above a direct factorization.
// 2. H^-1 e_k equals the central difference of qacc in qfrc_applied[k] (step EPS relative to
//    the force scale) for every dof k, where the active set (efc_state) is the same at +EPS and
//    -EPS (else the derivative does not exist there and the state is counted, not compared):
//    to IFT_TOL relative. The solve is piecewise linear in qfrc_applied except in the cone
//    state, so the difference is exact to round-off and the solver tolerance, plus O(EPS^2)
//    for cones.
// 3. solver_H_valid is 0 after CG, PGS and a step without rows.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "constraint/solver.h"
#include "oracle/oracle.h"
#include "oracle/rollout_scenes.h"
#include "runner/test.h"

#define NSTEP 300        // rollout steps per scene, states sampled every SAMPLE steps
#define SAMPLE 25
#define TIGHT_TOL 1e-14  // Newton tolerance of the sampled solves
#define EPS 1e-6         // finite-difference step, relative to max(1, |qfrc_smooth|)
#define HESS_TOL 1e-10   // L L' vs the assembled Hessian
#define IFT_TOL 1e-6     // H^-1 vs the central difference

typedef struct Report {
    int states, hess_compared, cone_states, columns, columns_skipped;
    double hess_err, ift_err;
} Report;

// |L L' - (M + J' D_q J)| / |M + J' D_q J| (max norms); -1 when a row is in the cone state
static double hessian_error(const gdnModel* m, const gdnData* d, double* H) {
    const int nv = m->nv;
    for (int i = 0; i < d->nefc; i++) {
        if (d->efc_state[i] == GDN_CNSTRSTATE_CONE) {
            return -1;
        }
    }
    memcpy(H, d->qM, sizeof(double) * (size_t)nv * (size_t)nv);
    for (int i = 0; i < d->nefc; i++) {
        if (d->efc_state[i] != GDN_CNSTRSTATE_QUADRATIC) {
            continue;
        }
        const double* Ji = d->efc_J + (size_t)i * (size_t)nv;
        for (int r = 0; r < nv; r++) {
            for (int c = 0; c < nv; c++) {
                H[r * nv + c] += d->efc_D[i] * Ji[r] * Ji[c];
            }
        }
    }
    const double* L = d->solver_H;
    double err = 0, norm = 0;
    for (int r = 0; r < nv; r++) {
        for (int c = 0; c <= r; c++) {
            double s = 0;
            for (int k = 0; k <= c; k++) {
                s += L[r * nv + k] * L[c * nv + k];
            }
            err = gdn_oracle_worst(err, fabs(s - H[r * nv + c]));
            norm = fmax(norm, fabs(H[r * nv + c]));
        }
    }
    return err / norm;
}

// gdn_forward at the saved state with qfrc_applied[k] += delta; qacc and efc_state out
static int solve_with(const gdnModel* m, gdnData* d, const double* state, int k, double delta,
                      double* qacc, int* efc_state, int* nefc) {
    const int nq = m->nq, nv = m->nv;
    memcpy(d->qpos, state, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, state + nq, sizeof(double) * (size_t)nv);
    memcpy(d->qacc_warmstart, state + nq + nv, sizeof(double) * (size_t)nv);
    memset(d->qfrc_applied, 0, sizeof(double) * (size_t)nv);
    if (k >= 0) {
        d->qfrc_applied[k] = delta;
    }
    CHECK(gdn_forward(m, d) == GDN_OK);
    memcpy(qacc, d->qacc, sizeof(double) * (size_t)nv);
    memcpy(efc_state, d->efc_state, sizeof(int) * (size_t)d->nefc);
    *nefc = d->nefc;
    return 0;
}

// both checks at the current state of d
static int check_state(const gdnModel* m, gdnData* d, Report* r) {
    const int nq = m->nq, nv = m->nv;
    double* state = malloc(sizeof(double) * (size_t)(nq + 2 * nv));
    double* H = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
    double* Hinv_col = malloc(sizeof(double) * (size_t)nv);
    double* plus = malloc(sizeof(double) * (size_t)nv);
    double* minus = malloc(sizeof(double) * (size_t)nv);
    double* L = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
    int* st0 = malloc(sizeof(int) * (size_t)d->maxefc);
    int* stp = malloc(sizeof(int) * (size_t)d->maxefc);
    int* stm = malloc(sizeof(int) * (size_t)d->maxefc);
    CHECK(state && H && Hinv_col && plus && minus && L && st0 && stp && stm);
    memcpy(state, d->qpos, sizeof(double) * (size_t)nq);
    memcpy(state + nq, d->qvel, sizeof(double) * (size_t)nv);
    memcpy(state + nq + nv, d->qacc_warmstart, sizeof(double) * (size_t)nv);

    // the solution and its factor
    int n0, np, nm;
    CHECK(solve_with(m, d, state, -1, 0, plus, st0, &n0) == 0);
    if (n0 == 0) {
        goto done;
    }
    CHECK(d->solver_H_valid == 1 && d->solver_converged == 1);
    r->states++;
    double e = hessian_error(m, d, H);
    if (e < 0) {
        r->cone_states++;
    } else {
        r->hess_compared++;
        r->hess_err = gdn_oracle_worst(r->hess_err, e);
    }
    memcpy(L, d->solver_H, sizeof(double) * (size_t)nv * (size_t)nv);
    double scale = 1;
    for (int i = 0; i < nv; i++) {
        scale = fmax(scale, fabs(d->qfrc_smooth[i]));
    }
    const double h = EPS * scale;

    // every column of H^-1 against the central difference
    for (int k = 0; k < nv; k++) {
        CHECK(solve_with(m, d, state, k, h, plus, stp, &np) == 0);
        CHECK(solve_with(m, d, state, k, -h, minus, stm, &nm) == 0);
        if (np != n0 || nm != n0 || memcmp(stp, st0, sizeof(int) * (size_t)n0) != 0 ||
            memcmp(stm, st0, sizeof(int) * (size_t)n0) != 0) {
            r->columns_skipped++;
            continue;
        }
        for (int i = 0; i < nv; i++) {
            Hinv_col[i] = i == k;
        }
        gdn_chol_solve(Hinv_col, L, Hinv_col, nv);
        double err = 0, norm = 0;
        for (int i = 0; i < nv; i++) {
            double fd = (plus[i] - minus[i]) / (2 * h);
            err = gdn_oracle_worst(err, fabs(fd - Hinv_col[i]));
            norm = fmax(norm, fabs(Hinv_col[i]));
        }
        r->ift_err = gdn_oracle_worst(r->ift_err, err / norm);
        r->columns++;
    }
done:
    // restore the state (no applied force)
    memcpy(d->qpos, state, sizeof(double) * (size_t)nq);
    memcpy(d->qvel, state + nq, sizeof(double) * (size_t)nv);
    memcpy(d->qacc_warmstart, state + nq + nv, sizeof(double) * (size_t)nv);
    memset(d->qfrc_applied, 0, sizeof(double) * (size_t)nv);
    free(state);
    free(H);
    free(Hinv_col);
    free(plus);
    free(minus);
    free(L);
    free(st0);
    free(stp);
    free(stm);
    return 0;
}

static int test_factor_and_ift(void) {
    const char* names[] = {"drop_box",     "slide_pyramidal", "slide_elliptic",
                           "tip_over_edge", "five_box_stack", "pendulum_limit",
                           "fourbar_connect", "humanoid"};
    for (size_t s = 0; s < sizeof(names) / sizeof(names[0]); s++) {
        const gdnRolloutScene* scene = gdn_oracle_rollout_scene(names[s]);
        CHECK(scene != NULL);
        gdnOracle o;
        CHECK(gdn_oracle_rollout_open(&o, scene) == 0);
        gdnModel* m = o.gm;
        gdnData* d = o.gd;
        Report r = {0};
        for (int t = 0; t < NSTEP; t++) {
            CHECK(gdn_step(m, d) == GDN_OK);
            if (t % SAMPLE == SAMPLE - 1) {
                const double tol = m->opt.tolerance;
                m->opt.tolerance = TIGHT_TOL;
                int bad = check_state(m, d, &r);
                m->opt.tolerance = tol;
                CHECK(bad == 0);
            }
        }
        gdn_oracle_free(&o);
        printf("  %-16s %2d solved states: L L' vs M + J'DJ %.2e (%d states, %d with cones); "
               "H^-1 vs central differences %.2e (%d columns, %d skipped: active set changes)\n",
               names[s], r.states, r.hess_err, r.hess_compared, r.cone_states, r.ift_err,
               r.columns, r.columns_skipped);
        CHECK(r.states > 0 && r.columns > 0);
        CHECK(r.hess_err <= HESS_TOL);
        CHECK(r.ift_err <= IFT_TOL);
    }
    return 0;
}

// only a Newton solve with rows leaves a valid factor
static int test_valid_flag(void) {
    const gdnRolloutScene* scene = gdn_oracle_rollout_scene("five_box_stack");
    CHECK(scene != NULL);
    gdnOracle o;
    CHECK(gdn_oracle_rollout_open(&o, scene) == 0);
    const int solvers[3] = {GDN_SOL_NEWTON, GDN_SOL_CG, GDN_SOL_PGS};
    const int expect[3] = {1, 0, 0};
    for (int k = 0; k < 3; k++) {
        o.gm->opt.solver = solvers[k];
        CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
        CHECK(o.gd->nefc > 0 && o.gd->solver_H_valid == expect[k]);
    }
    o.gm->opt.solver = GDN_SOL_NEWTON;
    o.gm->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    CHECK(gdn_step(o.gm, o.gd) == GDN_OK);
    CHECK(o.gd->nefc == 0 && o.gd->solver_H_valid == 0);
    gdn_oracle_free(&o);
    return 0;
}

static const gdnTestCase cases[] = {
    {"factor_and_ift", test_factor_and_ift},
    {"valid_flag", test_valid_flag},
};

GDN_TEST_MAIN(cases)
