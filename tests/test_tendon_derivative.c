// SPDX-License-Identifier: Apache-2.0
// The tendon Jacobian's q-derivative (kinematics/tendon_derivative.h) against central
// differences of the primal's ten_J, and its J against the primal's, on spatial tendons; the
// inside wrap's point tangent against a tighter-converged evaluation, and steps (A, B, JVP,
// VJP, the trajectory adjoint) and the tendon sensors through inside wraps.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>

#include "kinematics/jacobian.h"
#include "kinematics/tendon_derivative.h"
#include "kinematics/tendon_wrap.h"
#include "runner/models.h"
#include "runner/rollout_fd.h"
#include "runner/test.h"

// central differences with eps 1e-6: truncation ~1e-12 of the curvature scale, round-off
// ~1e-16 / 1e-6; the bound 1e-7 relative to max(|DJ|, 1)
#define EPS 1e-6
#define TOL_FD 1e-7

static int check_model(const char* file, int nsample) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nq = m->nq, nt = m->ntendon;
    const size_t n = (size_t)nv;
    double* buf = calloc(6 * n + 6 * ((size_t)m->nbody + n) + 3 * n + 2 * n * n + 2 * (size_t)nq +
                             n * (size_t)nt * 2,
                         sizeof(double));
    CHECK(buf);
    double *S = buf, *scratch = S + 6 * n, *J = scratch + 6 * ((size_t)m->nbody + n);
    double *e = J + n, *col = e + n, *DJ = col + n, *fd = DJ + n * n, *q0 = fd + n * n;
    double *qa = q0 + nq, *Jp = qa + nq, *Jm = Jp + n * (size_t)nt;
    unsigned long long rng = 99;
    double worst_j = 0, worst_fd = 0;
    int refused = 0, wrapped = 0, inside = 0;
    for (int s = 0; s < nsample; s++) {
        gdn_test_random_qpos(m, d, &rng);
        for (int i = 0; i < nv; i++) {
            d->qvel[i] = gdn_test_uniform(&rng, -1, 1);
        }
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        gdn_kinematics(m, d);
        gdn_dof_axes_about(m, d, 0, S);
        inside += (gdn_tendon_inside_wrap(m, d) & 1) != 0;
        for (int t = 0; t < nt; t++) {
            double L, V;
            if (gdn_tendon_linear(m, d, S, t, &L, &V, J, DJ, scratch) < 0) {
                refused++; // an inside wrap's fallback point, a degenerate sphere wrap
                continue;
            }
            wrapped += d->ten_wrapnum[t] > 0 && d->wrap_obj[d->ten_wrapadr[t] + 1] >= 0;
            worst_j = fmax(worst_j, gdn_test_relerr(J, d->ten_J + (size_t)t * n, nv, 1));
            worst_j = fmax(worst_j, fabs(L - d->ten_length[t]) / fmax(1, fabs(L)));
            worst_j = fmax(worst_j, fabs(V - d->ten_velocity[t]) / fmax(1, fabs(V)));
            // FD of ten_J along each e_c: column c of DJ
            for (int c = 0; c < nv; c++) {
                memset(e, 0, sizeof(double) * n);
                e[c] = 1;
                for (int sg = 0; sg < 2; sg++) {
                    memcpy(qa, q0, sizeof(double) * (size_t)nq);
                    gdn_integrate_pos(m, qa, e, sg ? -EPS : EPS);
                    memcpy(d->qpos, qa, sizeof(double) * (size_t)nq);
                    gdn_kinematics(m, d);
                    memcpy(sg ? Jm : Jp, d->ten_J + (size_t)t * n, sizeof(double) * n);
                }
                for (int r = 0; r < nv; r++) {
                    fd[(size_t)r * n + (size_t)c] = (Jp[r] - Jm[r]) / (2 * EPS);
                }
            }
            memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
            gdn_kinematics(m, d);
            const double err = gdn_test_relerr(DJ, fd, nv * nv, 1);
            worst_fd = fmax(worst_fd, err);
            if (!(err <= TOL_FD)) {
                fprintf(stderr, "%s sample %d tendon %d: DJ vs FD %.3g\n", file, s, t, err);
                gdn_test_print_worst(DJ, fd, nv * nv);
                return 1;
            }
        }
    }
    printf("  %s: J, L, V vs the primal %.3g; DJ vs FD %.3g (%d samples x %d tendons, %d wrapped, "
           "%d samples with an inside wrap at its root, %d linearizations refused)\n",
           file, worst_j, worst_fd, nsample, nt, wrapped, inside, refused);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(worst_j <= 1e-13);
    return 0;
}

