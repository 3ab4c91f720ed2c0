// SPDX-License-Identifier: Apache-2.0
// Derivatives of constrained steps (limits, friction loss, connect loops, contacts) vs central
// finite differences of gdn_step, the adjoint identity, and A, B against the JVP.
//
// Finite differences: central, eps = 1e-6 along random unit-scale directions; positions as
// q (+) eps dq, outputs differenced in the tangent space (gdn_difference_pos). Truncation is
// O(eps^2) ~ 1e-12 relative to the curvature scale; round-off of a step ~ 1e-16 relative over
// 2 eps gives ~ 1e-10; the solve is run to tolerance 1e-14 (Newton reaches it in a few
// iterations), so its error over 2 eps stays below 1e-8. Hence the 1e-6 bound (the issue's).
// A sample counts only when both FD samples keep every row's state and the row set of the
// unperturbed step (one branch); the test requires most samples to count.
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "constraint/solver.h"
#include "runner/models.h"
#include "runner/test.h"

#define FD_FLOOR 1e-3

// FD step and bound by solver: Newton solves to round-off (above); CG and PGS stop on their
// cost improvement, leaving an iterate error ~1e-11 that FD divides by 2 eps, so they get a
// larger step (truncation ~1e-10) and the bound 1e-5 (their JVPs also match Newton's, below)
static double EPS = 1e-6, FD_TOL = 1e-6;
// a contact scene's rows are soft but stiff: jar = -f R spans ~1e-3 around a state boundary
// while d jar / dq ~ K ~ 1e3, so contacts take the step EPS_CONTACT (truncation ~1e-14,
// round-off ~1e-16 / 1e-7 = 1e-9)
static double EPS_SCALE = 1;

typedef struct {
    gdnModel* m;
    gdnData* d;
    int nq, nv, nu, nefc;
    double *q0, *v0, *u0;
    int* state0; // efc_state of the unperturbed step
    int* type0;
} Point;

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

static void load_state(Point* p) {
    gdn_data_reset(p->m, p->d);
    memcpy(p->d->qpos, p->q0, sizeof(double) * (size_t)p->nq);
    memcpy(p->d->qvel, p->v0, sizeof(double) * (size_t)p->nv);
    memcpy(p->d->ctrl, p->u0, sizeof(double) * (size_t)p->nu);
}

// one step from the point perturbed by e (dq, dv, du); 1 when its rows and states equal the
// unperturbed step's (same branch), 0 otherwise, -1 on failure
static int step_from(Point* p, const double* dq, const double* dv, const double* du, double e,
                     double* qn, double* vn) {
    load_state(p);
    if (dq) {
        gdn_integrate_pos(p->m, p->d->qpos, dq, e);
    }
    for (int i = 0; dv && i < p->nv; i++) {
        p->d->qvel[i] += e * dv[i];
    }
    for (int i = 0; du && i < p->nu; i++) {
        p->d->ctrl[i] += e * du[i];
    }
    if (gdn_step(p->m, p->d) != GDN_OK) {
        return -1;
    }
    memcpy(qn, p->d->qpos, sizeof(double) * (size_t)p->nq);
    memcpy(vn, p->d->qvel, sizeof(double) * (size_t)p->nv);
    if (p->d->nefc != p->nefc) {
        if (getenv("GDN_TEST_VERBOSE")) {
            fprintf(stderr, "  branch: nefc %d vs %d\n", p->d->nefc, p->nefc);
        }
        return 0;
    }
    for (int i = 0; i < p->nefc; i++) {
        if (p->d->efc_state[i] != p->state0[i] || p->d->efc_type[i] != p->type0[i]) {
            if (getenv("GDN_TEST_VERBOSE")) {
                fprintf(stderr, "  branch: row %d (type %d) state %d vs %d\n", i,
                        p->d->efc_type[i], p->d->efc_state[i], p->state0[i]);
            }
            return 0;
        }
    }
    return 1;
}

// central FD of the step along (dq, dv, du): out = [dq' (nv); dv' (nv)]; 1 on one branch
static int step_fd(Point* p, const double* dq, const double* dv, const double* du,
                   double* out) {
    const int nq = p->nq, nv = p->nv;
    double* buf = calloc((size_t)(2 * nq + 2 * nv), sizeof(double));
    if (!buf) {
        return -1;
    }
    double *qa = buf, *qb = qa + nq, *va = qb + nq, *vb = va + nv;
    int sa = step_from(p, dq, dv, du, EPS, qa, va);
    int sb = step_from(p, dq, dv, du, -EPS, qb, vb);
    gdn_difference_pos(p->m, out, 2 * EPS, qb, qa);
    for (int i = 0; i < nv; i++) {
        out[nv + i] = (va[i] - vb[i]) / (2 * EPS);
    }
    free(buf);
    load_state(p);
    return sa < 0 || sb < 0 ? -1 : sa && sb;
}

static void fill(double* x, int n, unsigned long long* rng) {
    for (int i = 0; i < n; i++) {
        x[i] = gdn_test_uniform(rng, -1, 1);
    }
}

