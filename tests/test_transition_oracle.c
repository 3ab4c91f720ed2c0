// SPDX-License-Identifier: Apache-2.0
// Exact transition Jacobians A, B (gdn_transition_jacobians) vs MuJoCo 2.2.2's
// mjd_transitionFD (centered differences, eps 1e-6) on the contact-free models.
//
// Same model (loaded by both engines), same timestep and Euler integrator, constraints disabled
// in MuJoCo, same random state (qpos, qvel, ctrl with 20% of the draws beyond ctrlrange,
// qfrc_applied, xfrc_applied). Both use the tangent-space layout [dq (nv), dv (nv)].
//
// Tolerance from MuJoCo's own FD accuracy: we measure it on every sample as the difference
// between its centered A at eps 1e-6 and at eps 1e-5 (truncation O(eps^2) plus round-off
// O(1e-16 / eps)); the worst seen is printed. Reference numbers (shared/reference/mujoco.md
// section 7): centered FD is good to about 1e-8 relative (4.5e-6 on entries up to 145 for a
// humanoid). Relative error is ||ours - mujoco||_inf / max(||mujoco||_inf, 1); the test
// requires it below TOL = 1e-6 (measured self-discrepancy: at most 1.1e-7 on slider.xml,
// 4e-9 elsewhere) and below 10x that sample's self-discrepancy plus 1e-9.
//
// MuJoCo 2.2.2's FD is occasionally broken on single entries: on humanoid32 we saw
// A[dq'_0][dv_0] = -1.7e5 (exactly h = 0.002 for a free joint's translation) with its eps 1e-5
// run disagreeing by as much. Entries where MuJoCo's two step sizes disagree by more than
// UNRELIABLE (relative to max(||A||, 1)) are excluded from the comparison and counted; the
// test allows at most one such entry per sample and prints the total.
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>

#include "oracle/oracle.h"
#include "runner/test.h"

#define NSAMPLE 5
#define TOL 1e-6
#define UNRELIABLE 1e-4

static int compare_model(const char* path, double* worst_err, double* worst_self,
                         int* masked) {
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    const int nv = o.gm->nv, nu = o.gm->nu, n = 2 * nv;
    CHECK(o.mm->na == 0);
    CHECK(o.mm->opt.timestep == o.gm->opt.timestep);
    double* buf = calloc((size_t)(3 * n * n + 3 * n * (nu + 1)), sizeof(double));
    CHECK(buf);
    double *A = buf, *Amj = A + n * n, *Amj5 = Amj + n * n, *B = Amj5 + n * n;
    double *Bmj = B + n * (nu + 1), *Bmj5 = Bmj + n * (nu + 1);
    unsigned long long rng = 0xC0FFEE1234ULL;
    double model_err = 0, model_self = 0;
    for (int s = 0; s < NSAMPLE; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_ALL, 1.0);
        gdn_oracle_copy_state(&o);
        CHECK(gdn_transition_jacobians(o.gm, o.gd, A, B) == GDN_OK);
        mjd_transitionFD(o.mm, o.md, 1e-6, 1, Amj, Bmj, NULL, NULL);
        mjd_transitionFD(o.mm, o.md, 1e-5, 1, Amj5, Bmj5, NULL, NULL);
        // mask MuJoCo's self-inconsistent entries: ours copied over, so they compare equal
        double amax = 1;
        for (int i = 0; i < n * n; i++) {
            amax = fmax(amax, fabs(Amj[i]));
        }
        int nbad = 0;
        for (int i = 0; i < n * n; i++) {
            if (fabs(Amj[i] - Amj5[i]) > UNRELIABLE * amax) {
                nbad++;
                Amj[i] = Amj5[i] = A[i];
            }
        }
        CHECK(nbad <= 1);
        *masked += nbad;
        double ea = gdn_test_relerr(A, Amj, n * n, 1);
        double eb = nu ? gdn_test_relerr(B, Bmj, n * nu, 1) : 0;
        double sa = gdn_test_relerr(Amj5, Amj, n * n, 1);
        double sb = nu ? gdn_test_relerr(Bmj5, Bmj, n * nu, 1) : 0;
        double err = fmax(ea, eb), self = fmax(sa, sb);
        model_err = fmax(model_err, err);
        model_self = fmax(model_self, self);
        if (!(err <= TOL && err <= 10 * self + 1e-9)) {
            fprintf(stderr, "%s sample %d: A err %.3g, B err %.3g; MuJoCo self %.3g / %.3g\n",
                    o.name, s, ea, eb, sa, sb);
            CHECK_ARRAY_REL(A, Amj, n * n, TOL, 1);
            CHECK_ARRAY_REL(B, Bmj, n * nu, TOL, 1);
            return 1;
        }
    }
    CHECK(gdn_oracle_warnings(&o) == 0);
    printf("%-22s nv %2d nu %2d: max rel err vs mjd_transitionFD %.2e (MuJoCo self %.2e)\n",
           o.name, nv, nu, model_err, model_self);
    *worst_err = fmax(*worst_err, model_err);
    *worst_self = fmax(*worst_self, model_self);
    free(buf);
    gdn_oracle_free(&o);
    return 0;
}

static int test_models(void) {
    double err = 0, self = 0;
    int masked = 0;
    for (int i = 0; i < gdn_oracle_nmodels; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, gdn_oracle_models[i]);
        CHECK(compare_model(path, &err, &self, &masked) == 0);
    }
    printf("test models: worst %.2e, MuJoCo self-discrepancy worst %.2e, %d unreliable MuJoCo "
           "entries excluded\n", err, self, masked);
    return 0;
}

static int test_mujoco_humanoid(void) {
    double err = 0, self = 0;
    int masked = 0;
    CHECK(compare_model(GDN_ORACLE_MJ_HUMANOID, &err, &self, &masked) == 0);
    printf("humanoid.xml: %d unreliable MuJoCo entries excluded\n", masked);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"models", test_models},
    {"mujoco_humanoid", test_mujoco_humanoid},
};
GDN_TEST_MAIN(CASES)
