// SPDX-License-Identifier: Apache-2.0
// Exact transition Jacobians A, B through the constrained step (contacts, limits, friction loss,
// connect and weld; every pair kind the humanoid, the closed-form scene and the box scenes
// bring: plane/sphere/capsule/cylinder/ellipsoid, plane-box and box-box) vs MuJoCo 2.2.2's
// mjd_transitionFD (centered differences).
//
// Same state in both engines: the same XML loaded by both (sizes checked), constraints enabled
// in both, the state (qpos, qvel, ctrl) reached by a gdn_step rollout and copied into MuJoCo's
// data; after mj_forward / gdn_forward both must have the same contact count, row count and
// constrained qacc (to 1e-8 relative), else the sample fails.
//
// Solver settings on both sides: Newton, tolerance 1e-12, 1000 iterations. mjd_transitionFD
// differences whole steps, so a solve stopped at the default tolerance 1e-8 leaves an iterate
// error of ~1e-8 (relative to the cost scale) in every sample, which the centered quotient
// divides by 2 eps = 2e-6: up to ~1e-2 of pure solver noise. At 1e-12 Newton (quadratic
// convergence) stops at round-off after a few more iterations, so MuJoCo's FD differentiates
// the converged solution, which is what the implicit-function derivative is the derivative of.
// Warm start disabled on both sides (GDN_DSBL_WARMSTART, mjDSBL_WARMSTART): MuJoCo 2.2.2 picks
// the better of qacc_warmstart and qacc_smooth as the Newton start, and its FD samples then
// start from the previous sample's solution; with every solve started from qacc_smooth each FD
// sample is a pure function of its state (the converged answer is the same either way, the
// iterate error is not).
//
// One branch: a sample counts only when gradyn's steps from x +- 1e-5 e_i (every tangent
// direction of q and v and every control, 1e-5 being MuJoCo's larger eps) keep the nominal
// step's rows (count, types, states). Samples that do not are skipped and counted; every scene
// needs at least MIN_SAMPLES counted samples.
//
// Criterion (per entry of A and B, MuJoCo's FD error estimated elementwise):
//   |ours_ij - mj6_ij| <= K_SELF |mj6_ij - mj5_ij| + FLOOR * scale,  scale = max(|mj6|_max, 1)
// with mj6 = mjd_transitionFD(eps 1e-6), mj5 = mjd_transitionFD(eps 1e-5), K_SELF = 1 and
// FLOOR = 1e-8: |mj6 - mj5| is dominated by mj5's truncation error (O(eps^2): 100x mj6's), so it
// bounds MuJoCo's FD error at 1e-5 and overestimates its error at 1e-6 by ~100x, while round-off
// of mj6 (unit round-off ~1e-16 of the state over 2e-6, amplified by the stiff contact rows) is
// what FLOOR covers where the two step sizes happen to agree. In the norm:
// ||ours - mj6||_inf / scale <= TOL + ||mj6 - mj5||_inf / scale, TOL = 1e-6 (the issue's
// per-step bound). The printed ratio is max_ij |ours - mj6| / (|mj6 - mj5| + FLOOR scale);
// measured ~0.01 wherever truncation dominates, i.e. ours - mj6 is mj6's own O(eps^2) error.
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>

#include "oracle/oracle.h"
#include "runner/test.h"

#define K_SELF 1.0
#define FLOOR 1e-8
#define TOL 1e-6
#define BRANCH_EPS 1e-5
#define MIN_SAMPLES 3

typedef struct Scene {
    const char* path;     // model file (absolute, or relative to tests/models)
    const char* label;
    int cone;             // GDN_CONE_PYRAMIDAL or GDN_CONE_ELLIPTIC, both engines
    double qamp, vamp;    // initial tangent perturbation of qpos0, initial velocity amplitude
    double uamp;          // controls uniform in [-uamp, uamp] (clamped to ctrlrange)
    int first, stride;    // samples at steps first, first + stride, ...
    int nsample;
    unsigned long long seed;
} Scene;

// the step's rows of a gdnData, for the branch check
typedef struct Rows {
    int nefc, ncon;
    int type[1024], state[1024];
} Rows;

static void rows_of(const gdnData* d, Rows* r) {
    r->nefc = d->nefc;
    r->ncon = d->ncon;
    for (int i = 0; i < d->nefc && i < 1024; i++) {
        r->type[i] = d->efc_type[i];
        r->state[i] = d->efc_state[i];
    }
}

