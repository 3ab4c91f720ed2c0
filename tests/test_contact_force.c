// SPDX-License-Identifier: Apache-2.0
// gdn_contact_force: contact-frame forces vs MuJoCo 2.2.2's mj_contactForce, and the identity
// sum_c J_c' F_c = qfrc_constraint that fixes their meaning (frame, signs, pyramid decoding)
// independently of MuJoCo.
//
// 1. Along MuJoCo's own rollout of each contact scene (both cones, condim 1 / 3 / 4 / 6),
//    every 10th state is copied into our data and both engines run forward with solver
//    tolerance 1e-12: each contact's 6 numbers equal mj_contactForce's to FORCE_TOL relative to
//    the largest force of the state. The solved efc_force agrees to 5e-11 there
//    (test_contact_rollout); decoding adds a few roundings.
// 2. With contacts as the only rows, the joint-space constraint force is the sum over contacts
//    of the world forces mapped by the point Jacobians at the contact position:
//      qfrc_constraint = sum_c (Jp(b2) - Jp(b1))' R' f_lin + (Jr(b2) - Jr(b1))' R' f_rot,
//    R = the contact frame (rows normal, tangent1, tangent2), f_lin = (normal, t1, t2),
//    f_rot = (torsion, roll1, roll2). Every efc row of a contact is a combination of these
//    Jacobian rows, so this holds to round-off (IDENTITY_TOL relative to |qfrc_constraint|).
// 3. Bad ids are GDN_ERR_ARG; a contact without rows gives zeros.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "oracle/rollout_scenes.h"
#include "runner/test.h"

#define NSTEP 300          // steps of MuJoCo's rollout per scene
#define TIGHT_TOL 1e-12    // solver tolerance of the same-state comparison, both engines
#define FORCE_TOL 1e-9     // contact forces vs mj_contactForce, relative to the largest force
#define IDENTITY_TOL 1e-12 // sum_c J_c' F_c vs qfrc_constraint, relative

// a scene with extra condims: the rollout scenes use the model's own condim 3; this one has a
// ball (condim 6), a crate (condim 3), a capsule (condim 4) and a lid (condim 1), both cones
static const char mixed_xml[] =
    "<mujoco><option cone='%s'/><worldbody>"
    "<geom name='floor' type='plane' size='5 5 .1'/>"
    "<body pos='0 0 .099'><freejoint/>"
    "<geom type='sphere' size='.1' condim='6' friction='.8 .01 .002'/></body>"
    "<body pos='1 0 .095' euler='0 0 20'><freejoint/>"
    "<geom type='box' size='.1 .15 .1' margin='.01' gap='.002'/></body>"
    "<body pos='-1 0 .05' euler='0 90 0'><freejoint/>"
    "<geom type='capsule' size='.05 .2' condim='4' friction='.7 .02'/></body>"
    "<body pos='1 0 .204'><freejoint/><geom type='cylinder' size='.08 .01' condim='1'/></body>"
    "</worldbody></mujoco>";

typedef struct Report {
    int states, contacts;
    double force_err, identity_err;
} Report;

// contact id's 6 numbers: ours vs MuJoCo's, relative to scale
static double force_error(const gdnOracle* o, int id, double scale) {
    double ours[6], theirs[6];
    if (gdn_contact_force(o->gm, o->gd, id, ours) != GDN_OK) {
        return INFINITY;
    }
    mj_contactForce(o->mm, o->md, id, theirs);
    double e = 0;
    for (int k = 0; k < 6; k++) {
        e = gdn_oracle_worst(e, fabs(ours[k] - theirs[k]) / scale);
    }
    return e;
}

// ||sum_c J_c' F_c - qfrc_constraint|| / max(1e-9, ||qfrc_constraint||) when every row is a
// contact row (else 0: other rows add their own forces)
static double identity_error(const gdnModel* m, const gdnData* d, double* jac, double* sum) {
    const int nv = m->nv;
    for (int i = 0; i < d->nefc; i++) {
        int t = d->efc_type[i];
        if (t != GDN_CNSTR_CONTACT_FRICTIONLESS && t != GDN_CNSTR_CONTACT_PYRAMIDAL &&
            t != GDN_CNSTR_CONTACT_ELLIPTIC) {
            return 0;
        }
    }
    memset(sum, 0, sizeof(double) * (size_t)nv);
    double* jp1 = jac;
    double* jr1 = jac + 3 * nv;
    double* jp2 = jac + 6 * nv;
    double* jr2 = jac + 9 * nv;
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = &d->contact[c];
        double f[6];
        if (gdn_contact_force(m, d, c, f) != GDN_OK) {
            return INFINITY;
        }
        // world force and torque on geom2: R' f_lin, R' f_rot
        double F[3] = {0, 0, 0}, T[3] = {0, 0, 0};
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++) {
                F[k] += con->frame[3 * r + k] * f[r];
                T[k] += con->frame[3 * r + k] * f[3 + r];
            }
        }
        gdn_jac(m, d, jp1, jr1, con->pos, m->geom_bodyid[con->geom1]);
        gdn_jac(m, d, jp2, jr2, con->pos, m->geom_bodyid[con->geom2]);
        for (int j = 0; j < nv; j++) {
            for (int k = 0; k < 3; k++) {
                sum[j] += (jp2[k * nv + j] - jp1[k * nv + j]) * F[k] +
                          (jr2[k * nv + j] - jr1[k * nv + j]) * T[k];
            }
        }
    }
    double err = 0, norm = 0;
    for (int j = 0; j < nv; j++) {
        err = gdn_oracle_worst(err, fabs(sum[j] - d->qfrc_constraint[j]));
        norm = fmax(norm, fabs(d->qfrc_constraint[j]));
    }
    return err / fmax(norm, 1e-9);
}

