// SPDX-License-Identifier: Apache-2.0
// Fixed tendons against MuJoCo 2.2.2: the compiled tendon constants, ten_length / ten_J /
// ten_velocity, tendon passive forces, tendon actuators, the tendon friction-loss and limit rows
// and the constrained acceleration at random states, and a constrained rollout.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/test.h"

#define MODEL GDN_TEST_MODELS "/tendon_fixed.xml"
#define MODEL_SPATIAL GDN_TEST_MODELS "/tendon_spatial.xml"
#define MODEL_WRAP GDN_TEST_MODELS "/tendon_arm26.xml"
#define NSAMPLES 60
// values computed by the same formulas in another order: a few ulps of the largest entry
#define TOL 1e-12
// outputs of the constraint solve (Newton to tolerance 1e-12 on both sides): the solvers stop
// at different iterates, so the forces and qacc agree to the solve's own accuracy
#define TOL_SOLVE 1e-9
// a 1000-step rollout of this damped system stays within 1e-9 of MuJoCo's (measured 1e-12);
// the bound is the 1e-6
#define TOL_ROLLOUT 1e-6

// ||a - b||_inf / max(||b||_inf, 1)
static double rel(const double* a, const double* b, int n) {
    return gdn_test_relerr(a, b, n, 1);
}

// constraints on in both engines, Newton at tolerance 1e-12, no warm start
static int load(gdnOracle* o, const char* path) {
    return gdn_oracle_load_tight(o, path);
}

static int model_constants(const char* path) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    const gdnModel* gm = o.gm;
    const mjModel* mm = o.mm;
    CHECK(gm->ntendon == mm->ntendon && gm->nwrap == mm->nwrap);
    int ok = 1;
    for (int t = 0; t < gm->ntendon; t++) {
        ok &= gm->tendon_adr[t] == mm->tendon_adr[t] && gm->tendon_num[t] == mm->tendon_num[t];
        ok &= gm->tendon_limited[t] == mm->tendon_limited[t];
    }
    for (int k = 0; k < gm->nwrap; k++) {
        ok &= gm->wrap_type[k] == mm->wrap_type[k] && gm->wrap_objid[k] == mm->wrap_objid[k];
        ok &= gm->wrap_prm[k] == mm->wrap_prm[k];
    }
    const int nt = gm->ntendon;
    double e = 0;
    e = gdn_oracle_worst(e, rel(gm->tendon_range, mm->tendon_range, 2 * nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_solref_lim, mm->tendon_solref_lim, GDN_NREF * nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_solimp_lim, mm->tendon_solimp_lim, GDN_NIMP * nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_solref_fri, mm->tendon_solref_fri, GDN_NREF * nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_solimp_fri, mm->tendon_solimp_fri, GDN_NIMP * nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_margin, mm->tendon_margin, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_stiffness, mm->tendon_stiffness, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_damping, mm->tendon_damping, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_frictionloss, mm->tendon_frictionloss, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_lengthspring, mm->tendon_lengthspring, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_length0, mm->tendon_length0, nt));
    e = gdn_oracle_worst(e, rel(gm->tendon_invweight0, mm->tendon_invweight0, nt));
    for (int i = 0; i < gm->nu; i++) {
        ok &= gm->actuator_trntype[i] == mm->actuator_trntype[i];
        ok &= gm->actuator_trnid[2 * i] == mm->actuator_trnid[2 * i];
    }
    printf("  %s: tendon constants: worst relative error %.3g\n", o.name, e);
    gdn_oracle_free(&o);
    CHECK(ok);
    CHECK(e <= TOL);
    return 0;
}