static int rows_equal(const Rows* a, const Rows* b) {
    if (a->nefc != b->nefc || a->ncon != b->ncon) {
        return 0;
    }
    for (int i = 0; i < a->nefc && i < 1024; i++) {
        if (a->type[i] != b->type[i] || a->state[i] != b->state[i]) {
            return 0;
        }
    }
    return 1;
}

// 1 when every step from x +- BRANCH_EPS e_i (q tangent, v, u) keeps the rows of the step from x
static int one_branch(const gdnModel* m, gdnData* d, const double* q, const double* v,
                      const double* u) {
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    Rows nom, pert;
    double* e = calloc((size_t)nv, sizeof(double));
    if (!e) {
        return 0;
    }
    int same = 1;
    for (int pass = -1; pass < 2 * (2 * nv + nu) && same; pass++) {
        gdn_data_reset(m, d);
        memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u, sizeof(double) * (size_t)nu);
        if (pass >= 0) {
            int dir = pass / 2;
            double h = (pass & 1) ? -BRANCH_EPS : BRANCH_EPS;
            if (dir < nv) {
                memset(e, 0, sizeof(double) * (size_t)nv);
                e[dir] = 1;
                gdn_integrate_pos(m, d->qpos, e, h);
            } else if (dir < 2 * nv) {
                d->qvel[dir - nv] += h;
            } else {
                d->ctrl[dir - 2 * nv] += h;
            }
        }
        if (gdn_step(m, d) != GDN_OK || d->nefc > 1024) {
            same = 0;
            break;
        }
        if (pass < 0) {
            rows_of(d, &nom);
        } else {
            rows_of(d, &pert);
            same = rows_equal(&nom, &pert);
        }
    }
    free(e);
    return same;
}

// worst per-entry ratio |a - b| / (|b - c| + floor) and whether every entry is within the
// criterion; n entries
static int entry_check(const double* ours, const double* mj6, const double* mj5, int n,
                       double scale, double* ratio, double* abs_err) {
    int ok = 1;
    for (int i = 0; i < n; i++) {
        double e = fabs(ours[i] - mj6[i]), s = fabs(mj6[i] - mj5[i]);
        double r = e / (s + FLOOR * scale);
        *ratio = gdn_oracle_worst(*ratio, r);
        *abs_err = gdn_oracle_worst(*abs_err, e / scale);
        if (!(e <= K_SELF * s + FLOOR * scale)) {
            if (ok) {
                fprintf(stderr, "  entry %d: ours %.12g mujoco(1e-6) %.12g mujoco(1e-5) %.12g\n",
                        i, ours[i], mj6[i], mj5[i]);
            }
            ok = 0;
        }
    }
    return ok;
}

static double maxabs(const double* a, int n) {
    double s = 1;
    for (int i = 0; i < n; i++) {
        s = fmax(s, fabs(a[i]));
    }
    return s;
}