// the unperturbed step's rows; -1 when it has none (nothing to test)
static int point_rows(Point* p) {
    load_state(p);
    if (gdn_step(p->m, p->d) != GDN_OK || p->d->nefc == 0) {
        return -1;
    }
    p->nefc = p->d->nefc;
    p->state0 = realloc(p->state0, sizeof(int) * (size_t)p->nefc);
    p->type0 = realloc(p->type0, sizeof(int) * (size_t)p->nefc);
    memcpy(p->state0, p->d->efc_state, sizeof(int) * (size_t)p->nefc);
    memcpy(p->type0, p->d->efc_type, sizeof(int) * (size_t)p->nefc);
    load_state(p);
    return 0;
}

// at the current point: JVP vs FD (each block and all at once), <JVP u, w> = <u, VJP w>,
// A, B columns vs the JVP. Returns 1 when the FD check counted, 0 when a branch changed,
// -1 on failure; *worst collects the largest FD error
static int check_point(Point* p, unsigned long long* rng, double* worst, double* worst_adj) {
    const int nv = p->nv, nu = p->nu, n = 2 * nv;
    // dq, dv (nv), du (nu + 1), jvp, fd, w (n), gq, gv (nv), gu (nu + 1), A (n n), B (n nu)
    const size_t total = (size_t)(2 * nv + (nu + 1) + 3 * n + 2 * nv + (nu + 1) + n * n + n * nu);
    double* buf = calloc(total, sizeof(double));
    CHECK(buf);
    double *dq = buf, *dv = dq + nv, *du = dv + nv, *jvp = du + nu + 1, *fd = jvp + n;
    double *w = fd + n, *gq = w + n, *gv = gq + nv, *gu = gv + nv;
    double *A = gu + nu + 1, *B = A + n * n;
    fill(dq, nv, rng);
    fill(dv, nv, rng);
    fill(du, nu, rng);
    int counted = 1;
    // each block alone, then all together
    for (int blk = 0; blk < 4; blk++) {
        const double* iq = blk == 0 || blk == 3 ? dq : NULL;
        const double* iv = blk == 1 || blk == 3 ? dv : NULL;
        const double* iu = (blk == 2 || blk == 3) && nu > 0 ? du : NULL;
        if (blk == 2 && nu == 0) {
            continue;
        }
        load_state(p);
        gdnStatus st = gdn_step_jvp(p->m, p->d, iq, iv, iu, NULL, NULL, jvp, jvp + nv);
        if (st != GDN_OK) {
            fprintf(stderr, "gdn_step_jvp: %s\n", gdn_status_string(st));
            free(buf);
            return -1;
        }
        int branch = step_fd(p, iq, iv, iu, fd);
        CHECK(branch >= 0);
        if (!branch) {
            counted = 0;
            continue;
        }
        double e = gdn_test_relerr(jvp, fd, n, FD_FLOOR);
        if (e > *worst) {
            *worst = e;
        }
        if (e > FD_TOL) {
            fprintf(stderr, "block %d: JVP vs FD relative error %.3g\n", blk, e);
            gdn_test_print_worst(jvp, fd, n);
            free(buf);
            return -1;
        }
    }
    // adjoint identity with the all-block JVP
    load_state(p);
    CHECK(gdn_step_jvp(p->m, p->d, dq, dv, nu ? du : NULL, NULL, NULL, jvp, jvp + nv) == GDN_OK);
    fill(w, n, rng);
    load_state(p);
    gdnStatus st = gdn_step_vjp(p->m, p->d, w, w + nv, gq, gv, nu ? gu : NULL, NULL, NULL);
    if (st != GDN_OK) {
        fprintf(stderr, "gdn_step_vjp: %s\n", gdn_status_string(st));
        free(buf);
        return -1;
    }
    // relative to the Cauchy-Schwarz scale ||J u|| ||w|| + ||u|| ||J' w||: a small <J u, w>
    // from cancellation does not inflate round-off
    double lhs = dot(jvp, w, n);
    double rhs = dot(dq, gq, nv) + dot(dv, gv, nv) + dot(du, gu, nu);
    double unorm = sqrt(dot(dq, dq, nv) + dot(dv, dv, nv) + dot(du, du, nu));
    double gnorm = sqrt(dot(gq, gq, nv) + dot(gv, gv, nv) + dot(gu, gu, nu));
    double scale = sqrt(dot(jvp, jvp, n)) * sqrt(dot(w, w, n)) + unorm * gnorm + 1e-300;
    double ea = fabs(lhs - rhs) / scale;
    if (ea > *worst_adj) {
        *worst_adj = ea;
    }
    if (ea > 1e-12) {
        fprintf(stderr, "adjoint identity: <Ju, w> = %.17g, <u, J'w> = %.17g\n", lhs, rhs);
        free(buf);
        return -1;
    }
    // A, B times the directions = the JVP
    load_state(p);
    CHECK(gdn_transition_jacobians(p->m, p->d, A, nu ? B : NULL) == GDN_OK);
    double* ab = fd;
    for (int i = 0; i < n; i++) {
        ab[i] = dot(A + (size_t)i * n, dq, nv) + dot(A + (size_t)i * n + nv, dv, nv) +
                (nu ? dot(B + (size_t)i * nu, du, nu) : 0);
    }
    double eab = gdn_test_relerr(ab, jvp, n, FD_FLOOR);
    if (eab > 1e-12) {
        fprintf(stderr, "A, B vs JVP: %.3g\n", eab);
        gdn_test_print_worst(ab, jvp, n);
        free(buf);
        return -1;
    }
    free(buf);
    load_state(p);
    return counted;
}

