// SPDX-License-Identifier: Apache-2.0
// Acceleration-stage sensor derivatives vs finite differences (gradyn, MuJoCo) and adjoints.
//
// What: gdn_sensor_jvp_act of accelerometer, force, torque, framelinacc, frameangacc, touch,
// jointlimitfrc, tendonlimitfrc (and actuatorfrc of a stateful actuator) vs central
// differences of gdn_forward's and of MuJoCo 2.2.2's mj_forward sensordata, the dot-product
// identity with gdn_sensor_vjp_act, the refusals, and a rollout objective of these sensors
// through the trajectory adjoint vs central differences.
// Tolerances and why (tests/models/sensors_acc_deriv.xml: Newton to tolerance 1e-14, the box's
// and the leg's solimp widths (1 cm, 5 cm) keep their penetrations inside one piece of the
// impedance curve; sensors_contact.xml with the same solver options; the sensors are smooth
// functions of the state while the contact and row set and the row states are held):
//   JVP vs central FD of gdn_forward, per sensor relative to max(|FD|_inf, 1), the best of the
//     steps eps = 1.5e-6, 6e-6, 2.4e-5 that keep the active set (the first must): an FD has
//     two error terms, both measured, that favour different steps on different samples. The
//     truncation eps^2 |s'''| / 6, which the impedance curve's curvature makes 9e-8, 8e-7,
//     9e-6 at eps 1e-6, 3e-6, 1e-5 on the stiffest sample (the box), and the round-off of the
//     values over eps: about 1e-13 |s|_inf / eps (the stiff soft-contact solve; 8.6e-6,
//     1.9e-6, 1.2e-7 at eps 3e-7, 1.5e-6, 6e-6 on the leg's touch; on the hanging box's force,
//     |s| = 45 N with a derivative below 1, 2.4e-6, 6.1e-7, 1.5e-7 at the three steps). A
//     sensor passes when at one of the steps |JVP - FD| <= 1e-6 max(|FD|, 1) + 1e-12 |s| / eps
//     (the second term: that round-off floor, 10x the measured). Worst relative errors: 1.2e-7
//     and 1.0e-7 (pyramidal, elliptic), 6.1e-7 on sensors_contact.xml (the floor term above).
//   JVP vs central FD of mj_forward (the same steps and rule): gradyn's solve reproduces
//     MuJoCo's (test_sensors: the values agree to 1e-11; here the two FDs agree to 3 digits,
//     their round-off included).
//   dot identity <g, J u> = <J' g, u>: both are the same linear map evaluated in two orders,
//     1e-12 relative to sum |g_k (J u)_k| (measured 3.8e-14).
//   rollout adjoint vs central FD (eps 5e-7, 20 steps, every FD rollout keeping the nominal
//     active set at every step): truncation eps^2 (measured 6.6e-6, 1.0e-6, 1.5e-7, 1.6e-8 at
//     eps 1e-5, 4e-6, 1.5e-6, 5e-7: the weld's stiff rotation rows), round-off of J ~ 1e2
//     negligible: 1e-6 relative.
// A sample whose contact / row set or a row state differs between q - eps and q + eps at the
// first step (a kink: no derivative there) is not compared with differences; the identity
// still holds there.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/test.h"

#define MODEL "sensors_acc_deriv.xml"
#define NSAMPLES 48
#define MIN_CHECKED 30
// the FD steps (kSteps[0] must keep the active set for a sample to be compared)
#define NSTEP 3
static const double kSteps[NSTEP] = {1.5e-6, 6e-6, 2.4e-5};
#define ADJ_EPS 5e-7
#define FD_TOL 1e-6
#define MJ_TOL 1e-6
#define DOT_TOL 1e-12
#define MAXS 512

// ---------------------------------------------------------------- states

