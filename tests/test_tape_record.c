// SPDX-License-Identifier: Apache-2.0
// The tape's step records: rollouts on constrained models record bit for bit what a gdn_step
// loop leaves in gdnData after each step (the integrated acceleration, the contacts, the rows'
// types, ids, states and forces, the warm start, the solver report, the Newton factor), with a
// full tape and with checkpointing (the forward pass's segment ends, and every step again when
// a segment is replayed from its checkpoint); a too-small solve reserve fails with
// GDN_ERR_MEMORY naming the step and the bytes; the bytes accounting adds up; the constrained
// gradient is still refused and the unconstrained one is unchanged by checkpointing.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "gradient/rollout.h"
#include "gradient/tape.h"
#include "penalty/penalty.h"
#include "runner/models.h"
#include "runner/skins.h"
#include "runner/test.h"

#define T_STEPS 150

// terminal cost |v_T|^2 (gradient in tangent coordinates)
static gdnStatus terminal_vel(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)t;
    (void)user;
    (void)gq;
    (void)gu;
    double sum = 0;
    for (int i = 0; i < m->nv; i++) {
        sum += s->qvel[i] * s->qvel[i];
        if (gv) {
            gv[i] = 2 * s->qvel[i];
        }
    }
    *value = sum;
    return GDN_OK;
}

// a rollout of T steps from the model's qpos0 at rest, controls drawn once
typedef struct Problem {
    gdnModel* m;
    gdnRollout r;
    gdnObjective obj;
    double* qvel0;
    double* ctrl;
} Problem;

static int problem_init(Problem* p, const char* file, int T) {
    memset(p, 0, sizeof(*p));
    p->m = gdn_test_load_model_as_is(file);
    if (!p->m) {
        return 1;
    }
    const int nv = p->m->nv, nu = p->m->nu;
    p->qvel0 = calloc((size_t)nv + 1, sizeof(double));
    p->ctrl = calloc((size_t)T * (size_t)nu + 1, sizeof(double));
    unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < T * nu; i++) {
        p->ctrl[i] = gdn_test_uniform(&rng, -0.4, 0.4);
    }
    gdn_rollout_init(p->m, T, &p->r);
    p->r.qpos0 = p->m->qpos0;
    p->r.qvel0 = p->qvel0;
    p->r.ctrl = nu > 0 ? p->ctrl : NULL;
    p->obj.terminal.fn = terminal_vel;
    p->obj.terminal.grad_tangent = 1;
    return 0;
}

static void problem_free(Problem* p) {
    free(p->qvel0);
    free(p->ctrl);
    gdn_model_free(p->m);
}

static int same(const void* a, const void* b, size_t bytes) {
    return bytes == 0 || memcmp(a, b, bytes) == 0;
}

// every field of two contacts bit for bit (not the struct's padding)
static int same_contact(const gdnContact* a, const gdnContact* b) {
    return same(&a->dist, &b->dist, sizeof(double)) && same(a->pos, b->pos, sizeof(a->pos)) &&
           same(a->frame, b->frame, sizeof(a->frame)) &&
           same(&a->includemargin, &b->includemargin, sizeof(double)) &&
           same(a->friction, b->friction, sizeof(a->friction)) &&
           same(a->solref, b->solref, sizeof(a->solref)) &&
           same(a->solimp, b->solimp, sizeof(a->solimp)) && same(&a->mu, &b->mu, sizeof(double)) &&
           a->dim == b->dim && a->geom1 == b->geom1 && a->geom2 == b->geom2 &&
           a->exclude == b->exclude && a->efc_address == b->efc_address;
}

