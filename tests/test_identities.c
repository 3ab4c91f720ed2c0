// SPDX-License-Identifier: Apache-2.0
// Identities on the MJCF test models: RNEA inverts ABA, CRBA agrees with ABA, the Euler step
// conserves a pendulum's energy to O(dt), quaternions stay unit while tumbling.
//
// Relative errors are ||a - b||_inf / max(||b||_inf, 1e-6). The consistency tolerance is
// 1e-10; the measured worst errors are printed per model.
#include <stdlib.h>
#include <string.h>

#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/test.h"

#define NSAMPLE 50
#define TOL 1e-10
#define FLOOR 1e-6

// the three consistency identities at NSAMPLE random states of one model:
//   RNEA(q, v, ABA(q, v, tau)) = tau
//   RNEA(q, v, ABA(q, v, tau; extra)) + extra .* qacc = tau   (ABA's armature increment)
//   M qacc + C = tau with M from CRBA, C = RNEA(q, v, 0), qacc = ABA(q, v, tau)
static int check_identities(const char* file) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double* tau = calloc((size_t)nv, sizeof(double));
    double* extra = calloc((size_t)nv, sizeof(double));
    double* qacc = calloc((size_t)nv, sizeof(double));
    double* res = calloc((size_t)nv, sizeof(double));
    double* bias = calloc((size_t)nv, sizeof(double));
    CHECK(tau && extra && qacc && res && bias);
    gdnWorst w;
    memset(&w, 0, sizeof(w));
    unsigned long long rng = 0xA0761D6478BD642FULL ^ (unsigned long long)strlen(file);
    for (int s = 0; s < NSAMPLE; s++) {
        gdn_test_random_qpos_qvel(m, d, &rng);
        for (int i = 0; i < nv; i++) {
            tau[i] = gdn_test_uniform(&rng, -5, 5);
            extra[i] = gdn_test_uniform(&rng, 0, 0.1);
        }
        gdn_kinematics(m, d);

        // RNEA(ABA(tau)) = tau
        gdn_aba(m, d, tau, NULL, qacc);
        memcpy(d->qacc, qacc, sizeof(double) * (size_t)nv);
        gdn_rne(m, d, 1, res);
        gdn_worst_check(&w, file, s, "rnea(aba)", res, tau, nv, FLOOR, TOL);

        // CRBA qacc + bias = tau
        gdn_crb(m, d);
        gdn_rne(m, d, 0, bias);
        for (int i = 0; i < nv; i++) {
            res[i] = bias[i];
            for (int j = 0; j < nv; j++) {
                res[i] += d->qM[i * nv + j] * qacc[j];
            }
        }
        gdn_worst_check(&w, file, s, "crba*aba+bias", res, tau, nv, FLOOR, TOL);

        // with an armature increment
        gdn_aba(m, d, tau, extra, qacc);
        memcpy(d->qacc, qacc, sizeof(double) * (size_t)nv);
        gdn_rne(m, d, 1, res);
        for (int i = 0; i < nv; i++) {
            res[i] += extra[i] * qacc[i];
        }
        gdn_worst_check(&w, file, s, "rnea(aba,extra)", res, tau, nv, FLOOR, TOL);
    }
    gdn_worst_print(&w, file);
    free(tau);
    free(extra);
    free(qacc);
    free(res);
    free(bias);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(w.failures == 0);
    return 0;
}

#define IDENTITY_TEST(fn, file)            \
    static int fn(void) {                  \
        return check_identities(file);     \
    }
IDENTITY_TEST(test_identities_pendulum, "pendulum.xml")
IDENTITY_TEST(test_identities_double_pendulum, "double_pendulum.xml")
IDENTITY_TEST(test_identities_arm7, "arm7.xml")
IDENTITY_TEST(test_identities_ball_chain, "ball_chain.xml")
IDENTITY_TEST(test_identities_box_spin, "box_spin.xml")
IDENTITY_TEST(test_identities_slider, "slider.xml")
IDENTITY_TEST(test_identities_humanoid32, "humanoid32.xml")

