// SPDX-License-Identifier: Apache-2.0
// Joint and tendon equalities (<equality><joint>, <tendon>) against MuJoCo 2.2.2: the compiled
// eq_* fields and the weights their rows' R reads, the efc rows and the constrained
// acceleration at random states, 1000-step rollouts (Euler and RK4), the load-time refusals
// MuJoCo makes (distance, a ball joint, unknown and repeated objects) and <default><equality>.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/oracle.h"
#include "runner/test.h"

#define MODEL_JOINT GDN_TEST_MODELS "/eq_joint.xml"
#define MODEL_TENDON GDN_TEST_MODELS "/eq_tendon.xml"
#define NSAMPLES 60
// the rows are the same formulas in the same order: a few ulps of the largest entry
#define TOL 1e-12
// the solve's outputs (Newton to tolerance 1e-12 in both): the two solvers stop at different
// iterates, so forces and qacc agree to the solve's accuracy
#define TOL_SOLVE 1e-9
// the bound for a 1000-step rollout (q in the tangent space and v, infinity norm)
#define TOL_ROLLOUT 1e-6

// ||a - b||_inf / max(||b||_inf, 1)
static double rel(const double* a, const double* b, int n) {
    return gdn_test_relerr(a, b, n, 1);
}

// constraints on in both engines, Newton at tolerance 1e-12, no warm start
static int load(gdnOracle* o, const char* path) {
    return gdn_oracle_load_tight(o, path);
}

// eq_type, the object ids (obj2 absent: -1 in both), eq_data (polycoef), solref / solimp, and
// the references and weights the rows read
static int model_constants(const char* path) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    const gdnModel* gm = o.gm;
    const mjModel* mm = o.mm;
    CHECK(gm->neq == mm->neq && gm->neq > 0);
    int ok = 1, absent = 0;
    for (int i = 0; i < gm->neq; i++) {
        ok &= gm->eq_type[i] == mm->eq_type[i] && gm->eq_obj1id[i] == mm->eq_obj1id[i] &&
              gm->eq_obj2id[i] == mm->eq_obj2id[i] && gm->eq_active[i] == mm->eq_active[i];
        absent += gm->eq_obj2id[i] == -1;
    }
    const int n = gm->neq;
    double e = 0;
    e = gdn_oracle_worst(e, rel(gm->eq_data, mm->eq_data, GDN_NEQDATA * n));
    e = gdn_oracle_worst(e, rel(gm->eq_solref, mm->eq_solref, GDN_NREF * n));
    e = gdn_oracle_worst(e, rel(gm->eq_solimp, mm->eq_solimp, GDN_NIMP * n));
    e = gdn_oracle_worst(e, rel(gm->qpos0, mm->qpos0, gm->nq));
    e = gdn_oracle_worst(e, rel(gm->dof_invweight0, mm->dof_invweight0, gm->nv));
    e = gdn_oracle_worst(e, rel(gm->tendon_length0, mm->tendon_length0, gm->ntendon));
    e = gdn_oracle_worst(e, rel(gm->tendon_invweight0, mm->tendon_invweight0, gm->ntendon));
    printf("  %s: %d equalities (%d without obj2): worst relative error %.3g\n", o.name, n,
           absent, e);
    gdn_oracle_free(&o);
    CHECK(ok);
    CHECK(absent > 0);
    CHECK(e <= TOL);
    return 0;
}

