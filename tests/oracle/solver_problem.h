// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's constraint problem at a scene's state given to our solver (solver tests).
#ifndef GDN_TEST_ORACLE_SOLVER_PROBLEM_H
#define GDN_TEST_ORACLE_SOLVER_PROBLEM_H

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

// the largest nv of a scene (the saved warm start)
#define GDN_ORACLE_SOLVER_MAXNV 128

// a scene: model file, steps before the compared solve, initial state tweak, options
typedef struct gdnSolverScene {
    const char* name;
    const char* path;  // under tests/models, or absolute
    int cone;          // mjCONE_*
    int steps;         // mj_step calls before the compared solve
    int condim;        // > 0: every geom's condim
    int coldstart;     // 1: mjDSBL_WARMSTART in both engines
    int iterations;    // solver iterations in both engines (0: MuJoCo's default 100)
    double qvel0[6];   // initial qvel of the first 6 dofs (free body: v world, w local)
    double tilt;       // initial rotation about x of the first free body (rad)
    double qpos_hinge; // initial qpos[0] when the first joint is a hinge (nonzero only)
    double push[6];    // added to the first 6 qvel after the steps, then push_steps more steps
    int push_steps;
    double kick;       // > 0: after stepping, every qvel += uniform(-kick, kick) (a hard solve)
    int timing;        // 1: also time our solve and MuJoCo's mj_fwdConstraint (printed only)
    double tolerance;  // solver tolerance in both engines (0: 1e-12)
} gdnSolverScene;

// one comparison of our solve with MuJoCo's
typedef struct gdnSolverOutcome {
    int nefc, ncon;
    int iter_mj, iter_gdn;
    int converged;
    int state_mismatch; // rows whose efc_state differs from MuJoCo's
    int nstate[5];      // rows per gdnConstraintState at our solution
    double err_qacc;    // ||qacc - MuJoCo's||_inf / max(||MuJoCo's||_inf, 1e-6)
    double err_force;   // the same for efc_force
    double residual;    // our solver_residual
} gdnSolverOutcome;

// both engines at a scene's compared state: MuJoCo has solved (mj_forward), gd holds MuJoCo's
// problem (rows, contacts, dense M, qacc_smooth, qfrc_smooth) and gm MuJoCo's options
typedef struct gdnSolverProblem {
    const gdnSolverScene* scene;
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
    double warm[GDN_ORACLE_SOLVER_MAXNV]; // qacc_warmstart before MuJoCo's solve
} gdnSolverProblem;

// tests/models/file (or file itself when absolute) into buf
char* gdn_oracle_solver_model_path(const char* file, char* buf, size_t n);

// copy MuJoCo's rows (nefc, ne, nf, efc_J dense, efc_aref, efc_D, efc_R, efc_frictionloss,
// efc_type, efc_id), contacts (dim, mu, friction), dense M, qacc_smooth and qfrc_smooth into gd;
// 1 (printed) when nefc or ncon exceed gd's capacity
int gdn_oracle_solver_copy(const mjModel* mm, const mjData* md, gdnData* gd);

// step the scene in MuJoCo with solver (mjSOL_*), save the warm start, solve with mj_forward,
// copy the problem into our data; 0 on success, else printed and p closed
int gdn_oracle_solver_open(const gdnSolverScene* s, int solver, gdnSolverProblem* p);

// our solve of the problem with solver (GDN_SOL_*) from MuJoCo's saved warm start
gdnStatus gdn_oracle_solver_solve(gdnSolverProblem* p, int solver);

// our current solution compared with MuJoCo's, printed as one line under the scene's name
void gdn_oracle_solver_compare(const gdnSolverProblem* p, gdnSolverOutcome* out);

// microseconds per solve, ours (solver GDN_SOL_*) vs mj_fwdConstraint, printed
void gdn_oracle_solver_timing(gdnSolverProblem* p, int solver);

void gdn_oracle_solver_close(gdnSolverProblem* p);

// open with MuJoCo's solver mj_solver, solve with ours (gdn_solver), compare (and time when
// the scene asks), close; 0 on success
int gdn_oracle_solver_run(const gdnSolverScene* s, int mj_solver, int gdn_solver,
                          gdnSolverOutcome* out);

#endif
