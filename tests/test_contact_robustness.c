// SPDX-License-Identifier: Apache-2.0
// Robustness of the contact step: 10^4 random drops (single bodies, colliding pairs, stacks,
// piles of spheres, capsules, boxes, cylinders and ellipsoids with random sizes, poses,
// velocities, condim, cone and solver settings) stepped a few hundred times each: no NaN, no
// failed step, bounded buffers with reported overflow, every unconverged solve counted and
// printed (never hidden). The ASan build runs it too (with fewer drops, see DEFAULT_DROPS).
// A drop whose state stops being finite is replayed in MuJoCo 2.2.2 (same model, same initial
// velocities, mj_step): when MuJoCo diverges too (explicit Euler unstable for that thin, fast
// spinning body at that timestep) it is counted and printed as a shared divergence; otherwise
// it is a failure.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "runner/test.h"

// the full 10^4 drops in an optimized build; sanitized and unoptimized builds run 1/20 of them
// (the same first drops); GDN_ROBUST_DROPS=N overrides either
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define DEFAULT_DROPS 500
#else
#define DEFAULT_DROPS 10000
#endif

#define MAX_BODIES 5
#define XML_SIZE 8192

static const char* const shape_names[5] = {"sphere", "capsule", "box", "cylinder", "ellipsoid"};

// what the drops produced, summed over the run
typedef struct robustTally {
    long drops;
    long steps;
    long steps_with_rows;
    long unconverged;          // steps with rows whose solve did not converge
    long unconverged_drops;    // drops with at least one
    double worst_residual;     // largest final residual of an unconverged step
    long max_iter_hit;         // steps that used every allowed iteration
    long overflow_steps;       // steps with ncon_overflow > 0 (tiny nconmax drops)
    long efc_overflow_steps;   // steps with nefc_overflow > 0
    long max_ncon;
    long failures;             // non-OK step status or a non-finite state: the test fails
    long shared_divergence;    // non-finite in both engines (MuJoCo replay), not a failure
    long contacts;
} robustTally;

static double uniform(unsigned long long* rng, double lo, double hi) {
    return gdn_test_uniform(rng, lo, hi);
}

static int pick(unsigned long long* rng, int n) {
    int k = (int)uniform(rng, 0, n);
    return k < n ? k : n - 1;
}

// a random geom of one of the five shapes, sizes in [2 cm, 25 cm]; returns its bounding radius
static double append_geom(char* xml, size_t size, unsigned long long* rng) {
    int shape = pick(rng, 5);
    double a = uniform(rng, 0.02, 0.25), b = uniform(rng, 0.02, 0.25);
    double c = uniform(rng, 0.02, 0.25);
    static const int condims[4] = {1, 3, 4, 6};
    int condim = condims[pick(rng, 4)];
    double friction = uniform(rng, 0.1, 1.5);
    char sizes[128];
    double bound = a;
    switch (shape) {
    case 0:
        snprintf(sizes, sizeof(sizes), "%.6g", a);
        break;
    case 1:
    case 3:
        snprintf(sizes, sizeof(sizes), "%.6g %.6g", a, b);
        bound = a + b;
        break;
    default:
        snprintf(sizes, sizeof(sizes), "%.6g %.6g %.6g", a, b, c);
        bound = sqrt(a * a + b * b + c * c);
        break;
    }
    size_t used = strlen(xml);
    snprintf(xml + used, size - used,
             "<geom type='%s' size='%s' density='%.6g' condim='%d' friction='%.4g .01 .001'/>",
             shape_names[shape], sizes, uniform(rng, 200, 3000), condim, friction);
    return bound;
}

// a random unit quaternion as MJCF text
static void random_quat(unsigned long long* rng, char* out, size_t size) {
    double q[4], norm = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = uniform(rng, -1, 1);
        norm += q[i] * q[i];
    }
    norm = sqrt(fmax(norm, 1e-12));
    snprintf(out, size, "%.9g %.9g %.9g %.9g", q[0] / norm, q[1] / norm, q[2] / norm,
             q[3] / norm);
}