// one state in both engines: the worst error of the rows and of the solve's outputs
static int compare_state(gdnOracle* o, double* err, double* err_solve) {
    const gdnModel* gm = o->gm;
    gdnData* gd = o->gd;
    mjData* md = o->md;
    const int nv = gm->nv;
    mj_forward(o->mm, md);
    CHECK(gdn_forward(gm, gd) == GDN_OK);
    CHECK(gd->nefc == md->nefc && gd->ne == md->ne && gd->ne == gm->neq);
    for (int i = 0; i < gd->nefc; i++) {
        CHECK(gd->efc_type[i] == md->efc_type[i] && gd->efc_id[i] == md->efc_id[i]);
    }
    const int nefc = gd->nefc;
    double e = 0, es = 0;
    e = gdn_oracle_worst(e, rel(gd->ten_length, md->ten_length, gm->ntendon));
    e = gdn_oracle_worst(e, rel(gd->efc_J, md->efc_J, nefc * nv));
    e = gdn_oracle_worst(e, rel(gd->efc_pos, md->efc_pos, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_vel, md->efc_vel, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_diagApprox, md->efc_diagApprox, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_R, md->efc_R, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_D, md->efc_D, nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_KBIP, md->efc_KBIP, 4 * nefc));
    e = gdn_oracle_worst(e, rel(gd->efc_aref, md->efc_aref, nefc));
    es = gdn_oracle_worst(es, rel(gd->efc_force, md->efc_force, nefc));
    es = gdn_oracle_worst(es, rel(gd->qfrc_constraint, md->qfrc_constraint, nv));
    es = gdn_oracle_worst(es, rel(gd->qacc, md->qacc, nv));
    *err = gdn_oracle_worst(*err, e);
    *err_solve = gdn_oracle_worst(*err_solve, es);
    return 0;
}

// random q (hinges in [-pi, pi), slides in [-1, 1) scaled down on every other sample so the
// polynomials are seen near and far from their references), v, controls and applied forces
static int random_states(const char* path) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    unsigned long long rng = 2024;
    double e = 0, es = 0;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(&o, &rng,
                                GDN_RAND_QPOS | GDN_RAND_QVEL | GDN_RAND_CTRL | GDN_RAND_QFRC, 2.0);
        const double scale = s % 2 ? 0.1 + 0.01 * s : 1;
        for (int k = 0; k < o.gm->nq; k++) {
            o.gd->qpos[k] = o.gm->qpos0[k] + scale * (o.gd->qpos[k] - o.gm->qpos0[k]);
        }
        gdn_oracle_copy_state(&o);
        CHECK(compare_state(&o, &e, &es) == 0);
    }
    printf("  %s: %d states, %d equality rows each: rows worst %.3g, solve %.3g\n", o.name,
           NSAMPLES, o.gd->ne, e, es);
    gdn_oracle_free(&o);
    CHECK(e <= TOL);
    CHECK(es <= TOL_SOLVE);
    return 0;
}

// 1000 steps from a perturbed start, constant controls: |q - q_mj| (tangent space) and
// |v - v_mj| after every step, the worst of both (absolute, relative to max(|v_mj|, 1))
static int rollout(const char* path, int rk4) {
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    if (rk4) {
        o.gm->opt.integrator = GDN_INT_RK4;
        o.mm->opt.integrator = mjINT_RK4;
    }
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    gdn_data_reset(gm, gd);
    double* dq = calloc((size_t)gm->nv + 1, sizeof(double));
    CHECK(dq);
    for (int k = 0; k < gm->nv; k++) {
        dq[k] = 0.4 * sin(1.7 * k + 1);
        gd->qvel[k] = 0.8 * cos(0.9 * k);
    }
    gdn_integrate_pos(gm, gd->qpos, dq, 1);
    for (int i = 0; i < gm->nu; i++) {
        gd->ctrl[i] = 0.7 - 0.6 * i;
    }
    gdn_oracle_copy_state(&o);
    double worst = 0, viol = 0;
    for (int t = 0; t < 1000; t++) {
        mj_step(o.mm, o.md);
        CHECK(gdn_step(gm, gd) == GDN_OK);
        worst = gdn_oracle_worst(worst, gdn_oracle_qpos_distance(&o, gd->qpos, o.md->qpos, dq));
        worst = gdn_oracle_worst(worst, rel(gd->qvel, o.md->qvel, gm->nv));
        for (int i = 0; t == 999 && i < gd->ne; i++) {
            viol = fmax(viol, fabs(gd->efc_pos[i]));
        }
    }
    printf("  %s: %s rollout 1000 steps: worst |q - q_mj|, |v - v_mj| %.3g (final |pos| %.3g)\n",
           o.name, rk4 ? "RK4" : "Euler", worst, viol);
    free(dq);
    gdn_oracle_free(&o);
    CHECK(worst <= TOL_ROLLOUT);
    return 0;
}