// setup: qpos (nq), qvel (nv) from the model's initial state and the rng, into p->q0, p->v0
typedef void setupFn(const gdnModel* m, double* q, double* v, double* u,
                     unsigned long long* rng);

// nsample random points of one model; every point must have rows and at least half must
// count (one branch); prints the worst errors
static int check_model(const char* file, setupFn* setup, int nsample, int solver, int cone) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    m->opt.solver = solver;
    EPS = (solver == GDN_SOL_NEWTON ? 1e-6 : 1e-5) * EPS_SCALE;
    FD_TOL = solver == GDN_SOL_NEWTON ? 1e-6 : 1e-5;
    m->opt.cone = cone;
    m->opt.tolerance = solver == GDN_SOL_PGS ? 1e-12 : 1e-14;
    m->opt.iterations = solver == GDN_SOL_PGS ? 20000 : 500;
    Point p = {0};
    p.m = m;
    CHECK(gdn_data_create(m, &p.d) == GDN_OK);
    p.nq = m->nq;
    p.nv = m->nv;
    p.nu = m->nu;
    p.q0 = calloc((size_t)(p.nq + p.nv + p.nu + 1), sizeof(double));
    CHECK(p.q0);
    p.v0 = p.q0 + p.nq;
    p.u0 = p.v0 + p.nv;
    unsigned long long rng = 12345;
    int counted = 0, rc = 0;
    double worst = 0, worst_adj = 0;
    for (int s = 0; s < nsample && rc == 0; s++) {
        gdn_data_reset(m, p.d);
        memcpy(p.q0, p.d->qpos, sizeof(double) * (size_t)p.nq);
        memset(p.v0, 0, sizeof(double) * (size_t)p.nv);
        setup(m, p.q0, p.v0, p.u0, &rng);
        if (point_rows(&p) != 0) {
            fprintf(stderr, "%s sample %d: no constraint rows\n", file, s);
            rc = 1;
            break;
        }
        int r = check_point(&p, &rng, &worst, &worst_adj);
        if (r < 0) {
            fprintf(stderr, "%s sample %d (nefc %d) failed\n", file, s, p.nefc);
            rc = 1;
        }
        counted += r > 0;
    }
    printf("    %s solver %d cone %d: %d/%d samples on one branch, JVP vs FD %.2g, adjoint "
           "%.2g\n",
           file, solver, cone, counted, nsample, worst, worst_adj);
    if (rc == 0 && 2 * counted < nsample) {
        fprintf(stderr, "%s: too few samples on one branch\n", file);
        rc = 1;
    }
    free(p.q0);
    free(p.state0);
    free(p.type0);
    gdn_data_free(p.d);
    gdn_model_free(m);
    return rc;
}

// ---------------------------------------------------------------- scenes

// a pendulum pushed past its limit, swinging into it
static void setup_limit(const gdnModel* m, double* q, double* v, double* u,
                        unsigned long long* rng) {
    (void)m;
    (void)u;
    q[0] = gdn_test_uniform(rng, 0.6, 0.62);
    v[0] = gdn_test_uniform(rng, 0.5, 2);
}

// friction loss on every dof: small velocities (quadratic zone) and large (linear)
static void setup_frictionloss(const gdnModel* m, double* q, double* v, double* u,
                               unsigned long long* rng) {
    (void)u;
    for (int i = 0; i < m->nq; i++) {
        q[i] = gdn_test_uniform(rng, -1, 1);
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -3, 3);
    }
}

// a loop closed by connect: any configuration (the constraint pulls it back), any velocity
static void setup_loop(const gdnModel* m, double* q, double* v, double* u,
                       unsigned long long* rng) {
    (void)u;
    for (int i = 0; i < m->nq; i++) {
        q[i] += gdn_test_uniform(rng, -0.05, 0.05);
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -1, 1);
    }
}

// cnstr_pendulum: hinge past its lower limit, slide past its upper, the ball rotated by
// 0.59 .. 0.62 about a random axis (range 0.6, margin 0.02: the row is on)
static void setup_ball(const gdnModel* m, double* q, double* v, double* u,
                       unsigned long long* rng) {
    (void)u;
    q[0] = gdn_test_uniform(rng, -0.52, -0.5);
    q[1] = gdn_test_uniform(rng, 0.1, 0.11);
    double axis[3];
    for (int k = 0; k < 3; k++) {
        axis[k] = gdn_test_uniform(rng, -1, 1);
    }
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double angle = gdn_test_uniform(rng, 0.59, 0.62);
    q[2] = cos(angle / 2);
    for (int k = 0; k < 3; k++) {
        q[3 + k] = sin(angle / 2) * axis[k] / n;
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -1, 1);
    }
}

