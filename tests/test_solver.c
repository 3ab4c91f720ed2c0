// SPDX-License-Identifier: Apache-2.0
// Newton constraint solver vs MuJoCo 2.2.2 on MuJoCo's own constraint rows (collision and rows
// isolated): same qacc, efc_force and iteration counts at tolerance 1e-12.
//
// Each case steps a scene in MuJoCo to a state with active constraints, saves qacc_warmstart,
// runs mj_forward (the oracle solve), then copies MuJoCo's rows (efc_J dense, efc_aref, efc_D,
// efc_R, efc_type, efc_id, efc_frictionloss), contacts (dim, mu, friction), dense M, qacc_smooth,
// qfrc_smooth and the saved warm start into our data and runs gdn_solve_constraint
// (tests/oracle/solver_problem.h, shared with test_solver_cg). The scenes are
// tests/oracle/solver_scenes.c's, shared with the CG and PGS tests.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "constraint/solver.h"
#include "oracle/from_mujoco.h"
#include "oracle/oracle.h"
#include "oracle/solver_problem.h"
#include "oracle/solver_scenes.h"
#include "runner/test.h"

#define MATCH_TOL 1e-8 // relative agreement of qacc and efc_force (solver tolerance 1e-12)

typedef gdnSolverScene Scene;
typedef gdnSolverOutcome Outcome;

// Newton in both engines
static int run_scene(const Scene* s, Outcome* out) {
    return gdn_oracle_solver_run(s, mjSOL_NEWTON, GDN_SOL_NEWTON, out);
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

// check_scene on the shared scene with this name (tests/oracle/solver_scenes.c), timed when
// timing is 1
static int check_named(const char* name, int timing) {
    const Scene* shared = gdn_oracle_solver_scene(name);
    CHECK(shared != NULL);
    Scene s = *shared;
    s.timing = timing;
    return check_scene(&s);
}

#define HUMANOID GDN_ORACLE_MJ_HUMANOID

static int test_box_rest_pyramidal(void) {
    return check_named("box rest pyramidal", 0);
}

static int test_box_rest_elliptic(void) {
    return check_named("box rest elliptic", 0);
}

static int test_box_rest_elliptic_condim6(void) {
    return check_named("box rest elliptic dim6", 0);
}

static int test_box_slide_pyramidal(void) {
    return check_named("box slide pyramidal", 0);
}

static int test_box_slide_elliptic(void) {
    return check_named("box slide elliptic", 0);
}

static int test_box_slide_elliptic_condim4(void) {
    return check_named("box slide elliptic dim4", 0);
}

static int test_box_tip(void) {
    return check_named("box tipping", 0);
}

static int test_box_tip_elliptic(void) {
    return check_named("box tipping elliptic", 0);
}

static int test_stack(void) {
    return check_named("five-box stack", 0);
}

static int test_stack_elliptic(void) {
    return check_named("five-box stack ellip", 0);
}

// random velocity kicks on a resting stack: many rows change state inside the solve
static int test_stack_kicked(void) {
    CHECK(check_named("stack kicked", 0) == 0);
    CHECK(check_named("stack kicked ellip", 0) == 0);
    CHECK(check_named("stack kicked ellip dim6", 0) == 0);
    return check_named("stack kicked cold", 0);
}

static int test_pendulum_limit(void) {
    return check_named("pendulum at limit", 0);
}

static int test_fourbar(void) {
    return check_named("four-bar connect", 0);
}

// friction loss in both regimes: slow (quadratic rows, stiction) and fast (linear rows)
static int test_frictionloss(void) {
    const Scene* slow = gdn_oracle_solver_scene("frictionloss slow");
    const Scene* fast = gdn_oracle_solver_scene("frictionloss fast");
    CHECK(slow != NULL && fast != NULL);
    Outcome o;
    memset(&o, 0, sizeof(o));
    CHECK(check_scene_outcome(slow, &o) == 0);
    CHECK(o.nstate[GDN_CNSTRSTATE_QUADRATIC] > 0);
    memset(&o, 0, sizeof(o));
    CHECK(check_scene_outcome(fast, &o) == 0);
    CHECK(o.nstate[GDN_CNSTRSTATE_LINEARNEG] + o.nstate[GDN_CNSTRSTATE_LINEARPOS] > 0);
    return check_named("frictionloss cold", 0);
}

static int test_humanoid(void) {
    CHECK(check_named("humanoid pyramidal", 0) == 0);
    CHECK(check_named("humanoid lying", 0) == 0);
    return check_named("humanoid kicked", 1);
}

static int test_humanoid_elliptic(void) {
    CHECK(check_named("humanoid elliptic", 0) == 0);
    CHECK(check_named("humanoid lying ellip", 0) == 0);
    return check_named("humanoid kicked ellip", 1);
}

// cold start (mjDSBL_WARMSTART in both): same solution and iteration count
static int test_coldstart(void) {
    CHECK(check_named("humanoid cold", 0) == 0);
    CHECK(check_named("humanoid cold elliptic", 0) == 0);
    return check_named("stack cold", 0);
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
    gdn_oracle_solver_model_path("sol_pendulum_limit.xml", path, sizeof(path));
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    CHECK(mm != NULL);
    mjData* md = mj_makeData(mm);
    gdnModel* gm = gdn_model_from_mujoco(mm);
    gdnData* gd = NULL;
    CHECK(md && gm && gdn_data_create(gm, &gd) == GDN_OK);
    md->qpos[0] = 0.7;
    md->qvel[0] = 1;
    mj_forward(mm, md);
    CHECK(md->nefc == 1);
    CHECK(gdn_oracle_solver_copy(mm, md, gd) == 0);
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