static int test_model_constants(void) {
    CHECK(model_constants(MODEL_JOINT) == 0);
    CHECK(model_constants(MODEL_TENDON) == 0);
    return 0;
}

static int test_random_states(void) {
    CHECK(random_states(MODEL_JOINT) == 0);
    CHECK(random_states(MODEL_TENDON) == 0);
    return 0;
}

static int test_rollout(void) {
    for (int rk4 = 0; rk4 < 2; rk4++) {
        CHECK(rollout(MODEL_JOINT, rk4) == 0);
        CHECK(rollout(MODEL_TENDON, rk4) == 0);
    }
    return 0;
}

// one model text: MuJoCo's and gradyn's verdicts agree (both refuse, the messages sharing
// want), or both load
static int refusal(const char* name, const char* body, const char* want) {
    char xml[4096], path[512], mjerr[1024] = "", err[1024] = "";
    snprintf(xml, sizeof(xml),
             "<mujoco>\n<worldbody>\n"
             "<body name='a'><joint name='h1'/><geom size='.1'/>\n"
             "<body name='b' pos='0 0 -.3'><joint name='h2'/><geom size='.1'/>\n"
             "<body name='c' pos='0 0 -.3'><joint name='ball' type='ball'/><geom size='.1'/>\n"
             "</body></body></body>\n<site name='s0'/><site name='s1' pos='0 0 1'/>"
             "</worldbody>\n<tendon><fixed name='t1'><joint joint='h1' coef='1'/></fixed>"
             "<spatial name='t2'><site site='s0'/><site site='s1'/></spatial></tendon>\n"
             "<equality>\n%s\n</equality>\n</mujoco>\n",
             body);
    snprintf(path, sizeof(path), "%s/eq_case_%s.xml", GDN_BINARY_DIR, name);
    FILE* f = fopen(path, "w");
    CHECK(f);
    fputs(xml, f);
    fclose(f);
    mjModel* mm = mj_loadXML(path, NULL, mjerr, (int)sizeof(mjerr));
    gdnModel* gm = NULL;
    gdnStatus st = gdn_load_xml(path, &gm, err, (int)sizeof(err), NULL, 0);
    printf("  %-12s MuJoCo: %s\n  %-12s gradyn: %s\n", name, mm ? "loads" : mjerr, "",
           gm ? "loads" : err);
    int ok = (mm != NULL) == (gm != NULL);
    if (want) {
        ok = ok && !mm && !gm && st != GDN_OK && strstr(mjerr, want) && strstr(err, want) &&
             strstr(err, ":10:"); // the equality's line
    }
    if (mm) {
        mj_deleteModel(mm);
    }
    gdn_model_free(gm);
    CHECK(ok);
    return 0;
}

static int test_refusals(void) {
    CHECK(refusal("distance", "<distance geom1='a' geom2='b'/>",
                  "distance equality") == 0);
    CHECK(refusal("ball", "<joint joint1='h1' joint2='ball'/>",
                  "only HINGE and SLIDE joint allowed in constraint") == 0);
    CHECK(refusal("ball1", "<joint joint1='ball'/>",
                  "only HINGE and SLIDE joint allowed in constraint") == 0);
    CHECK(refusal("unknown", "<joint joint1='h1' joint2='nope'/>",
                  "unknown element 'nope' in equality constraint 0") == 0);
    CHECK(refusal("unknown_t", "<tendon tendon1='nope'/>",
                  "unknown element 'nope' in equality constraint 0") == 0);
    CHECK(refusal("repeated", "<joint joint1='h2' joint2='h2'/>",
                  "element 'h2' is repeated in equality constraint 0") == 0);
    CHECK(refusal("repeated_t", "<tendon tendon1='t2' tendon2='t2'/>",
                  "element 't2' is repeated in equality constraint 0") == 0);
    CHECK(refusal("missing", "<joint joint2='h1'/>", "joint1") == 0);
    CHECK(refusal("polycoef4", "<joint joint1='h1' polycoef='1 2 3 4'/>", NULL) == 0);
    CHECK(refusal("fine", "<joint joint1='h1' joint2='h2' polycoef='0 1 2 3 4'/>"
                          "<tendon tendon1='t1' tendon2='t2'/><tendon tendon1='t2'/>",
                  NULL) == 0);
    return 0;
}