static int run_scene(const Scene* sc) {
    char path[1024];
    if (sc->path[0] == '/') {
        snprintf(path, sizeof(path), "%s", sc->path);
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, sc->path);
    }
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    gdnModel* gm = o.gm;
    mjModel* mm = o.mm;
    // constraints on in both (gdn_oracle_load disables them), the same solver settings
    gm->opt.disableflags &= ~(int)GDN_DSBL_CONSTRAINT;
    mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    gm->opt.disableflags |= GDN_DSBL_WARMSTART;
    mm->opt.disableflags |= mjDSBL_WARMSTART;
    gm->opt.solver = GDN_SOL_NEWTON;
    mm->opt.solver = mjSOL_NEWTON;
    gm->opt.cone = (gdnCone)sc->cone;
    mm->opt.cone = sc->cone == GDN_CONE_ELLIPTIC ? mjCONE_ELLIPTIC : mjCONE_PYRAMIDAL;
    gm->opt.tolerance = mm->opt.tolerance = 1e-12;
    gm->opt.iterations = mm->opt.iterations = 1000;
    CHECK(mm->na == 0);
    CHECK(mm->opt.timestep == gm->opt.timestep);
    CHECK(mm->opt.integrator == mjINT_EULER);

    const int nq = gm->nq, nv = gm->nv, nu = gm->nu, n = 2 * nv;
    double* buf = calloc((size_t)(3 * n * n + 3 * n * (nu + 1) + 2 * nq + 2 * nv + nu + 1),
                         sizeof(double));
    CHECK(buf);
    double *A = buf, *Amj = A + n * n, *Amj5 = Amj + n * n, *B = Amj5 + n * n;
    double *Bmj = B + n * (nu + 1), *Bmj5 = Bmj + n * (nu + 1);
    double *q = Bmj5 + n * (nu + 1), *v = q + nq, *u = v + nv, *e = u + nu + 1;
    (void)e;
    gdnData* probe = NULL;
    CHECK(gdn_data_create(gm, &probe) == GDN_OK);

    // initial state: qpos0 (+) random tangent, random velocity and controls
    unsigned long long rng = sc->seed;
    gdn_data_reset(gm, o.gd);
    double* dq = calloc((size_t)nv, sizeof(double));
    CHECK(dq);
    for (int i = 0; i < nv; i++) {
        dq[i] = gdn_test_uniform(&rng, -sc->qamp, sc->qamp);
        o.gd->qvel[i] = gdn_test_uniform(&rng, -sc->vamp, sc->vamp);
    }
    gdn_integrate_pos(gm, o.gd->qpos, dq, 1.0);
    free(dq);
    for (int i = 0; i < nu; i++) {
        double c = gdn_test_uniform(&rng, -sc->uamp, sc->uamp);
        if (gm->actuator_ctrllimited[i]) {
            c = fmin(fmax(c, gm->actuator_ctrlrange[2 * i]), gm->actuator_ctrlrange[2 * i + 1]);
        }
        o.gd->ctrl[i] = c;
    }

    int counted = 0, skipped = 0, step = 0, maxnefc = 0, maxncon = 0;
    double worst_ratio = 0, worst_abs = 0, worst_self = 0, worst_rel = 0;
    for (int s = 0; s < sc->nsample; s++) {
        int target = sc->first + s * sc->stride;
        for (; step < target; step++) {
            CHECK(gdn_step(gm, o.gd) == GDN_OK);
        }
        memcpy(q, o.gd->qpos, sizeof(double) * (size_t)nq);
        memcpy(v, o.gd->qvel, sizeof(double) * (size_t)nv);
        memcpy(u, o.gd->ctrl, sizeof(double) * (size_t)nu);
        if (!one_branch(gm, probe, q, v, u)) {
            skipped++;
            continue;
        }
        // the same state in both engines, then the same contacts, rows and acceleration
        gdn_data_reset(gm, probe);
        memcpy(probe->qpos, q, sizeof(double) * (size_t)nq);
        memcpy(probe->qvel, v, sizeof(double) * (size_t)nv);
        memcpy(probe->ctrl, u, sizeof(double) * (size_t)nu);
        mj_resetData(mm, o.md);
        memcpy(o.md->qpos, q, sizeof(double) * (size_t)nq);
        memcpy(o.md->qvel, v, sizeof(double) * (size_t)nv);
        memcpy(o.md->ctrl, u, sizeof(double) * (size_t)nu);
        CHECK(gdn_forward(gm, probe) == GDN_OK);
        mj_forward(mm, o.md);
        if (probe->ncon != o.md->ncon || probe->nefc != o.md->nefc) {
            fprintf(stderr, "%s step %d: gradyn ncon %d nefc %d, MuJoCo ncon %d nefc %d\n",
                    sc->label, target, probe->ncon, probe->nefc, o.md->ncon, o.md->nefc);
            CHECK(0);
        }
        CHECK(probe->nefc > 0);
        CHECK_ARRAY_REL(probe->qacc, o.md->qacc, nv, 1e-8, 1);
        maxnefc = probe->nefc > maxnefc ? probe->nefc : maxnefc;
        maxncon = probe->ncon > maxncon ? probe->ncon : maxncon;

        CHECK(gdn_transition_jacobians(gm, probe, A, nu ? B : NULL) == GDN_OK);
        mjd_transitionFD(mm, o.md, 1e-6, 1, Amj, nu ? Bmj : NULL, NULL, NULL);
        mjd_transitionFD(mm, o.md, 1e-5, 1, Amj5, nu ? Bmj5 : NULL, NULL, NULL);
        double sa = maxabs(Amj, n * n), sb = nu ? maxabs(Bmj, n * nu) : 1;
        double ratio = 0, abs_err = 0;
        int ok = entry_check(A, Amj, Amj5, n * n, sa, &ratio, &abs_err);
        ok &= entry_check(B, Bmj, Bmj5, n * nu, sb, &ratio, &abs_err);
        double rel = fmax(gdn_test_relerr(A, Amj, n * n, 1),
                          nu ? gdn_test_relerr(B, Bmj, n * nu, 1) : 0);
        double self = fmax(gdn_test_relerr(Amj5, Amj, n * n, 1),
                           nu ? gdn_test_relerr(Bmj5, Bmj, n * nu, 1) : 0);
        worst_ratio = gdn_oracle_worst(worst_ratio, ratio);
        worst_abs = gdn_oracle_worst(worst_abs, abs_err);
        worst_rel = gdn_oracle_worst(worst_rel, rel);
        worst_self = gdn_oracle_worst(worst_self, self);
        if (getenv("GDN_TEST_VERBOSE")) {
            printf("  %s step %d: ncon %d nefc %d rel %.2e self %.2e ratio %.2f\n", sc->label,
                   target, probe->ncon, probe->nefc, rel, self, ratio);
        }
        if (!ok || !(rel <= TOL + self)) {
            fprintf(stderr, "%s step %d (ncon %d nefc %d): rel err %.3g, MuJoCo self %.3g, "
                    "worst entry ratio %.3g\n", sc->label, target, probe->ncon, probe->nefc,
                    rel, self, ratio);
            CHECK(0);
        }
        counted++;
    }
    CHECK(gdn_oracle_warnings(&o) == 0);
    printf("%-26s nv %2d nu %2d: %d samples (%d skipped: branch within 1e-5), ncon <= %d, "
           "nefc <= %d; rel err %.2e (MuJoCo self %.2e), entry err/scale <= %.2e, "
           "max |ours-mj6| / (|mj6-mj5| + 1e-8 scale) = %.3f\n",
           sc->label, nv, nu, counted, skipped, maxncon, maxnefc, worst_rel, worst_self,
           worst_abs, worst_ratio);
    fflush(stdout);
    CHECK(counted >= MIN_SAMPLES);
    gdn_data_free(probe);
    free(buf);
    gdn_oracle_free(&o);
    return 0;
}