// pendulum released from q = 1 rad, no control, for 4 s at step h; returns max_t |E(t) - E(0)|
// and the scale h * max|qvel| * max|qfrc_bias| of the shadow-Hamiltonian bound
static int pendulum_energy(gdnModel* m, double h, double* drift, double* scale) {
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    m->opt.timestep = h;
    d->qpos[0] = 1.0;
    CHECK(gdn_forward(m, d) == GDN_OK);
    gdn_energy(m, d);
    double e0 = d->energy[0] + d->energy[1], vmax = 0, fmax_ = 0;
    *drift = 0;
    int nstep = (int)(4.0 / h + 0.5);
    for (int k = 0; k < nstep; k++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        CHECK(gdn_forward(m, d) == GDN_OK);
        gdn_energy(m, d);
        *drift = fmax(*drift, fabs(d->energy[0] + d->energy[1] - e0));
        vmax = fmax(vmax, fabs(d->qvel[0]));
        fmax_ = fmax(fmax_, fabs(d->qfrc_bias[0]));
    }
    *scale = h * vmax * fmax_;
    gdn_data_free(d);
    return 0;
}

// Semi-implicit Euler is symplectic: it conserves H~ = H - (h/2) qvel . tau_g(q) + O(h^2)
// exactly, so |E - E0| stays below h max|qvel| max|tau_g| (MuJoCo's own Euler measures 0.27 of
// that scale on this pendulum) and halves when h halves, with no secular drift over 4 s
static int test_energy_pendulum(void) {
    gdnModel* m = gdn_test_load_model("pendulum.xml");
    CHECK(m);
    for (int i = 0; i < m->nv; i++) {
        CHECK(m->dof_damping[i] == 0 && m->dof_armature[i] == 0);
    }
    double drift[3], scale[3], h = 0.004;
    for (int r = 0; r < 3; r++, h /= 2) {
        CHECK(pendulum_energy(m, h, &drift[r], &scale[r]) == 0);
        printf("pendulum energy: h %.4f max|E - E0| %.4e (bound h*max|v|*max|tau| %.4e)\n", h,
               drift[r], scale[r]);
    }
    gdn_model_free(m);
    for (int r = 0; r < 3; r++) {
        CHECK(drift[r] > 0 && drift[r] <= scale[r]);
    }
    for (int r = 0; r < 2; r++) {
        double ratio = drift[r] / drift[r + 1];
        printf("pendulum energy: drift(h) / drift(h/2) = %.3f\n", ratio);
        CHECK(ratio > 1.8 && ratio < 2.2);
    }
    return 0;
}

// 10^4 steps from a tumbling state: every quaternion in qpos unit to 1e-12
static int tumble_quaternions(const char* file) {
    gdnModel* m = gdn_test_load_model(file);
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(m->nkey > 0);
    CHECK(gdn_data_reset_keyframe(m, d, 0) == GDN_OK);
    double worst = 0;
    for (int k = 0; k < 10000; k++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        for (int j = 0; j < m->njnt; j++) {
            int t = m->jnt_type[j];
            if (t != GDN_JNT_BALL && t != GDN_JNT_FREE) {
                continue;
            }
            const double* q = d->qpos + m->jnt_qposadr[j] + (t == GDN_JNT_FREE ? 3 : 0);
            double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            worst = fmax(worst, fabs(norm - 1));
        }
    }
    double maxv = 0;
    for (int i = 0; i < m->nv; i++) {
        maxv = fmax(maxv, fabs(d->qvel[i]));
    }
    printf("%s: 10^4 steps, max ||q| - 1| = %.3e, final max|qvel| = %.3g\n", file, worst, maxv);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(worst <= 1e-12);
    CHECK(maxv > 0.1); // it really tumbled
    return 0;
}

static int test_unit_quat_box_spin(void) {
    return tumble_quaternions("box_spin.xml");
}

static int test_unit_quat_ball_chain(void) {
    return tumble_quaternions("ball_chain.xml");
}

static const gdnTestCase cases[] = {
    {"identities_pendulum", test_identities_pendulum},
    {"identities_double_pendulum", test_identities_double_pendulum},
    {"identities_arm7", test_identities_arm7},
    {"identities_ball_chain", test_identities_ball_chain},
    {"identities_box_spin", test_identities_box_spin},
    {"identities_slider", test_identities_slider},
    {"identities_humanoid32", test_identities_humanoid32},
    {"energy_pendulum", test_energy_pendulum},
    {"unit_quat_box_spin", test_unit_quat_box_spin},
    {"unit_quat_ball_chain", test_unit_quat_ball_chain},
};
GDN_TEST_MAIN(cases)