// the MJCF of drop k: scenario 0 one body, 1 two bodies thrown at each other, 2 a stack, 3 a
// pile; every 10th drop has a contact buffer of 2 (overflow), some a tiny row buffer
static int drop_xml(unsigned long long* rng, long k, char* xml, size_t size, int* nbody,
                    int* thrown) {
    int scenario = pick(rng, 4);
    int n = scenario == 0 ? 1 : scenario == 1 ? 2 : 2 + pick(rng, MAX_BODIES - 1);
    const char* cone = uniform(rng, 0, 1) < 0.5 ? "pyramidal" : "elliptic";
    int iterations = uniform(rng, 0, 1) < 0.2 ? 1 + pick(rng, 5) : 100;
    double timestep = uniform(rng, 0, 1) < 0.8 ? 0.002 : uniform(rng, 0.001, 0.004);
    char sizes[96] = "";
    if (k % 10 == 3) {
        snprintf(sizes, sizeof(sizes), "<size nconmax='2'/>");
    } else if (k % 10 == 7) {
        snprintf(sizes, sizeof(sizes), "<size njmax='5'/>");
    }
    snprintf(xml, size,
             "<mujoco>%s<option timestep='%.6g' cone='%s' iterations='%d' impratio='%.3g'/>"
             "<worldbody><geom type='plane' size='5 5 .1'/>",
             sizes, timestep, cone, iterations, uniform(rng, 0, 1) < 0.8 ? 1 : 10.0);
    double stack_z = 0;
    for (int b = 0; b < n; b++) {
        char quat[128];
        random_quat(rng, quat, sizeof(quat));
        char geom[512] = "";
        double bound = append_geom(geom, sizeof(geom), rng);
        double x = 0, y = 0, z = 0;
        if (scenario == 0) {
            z = bound + uniform(rng, -0.3 * bound, 0.5);
        } else if (scenario == 1) {
            x = b ? 0.4 : -0.4;
            z = bound + uniform(rng, 0, 0.3);
        } else if (scenario == 2) {
            x = uniform(rng, -0.03, 0.03);
            y = uniform(rng, -0.03, 0.03);
            z = stack_z + bound;
            stack_z = z + bound + uniform(rng, -0.02, 0.02);
        } else {
            x = uniform(rng, -0.3, 0.3);
            y = uniform(rng, -0.3, 0.3);
            z = bound + uniform(rng, -0.2 * bound, 0.6);
        }
        size_t used = strlen(xml);
        snprintf(xml + used, size - used,
                 "<body pos='%.6g %.6g %.6g' quat='%s'><freejoint/>%s</body>", x, y, z, quat,
                 geom);
    }
    size_t used = strlen(xml);
    snprintf(xml + used, size - used, "</worldbody></mujoco>");
    *nbody = n;
    *thrown = scenario == 1;
    return strlen(xml) + 1 >= size;
}

// replay a drop in MuJoCo: 1 when its state is not finite within steps (or it warns of a bad
// state and resets), 0 when it stays finite
static int mujoco_diverges(const char* xml, const double* qvel0, int steps) {
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    size_t len = strlen(xml);
    if (mj_makeEmptyFileVFS(&vfs, "drop.xml", (int)len) != 0) {
        return 0;
    }
    memcpy(vfs.filedata[0], xml, len);
    char err[512] = "";
    mjModel* mm = mj_loadXML("drop.xml", &vfs, err, (int)sizeof(err));
    mj_deleteVFS(&vfs);
    if (!mm) {
        return 0;
    }
    mjData* md = mj_makeData(mm);
    memcpy(md->qvel, qvel0, sizeof(double) * (size_t)mm->nv);
    int diverged = 0;
    for (int s = 0; s < steps && !diverged; s++) {
        mj_step(mm, md);
        for (int i = 0; i < mm->nv; i++) {
            diverged |= !isfinite(md->qvel[i]);
        }
        diverged |= md->warning[mjWARN_BADQACC].number > 0 ||
                    md->warning[mjWARN_BADQVEL].number > 0 ||
                    md->warning[mjWARN_BADQPOS].number > 0;
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
    return diverged;
}

// run one drop; failures are counted in t and described on stderr
static int run_drop(unsigned long long* rng, long k, robustTally* t) {
    char xml[XML_SIZE];
    int n = 0, thrown = 0;
    if (drop_xml(rng, k, xml, sizeof(xml), &n, &thrown) != 0) {
        fprintf(stderr, "drop %ld: XML too long\n", k);
        t->failures++;
        return 1;
    }
    gdnModel* m = NULL;
    char err[1024] = "";
    if (gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) !=
        GDN_OK) {
        fprintf(stderr, "drop %ld: load: %s\n%s\n", k, err, xml);
        t->failures++;
        return 1;
    }
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        fprintf(stderr, "drop %ld: data\n", k);
        gdn_model_free(m);
        t->failures++;
        return 1;
    }
    gdn_data_reset(m, d);

    // random velocities: thrown pairs toward each other, the rest anywhere
    for (int b = 0; b < n; b++) {
        double* v = d->qvel + 6 * b;
        for (int i = 0; i < 3; i++) {
            v[i] = uniform(rng, -3, 3);
            v[3 + i] = uniform(rng, -10, 10);
        }
        if (thrown) {
            v[0] = b ? -uniform(rng, 1, 6) : uniform(rng, 1, 6);
        }
    }

    double qvel0[6 * MAX_BODIES];
    memcpy(qvel0, d->qvel, sizeof(double) * (size_t)m->nv);
    int steps = 150 + pick(rng, 201);
    int unconverged = 0, failed = 0;
    for (int s = 0; s < steps && !failed; s++) {
        gdnStatus status = gdn_step(m, d);
        t->steps++;
        int finite = 1;
        for (int i = 0; i < m->nq; i++) {
            finite &= isfinite(d->qpos[i]);
        }
        for (int i = 0; i < m->nv; i++) {
            finite &= isfinite(d->qvel[i]);
        }
        if (status != GDN_OK || !finite) {
            int shared = mujoco_diverges(xml, qvel0, steps);
            printf("  drop %ld step %d: %s, state finite %d; MuJoCo %s\n", k, s,
                   gdn_status_string(status), finite,
                   shared ? "diverges too (shared)" : "stays finite (FAILURE)");
            if (shared) {
                t->shared_divergence++;
                break;
            }
            fprintf(stderr, "%s\n", xml);
            failed = 1;
            break;
        }
        if (d->ncon > d->maxcon || d->nefc > d->maxefc || d->ncon < 0 || d->nefc < 0) {
            fprintf(stderr, "drop %ld step %d: ncon %d / %d, nefc %d / %d\n", k, s, d->ncon,
                    d->maxcon, d->nefc, d->maxefc);
            failed = 1;
            break;
        }
        t->contacts += d->ncon;
        t->max_ncon = d->ncon > t->max_ncon ? d->ncon : t->max_ncon;
        t->overflow_steps += d->ncon_overflow > 0;
        t->efc_overflow_steps += d->nefc_overflow > 0;
        if (d->nefc > 0) {
            t->steps_with_rows++;
            if (d->solver_iter > m->opt.iterations) {
                fprintf(stderr, "drop %ld step %d: %d iterations > %d\n", k, s, d->solver_iter,
                        m->opt.iterations);
                failed = 1;
            }
            t->max_iter_hit += d->solver_iter >= m->opt.iterations;
            if (!d->solver_converged) {
                unconverged++;
                if (!(t->worst_residual >= d->solver_residual)) {
                    t->worst_residual = d->solver_residual;
                }
            }
        }
    }
    t->failures += failed;
    t->unconverged += unconverged;
    t->unconverged_drops += unconverged > 0;
    t->drops++;
    gdn_data_free(d);
    gdn_model_free(m);
    return failed;
}

