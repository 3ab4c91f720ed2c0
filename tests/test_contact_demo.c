// SPDX-License-Identifier: Apache-2.0
// The contact demo's problem (examples/contact_push.c): the knot gradient through the contact
// solve vs central FD of the objective, and a short L-BFGS run that lowers the loss.
//
// FD: D_k = (J(x + h e_k) - J(x - h e_k)) / 2h with h = 1e-5 N on a knot (knots are 0 .. 8 N,
// J about 1): the truncation error h^2 J''' / 6 is near 1e-11 and the round-off of J
// (1e-16) / h near 1e-11, both far below the 1e-5 relative tolerance, while h is small enough
// that both samples usually keep the nominal rollout's branch. The gradient is the derivative
// of that branch (the contacts and the rows' states at every step); a sample that changes it
// (the box's floor contacts come and go as it hops while sliding, see examples/contact_demo.c)
// measures a jump, not a derivative, so such a knot is skipped and counted, and most knots
// must be checked. Measured: every knot on the nominal branch, agreement <= 1.5e-7.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "contact_push.h"
#include "lbfgs.h"
#include "runner/test.h"

#define SCENE GDN_SOURCE_DIR "/examples/models/push_box.xml"
#define FD_STEP 1e-5   // N
#define FD_TOL 1e-5
#define MAX_X 64

// the branch of every step of the last rollout into key (T): a hash of its contacts' geom pairs
// and its rows' types and states (FNV-1a)
static void branch_keys(const pushProblem* p, unsigned long long* key) {
    for (int t = 0; t < p->nstep; t++) {
        gdnTapeStep rec;
        unsigned long long h = GDN_TEST_FNV_OFFSET;
        if (gdn_tape_step(p->tape, t, &rec) == GDN_OK) {
            for (int c = 0; c < rec.ncon; c++) {
                h = gdn_test_fnv1a(h, &rec.contact[c].geom1, sizeof(int));
                h = gdn_test_fnv1a(h, &rec.contact[c].geom2, sizeof(int));
            }
            for (int r = 0; r < rec.nefc; r++) {
                h = gdn_test_fnv1a(h, &rec.efc_type[r], sizeof(int));
                h = gdn_test_fnv1a(h, &rec.efc_state[r], sizeof(int));
            }
        }
        key[t] = h;
    }
}

// gradient at x vs central FD on the knots in list; *checked = knots compared, *skipped =
// knots whose samples changed the branch (contacts or row states) at some step. 0 when every
// checked knot agrees
static int check_gradient(pushProblem* p, const double* x, const int* list, int nlist,
                          int* checked, int* skipped) {
    double g[MAX_X], xp[MAX_X], gmax = 0;
    CHECK(isfinite(push_objective(p, x, g)));
    unsigned long long* nominal = malloc(sizeof(*nominal) * 2 * (size_t)p->nstep);
    CHECK(nominal != NULL);
    unsigned long long* sample = nominal + p->nstep;
    branch_keys(p, nominal);
    for (int k = 0; k < p->nx; k++) {
        gmax = fmax(gmax, fabs(g[k]));
    }
    *checked = *skipped = 0;
    int bad = 0;
    for (int i = 0; i < nlist; i++) {
        int k = list[i], same = 1;
        double J[2];
        for (int s = 0; s < 2; s++) {
            memcpy(xp, x, sizeof(double) * (size_t)p->nx);
            xp[k] += s == 0 ? FD_STEP : -FD_STEP;
            J[s] = push_objective(p, xp, NULL);
            branch_keys(p, sample);
            same &= !memcmp(sample, nominal, sizeof(*nominal) * (size_t)p->nstep);
        }
        if (!same) {
            (*skipped)++;
            continue;
        }
        double D = (J[0] - J[1]) / (2 * FD_STEP);
        double err = fabs(g[k] - D) / fmax(fabs(D), 1e-3 * gmax);
        printf("  knot %2d: adjoint % .10e  FD % .10e  rel %.1e\n", k, g[k], D, err);
        bad |= !(err <= FD_TOL);
        (*checked)++;
    }
    free(nominal);
    return bad;
}