// MuJoCo's humanoid dropped from its initial pose (torso at 1.5 m): it lands by about step 100
// (dt 0.005) and lies on its floor from about step 250; samples from step 110 to 781
static int test_humanoid(void) {
    static const Scene pyr = {GDN_ORACLE_MJ_HUMANOID, "humanoid (pyramidal)", GDN_CONE_PYRAMIDAL,
                              0.1, 0.5, 0.5, 110, 61, 12, 0x5EED01ULL};
    static const Scene ell = {GDN_ORACLE_MJ_HUMANOID, "humanoid (elliptic)", GDN_CONE_ELLIPTIC,
                              0.1, 0.5, 0.5, 110, 61, 12, 0x5EED02ULL};
    CHECK(run_scene(&pyr) == 0);
    CHECK(run_scene(&ell) == 0);
    return 0;
}

// hinge, slide and ball limits (cnstr_pendulum) and a motor-driven arm into its limits with
// friction loss (cnstr_arm_motor)
static int test_limits(void) {
    static const Scene pend = {"cnstr_pendulum.xml", "cnstr_pendulum (limits)",
                               GDN_CONE_PYRAMIDAL, 0.6, 3.0, 0, 5, 23, 12, 0x11A1ULL};
    static const Scene arm = {"cnstr_arm_motor.xml", "cnstr_arm_motor (limits)",
                              GDN_CONE_PYRAMIDAL, 0.3, 2.0, 3.0, 5, 19, 12, 0x11A2ULL};
    static const Scene fl = {"cnstr_frictionloss.xml", "cnstr_frictionloss",
                             GDN_CONE_PYRAMIDAL, 0.5, 2.0, 0, 3, 17, 12, 0x11A3ULL};
    CHECK(run_scene(&pend) == 0);
    CHECK(run_scene(&arm) == 0);
    CHECK(run_scene(&fl) == 0);
    return 0;
}