// rec == what gdn_step left in d, bit for bit; with_factor: the tape records factors
static int check_record(const gdnModel* m, const gdnData* d, const gdnTapeStep* rec, int t,
                        int with_factor) {
    const size_t nv = (size_t)m->nv, nefc = (size_t)d->nefc, ncon = (size_t)d->ncon;
    CHECK(rec->t == t);
    CHECK(same(rec->qacc, d->qacc, sizeof(double) * nv));
    CHECK(rec->ncon == d->ncon && rec->nefc == d->nefc && rec->ne == d->ne && rec->nf == d->nf);
    CHECK(rec->solver_iter == d->solver_iter && rec->solver_converged == d->solver_converged);
    CHECK(same(&rec->solver_residual, &d->solver_residual, sizeof(double)));
    if (ncon == 0 && nefc == 0) {
        CHECK(rec->contact == NULL && rec->efc_force == NULL && rec->qacc_warmstart == NULL);
        CHECK(rec->bytes == sizeof(double) * nv && !rec->factor_valid);
        return 0;
    }
    CHECK(same(rec->qacc_warmstart, d->qacc_warmstart, sizeof(double) * nv));
    for (size_t i = 0; i < ncon; i++) {
        CHECK(same_contact(&rec->contact[i], &d->contact[i]));
    }
    CHECK(same(rec->efc_force, d->efc_force, sizeof(double) * nefc));
    CHECK(same(rec->efc_type, d->efc_type, sizeof(int) * nefc));
    CHECK(same(rec->efc_id, d->efc_id, sizeof(int) * nefc));
    CHECK(same(rec->efc_state, d->efc_state, sizeof(int) * nefc));
    CHECK(rec->factor_valid == (with_factor && nefc > 0 && d->solver_H_valid));
    if (rec->factor_valid) {
        // the envelope of each row of L, and it is all of L's nonzero lower triangle
        const double* L = rec->factor;
        for (size_t i = 0; i < nv; i++) {
            const int first = rec->factor_first[i];
            CHECK(first == d->solver_H_first[i] && first >= 0 && (size_t)first <= i);
            const double* row = d->solver_H + i * nv;
            CHECK(same(L, row + first, sizeof(double) * (i + 1 - (size_t)first)));
            for (int j = 0; j < first; j++) {
                CHECK(row[j] == 0);
            }
            L += i + 1 - (size_t)first;
        }
        CHECK(rec->bytes - sizeof(double) * nv <= gdn_tape_solve_bytes(m, d->ncon, d->nefc, 1));
    } else {
        CHECK(rec->factor == NULL && rec->factor_first == NULL);
        CHECK(rec->bytes - sizeof(double) * nv == gdn_tape_solve_bytes(m, d->ncon, d->nefc, 0));
    }
    return 0;
}

// bytes_used == the fixed part + the solve blocks of every record the tape holds now
static int check_accounting(const gdnModel* m, const gdnTape* tape, size_t reserve) {
    size_t blocks = 0;
    for (int t = 0; t < tape->nstep; t++) {
        gdnTapeStep rec;
        if (gdn_tape_step(tape, t, &rec) == GDN_OK) {
            blocks += rec.bytes - sizeof(double) * (size_t)m->nv;
        }
    }
    CHECK(gdn_tape_bytes_used(tape) == gdn_tape_state_bytes(tape) - reserve + blocks);
    CHECK(gdn_tape_bytes_used(tape) <= gdn_tape_state_bytes(tape));
    return 0;
}

// a gdn_step loop from a fresh gdnData: reset to x_0 (qpos0 normalized, at rest)
static void ref_start(const gdnModel* m, gdnData* d) {
    gdn_data_reset(m, d);
    gdn_normalize_quat(m, d->qpos);
}

static int ref_step(const Problem* p, gdnData* d, int t) {
    const int nu = p->m->nu;
    memcpy(d->ctrl, p->ctrl + (size_t)t * (size_t)nu, sizeof(double) * (size_t)nu);
    CHECK(gdn_step(p->m, d) == GDN_OK);
    return 0;
}