// a random state near the model's rest pose: the free box and the leg keep their floor
// contacts, the hinge, slide, ball and tendon limits are active in some samples (ranges wider
// than the limits), the free rod pulls on its connect
static void random_state(const gdnModel* m, unsigned long long* rng, double* q, double* v,
                         double* u, double* act) {
    memcpy(q, m->qpos0, sizeof(double) * (size_t)m->nq);
    double* dq = calloc((size_t)m->nv + 1, sizeof(double));
    for (int j = 0; j < m->njnt; j++) {
        const int a = m->jnt_dofadr[j];
        const char* name = gdn_id2name(m, "joint", j);
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE: {
            // the box by a fraction of its 0.5 mm penetration, the rod by 1 cm
            const double s = !strcmp(name, "box_free") ? 1e-4 : 1e-2;
            const double r = !strcmp(name, "box_free") ? 1e-3 : 0.3;
            for (int k = 0; k < 3; k++) {
                dq[a + k] = gdn_test_uniform(rng, -s, s);
                dq[a + 3 + k] = gdn_test_uniform(rng, -r, r);
            }
            break;
        }
        case GDN_JNT_BALL:
            for (int k = 0; k < 3; k++) {
                dq[a + k] = gdn_test_uniform(rng, -0.55, 0.55);
            }
            break;
        case GDN_JNT_SLIDE:
            dq[a] = gdn_test_uniform(rng, -0.15, 0.15);
            break;
        default:
            dq[a] = !strcmp(name, "hip") ? gdn_test_uniform(rng, -0.12, 0.12)
                                         : gdn_test_uniform(rng, -0.4, 0.4);
            break;
        }
    }
    gdn_integrate_pos(m, q, dq, 1);
    free(dq);
    for (int k = 0; k < m->nv; k++) {
        v[k] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    for (int k = 0; k < m->nu; k++) {
        u[k] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    for (int k = 0; k < m->na; k++) {
        act[k] = gdn_test_uniform(rng, -0.5, 0.5);
    }
}

// a random state of sensors_contact.xml (test_sensors' MuJoCo comparison model): its free box
// and ball pushed 2 mm into the floor (beyond the default impedance width, away from its
// kink at 1 mm) with small tilts, the arm pressed on the floor, the hanging box on its connect
// and its ball-jointed sphere on its weld moved, the lid hinge anywhere
static void random_state_contact(const gdnModel* m, unsigned long long* rng, double* q,
                                 double* v, double* u, double* act) {
    (void)act;
    memcpy(q, m->qpos0, sizeof(double) * (size_t)m->nq);
    double* dq = calloc((size_t)m->nv + 1, sizeof(double));
    for (int j = 0; j < m->njnt; j++) {
        const int a = m->jnt_dofadr[j];
        const int floor = m->jnt_bodyid[j] == gdn_name2id(m, "body", "box") ||
                          m->jnt_bodyid[j] == gdn_name2id(m, "body", "ball");
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int k = 0; k < 3; k++) {
                dq[a + k] = gdn_test_uniform(rng, -1e-4, 1e-4) * (floor ? 1 : 100);
                dq[a + 3 + k] = gdn_test_uniform(rng, -1e-3, 1e-3) * (floor ? 1 : 100);
            }
            dq[a + 2] -= floor ? 2e-3 : 0;
            break;
        case GDN_JNT_BALL:
            for (int k = 0; k < 3; k++) {
                dq[a + k] = gdn_test_uniform(rng, -0.3, 0.3);
            }
            break;
        default:
            dq[a] = gdn_test_uniform(rng, -0.1, 0.1);
            break;
        }
    }
    gdn_integrate_pos(m, q, dq, 1);
    free(dq);
    for (int k = 0; k < m->nv; k++) {
        v[k] = gdn_test_uniform(rng, -0.2, 0.2);
    }
    for (int k = 0; k < m->nu; k++) {
        u[k] = gdn_test_uniform(rng, -0.5, 0.5);
    }
}

// the active set of the solve gdn_forward left in d: rows' types, ids and states, the
// contacts' geoms, and which contacts each touch sensor counts (packed into sig, n entries)
static int active_set(const gdnModel* m, const gdnData* d, int* sig) {
    int n = 0;
    sig[n++] = d->nefc;
    sig[n++] = d->ncon;
    for (int i = 0; i < d->nefc && n < 4 * MAXS - 4; i++) {
        sig[n++] = d->efc_type[i];
        sig[n++] = d->efc_id[i];
        sig[n++] = d->efc_state[i];
    }
    for (int i = 0; i < m->nsensor && n < 4 * MAXS - 1; i++) {
        if (m->sensor_type[i] == GDN_SENS_TOUCH) {
            // a touch value that is 0 on one side only: the counted contacts changed
            sig[n++] = d->sensordata[m->sensor_adr[i]] > 0;
        }
    }
    return n;
}

