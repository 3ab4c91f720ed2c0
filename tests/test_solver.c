// SPDX-License-Identifier: Apache-2.0
// Newton constraint solver vs MuJoCo 2.2.2 on MuJoCo's own constraint rows (collision and rows
// isolated): same qacc, efc_force and iteration counts at tolerance 1e-12.
//
// Each case steps a scene in MuJoCo to a state with active constraints, saves qacc_warmstart,
// runs mj_forward (the oracle solve), then copies MuJoCo's rows (efc_J dense, efc_aref, efc_D,
// efc_R, efc_type, efc_id, efc_frictionloss), contacts (dim, mu, friction), dense M, qacc_smooth,
// qfrc_smooth and the saved warm start into our data and runs gdn_solve_constraint.
#define _POSIX_C_SOURCE 199309L // clock_gettime

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "constraint/solver.h"
#include "oracle/from_mujoco.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define SOLVER_TOL 1e-12 // solver tolerance in both engines
#define MATCH_TOL 1e-8   // relative agreement of qacc and efc_force

// a scene: model file, steps before the compared solve, initial state tweak, options
typedef struct Scene {
    const char* name;
    const char* path;
    int cone;         // mjCONE_*
    int steps;        // mj_step calls before the compared solve
    int condim;       // > 0: every geom's condim
    int coldstart;    // 1: mjDSBL_WARMSTART in both engines
    int iterations;   // solver iterations in both engines (0: MuJoCo's default 100)
    double qvel0[6];  // initial qvel of the first 6 dofs (free body: v world, w local)
    double tilt;      // initial rotation about x of the first free body (rad)
    double qpos_hinge; // initial qpos[0] when the first joint is a hinge (nonzero only)
    double push[6];   // added to the first 6 qvel after the steps, then push_steps more steps
    int push_steps;
    double kick;      // > 0: after stepping, every qvel += uniform(-kick, kick) (a hard solve)
    int timing;       // 1: also time our solve and MuJoCo's mj_fwdConstraint (printed only)
} Scene;

// results of one comparison
typedef struct Outcome {
    int nefc, ncon;
    int iter_mj, iter_gdn;
    int converged;
    int state_mismatch; // rows whose efc_state differs from MuJoCo's
    int nstate[5];      // rows per gdnConstraintState at our solution
    double err_qacc, err_force;
} Outcome;

static char* model_path(const char* file, char* buf, size_t n) {
    if (file[0] == '/') {
        snprintf(buf, n, "%s", file);
    } else {
        snprintf(buf, n, "%s/%s", GDN_TEST_MODELS, file);
    }
    return buf;
}

// copy MuJoCo's rows, contacts, M and smooth quantities into gd (nefc <= gd->maxefc checked)
static int copy_problem(const mjModel* mm, const mjData* md, gdnData* gd) {
    const int nv = mm->nv, nefc = md->nefc;
    if (nefc > gd->maxefc || md->ncon > gd->maxcon) {
        fprintf(stderr, "problem too large: nefc %d (max %d), ncon %d\n", nefc, gd->maxefc,
                md->ncon);
        return 1;
    }
    gd->nefc = nefc;
    gd->ncon = md->ncon;
    memcpy(gd->efc_J, md->efc_J, sizeof(double) * (size_t)nefc * (size_t)nv);
    memcpy(gd->efc_aref, md->efc_aref, sizeof(double) * (size_t)nefc);
    memcpy(gd->efc_D, md->efc_D, sizeof(double) * (size_t)nefc);
    memcpy(gd->efc_R, md->efc_R, sizeof(double) * (size_t)nefc);
    memcpy(gd->efc_frictionloss, md->efc_frictionloss, sizeof(double) * (size_t)nefc);
    memcpy(gd->efc_type, md->efc_type, sizeof(int) * (size_t)nefc);
    memcpy(gd->efc_id, md->efc_id, sizeof(int) * (size_t)nefc);
    for (int i = 0; i < md->ncon; i++) {
        gdnContact* c = gd->contact + i;
        memset(c, 0, sizeof(*c));
        c->dim = md->contact[i].dim;
        c->mu = md->contact[i].mu;
        memcpy(c->friction, md->contact[i].friction, sizeof(c->friction));
        c->efc_address = md->contact[i].efc_address;
    }
    mj_fullM(mm, gd->qM, md->qM);
    memcpy(gd->qacc_smooth, md->qacc_smooth, sizeof(double) * (size_t)nv);
    memcpy(gd->qfrc_smooth, md->qfrc_smooth, sizeof(double) * (size_t)nv);
    return 0;
}

