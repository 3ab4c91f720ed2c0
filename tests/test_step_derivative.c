// SPDX-License-Identifier: Apache-2.0
// Step derivatives: Lie-group maps, the damped mass solve, JVP/VJP/A/B vs finite differences.
//
// Relative error everywhere: ||a - b||_inf / max(||b||_inf, floor). Finite differences are
// central; position perturbations are q (+) eps dq (gdn_integrate_pos) and output differences
// (q+ (-) q-) / (2 eps) (gdn_difference_pos), the tangent convention of the derivatives.
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "dynamics/aba.h"
#include "dynamics/damped_mass.h"
#include "model/configuration_derivative.h"
#include "gradient/step_derivative.h"
#include "math/vec.h"
#include "runner/models.h"
#include "runner/test.h"
#include "sim/pipeline.h"

static void fill_uniform(double* x, int n, unsigned long long* rng, double lo, double hi) {
    for (int i = 0; i < n; i++) {
        x[i] = gdn_test_uniform(rng, lo, hi);
    }
}

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

// random configuration (unit quaternions) and velocity
static void random_state(const gdnModel* m, gdnData* d, unsigned long long* rng, double vscale) {
    gdn_test_random_qpos(m, d, rng);
    fill_uniform(d->qvel, m->nv, rng, -vscale, vscale);
}

static const char* const MODELS[] = {"pendulum.xml", "double_pendulum.xml", "arm7.xml",
                                     "ball_chain.xml", "box_spin.xml", "slider.xml",
                                     "humanoid32.xml", "tendon_fixed.xml",
                                     "tendon_spatial.xml", "tendon_wrap.xml"};
#define NMODEL ((int)(sizeof(MODELS) / sizeof(MODELS[0])))

// ---------------------------------------------------------------- Lie-group maps

// q' = (q (+) eps dq) (+) h (v' + eps dv'), differenced centrally around eps = 0
static void integrate_fd(const gdnModel* m, const double* q, const double* vn, double h,
                         const double* dq, const double* dvn, double eps, double* out,
                         double* qa, double* qb, double* va) {
    for (int s = 0; s < 2; s++) {
        double e = s == 0 ? eps : -eps;
        double* qs = s == 0 ? qa : qb;
        memcpy(qs, q, sizeof(double) * (size_t)m->nq);
        gdn_integrate_pos(m, qs, dq, e);
        for (int i = 0; i < m->nv; i++) {
            va[i] = vn[i] + e * dvn[i];
        }
        gdn_integrate_pos(m, qs, va, h);
    }
    gdn_difference_pos(m, out, 2 * eps, qb, qa);
}