static int test_ball_limit(void) {
    for (int s = 0; s < 3; s++) {
        CHECK(check_model("cnstr_pendulum.xml", setup_ball, 6, s, 0) == 0);
    }
    return 0;
}

// The JVP at CG's or PGS's solution against the JVP at Newton's, same state and direction: they
// stop on their cost improvement with a gradient residual ~1e-10 on stiff welds and contact
// stacks, too coarse for FD of their steps, but their linearization is the converged
// problem's: they agree to 1e-5
static int matches_newton(const char* file, setupFn* setup, int nsample, int solver, int cone) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    m->opt.tolerance = solver == GDN_SOL_PGS ? 1e-12 : 1e-14;
    m->opt.iterations = solver == GDN_SOL_PGS ? 20000 : 500;
    m->opt.cone = cone;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv;
    double* buf = calloc((size_t)(nq + 8 * nv + m->nu + 2), sizeof(double));
    CHECK(buf);
    double *q = buf, *v = q + nq, *u = v + nv, *dq = u + m->nu + 1, *dv = dq + nv;
    double* out = dv + nv;
    double* ref = out + 2 * nv;
    unsigned long long rng = 777;
    double worst = 0;
    int counted = 0, refused = 0;
    int* state = calloc((size_t)d->maxefc + 1, sizeof(int));
    double* jar = calloc((size_t)d->maxefc + 1, sizeof(double));
    CHECK(state && jar);
    for (int s = 0; s < nsample; s++) {
        gdn_data_reset(m, d);
        memcpy(q, d->qpos, sizeof(double) * (size_t)nq);
        memset(v, 0, sizeof(double) * (size_t)nv);
        setup(m, q, v, u, &rng);
        fill(dq, nv, &rng);
        fill(dv, nv, &rng);
        for (int k = 0; k < 2; k++) {
            m->opt.solver = k == 0 ? GDN_SOL_NEWTON : solver;
            gdn_data_reset(m, d);
            memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
            memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
            gdnStatus st = gdn_step_jvp(m, d, dq, dv, NULL, NULL, NULL, k ? out : ref,
                                        (k ? out : ref) + nv);
            if (st == GDN_ERR_UNCONVERGED && k == 1 && solver == GDN_SOL_PGS) {
                refused++; // PGS's forces off the primal optimum (GDN_ROWS_FORCE_TOL)
                break;
            }
            CHECK(st == GDN_OK);
            CHECK(d->nefc > 0);
            // the primal row states at the solver's acceleration: the branch it linearizes
            gdn_solver_mul_J(m, d, jar, d->qacc_warmstart);
            for (int i = 0; i < d->nefc; i++) {
                jar[i] -= d->efc_aref[i];
            }
            double fsolver[512];
            memcpy(fsolver, d->efc_force, sizeof(double) * (size_t)d->nefc);
            gdn_constraint_update(m, d, jar, NULL, NULL);
            if (getenv("GDN_TEST_VERBOSE")) {
                double mx = 0;
                int at = -1;
                for (int i = 0; i < d->nefc; i++) {
                    if (fabs(fsolver[i] - d->efc_force[i]) > mx) {
                        mx = fabs(fsolver[i] - d->efc_force[i]);
                        at = i;
                    }
                }
                fprintf(stderr, "solver %d: max |f - f(x)| %.3g at row %d (type %d state %d)\n",
                        m->opt.solver, mx, at, at >= 0 ? d->efc_type[at] : -1,
                        at >= 0 ? d->efc_state[at] : -1);
            }
            if (k == 0) {
                memcpy(state, d->efc_state, sizeof(int) * (size_t)d->nefc);
            }
        }
        if (refused + counted > s ||
            memcmp(state, d->efc_state, sizeof(int) * (size_t)d->nefc) != 0) {
            continue; // refused, or a row within the solvers' difference of a state boundary
        }
        counted++;
        double e = gdn_test_relerr(out, ref, 2 * nv, FD_FLOOR);
        worst = fmax(worst, e);
        if (!(e <= 1e-5)) {
            fprintf(stderr, "%s solver %d cone %d sample %d: %.3g from Newton's (solver %d "
                    "iterations, residual %.3g)\n", file, solver, cone, s, e, d->solver_iter,
                    d->solver_residual);
            gdn_test_print_worst(out, ref, 2 * nv);
        }
        CHECK(e <= 1e-5);
    }
    printf("    %s solver %d cone %d: JVP vs Newton's %.2g (%d of %d samples on Newton's "
           "branch, %d refused as not converged)\n",
           file, solver, cone, worst, counted, nsample, refused);
    CHECK(2 * (counted + refused) >= nsample && counted + refused > 0);
    free(state);
    free(jar);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// dcon_pairs: the scene settled for 0.4 s (every body resting on the floor or another),
// then random velocities of 0.02 .. 0.3 m/s scale: sliding, rolling and sticking contacts
static void setup_settled(const gdnModel* m, double* q, double* v, double* u,
                          unsigned long long* rng) {
    (void)u;
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return;
    }
    for (int t = 0; t < 200; t++) {
        gdn_step(m, d);
    }
    memcpy(q, d->qpos, sizeof(double) * (size_t)m->nq);
    const double scale = gdn_test_uniform(rng, 0.02, 0.3);
    for (int i = 0; i < m->nv; i++) {
        v[i] = d->qvel[i] + scale * gdn_test_uniform(rng, -1, 1);
    }
    gdn_data_free(d);
}

