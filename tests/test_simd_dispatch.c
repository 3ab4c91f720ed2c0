// SPDX-License-Identifier: Apache-2.0
// The many-column kernels' AVX2 copy gives the baseline's bits (math/simd.h): each kernel on
// random columns of every width up to 37, then A, B of gdn_transition_jacobians (memcmp) along
// rollouts of the constrained test models, humanoid.xml on its floor and smooth models.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "dynamics/damped_mass.h"
#include "dynamics/mass_factor.h"
#include "gradient/columns.h"
#include "math/simd.h"
#include "runner/models.h"
#include "runner/test.h"

#define HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"
#define MAXCOL 37

// the constrained test models (test_golden_constrained's list)
static const char* const kConstrained[] = {
    "cnstr_arm_motor.xml", "cnstr_box.xml",    "cnstr_fourbar.xml",   "cnstr_frictionloss.xml",
    "cnstr_pendulum.xml",  "cnstr_sphere.xml", "cnstr_weld.xml",      "dcon_pairs.xml",
    "scene_drop_box.xml",  "scene_tip.xml",    "sol_fourbar.xml",     "sol_stack.xml",
    "tangent_box_scene.xml",
};
#define NCONSTRAINED ((int)(sizeof(kConstrained) / sizeof(kConstrained[0])))

static void report_copy(void) {
    static int told = 0;
    if (!told) {
        told = 1;
        printf("AVX2 copy %s\n", gdn_simd_avx2_available()
                                     ? "available: compared with the baseline"
                                     : "not available here: the baseline compared with itself");
    }
}

static void fill(double* x, size_t n, unsigned long long* rng) {
    for (size_t i = 0; i < n; i++) {
        x[i] = gdn_test_uniform(rng, -1, 1);
    }
}

// the dense Cholesky solve: a random lower factor with some zero entries, every width
static int test_chol_columns(void) {
    report_copy();
    enum { N = 13 };
    unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    double L[N * N], X0[N * MAXCOL], Xb[N * MAXCOL], Xv[N * MAXCOL];
    memset(L, 0, sizeof L);
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < i; k++) {
            L[i * N + k] = (i + k) % 3 == 0 ? 0 : gdn_test_uniform(&rng, -0.5, 0.5);
        }
        L[i * N + i] = gdn_test_uniform(&rng, 1, 2);
    }
    for (int ncol = 1; ncol <= MAXCOL; ncol++) {
        fill(X0, (size_t)N * (size_t)ncol, &rng);
        memcpy(Xb, X0, sizeof(double) * (size_t)(N * ncol));
        memcpy(Xv, X0, sizeof(double) * (size_t)(N * ncol));
        gdn_simd_force_baseline(1);
        gdn_columns_chol_solve(L, N, Xb, ncol);
        gdn_simd_force_baseline(0);
        gdn_columns_chol_solve(L, N, Xv, ncol);
        CHECK(memcmp(Xb, Xv, sizeof(double) * (size_t)(N * ncol)) == 0);
    }
    return 0;
}

// X += J' Y by the scatter over rows and their recorded columns (the kernels' reference)
static void add_JT_reference(const gdnModel* m, const gdnData* d, double* X, const double* Y,
                             size_t ld, int ncol) {
    for (int k = 0; k < d->nefc; k++) {
        const int* col = d->efc_colind + d->efc_rowadr[k];
        for (int a = 0; a < d->efc_rownnz[k]; a++) {
            const double jv = d->efc_J[(size_t)k * (size_t)m->nv + (size_t)col[a]];
            if (jv != 0) {
                for (int c = 0; c < ncol; c++) {
                    X[(size_t)col[a] * ld + (size_t)c] += jv * Y[(size_t)k * ld + (size_t)c];
                }
            }
        }
    }
}