// JVP vs central FD (eps 1e-6) for rotations h|w'| of about 1, 1e-3 and 1e-9 (series branch),
// exactly 0, and near pi; VJP is its transpose to round-off
static int test_integrate_derivative(void) {
    const char* files[] = {"ball_chain.xml", "box_spin.xml", "slider.xml", "humanoid32.xml"};
    const double scales[] = {500, 0.5, 5e-7, 0, 1550};
    unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    double worst_fd = 0, worst_adj = 0;
    for (int f = 0; f < 4; f++) {
        gdnModel* m = gdn_test_load_model(files[f]);
        CHECK(m);
        int nq = m->nq, nv = m->nv;
        double h = m->opt.timestep;
        double* buf = calloc((size_t)(3 * nq + 10 * nv), sizeof(double));
        CHECK(buf);
        double *q = buf, *qa = q + nq, *qb = qa + nq, *vn = qb + nq, *dq = vn + nv;
        double *dvn = dq + nv, *jvp = dvn + nv, *fd = jvp + nv, *g = fd + nv, *gq = g + nv;
        double *gv = gq + nv, *va = gv + nv;
        for (int s = 0; s < 5; s++) {
            fill_uniform(q, nq, &rng, -1, 1);
            gdn_normalize_quat(m, q);
            fill_uniform(vn, nv, &rng, -scales[s], scales[s]);
            fill_uniform(dq, nv, &rng, -1, 1);
            fill_uniform(dvn, nv, &rng, -1, 1);
            fill_uniform(g, nv, &rng, -1, 1);
            gdn_integrate_pos_jvp(m, vn, h, dq, dvn, jvp);
            integrate_fd(m, q, vn, h, dq, dvn, 1e-6, fd, qa, qb, va);
            double e = gdn_test_relerr(jvp, fd, nv, 1e-3);
            worst_fd = fmax(worst_fd, e);
            CHECK(e < 1e-8);
            // <J (dq, dv'), g> = <(dq, dv'), J' g>
            gdn_integrate_pos_vjp(m, vn, h, g, gq, gv);
            double lhs = dot(jvp, g, nv), rhs = dot(dq, gq, nv) + dot(dvn, gv, nv);
            double a = fabs(lhs - rhs) / fmax(fabs(lhs), 1e-300);
            worst_adj = fmax(worst_adj, a);
            CHECK(a < 1e-13);
            // the column form agrees with the vector form: Y = h Phi_v X + Phi_q
            double* X = calloc((size_t)nv * (size_t)(2 * nv), sizeof(double));
            double* Y = calloc((size_t)nv * (size_t)(2 * nv), sizeof(double));
            CHECK(X && Y);
            for (int i = 0; i < nv; i++) {
                for (int c = 0; c < 2 * nv; c++) {
                    X[i * 2 * nv + c] = gdn_test_uniform(&rng, -1, 1);
                }
            }
            gdn_integrate_pos_jvp_columns(m, vn, h, 2 * nv, X, 2 * nv, nv, Y, 2 * nv);
            for (int c = 0; c < 2 * nv; c++) {
                for (int i = 0; i < nv; i++) {
                    dq[i] = c >= nv && i == c - nv ? 1 : 0;
                    dvn[i] = X[i * 2 * nv + c];
                }
                gdn_integrate_pos_jvp(m, vn, h, dq, dvn, jvp);
                for (int i = 0; i < nv; i++) {
                    CHECK_NEAR(Y[i * 2 * nv + c], jvp[i], 1e-15, 1e-15);
                }
            }
            free(X);
            free(Y);
        }
        free(buf);
        gdn_model_free(m);
    }
    printf("integrate: worst JVP vs FD %.2e, worst adjoint mismatch %.2e\n", worst_fd, worst_adj);
    return 0;
}

// the small-angle series and the closed forms meet at |phi| = 0.1 to round-off
static int test_so3_branch_continuity(void) {
    double dir[3] = {0.48, -0.6, 0.64};
    double lo[3], hi[3], R0[9], J0[9], R1[9], J1[9];
    for (int i = 0; i < 3; i++) {
        lo[i] = dir[i] * 0.1 * (1 - 1e-15);
        hi[i] = dir[i] * 0.1 * (1 + 1e-15);
    }
    gdn_so3_exp_and_jacobian(lo, R0, J0);
    gdn_so3_exp_and_jacobian(hi, R1, J1);
    for (int k = 0; k < 9; k++) {
        CHECK_NEAR(R0[k], R1[k], 1e-15, 1e-16);
        CHECK_NEAR(J0[k], J1[k], 1e-15, 1e-16);
    }
    return 0;
}

// ---------------------------------------------------------------- damped mass solve