static int test_contacts(void) {
    EPS_SCALE = 0.1;
    for (int cone = 0; cone < 2; cone++) {
        CHECK(check_model("dcon_pairs.xml", setup_settled, 8, GDN_SOL_NEWTON, cone) == 0);
        CHECK(matches_newton("dcon_pairs.xml", setup_settled, 4, GDN_SOL_PGS, cone) == 0);
        CHECK(matches_newton("dcon_pairs.xml", setup_settled, 4, GDN_SOL_CG, cone) == 0);
    }
    EPS_SCALE = 1;
    return 0;
}

// the box pairs (plane-, sphere-, capsule-, box-box) settled, as dcon_pairs
static int test_contacts_box(void) {
    EPS_SCALE = 0.1;
    for (int cone = 0; cone < 2; cone++) {
        CHECK(check_model("tangent_box_scene.xml", setup_settled, 8, GDN_SOL_NEWTON, cone) == 0);
        CHECK(check_model("tangent_box_mesh_scene.xml", setup_settled, 8, GDN_SOL_NEWTON, cone) ==
              0);
    }
    EPS_SCALE = 1;
    return 0;
}

static int test_limit(void) {
    for (int s = 0; s < 3; s++) {
        CHECK(check_model("sol_pendulum_limit.xml", setup_limit, 6, s, 0) == 0);
    }
    return 0;
}

static int test_frictionloss(void) {
    for (int s = 0; s < 3; s++) {
        CHECK(check_model("cnstr_frictionloss.xml", setup_frictionloss, 6, s, 0) == 0);
    }
    return 0;
}

static int test_connect(void) {
    for (int s = 0; s < 3; s++) {
        CHECK(check_model("sol_fourbar.xml", setup_loop, 6, s, 0) == 0);
        CHECK(check_model("cnstr_fourbar.xml", setup_loop, 6, s, 0) == 0);
    }
    return 0;
}

// welds (two free boxes, a two-hinge body welded to the world): Newton vs FD, CG vs Newton;
// PGS stalls on this pair (residual 3e-4 after 20000 sweeps), so its derivative is the typed
// refusal
static int test_weld(void) {
    CHECK(check_model("cnstr_weld.xml", setup_loop, 6, GDN_SOL_NEWTON, 0) == 0);
    CHECK(matches_newton("cnstr_weld.xml", setup_loop, 6, GDN_SOL_CG, 0) == 0);
    gdnModel* m = gdn_test_load_model_as_is("cnstr_weld.xml");
    CHECK(m);
    m->opt.solver = GDN_SOL_PGS;
    m->opt.tolerance = 1e-12;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    double out[2 * 64], g[64];
    d->qvel[0] = 0.5;
    CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, out, out + m->nv) ==
          GDN_ERR_UNCONVERGED);
    CHECK(!d->solver_converged && d->nefc == 12);
    CHECK(gdn_step_vjp(m, d, out, out + m->nv, g, NULL, NULL, NULL, NULL) ==
          GDN_ERR_UNCONVERGED);
    CHECK(gdn_transition_jacobians(m, d, NULL, NULL) == GDN_ERR_UNCONVERGED);
    // opted in (GDN_ENBL_ONESIDED): PGS's stalled iterate is still refused (its forces are not
    // the primal update's at its acceleration: no branch's solution); Newton stopped after one
    // iteration has consistent forces: the derivative of its branch, flagged
    m->opt.enableflags |= GDN_ENBL_ONESIDED;
    CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, out, out + m->nv) ==
          GDN_ERR_UNCONVERGED);
    m->opt.solver = GDN_SOL_NEWTON;
    m->opt.iterations = 1;
    m->opt.tolerance = 1e-15;
    CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, out, out + m->nv) == GDN_OK);
    CHECK(!d->solver_converged && (d->deriv_flags & GDN_DERIV_ONESIDED) != 0);
    // (each call runs the step again from d's warm start, which the last one improved)
    gdn_data_reset(m, d);
    d->qvel[0] = 0.5;
    CHECK(gdn_step_vjp(m, d, out, out + m->nv, g, NULL, NULL, NULL, NULL) == GDN_OK);
    CHECK(!d->solver_converged && (d->deriv_flags & GDN_DERIV_ONESIDED) != 0);
    // a converged solve is not flagged
    m->opt.iterations = 100;
    m->opt.tolerance = 1e-10;
    CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, out, out + m->nv) == GDN_OK);
    CHECK((d->deriv_flags & GDN_DERIV_ONESIDED) == 0 && d->solver_converged);
    CHECK(d->deriv_activation_margin == (double)INFINITY && d->deriv_state_margin == (double)INFINITY);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the report's margins: scene_drop_sphere's sphere (radius 0.1, floor margin 0) placed with
