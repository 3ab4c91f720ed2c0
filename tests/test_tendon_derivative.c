// SPDX-License-Identifier: Apache-2.0
// The tendon Jacobian's q-derivative (kinematics/tendon_derivative.h) against central
// differences of the primal's ten_J, and its J against the primal's, on spatial tendons.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "kinematics/jacobian.h"
#include "kinematics/tendon_derivative.h"
#include "kinematics/tendon_wrap.h"
#include "runner/models.h"
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
    int refused = 0, wrapped = 0;
    for (int s = 0; s < nsample; s++) {
        gdn_test_random_qpos(m, d, &rng);
        for (int i = 0; i < nv; i++) {
            d->qvel[i] = gdn_test_uniform(&rng, -1, 1);
        }
        memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
        gdn_kinematics(m, d);
        gdn_dof_axes_about(m, d, 0, S);
        for (int t = 0; t < nt; t++) {
            double L, V;
            if (gdn_tendon_linear(m, d, S, t, &L, &V, J, DJ, scratch) < 0) {
                refused++; // an inside wrap
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
           "%d inside wraps refused)\n",
           file, worst_j, worst_fd, nsample, nt, wrapped, refused);
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
    return 0;
}

// a step whose tendon wraps with its side site inside the geom (tendon_arm26's last tendon,
// given a spring):
// every derivative entry refuses it, the trajectory adjoint by name; a state where that wrap is
// off is differentiated
static int test_inside_wrap_refused(void) {
    gdnModel* m = gdn_test_load_model_as_is("tendon_arm26.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nv = m->nv, nu = m->nu, n = 2 * nv, last = m->ntendon - 1;
    // a spring on it, so that the step needs its linearization (a force-free tendon needs none)
    m->tendon_stiffness[last] = 2;
    double* buf = calloc((size_t)(n * n + n * nu + 4 * n + nu + 4 * nv + 20 * nu), sizeof(double));
    CHECK(buf);
    double *A = buf, *B = A + n * n, *x = B + n * nu, *y = x + n, *g = y + n, *gu = g + n;
    double *q0 = gu + nu, *gq0 = q0 + 2 * nv, *ctrl = gq0 + 2 * nv;
    // the states whose last tendon wraps (inside: its side site is within the sphere) or not
    unsigned long long rng = 5;
    int found[2] = {0, 0};
    double q_in[2] = {0, 0}, q_out[2] = {0, 0};
    for (int s = 0; s < 200 && !(found[0] && found[1]); s++) {
        gdn_data_reset(m, d);
        for (int k = 0; k < m->nq; k++) {
            d->qpos[k] = gdn_test_uniform(&rng, 0, 2);
        }
        gdn_kinematics(m, d);
        const int on = d->wrap_obj[d->ten_wrapadr[last] + 1] >= 0;
        if (!found[on]) {
            found[on] = 1;
            memcpy(on ? q_in : q_out, d->qpos, sizeof(double) * 2);
        }
    }
    CHECK(found[0] && found[1] && m->nq == 2);
    gdn_data_reset(m, d);
    memcpy(d->qpos, q_in, sizeof(q_in));
    CHECK(gdn_step_jvp(m, d, x, x + nv, NULL, NULL, NULL, y, y + nv) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_step_vjp(m, d, x, x + nv, g, g + nv, gu, NULL, NULL) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_transition_jacobians(m, d, A, B) == GDN_ERR_UNSUPPORTED);
    // the trajectory adjoint from that state names it
    gdnRollout r;
    gdn_rollout_init(m, 10, &r);
    memcpy(q0, q_in, sizeof(q_in));
    r.qpos0 = q0;
    r.qvel0 = q0 + m->nq;
    r.ctrl = ctrl;
    gdnTargetObjective spec = {1, {0.5, 0, 0}, {0.3, 0.3, 0}, 1, 0, 0};
    gdnObjective obj;
    CHECK(gdn_objective_target(m, &spec, &obj) == GDN_OK);
    gdnTape* tape = NULL;
    char err[512] = "";
    CHECK(gdn_tape_create(m, 10, 1, &tape, err, (int)sizeof(err)) == GDN_OK);
    gdnAdjointGradients out;
    memset(&out, 0, sizeof(out));
    out.qpos0 = gq0;
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, (int)sizeof(err)) ==
          GDN_ERR_UNSUPPORTED);
    printf("  adjoint: %s\n", err);
    CHECK(strstr(err, "tendon wrapping"));
    // the same without its rows (the smooth path: the passive force of its spring)
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, (int)sizeof(err)) ==
          GDN_ERR_UNSUPPORTED);
    printf("  adjoint without rows: %s\n", err);
    CHECK(strstr(err, "tendon wrapping"));
    m->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    // the other state: differentiated
    gdn_data_reset(m, d);
    memcpy(d->qpos, q_out, sizeof(q_out));
    CHECK(gdn_step_jvp(m, d, x, x + nv, NULL, NULL, NULL, y, y + nv) == GDN_OK);
    gdn_tape_free(tape);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
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

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"jacobian_motion", test_jacobian_motion},
        {"inside_wrap_refused", test_inside_wrap_refused},
        {"inside_wrap_point", test_inside_wrap_point},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