// (M + h D) X = B for 3 right-hand sides, M from gdn_crb, on every model at random states
static int test_damped_mass(void) {
    unsigned long long rng = 0x1234567ULL;
    double worst = 0, worst_aba = 0;
    for (int f = 0; f < NMODEL; f++) {
        gdnModel* m = gdn_test_load_model(MODELS[f]);
        CHECK(m);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        int nv = m->nv;
        double h = m->opt.timestep;
        double* B = calloc((size_t)(3 * nv), sizeof(double));
        double* X = calloc((size_t)(3 * nv), sizeof(double));
        double* R = calloc((size_t)(3 * nv), sizeof(double));
        CHECK(B && X && R);
        for (int s = 0; s < 5; s++) {
            random_state(m, d, &rng, 1);
            fill_uniform(B, 3 * nv, &rng, -1, 1);
            memcpy(X, B, sizeof(double) * (size_t)(3 * nv));
            gdn_kinematics(m, d);
            size_t mark = d->parena;
            gdnDampedMass dm;
            CHECK(gdn_damped_mass_factor(m, d, h, &dm) == GDN_OK);
            gdn_damped_mass_solve_columns(&dm, X, 3, 3);
            d->parena = mark;
            // residual with the dense qM (gdn_crb) plus h D
            for (int i = 0; i < nv; i++) {
                for (int c = 0; c < 3; c++) {
                    double r = h * m->dof_damping[i] * X[3 * i + c];
                    for (int j = 0; j < nv; j++) {
                        r += d->qM[(size_t)i * nv + j] * X[3 * j + c];
                    }
                    R[3 * i + c] = r;
                }
            }
            double e = gdn_test_relerr(R, B, 3 * nv, 1e-6);
            worst = fmax(worst, e);
            CHECK(e < 1e-12);
            // ABA's kept factorization (what the step JVP/VJP solve with) gives the same
            // solution: every right-hand side, one at a time
            gdnAbaFactor fac;
            CHECK(gdn_aba_factor_alloc(m, d, &fac) == GDN_OK);
            CHECK(gdn_pipeline_front(m, d, GDN_PIPE_STEP, &fac) == GDN_OK);
            // the factorization alone (the adjoint's front half) is the step's, bit for bit
            gdnAbaFactor alone;
            double* extra = calloc((size_t)nv, sizeof(double));
            CHECK(extra && gdn_aba_factor_alloc(m, d, &alone) == GDN_OK);
            int damped = 0;
            for (int i = 0; i < nv; i++) {
                extra[i] = h * m->dof_damping[i];
                damped |= m->dof_damping[i] > 0;
            }
            CHECK(gdn_aba_factor(m, d, damped ? extra : NULL, &alone) == GDN_OK);
            CHECK(memcmp(alone.axes, fac.axes, 13 * sizeof(double) * (size_t)nv) == 0);
            free(extra);
            for (int c = 0; c < 3; c++) {
                double y[64], x[64];
                CHECK(nv <= 64);
                for (int i = 0; i < nv; i++) {
                    y[i] = B[3 * i + c];
                    x[i] = X[3 * i + c];
                }
                CHECK(gdn_aba_solve(m, d, &fac, y) == GDN_OK);
                double ea = gdn_test_relerr(y, x, nv, 1e-6);
                worst_aba = fmax(worst_aba, ea);
                CHECK(ea < 1e-12);
            }
            d->parena = mark;
        }
        free(B);
        free(X);
        free(R);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    printf("damped mass: worst |(M + hD) X - B| / |B| = %.2e; ABA solve vs L'DL %.2e\n", worst,
           worst_aba);
    return 0;
}

// ---------------------------------------------------------------- step derivatives

// Finite-difference step sizes per input class (central differences, unit-scale directions):
#define EPS_Q 1e-6     // position tangent (rad or m)
#define EPS_V 1e-6     // velocity
#define EPS_U 1e-6     // controls
#define EPS_P 1e-6     // inertia parameters (directions scaled by the parameter's magnitude)
#define EPS_X 1e-6     // vertex positions (m)
#define FD_TOL 1e-6    // relative error vs FD
#define FD_FLOOR 1e-3  // floor of the relative error's denominator (FD round-off ~1e-10)
#define ADJ_TOL 1e-12  // <J u, w> vs <u, J' w>, relative to sum_i |(J u)_i w_i|

enum { BLK_Q, BLK_V, BLK_U, BLK_P, BLK_X, NBLK };
static const char* const BLOCK_NAME[NBLK] = {"dq", "dv", "du", "dparam", "dvert"};

// a base point (state, model parameters) and one direction per input block
typedef struct Point {
    gdnModel* m;
    gdnData* d;
    int nq, nv, nu, nb, nx; // nb = nbody, nx = 3 nvert
    double *q, *v, *u;      // base state
    double* dir[NBLK];      // directions (nv, nv, nu, 10 nbody, 3 nvert)
    int len[NBLK];
    // saved model fields restored exactly after a parameter or vertex perturbation
    double *mass, *ipos, *iquat, *inertia, *subtreemass, *vert;
    int* sameframe;
} Point;

static double* dup(const double* x, int n) {
    double* r = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (r && n > 0) {
        memcpy(r, x, sizeof(double) * (size_t)n);
    }
    return r;
}

static int point_init(Point* p, gdnModel* m) {
    memset(p, 0, sizeof(*p));
    p->m = m;
    if (gdn_data_create(m, &p->d) != GDN_OK) {
        return 1;
    }
    p->nq = m->nq, p->nv = m->nv, p->nu = m->nu, p->nb = m->nbody, p->nx = 3 * m->nvert;
    p->len[BLK_Q] = p->nv, p->len[BLK_V] = p->nv, p->len[BLK_U] = p->nu;
    p->len[BLK_P] = GDN_N_INERTIA_PARAMS * p->nb, p->len[BLK_X] = p->nx;
    p->q = calloc((size_t)p->nq, sizeof(double));
    p->v = calloc((size_t)p->nv + 1, sizeof(double));
    p->u = calloc((size_t)p->nu + 1, sizeof(double));
    for (int k = 0; k < NBLK; k++) {
        p->dir[k] = calloc((size_t)p->len[k] + 1, sizeof(double));
        if (!p->dir[k]) {
            return 1;
        }
    }
    p->mass = dup(m->body_mass, p->nb);
    p->ipos = dup(m->body_ipos, 3 * p->nb);
    p->iquat = dup(m->body_iquat, 4 * p->nb);
    p->inertia = dup(m->body_inertia, 3 * p->nb);
    p->subtreemass = dup(m->body_subtreemass, p->nb);
    p->vert = dup(m->vert_pos, p->nx);
    p->sameframe = malloc(sizeof(int) * (size_t)p->nb);
    if (!p->q || !p->v || !p->u || !p->mass || !p->vert || !p->sameframe) {
        return 1;
    }
    memcpy(p->sameframe, m->body_sameframe, sizeof(int) * (size_t)p->nb);
    return 0;
}

static void point_free(Point* p) {
    free(p->q), free(p->v), free(p->u);
    for (int k = 0; k < NBLK; k++) {
        free(p->dir[k]);
    }
    free(p->mass), free(p->ipos), free(p->iquat), free(p->inertia), free(p->subtreemass);
    free(p->vert), free(p->sameframe);
    gdn_data_free(p->d);
}

static void restore_model(Point* p) {
    gdnModel* m = p->m;
    memcpy(m->body_mass, p->mass, sizeof(double) * (size_t)p->nb);
    memcpy(m->body_ipos, p->ipos, sizeof(double) * 3 * (size_t)p->nb);
    memcpy(m->body_iquat, p->iquat, sizeof(double) * 4 * (size_t)p->nb);
    memcpy(m->body_inertia, p->inertia, sizeof(double) * 3 * (size_t)p->nb);
    memcpy(m->body_subtreemass, p->subtreemass, sizeof(double) * (size_t)p->nb);
    memcpy(m->body_sameframe, p->sameframe, sizeof(int) * (size_t)p->nb);
    if (p->nx) {
        memcpy(m->vert_pos, p->vert, sizeof(double) * (size_t)p->nx);
    }
}

// the base state into d (qfrc_applied, xfrc_applied are kept as set by the caller)
static void load_state(Point* p) {
    memcpy(p->d->qpos, p->q, sizeof(double) * (size_t)p->nq);
    memcpy(p->d->qvel, p->v, sizeof(double) * (size_t)p->nv);
    memcpy(p->d->ctrl, p->u, sizeof(double) * (size_t)p->nu);
}

// random directions: unit scale for q, v, u, vertices; parameters scaled by magnitude
// (mass by |m|, COM by |c| + 0.01 m, inertia entries by the body's largest diagonal moment);
// massless bodies and the world row stay zero so the perturbed inertia stays physical
static void random_directions(Point* p, unsigned long long* rng) {
    fill_uniform(p->dir[BLK_Q], p->nv, rng, -1, 1);
    fill_uniform(p->dir[BLK_V], p->nv, rng, -1, 1);
    fill_uniform(p->dir[BLK_U], p->nu, rng, -1, 1);
    fill_uniform(p->dir[BLK_X], p->nx, rng, -1, 1);
    double* dp = p->dir[BLK_P];
    memset(dp, 0, sizeof(double) * (size_t)p->len[BLK_P]);
    for (int b = 1; b < p->nb; b++) {
        gdnInertia in;
        double par[GDN_N_INERTIA_PARAMS];
        gdn_body_inertia(p->m, b, &in);
        gdn_inertia_params(&in, par);
        if (!(par[0] > 0)) {
            continue;
        }
        double imax = fmax(par[4], fmax(par[5], par[6]));
        double* r = dp + GDN_N_INERTIA_PARAMS * b;
        r[0] = gdn_test_uniform(rng, -0.5, 0.5) * par[0];
        for (int k = 1; k < 4; k++) {
            r[k] = gdn_test_uniform(rng, -1, 1) * (fabs(par[k]) + 0.01);
        }
        for (int k = 4; k < 10; k++) {
            r[k] = gdn_test_uniform(rng, -0.1, 0.1) * imax;
        }
    }
}

// the step from base (+) e dir_blk: q (+) e dq, v + e dv, u + e du, params + e dp, verts + e dx
static int step_perturbed(Point* p, int blk, double e, double* qn, double* vn) {
    gdnModel* m = p->m;
    load_state(p);
    const double* dir = p->dir[blk];
    switch (blk) {
    case BLK_Q:
        gdn_integrate_pos(m, p->d->qpos, dir, e);
        break;
    case BLK_V:
        for (int i = 0; i < p->nv; i++) {
            p->d->qvel[i] += e * dir[i];
        }
        break;
    case BLK_U:
        for (int i = 0; i < p->nu; i++) {
            p->d->ctrl[i] += e * dir[i];
        }
        break;
    case BLK_P:
        for (int b = 1; b < p->nb; b++) {
            const double* r = dir + GDN_N_INERTIA_PARAMS * b;
            if (r[0] == 0) {
                continue;
            }
            gdnInertia in;
            double par[GDN_N_INERTIA_PARAMS];
            gdn_body_inertia(m, b, &in);
            gdn_inertia_params(&in, par);
            for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
                par[k] += e * r[k];
            }
            gdn_inertia_from_params(par, &in);
            CHECK(gdn_model_set_body_inertia(m, b, &in) == GDN_OK);
        }
        break;
    default:
        for (int i = 0; i < p->nx; i++) {
            m->vert_pos[i] += e * dir[i];
        }
        break;
    }
    gdnStatus st = gdn_step(m, p->d);
    restore_model(p);
    CHECK(st == GDN_OK);
    memcpy(qn, p->d->qpos, sizeof(double) * (size_t)p->nq);
    memcpy(vn, p->d->qvel, sizeof(double) * (size_t)p->nv);
    return 0;
}