// its dist = -1e-9 (contact rows on, one nudge from off) is flagged GDN_DERIV_NEAR_ACTIVATION
// with that margin; at dist = -1e-3, not
static int test_report_margins(void) {
    gdnModel* m = gdn_test_load_model_as_is("scene_drop_sphere.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    double out[64];
    for (int k = 0; k < 2; k++) {
        const double depth = k == 0 ? 1e-9 : 1e-3;
        gdn_data_reset(m, d);
        d->qpos[2] = 0.1 - depth;
        CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, NULL, NULL, out, out + m->nv) == GDN_OK);
        CHECK(d->nefc > 0);
        printf("    sphere %.0e inside the margin: flags %d, activation margin %.3g, state "
               "margin %.3g\n",
               depth, d->deriv_flags, d->deriv_activation_margin, d->deriv_state_margin);
        CHECK(((d->deriv_flags & GDN_DERIV_NEAR_ACTIVATION) != 0) == (k == 0));
        CHECK((d->deriv_flags & GDN_DERIV_MPR_LIMIT) == 0); // plane-sphere: closed form
        CHECK_NEAR(d->deriv_activation_margin, depth, 1e-6, 1e-15);
        CHECK(isfinite(d->deriv_state_margin) && d->deriv_state_margin > 0);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- inertia parameters

// body inertias of m moved to params0 + e dparam (every body but the world), set through the
// setter, which recomputes the inverse weights (and so the rows' R) as a reload would
static int set_params(gdnModel* m, const double* params0, const double* dparam, double e) {
    for (int b = 1; b < m->nbody; b++) {
        double par[GDN_N_INERTIA_PARAMS];
        gdnInertia in;
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
            const int i = GDN_N_INERTIA_PARAMS * b + k;
            par[k] = params0[i] + e * (dparam ? dparam[i] : 0);
        }
        gdn_inertia_from_params(par, &in);
        CHECK(gdn_model_set_body_inertia(m, b, &in) == GDN_OK);
    }
    return 0;
}

// dparam through a constrained step: the JVP against central FD of the step with the inertias
// set (eps 1e-6 on directions scaled by each parameter: mass, COM, inertia), and the VJP's
// gparam against the JVP (<J dparam, w> = <dparam, J' w>). Each model's rows have R from the
// inverse weights, which follow the inertias
static int check_params(const char* file, setupFn* setup, int nsample) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    CHECK(m);
    m->opt.tolerance = 1e-14;
    m->opt.iterations = 500;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, np = GDN_N_INERTIA_PARAMS * m->nbody;
    double* buf = calloc((size_t)(3 * np + 3 * nq + 10 * nv + 2), sizeof(double));
    CHECK(buf);
    double *p0 = buf, *dp = p0 + np, *gp = dp + np, *q = gp + np, *v = q + nq;
    double *jvp = v + nv, *fd = jvp + 2 * nv, *w = fd + 2 * nv, *qa = w + 2 * nv, *qb = qa + nq;
    double *va = qb + nq, *vb = va + nv;
    double* u = calloc((size_t)m->nu + 1, sizeof(double)); // the setup's controls (unused)
    CHECK(u);
    for (int b = 0; b < m->nbody; b++) {
        gdnInertia in;
        gdn_body_inertia(m, b, &in);
        gdn_inertia_params(&in, p0 + GDN_N_INERTIA_PARAMS * b);
    }
    unsigned long long rng = 4242;
    double worst = 0, worst_adj = 0;
    for (int s = 0; s < nsample; s++) {
        gdn_data_reset(m, d);
        memcpy(q, d->qpos, sizeof(double) * (size_t)nq);
        memset(v, 0, sizeof(double) * (size_t)nv);
        setup(m, q, v, u, &rng);
        for (int b = 1; b < m->nbody; b++) {
            const double* par = p0 + GDN_N_INERTIA_PARAMS * b;
            double* r = dp + GDN_N_INERTIA_PARAMS * b;
            const double imax = fmax(par[4], fmax(par[5], par[6]));
            r[0] = gdn_test_uniform(&rng, -0.5, 0.5) * par[0];
            for (int k = 1; k < 4; k++) {
                r[k] = gdn_test_uniform(&rng, -0.05, 0.05);
            }
            for (int k = 4; k < GDN_N_INERTIA_PARAMS; k++) {
                r[k] = gdn_test_uniform(&rng, -0.1, 0.1) * imax;
            }
        }
        gdn_data_reset(m, d);
        memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_jvp(m, d, NULL, NULL, NULL, dp, NULL, jvp, jvp + nv) == GDN_OK);
        CHECK(d->nefc > 0);
        for (int k = 0; k < 2; k++) {
            CHECK(set_params(m, p0, dp, k ? -1e-6 : 1e-6) == 0);
            gdn_data_reset(m, d);
            memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
            memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
            CHECK(gdn_step(m, d) == GDN_OK);
            memcpy(k ? qb : qa, d->qpos, sizeof(double) * (size_t)nq);
            memcpy(k ? vb : va, d->qvel, sizeof(double) * (size_t)nv);
        }
        CHECK(set_params(m, p0, NULL, 0) == 0);
        gdn_difference_pos(m, fd, 2e-6, qb, qa);
        for (int i = 0; i < nv; i++) {
            fd[nv + i] = (va[i] - vb[i]) / 2e-6;
        }
        const double e = gdn_test_relerr(jvp, fd, 2 * nv, FD_FLOOR);
        worst = fmax(worst, e);
        if (!(e <= 1e-6)) {
            fprintf(stderr, "%s sample %d: dparam JVP vs FD %.3g\n", file, s, e);
            gdn_test_print_worst(jvp, fd, 2 * nv);
            return 1;
        }
        fill(w, 2 * nv, &rng);
        memset(gp, 0, sizeof(double) * (size_t)np);
        gdn_data_reset(m, d);
        memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
        CHECK(gdn_step_vjp(m, d, w, w + nv, NULL, NULL, NULL, gp, NULL) == GDN_OK);
        const double lhs = dot(jvp, w, 2 * nv), rhs = dot(dp, gp, np);
        const double scale = sqrt(dot(jvp, jvp, 2 * nv) * dot(w, w, 2 * nv)) +
                             sqrt(dot(dp, dp, np) * dot(gp, gp, np));
        worst_adj = fmax(worst_adj, fabs(lhs - rhs) / scale);
        CHECK(fabs(lhs - rhs) <= 1e-12 * scale);
    }
    printf("    %s: dparam JVP vs FD %.2g, adjoint %.2g (%d samples)\n", file, worst, worst_adj,
           nsample);
    free(u);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// tendon_fixed: a configuration where the coupling tendon's limit is sometimes in its margin,