// the knots of the push (the first five knots of both motors)
static const int push_knots[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

// the gradient at the initial guess (one push, mostly along +x: the box slides and stops) and
// after a few L-BFGS iterations (pushes in x and y, the box turns)
static int test_gradient_vs_fd(void) {
    pushProblem p;
    if (push_problem_init(&p, SCENE, 600, 13, 200) != 0) {
        fprintf(stderr, "%s\n", p.err);
        return 1;
    }
    double x[MAX_X], lo[MAX_X], hi[MAX_X], hist[8];
    CHECK(p.nx <= MAX_X);
    push_initial_guess(&p, x);
    int checked = 0, skipped = 0;
    printf(" initial guess:\n");
    CHECK(check_gradient(&p, x, push_knots, 10, &checked, &skipped) == 0);
    printf("  %d knots checked, %d skipped (branch change)\n", checked, skipped);
    CHECK(checked >= 7);

    for (int k = 0; k < p.nx; k++) {
        lo[k] = -p.ctrl_max;
        hi[k] = p.ctrl_max;
    }
    lbfgsOptions opt = {5, 8, lo, hi, 1.0, 1e-12};
    CHECK(lbfgs_minimize(push_objective, &p, x, p.nx, &opt, hist, NULL) >= 1);
    printf(" after 5 L-BFGS iterations (loss %.3e):\n", hist[5]);
    CHECK(check_gradient(&p, x, push_knots, 10, &checked, &skipped) == 0);
    printf("  %d knots checked, %d skipped (branch change)\n", checked, skipped);
    CHECK(checked >= 7);
    push_problem_free(&p);
    return 0;
}

// 25 iterations of the demo's optimization: every rollout and gradient succeeds (the pairs
// are all differentiable) and the loss falls by more than 100x (the demo's run: x525 after 20)
static int test_loss_decreases(void) {
    pushProblem p;
    if (push_problem_init(&p, SCENE, 600, 13, 200) != 0) {
        fprintf(stderr, "%s\n", p.err);
        return 1;
    }
    double x[MAX_X], lo[MAX_X], hi[MAX_X], hist[26];
    push_initial_guess(&p, x);
    for (int k = 0; k < p.nx; k++) {
        lo[k] = -p.ctrl_max;
        hi[k] = p.ctrl_max;
    }
    lbfgsOptions opt = {25, 8, lo, hi, 1.0, 1e-12};
    int n = lbfgs_minimize(push_objective, &p, x, p.nx, &opt, hist, NULL);
    if (n < 0) {
        fprintf(stderr, "%s\n", p.err);
    }
    CHECK(n >= 1);
    printf("  loss %.4e -> %.4e in %d iterations (x%.1f), %d backward passes\n", hist[0],
           hist[n], n, hist[0] / hist[n], p.backward_passes);
    CHECK(hist[n] < 1e-2 * hist[0]);
    // the box ends within 2 cm of the target, at rest
    double q[8], v[8];
    CHECK(p.m->nq <= 8 && p.m->nv <= 8);
    CHECK(isfinite(push_objective(&p, x, NULL)));
    CHECK(gdn_tape_state(p.tape, p.nstep, q, v) == GDN_OK);
    double dist = hypot(p.box_origin[0] + q[p.qadr[0]] - p.target[0],
                        p.box_origin[1] + q[p.qadr[1]] - p.target[1]);
    printf("  final distance to the target %.2f mm, speed %.1e m/s\n", 1e3 * dist,
           hypot(v[p.vadr[0]], v[p.vadr[1]]));
    CHECK(dist < 0.02);
    push_problem_free(&p);
    return 0;
}

int main(int argc, char** argv) {
    const gdnTestCase cases[] = {
        {"gradient_vs_fd", test_gradient_vs_fd},
        {"loss_decreases", test_loss_decreases},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
