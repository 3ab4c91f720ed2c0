// SPDX-License-Identifier: Apache-2.0
// Newton constraint solver vs MuJoCo 2.2.2 on MuJoCo's own constraint rows (collision and rows
// isolated): same qacc, efc_force and iteration counts at tolerance 1e-12.
//
// Each case steps a scene in MuJoCo to a state with active constraints, saves qacc_warmstart,
// runs mj_forward (the oracle solve), then copies MuJoCo's rows (efc_J dense, efc_aref, efc_D,
// efc_R, efc_type, efc_id, efc_frictionloss), contacts (dim, mu, friction), dense M, qacc_smooth,
// qfrc_smooth and the saved warm start into our data and runs gdn_solve_constraint
// (tests/oracle/solver_problem.h, shared with test_solver_cg).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "constraint/solver.h"
#include "oracle/from_mujoco.h"
#include "oracle/oracle.h"
#include "oracle/solver_problem.h"
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