// central FD of the step along block blk: out = [dq' (nv); dv' (nv)]
static int step_fd(Point* p, int blk, double eps, double* out) {
    int nq = p->nq, nv = p->nv;
    double* buf = calloc((size_t)(2 * nq + 2 * nv), sizeof(double));
    CHECK(buf);
    double *qa = buf, *qb = qa + nq, *va = qb + nq, *vb = va + nv;
    CHECK(step_perturbed(p, blk, eps, qa, va) == 0);
    CHECK(step_perturbed(p, blk, -eps, qb, vb) == 0);
    gdn_difference_pos(p->m, out, 2 * eps, qb, qa);
    for (int i = 0; i < nv; i++) {
        out[nv + i] = (va[i] - vb[i]) / (2 * eps);
    }
    free(buf);
    load_state(p);
    return 0;
}

// JVP with only block blk's direction (all blocks when blk < 0) -> out (2 nv)
static int step_jvp_block(Point* p, int blk, double* out) {
    const double* in[NBLK];
    for (int k = 0; k < NBLK; k++) {
        in[k] = (blk < 0 || blk == k) && p->len[k] > 0 ? p->dir[k] : NULL;
    }
    load_state(p);
    CHECK(gdn_step_jvp(p->m, p->d, in[BLK_Q], in[BLK_V], in[BLK_U], in[BLK_P], in[BLK_X], out,
                       out + p->nv) == GDN_OK);
    load_state(p);
    return 0;
}