// the tree solve (gdn_columns_mass_solve: the first pass scattered, simple dofs skipped; the
// damped factor's: gathered) and X += J' Y at a constrained state of each model: both copies
// and a reference (the tree solve: gdn_mass_solve on every column, with no zero entries, so its
// skip of zeros does not act; X += J' Y: the scatter over rows)
static int kernels_on(const char* file) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 0x2545F4914F6CDD1DULL;
    for (int k = 0; k < 40; k++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    CHECK(gdn_forward(m, d) == GDN_OK);
    const int nv = m->nv, ne = d->nefc > 0 ? d->nefc : 1;
    const size_t big = (size_t)(nv > ne ? nv : ne) * MAXCOL;
    double* buf = malloc(sizeof(double) * (5 * big + (size_t)nv));
    CHECK(buf != NULL);
    double *X0 = buf, *Xb = X0 + big, *Xv = Xb + big, *Xs = Xv + big, *Y = Xs + big;
    double* col = Y + big;
    size_t mark = gdn_arena_mark(d);
    gdnMassFactor f;
    CHECK(gdn_mass_factor_alloc(m, d, NULL, &f) == GDN_OK);
    gdn_mass_factor(m, d->qM, NULL, &f);
    gdnDampedMass dm;
    CHECK(gdn_damped_mass_factor(m, d, 0.01, &dm) == GDN_OK);
    int status = 0;
    for (int ncol = 1; ncol <= MAXCOL && !status; ncol++) {
        const size_t sz = sizeof(double) * (size_t)nv * (size_t)ncol;
        fill(X0, (size_t)nv * (size_t)ncol, &rng);
        memcpy(Xb, X0, sz);
        memcpy(Xv, X0, sz);
        memcpy(Xs, X0, sz);
        gdn_simd_force_baseline(1);
        gdn_columns_mass_solve(m, &f, Xb, ncol);
        gdn_simd_force_baseline(0);
        gdn_columns_mass_solve(m, &f, Xv, ncol);
        for (int c = 0; c < ncol; c++) {
            for (int i = 0; i < nv; i++) {
                col[i] = Xs[(size_t)i * (size_t)ncol + (size_t)c];
            }
            gdn_mass_solve(m, &f, col);
            for (int i = 0; i < nv; i++) {
                Xs[(size_t)i * (size_t)ncol + (size_t)c] = col[i];
            }
        }
        status |= memcmp(Xb, Xv, sz) != 0;
        status |= memcmp(Xb, Xs, sz) != 0;
        // the damped factor's solve (its first pass gathered over the transpose lists)
        memcpy(Xb, X0, sz);
        memcpy(Xv, X0, sz);
        memcpy(Xs, X0, sz);
        gdn_simd_force_baseline(1);
        gdn_damped_mass_solve_columns(&dm, Xb, ncol, ncol);
        gdn_simd_force_baseline(0);
        gdn_damped_mass_solve_columns(&dm, Xv, ncol, ncol);
        for (int c = 0; c < ncol; c++) {
            for (int i = 0; i < nv; i++) {
                col[i] = Xs[(size_t)i * (size_t)ncol + (size_t)c];
            }
            gdn_mass_solve(m, &dm.f, col);
            for (int i = 0; i < nv; i++) {
                Xs[(size_t)i * (size_t)ncol + (size_t)c] = col[i];
            }
        }
        status |= memcmp(Xb, Xv, sz) != 0;
        status |= memcmp(Xb, Xs, sz) != 0;
        // X += J' Y
        fill(Y, (size_t)d->nefc * (size_t)ncol, &rng);
        memcpy(Xb, X0, sz);
        memcpy(Xv, X0, sz);
        memcpy(Xs, X0, sz);
        gdn_simd_force_baseline(1);
        gdn_columns_add_JT(m, d, Xb, Y, ncol, ncol);
        gdn_simd_force_baseline(0);
        gdn_columns_add_JT(m, d, Xv, Y, ncol, ncol);
        add_JT_reference(m, d, Xs, Y, (size_t)ncol, ncol);
        status |= memcmp(Xb, Xv, sz) != 0;
        status |= memcmp(Xb, Xs, sz) != 0;
        if (status) {
            fprintf(stderr, "%s: ncol %d: the copies differ\n", file, ncol);
        }
    }
    gdn_arena_reset(d, mark);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return status;
}

static int test_kernels(void) {
    report_copy();
    int failed = 0;
    for (int i = 0; i < NCONSTRAINED; i++) {
        failed |= kernels_on(kConstrained[i]);
    }
    failed |= kernels_on(HUMANOID);
    CHECK(!failed);
    return 0;
}