// the friction-loss rows in their quadratic and linear zones, controls inside and outside the
// drive's ctrlrange
static void setup_tendon(const gdnModel* m, double* q, double* v, double* u,
                         unsigned long long* rng) {
    for (int i = 0; i < m->nq; i++) {
        q[i] = gdn_test_uniform(rng, -0.25, 0.25);
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -2, 2);
    }
    for (int i = 0; i < m->nu; i++) {
        u[i] = gdn_test_uniform(rng, -1.5, 1.5);
    }
}

// the tendon limit rows the setup's states bring (the tests below must see some)
static int tendon_limit_rows(const char* file, setupFn* setup, int nsample) {
    gdnModel* m = gdn_test_load_model_as_is(file);
    gdnData* d = NULL;
    if (!m || gdn_data_create(m, &d) != GDN_OK) {
        return -1;
    }
    double* q = calloc((size_t)(m->nq + m->nv + m->nu + 1), sizeof(double));
    unsigned long long rng = 12345;
    int rows = 0;
    for (int s = 0; q && s < nsample; s++) {
        gdn_data_reset(m, d);
        memcpy(q, d->qpos, sizeof(double) * (size_t)m->nq);
        memset(q + m->nq, 0, sizeof(double) * (size_t)m->nv);
        setup(m, q, q + m->nq, q + m->nq + m->nv, &rng);
        memcpy(d->qpos, q, sizeof(double) * (size_t)m->nq);
        memcpy(d->qvel, q + m->nq, sizeof(double) * (size_t)m->nv);
        memcpy(d->ctrl, q + m->nq + m->nv, sizeof(double) * (size_t)m->nu);
        gdn_forward(m, d);
        for (int i = 0; i < d->nefc; i++) {
            rows += d->efc_type[i] == GDN_CNSTR_LIMIT_TENDON;
        }
    }
    free(q);
    gdn_data_free(d);
    gdn_model_free(m);
    return rows;
}

// fixed tendons: limit and friction-loss rows on tendons (constant J spanning several joints),
// tendon spring-dampers, tendon actuators (motor, position, velocity)
static int test_tendon(void) {
    CHECK(tendon_limit_rows("tendon_fixed.xml", setup_tendon, 16) > 0);
    CHECK(check_model("tendon_fixed.xml", setup_tendon, 16, GDN_SOL_NEWTON,
                      GDN_CONE_PYRAMIDAL) == 0);
    CHECK(matches_newton("tendon_fixed.xml", setup_tendon, 6, GDN_SOL_CG,
                         GDN_CONE_PYRAMIDAL) == 0);
    CHECK(matches_newton("tendon_fixed.xml", setup_tendon, 6, GDN_SOL_PGS,
                         GDN_CONE_PYRAMIDAL) == 0);
    // the inertias move the tendon rows' R through tendon_invweight0
    CHECK(check_params("tendon_fixed.xml", setup_tendon, 6) == 0);
    return 0;
}

// spatial tendons through sites and a pulley (J moves with q: the rows' d(J) x, the frozen
// forces' f dJ, the passive and actuator forces' dJ' f), a ball joint on the path
// (measured: the FD error grows as eps shrinks, 2.9e-7 at 1e-6, 3.3e-6 at 1e-7: the solves'
// round-off over 2 eps, as CG's above; eps 1e-5 keeps the truncation ~1e-10: 3.1e-8)
static int test_tendon_spatial(void) {
    const int limits = tendon_limit_rows("tendon_spatial.xml", setup_tendon, 16);
    printf("    tendon_spatial.xml: %d tendon limit rows in the 16 states\n", limits);
    CHECK(limits > 0);
    EPS_SCALE = 10;
    CHECK(check_model("tendon_spatial.xml", setup_tendon, 16, GDN_SOL_NEWTON,
                      GDN_CONE_PYRAMIDAL) == 0);
    EPS_SCALE = 1;
    CHECK(matches_newton("tendon_spatial.xml", setup_tendon, 6, GDN_SOL_CG,
                         GDN_CONE_PYRAMIDAL) == 0);
    CHECK(check_params("tendon_spatial.xml", setup_tendon, 6) == 0);
    return 0;
}