// gdn_forward's sensordata at (q (+) e dq, v + e dv, u + e du, act + e da), with its active set
static int forward_at(const gdnModel* m, gdnData* d, const double* q, const double* v,
                      const double* u, const double* act, const double* dq, const double* dv,
                      const double* du, const double* da, double e, double* out, int* sig,
                      int* nsig) {
    memcpy(d->qpos, q, sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, d->qpos, dq, e);
    for (int k = 0; k < m->nv; k++) {
        d->qvel[k] = v[k] + e * dv[k];
    }
    for (int k = 0; k < m->nu; k++) {
        d->ctrl[k] = u[k] + e * du[k];
    }
    for (int k = 0; k < m->na; k++) {
        d->act[k] = act[k] + e * da[k];
    }
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
    if (gdn_forward(m, d) != GDN_OK) {
        return 0;
    }
    memcpy(out, d->sensordata, sizeof(double) * (size_t)m->nsensordata);
    if (sig) {
        *nsig = active_set(m, d, sig);
    }
    return 1;
}

// mj_forward's sensordata at the same perturbed state (MuJoCo's own tangent: mj_integratePos)
static void mj_forward_at(gdnOracle* o, const double* q, const double* v, const double* u,
                          const double* act, const double* dq, const double* dv,
                          const double* du, const double* da, double e, double* out) {
    const mjModel* mm = o->mm;
    mjData* md = o->md;
    memcpy(md->qpos, q, sizeof(double) * (size_t)mm->nq);
    mj_integratePos(mm, md->qpos, dq, e);
    for (int k = 0; k < mm->nv; k++) {
        md->qvel[k] = v[k] + e * dv[k];
        md->qacc_warmstart[k] = 0;
    }
    for (int k = 0; k < mm->nu; k++) {
        md->ctrl[k] = u[k] + e * du[k];
    }
    for (int k = 0; k < mm->na; k++) {
        md->act[k] = act[k] + e * da[k];
    }
    mj_forward(mm, md);
    memcpy(out, md->sensordata, sizeof(double) * (size_t)mm->nsensordata);
}

// per sensor ||js - fd||_inf / max(||fd||_inf, 1) with fd central from fp[k], fm[k] at step
// kSteps[k], the smallest over the steps k < n with use[k]; the largest over the sensors. A
// sensor fails (counted in *fails, printed) when at no such step
//   ||js - fd||_inf <= tol max(||fd||_inf, 1) + ROUNDOFF ||s||_inf / eps,
// the second term being the FD's own round-off floor (s the sensor's value); only
// acceleration-stage sensors when acc_only
#define ROUNDOFF 1e-12
static double sensor_error(const gdnModel* m, const double* js, const double* s0,
                           double* const* fp, double* const* fm, const int* use, int n,
                           double tol, const char* what, int sample, int acc_only, int* fails) {
    double worst = 0;
    for (int i = 0; i < m->nsensor; i++) {
        if (acc_only && m->sensor_needstage[i] != GDN_STAGE_ACC) {
            continue;
        }
        const int adr = m->sensor_adr[i];
        double best = INFINITY, smax = 0;
        int ok = 0;
        for (int k = 0; k < m->sensor_dim[i]; k++) {
            smax = fmax(smax, fabs(s0[adr + k]));
        }
        for (int st = 0; st < n; st++) {
            if (!use[st]) {
                continue;
            }
            double e = 0, mag = 1;
            for (int k = 0; k < m->sensor_dim[i]; k++) {
                const double fd = (fp[st][adr + k] - fm[st][adr + k]) / (2 * kSteps[st]);
                e = gdn_oracle_worst(e, fabs(js[adr + k] - fd));
                mag = fmax(mag, fabs(fd));
            }
            best = fmin(best, e / mag);
            ok |= e <= tol * mag + ROUNDOFF * smax / kSteps[st];
        }
        if (!ok && fails) {
            (*fails)++;
            fprintf(stderr, "sample %d sensor %d '%s' (type %d): JVP vs %s %.3g\n", sample, i,
                    gdn_id2name(m, "sensor", i), m->sensor_type[i], what, best);
        }
        worst = gdn_oracle_worst(worst, best);
    }
    return worst;
}

// ---------------------------------------------------------------- JVP, VJP vs FD and MuJoCo