// the adjoint's step VJP (gdn_step_vjp_at) given the acceleration gdn_step integrates from the
// state returns gdn_step_vjp's outputs gin (from cotangent g) bit for bit; d's state is reloaded
static int same_vjp_at(Point* p, const double* g, double* const* gin) {
    const int nv = p->nv;
    double* acc = calloc((size_t)nv + 1, sizeof(double));
    double* out[NBLK];
    for (int k = 0; k < NBLK; k++) {
        out[k] = calloc((size_t)p->len[k] + 1, sizeof(double));
        CHECK(out[k]);
    }
    CHECK(acc);
    load_state(p);
    CHECK(gdn_pipeline_front(p->m, p->d, GDN_PIPE_STEP, NULL) == GDN_OK);
    memcpy(acc, p->d->qacc, sizeof(double) * (size_t)nv);
    load_state(p);
    CHECK(gdn_step_vjp_at(p->m, p->d, acc, g, g + nv, out[BLK_Q], out[BLK_V], out[BLK_U],
                          out[BLK_P], out[BLK_X], NULL) == GDN_OK);
    for (int k = 0; k < NBLK; k++) {
        CHECK(memcmp(out[k], gin[k], sizeof(double) * (size_t)p->len[k]) == 0);
        free(out[k]);
    }
    free(acc);
    load_state(p);
    return 0;
}