// seconds of CLOCK_MONOTONIC
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// microseconds per solve: gdn_solve_constraint vs mj_fwdConstraint from the same warm start
static void print_timing(const mjModel* mm, mjData* md, const gdnModel* gm, gdnData* gd,
                         const double* warm) {
    const int reps = 2000, nv = mm->nv;
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        memcpy(gd->qacc_warmstart, warm, sizeof(double) * (size_t)nv);
        gdn_solve_constraint(gm, gd);
    }
    double t1 = now();
    for (int r = 0; r < reps; r++) {
        memcpy(md->qacc_warmstart, warm, sizeof(double) * (size_t)nv);
        mj_fwdConstraint(mm, md);
    }
    double t2 = now();
    printf("  %-22s solve time: gradyn %.2f us, MuJoCo mj_fwdConstraint %.2f us\n", "",
           1e6 * (t1 - t0) / reps, 1e6 * (t2 - t1) / reps);
}

// step the scene in MuJoCo, solve once in both engines, compare
static int run_scene(const Scene* s, Outcome* out) {
    char path[1024], err[512];
    mjModel* mm = mj_loadXML(model_path(s->path, path, sizeof(path)), NULL, err, sizeof(err));
    if (!mm) {
        fprintf(stderr, "%s: %s\n", s->name, err);
        return 1;
    }
    mm->opt.tolerance = SOLVER_TOL;
    mm->opt.cone = s->cone;
    mm->opt.jacobian = mjJAC_DENSE;
    mm->opt.solver = mjSOL_NEWTON;
    if (s->condim > 0) {
        for (int g = 0; g < mm->ngeom; g++) {
            mm->geom_condim[g] = s->condim;
        }
    }
    mjData* md = mj_makeData(mm);
    gdnModel* gm = gdn_model_from_mujoco(mm);
    gdnData* gd = NULL;
    int fail = !md || !gm || gdn_data_create(gm, &gd) != GDN_OK;
    if (fail) {
        fprintf(stderr, "%s: allocation failed\n", s->name);
    } else {
        // initial state
        if (mm->njnt > 0 && mm->jnt_type[0] == mjJNT_FREE && s->tilt != 0) {
            md->qpos[2] += 0.02;
            md->qpos[3] = cos(0.5 * s->tilt);
            md->qpos[4] = sin(0.5 * s->tilt);
        }
        if (mm->njnt > 0 && mm->jnt_type[0] == mjJNT_HINGE && s->qpos_hinge != 0) {
            md->qpos[0] = s->qpos_hinge;
        }
        for (int i = 0; i < 6 && i < mm->nv; i++) {
            md->qvel[i] = s->qvel0[i];
        }
        for (int k = 0; k < s->steps; k++) {
            mj_step(mm, md);
        }
        for (int i = 0; i < 6 && i < mm->nv; i++) {
            md->qvel[i] += s->push[i];
        }
        for (int k = 0; k < s->push_steps; k++) {
            mj_step(mm, md);
        }
        if (s->coldstart) {
            mm->opt.disableflags |= mjDSBL_WARMSTART;
        }
        if (s->iterations > 0) {
            mm->opt.iterations = s->iterations;
        }
        unsigned long long rng = 0x9e3779b97f4a7c15ull;
        for (int i = 0; s->kick > 0 && i < mm->nv; i++) {
            md->qvel[i] += gdn_test_uniform(&rng, -s->kick, s->kick);
        }
        // the oracle solve from the saved warm start
        double warm[128];
        if (mm->nv > 128) {
            fprintf(stderr, "%s: nv %d > 128\n", s->name, mm->nv);
            fail = 1;
        }
        memcpy(warm, md->qacc_warmstart, sizeof(double) * (size_t)(fail ? 0 : mm->nv));
        mj_forward(mm, md);
        // options changed after gm was copied from mm
        gm->opt.tolerance = mm->opt.tolerance;
        gm->opt.cone = mm->opt.cone;
        gm->opt.iterations = mm->opt.iterations;
        gm->opt.disableflags = mm->opt.disableflags;
        fail = fail || copy_problem(mm, md, gd);
        if (!fail) {
            memcpy(gd->qacc_warmstart, warm, sizeof(double) * (size_t)mm->nv);
            gdnStatus st = gdn_solve_constraint(gm, gd);
            if (st != GDN_OK) {
                fprintf(stderr, "%s: status %d\n", s->name, (int)st);
                fail = 1;
            }
            out->nefc = md->nefc;
            out->ncon = md->ncon;
            out->iter_mj = md->solver_iter;
            out->iter_gdn = gd->solver_iter;
            out->converged = gd->solver_converged;
            out->err_qacc = gdn_test_relerr(gd->qacc, md->qacc, mm->nv, 1e-6);
            out->err_force = gdn_test_relerr(gd->efc_force, md->efc_force, md->nefc, 1e-6);
            for (int i = 0; i < md->nefc; i++) {
                out->state_mismatch += gd->efc_state[i] != md->efc_state[i];
                if (gd->efc_state[i] >= 0 && gd->efc_state[i] < 5) {
                    out->nstate[gd->efc_state[i]]++;
                }
            }
            printf("  %-22s nefc %3d ncon %2d  iter mujoco %2d gradyn %2d  converged %d  "
                   "qacc %.2e  efc_force %.2e  residual %.2e\n",
                   s->name, out->nefc, out->ncon, out->iter_mj, out->iter_gdn, out->converged,
                   out->err_qacc, out->err_force, gd->solver_residual);
            if (s->timing && !fail) {
                print_timing(mm, md, gm, gd, warm);
            }
        }
    }
    gdn_data_free(gd);
    gdn_model_free(gm);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return fail;
}