// one state in both engines: returns the worst error of the non-solver and the solver outputs
static int compare_state(gdnOracle* o, double* err, double* err_solve, int* nrows) {
    const gdnModel* gm = o->gm;
    gdnData* gd = o->gd;
    mjData* md = o->md;
    const int nv = gm->nv, nt = gm->ntendon, nu = gm->nu;
    mj_forward(o->mm, md);
    CHECK(gdn_forward(gm, gd) == GDN_OK);
    double e = 0, es = 0;
    e = gdn_oracle_worst(e, rel(gd->ten_length, md->ten_length, nt));
    e = gdn_oracle_worst(e, rel(gd->ten_velocity, md->ten_velocity, nt));
    e = gdn_oracle_worst(e, rel(gd->ten_J, md->ten_J, nt * nv));
    for (int t = 0; t < nt; t++) {
        CHECK(gd->ten_wrapadr[t] == md->ten_wrapadr[t] && gd->ten_wrapnum[t] == md->ten_wrapnum[t]);
    }
    const int nw = nt > 0 ? gd->ten_wrapadr[nt - 1] + gd->ten_wrapnum[nt - 1] : 0;
    for (int k = 0; k < nw; k++) {
        CHECK(gd->wrap_obj[k] == md->wrap_obj[k]);
    }
    e = gdn_oracle_worst(e, rel(gd->wrap_xpos, md->wrap_xpos, 3 * nw));
    e = gdn_oracle_worst(e, rel(gd->qfrc_passive, md->qfrc_passive, nv));
    e = gdn_oracle_worst(e, rel(gd->actuator_length, md->actuator_length, nu));
    e = gdn_oracle_worst(e, rel(gd->actuator_velocity, md->actuator_velocity, nu));
    e = gdn_oracle_worst(e, rel(gd->actuator_force, md->actuator_force, nu));
    e = gdn_oracle_worst(e, rel(gd->qfrc_actuator, md->qfrc_actuator, nv));
    CHECK(gd->nefc == md->nefc && gd->nf == md->nf && gd->ne == md->ne);
    for (int i = 0; i < gd->nefc; i++) {
        CHECK(gd->efc_type[i] == md->efc_type[i] && gd->efc_id[i] == md->efc_id[i]);
    }
    const int nefc = gd->nefc;
    e = gdn_oracle_worst(e, rel(gd->efc_J, md->efc_J, nefc * nv));
    e = gdn_oracle_worst(e, rel(gd->efc_pos, md->efc_pos, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_margin, md->efc_margin, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_frictionloss, md->efc_frictionloss, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_R, md->efc_R, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_KBIP, md->efc_KBIP, 4 * nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_aref, md->efc_aref, nefc));
    for (int i = 0; i < nefc; i++) {
        CHECK(gd->efc_state[i] == md->efc_state[i]);
    }
    es = gdn_oracle_worst(es, rel(gd->efc_force, md->efc_force, nefc));
    es = gdn_oracle_worst(es, rel(gd->qacc, md->qacc, nv));
    *err = gdn_oracle_worst(*err, e);
    *err_solve = gdn_oracle_worst(*err_solve, es);
    *nrows += nefc;
    return 0;
}