static int test_jacobian_motion(void) {
    CHECK(check_model("tendon_spatial.xml", 8) == 0);
    CHECK(check_model("tendon_fixed.xml", 2) == 0);
    CHECK(check_model("tendon_arm26.xml", 12) == 0);
    CHECK(check_model("tendon_inside.xml", 12) == 0);
    // 18 geom wraps in one tendon: more than the linearization keeps from its first pass (16)
    CHECK(check_model("tendon_many_wraps.xml", 8) == 0);
    return 0;
}

// A, B (gdn_transition_jacobians) vs central FD of gdn_step (eps 1e-6; the primal's inside
// wrap solved to MuJoCo's |F| <= 1e-6, so FD agrees to about that: test_inside_wrap_point
// checks the point's tangent against a tighter evaluation), the JVP vs A x + B u and the
// dot-product identity, at states found by qpos uniform in [lo, hi], with an inside wrap at its
// root (want 1: GDN_DERIV_WRAP_LIMIT reported) or without one (want 0: not reported)
static int inside_step(gdnModel* m, double lo, double hi, int want, double* e_fd, double* e_jvp,
                       double* e_dot, int* nstate) {
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nu = m->nu, nq = m->nq, n = 2 * nv;
    double* buf =
        calloc((size_t)(2 * n * n + 2 * n * nu + 8 * n + 4 * nq + 2 * nu), sizeof(double));
    CHECK(buf);
    double *A = buf, *Afd = A + n * n, *B = Afd + n * n, *Bfd = B + n * nu, *x = Bfd + n * nu;
    double *y = x + n, *jx = y + n, *g = jx + n, *ax = g + n, *col = ax + n, *q0 = col + n;
    double *v0 = q0 + nq, *qp = v0 + nv, *qm = qp + nq, *u0 = qm + nq, *gu = u0 + nu;
    double *du = gu + nu, *vp = du + n;
    unsigned long long rng = 11;
    int found = 0;
    for (int s = 0; s < 400 && found < 4; s++) {
        gdn_data_reset(m, d);
        for (int k = 0; k < nq; k++) {
            d->qpos[k] = gdn_test_uniform(&rng, lo, hi);
        }
        for (int k = 0; k < nv; k++) {
            d->qvel[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            d->ctrl[k] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
        gdn_kinematics(m, d);
        if (((gdn_tendon_inside_wrap(m, d) & 1) != 0) != want) {
            continue;
        }
        found++;
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(u0, d->ctrl, sizeof(double) * (size_t)nu);
        CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_OK);
        CHECK(((d->deriv_flags & GDN_DERIV_WRAP_LIMIT) != 0) == want);
        for (int j = 0; j < n + nu; j++) {
            for (int sg = 0; sg < 2; sg++) {
                const double h = sg ? -EPS : EPS;
                gdn_data_reset(m, d);
                memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
                memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
                memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
                if (j < nv) {
                    memset(col, 0, sizeof(double) * (size_t)n);
                    col[j] = 1;
                    gdn_integrate_pos(m, d->qpos, col, h);
                } else if (j < n) {
                    d->qvel[j - nv] += h;
                } else {
                    d->ctrl[j - n] += h;
                }
                CHECK(gdn_step(m, d) == GDN_OK);
                memcpy(sg ? qm : qp, d->qpos, sizeof(double) * (size_t)nq);
                if (!sg) {
                    memcpy(vp, d->qvel, sizeof(double) * (size_t)nv);
                }
            }
            gdn_difference_pos(m, col, 2 * EPS, qm, qp);
            double* dst = j < n ? Afd : Bfd;
            const int cols = j < n ? n : nu, c = j < n ? j : j - n;
            for (int r = 0; r < nv; r++) {
                dst[r * cols + c] = col[r];
                dst[(nv + r) * cols + c] = (vp[r] - d->qvel[r]) / (2 * EPS);
            }
        }
        gdn_data_reset(m, d);
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, u0, sizeof(double) * (size_t)nu);
        *e_fd = fmax(*e_fd, fmax(gdn_test_relerr(A, Afd, n * n, 1),
                                 gdn_test_relerr(B, Bfd, n * nu, 1)));
        for (int k = 0; k < n; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_step_jvp(m, d, x, x + nv, du, NULL, NULL, jx, jx + nv) == GDN_OK);
        CHECK(((d->deriv_flags & GDN_DERIV_WRAP_LIMIT) != 0) == want);
        for (int r = 0; r < n; r++) {
            double sum = 0;
            for (int c = 0; c < n; c++) {
                sum += A[r * n + c] * x[c];
            }
            for (int c = 0; c < nu; c++) {
                sum += B[r * nu + c] * du[c];
            }
            ax[r] = sum;
        }
        *e_jvp = fmax(*e_jvp, gdn_test_relerr(jx, ax, n, 1));
        CHECK(gdn_step_vjp(m, d, y, y + nv, g, g + nv, gu, NULL, NULL) == GDN_OK);
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            lhs += y[k] * jx[k];
            rhs += g[k] * x[k];
            mag += fabs(y[k] * jx[k]) + fabs(g[k] * x[k]);
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
            mag += fabs(gu[k] * du[k]);
        }
        *e_dot = fmax(*e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    *nstate += found;
    free(buf);
    gdn_data_free(d);
    CHECK(found == 4);
    return 0;
}

// steps through inside wraps at their root: tendon_arm26 (its last tendon KI given a spring;
// rows on: its other tendons' limit and friction loss) and tendon_inside (a cylinder and a
// sphere inside wrap, springs, a damper, motors); A, B vs FD, the JVP and VJP as inside_step,
// GDN_DERIV_WRAP_LIMIT on those states only; then the trajectory adjoint through them vs FD
static int test_inside_wrap_step(void) {
    double e_fd = 0, e_jvp = 0, e_dot = 0;
    int nstate = 0;
    gdnModel* m = gdn_test_load_model_as_is("tendon_arm26.xml");
    CHECK(m);
    m->tendon_stiffness[m->ntendon - 1] = 2;
    CHECK(inside_step(m, 0, 2, 1, &e_fd, &e_jvp, &e_dot, &nstate) == 0);
    CHECK(inside_step(m, 0, 2, 0, &e_fd, &e_jvp, &e_dot, &nstate) == 0);
    gdn_model_free(m);
    m = gdn_test_load_model_as_is("tendon_inside.xml");
    CHECK(m);
    CHECK(inside_step(m, -3, 3, 1, &e_fd, &e_jvp, &e_dot, &nstate) == 0);
    CHECK(inside_step(m, -3, 3, 0, &e_fd, &e_jvp, &e_dot, &nstate) == 0);
    printf("  inside wraps (%d states, half with one at its root): A, B vs central FD of gdn_step "
           "%.3g; JVP vs A x + B u %.3g; dot-product identity %.3g\n",
           nstate, e_fd, e_jvp, e_dot);
    CHECK(e_fd <= 1e-5);
    CHECK(e_jvp <= 1e-12);
    CHECK(e_dot <= 1e-12);
    // the trajectory adjoint (40 steps from a state with an inside wrap on) vs FD
    gdnFdProblem p;
    const double qbase[2] = {0.4, -0.8};
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    memcpy(d->qpos, qbase, sizeof(qbase));
    gdn_kinematics(m, d);
    CHECK(gdn_tendon_inside_wrap(m, d) == 1);
    gdn_data_free(d);
    CHECK(gdn_fd_problem_init(&p, "tendon_inside.xml", m, 40, 29, qbase, 0.05, NULL, 0.5, 0.5));
    CHECK(gdn_fd_gradient_checked(&p) == 0);
    const int nv = p.m->nv, nu = p.m->nu;
    int idx[80 + 2];
    for (int k = 0; k < 40 * nu + nv; k++) {
        idx[k] = k;
    }
    double e = 0;
    e = fmax(e, gdn_fd_block(&p, GDN_FD_Q0, "q0", p.g.qpos0, idx, nv, 1e-8, 1e-5));
    e = fmax(e, gdn_fd_block(&p, GDN_FD_V0, "v0", p.g.qvel0, idx, nv, 1e-8, 1e-5));
    e = fmax(e, gdn_fd_block(&p, GDN_FD_U, "u", p.g.ctrl, idx, 40 * nu, 1e-8, 1e-5));
    printf("  tendon_inside: trajectory adjoint vs FD %.3g\n", e);
    gdn_fd_problem_free(&p);
    CHECK(e <= 1e-5);
    return 0;
}

// ---------------------------------------------------------------- the inside wrap's point

// the inside wrap's point (sphere and cylinder, geom frame: centre 0, radius r, side site at
// the centre) at random ends: gdn_wrap_inside_tangent vs central FD (eps 1e-6) of the point of
// a tighter-converged evaluation (gdn_tendon_wrap_tol at |F| <= 1e-14), and, printed, vs FD of
// the primal's (MuJoCo's |F| <= 1e-6) and the two evaluations' distance
static int test_inside_wrap_point(void) {
    unsigned long long rng = 4242;
    const double r = 0.1, side[3] = {0, 0, 0}, pos[3] = {0, 0, 0};
    const double mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double worst_tight = 0, worst_primal = 0, gap = 0;
    int count[2] = {0, 0}, fallback = 0, tried = 0;
    while ((count[0] < 200 || count[1] < 200) && tried < 200000) {
        tried++;
        const int cyl = count[0] >= 200 ? 1 : count[1] >= 200 ? 0 : (int)(tried & 1);
        double P[2][3], dP[2][3], wp[6], wq[6];
        for (int e = 0; e < 2; e++) {
            for (int k = 0; k < 3; k++) {
                P[e][k] = gdn_test_uniform(&rng, -0.4, 0.4);
                dP[e][k] = gdn_test_uniform(&rng, -1, 1);
            }
        }
        gdnWrapInfo info;
        const double wlen = gdn_tendon_wrap_tol(wp, P[0], P[1], pos, mat, r, cyl, side, 1e-14,
                                                &info);
        if (wlen < 0 || !info.inside) {
            continue;
        }
        if (!info.solved) {
            fallback++;
            continue;
        }
        gdnWrapInfo pinfo;
        gdn_tendon_wrap(wq, P[0], P[1], pos, mat, r, cyl, side, &pinfo);
        if (!pinfo.solved) {
            continue;
        }
        double dT[3], fd[3], fdp[3];
        gdn_wrap_inside_tangent(cyl, r, info.z, P[0], P[1], dP[0], dP[1], dT);
        // central FD of both evaluations along (dP0, dP1); the branch kept on both sides
        int keep = 1;
        double a[2][2][3];
        for (int sg = 0; sg < 2; sg++) {
            double Q[2][3], w6[6];
            for (int e = 0; e < 2; e++) {
                for (int k = 0; k < 3; k++) {
                    Q[e][k] = P[e][k] + (sg ? -1e-6 : 1e-6) * dP[e][k];
                }
            }
            gdnWrapInfo qi;
            for (int tight = 0; tight < 2; tight++) {
                const double wl = gdn_tendon_wrap_tol(w6, Q[0], Q[1], pos, mat, r, cyl, side,
                                                      tight ? 1e-14 : GDN_WRAP_INSIDE_TOL, &qi);
                keep &= wl >= 0 && qi.inside && qi.solved;
                memcpy(a[tight][sg], w6, sizeof(a[tight][sg]));
            }
        }
        if (!keep) {
            continue;
        }
        for (int k = 0; k < 3; k++) {
            fd[k] = (a[1][0][k] - a[1][1][k]) / 2e-6;
            fdp[k] = (a[0][0][k] - a[0][1][k]) / 2e-6;
        }
        const double et = gdn_test_relerr(dT, fd, 3, 1), ep = gdn_test_relerr(dT, fdp, 3, 1);
        if (!(et <= 1e-7)) {
            fprintf(stderr, "%s: P0 (%g %g %g) P1 (%g %g %g) z %.17g: dT (%g %g %g) vs FD (%g %g "
                            "%g): %.3g\n",
                    cyl ? "cylinder" : "sphere", P[0][0], P[0][1], P[0][2], P[1][0], P[1][1],
                    P[1][2], info.z, dT[0], dT[1], dT[2], fd[0], fd[1], fd[2], et);
            return 1;
        }
        worst_tight = fmax(worst_tight, et);
        worst_primal = fmax(worst_primal, ep);
        for (int k = 0; k < 3; k++) {
            gap = fmax(gap, fabs(wp[k] - wq[k]) / r);
        }
        count[cyl]++;
    }
    printf("  inside wrap point (%d sphere, %d cylinder states; %d fallback points skipped): "
           "dT vs FD of the |F| <= 1e-14 evaluation %.3g; vs FD of the primal's (|F| <= 1e-6) "
           "%.3g; the two evaluations' points differ by up to %.3g r\n",
           count[0], count[1], fallback, worst_tight, worst_primal, gap);
    CHECK(count[0] >= 200 && count[1] >= 200);
    return 0;
}

// an inside wrap whose solve finds no root (the primal's fallback point, the ends' mean
// direction on the circle: not stationary, its J is not d length / dq): a cylinder at the
// origin, the ends at a configuration found by search (rare: ~3e-4 of random inside wraps), a
// spring on the tendon; every derivative entry refuses the step, the trajectory adjoint naming
// GDN_TENDON_WRAP_WHAT
static int test_inside_wrap_refused(void) {
    const char* xml =
        "<mujoco><worldbody><geom name='c' type='cylinder' size='.1 .05' contype='0' "
        "conaffinity='0'/><site name='p0' pos='0.236688 -0.196322 0.0620698'/>"
        "<site name='in' pos='0 0 0'/><body><joint type='slide' axis='1 0 0'/>"
        "<geom size='.01' contype='0' conaffinity='0'/>"
        "<site name='p1' pos='-0.051137 0.276355 0.0361125'/></body></worldbody>"
        "<tendon><spatial stiffness='2'><site site='p0'/><geom geom='c' sidesite='in'/>"
        "<site site='p1'/></spatial></tendon></mujoco>";
    gdnModel* m = NULL;
    char err[512] = "";
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_kinematics(m, d);
    CHECK(gdn_tendon_inside_wrap(m, d) == 2);
    double x[2] = {0.3, -0.2}, y[2], A[4], B[1];
    CHECK(gdn_step_jvp(m, d, x, x + 1, NULL, NULL, NULL, y, y + 1) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_step_vjp(m, d, x, x + 1, y, y + 1, NULL, NULL, NULL) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_ERR_UNSUPPORTED);
    gdnRollout r;
    gdn_rollout_init(m, 1, &r);
    double q0[1] = {0}, v0[1] = {0};
    r.qpos0 = q0;
    r.qvel0 = v0;
    gdnTargetObjective spec = {1, {0, 0, 0}, {0.3, 0, 0}, 1, 0, 0};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, 1, 1, &tape, err, (int)sizeof(err)) == GDN_OK);
    gdnAdjointGradients out;
    memset(&out, 0, sizeof(out));
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, (int)sizeof(err)) ==
          GDN_ERR_UNSUPPORTED);
    printf("  adjoint: %s\n", err);
    CHECK(strstr(err, GDN_TENDON_WRAP_WHAT));
    gdn_tape_free(tape);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// the linearization cache (kinematics/tendon_derivative.h): a cached L, J, DJ, V equals the