// tendons wrapping around cylinders and a sphere (outside wraps: the tangent points slide on
// their geoms), joint limits, tendon friction loss and a tendon limit
static void setup_wrap(const gdnModel* m, double* q, double* v, double* u,
                       unsigned long long* rng) {
    for (int i = 0; i < m->nq; i++) {
        q[i] = gdn_test_uniform(rng, 0.3, 1.8);
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -2, 2);
    }
    for (int i = 0; i < m->nu; i++) {
        u[i] = gdn_test_uniform(rng, -1, 0.2);
    }
}

// (the FD error falls as eps grows: 1.5e-6 at eps 3e-7, 1.2e-7 at 3e-6, 6.5e-8 at 1e-5: the
// solves' round-off over 2 eps, as tendon_spatial's)
static int test_tendon_wrap(void) {
    EPS_SCALE = 10;
    CHECK(check_model("tendon_wrap.xml", setup_wrap, 16, GDN_SOL_NEWTON, GDN_CONE_PYRAMIDAL) ==
          0);
    EPS_SCALE = 1;
    CHECK(check_params("tendon_wrap.xml", setup_wrap, 6) == 0);
    return 0;
}

// joint / tendon equalities (eq_joint: hinges and slides coupled by quartic and quadratic
// polynomials, one joint held at an offset; eq_tendon: a fixed tendon following a cubic of a
// spatial tendon, a spatial tendon held): random configurations about qpos0 (the polynomials'
// curvature and a soft solimp's impedance slope both enter), random velocities and forces
static void setup_equality(const gdnModel* m, double* q, double* v, double* u,
                           unsigned long long* rng) {
    for (int i = 0; i < m->nq; i++) {
        q[i] = m->qpos0[i] + gdn_test_uniform(rng, -0.6, 0.6);
    }
    for (int i = 0; i < m->nv; i++) {
        v[i] = gdn_test_uniform(rng, -2, 2);
    }
    for (int i = 0; i < m->nu; i++) {
        u[i] = gdn_test_uniform(rng, -1, 1);
    }
}

// (eq_joint's control columns are small, |dv'/du| ~ 1e-3 at h = 2e-3, so the FD_FLOOR-relative
// error is the solves' absolute round-off over 2 eps: measured 3.5e-6 at eps 1e-7, 3.4e-6 at
// 1e-6, 1.7e-7 at 1e-5, falling as eps grows, as tendon_spatial's; eps 1e-5 keeps the
// truncation ~1e-10)
static int test_equality_joint(void) {
    EPS_SCALE = 10;
    CHECK(check_model("eq_joint.xml", setup_equality, 16, GDN_SOL_NEWTON, 0) == 0);
    EPS_SCALE = 1;
    CHECK(matches_newton("eq_joint.xml", setup_equality, 6, GDN_SOL_CG, 0) == 0);
    CHECK(matches_newton("eq_joint.xml", setup_equality, 6, GDN_SOL_PGS, 0) == 0);
    // the inertias move the rows' R through dof_invweight0
    CHECK(check_params("eq_joint.xml", setup_equality, 6) == 0);
    return 0;
}

static int test_equality_tendon(void) {
    CHECK(check_model("eq_tendon.xml", setup_equality, 16, GDN_SOL_NEWTON, 0) == 0);
    CHECK(matches_newton("eq_tendon.xml", setup_equality, 6, GDN_SOL_CG, 0) == 0);
    CHECK(matches_newton("eq_tendon.xml", setup_equality, 6, GDN_SOL_PGS, 0) == 0);
    // the inertias move the rows' R through tendon_invweight0
    CHECK(check_params("eq_tendon.xml", setup_equality, 6) == 0);
    return 0;
}

static int test_inertia_params(void) {
    CHECK(check_params("cnstr_arm_motor.xml", setup_frictionloss, 4) == 0);
    CHECK(check_params("cnstr_fourbar.xml", setup_loop, 4) == 0);
    CHECK(check_params("cnstr_weld.xml", setup_loop, 4) == 0);
    EPS_SCALE = 0.1;
    CHECK(check_params("dcon_pairs.xml", setup_settled, 4) == 0);
    EPS_SCALE = 1;
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"contacts", test_contacts},
    {"contacts_box", test_contacts_box},
        {"limit", test_limit},
        {"ball_limit", test_ball_limit},
        {"frictionloss", test_frictionloss},
        {"connect", test_connect},
        {"weld", test_weld},
        {"inertia_params", test_inertia_params},
        {"tendon", test_tendon},
        {"tendon_spatial", test_tendon_spatial},
        {"tendon_wrap", test_tendon_wrap},
        {"report_margins", test_report_margins},
        {"equality_joint", test_equality_joint},
        {"equality_tendon", test_equality_tendon},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