static int random_states(const char* path) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    o.gm->opt.enableflags |= GDN_ENBL_ENERGY;
    o.mm->opt.enableflags |= mjENBL_ENERGY;
    unsigned long long rng = 77;
    double e = 0, es = 0, ee = 0;
    int rows = 0, limit_rows = 0, fric_rows = 0, wrapped = 0, wrapped_last = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng, GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL, 2.0);
        // shrink the configuration on every other sample: the limits are then sometimes
        // inside their margin, sometimes not
        const double scale = s % 2 ? 0.15 + 0.002 * s : 1;
        for (int k = 0; k < o.gm->nq; k++) {
            o.gd->qpos[k] *= scale;
        }
        gdn_oracle_copy_state(&o);
        CHECK(compare_state(&o, &e, &es, &rows) == 0);
        ee = gdn_oracle_worst(ee, fabs(o.gd->energy[0] - o.md->energy[0]) /
                                      fmax(1, fabs(o.md->energy[0])));
        for (int i = 0; i < o.gd->nefc; i++) {
            limit_rows += o.gd->efc_type[i] == GDN_CNSTR_LIMIT_TENDON;
            fric_rows += o.gd->efc_type[i] == GDN_CNSTR_FRICTION_TENDON;
        }
        // wrapped tendons (a tangent point pair on a geom), the last tendon's apart (in
        // tendon_arm26 it wraps the sphere with its side site inside)
        for (int t = 0; t < o.gm->ntendon; t++) {
            int on_geom = 0;
            for (int k = 0; k < o.gd->ten_wrapnum[t]; k++) {
                on_geom |= o.gd->wrap_obj[o.gd->ten_wrapadr[t] + k] >= 0;
            }
            wrapped += on_geom;
            wrapped_last += on_geom && t == o.gm->ntendon - 1;
        }
    }
    printf("  %s: %d states, %d rows (%d tendon limits, %d tendon friction), %d wrapped tendon "
           "paths (%d of the last tendon): worst %.3g, solve %.3g, potential energy %.3g\n",
           o.name, NSAMPLES, rows, limit_rows, fric_rows, wrapped, wrapped_last, e, es, ee);
    const int wraps = strstr(path, "arm26") != NULL;
    if (wraps && (wrapped_last == 0 || wrapped_last == NSAMPLES)) {
        fprintf(stderr, "the inside wrap must be on in some states and off in others\n");
        return 1;
    }
    gdn_oracle_free(&o);
    CHECK(limit_rows > 0 && fric_rows > 0);
    CHECK(e <= TOL);
    CHECK(ee <= TOL);
    CHECK(es <= TOL_SOLVE);
    return 0;
}

// 1000 steps from a tilted start with constant controls: qpos and qvel after every step
static int rollout(const char* path) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    gdn_data_reset(gm, gd);
    double* dq = calloc((size_t)gm->nv + 1, sizeof(double));
    CHECK(dq);
    for (int k = 0; k < gm->nv; k++) {
        dq[k] = 0.4 * sin(1.7 * k + 1);
    }
    gdn_integrate_pos(gm, gd->qpos, dq, 1);
    free(dq);
    for (int i = 0; i < gm->nu; i++) {
        gd->ctrl[i] = 0.7 - 0.6 * i;
    }
    gdn_oracle_copy_state(&o);
    double* scratch = calloc((size_t)gm->nv, sizeof(double));
    double worst = 0;
    int limit_steps = 0;
    for (int t = 0; t < 1000; t++) {
        mj_step(o.mm, o.md);
        CHECK(gdn_step(gm, gd) == GDN_OK);
        for (int i = 0; i < gd->nefc; i++) {
            if (gd->efc_type[i] == GDN_CNSTR_LIMIT_TENDON) {
                limit_steps++;
                break;
            }
        }
        worst = gdn_oracle_worst(worst, gdn_oracle_qpos_distance(&o, gd->qpos, o.md->qpos,
                                                                 scratch));
        worst = gdn_oracle_worst(worst, rel(gd->qvel, o.md->qvel, gm->nv));
    }
    printf("  %s: rollout 1000 steps (%d with a tendon limit row): worst |q - q_mj|, |v - v_mj| "
           "%.3g\n", o.name, limit_steps, worst);
    free(scratch);
    gdn_oracle_free(&o);
    CHECK(limit_steps > 0);
    CHECK(worst <= TOL_ROLLOUT);
    return 0;
}

static int test_model_constants(void) {
    CHECK(model_constants(MODEL) == 0);
    CHECK(model_constants(MODEL_SPATIAL) == 0);
    CHECK(model_constants(MODEL_WRAP) == 0);
    return 0;
}

static int test_random_states(void) {
    CHECK(random_states(MODEL) == 0);
    CHECK(random_states(MODEL_SPATIAL) == 0);
    CHECK(random_states(MODEL_WRAP) == 0);
    return 0;
}

static int test_rollout(void) {
    CHECK(rollout(MODEL) == 0);
    CHECK(rollout(MODEL_SPATIAL) == 0);
    CHECK(rollout(MODEL_WRAP) == 0);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"model_constants", test_model_constants},
        {"random_states", test_random_states},
        {"rollout", test_rollout},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
