// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's constraint problem at a scene's state given to our solver (solver tests).
#define _POSIX_C_SOURCE 199309L // clock_gettime

#include "oracle/solver_problem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "constraint/solver.h"
#include "oracle/from_mujoco.h"
#include "runner/test.h"

// the solver tolerance of a scene that sets none
#define DEFAULT_TOL 1e-12

char* gdn_oracle_solver_model_path(const char* file, char* buf, size_t n) {
    if (file[0] == '/') {
        snprintf(buf, n, "%s", file);
    } else {
        snprintf(buf, n, "%s/%s", GDN_TEST_MODELS, file);
    }
    return buf;
}

int gdn_oracle_solver_copy(const mjModel* mm, const mjData* md, gdnData* gd) {
    const int nv = mm->nv, nefc = md->nefc;
    if (nefc > gd->maxefc || md->ncon > gd->maxcon) {
        fprintf(stderr, "problem too large: nefc %d (max %d), ncon %d\n", nefc, gd->maxefc,
                md->ncon);
        return 1;
    }
    gd->nefc = nefc;
    gd->ne = md->ne;
    gd->nf = md->nf;
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

void gdn_oracle_solver_close(gdnSolverProblem* p) {
    gdn_data_free(p->gd);
    gdn_model_free(p->gm);
    if (p->md) {
        mj_deleteData(p->md);
    }
    if (p->mm) {
        mj_deleteModel(p->mm);
    }
    memset(p, 0, sizeof(*p));
}

// the scene's initial state, steps, push and kick in MuJoCo's data
static void prepare_state(const gdnSolverScene* s, mjModel* mm, mjData* md) {
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
}

int gdn_oracle_solver_open(const gdnSolverScene* s, int solver, gdnSolverProblem* p) {
    char path[1024], err[512];
    memset(p, 0, sizeof(*p));
    p->scene = s;
    p->mm = mj_loadXML(gdn_oracle_solver_model_path(s->path, path, sizeof(path)), NULL, err,
                       sizeof(err));
    if (!p->mm) {
        fprintf(stderr, "%s: %s\n", s->name, err);
        return 1;
    }
    mjModel* mm = p->mm;
    mm->opt.tolerance = s->tolerance > 0 ? s->tolerance : DEFAULT_TOL;
    mm->opt.cone = s->cone;
    mm->opt.jacobian = mjJAC_DENSE;
    mm->opt.solver = solver;
    if (s->condim > 0) {
        for (int g = 0; g < mm->ngeom; g++) {
            mm->geom_condim[g] = s->condim;
        }
    }
    p->md = mj_makeData(mm);
    p->gm = gdn_model_from_mujoco(mm);
    if (!p->md || !p->gm || gdn_data_create(p->gm, &p->gd) != GDN_OK) {
        fprintf(stderr, "%s: allocation failed\n", s->name);
        gdn_oracle_solver_close(p);
        return 1;
    }
    if (mm->nv > GDN_ORACLE_SOLVER_MAXNV) {
        fprintf(stderr, "%s: nv %d > %d\n", s->name, mm->nv, GDN_ORACLE_SOLVER_MAXNV);
        gdn_oracle_solver_close(p);
        return 1;
    }
    prepare_state(s, mm, p->md);
    // the oracle solve from the saved warm start
    memcpy(p->warm, p->md->qacc_warmstart, sizeof(double) * (size_t)mm->nv);
    mj_forward(mm, p->md);
    // options changed after gm was copied from mm
    p->gm->opt.tolerance = mm->opt.tolerance;
    p->gm->opt.cone = mm->opt.cone;
    p->gm->opt.iterations = mm->opt.iterations;
    p->gm->opt.disableflags = mm->opt.disableflags;
    if (gdn_oracle_solver_copy(mm, p->md, p->gd)) {
        gdn_oracle_solver_close(p);
        return 1;
    }
    return 0;
}

gdnStatus gdn_oracle_solver_solve(gdnSolverProblem* p, int solver) {
    p->gm->opt.solver = solver;
    memcpy(p->gd->qacc_warmstart, p->warm, sizeof(double) * (size_t)p->mm->nv);
    return gdn_solve_constraint(p->gm, p->gd);
}

void gdn_oracle_solver_compare(const gdnSolverProblem* p, gdnSolverOutcome* out) {
    const mjData* md = p->md;
    const gdnData* gd = p->gd;
    memset(out, 0, sizeof(*out));
    out->nefc = md->nefc;
    out->ncon = md->ncon;
    out->iter_mj = md->solver_iter;
    out->iter_gdn = gd->solver_iter;
    out->converged = gd->solver_converged;
    out->residual = gd->solver_residual;
    out->err_qacc = gdn_test_relerr(gd->qacc, md->qacc, p->mm->nv, 1e-6);
    out->err_force = gdn_test_relerr(gd->efc_force, md->efc_force, md->nefc, 1e-6);
    for (int i = 0; i < md->nefc; i++) {
        out->state_mismatch += gd->efc_state[i] != md->efc_state[i];
        if (gd->efc_state[i] >= 0 && gd->efc_state[i] < 5) {
            out->nstate[gd->efc_state[i]]++;
        }
    }
    printf("  %-22s nefc %3d ncon %2d  iter mujoco %2d gradyn %2d  converged %d  "
           "qacc %.2e  efc_force %.2e  residual %.2e\n",
           p->scene->name, out->nefc, out->ncon, out->iter_mj, out->iter_gdn, out->converged,
           out->err_qacc, out->err_force, out->residual);
}

// seconds of CLOCK_MONOTONIC
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void gdn_oracle_solver_timing(gdnSolverProblem* p, int solver) {
    const int reps = 2000, nv = p->mm->nv;
    p->gm->opt.solver = solver;
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        memcpy(p->gd->qacc_warmstart, p->warm, sizeof(double) * (size_t)nv);
        gdn_solve_constraint(p->gm, p->gd);
    }
    double t1 = now();
    for (int r = 0; r < reps; r++) {
        memcpy(p->md->qacc_warmstart, p->warm, sizeof(double) * (size_t)nv);
        mj_fwdConstraint(p->mm, p->md);
    }
    double t2 = now();
    printf("  %-22s solve time: gradyn %.2f us, MuJoCo mj_fwdConstraint %.2f us\n", "",
           1e6 * (t1 - t0) / reps, 1e6 * (t2 - t1) / reps);
}

int gdn_oracle_solver_run(const gdnSolverScene* s, int mj_solver, int gdn_solver,
                          gdnSolverOutcome* out) {
    gdnSolverProblem p;
    memset(out, 0, sizeof(*out));
    if (gdn_oracle_solver_open(s, mj_solver, &p)) {
        return 1;
    }
    gdnStatus st = gdn_oracle_solver_solve(&p, gdn_solver);
    if (st != GDN_OK) {
        fprintf(stderr, "%s: status %d\n", s->name, (int)st);
        gdn_oracle_solver_close(&p);
        return 1;
    }
    gdn_oracle_solver_compare(&p, out);
    if (s->timing) {
        gdn_oracle_solver_timing(&p, gdn_solver);
    }
    gdn_oracle_solver_close(&p);
    return 0;
}