typedef struct Worst {
    double fd[NBLK];
    double adj;
    double ab;
} Worst;

// per block: JVP vs central FD; all blocks: <J u, w> == <u, J' w> (and per block)
static int check_point(Point* p, unsigned long long* rng, Worst* w, const char* label) {
    const int nv = p->nv;
    const double eps[NBLK] = {EPS_Q, EPS_V, EPS_U, EPS_P, EPS_X};
    double* jvp = calloc((size_t)(2 * nv), sizeof(double));
    double* fd = calloc((size_t)(2 * nv), sizeof(double));
    double* g = calloc((size_t)(2 * nv), sizeof(double));
    double* gin[NBLK];
    for (int k = 0; k < NBLK; k++) {
        gin[k] = calloc((size_t)p->len[k] + 1, sizeof(double));
        CHECK(gin[k]);
    }
    CHECK(jvp && fd && g);
    for (int k = 0; k < NBLK; k++) {
        if (p->len[k] == 0 || (k == BLK_X && !p->m->penalty.enabled)) {
            continue;
        }
        CHECK(step_jvp_block(p, k, jvp) == 0);
        CHECK(step_fd(p, k, eps[k], fd) == 0);
        double e = gdn_test_relerr(jvp, fd, 2 * nv, FD_FLOOR);
        w->fd[k] = fmax(w->fd[k], e);
        if (!(e <= FD_TOL)) {
            fprintf(stderr, "%s: block %s: JVP vs FD %.3g\n", label, BLOCK_NAME[k], e);
            gdn_test_print_worst(jvp, fd, 2 * nv);
            return 1;
        }
    }
    // adjoint identity, every block at once and block by block
    fill_uniform(g, 2 * nv, rng, -1, 1);
    load_state(p);
    CHECK(gdn_step_vjp(p->m, p->d, g, g + nv, gin[BLK_Q], gin[BLK_V], gin[BLK_U], gin[BLK_P],
                       gin[BLK_X]) == GDN_OK);
    CHECK(same_vjp_at(p, g, gin) == 0);
    load_state(p);
    double total_rhs = 0, total_abs = 0;
    for (int k = 0; k < NBLK; k++) {
        if (p->len[k] == 0) {
            continue;
        }
        CHECK(step_jvp_block(p, k, jvp) == 0);
        double lhs = dot(jvp, g, 2 * nv), rhs = dot(p->dir[k], gin[k], p->len[k]);
        // relative to the magnitude of the summed terms (round-off scale of either product)
        double scale = 1e-300;
        for (int i = 0; i < 2 * nv; i++) {
            scale += fabs(jvp[i] * g[i]);
        }
        double a = fabs(lhs - rhs) / scale;
        if (fabs(lhs) > 1e-200) {
            w->adj = fmax(w->adj, a);
            if (!(a <= ADJ_TOL)) {
                fprintf(stderr, "%s: block %s: <J u, w> %.17g, <u, J'w> %.17g\n", label,
                        BLOCK_NAME[k], lhs, rhs);
                return 1;
            }
        } else {
            CHECK(fabs(rhs) < 1e-200);
        }
        total_rhs += rhs;
        total_abs += fabs(rhs);
    }
    CHECK(step_jvp_block(p, -1, jvp) == 0);
    double lhs = dot(jvp, g, 2 * nv);
    CHECK_NEAR(lhs, total_rhs, ADJ_TOL, ADJ_TOL * total_abs);
    free(jvp), free(fd), free(g);
    for (int k = 0; k < NBLK; k++) {
        free(gin[k]);
    }
    return 0;
}