// x_t in d == buffer x (qpos, qvel)
static int same_state(const gdnModel* m, const gdnData* d, const double* x) {
    return same(x, d->qpos, sizeof(double) * (size_t)m->nq) &&
           same(x + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
}

// One model: rollouts with K = 1 and K = 7 (with and without the factor) against a gdn_step
// loop from a fresh gdnData; with K = 7 also every segment replayed from its checkpoint
static int check_model(const char* file, int solver, int cone, int need_contacts) {
    Problem p;
    CHECK(problem_init(&p, file, T_STEPS) == 0);
    gdnModel* m = p.m;
    if (solver >= 0) {
        m->opt.solver = solver;
        m->opt.cone = cone;
    }
    const int T = T_STEPS, nq = m->nq, nv = m->nv;
    char err[512];
    gdnData* ref = NULL;
    CHECK(gdn_data_create(m, &ref) == GDN_OK);
    double* xq = calloc((size_t)(nq + nv), sizeof(double));
    int Ks[] = {1, 7, 1, 7};
    for (int k = 0; k < 4; k++) {
        const int K = Ks[k], with_factor = k >= 2;
        gdnTapeOptions opt;
        gdn_tape_options_init(m, T, K, &opt);
        opt.record_factor = with_factor;
        gdnTape* tape = NULL;
        CHECK(gdn_tape_create_opt(m, &opt, &tape, err, sizeof(err)) == GDN_OK);
        const size_t reserve = gdn_tape_state_bytes(tape) - gdn_tape_bytes_used(tape);
        double J = 0, J2 = 0;
        // twice: the second rollout starts from a zero warm start again
        CHECK(gdn_rollout_objective(m, &p.r, &p.obj, tape, &J, err, sizeof(err)) == GDN_OK);
        CHECK(gdn_rollout_objective(m, &p.r, &p.obj, tape, &J2, err, sizeof(err)) == GDN_OK);
        CHECK(same(&J, &J2, sizeof(double)));
        // the forward pass's records and states
        int nrec = 0, ncon_total = 0, nefc_total = 0, factors = 0;
        ref_start(m, ref);
        for (int t = 0; t <= T; t++) {
            gdnStatus st = gdn_tape_state(tape, t, xq, xq + nq);
            CHECK((st == GDN_OK) == (t % K == 0 || t == T));
            CHECK(st != GDN_OK || same_state(m, ref, xq));
            if (t == T) {
                break;
            }
            CHECK(ref_step(&p, ref, t) == 0);
            ncon_total += ref->ncon;
            nefc_total += ref->nefc;
            factors += ref->solver_H_valid;
            gdnTapeStep rec;
            const int t1 = (t / K) * K + K < T ? (t / K) * K + K : T;
            const int held = K == 1 || t == t1 - 1;
            CHECK((gdn_tape_step(tape, t, &rec) == GDN_OK) == held);
            if (held) {
                CHECK(check_record(m, ref, &rec, t, with_factor) == 0);
                nrec++;
            }
        }
        CHECK(nefc_total > 0 && (!need_contacts || ncon_total > 0));
        CHECK(check_accounting(m, tape, reserve) == 0);
        const size_t used_forward = gdn_tape_bytes_used(tape);
        // every segment replayed from its checkpoint: the same states and records
        ref_start(m, ref);
        for (int s = 0; K > 1 && s < (T + K - 1) / K; s++) {
            CHECK(gdn_rollout_replay(m, &p.r, tape, s, err, sizeof(err)) == GDN_OK);
            const int t0 = s * K, t1 = t0 + K < T ? t0 + K : T;
            for (int t = t0; t < t1; t++) {
                if (t > t0) {
                    CHECK(same_state(m, ref,
                                     tape->segment + (size_t)(t - t0 - 1) * (size_t)(nq + nv)));
                }
                CHECK(ref_step(&p, ref, t) == 0);
                gdnTapeStep rec;
                CHECK(gdn_tape_step(tape, t, &rec) == GDN_OK);
                CHECK(check_record(m, ref, &rec, t, with_factor) == 0);
            }
            CHECK(check_accounting(m, tape, reserve) == 0);
            CHECK(gdn_tape_bytes_used(tape) >= used_forward);
        }
        // the gradient through the recorded solves: computed (test_adjoint checks the values);
        // PGS on elliptic cones stops short of tolerance on the stack (100 iterations), which
        // the adjoint refuses naming the step
        gdnAdjointGradients g = {0};
        g.qvel0 = xq;
        gdnStatus gst = gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, tape, &g, err, sizeof(err));
        if (solver == GDN_SOL_PGS && cone == GDN_CONE_ELLIPTIC) {
            CHECK(gst == GDN_ERR_UNCONVERGED && strstr(err, "step ") != NULL &&
                  strstr(err, "did not converge") != NULL);
        } else {
            CHECK(gst == GDN_OK);
        }
        printf("  %-14s %-6s K = %d%s: %3d records bit-identical to gdn_step (%d contacts, "
               "%d rows in %d steps, %d factors)%s; %zu of %zu bytes used\n",
               file, solver < 0 ? "" : (cone == GDN_CONE_ELLIPTIC ? "ellip." : "pyram."), K,
               with_factor ? " + factor" : "         ", nrec, ncon_total, nefc_total, T, factors,
               K > 1 ? ", every segment replayed bit-identical" : "", used_forward,
               gdn_tape_state_bytes(tape));
        gdn_tape_free(tape);
    }
    free(xq);
    gdn_data_free(ref);
    problem_free(&p);
    return 0;
}

