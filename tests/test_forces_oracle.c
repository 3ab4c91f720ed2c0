// SPDX-License-Identifier: Apache-2.0
// Jacobians, passive and actuator forces, applied forces and energy against MuJoCo 2.2.2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "dynamics/applied.h"
#include "oracle/actuated_model.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define NSAMPLES 50
#define TOL 1e-12

// every error is ||gradyn - MuJoCo||_inf / max(||MuJoCo||_inf, 1) over the whole array
// (a 3 x nv Jacobian, an nv or nu vector, or one energy term)
static int compare_model(const char* path, gdnWorst* total) {
    gdnOracle o;
    if (gdn_oracle_load(&o, path)) {
        return 1;
    }
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    mjModel* mm = o.mm;
    mjData* md = o.md;
    mm->opt.enableflags |= mjENBL_ENERGY;
    int nv = gm->nv;
    size_t n3 = (size_t)(3 * nv);
    double* buf = calloc(8 * n3 + 2 * (size_t)nv, sizeof(double));
    double *gp = buf, *gr = gp + n3, *mp = gr + n3, *mr = mp + n3;
    double *qfrc_g = buf + 8 * n3, *qfrc_m = qfrc_g + nv;
    gdnWorst w = {0};
    unsigned long long rng = 1234;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_ALL, 2.0);
        mj_forward(mm, md);
        gdn_kinematics(gm, gd);
        gdn_passive(gm, gd);
        gdn_actuation(gm, gd);
        gdn_energy(gm, gd);

        // Jacobians of every body: frame origin, COM, and a point offset from the COM
        for (int b = 0; b < gm->nbody; b++) {
            gdn_jac_body(gm, gd, gp, gr, b);
            mj_jacBody(mm, md, mp, mr, b);
            gdn_worst_check(&w, o.name, s, "jacBody_p", gp, mp, (int)n3, 1, TOL);
            gdn_worst_check(&w, o.name, s, "jacBody_r", gr, mr, (int)n3, 1, TOL);
            gdn_jac_body_com(gm, gd, gp, gr, b);
            mj_jacBodyCom(mm, md, mp, mr, b);
            gdn_worst_check(&w, o.name, s, "jacBodyCom_p", gp, mp, (int)n3, 1, TOL);
            gdn_worst_check(&w, o.name, s, "jacBodyCom_r", gr, mr, (int)n3, 1, TOL);
            double point[3] = {md->xipos[3 * b] + 0.3, md->xipos[3 * b + 1] - 0.2,
                               md->xipos[3 * b + 2] + 0.1};
            gdn_jac(gm, gd, gp, gr, point, b);
            mj_jac(mm, md, mp, mr, point, b);
            gdn_worst_check(&w, o.name, s, "jac_p", gp, mp, (int)n3, 1, TOL);
            gdn_worst_check(&w, o.name, s, "jac_r", gr, mr, (int)n3, 1, TOL);
        }

        gdn_worst_check(&w, o.name, s, "qfrc_passive", gd->qfrc_passive, md->qfrc_passive, nv,
                        1, TOL);
        gdn_worst_check(&w, o.name, s, "actuator_length", gd->actuator_length,
                        md->actuator_length, gm->nu, 1, TOL);
        gdn_worst_check(&w, o.name, s, "actuator_velocity", gd->actuator_velocity,
                        md->actuator_velocity, gm->nu, 1, TOL);
        gdn_worst_check(&w, o.name, s, "actuator_force", gd->actuator_force, md->actuator_force,
                        gm->nu, 1, TOL);
        gdn_worst_check(&w, o.name, s, "qfrc_actuator", gd->qfrc_actuator, md->qfrc_actuator,
                        nv, 1, TOL);

        // applied: qfrc_applied + sum_b J_b' xfrc_b, MuJoCo's through mj_applyFT
        memset(qfrc_g, 0, sizeof(double) * (size_t)nv);
        gdn_applied_forces(gm, gd, qfrc_g);
        memcpy(qfrc_m, md->qfrc_applied, sizeof(double) * (size_t)nv);
        for (int b = 1; b < mm->nbody; b++) {
            mj_applyFT(mm, md, md->xfrc_applied + 6 * b, md->xfrc_applied + 6 * b + 3,
                       md->xipos + 3 * b, b, qfrc_m);
        }
        gdn_worst_check(&w, o.name, s, "applied", qfrc_g, qfrc_m, nv, 1, TOL);

        gdn_worst_check(&w, o.name, s, "energy_pot", gd->energy, md->energy, 1, 1, TOL);
        gdn_worst_check(&w, o.name, s, "energy_kin", gd->energy + 1, md->energy + 1, 1, 1, TOL);
        gdn_worst_check_err(&w, o.name, s, "arena_leak", (double)gd->parena, 0);
    }
    gdn_worst_print(&w, o.name);
    int failures = w.failures;
    for (int i = 0; i < w.n; i++) {
        gdn_worst_add(total, w.name[i], w.err[i]);
    }
    total->failures += failures;
    int warnings = gdn_oracle_warnings(&o);
    free(buf);
    gdn_oracle_free(&o);
    return failures != 0 || warnings != 0;
}

static int test_forces_vs_mujoco(void) {
    gdnWorst total = {0};
    int failed = 0;
    char path[1024];
    for (int i = 0; i < gdn_oracle_nmodels; i++) {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, gdn_oracle_models[i]);
        failed |= compare_model(path, &total);
    }
    failed |= compare_model(GDN_ORACLE_MJ_HUMANOID, &total);
    const char* actuated = gdn_oracle_actuated_model_path("test_forces_oracle");
    CHECK(actuated);
    failed |= compare_model(actuated, &total);
    gdn_worst_print(&total, "all models");
    CHECK(!failed);
    return 0;
}

static const gdnTestCase kCases[] = {
    {"forces_vs_mujoco", test_forces_vs_mujoco},
};

GDN_TEST_MAIN(kCases)