// run a scene and require agreement with MuJoCo: qacc, efc_force, iteration count, row states
// (and active constraints, convergence)
static int check_scene_outcome(const Scene* s, Outcome* o) {
    CHECK(run_scene(s, o) == 0);
    CHECK(o->nefc > 0);
    CHECK(o->err_qacc <= MATCH_TOL);
    CHECK(o->err_force <= MATCH_TOL);
    CHECK(o->converged == 1);
    CHECK(o->iter_gdn == o->iter_mj);
    CHECK(o->state_mismatch == 0);
    return 0;
}

static int check_scene(const Scene* s) {
    Outcome o;
    memset(&o, 0, sizeof(o));
    return check_scene_outcome(s, &o);
}

#define HUMANOID GDN_ORACLE_MJ_HUMANOID

static int test_box_rest_pyramidal(void) {
    Scene s = {.name = "box rest pyramidal", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL,
               .steps = 400};
    return check_scene(&s);
}

static int test_box_rest_elliptic(void) {
    Scene s = {.name = "box rest elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 400};
    return check_scene(&s);
}

static int test_box_rest_elliptic_condim6(void) {
    Scene s = {.name = "box rest elliptic dim6", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 400, .condim = 6, .qvel0 = {0.3, 0, 0, 0, 0, 2}};
    return check_scene(&s);
}

static int test_box_slide_pyramidal(void) {
    Scene s = {.name = "box slide pyramidal", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL,
               .steps = 300, .push = {1, 0.3, 0, 0, 0, 0}};
    return check_scene(&s);
}

static int test_box_slide_elliptic(void) {
    Scene s = {.name = "box slide elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 300, .push = {1, 0.3, 0, 0, 0, 0}};
    return check_scene(&s);
}

static int test_box_slide_elliptic_condim4(void) {
    Scene s = {.name = "box slide elliptic dim4", .path = "sol_box.xml",
               .cone = mjCONE_ELLIPTIC, .steps = 300, .condim = 4,
               .push = {1, 0.3, 0, 0, 0, 2}};
    return check_scene(&s);
}

static int test_box_tip(void) {
    Scene s = {.name = "box tipping", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL,
               .steps = 60, .tilt = 0.5, .qvel0 = {0, 0, 0, 1.5, 0, 0}};
    return check_scene(&s);
}

static int test_box_tip_elliptic(void) {
    Scene s = {.name = "box tipping elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 60, .tilt = 0.5, .qvel0 = {0, 0, 0, 1.5, 0, 0}};
    return check_scene(&s);
}

static int test_stack(void) {
    Scene s = {.name = "five-box stack", .path = "sol_stack.xml", .cone = mjCONE_PYRAMIDAL,
               .steps = 300};
    return check_scene(&s);
}

static int test_stack_elliptic(void) {
    Scene s = {.name = "five-box stack ellip", .path = "sol_stack.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 300};
    return check_scene(&s);
}

// random velocity kicks on a resting stack: many rows change state inside the solve
static int test_stack_kicked(void) {
    Scene p = {.name = "stack kicked", .path = "sol_stack.xml", .steps = 300, .kick = 1};
    CHECK(check_scene(&p) == 0);
    Scene e = {.name = "stack kicked ellip", .path = "sol_stack.xml", .cone = mjCONE_ELLIPTIC,
               .steps = 300, .kick = 1};
    CHECK(check_scene(&e) == 0);
    Scene e6 = {.name = "stack kicked ellip dim6", .path = "sol_stack.xml",
                .cone = mjCONE_ELLIPTIC, .condim = 6, .steps = 300, .kick = 1};
    CHECK(check_scene(&e6) == 0);
    Scene c = {.name = "stack kicked cold", .path = "sol_stack.xml", .steps = 300, .kick = 1,
               .coldstart = 1};
    return check_scene(&c);
}

static int test_pendulum_limit(void) {
    Scene s = {.name = "pendulum at limit", .path = "sol_pendulum_limit.xml", .steps = 20,
               .qpos_hinge = 0.55, .qvel0 = {3}};
    return check_scene(&s);
}

static int test_fourbar(void) {
    Scene s = {.name = "four-bar connect", .path = "sol_fourbar.xml", .steps = 50,
               .qvel0 = {1}};
    return check_scene(&s);
}

// friction loss in both regimes: slow (quadratic rows, stiction) and fast (linear rows)
static int test_frictionloss(void) {
    Scene slow = {.name = "frictionloss slow", .path = "sol_frictionloss.xml", .steps = 1,
                  .qvel0 = {0.001, 0.002, -0.001}};
    Outcome o;
    memset(&o, 0, sizeof(o));
    CHECK(check_scene_outcome(&slow, &o) == 0);
    CHECK(o.nstate[GDN_CNSTRSTATE_QUADRATIC] > 0);
    Scene fast = {.name = "frictionloss fast", .path = "sol_frictionloss.xml", .steps = 30,
                  .qvel0 = {0.5, 2, -1}};
    memset(&o, 0, sizeof(o));
    CHECK(check_scene_outcome(&fast, &o) == 0);
    CHECK(o.nstate[GDN_CNSTRSTATE_LINEARNEG] + o.nstate[GDN_CNSTRSTATE_LINEARPOS] > 0);
    Scene mixed = {.name = "frictionloss cold", .path = "sol_frictionloss.xml", .steps = 30,
                   .qvel0 = {0.5, 2, -1}, .kick = 0.05, .coldstart = 1};
    memset(&o, 0, sizeof(o));
    return check_scene_outcome(&mixed, &o);
}

static int test_humanoid(void) {
    Scene s = {.name = "humanoid pyramidal", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL,
               .steps = 250};
    CHECK(check_scene(&s) == 0);
    Scene lying = {.name = "humanoid lying", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL,
                   .steps = 600};
    CHECK(check_scene(&lying) == 0);
    Scene kicked = {.name = "humanoid kicked", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL,
                    .steps = 600, .kick = 3, .timing = 1};
    return check_scene(&kicked);
}

static int test_humanoid_elliptic(void) {
    Scene s = {.name = "humanoid elliptic", .path = HUMANOID, .cone = mjCONE_ELLIPTIC,
               .steps = 250};
    CHECK(check_scene(&s) == 0);
    Scene lying = {.name = "humanoid lying ellip", .path = HUMANOID, .cone = mjCONE_ELLIPTIC,
                   .steps = 600};
    CHECK(check_scene(&lying) == 0);
    Scene kicked = {.name = "humanoid kicked ellip", .path = HUMANOID, .cone = mjCONE_ELLIPTIC,
                    .steps = 600, .kick = 3, .timing = 1};
    return check_scene(&kicked);
}

// cold start (mjDSBL_WARMSTART in both): same solution and iteration count
static int test_coldstart(void) {
    Scene s = {.name = "humanoid cold", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL,
               .steps = 250, .coldstart = 1};
    CHECK(check_scene(&s) == 0);
    Scene e = {.name = "humanoid cold elliptic", .path = HUMANOID, .cone = mjCONE_ELLIPTIC,
               .steps = 250, .coldstart = 1};
    CHECK(check_scene(&e) == 0);
    Scene b = {.name = "stack cold", .path = "sol_stack.xml", .steps = 300, .coldstart = 1};
    return check_scene(&b);
}

// one iteration from a cold start does not reach 1e-12: reported as not converged, with the
// same one-iteration iterate as MuJoCo's
static int test_unconverged_reported(void) {
    Scene s = {.name = "humanoid 1 iteration", .path = HUMANOID, .cone = mjCONE_ELLIPTIC,
               .steps = 600, .kick = 3, .coldstart = 1, .iterations = 1};
    Outcome o;
    memset(&o, 0, sizeof(o));
    CHECK(run_scene(&s, &o) == 0);
    CHECK(o.iter_gdn == 1);
    CHECK(o.iter_mj == 1);
    CHECK(o.converged == 0);
    CHECK(o.err_qacc <= MATCH_TOL);
    return 0;
}

// no rows: qacc = qacc_smooth, converged; non-finite rows: never a crash, never reported as
// converged with a non-finite qacc
static int test_degenerate(void) {
    char path[1024], err[512];
    mjModel* mm = mj_loadXML(model_path("sol_pendulum_limit.xml", path, sizeof(path)), NULL, err,
                             sizeof(err));
    CHECK(mm != NULL);
    mjData* md = mj_makeData(mm);
    gdnModel* gm = gdn_model_from_mujoco(mm);
    gdnData* gd = NULL;
    CHECK(md && gm && gdn_data_create(gm, &gd) == GDN_OK);
    md->qpos[0] = 0.7;
    md->qvel[0] = 1;
    mj_forward(mm, md);
    CHECK(md->nefc == 1);
    CHECK(copy_problem(mm, md, gd) == 0);
    gd->nefc = 0;
    CHECK(gdn_solve_constraint(gm, gd) == GDN_OK);
    CHECK(gd->solver_converged == 1 && gd->solver_iter == 0);
    CHECK(gd->qacc[0] == gd->qacc_smooth[0] && gd->qacc_warmstart[0] == gd->qacc_smooth[0]);
    gd->nefc = 1;
    gd->efc_aref[0] = NAN;
    gdnStatus st = gdn_solve_constraint(gm, gd);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    CHECK(isfinite(gd->qacc[0]));
    gd->efc_aref[0] = md->efc_aref[0];
    gd->qfrc_smooth[0] = INFINITY;
    st = gdn_solve_constraint(gm, gd);
    CHECK(st != GDN_OK || gd->solver_converged == 0);
    CHECK(st != GDN_OK || isfinite(gd->qacc[0]));
    gdn_data_free(gd);
    gdn_model_free(gm);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return 0;
}

static const gdnTestCase cases[] = {
    {"degenerate", test_degenerate},
    {"box_rest_pyramidal", test_box_rest_pyramidal},
    {"box_rest_elliptic", test_box_rest_elliptic},
    {"box_rest_elliptic_condim6", test_box_rest_elliptic_condim6},
    {"box_slide_pyramidal", test_box_slide_pyramidal},
    {"box_slide_elliptic", test_box_slide_elliptic},
    {"box_slide_elliptic_condim4", test_box_slide_elliptic_condim4},
    {"box_tip", test_box_tip},
    {"box_tip_elliptic", test_box_tip_elliptic},
    {"stack", test_stack},
    {"stack_elliptic", test_stack_elliptic},
    {"stack_kicked", test_stack_kicked},
    {"pendulum_limit", test_pendulum_limit},
    {"fourbar", test_fourbar},
    {"frictionloss", test_frictionloss},
    {"humanoid", test_humanoid},
    {"humanoid_elliptic", test_humanoid_elliptic},
    {"coldstart", test_coldstart},
    {"unconverged_reported", test_unconverged_reported},
};

GDN_TEST_MAIN(cases)