// A, B from gdn_transition_jacobians equal the JVP of every unit input, to round-off.
// The two are independent exact algorithms (the matrix-form dense derivative of
// src/gradient/residual_dense.c against the tangent sweep of residual.c, both about the world
// origin), so they agree to round-off amplified by cond(M + hD) and by the lever arm to the
// origin: measured worst 1.9e-12 (slider.xml; the JVP alone moves by 1.2e-11 when that model is
// shifted rigidly by 3 m), 3e-14 on the humanoids. Bound: 1e-11 of max |A|.
static int check_transition(Point* p, Worst* w) {
    const int nv = p->nv, nu = p->nu, n = 2 * nv;
    double* A = calloc((size_t)(n * n), sizeof(double));
    double* B = calloc((size_t)(n * (nu + 1)), sizeof(double));
    double* col = calloc((size_t)n, sizeof(double));
    double* e = calloc((size_t)(nv + nu + 1), sizeof(double));
    CHECK(A && B && col && e);
    load_state(p);
    CHECK(gdn_transition_jacobians(p->m, p->d, A, B) == GDN_OK);
    double amax = 0;
    for (int i = 0; i < n * n; i++) {
        amax = fmax(amax, fabs(A[i]));
    }
    for (int c = 0; c < n + nu; c++) {
        load_state(p);
        int blk = c < nv ? 0 : (c < n ? 1 : 2);
        int i = c - (blk == 0 ? 0 : (blk == 1 ? nv : n));
        e[i] = 1;
        CHECK(gdn_step_jvp(p->m, p->d, blk == 0 ? e : NULL, blk == 1 ? e : NULL,
                           blk == 2 ? e : NULL, NULL, NULL, col, col + nv) == GDN_OK);
        e[i] = 0;
        for (int r = 0; r < n; r++) {
            double ref = c < n ? A[r * n + c] : B[r * nu + (c - n)];
            double err = fabs(ref - col[r]) / fmax(amax, 1);
            w->ab = fmax(w->ab, err);
            CHECK(err < 1e-11);
        }
    }
    load_state(p);
    free(A), free(B), free(col), free(e);
    return 0;
}

// controls inside ctrlrange (away from the clamp, so FD does not cross it)
static void random_controls(Point* p, unsigned long long* rng) {
    for (int i = 0; i < p->nu; i++) {
        double lo = -1, hi = 1;
        if (p->m->actuator_ctrllimited[i]) {
            lo = 0.9 * p->m->actuator_ctrlrange[2 * i];
            hi = 0.9 * p->m->actuator_ctrlrange[2 * i + 1];
        }
        p->u[i] = gdn_test_uniform(rng, lo, hi);
    }
}

static int check_model(const char* file, int nsample, Worst* total) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    Point p;
    CHECK(point_init(&p, m) == 0);
    unsigned long long rng = 0x5DEECE66DULL ^ (unsigned long long)strlen(file);
    Worst w;
    memset(&w, 0, sizeof(w));
    for (int s = 0; s < nsample; s++) {
        random_state(m, p.d, &rng, 1);
        fill_uniform(p.d->qfrc_applied, p.nv, &rng, -1, 1);
        memcpy(p.q, p.d->qpos, sizeof(double) * (size_t)p.nq);
        memcpy(p.v, p.d->qvel, sizeof(double) * (size_t)p.nv);
        random_controls(&p, &rng);
        random_directions(&p, &rng);
        CHECK(check_point(&p, &rng, &w, file) == 0);
        CHECK(check_transition(&p, &w) == 0);
    }
    printf("%-20s FD rel err: dq %.1e dv %.1e du %.1e dparam %.1e; adjoint %.1e; A,B vs JVP "
           "%.1e\n", file, w.fd[BLK_Q], w.fd[BLK_V], w.fd[BLK_U], w.fd[BLK_P], w.adj, w.ab);
    for (int k = 0; k < NBLK; k++) {
        total->fd[k] = fmax(total->fd[k], w.fd[k]);
    }
    total->adj = fmax(total->adj, w.adj);
    total->ab = fmax(total->ab, w.ab);
    point_free(&p);
    gdn_model_free(m);
    return 0;
}

static int test_step_models(void) {
    Worst w;
    memset(&w, 0, sizeof(w));
    for (int f = 0; f < NMODEL; f++) {
        CHECK(check_model(MODELS[f], 3, &w) == 0);
    }
    return 0;
}

static int test_step_mujoco_humanoid(void) {
    Worst w;
    memset(&w, 0, sizeof(w));
    CHECK(check_model("/usr/share/mujoco/model/humanoid/humanoid.xml", 2, &w) == 0);
    return 0;
}