static int test_sol_stack(void) {
    return check_model("sol_stack.xml", -1, 0, 1);
}

static int test_cnstr_weld(void) {
    return check_model("cnstr_weld.xml", -1, 0, 0);
}

static int test_humanoid32(void) {
    return check_model("humanoid32.xml", -1, 0, 1);
}

// the elliptic cone (cone Hessians in the factor) and the other solvers (no factor)
static int test_solvers(void) {
    CHECK(check_model("humanoid32.xml", GDN_SOL_NEWTON, GDN_CONE_ELLIPTIC, 1) == 0);
    CHECK(check_model("sol_stack.xml", GDN_SOL_CG, GDN_CONE_PYRAMIDAL, 1) == 0);
    CHECK(check_model("sol_stack.xml", GDN_SOL_PGS, GDN_CONE_ELLIPTIC, 1) == 0);
    return 0;
}

// A reserve too small for the rollout's solves: GDN_ERR_MEMORY naming the first step that does
// not fit and the bytes its solve needs; nothing recorded, the gradient fails the same way
static int test_small_reserve(void) {
    Problem p;
    CHECK(problem_init(&p, "sol_stack.xml", T_STEPS) == 0);
    gdnModel* m = p.m;
    const int T = T_STEPS, K = 7;
    const int nslot = (T + K - 1) / K + K - 1;
    char err[512], want[128];
    // the block sizes of the segment ends, from a gdn_step loop
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    size_t* block = calloc((size_t)T, sizeof(size_t));
    for (int t = 0; t < T; t++) {
        memcpy(d->ctrl, p.ctrl + (size_t)t * (size_t)m->nu, sizeof(double) * (size_t)m->nu);
        CHECK(gdn_step(m, d) == GDN_OK);
        block[t] = gdn_tape_solve_bytes(m, d->ncon, d->nefc, 0);
    }
    const size_t per_slots[] = {0, 64, 1000};
    for (int i = 0; i < 3; i++) {
        gdnTapeOptions opt;
        gdn_tape_options_init(m, T, K, &opt);
        opt.solve_bytes_per_step = per_slots[i];
        gdnTape* tape = NULL;
        CHECK(gdn_tape_create_opt(m, &opt, &tape, err, sizeof(err)) == GDN_OK);
        const size_t reserve = (size_t)nslot * per_slots[i];
        CHECK(gdn_tape_state_bytes(tape) - gdn_tape_bytes_used(tape) == reserve);
        // the first segment end whose block does not fit in what is left
        size_t used = 0;
        int fail = -1;
        for (int t0 = 0; t0 < T && fail < 0; t0 += K) {
            const int t = (t0 + K < T ? t0 + K : T) - 1;
            if (used + block[t] > reserve) {
                fail = t;
            } else {
                used += block[t];
            }
        }
        CHECK(fail >= 0);
        double J = 0;
        CHECK(gdn_rollout_objective(m, &p.r, &p.obj, tape, &J, err, sizeof(err)) ==
              GDN_ERR_MEMORY);
        CHECK(isnan(J));
        snprintf(want, sizeof(want), "step %d: ", fail);
        CHECK(strstr(err, want) == err);
        snprintf(want, sizeof(want), "needs %zu bytes, %zu of %zu", block[fail], reserve - used,
                 reserve);
        if (!strstr(err, want)) {
            fprintf(stderr, "message '%s' lacks '%s'\n", err, want);
            return 1;
        }
        printf("  reserve %4zu bytes per slot: %s\n", per_slots[i], err);
        gdnTapeStep rec;
        CHECK(gdn_tape_step(tape, fail, &rec) == GDN_ERR_ARG);
        CHECK(gdn_tape_state(tape, 0, NULL, NULL) == GDN_ERR_ARG);
        CHECK(gdn_tape_bytes_used(tape) == gdn_tape_state_bytes(tape) - reserve);
        gdnAdjointGradients g = {0};
        CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, tape, &g, err, sizeof(err)) ==
              GDN_ERR_MEMORY);
        CHECK(strstr(err, "solve reserve") != NULL);
        gdn_tape_free(tape);
    }
    free(block);
    gdn_data_free(d);
    problem_free(&p);
    return 0;
}