// every 10th state of MuJoCo's rollout: forward in both engines, then both checks
static int run_states(gdnOracle* o, Report* r) {
    const int nv = o->mm->nv;
    double* jac = malloc(sizeof(double) * 12 * (size_t)nv);
    double* sum = malloc(sizeof(double) * (size_t)nv);
    mjData* md_roll = mj_copyData(NULL, o->mm, o->md);
    CHECK(jac && sum && md_roll);
    for (int t = 0; t < NSTEP; t++) {
        mj_step(o->mm, md_roll);
        if (t % 10 != 0) {
            continue;
        }
        mj_copyData(o->md, o->mm, md_roll);
        memcpy(o->gd->qpos, o->md->qpos, sizeof(double) * (size_t)o->mm->nq);
        memcpy(o->gd->qvel, o->md->qvel, sizeof(double) * (size_t)nv);
        memcpy(o->gd->qacc_warmstart, o->md->qacc_warmstart, sizeof(double) * (size_t)nv);
        o->gd->time = o->md->time;
        o->mm->opt.tolerance = TIGHT_TOL;
        o->gm->opt.tolerance = TIGHT_TOL;
        mj_forward(o->mm, o->md);
        CHECK(gdn_forward(o->gm, o->gd) == GDN_OK);
        CHECK(o->gd->ncon == o->md->ncon);
        double scale = 1e-9;
        for (int i = 0; i < o->md->nefc; i++) {
            scale = fmax(scale, fabs(o->md->efc_force[i]));
        }
        for (int c = 0; c < o->md->ncon; c++) {
            r->force_err = gdn_oracle_worst(r->force_err, force_error(o, c, scale));
        }
        r->identity_err = gdn_oracle_worst(r->identity_err,
                                           identity_error(o->gm, o->gd, jac, sum));
        r->states++;
        r->contacts += o->md->ncon;
    }
    mj_deleteData(md_roll);
    free(jac);
    free(sum);
    return 0;
}

static int check_report(const char* name, const Report* r) {
    printf("  %-18s %3d states, %4d contacts: force vs mj_contactForce %.2e, "
           "sum_c J_c' F_c vs qfrc_constraint %.2e\n",
           name, r->states, r->contacts, r->force_err, r->identity_err);
    CHECK(r->contacts > 0);
    CHECK(r->force_err <= FORCE_TOL);
    CHECK(r->identity_err <= IDENTITY_TOL);
    return 0;
}

static int test_rollout_scenes(void) {
    const char* names[] = {"drop_box", "drop_capsule", "slide_pyramidal", "slide_elliptic",
                           "tip_over_edge", "five_box_stack", "humanoid"};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        const gdnRolloutScene* s = gdn_oracle_rollout_scene(names[k]);
        CHECK(s != NULL);
        gdnOracle o;
        CHECK(gdn_oracle_rollout_open(&o, s) == 0);
        Report r = {0};
        int bad = run_states(&o, &r);
        gdn_oracle_free(&o);
        CHECK(bad == 0);
        CHECK(check_report(s->name, &r) == 0);
    }
    return 0;
}

// condim 1, 3, 4 and 6 together, pyramidal and elliptic
static int test_mixed_condim(void) {
    const char* cones[2] = {"pyramidal", "elliptic"};
    for (int k = 0; k < 2; k++) {
        char xml[2048], path[GDN_ORACLE_TMP_PATH];
        snprintf(xml, sizeof(xml), mixed_xml, cones[k]);
        CHECK(gdn_oracle_tmp_xml(xml, path) == 0);
        gdnOracle o;
        int bad_load = gdn_oracle_load_constrained(&o, path);
        remove(path);
        CHECK(bad_load == 0);
        Report r = {0};
        int bad = run_states(&o, &r);
        gdn_oracle_free(&o);
        CHECK(bad == 0);
        char name[64];
        snprintf(name, sizeof(name), "condim 1/3/4/6 %s", cones[k]);
        CHECK(check_report(name, &r) == 0);
    }
    return 0;
}

// ids outside [0, ncon) and NULL arguments are errors; a contact in the gap has no rows: zeros
static int test_bad_ids_and_gap(void) {
    const char* xml = "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>"
                      "<body pos='0 0 .105'><freejoint/>"
                      "<geom type='sphere' size='.1' margin='.01' gap='.008'/></body>"
                      "</worldbody></mujoco>";
    gdnModel* m = NULL;
    char err[256];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) ==
          GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    CHECK(gdn_forward(m, d) == GDN_OK);
    // dist 0.005 < margin 0.01: a contact, but beyond margin - gap = 0.002: no rows
    CHECK(d->ncon == 1 && d->contact[0].efc_address == -1 && d->nefc == 0);
    double f[6] = {1, 1, 1, 1, 1, 1};
    CHECK(gdn_contact_force(m, d, 0, f) == GDN_OK);
    for (int k = 0; k < 6; k++) {
        CHECK(f[k] == 0);
    }
    CHECK(gdn_contact_force(m, d, -1, f) == GDN_ERR_ARG);
    CHECK(gdn_contact_force(m, d, 1, f) == GDN_ERR_ARG);
    CHECK(gdn_contact_force(NULL, d, 0, f) == GDN_ERR_ARG);
    CHECK(gdn_contact_force(m, NULL, 0, f) == GDN_ERR_ARG);
    CHECK(gdn_contact_force(m, d, 0, NULL) == GDN_ERR_ARG);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"rollout_scenes", test_rollout_scenes},
    {"mixed_condim", test_mixed_condim},
    {"bad_ids_and_gap", test_bad_ids_and_gap},
};

GDN_TEST_MAIN(cases)