// <default><equality>: active, solref and solimp from the main class and from a named class
// (nested), for every equality type, as MuJoCo 2.2.2 applies them
static int test_defaults(void) {
    static const char xml[] =
        "<mujoco>\n<default><equality active='false' solref='0.05 0.7'/>\n"
        "<default class='soft'><equality active='true' solimp='0.5 0.8 0.01 0.4 3'/>\n"
        "<default class='softer'><equality solref='0.1 2'/></default></default></default>\n"
        "<worldbody><body name='a'><joint name='h1'/><geom size='.1'/>\n"
        "<body name='b' pos='0 0 -.3'><joint name='h2'/><geom size='.1'/></body></body>\n"
        "</worldbody><tendon><fixed name='t1'><joint joint='h1' coef='1'/></fixed>\n"
        "<fixed name='t2'><joint joint='h2' coef='2'/></fixed></tendon>\n"
        "<equality><connect body1='a' body2='b' anchor='0 0 0'/>\n"
        "<weld class='soft' body1='b'/><joint class='softer' joint1='h1' joint2='h2'/>\n"
        "<tendon class='soft' tendon1='t1' tendon2='t2' active='false'/>\n"
        "<joint joint1='h2' solref='0.03 1'/></equality>\n</mujoco>\n";
    char path[512], mjerr[1024] = "", err[1024] = "";
    snprintf(path, sizeof(path), "%s/eq_case_defaults.xml", GDN_BINARY_DIR);
    FILE* f = fopen(path, "w");
    CHECK(f);
    fputs(xml, f);
    fclose(f);
    mjModel* mm = mj_loadXML(path, NULL, mjerr, (int)sizeof(mjerr));
    gdnModel* gm = NULL;
    gdn_load_xml(path, &gm, err, (int)sizeof(err), NULL, 0);
    if (!mm || !gm) {
        fprintf(stderr, "MuJoCo: %s\ngradyn: %s\n", mjerr, err);
    }
    CHECK(mm && gm && gm->neq == mm->neq && gm->neq == 5);
    int ok = 1;
    for (int i = 0; i < gm->neq; i++) {
        ok &= gm->eq_active[i] == mm->eq_active[i] && gm->eq_type[i] == mm->eq_type[i];
        printf("  equality %d (type %d): active %d, solref %g %g, solimp %g .. %g\n", i,
               gm->eq_type[i], gm->eq_active[i], gm->eq_solref[2 * i],
               gm->eq_solref[2 * i + 1], gm->eq_solimp[5 * i], gm->eq_solimp[5 * i + 4]);
    }
    ok &= !memcmp(gm->eq_solref, mm->eq_solref, sizeof(double) * GDN_NREF * 5);
    ok &= !memcmp(gm->eq_solimp, mm->eq_solimp, sizeof(double) * GDN_NIMP * 5);
    ok &= !memcmp(gm->eq_data + 2 * GDN_NEQDATA, mm->eq_data + 2 * GDN_NEQDATA,
                  sizeof(double) * GDN_NEQDATA * 3);
    mj_deleteModel(mm);
    gdn_model_free(gm);
    CHECK(ok);
    return 0;
}

