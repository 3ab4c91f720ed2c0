// SPDX-License-Identifier: Apache-2.0
// 1000-step rollouts, constraints disabled: gdn_step against mj_step from the same state.
//
// Error at step k: max(e_q, e_v) with e_q = ||qpos_g (-) qpos_mj||_inf (tangent space,
// mj_differentiatePos) / max(||qpos_mj||_inf, 1) and e_v = ||qvel_g - qvel_mj||_inf /
// max(||qvel_mj||_inf, 1); tolerance 1e-9 at every step.
//
// Evidence for the horizon: beside each rollout MuJoCo is run a second time from the same
// state with qpos moved by 1e-12 along the first dof, and the amplification
// max_k<=K ||divergence|| / 1e-12 is printed at K = 100, 250, 500, 1000. Two engines that
// differ by round-off (~1e-16 relative per step) can be expected to agree to about
// 1e-16 * amplification * steps. The controls are drawn at 20% of each control range: there
// every model amplifies by less than 1e3 over 1000 steps (measured: ball_chain 8e2, the others
// below 30). With full-range controls and no joint limits the humanoids flail (joint speeds of
// 50-90 rad/s) and a separate MuJoCo-only probe measured amplifications of 5e13 (humanoid32)
// and 6e8 (humanoid.xml) at step 1000, where no step-by-step comparison is meaningful.
#include <stdlib.h>
#include <string.h>

#include "oracle/model_suite.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define NSTEP 1000
#define TOL 1e-9
#define PERTURB 1e-12
#define CTRL_FRACTION 0.2
#define NCHECKPOINT 5

static const int checkpoints[NCHECKPOINT] = {10, 100, 250, 500, 1000};

static double inf_norm(const double* a, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        r = fabs(a[i]) <= r ? r : fabs(a[i]);
    }
    return r;
}

// constant controls at CTRL_FRACTION of the range around its middle, small applied forces
static void draw_inputs(gdnOracle* o, unsigned long long* rng) {
    const gdnModel* g = o->gm;
    gdnData* d = o->gd;
    for (int i = 0; i < g->nu; i++) {
        double mid = 0, half = 1;
        if (g->actuator_ctrllimited[i]) {
            mid = 0.5 * (g->actuator_ctrlrange[2 * i] + g->actuator_ctrlrange[2 * i + 1]);
            half = 0.5 * (g->actuator_ctrlrange[2 * i + 1] - g->actuator_ctrlrange[2 * i]);
        }
        d->ctrl[i] = mid + CTRL_FRACTION * half * gdn_test_uniform(rng, -1, 1);
    }
    for (int i = 0; i < g->nv; i++) {
        d->qfrc_applied[i] = gdn_test_uniform(rng, -0.1, 0.1);
    }
    for (int i = 6; i < 6 * g->nbody; i++) {
        d->xfrc_applied[i] = gdn_test_uniform(rng, -0.1, 0.1);
    }
    gdn_oracle_copy_state(o);
}

static int rollout_model(const char* path, gdnOracleSource source) {
    gdnOracle o;
    if (gdn_oracle_load_from(&o, path, source)) {
        return 1;
    }
    gdnModel* g = o.gm;
    gdnData* gd = o.gd;
    mjModel* mm = o.mm;
    mjData* md = o.md;
    int nv = g->nv, nq = g->nq;
    unsigned long long rng = 0xD1B54A32D192ED03ULL ^ (unsigned long long)strlen(o.name);
    gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL, 1.0);
    draw_inputs(&o, &rng);

    // MuJoCo's own sensitivity: a twin rollout from qpos (+) 1e-12 e_0
    mjData* twin = mj_copyData(NULL, mm, md);
    double* tangent = calloc((size_t)nv, sizeof(double));
    double* scratch = calloc((size_t)nv, sizeof(double));
    CHECK(twin && tangent && scratch);
    tangent[0] = PERTURB;
    mj_integratePos(mm, twin->qpos, tangent, 1.0);

    double worst = 0, amp = 0, worst_at[NCHECKPOINT], amp_at[NCHECKPOINT];
    int first_fail = -1, cp = 0, status_ok = 1;
    for (int k = 1; k <= NSTEP; k++) {
        gdnStatus st = gdn_step(g, gd);
        if (st != GDN_OK) {
            fprintf(stderr, "%s step %d: gdn_step returned %s\n", o.name, k,
                    gdn_status_string(st));
            status_ok = 0;
            break;
        }
        mj_step(mm, md);
        mj_step(mm, twin);

        double scale_q = fmax(inf_norm(md->qpos, nq), 1.0);
        double e_q = gdn_oracle_qpos_distance(&o, gd->qpos, md->qpos, scratch) / scale_q;
        double e_v = gdn_test_relerr(gd->qvel, md->qvel, nv, 1.0);
        double err = fmax(e_q, e_v);
        if (err != err) {
            err = INFINITY;
        }
        worst = err <= worst ? worst : err;
        if (!(err <= TOL) && first_fail < 0) {
            first_fail = k;
            fprintf(stderr, "%s step %d: qpos error %.3g, qvel error %.3g > %.1g\n", o.name, k,
                    e_q, e_v, TOL);
        }

        double div = gdn_oracle_qpos_distance(&o, twin->qpos, md->qpos, scratch);
        for (int i = 0; i < nv; i++) {
            div = fmax(div, fabs(twin->qvel[i] - md->qvel[i]));
        }
        amp = fmax(amp, div / PERTURB);
        if (cp < NCHECKPOINT && k == checkpoints[cp]) {
            worst_at[cp] = worst;
            amp_at[cp] = amp;
            cp++;
        }
    }

    printf("%s%-20s", source == GDN_ORACLE_FROM_MJMODEL ? "(mjModel) " : "", o.name);
    for (int i = 0; i < cp; i++) {
        printf(" | step %4d: err %.2e, MuJoCo amplification %.2e", checkpoints[i], worst_at[i],
               amp_at[i]);
    }
    printf("\n");
    fflush(stdout);
    int warnings = gdn_oracle_warnings(&o);
    mj_deleteData(twin);
    free(tangent);
    free(scratch);
    gdn_oracle_free(&o);
    CHECK(status_ok);
    CHECK(warnings == 0);
    CHECK(first_fail < 0);
    return 0;
}

GDN_ORACLE_MODEL_SUITE_MAIN(rollout_model)