// At NSAMPLES random states: gdn_sensor_jvp_act vs central FD of gdn_forward and of
// mj_forward along a random (dq, dv, du, dact), the identity with gdn_sensor_vjp_act, the
// arena balanced; every acceleration sensor nonzero in some compared sample, every limit row
// and both touch sensors active in some; and two broken tangents (the velocity or the control
// part dropped) fail the FD check by orders of magnitude, so that the check can fail. cone:
// the contacts' friction cone in both engines (pyramidal rows or elliptic cones)
static int acc_sensor_derivatives(const char* file, int cone) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    const int main_model = !strcmp(file, MODEL);
    gdnOracle o;
    CHECK(gdn_oracle_load(&o, path) == 0);
    o.mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    o.gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    // the solve converged to round-off in both engines (sensors_acc_deriv.xml's own options)
    o.mm->opt.tolerance = o.gm->opt.tolerance = 1e-14;
    o.mm->opt.iterations = o.gm->opt.iterations = 300;
    o.mm->opt.cone = cone == GDN_CONE_ELLIPTIC ? mjCONE_ELLIPTIC : mjCONE_PYRAMIDAL;
    o.gm->opt.cone = (gdnCone)cone;
    const gdnModel* m = o.gm;
    gdnData* d = o.gd;
    const int nq = m->nq, nv = m->nv, nu = m->nu, na = m->na, ns = m->nsensordata;
    CHECK(ns <= MAXS && m->nsensor <= MAXS);
    double* buf = calloc((size_t)(nq + 8 * nv + 6 * nu + 6 * na + (4 + 4 * NSTEP) * ns + 8),
                         sizeof(double));
    double *q = buf, *v = q + nq, *dq = v + nv, *dv = dq + nv, *gq = dv + nv, *gv = gq + nv;
    double *u = gv + nv, *du = u + nu, *gu = du + nu, *act = gu + nu, *da = act + na;
    double *ga = da + na, *js = ga + na, *g = js + ns, *jb = g + ns, *zero = jb + ns;
    double *fp[NSTEP], *fm[NSTEP], *mp[NSTEP], *mm[NSTEP];
    for (int k = 0; k < NSTEP; k++) {
        fp[k] = zero + ns + 4 * (size_t)k * (size_t)ns;
        fm[k] = fp[k] + ns;
        mp[k] = fm[k] + ns;
        mm[k] = mp[k] + ns;
    }
    int* sig = calloc((1 + 2 * NSTEP) * 4 * MAXS, sizeof(int));
    int *sp[NSTEP], *sm[NSTEP];
    for (int k = 0; k < NSTEP; k++) {
        sp[k] = sig + (1 + 2 * k) * 4 * MAXS;
        sm[k] = sp[k] + 4 * MAXS;
    }
    int active[MAXS] = {0}, limit_rows = 0, contacts = 0, touch_seen = 0;
    unsigned long long rng = 2026;
    double worst_fd = 0, worst_mj = 0, worst_dot = 0, broken_v = INFINITY, broken_u = INFINITY;
    int checked = 0, all_steps = 0, fails_fd = 0, fails_mj = 0;
    for (int sample = 0; sample < NSAMPLES; sample++) {
        if (main_model) {
            random_state(m, &rng, q, v, u, act);
        } else {
            random_state_contact(m, &rng, q, v, u, act);
        }
        for (int k = 0; k < nv; k++) {
            dq[k] = gdn_test_uniform(&rng, -1, 1);
            dv[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < na; k++) {
            da[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            g[k] = gdn_test_uniform(&rng, -1, 1);
        }
        // applied forces in both engines (cfrc_ext holds xfrc_applied; qfrc_applied moves qacc)
        for (int k = 6; k < 6 * m->nbody; k++) {
            d->xfrc_applied[k] = o.md->xfrc_applied[k] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
        for (int k = 0; k < nv; k++) {
            d->qfrc_applied[k] = o.md->qfrc_applied[k] = gdn_test_uniform(&rng, -0.5, 0.5);
        }
        int n0 = 0, np[NSTEP], nm[NSTEP];
        for (int k = 0; k < NSTEP; k++) {
            if (!forward_at(m, d, q, v, u, act, dq, dv, du, da, kSteps[k], fp[k], sp[k],
                            &np[k]) ||
                !forward_at(m, d, q, v, u, act, dq, dv, du, da, -kSteps[k], fm[k], sm[k],
                            &nm[k])) {
                CHECK(0);
            }
        }
        if (!forward_at(m, d, q, v, u, act, dq, dv, du, da, 0, js, sig, &n0)) {
            CHECK(0);
        }
        // the tangent, the adjoint and the identity at the state of that last gdn_forward
        CHECK(gdn_sensor_jvp_act(m, d, dq, dv, da, du, js) == GDN_OK);
        CHECK(gdn_sensor_vjp_act(m, d, g, gq, gv, ga, gu) == GDN_OK);
        CHECK(d->parena == 0);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < ns; k++) {
            lhs += g[k] * js[k];
            scale += fabs(g[k] * js[k]);
        }
        for (int k = 0; k < nv; k++) {
            rhs += gq[k] * dq[k] + gv[k] * dv[k];
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
        }
        for (int k = 0; k < na; k++) {
            rhs += ga[k] * da[k];
        }
        worst_dot = gdn_oracle_worst(worst_dot, fabs(lhs - rhs) / fmax(scale, 1));
        // the steps whose two samples keep the active set; none at the first: a kink
        int use[NSTEP], nuse = 0;
        for (int k = 0; k < NSTEP; k++) {
            use[k] = np[k] == n0 && nm[k] == n0 &&
                     !memcmp(sp[k], sig, sizeof(int) * (size_t)n0) &&
                     !memcmp(sm[k], sig, sizeof(int) * (size_t)n0);
            nuse += use[k];
        }
        if (!use[0]) {
            continue;
        }
        checked++;
        contacts += d->ncon > 0;
        for (int r = d->ne + d->nf; r < d->nefc; r++) {
            limit_rows |= 1 << d->efc_type[r];
        }
        for (int i = 0; i < m->nsensor; i++) {
            for (int k = 0; k < m->sensor_dim[i]; k++) {
                active[i] |= d->sensordata[m->sensor_adr[i] + k] != 0;
            }
            touch_seen += m->sensor_type[i] == GDN_SENS_TOUCH &&
                          d->sensordata[m->sensor_adr[i]] > 0;
        }
        worst_fd = gdn_oracle_worst(worst_fd, sensor_error(m, js, d->sensordata, fp, fm, use,
                                                           NSTEP, FD_TOL, "FD", sample, 0,
                                                           &fails_fd));
        // MuJoCo's sensordata along the same direction, the same steps
        for (int k = 0; k < NSTEP; k++) {
            mj_forward_at(&o, q, v, u, act, dq, dv, du, da, kSteps[k], mp[k]);
            mj_forward_at(&o, q, v, u, act, dq, dv, du, da, -kSteps[k], mm[k]);
        }
        worst_mj = gdn_oracle_worst(worst_mj, sensor_error(m, js, d->sensordata, mp, mm, use,
                                                           NSTEP, MJ_TOL, "MuJoCo FD", sample,
                                                           0, &fails_mj));
        all_steps += nuse == NSTEP;
        // the integrator does not change gdn_forward's acceleration nor its derivative
        const gdnIntegrator integ = m->opt.integrator;
        o.gm->opt.integrator = GDN_INT_IMPLICIT;
        CHECK(gdn_sensor_jvp_act(m, d, dq, dv, da, du, jb) == GDN_OK);
        o.gm->opt.integrator = integ;
        CHECK(gdn_test_relerr(jb, js, ns, 1) <= 1e-13);
        // broken tangents: without dv, without du and dact
        CHECK(gdn_sensor_jvp_act(m, d, dq, zero, da, du, jb) == GDN_OK);
        broken_v = fmin(broken_v,
                        sensor_error(m, jb, d->sensordata, fp, fm, use, NSTEP, 0, "", sample, 1,
                                     NULL));
        CHECK(gdn_sensor_jvp_act(m, d, dq, dv, NULL, NULL, jb) == GDN_OK);
        broken_u = fmin(broken_u,
                        sensor_error(m, jb, d->sensordata, fp, fm, use, NSTEP, 0, "", sample, 1,
                                     NULL));
    }
    int inactive = 0;
    for (int i = 0; main_model && i < m->nsensor; i++) {
        if (!active[i]) {
            fprintf(stderr, "sensor %d '%s' never nonzero\n", i, gdn_id2name(m, "sensor", i));
            inactive = 1;
        }
    }
    printf("acceleration sensors (%s, %s cones): %d of %d samples compared (%d with "
           "contacts, %d at all steps), JVP vs central FD %.2e, vs MuJoCo FD %.2e, dot "
           "identity %.2e; broken tangents (no dv, no du/dact) at least %.2e / %.2e\n",
           file, cone == GDN_CONE_ELLIPTIC ? "elliptic" : "pyramidal", checked, NSAMPLES,
           contacts, all_steps, worst_fd, worst_mj, worst_dot, broken_v, broken_u);
    CHECK(checked >= MIN_CHECKED);
    CHECK(fails_fd == 0);
    CHECK(fails_mj == 0);
    CHECK(worst_dot <= DOT_TOL);
    CHECK(!inactive);
    CHECK(touch_seen > 0 && contacts >= MIN_CHECKED / 2);
    CHECK(!main_model || (limit_rows & (1 << GDN_CNSTR_LIMIT_JOINT)));
    CHECK(!main_model || (limit_rows & (1 << GDN_CNSTR_LIMIT_TENDON)));
    CHECK(broken_v > 1e3 * FD_TOL && broken_u > 1e3 * FD_TOL);
    CHECK(gdn_oracle_warnings(&o) == 0);
    free(sig);
    free(buf);
    gdn_oracle_free(&o);
    return 0;
}

static int test_acc_sensor_derivatives(void) {
    CHECK(acc_sensor_derivatives(MODEL, GDN_CONE_PYRAMIDAL) == 0);
    CHECK(acc_sensor_derivatives(MODEL, GDN_CONE_ELLIPTIC) == 0);
    // touch zones of every site shape, force / torque next to a connect and a weld
    CHECK(acc_sensor_derivatives("sensors_contact.xml", GDN_CONE_PYRAMIDAL) == 0);
    return 0;
}

// ---------------------------------------------------------------- refusals

// an unconverged solve (one Newton iteration on the contact scene) has no derivative:
// GDN_ERR_UNCONVERGED with nothing written, and GDN_OK flagged GDN_DERIV_ONESIDED when the model
// opts in; a sensor without a derivative at its state (a tendon's inside wrap without a root)
// next to an acceleration sensor is refused by name, nothing written
static int test_acc_sensor_refusals(void) {
    char path[1024], err[256] = "";
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, MODEL);
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(path, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    if (!m) {
        return 1;
    }
    m->opt.iterations = 1;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int k = 0; k < m->nv; k++) {
        d->qvel[k] = 0.3 * ((k % 3) - 1);
    }
    CHECK(gdn_forward(m, d) == GDN_OK);
    CHECK(!d->solver_converged && d->ncon > 0);
    double* out = calloc((size_t)m->nsensordata, sizeof(double));
    double* dv = calloc((size_t)m->nv, sizeof(double));
    dv[0] = 1;
    out[0] = 7;
    CHECK(gdn_sensor_jvp(m, d, NULL, dv, NULL, out) == GDN_ERR_UNCONVERGED);
    CHECK(out[0] == 7);
    CHECK(gdn_sensor_vjp(m, d, out, dv, NULL, NULL) == GDN_ERR_UNCONVERGED);
    m->opt.enableflags |= GDN_ENBL_ONESIDED;
    CHECK(gdn_sensor_jvp(m, d, NULL, dv, NULL, out) == GDN_OK);
    CHECK(d->deriv_flags & GDN_DERIV_ONESIDED);
    CHECK(d->parena == 0);
    free(dv);
    free(out);
    gdn_data_free(d);
    gdn_model_free(m);

    // a per-state refusal beside an acceleration sensor (sensors_inside_wrap.xml: its tendon
    // wraps inside without a root at qpos 0): by name, nothing written
    m = gdn_test_load_model("sensors_inside_wrap.xml");
    CHECK(m);
    if (!m) {
        return 1;
    }
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_forward(m, d) == GDN_OK);
    double o7[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    CHECK(m->nsensordata <= 8);
    CHECK(gdn_sensor_jvp(m, d, NULL, NULL, NULL, o7) == GDN_ERR_UNSUPPORTED);
    CHECK(o7[0] == 7 && o7[m->nsensordata - 1] == 7);
    char why[256];
    CHECK(gdn_sensor_refusal(m, d, why, (int)sizeof(why)) == 1 && strstr(why, "'tl'"));
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- the trajectory adjoint

// 0.5 sum_k w_k (s_k - ref_k)^2 over sensordata with its gradient from gdn_sensor_vjp (tangent
// coordinates; the terminal cost reads zero controls, its scratch->ctrl being unspecified).
// Each call also records (record = 1) or compares with the recorded (record = 0) signature of
// the active set its gdn_forward found at time t, so that a finite-difference rollout that
// changes the contact or row set (no derivative there) is detected
#define MAXT 32
typedef struct {
    const double* w;
    const double* ref; // the sensors' reference values (the cost's zero)
    int T;
    int record;
    unsigned long long sig[MAXT + 1];
    int mismatch;
} AccCost;

// FNV-1a of the rows' types, ids and states
static unsigned long long set_signature(const gdnData* d) {
    unsigned long long h = GDN_TEST_FNV_OFFSET;
    for (int i = 0; i < d->nefc; i++) {
        const int v[3] = {d->efc_type[i], d->efc_id[i], d->efc_state[i]};
        for (int k = 0; k < 3; k++) {
            h = (h ^ (unsigned long long)(unsigned)v[k]) * 0x100000001b3ULL;
        }
    }
    return (h ^ (unsigned long long)d->nefc) * 0x100000001b3ULL;
}

static gdnStatus acc_cost(const gdnModel* m, gdnData* scratch, int t, void* user,
                          double* value, double* gqpos, double* gqvel, double* gctrl) {
    AccCost* c = user;
    if (t == c->T) {
        memset(scratch->ctrl, 0, sizeof(double) * (size_t)m->nu);
    }
    gdnStatus st = gdn_forward(m, scratch);
    if (st != GDN_OK) {
        return st;
    }
    const unsigned long long h = set_signature(scratch);
    if (c->record) {
        c->sig[t] = h;
    } else {
        c->mismatch |= c->sig[t] != h;
    }
    double g[MAXS];
    *value = 0;
    for (int k = 0; k < m->nsensordata && k < MAXS; k++) {
        const double e = scratch->sensordata[k] - c->ref[k];
        *value += 0.5 * c->w[k] * e * e;
        g[k] = c->w[k] * e;
    }
    if (!gqpos && !gqvel && !gctrl) {
        return GDN_OK;
    }
    return gdn_sensor_vjp(m, scratch, g, gqpos, gqvel, gctrl);
}

// the test model without its stateful actuator (a cost's gradient has no act part, adjoint.h)
static gdnModel* load_stateless(void) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, MODEL);
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    static char xml[1 << 16], out[1 << 16];
    const size_t n = fread(xml, 1, sizeof(xml) - 1, f);
    fclose(f);
    xml[n] = 0;
    // drop every line that names a_hip
    size_t w = 0;
    for (char* line = xml; *line;) {
        char* end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        const char save = line[len - (end ? 1 : 0)];
        line[len - (end ? 1 : 0)] = 0;
        const int drop = strstr(line, "a_hip") != NULL;
        line[len - (end ? 1 : 0)] = save;
        if (!drop) {
            memcpy(out + w, line, len);
            w += len;
        }
        line += len;
    }
    gdnModel* m = NULL;
    char err[256] = "";
    if (gdn_load_xml_string(out, w, NULL, &m, err, sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    return m;
}

// A 20-step rollout whose running and terminal costs weigh every sensor's departure from its
// value at rest (the acceleration sensors scaled to the others): the trajectory adjoint's
// <grad, dir> vs central FD of gdn_rollout_objective (eps 5e-7) along a random direction of
// q0, v0 and the controls. The start: the model settled for 0.4 s from its rest pose (the box
// and the leg resting on the floor, the rod and its welded block hanging on the connect), then
// random velocities and controls; a draw whose FD rollouts change the active set at some step
// is replaced (up to 8 draws; at least one must keep it)
static int test_acc_sensor_adjoint_objective(void) {
    gdnModel* m = load_stateless();
    CHECK(m != NULL);
    CHECK(m->na == 0 && m->nsensordata <= MAXS);
    const int T = 20, nq = m->nq, nv = m->nv, nu = m->nu;
    double* buf = calloc((size_t)(8 * nv + 3 * nq + 4 * T * nu + MAXS + 8), sizeof(double));
    double *w = buf, *q0 = w + MAXS, *v0 = q0 + nq, *u = v0 + nv, *gq = u + T * nu;
    double *gv = gq + nv, *gu = gv + nv, *dq = gu + T * nu, *dv = dq + nv, *du = dv + nv;
    double *qp = du + T * nu, *vp = qp + nq, *up = vp + nv, *qs = up + T * nu;
    unsigned long long rng = 77;
    for (int k = 0; k < m->nsensordata; k++) {
        w[k] = gdn_test_uniform(&rng, 0.1, 1);
    }
    for (int i = 0; i < m->nsensor; i++) {
        // the scale of forces (10 N) and accelerations (10 m/s^2) against the others
        if (m->sensor_needstage[i] == GDN_STAGE_ACC) {
            for (int k = 0; k < m->sensor_dim[i]; k++) {
                w[m->sensor_adr[i] + k] *= 0.01;
            }
        }
    }
    // settle
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int t = 0; t < 200; t++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    memcpy(qs, d->qpos, sizeof(double) * (size_t)nq);
    // the reference: the sensors at the settled pose at rest (a cost of the motion away from it)
    double* ref = calloc((size_t)m->nsensordata + 1, sizeof(double));
    memset(d->qvel, 0, sizeof(double) * (size_t)nv);
    CHECK(gdn_forward(m, d) == GDN_OK);
    memcpy(ref, d->sensordata, sizeof(double) * (size_t)m->nsensordata);
    gdn_data_free(d);
    char err[256] = "";
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 0, &tape, err, sizeof(err)) == GDN_OK);
    int done = 0;
    double rel = INFINITY;
    for (int draw = 0; draw < 8 && !done; draw++) {
        memcpy(q0, qs, sizeof(double) * (size_t)nq);
        for (int k = 0; k < nv; k++) {
            v0[k] = gdn_test_uniform(&rng, -0.1, 0.1);
            dq[k] = gdn_test_uniform(&rng, -1, 1);
            dv[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < T * nu; k++) {
            u[k] = gdn_test_uniform(&rng, -0.5, 0.5);
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        gdnRollout r;
        gdn_rollout_init(m, T, &r);
        r.qpos0 = q0;
        r.qvel0 = v0;
        r.ctrl = u;
        AccCost cost;
        memset(&cost, 0, sizeof(cost));
        cost.w = w;
        cost.ref = ref;
        cost.T = T;
        cost.record = 1;
        gdnObjective obj = {{acc_cost, &cost, 1}, {acc_cost, &cost, 1}};
        gdnAdjointGradients out = {0};
        out.qpos0 = gq;
        out.qvel0 = gv;
        out.ctrl = gu;
        if (gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) != GDN_OK) {
            fprintf(stderr, "adjoint: %s\n", err);
            CHECK(0);
        }
        double analytic = 0;
        for (int k = 0; k < nv; k++) {
            analytic += gq[k] * dq[k] + gv[k] * dv[k];
        }
        for (int k = 0; k < T * nu; k++) {
            analytic += gu[k] * du[k];
        }
        // J(q0 (+) eps dq, v0 + eps dv, u + eps du), central, the active set compared
        double J[2];
        r.qpos0 = qp;
        r.qvel0 = vp;
        r.ctrl = up;
        cost.record = 0;
        for (int s = 0; s < 2; s++) {
            const double e = s ? -ADJ_EPS : ADJ_EPS;
            memcpy(qp, q0, sizeof(double) * (size_t)nq);
            gdn_integrate_pos(m, qp, dq, e);
            for (int k = 0; k < nv; k++) {
                vp[k] = v0[k] + e * dv[k];
            }
            for (int k = 0; k < T * nu; k++) {
                up[k] = u[k] + e * du[k];
            }
            CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J[s], err, sizeof(err)) == GDN_OK);
        }
        if (cost.mismatch) {
            printf("  draw %d: an FD rollout changes the active set, not compared\n", draw);
            continue;
        }
        const double fd = (J[0] - J[1]) / (2 * ADJ_EPS);
        rel = fabs(analytic - fd) / fmax(fabs(fd), 1e-12);
        printf("acceleration-sensor objective adjoint (T = %d, draw %d): J = %.6g, <grad, dir> "
               "= %.12g, central FD %.12g, relative %.2e\n",
               T, draw, out.J, analytic, fd, rel);
        done = 1;
    }
    CHECK(done);
    CHECK(rel < 1e-6);
    gdn_tape_free(tape);
    free(ref);
    free(buf);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase kCases[] = {
    {"acc_sensor_derivatives", test_acc_sensor_derivatives},
    {"acc_sensor_refusals", test_acc_sensor_refusals},
    {"acc_sensor_adjoint_objective", test_acc_sensor_adjoint_objective},
};

GDN_TEST_MAIN(kCases)
