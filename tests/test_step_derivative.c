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

#include "gradient/damped_mass.h"
#include "gradient/integrate_derivative.h"
#include "math/vec.h"
#include "runner/test.h"

static gdnModel* load(const char* file) {
    char path[1024], err[1024] = "";
    if (file[0] == '/') {
        snprintf(path, sizeof(path), "%s", file);
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    }
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, gdn_status_string(st), err);
        return NULL;
    }
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    return m;
}

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
    gdn_data_reset(m, d);
    fill_uniform(d->qpos, m->nq, rng, -1, 1);
    gdn_normalize_quat(m, d->qpos);
    fill_uniform(d->qvel, m->nv, rng, -vscale, vscale);
}

static const char* const MODELS[] = {"pendulum.xml", "double_pendulum.xml", "arm7.xml",
                                     "ball_chain.xml", "box_spin.xml", "slider.xml",
                                     "humanoid32.xml"};
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
        gdnModel* m = load(files[f]);
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
    double worst = 0;
    for (int f = 0; f < NMODEL; f++) {
        gdnModel* m = load(MODELS[f]);
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
            gdn_damped_mass_solve(&dm, X, 3);
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
        }
        free(B);
        free(X);
        free(R);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    printf("damped mass: worst |(M + hD) X - B| / |B| = %.2e\n", worst);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"integrate_derivative", test_integrate_derivative},
    {"so3_branch_continuity", test_so3_branch_continuity},
    {"damped_mass", test_damped_mass},
};
GDN_TEST_MAIN(CASES)