// MuJoCo's warnings during a replay (printed by the replay's own line instead)
static void quiet_warning(const char* message) {
    (void)message;
}

// the drops: no failure allowed; unconverged solves and overflows counted and printed
static int test_random_drops(void) {
    mju_user_warning = quiet_warning;
    long drops = DEFAULT_DROPS;
    const char* env = getenv("GDN_ROBUST_DROPS");
    if (env && atol(env) > 0) {
        drops = atol(env);
    }
    robustTally t;
    memset(&t, 0, sizeof(t));
    unsigned long long rng = 0x9e3779b97f4a7c15ULL;
    for (long k = 0; k < drops; k++) {
        run_drop(&rng, k, &t);
        if (t.failures > 10) {
            break;
        }
    }
    printf("  %ld drops, %ld steps (%ld with constraint rows), %ld contacts (max %ld per step)\n"
           "  unconverged solves: %ld steps in %ld drops (largest final residual %.3g); steps "
           "at the iteration limit: %ld\n"
           "  overflow reported: %ld steps with ncon_overflow (nconmax 2 drops), %ld with "
           "nefc_overflow (njmax 5 drops); failures %ld; diverging in both engines %ld\n",
           t.drops, t.steps, t.steps_with_rows, t.contacts, t.max_ncon, t.unconverged,
           t.unconverged_drops, t.worst_residual, t.max_iter_hit, t.overflow_steps,
           t.efc_overflow_steps, t.failures, t.shared_divergence);
    CHECK(t.failures == 0);
    CHECK(t.drops == drops);
    CHECK(t.overflow_steps > 0);
    CHECK(t.efc_overflow_steps > 0);
    // the 1..5-iteration drops cannot all converge: their solves must show up as unconverged
    CHECK(t.unconverged > 0);
    return 0;
}