// Bytes: the default reserve, the cap at the data's capacity, an unconstrained rollout takes no
// solve bytes, and the argument errors
static int test_bytes(void) {
    gdnModel* m = gdn_test_load_model_as_is("sol_stack.xml");
    CHECK(m);
    const size_t nv = (size_t)m->nv;
    // a block's size
    CHECK(gdn_tape_solve_bytes(m, 0, 0, 0) == 0 && gdn_tape_solve_bytes(m, 0, 0, 1) == 0);
    CHECK(gdn_tape_solve_bytes(m, 2, 5, 0) ==
          ((8 * nv + 2 * sizeof(gdnContact) + 20 * 5 + 7) & ~(size_t)7));
    CHECK(gdn_tape_solve_bytes(m, 2, 5, 1) ==
          ((8 * nv + 2 * sizeof(gdnContact) + 20 * 5 + 4 * nv * (nv + 1) + 4 * nv + 7) &
           ~(size_t)7));
    CHECK(gdn_tape_solve_bytes(NULL, 1, 1, 0) == 0 && gdn_tape_solve_bytes(m, -1, 1, 0) == 0);
    // a reserve asked beyond what any step can leave is capped there (no overflow)
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdnTapeOptions opt;
    gdn_tape_options_init(m, 100, 1, &opt);
    opt.solve_bytes_per_step = SIZE_MAX;
    gdnTape* tape = NULL;
    char err[256];
    CHECK(gdn_tape_create_opt(m, &opt, &tape, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_state_bytes(tape) - gdn_tape_bytes_used(tape) ==
          100 * gdn_tape_solve_bytes(m, d->maxcon, d->maxefc, 0));
    gdn_tape_free(tape);
    // the same model with constraints disabled: no solve bytes used by a rollout
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    gdn_tape_options_init(m, 40, 3, &opt);
    CHECK(opt.solve_bytes_per_step == 0); // the default reserve: none without constraints
    CHECK(gdn_tape_create_opt(m, &opt, &tape, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_state_bytes(tape) == gdn_tape_bytes_used(tape));
    const size_t fixed = gdn_tape_bytes_used(tape);
    double v0[64] = {0}, J;
    CHECK(nv <= 64);
    gdnRollout r;
    gdn_rollout_init(m, 40, &r);
    r.qpos0 = m->qpos0;
    r.qvel0 = v0;
    gdnObjective obj = {{terminal_vel, NULL, 1}, {NULL, NULL, 0}};
    CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_bytes_used(tape) == fixed);
    gdnTapeStep rec;
    CHECK(gdn_tape_step(tape, 2, &rec) == GDN_OK && rec.bytes == 8 * nv && rec.nefc == 0);
    CHECK(gdn_tape_step(tape, 39, &rec) == GDN_OK);
    CHECK(gdn_tape_step(tape, 0, &rec) == GDN_ERR_ARG);   // inside a segment, not replayed
    CHECK(gdn_tape_step(tape, 40, &rec) == GDN_ERR_ARG);  // beyond T
    CHECK(gdn_tape_step(tape, -1, &rec) == GDN_ERR_ARG);
    CHECK(gdn_tape_step(NULL, 2, &rec) == GDN_ERR_ARG);
    CHECK(gdn_tape_step(tape, 2, NULL) == GDN_ERR_ARG);
    // after a gradient the segment replayed last (steps 0 .. K - 2) is held too
    double gq[64], gv[64];
    gdnAdjointGradients g = {.qpos0 = gq, .qvel0 = gv};
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &g, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_step(tape, 0, &rec) == GDN_OK && gdn_tape_step(tape, 1, &rec) == GDN_OK);
    CHECK(gdn_tape_step(tape, 3, &rec) == GDN_ERR_ARG);
    CHECK(gdn_tape_bytes_used(tape) == fixed);
    gdn_tape_free(tape);
    // creation errors
    CHECK(gdn_tape_create_opt(m, NULL, &tape, err, sizeof(err)) == GDN_ERR_ARG && !tape);
    CHECK(gdn_tape_create_opt(NULL, &opt, &tape, err, sizeof(err)) == GDN_ERR_ARG);
    opt.max_steps = 0;
    CHECK(gdn_tape_create_opt(m, &opt, &tape, err, sizeof(err)) == GDN_ERR_ARG);
    CHECK(gdn_tape_bytes_used(NULL) == 0 && gdn_tape_state_bytes(NULL) == 0);
    gdn_tape_options_init(m, 1, 1, NULL);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// With constraints disabled the gradient is the same with the full tape and K = 7 (the replay
// restores the warm start; test_golden_paths hashes these gradients against the baseline)
static int test_unconstrained_gradient(void) {
    Problem p;
    CHECK(problem_init(&p, "humanoid32.xml", 60) == 0);
    gdnModel* m = p.m;
    m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    p.r.nstep = 60;
    const int nv = m->nv, nu = m->nu;
    double* buf = calloc(4 * (size_t)nv + 2 * 60 * (size_t)nu, sizeof(double));
    gdnAdjointGradients a = {.qpos0 = buf, .qvel0 = buf + nv, .ctrl = buf + 4 * nv};
    gdnAdjointGradients b = {.qpos0 = buf + 2 * nv, .qvel0 = buf + 3 * nv,
                             .ctrl = buf + 4 * nv + 60 * nu};
    char err[256];
    gdnTape* t1 = NULL;
    gdnTape* t7 = NULL;
    CHECK(gdn_tape_create(m, 60, 1, &t1, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_tape_create(m, 60, 7, &t7, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, t1, &a, err, sizeof(err)) == GDN_OK);
    CHECK(gdn_adjoint_rollout_gradient(m, &p.r, &p.obj, t7, &b, err, sizeof(err)) == GDN_OK);
    CHECK(same(&a.J, &b.J, sizeof(double)));
    CHECK(same(a.qpos0, b.qpos0, sizeof(double) * 2 * (size_t)nv));
    CHECK(same(a.ctrl, b.ctrl, sizeof(double) * 60 * (size_t)nu));
    gdn_tape_free(t1);
    gdn_tape_free(t7);
    free(buf);
    problem_free(&p);
    return 0;
}

// Every gradient block of a rollout with tape `tape` into g (2 nv + T nu + 10 nbody + 3 nvert)
static int gradient_into(const Problem* p, gdnTape* tape, double* g, double* J) {
    const gdnModel* m = p->m;
    const int nv = m->nv, nu = m->nu, T = p->r.nstep;
    gdnAdjointGradients out = {.qpos0 = g, .qvel0 = g + nv, .ctrl = nu > 0 ? g + 2 * nv : NULL,
                               .param = g + 2 * nv + T * nu,
                               .vert = g + 2 * nv + T * nu + GDN_N_INERTIA_PARAMS * m->nbody};
    char err[512];
    if (gdn_adjoint_rollout_gradient(m, &p->r, &p->obj, tape, &out, err, sizeof(err)) != GDN_OK) {
        fprintf(stderr, "gradient: %s\n", err);
        return 1;
    }
    *J = out.J;
    return 0;
}

// The stored intermediates (gdnTapeOptions.store_intermediates, the default) and the recompute
// path give the same gradients bit for bit, with a full tape and with K = 7: every record slot
// the backward pass reads was filled by its step (the stored path is the one taken)
static int check_stored(Problem* p, const char* name) {
    gdnModel* m = p->m;
    const int nv = m->nv, T = p->r.nstep;
    const size_t ng = 2 * (size_t)nv + (size_t)T * (size_t)m->nu +
                      GDN_N_INERTIA_PARAMS * (size_t)m->nbody + 3 * (size_t)m->nvert;
    double* g = calloc(2 * ng, sizeof(double));
    CHECK(g);
    const int Ks[2] = {1, 7};
    for (int k = 0; k < 2; k++) {
        gdnTape* tapes[2] = {NULL, NULL};
        double J[2];
        for (int store = 0; store < 2; store++) {
            gdnTapeOptions opt;
            gdn_tape_options_init(m, T, Ks[k], &opt);
            CHECK(opt.store_intermediates == 1);
            opt.store_intermediates = store;
            char err[256];
            CHECK(gdn_tape_create_opt(m, &opt, &tapes[store], err, sizeof(err)) == GDN_OK);
            // the arrays, plus at most 7 doubles of padding per array merged into a run
            const size_t inter = sizeof(double) * (size_t)(m->nq + 41 * m->nbody +
                                                           6 * m->njnt + 13 * m->nv +
                                                           (m->nvert > 0 ? 6 * m->nvert + 1 : 0));
            const size_t bytes = gdn_tape_intermediate_bytes(tapes[store]);
            CHECK(store ? bytes >= inter && bytes <= inter + 11 * 7 * sizeof(double)
                        : bytes == 0);
            memset(g + (size_t)store * ng, 0xff, sizeof(double) * ng);
            CHECK(gradient_into(p, tapes[store], g + (size_t)store * ng, &J[store]) == 0);
        }
        // the forward pass's records carry their intermediates only when stored; with K = 7
        // the slots of the segment replayed last (segment 0) too
        const gdnTape* on = tapes[1];
        for (int slot = 0; slot < on->nslot; slot++) {
            if (on->entry[slot].t >= 0) {
                CHECK(on->entry[slot].inter == (gdn_penalty_active(m) ? 3 : 1));
                CHECK(tapes[0]->entry[slot].inter == 0);
            }
        }
        CHECK(same(&J[0], &J[1], sizeof(double)));
        if (!same(g, g + ng, sizeof(double) * ng)) {
            fprintf(stderr, "%s, K = %d: stored and recomputed gradients differ\n", name, Ks[k]);
            return 1;
        }
        printf("%s K=%d: stored == recomputed (%zu gradient entries, %zu bytes per slot)\n",
               name, Ks[k], ng, gdn_tape_intermediate_bytes(on));
        gdn_tape_free(tapes[0]);
        gdn_tape_free(tapes[1]);
    }
    free(g);
    return 0;
}

// steps of the rollout with at least one active penalty vertex (a gdn_step loop)
static int steps_in_contact(const Problem* p) {
    gdnData* d = NULL;
    if (gdn_data_create(p->m, &d) != GDN_OK) {
        return -1;
    }
    ref_start(p->m, d);
    memcpy(d->qvel, p->r.qvel0, sizeof(double) * (size_t)p->m->nv);
    int n = 0;
    for (int t = 0; t < p->r.nstep; t++) {
        if (ref_step(p, d, t) != 0) {
            n = -1;
            break;
        }
        n += d->nvert_active > 0;
    }
    gdn_data_free(d);
    return n;
}

static int test_stored_intermediates(void) {
    // smooth: humanoid32 with constraints off (damping, ball-free joints and hinges)
    Problem p;
    CHECK(problem_init(&p, "humanoid32.xml", 40) == 0);
    p.m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    CHECK(check_stored(&p, "humanoid32") == 0);
    problem_free(&p);
    // penalty contact: the box dropped onto the ground, the humanoid with skins
    CHECK(problem_init(&p, "box_penalty.xml", 60) == 0);
    p.m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    p.qvel0[2] = -4;
    p.qvel0[3] = 1.5;
    const int box_contact = steps_in_contact(&p);
    CHECK(box_contact > 0);
    CHECK(check_stored(&p, "box_penalty") == 0);
    problem_free(&p);
    CHECK(problem_init(&p, "humanoid32.xml", 40) == 0);
    p.m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    CHECK(gdn_test_add_skins_and_penalty(p.m, 0.02, 5000, 50));
    const int humanoid_contact = steps_in_contact(&p);
    CHECK(humanoid_contact > 0);
    CHECK(check_stored(&p, "humanoid32+penalty") == 0);
    // a tape created while the contact was off (the model has vertices) keeps the vertex
    // outputs once it is on: the same records, the same gradient
    {
        const gdnModel* m = p.m;
        const size_t ng = 2 * (size_t)m->nv + 40 * (size_t)m->nu +
                          GDN_N_INERTIA_PARAMS * (size_t)m->nbody + 3 * (size_t)m->nvert;
        double* g = calloc(2 * ng, sizeof(double));
        CHECK(g);
        const double h = m->penalty.height, k = m->penalty.stiffness, c = m->penalty.damping;
        CHECK(gdn_model_set_penalty(p.m, 0, h, k, c) == GDN_OK);
        gdnTape* late = NULL;
        gdnTape* early = NULL;
        char err[256];
        CHECK(gdn_tape_create(m, 40, 1, &late, err, sizeof(err)) == GDN_OK);
        CHECK(gdn_model_set_penalty(p.m, 1, h, k, c) == GDN_OK);
        CHECK(gdn_tape_create(m, 40, 1, &early, err, sizeof(err)) == GDN_OK);
        CHECK(gdn_tape_intermediate_bytes(late) == gdn_tape_intermediate_bytes(early));
        double J[2];
        CHECK(gradient_into(&p, late, g, &J[0]) == 0);
        CHECK(gradient_into(&p, early, g + ng, &J[1]) == 0);
        CHECK(late->entry[0].inter == 3 && early->entry[0].inter == 3);
        CHECK(same(&J[0], &J[1], sizeof(double)) && same(g, g + ng, sizeof(double) * ng));
        gdn_tape_free(late);
        gdn_tape_free(early);
        free(g);
    }
    printf("steps in penalty contact: box %d of 60, humanoid32 %d of 40\n", box_contact,
           humanoid_contact);
    problem_free(&p);
    return 0;
}

static const gdnTestCase cases[] = {
    {"sol_stack", test_sol_stack},
    {"cnstr_weld", test_cnstr_weld},
    {"humanoid32", test_humanoid32},
    {"solvers", test_solvers},
    {"small_reserve", test_small_reserve},
    {"bytes", test_bytes},
    {"unconstrained_gradient", test_unconstrained_gradient},
    {"stored_intermediates", test_stored_intermediates},
};

int main(int argc, char** argv) {
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