// A, B along a rollout: two data in lockstep, the first's Jacobians by the baseline copies,
// the second's by the CPU's choice; statuses equal, A and B bit-identical. from_step: the
// first step with Jacobians, then every 4th step, njac of them
static int jacobians_on(gdnModel* m, const char* name, int from_step, int njac) {
    gdnData *d1 = NULL, *d2 = NULL;
    CHECK(gdn_data_create(m, &d1) == GDN_OK);
    CHECK(gdn_data_create(m, &d2) == GDN_OK);
    const int nv = m->nv, nu = m->nu, n = 2 * nv;
    const size_t na = (size_t)n * (size_t)n, nb = (size_t)n * (size_t)nu;
    double* buf = calloc(2 * (na + nb) + 1, sizeof(double));
    CHECK(buf != NULL);
    double *A1 = buf, *B1 = A1 + na, *A2 = B1 + nb, *B2 = A2 + na;
    unsigned long long rng = 0xA4093822299F31D0ULL;
    for (int i = 0; i < nu; i++) {
        d1->ctrl[i] = d2->ctrl[i] = gdn_test_uniform(&rng, -0.5, 0.5);
    }
    int failed = 0, nefc_max = 0, compared = 0;
    for (int k = 0, done = 0; done < njac && !failed; k++) {
        if (k >= from_step && (k - from_step) % 4 == 0) {
            gdn_simd_force_baseline(1);
            gdnStatus s1 = gdn_transition_jacobians(m, d1, A1, nu ? B1 : NULL);
            gdn_simd_force_baseline(0);
            gdnStatus s2 = gdn_transition_jacobians(m, d2, A2, nu ? B2 : NULL);
            failed |= s1 != s2;
            failed |= memcmp(A1, A2, sizeof(double) * na) != 0;
            failed |= memcmp(B1, B2, sizeof(double) * nb) != 0;
            if (failed) {
                fprintf(stderr, "%s: step %d: the copies' A, B differ (status %d, %d)\n", name, k,
                        (int)s1, (int)s2);
            }
            compared += s1 == GDN_OK;
            nefc_max = d1->nefc > nefc_max ? d1->nefc : nefc_max;
            done++;
        }
        if (gdn_step(m, d1) != GDN_OK || gdn_step(m, d2) != GDN_OK) {
            fprintf(stderr, "%s: step %d failed\n", name, k);
            failed = 1;
        }
    }
    printf("  %-24s nv %2d nu %2d: %d of %d Jacobians compared (up to %d rows)\n", name, nv, nu,
           compared, njac, nefc_max);
    free(buf);
    gdn_data_free(d1);
    gdn_data_free(d2);
    CHECK(!failed);
    return 0;
}

static int test_jacobians_constrained(void) {
    report_copy();
    int failed = 0;
    for (int i = 0; i < NCONSTRAINED; i++) {
        gdnModel* m = gdn_test_load_model_as_is(kConstrained[i]);
        CHECK(m != NULL);
        failed |= jacobians_on(m, kConstrained[i], 14, 4);
        gdn_model_free(m);
    }
    // humanoid.xml fallen onto its floor from qpos0 (damped: the tree solve too)
    gdnModel* m = gdn_test_load_model_as_is(HUMANOID);
    CHECK(m != NULL);
    failed |= jacobians_on(m, "humanoid.xml (floor)", 150, 6);
    gdn_model_free(m);
    CHECK(!failed);
    return 0;
}

// the smooth path (constraints off): the damped tree solve
static int test_jacobians_smooth(void) {
    report_copy();
    int failed = 0;
    const char* const files[] = {"arm7.xml", "cnstr_arm_motor.xml", HUMANOID};
    const char* const names[] = {"arm7.xml", "cnstr_arm_motor.xml", "humanoid.xml"};
    for (int i = 0; i < 3; i++) {
        gdnModel* m = gdn_test_load_model(files[i]);
        CHECK(m != NULL);
        failed |= jacobians_on(m, names[i], 3, 3);
        gdn_model_free(m);
    }
    CHECK(!failed);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"chol_columns", test_chol_columns},
    {"kernels", test_kernels},
    {"jacobians_constrained", test_jacobians_constrained},
    {"jacobians_smooth", test_jacobians_smooth},
};
GDN_TEST_MAIN(CASES)