// penalty contact (tests/models/box_penalty.xml: 1 kg cube of side 0.2, k = 1e4, c = 100):
// resting on its 4 bottom corners (depth m g / 4k), tilted with one or two corners in, and in
// free flight (no corner in contact); the vertex block is checked too
static int test_step_penalty_box(void) {
    gdnModel* m = gdn_test_load_model("box_penalty.xml");
    CHECK(m);
    CHECK(m->penalty.enabled && m->nvert == 8);
    Point p;
    CHECK(point_init(&p, m) == 0);
    unsigned long long rng = 0xB0C5ULL;
    Worst w;
    memset(&w, 0, sizeof(w));
    const double k = m->penalty.stiffness, g = 9.81, mass = m->body_subtreemass[1];
    for (int s = 0; s < 3; s++) {
        gdn_data_reset(m, p.d);
        double* q = p.d->qpos;
        if (s == 0) {
            // at rest: bottom face at depth m g / (4 k)
            q[0] = 0.1, q[1] = -0.2, q[2] = 0.1 - mass * g / (4 * k);
            q[3] = 1, q[4] = q[5] = q[6] = 0;
        } else if (s == 1) {
            // tilted about x and y, the lowest corner 5 mm into the plane, slow motion
            double th = 0.3, ph = 0.2;
            q[3] = cos(th / 2) * cos(ph / 2), q[4] = sin(th / 2) * cos(ph / 2);
            q[5] = cos(th / 2) * sin(ph / 2), q[6] = -sin(th / 2) * sin(ph / 2);
            gdn_normalize_quat(m, q);
            q[0] = 0, q[1] = 0, q[2] = 0.5;
            gdn_kinematics(m, p.d);
            double zmin = 1e9;
            for (int v = 0; v < 8; v++) {
                double x[3];
                gdn_mulmat3(x, p.d->xmat + 9, m->vert_pos + 3 * v);
                zmin = fmin(zmin, x[2]);
            }
            q[2] = -zmin - 0.005;
            fill_uniform(p.d->qvel, 6, &rng, -0.05, 0.05);
        } else {
            // free flight, tumbling
            q[2] = 0.6;
            fill_uniform(p.d->qvel, 6, &rng, -2, 2);
        }
        memcpy(p.q, p.d->qpos, sizeof(double) * (size_t)p.nq);
        memcpy(p.v, p.d->qvel, sizeof(double) * (size_t)p.nv);
        random_directions(&p, &rng);
        load_state(&p);
        gdn_forward(m, p.d);
        int active = p.d->nvert_active;
        CHECK(active == (s == 0 ? 4 : (s == 1 ? 1 : 0)) || (s == 1 && active == 2));
        char label[64];
        snprintf(label, sizeof(label), "box_penalty case %d (%d active)", s, active);
        CHECK(check_point(&p, &rng, &w, label) == 0);
        CHECK(check_transition(&p, &w) == 0);
    }
    printf("box_penalty          FD rel err: dq %.1e dv %.1e dparam %.1e dvert %.1e; adjoint "
           "%.1e; A,B vs JVP %.1e\n", w.fd[BLK_Q], w.fd[BLK_V], w.fd[BLK_P], w.fd[BLK_X], w.adj,
           w.ab);
    point_free(&p);
    gdn_model_free(m);
    return 0;
}

// pendulum closed form (shared/reference/mujoco.md section 7): hinge about y, m = 1, COM 0.5
// below the pivot, I = 0.02 + 0.25 = 0.27 about the pivot, no damping; at q = 1, v = 0:
//   a_q = -m g l cos(q) / I,  A = [[1 + h^2 a_q, h], [h a_q, 1]],  B = [h^2 / I, h / I]
static int test_pendulum_closed_form(void) {
    gdnModel* m = gdn_test_load_model("pendulum.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    d->qpos[0] = 1;
    double A[4], B[2];
    CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_OK);
    const double h = m->opt.timestep, I = 0.27, aq = -9.81 * 0.5 * cos(1.0) / I;
    const double Aref[4] = {1 + h * h * aq, h, h * aq, 1}, Bref[2] = {h * h / I, h / I};
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(A[i], Aref[i], 1e-13, 1e-16);
    }
    CHECK_NEAR(B[0], Bref[0], 1e-13, 0);
    CHECK_NEAR(B[1], Bref[1], 1e-13, 0);
    printf("pendulum: A = [[%.12g, %.12g], [%.12g, %.12g]], B = [%.12g, %.12g]\n", A[0], A[1],
           A[2], A[3], B[0], B[1]);
    CHECK(d->qpos[0] == 1 && d->qvel[0] == 0 && d->time == 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"integrate_derivative", test_integrate_derivative},
    {"so3_branch_continuity", test_so3_branch_continuity},
    {"damped_mass", test_damped_mass},
    {"pendulum_closed_form", test_pendulum_closed_form},
    {"step_models", test_step_models},
    {"step_mujoco_humanoid", test_step_mujoco_humanoid},
    {"step_penalty_box", test_step_penalty_box},
};
GDN_TEST_MAIN(CASES)