// computation's bit for bit (the cache bypassed: d->tendon_cache_ NULL), a J-only entry grows
// to DJ, and after the body frames move (gdn_kinematics: a new epoch) the entry is recomputed,
// never a stale one read (tendon_arm26.xml: spatial tendons wrapping spheres and cylinders)
// gdn_tendon_linear with the cache bypassed: the computation itself
static int uncached_linear(const gdnModel* m, gdnData* d, const double* S, int t, double* L,
                           double* V, double* J, double* DJ, double* scratch) {
    void* cache = d->tendon_cache_;
    d->tendon_cache_ = NULL;
    const int r = gdn_tendon_linear(m, d, S, t, L, V, J, DJ, scratch);
    d->tendon_cache_ = cache;
    return r;
}

static int test_linear_cache(void) {
    gdnModel* m = gdn_test_load_model("tendon_arm26.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(d->tendon_cache_ != NULL);
    const size_t n = (size_t)m->nv;
    double* buf = calloc(6 * n + 6 * ((size_t)m->nbody + n) + 4 * n + 4 * n * n, sizeof(double));
    double *S = buf, *scratch = S + 6 * n, *J = scratch + 6 * ((size_t)m->nbody + n);
    double *J0 = J + n, *DJ = J0 + n, *DJ0 = DJ + n * n;
    unsigned long long rng = 7;
    int checked = 0;
    for (int s = 0; s < 20; s++) {
        gdn_test_random_qpos(m, d, &rng);
        for (size_t i = 0; i < n; i++) {
            d->qvel[i] = gdn_test_uniform(&rng, -1, 1);
        }
        gdn_kinematics(m, d);
        gdn_dof_axes_about(m, d, 0, S);
        for (int t = 0; t < m->ntendon; t++) {
            double L0, V0, L, V;
            const int r0 = uncached_linear(m, d, S, t, &L0, &V0, J0, DJ0, scratch);
            // J only first (state 1), then with DJ (grown), then read again (state 2)
            for (int pass = 0; pass < 3; pass++) {
                const int r = gdn_tendon_linear(m, d, S, t, &L, &V, J, pass ? DJ : NULL,
                                                scratch);
                CHECK(r == r0);
                if (r0 < 0) {
                    break;
                }
                CHECK(L == L0 && V == V0 && !memcmp(J, J0, sizeof(double) * n));
                CHECK(!pass || !memcmp(DJ, DJ0, sizeof(double) * n * n));
                checked++;
            }
            // a new velocity: V at the current qvel, the kinematics' entry kept
            d->qvel[0] += 0.25;
            uncached_linear(m, d, S, t, &L0, &V0, J0, NULL, scratch);
            CHECK(gdn_tendon_linear(m, d, S, t, &L, &V, J, NULL, scratch) == r0);
            CHECK(r0 < 0 || V == V0);
            d->qvel[0] -= 0.25;
        }
    }
    // the body frames move without the cache's knowledge only through gdn_kinematics_bodies,
    // which starts a new epoch: the next call recomputes
    const unsigned long long epoch = d->kinematics_epoch_;
    d->qpos[0] += 0.3;
    gdn_kinematics(m, d);
    CHECK(d->kinematics_epoch_ != epoch);
    gdn_dof_axes_about(m, d, 0, S);
    for (int t = 0; t < m->ntendon; t++) {
        double L0, V0, L, V;
        const int r0 = uncached_linear(m, d, S, t, &L0, &V0, J0, DJ0, scratch);
        CHECK(gdn_tendon_linear(m, d, S, t, &L, &V, J, DJ, scratch) == r0);
        CHECK(r0 < 0 || (L == L0 && !memcmp(DJ, DJ0, sizeof(double) * n * n)));
    }
    printf("  %d cached linearizations equal to the computation bit for bit\n", checked);
    CHECK(checked > 100);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// tendon_inside's sensors (tendonpos, tendonvel, actuatorvel on its wrapping tendons) at states
// with an inside wrap at its root: gdn_sensor_jvp vs central FD of sensordata (eps 1e-6) along
// a random (dq, dv), gdn_sensor_vjp by the dot-product identity
static int test_inside_wrap_sensors(void) {
    gdnModel* m = gdn_test_load_model("tendon_inside.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nq = m->nq, ns = m->nsensordata;
    CHECK(ns > 0);
    double x[4], g[4], q0[2], v0[2], ds[8], y[8], sp[8], sm[8], fd[8];
    CHECK(nv == 2 && nq == 2 && ns <= 8);
    unsigned long long rng = 8;
    double e_fd = 0, e_dot = 0;
    int found = 0;
    for (int s = 0; s < 400 && found < 8; s++) {
        gdn_data_reset(m, d);
        for (int k = 0; k < nq; k++) {
            d->qpos[k] = gdn_test_uniform(&rng, -3, 3);
            d->qvel[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_forward(m, d) == GDN_OK);
        if (!(gdn_tendon_inside_wrap(m, d) & 1)) {
            continue;
        }
        found++;
        memcpy(q0, d->qpos, sizeof(q0));
        memcpy(v0, d->qvel, sizeof(v0));
        for (int k = 0; k < 2 * nv; k++) {
            x[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            y[k] = gdn_test_uniform(&rng, -1, 1);
        }
        CHECK(gdn_sensor_jvp(m, d, x, x + nv, NULL, ds) == GDN_OK);
        CHECK(gdn_sensor_vjp(m, d, y, g, g + nv, NULL) == GDN_OK);
        for (int sg = 0; sg < 2; sg++) {
            const double h = sg ? -EPS : EPS;
            memcpy(d->qpos, q0, sizeof(q0));
            gdn_integrate_pos(m, d->qpos, x, h);
            for (int k = 0; k < nv; k++) {
                d->qvel[k] = v0[k] + h * x[nv + k];
            }
            CHECK(gdn_forward(m, d) == GDN_OK);
            memcpy(sg ? sm : sp, d->sensordata, sizeof(double) * (size_t)ns);
        }
        for (int k = 0; k < ns; k++) {
            fd[k] = (sp[k] - sm[k]) / (2 * EPS);
        }
        e_fd = fmax(e_fd, gdn_test_relerr(ds, fd, ns, 1));
        double lhs = 0, rhs = 0, mag = 0;
        for (int k = 0; k < ns; k++) {
            lhs += y[k] * ds[k];
            mag += fabs(y[k] * ds[k]);
        }
        for (int k = 0; k < 2 * nv; k++) {
            rhs += g[k] * x[k];
            mag += fabs(g[k] * x[k]);
        }
        e_dot = fmax(e_dot, fabs(lhs - rhs) / fmax(1, mag));
    }
    printf("  tendon_inside: %d sensor values at %d inside-wrap states: JVP vs FD %.3g; "
           "dot-product identity %.3g\n",
           ns, found, e_fd, e_dot);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(found == 8);
    CHECK(e_fd <= 1e-6);
    CHECK(e_dot <= 1e-12);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"jacobian_motion", test_jacobian_motion},
        {"linear_cache", test_linear_cache},
        {"inside_wrap_step", test_inside_wrap_step},
        {"inside_wrap_refused", test_inside_wrap_refused},
        {"inside_wrap_point", test_inside_wrap_point},
        {"inside_wrap_sensors", test_inside_wrap_sensors},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