// fixed tendons (tendon_fixed): tendon limit and friction-loss rows, tendon spring-dampers,
// tendon actuators
static int test_tendons(void) {
    static const Scene ten = {"tendon_fixed.xml", "tendon_fixed (tendon rows)",
                              GDN_CONE_PYRAMIDAL, 0.3, 2.0, 1.5, 3, 17, 12, 0x7E4D0ULL};
    static const Scene spa = {"tendon_spatial.xml", "tendon_spatial (spatial tendon rows)",
                              GDN_CONE_PYRAMIDAL, 0.3, 2.0, 1.5, 3, 17, 12, 0x7E4D1ULL};
    CHECK(run_scene(&ten) == 0);
    static const Scene wra = {"tendon_wrap.xml", "tendon_wrap (wrapping tendons)",
                              GDN_CONE_PYRAMIDAL, 0.3, 2.0, 0.5, 3, 17, 12, 0x7E4D2ULL};
    CHECK(run_scene(&spa) == 0);
    CHECK(run_scene(&wra) == 0);
    return 0;
}

// a connect loop (cnstr_fourbar) and welds (cnstr_weld)
static int test_loops(void) {
    static const Scene four = {"cnstr_fourbar.xml", "cnstr_fourbar (connect)",
                               GDN_CONE_PYRAMIDAL, 0.02, 1.0, 0, 3, 29, 8, 0x100B1ULL};
    static const Scene weld = {"cnstr_weld.xml", "cnstr_weld (weld)", GDN_CONE_PYRAMIDAL, 0.02,
                               0.5, 0, 3, 29, 8, 0x100B2ULL};
    CHECK(run_scene(&four) == 0);
    CHECK(run_scene(&weld) == 0);
    return 0;
}

// joint equalities (eq_joint: polynomial couplings of hinges and slides, a held joint) and
// tendon equalities (eq_tendon: a fixed tendon following a cubic of a spatial one, a held
// spatial tendon)
static int test_equalities(void) {
    static const Scene jnt = {"eq_joint.xml", "eq_joint (joint equalities)", GDN_CONE_PYRAMIDAL,
                              0.3, 2.0, 0, 3, 17, 12, 0xE0A1ULL};
    static const Scene ten = {"eq_tendon.xml", "eq_tendon (tendon equalities)",
                              GDN_CONE_PYRAMIDAL, 0.3, 2.0, 0, 3, 17, 12, 0xE0A2ULL};
    CHECK(run_scene(&jnt) == 0);
    CHECK(run_scene(&ten) == 0);
    return 0;
}

// every closed-form pair resting on a floor and on each other, both cones
static int test_pairs(void) {
    static const Scene pyr = {"dcon_pairs.xml", "dcon_pairs (pyramidal)", GDN_CONE_PYRAMIDAL,
                              0.002, 0.05, 0, 5, 31, 8, 0xDC01ULL};
    static const Scene ell = {"dcon_pairs.xml", "dcon_pairs (elliptic)", GDN_CONE_ELLIPTIC,
                              0.002, 0.05, 0, 5, 31, 8, 0xDC02ULL};
    CHECK(run_scene(&pyr) == 0);
    CHECK(run_scene(&ell) == 0);
    return 0;
}

// box pairs: a box dropped on a plane (corner, edge, face), a block on a plank (box-box)
static int test_boxes(void) {
    static const Scene drop = {"cg_box_drop.xml", "cg_box_drop (plane-box)", GDN_CONE_PYRAMIDAL,
                               0.01, 0.1, 0.5, 80, 23, 12, 0xB0C1ULL};
    static const Scene drop_e = {"cg_box_drop.xml", "cg_box_drop (elliptic)", GDN_CONE_ELLIPTIC,
                                 0.01, 0.1, 0.5, 80, 23, 12, 0xB0C2ULL};
    static const Scene plank = {"cg_plank.xml", "cg_plank (box-box)", GDN_CONE_PYRAMIDAL, 0.002,
                                0.05, 8, 5, 19, 12, 0xB0C3ULL};
    CHECK(run_scene(&drop) == 0);
    CHECK(run_scene(&drop_e) == 0);
    CHECK(run_scene(&plank) == 0);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"boxes", test_boxes},
    {"limits", test_limits},
    {"tendons", test_tendons},
    {"loops", test_loops},
    {"equalities", test_equalities},
    {"pairs", test_pairs},
    {"humanoid", test_humanoid},
};
GDN_TEST_MAIN(CASES)