// a solve with too few iterations is reported unconverged, step after step; a model with no
// room for its contacts reports the overflow every step (3 of the 4 box corners at first; the
// box then sinks and tilts under the 1-iteration solves) and never writes past the buffer
static int test_reported_status(void) {
    const char* xml =
        "<mujoco><size nconmax='1'/><option iterations='1' tolerance='1e-15'/><worldbody>"
        "<geom type='plane' size='5 5 .1'/>"
        "<body pos='0 0 .09'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
        "</worldbody></mujoco>";
    gdnModel* m = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) ==
          GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    CHECK(d->maxcon == 1);
    int unconverged = 0;
    for (int s = 0; s < 50; s++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        if (d->ncon != 1 || d->ncon_overflow < 1 || (s == 0 && d->ncon_overflow != 3)) {
            fprintf(stderr, "step %d: ncon %d overflow %d z %g\n", s, d->ncon, d->ncon_overflow,
                    d->qpos[2]);
            return 1;
        }
        CHECK(d->solver_iter <= 1);
        unconverged += !d->solver_converged;
    }
    printf("  nconmax 1 on a box: ncon 1, ncon_overflow 3 (then >= 1) every step; 1 iteration, "
           "tolerance "
           "1e-15: %d of 50 steps unconverged\n", unconverged);
    CHECK(unconverged > 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// every arena size from none to enough, for a constrained step of the five-box stack with each
// solver: the step either succeeds with the full arena's result (bit for bit) or returns
// GDN_ERR_MEMORY / GDN_ERR_NONFINITE with the state unchanged; never a silently wrong result
// (a stage that cannot get scratch writes NaN or returns the memory error)
static int test_step_arena_sweep(void) {
    const int solvers[3] = {GDN_SOL_NEWTON, GDN_SOL_CG, GDN_SOL_PGS};
    const char* names[3] = {"Newton", "CG", "PGS"};
    for (int k = 0; k < 3; k++) {
        gdnModel* m = NULL;
        char err[512];
        CHECK(gdn_load_xml(GDN_TEST_MODELS "/sol_stack.xml", &m, err, (int)sizeof(err), NULL,
                           0) == GDN_OK);
        m->opt.solver = solvers[k];
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        gdn_data_reset(m, d);
        for (int t = 0; t < 50; t++) {
            CHECK(gdn_step(m, d) == GDN_OK);
        }
        CHECK(d->nefc > 0);
        const size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
        double* q0 = malloc(sizeof(double) * (nq + 2 * nv));
        double* ref = malloc(sizeof(double) * (nq + nv));
        CHECK(q0 && ref);
        memcpy(q0, d->qpos, sizeof(double) * nq);
        memcpy(q0 + nq, d->qvel, sizeof(double) * nv);
        memcpy(q0 + nq + nv, d->qacc_warmstart, sizeof(double) * nv);
        const double t0 = d->time;

        // the full arena's step and how much of the arena it uses
        d->maxuse_arena = 0;
        CHECK(gdn_step(m, d) == GDN_OK);
        const size_t need = d->maxuse_arena;
        memcpy(ref, d->qpos, sizeof(double) * nq);
        memcpy(ref + nq, d->qvel, sizeof(double) * nv);

        int refused = 0, solved = 0;
        for (size_t avail = 0; avail <= need + 64; avail += 64) {
            memcpy(d->qpos, q0, sizeof(double) * nq);
            memcpy(d->qvel, q0 + nq, sizeof(double) * nv);
            memcpy(d->qacc_warmstart, q0 + nq + nv, sizeof(double) * nv);
            d->time = t0;
            d->parena = avail < d->narena ? d->narena - avail : 0;
            gdnStatus st = gdn_step(m, d);
            CHECK(d->parena == (avail < d->narena ? d->narena - avail : 0));
            if (st == GDN_OK) {
                CHECK(memcmp(d->qpos, ref, sizeof(double) * nq) == 0);
                CHECK(memcmp(d->qvel, ref + nq, sizeof(double) * nv) == 0);
                solved++;
            } else {
                CHECK(st == GDN_ERR_MEMORY || st == GDN_ERR_NONFINITE);
                CHECK(memcmp(d->qpos, q0, sizeof(double) * nq) == 0);
                CHECK(memcmp(d->qvel, q0 + nq, sizeof(double) * nv) == 0);
                CHECK(d->time == t0);
                refused++;
            }
        }
        d->parena = 0;
        printf("  %s step on the stack: %zu arena bytes needed; %d sizes refused (state "
               "unchanged), %d stepped bit for bit as the full arena\n",
               names[k], need, refused, solved);
        CHECK(refused > 0 && solved > 0);
        CHECK(d->warning[GDN_WARN_ARENA] > 0);

        // the void stages without scratch: NaN outputs (never the previous call's values)
        d->parena = d->narena - 8;
        gdn_crb(m, d);
        gdn_rne(m, d, 0, d->qfrc_bias);
        gdn_kinematics(m, d);
        d->parena = 0;
        CHECK(isnan(d->qM[0]) && isnan(d->qM[nv * nv - 1]));
        CHECK(isnan(d->qfrc_bias[0]) && isnan(d->qfrc_bias[nv - 1]));
        CHECK(isnan(d->subtree_com[3]) && isnan(d->subtree_com[3 * m->nbody - 1]));
        free(q0);
        free(ref);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}

static const gdnTestCase cases[] = {
    {"reported_status", test_reported_status},
    {"step_arena_sweep", test_step_arena_sweep},
    {"random_drops", test_random_drops},
};

GDN_TEST_MAIN(cases)
