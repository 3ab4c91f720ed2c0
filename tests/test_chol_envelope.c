// SPDX-License-Identifier: Apache-2.0
// The envelope (profile) Cholesky routines give bit for bit the dense routines' results: random
// symmetric positive definite matrices whose rows start at random first[i] (blocks of several
// trees, some rows reaching back across blocks, as contacts between bodies couple them), then
// factor, solve, and sequences of rank-one updates and downdates with x inside the envelope
// (x_i != 0 only where first[i] <= the first nonzero column of x), each with and without the
// column lists. Also the dense routines on exact-zero blocks stay exact zeros (the envelope's
// premise).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/solver.h"
#include "runner/test.h"

// lower triangles of a and b bit for bit equal (n x n row-major)
static int same_lower(const double* a, const double* b, int n) {
    for (int i = 0; i < n; i++) {
        if (memcmp(a + (size_t)i * n, b + (size_t)i * n, sizeof(double) * (size_t)(i + 1))) {
            return 0;
        }
    }
    return 1;
}

// a random envelope: rows in blocks (trees) starting at the block start, and a few rows
// reaching further back (a coupling row), first[i] <= i
static void random_first(int* first, int n, unsigned long long* rng) {
    int block_start = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && gdn_test_uniform(rng, 0, 1) < 0.15) {
            block_start = i;
        }
        first[i] = block_start;
        if (gdn_test_uniform(rng, 0, 1) < 0.1) {
            first[i] = (int)gdn_test_uniform(rng, 0, block_start + 0.999);
        }
    }
}

// a symmetric H with random entries inside the envelope (some of them exact zeros), +0 left of
// first[i], and the diagonal n + u: diagonally dominant, hence positive definite
static void random_spd(double* H, const int* first, int n, unsigned long long* rng) {
    memset(H, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++) {
        for (int j = first[i]; j < i; j++) {
            double v = gdn_test_uniform(rng, -1, 1);
            if (gdn_test_uniform(rng, 0, 1) < 0.3) {
                v = 0; // exact zeros inside the envelope too
            }
            H[(size_t)i * n + j] = v;
            H[(size_t)j * n + i] = v;
        }
        H[(size_t)i * n + i] = n + gdn_test_uniform(rng, 0, 1);
    }
}

// x inside the envelope: from a random column c on, x_i != 0 only for rows with first[i] <= c
static void random_update(double* x, const int* first, int n, unsigned long long* rng) {
    int c = (int)gdn_test_uniform(rng, 0, n - 0.001);
    for (int i = 0; i < n; i++) {
        x[i] = 0;
        if (i >= c && first[i] <= c && gdn_test_uniform(rng, 0, 1) < 0.6) {
            x[i] = gdn_test_uniform(rng, -1, 1);
        }
    }
    x[c] = 0.5 + gdn_test_uniform(rng, 0, 1);
}

static int test_envelope_equals_dense(void) {
    unsigned long long rng = 0xe17e10be5ull;
    int cases = 0, updates = 0, signed_zeros = 0;
    for (int trial = 0; trial < 60; trial++) {
        const int n = 2 + (int)gdn_test_uniform(&rng, 0, 90);
        const size_t nn = (size_t)n * (size_t)n;
        int* first = malloc(sizeof(int) * (size_t)n);
        int* last = malloc(sizeof(int) * (size_t)n);
        int* colstart = malloc(sizeof(int) * (size_t)(n + 1));
        double* A = malloc(sizeof(double) * nn);
        double* B = malloc(sizeof(double) * nn);
        double* vec = malloc(sizeof(double) * (size_t)n);
        double* ra = malloc(sizeof(double) * (size_t)n);
        double* rb = malloc(sizeof(double) * (size_t)n);
        double* xa = malloc(sizeof(double) * (size_t)n);
        double* xb = malloc(sizeof(double) * (size_t)n);
        CHECK(first && last && colstart && A && B && vec && ra && rb && xa && xb);
        random_first(first, n, &rng);
        int* colrows = malloc(sizeof(int) * (gdn_chol_envelope_count(first, n) + 1));
        CHECK(colrows);
        for (int lists = 0; lists < 2; lists++) {
            gdnCholEnvelope env = {first, last, lists ? colstart : NULL,
                                   lists ? colrows : NULL};
            gdn_chol_envelope_finish(&env, n);
            random_spd(A, first, n, &rng);
            memcpy(B, A, sizeof(double) * nn);
            CHECK(gdn_chol_factor(A, n, 1e-15) == gdn_chol_factor_env(B, n, 1e-15, &env));
            CHECK(same_lower(A, B, n));
            for (int i = 0; i < n; i++) {
                vec[i] = gdn_test_uniform(&rng, -1, 1);
            }
            gdn_chol_solve(ra, A, vec, n);
            gdn_chol_solve_env(rb, B, vec, n, &env);
            CHECK(memcmp(ra, rb, sizeof(double) * (size_t)n) == 0);
            // updates (plus) and downdates of what was added (minus)
            for (int u = 0; u < 8; u++) {
                random_update(xa, first, n, &rng);
                memcpy(xb, xa, sizeof(double) * (size_t)n);
                const int plus = u % 2 == 0;
                if (!plus) {
                    for (int i = 0; i < n; i++) {
                        xa[i] *= 0.25;
                        xb[i] *= 0.25;
                    }
                }
                CHECK(gdn_chol_update(A, xa, n, plus) == gdn_chol_update_env(B, xb, n, plus, &env));
                CHECK(same_lower(A, B, n));
                updates++;
            }
            gdn_chol_solve(ra, A, vec, n);
            gdn_chol_solve_env(rb, B, vec, n, &env);
            CHECK(memcmp(ra, rb, sizeof(double) * (size_t)n) == 0);
            // right-hand sides with +0 and -0 entries: zero results whose sign the dense
            // order decides (memcmp compares the sign bits too)
            for (int i = 0; i < n; i++) {
                double u = gdn_test_uniform(&rng, 0, 1);
                vec[i] = u < 0.3 ? 0.0 : u < 0.6 ? -0.0 : vec[i];
            }
            gdn_chol_solve(ra, A, vec, n);
            gdn_chol_solve_env(rb, B, vec, n, &env);
            CHECK(memcmp(ra, rb, sizeof(double) * (size_t)n) == 0);
            for (int i = 0; i < n; i++) {
                signed_zeros += ra[i] == 0 ? 1 : 0;
            }
            cases++;
        }
        free(first);
        free(last);
        free(colstart);
        free(colrows);
        free(A);
        free(B);
        free(vec);
        free(ra);
        free(rb);
        free(xa);
        free(xb);
    }
    printf("  %d random envelopes (n 2-91, with and without column lists): factor, solves and "
           "%d rank-one updates bit for bit the dense results; %d zero solution entries with "
           "the dense sign\n", cases, updates, signed_zeros);
    CHECK(signed_zeros > 100);
    return 0;
}

static const gdnTestCase cases[] = {
    {"envelope_equals_dense", test_envelope_equals_dense},
};

GDN_TEST_MAIN(cases)