// a tendon equality on a tendon whose wrap can be inside its geom (tendon_arm26's last, KI):
// the forward follows MuJoCo either way; every derivative entry differentiates a step where
// that wrap is on (at its equation's root, GDN_DERIV_WRAP_LIMIT reported) and one where it is
// off; the JVP along e_0 vs central FD of gdn_step (eps 1e-6; the primal's wrap solve stops at
// |F| <= 1e-6)
static int test_wrap(void) {
    char* text = NULL;
    {
        FILE* f = fopen(GDN_TEST_MODELS "/tendon_arm26.xml", "rb");
        CHECK(f);
        fseek(f, 0, SEEK_END);
        const long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = calloc((size_t)len + 256, 1);
        CHECK(text && fread(text, 1, (size_t)len, f) == (size_t)len);
        fclose(f);
    }
    char* end = strstr(text, "</mujoco>");
    CHECK(end);
    strcpy(end, "<equality><tendon tendon1='EF' tendon2='KI' polycoef='0 0.5 1 0 0'/>"
                "</equality>\n</mujoco>\n");
    char path[512];
    snprintf(path, sizeof(path), "%s/eq_case_wrap.xml", GDN_BINARY_DIR);
    FILE* f = fopen(path, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
    free(text);
    gdnOracle o;
    CHECK(load(&o, path) == 0);
    const gdnModel* gm = o.gm;
    gdnData* gd = o.gd;
    const int nv = gm->nv, last = gm->ntendon - 1;
    double x[64] = {0}, y[64], g[64];
    CHECK(2 * nv <= 64);
    unsigned long long rng = 5;
    int seen[2] = {0, 0};
    double e = 0, es = 0, efd = 0;
    for (int s = 0; s < 200 && !(seen[0] && seen[1]); s++) {
        gdn_data_reset(gm, gd);
        for (int k = 0; k < gm->nq; k++) {
            gd->qpos[k] = gdn_test_uniform(&rng, 0, 2);
        }
        gdn_kinematics(gm, gd);
        const int inside = gd->wrap_obj[gd->ten_wrapadr[last] + 1] >= 0;
        if (seen[inside]) {
            continue;
        }
        seen[inside] = 1;
        gdn_oracle_copy_state(&o);
        CHECK(compare_state(&o, &e, &es) == 0);
        x[0] = 1;
        CHECK(gdn_step_jvp(gm, gd, x, x + nv, NULL, NULL, NULL, y, y + nv) == GDN_OK);
        CHECK(((gd->deriv_flags & GDN_DERIV_WRAP_LIMIT) != 0) == inside);
        CHECK(gdn_step_vjp(gm, gd, x, x + nv, g, g + nv, NULL, NULL, NULL) == GDN_OK);
        CHECK(gdn_transition_jacobians(gm, gd, NULL, NULL) == GDN_OK);
        // central FD of gdn_step along e_0
        double q0[64], v0[64], qp[64], vp[64], fd[64];
        CHECK(gm->nq <= 64);
        memcpy(q0, gd->qpos, sizeof(double) * (size_t)gm->nq);
        memcpy(v0, gd->qvel, sizeof(double) * (size_t)nv);
        for (int sg = 0; sg < 2; sg++) {
            gdn_data_reset(gm, gd);
            memcpy(gd->qpos, q0, sizeof(double) * (size_t)gm->nq);
            memcpy(gd->qvel, v0, sizeof(double) * (size_t)nv);
            gdn_integrate_pos(gm, gd->qpos, x, sg ? -1e-6 : 1e-6);
            CHECK(gdn_step(gm, gd) == GDN_OK);
            if (!sg) {
                memcpy(qp, gd->qpos, sizeof(double) * (size_t)gm->nq);
                memcpy(vp, gd->qvel, sizeof(double) * (size_t)nv);
            }
        }
        gdn_difference_pos(gm, fd, 2e-6, gd->qpos, qp);
        for (int k = 0; k < nv; k++) {
            fd[nv + k] = (vp[k] - gd->qvel[k]) / 2e-6;
        }
        efd = fmax(efd, gdn_test_relerr(y, fd, 2 * nv, 1));
        gdn_data_reset(gm, gd);
        memcpy(gd->qpos, q0, sizeof(double) * (size_t)gm->nq);
        memcpy(gd->qvel, v0, sizeof(double) * (size_t)nv);
    }
    printf("  %s: inside and outside wraps differentiated (JVP vs FD %.3g); rows vs MuJoCo "
           "%.3g, solve %.3g\n", o.name, efd, e, es);
    gdn_oracle_free(&o);
    CHECK(seen[0] && seen[1]);
    CHECK(e <= TOL && es <= TOL_SOLVE);
    CHECK(efd <= 1e-5);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"model_constants", test_model_constants},
        {"random_states", test_random_states},
        {"rollout", test_rollout},
        {"refusals", test_refusals},
        {"defaults", test_defaults},
        {"wrap", test_wrap},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
