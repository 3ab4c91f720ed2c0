// SPDX-License-Identifier: Apache-2.0
// Trajectory gates through contact (issue 9): the adjoint of constrained rollouts vs central
// finite differences of gdn_rollout_objective on every channel, at 1e-5 relative.
//
// Channels: dJ/dq0 (tangent), dJ/dv0, dJ/du_t and dJ/dpi (10 per body), each against FD entry
// by entry; dJ/dV (mesh vertices) is empty on these primitive and box models (nvert = 0). The
// API has no friction / solref / solimp / size channels yet, so their structural zeros are not
// tested here.
//
// FD: Richardson-extrapolated central differences D = (4 D(h/2) - D(h)) / 3,
// D(h) = (J(p + h) - J(p - h)) / (2 h), h = 1e-5 (rad, m, m/s, control units). Truncation is
// O(h^4) (~1e-20 of the curvature scale); round-off ~1e-16 |J| / h ~ 1e-11 relative, times the
// rollout's amplification (contact stiffness k ~ 1 / (timeconst^2 dmax^2) ~ 3e3 over a few
// hundred steps); every solve runs Newton to tolerance 1e-14 (it reaches round-off), so the
// solve's residual over 2h stays below ~1e-9. A larger h would cross row-state boundaries
// (stick/slip, contact activation: soft rows switch within ~1e-4 in q on these scenes), a
// smaller one loses digits to round-off.
// One branch: every FD rollout must have, at every step, the nominal rollout's rows (count,
// types, states) and contact count, compared through the tape's step records (gdn_tape_step);
// a sample that changes branch fails the test (the scene is then wrong, not the tolerance).
// Error per channel: ||adjoint - fd||_inf / max(||fd||_inf, 1e-8) <= 1e-5.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "runner/models.h"
#include "runner/rollout_fd.h"
#include "runner/test.h"

#define REL_TOL 1e-5
#define FD_STEP 1e-5
#define MJ_HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"

// ---------------------------------------------------------------- a rollout problem

// the rollout FD harness (runner/rollout_fd.h): objective gdn_fd_terminal_cost +
// gdn_fd_running_cost; h (FD_STEP unless the scene says otherwise), hpi (the inertia
// parameters' step scale, h unless the scene says), pi_mask (the inertia parameters compared);
// the branch check armed by gradient()
typedef gdnFdProblem Problem;

// the configuration reached after nstep steps at rest from qpos0 (zero velocity and controls):
// the contacts at their equilibrium penetration, away from activation boundaries
static int settle(const gdnModel* m, int nstep, double* q) {
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    for (int t = 0; t < nstep; t++) {
        CHECK(gdn_step(m, d) == GDN_OK);
    }
    memcpy(q, d->qpos, sizeof(double) * (size_t)m->nq);
    gdn_data_free(d);
    return 0;
}

// model from file with the solver at tolerance 1e-14; q0 = q_base (qpos0 when NULL) (+)
// uniform(+-qamp) tangent, v0 = v_base + uniform(+-vamp), controls uniform(+-uamp) (v_base
// may be NULL)
static int problem_init_at(Problem* p, const char* name, gdnModel* m, int T,
                           unsigned long long seed, const double* q_base, double qamp,
                           const double* v_base, double vamp, double uamp) {
    m->opt.tolerance = 1e-14;
    m->opt.iterations = 200;
    if (!gdn_fd_problem_init(p, name, m, T, seed, q_base, qamp, v_base, vamp, uamp)) {
        return 0;
    }
    p->h = FD_STEP;
    p->hpi = FD_STEP;
    return 1;
}

static int problem_init(Problem* p, const char* name, gdnModel* m, int T, unsigned long long seed,
                        double qamp, const double* v_base, double vamp, double uamp) {
    return problem_init_at(p, name, m, T, seed, NULL, qamp, v_base, vamp, uamp);
}

// the adjoint (every channel), then the nominal rows
static int gradient(Problem* p) {
    CHECK(gdn_fd_gradient_checked(p) == 0);
    return gdn_fd_record_rows(p);
}

// ---------------------------------------------------------------- finite differences

// the adjoint's block vs FD on the listed entries; returns the relative error (NaN: failure)
static double check_block(Problem* p, gdnFdChannel ch, const char* label, const double* adj,
                          const int* idx, int count) {
    return gdn_fd_block(p, ch, label, adj, idx, count, 1e-8, REL_TOL);
}

// every entry of q0 and v0, u_t for every u_stride-th flat control index, every pi_stride-th
// inertia parameter
static int check_all(Problem* p, int u_stride, int pi_stride) {
    CHECK(gradient(p) == 0);
    const int nv = p->m->nv, nu = p->m->nu, T = p->T;
    int* idx = calloc((size_t)(nv + T * nu + 1), sizeof(int));
    CHECK(idx);
    for (int i = 0; i < nv; i++) {
        idx[i] = i;
    }
    double e = 0;
    e = fmax(e, check_block(p, GDN_FD_Q0, "q0", p->g.qpos0, idx, nv));
    e = fmax(e, check_block(p, GDN_FD_V0, "v0", p->g.qvel0, idx, nv));
    int count = 0;
    for (int i = 0; i < T * nu; i += u_stride) {
        idx[count++] = i;
    }
    if (count) {
        e = fmax(e, check_block(p, GDN_FD_U, "u", p->g.ctrl, idx, count));
    }
    // inertia parameters last (the setter restores them only to round-off), bodies 1.., every
    // pi_stride-th entry
    int* pidx = calloc((size_t)(GDN_N_INERTIA_PARAMS * p->m->nbody), sizeof(int));
    CHECK(pidx);
    count = 0;
    for (int i = GDN_N_INERTIA_PARAMS; i < GDN_N_INERTIA_PARAMS * p->m->nbody; i += pi_stride) {
        if (p->pi_mask >> (i % GDN_N_INERTIA_PARAMS) & 1) {
            pidx[count++] = i;
        }
    }

    e = fmax(e, check_block(p, GDN_FD_PARAM, "pi", p->g.param, pidx, count));
    free(pidx);
    free(idx);
    if (p->branch_fails) {
        fprintf(stderr, "%s: %d FD rollouts left the nominal branch (first at step %d)\n",
                p->name, p->branch_fails, p->first_t);
    }
    CHECK(p->branch_fails == 0);
    CHECK(e <= REL_TOL);
    return 0;
}

// ---------------------------------------------------------------- what the rollout did

typedef struct Regime {
    int steps_contact;   // steps with contacts
    int first_contact;   // first step with a contact (-1: none)
    int steps_slip;      // steps with a contact whose friction rows include a satisfied one
    int last_slip;       // last such step
    int steps_stick;     // steps with contacts whose rows are all quadratic
    int steps_separated; // steps with contacts whose rows are all satisfied
} Regime;

// classify the nominal rollout's steps (pyramidal cone: a sliding contact leaves one edge of
// each friction pair unloaded, satisfied; a sticking one has every edge quadratic)
static Regime regime_of(const Problem* p) {
    Regime g = {0, -1, 0, -1, 0, 0};
    for (int t = 0; t < p->T; t++) {
        if (!p->ncon[t]) {
            continue;
        }
        g.steps_contact++;
        if (g.first_contact < 0) {
            g.first_contact = t;
        }
        int nsat = 0, nquad = 0, nrows = p->nefc[t];
        for (int i = 0; i < nrows; i++) {
            nsat += p->state[p->off[t] + i] == GDN_CNSTRSTATE_SATISFIED;
            nquad += p->state[p->off[t] + i] == GDN_CNSTRSTATE_QUADRATIC;
        }
        if (nsat == nrows) {
            g.steps_separated++;
        } else if (nquad == nrows) {
            g.steps_stick++;
        } else {
            g.steps_slip++;
            g.last_slip = t;
        }
    }
    return g;
}

static void print_regime(const Problem* p, const Regime* g) {
    printf("  %-22s T %d: contact from step %d (%d steps), %d slipping (last %d), %d sticking, "
           "%d separated\n", p->name, p->T, g->first_contact, g->steps_contact, g->steps_slip,
           g->last_slip, g->steps_stick, g->steps_separated);
}

// ---------------------------------------------------------------- scenes

// a spinning sphere dropped 0.15 m: free flight, impact near step 87, rolling with friction
static int test_sphere_drop(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_drop_sphere.xml");
    CHECK(m);
    const double v[6] = {0.4, -0.2, 0, 3, -2, 1};
    CHECK(problem_init(&p, "sphere drop", m, 250, 0xD0001ULL, 0.01, v, 0.05, 0.5));
    int bad = check_all(&p, 7, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    CHECK(g.first_contact > 50 && g.steps_contact > 100);
    gdn_fd_problem_free(&p);
    return bad;
}

// a tilted capsule dropped: one end lands, then the other, then it lies
static int test_capsule_drop(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_drop_capsule.xml");
    CHECK(m);
    const double v[6] = {0.3, 0, 0, 0.5, 1, 0};
    CHECK(problem_init(&p, "capsule drop", m, 300, 0xD0002ULL, 0.01, v, 0.05, 0.5));
    int bad = check_all(&p, 7, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    CHECK(g.first_contact > 20 && g.steps_contact > 150);
    gdn_fd_problem_free(&p);
    return bad;
}

// a capsule launched along its axis at 1 m/s with friction 0.5: it slides (hopping on its
// ends, the friction torque lifts the rear end) ~0.05 m for ~50 steps, then sticks
static int test_capsule_slide_stick(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_slide_capsule.xml");
    CHECK(m);
    const double v[6] = {1.0, 0, 0, 0, 0, 0};
    double q[7];
    m->opt.tolerance = 1e-14;
    CHECK(settle(m, 300, q) == 0);
    CHECK(problem_init_at(&p, "capsule slide-stick", m, 250, 0xD0003ULL, q, 2e-5, v, 0.02, 0.3));
    // the inertia parameters take h = 1e-6: at 1e-5 a mass step moves the stick onset by a step
    // (the branch check fails at step 46)
    p.hpi = 1e-6;
    int bad = check_all(&p, 5, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    double vT[6];
    CHECK(gdn_tape_state(p.tape, p.T, NULL, vT) == GDN_OK);
    printf("  %-22s v_x %.3f -> %.2e m/s\n", p.name, p.v0[0], vT[0]);
    CHECK(g.steps_slip > 20 && g.steps_stick > 150 && g.last_slip < 60 && fabs(vT[0]) < 1e-3);
    gdn_fd_problem_free(&p);
    return bad;
}

// a capsule on a 0.3 rad incline: friction 0.8 > tan 0.3 holds it (200 steps), 0.15 lets it
// slide. Sliding, the capsule chatters: one end lifts off within ~15 steps and then every few
// steps (MuJoCo 2.2.2 does the same on this model), and an FD sample then crosses a contact
// activation (the nominal has ends at dist ~1e-8 from activation: even h = 1e-7 changes
// branch). The sliding case therefore takes an overdamped, softer contact (solref 0.04 3 on
// both geoms), on which both ends stay down for the first ~50 steps, and a 60-step horizon.
static int incline_case(const char* name, double mu, int expect_slip, int T) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_incline.xml");
    CHECK(m);
    if (expect_slip) {
        const double sr[2] = {0.04, 3};
        for (int gi = 0; gi < m->ngeom; gi++) {
            CHECK(gdn_model_set_geom_solref(m, gi, sr) == GDN_OK);
        }
    }
    // settled at rest with the file's friction 0.8 (it sticks), then the friction of the case
    double q[7];
    m->opt.tolerance = 1e-14;
    CHECK(settle(m, 300, q) == 0);
    const double fr[3] = {mu, 0.01, 0.001};
    for (int gi = 0; gi < m->ngeom; gi++) {
        CHECK(gdn_model_set_geom_friction(m, gi, fr) == GDN_OK);
    }
    CHECK(problem_init_at(&p, name, m, T, 0xD0004ULL, q, 2e-5, NULL, 0.02, 0.3));
    int bad = check_all(&p, 5, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    CHECK(gdn_tape_state(p.tape, p.T, q, NULL) == GDN_OK);
    double travel = (q[0] - p.q0[0]) * cos(0.3) - (q[2] - p.q0[2]) * sin(0.3);
    printf("  %-22s travel along the slope %.4f m\n", name, travel);
    if (expect_slip) {
        CHECK(g.steps_slip == p.T && travel > 5e-3);
    } else {
        CHECK(g.steps_stick > p.T - 20 && fabs(travel) < 5e-3);
    }
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_incline_stick(void) {
    return incline_case("incline stick", 0.8, 0, 200);
}

static int test_incline_slide(void) {
    return incline_case("incline slide", 0.15, 1, 60);
}

// structural zero: the flyer's contact stays inside its margin but separated (detected every
// step, excluded from the rows by its gap), so its gradient w.r.t. its initial state and its
// control is the one of the same rollout without contacts (to round-off: the solve of the
// roller's rows in the same step leaves the flyer's block alone); the roller, in contact, is
// decoupled from it (separate free bodies, a separable objective)
static int test_separated_contact(void) {
    Problem p, f;
    gdnModel* m = gdn_test_load_model_as_is("cg_separated.xml");
    gdnModel* mf = gdn_test_load_model_as_is("cg_separated.xml");
    CHECK(m && mf);
    mf->opt.disableflags |= GDN_DSBL_CONTACT;
    // the roller settled at its equilibrium penetration, the flyer at its initial pose,
    // launched up at 0.8 m/s: its dist stays in (0, 0.07) over the 80 steps, inside the margin
    const double v[12] = {0.5, 0, 0, 0, 0, 0, 0.3, 0.1, 0.8, 1, 2, -1};
    double q[14];
    m->opt.tolerance = 1e-14;
    CHECK(settle(m, 300, q) == 0);
    memcpy(q + 7, m->qpos0 + 7, 7 * sizeof(double));
    CHECK(problem_init_at(&p, "separated", m, 80, 0xD0005ULL, q, 2e-5, v, 0.02, 0.3));
    CHECK(problem_init_at(&f, "separated (no contact)", mf, 80, 0xD0005ULL, q, 2e-5, v, 0.02,
                          0.3));
    int bad = check_all(&p, 5, 1);
    CHECK(gradient(&f) == 0);
    // every step detects the flyer's contact inside its margin, separated, excluded from the
    // rows by its gap (includemargin = margin - gap = 0): the rows are the roller's alone
    // (condim 3, pyramidal: 4 per contact)
    int roller_rows = 0;
    for (int t = 0; t < p.T; t++) {
        gdnTapeStep rec;
        CHECK(gdn_tape_step(p.tape, t, &rec) == GDN_OK);
        int found = 0;
        for (int c = 0; c < rec.ncon; c++) {
            const gdnContact* con = rec.contact + c;
            if (con->geom1 == 2 || con->geom2 == 2) {
                found++;
                CHECK(con->dist > con->includemargin && con->dist < 0.2);
            }
        }
        CHECK(found == 1 && rec.nefc == 4 * (rec.ncon - 1) && rec.nefc > 0);
        roller_rows += rec.nefc;
    }
    // the flyer's dofs 6..11: its gradient equals the contact-free rollout's
    double eq = gdn_test_relerr(p.g.qpos0 + 6, f.g.qpos0 + 6, 6, 1e-12);
    double ev = gdn_test_relerr(p.g.qvel0 + 6, f.g.qvel0 + 6, 6, 1e-12);
    double eu = 0;
    for (int t = 0; t < p.T; t++) {
        eu = fmax(eu, fabs(p.g.ctrl[2 * t + 1] - f.g.ctrl[2 * t + 1]) /
                          fmax(fabs(f.g.ctrl[2 * t + 1]), 1e-12));
    }
    double ep = gdn_test_relerr(p.g.param + 2 * GDN_N_INERTIA_PARAMS,
                                f.g.param + 2 * GDN_N_INERTIA_PARAMS, GDN_N_INERTIA_PARAMS,
                                1e-12);
    printf("  separated: the roller's %d rows over %d steps; flyer's gradient vs contact-free: "
           "q0 %.2e v0 %.2e u %.2e pi %.2e\n", roller_rows, p.T, eq, ev, eu, ep);
    CHECK(eq <= 1e-12 && ev <= 1e-12 && eu <= 1e-12 && ep <= 1e-12);
    gdn_fd_problem_free(&f);
    gdn_fd_problem_free(&p);
    return bad;
}

// MuJoCo's humanoid dropped from its initial pose, 200 steps (1 s): the feet land near step
// 38 and it collapses; every channel sampled: all of q0 and v0, every 97th control, the
// inertia parameters of every body (the COM entries in their own case, com = 1).
// FD step h = 1e-7: the collapse amplifies perturbations (|dJ/dq0| up to 4.8e3), so h = 1e-6
// or 3e-7 already moves contacts across activation by step 153 (the branch check fails, FD is
// off by 1e-2 .. 1e-1); at 1e-7 every sample keeps the nominal rows at every step, and
// round-off (1e-16 |J| / h relative to a gradient of 1e3) stays ~1e-7 (at h = 1e-9 it reaches
// 1e-4)
static int humanoid_fall(int com) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is(MJ_HUMANOID);
    CHECK(m);
    CHECK(problem_init(&p, com ? "humanoid fall (COM)" : "humanoid fall", m, 200, 0xD0006ULL,
                       0.05, NULL, 0.05, 0.3));
    p.h = p.hpi = 1e-7;
    // mass and inertia entries (packing 0, 4..9), or the COM entries (1..3)
    p.pi_mask = com ? 0x00e : 0x3f1;
    int bad = check_all(&p, com ? 1000000 : 97, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    CHECK(g.steps_contact > 100);
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_humanoid_fall(void) {
    return humanoid_fall(0);
}

// dJ/d(body COM) through the humanoid's contact steps: the adjoint is off by up to 1% on the
// COM entries of the bodies whose geoms touch the floor (the feet; FD stable over h = 1e-6 ..
// 1e-8, no branch change), a library bug reported to the lead (the per-step JVP along the
// right foot's COM y at step 45 differs from FD of gdn_step by 1% too); this case fails until
// it is fixed
static int test_humanoid_fall_com(void) {
    return humanoid_fall(1);
}

// ---------------------------------------------------------------- box scenes (box pairs)

// overdamped, softer contacts on every geom (solref 0.04 3): a sliding or rocking box on the
// default contacts (solref 0.02 1) chatters, a corner lifting every few steps (MuJoCo 2.2.2 the
// same), and FD samples then cross contact activations
static int soften(gdnModel* m) {
    const double sr[2] = {0.04, 3};
    for (int gi = 0; gi < m->ngeom; gi++) {
        CHECK(gdn_model_set_geom_solref(m, gi, sr) == GDN_OK);
    }
    return 0;
}

// a tilted box dropped on a plane: it lands on a corner near step 70, rocks onto a face and
// settles; from step 250 a 7 N push (friction 0.5 m g = 4.9 N) drives it to slide
static int test_box_drop(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_box_drop.xml");
    CHECK(m);
    CHECK(soften(m) == 0);
    const double v[6] = {0.2, 0, 0, 0.5, -0.5, 0.3};
    CHECK(problem_init(&p, "box drop", m, 400, 0xB0001ULL, 0.01, v, 0.05, 0.3));
    // h = 1e-7: the box lands on its edge (2 corners) and then on its face (2 more corners in
    // the same step, ~step 103); at h >= 1e-6 a sample moves that landing by a step (the branch
    // check fails); round-off at 1e-7 stays < 1e-5 (measured: u 5e-6, the smallest |dJ/du|)
    p.h = p.hpi = 1e-7;
    for (int t = 250; t < p.T; t++) {
        p.u[t] += 7;
    }
    int bad = check_all(&p, 11, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    double q[7];
    CHECK(gdn_tape_state(p.tape, p.T, q, NULL) == GDN_OK);
    printf("  %-22s x_T %.4f\n", p.name, q[0]);
    CHECK(g.first_contact > 30 && g.steps_slip > 50 && g.steps_contact > 250);
    gdn_fd_problem_free(&p);
    return bad;
}

// a 0.4 m tall box standing on an edge, tilted 0.8 rad about y (past its balance angle
// atan(0.05 / 0.2) = 0.245): it pivots on the edge (2 contacts; the edge hops as it speeds
// up), lands on its face (4) near step 146 and settles. (Tilted 0.3 or 0.5 rad, it falls
// slowly and its edge chatters for 100+ steps: every FD step crosses a branch.)
static int test_box_tip(void) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_box_tip.xml");
    CHECK(m);
    const double th = 0.8, c = cos(th), s = sin(th);
    const double q[7] = {0, 0, 0.05 * s + 0.2 * c - 2e-4, cos(th / 2), 0, sin(th / 2), 0};
    CHECK(problem_init_at(&p, "box tip", m, 300, 0xB0002ULL, q, 2e-5, NULL, 0.005, 0.3));
    // h = 1e-6: at 1e-5 the face landing (step ~146) moves by a step in 3 samples
    p.h = p.hpi = 1e-6;
    int bad = check_all(&p, 11, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    double qT[7];
    CHECK(gdn_tape_state(p.tape, p.T, qT, NULL) == GDN_OK);
    printf("  %-22s final height %.4f (standing 0.2, on its face 0.05)\n", p.name, qT[2]);
    CHECK(qT[2] < 0.06);
    gdn_fd_problem_free(&p);
    return bad;
}

// a block on a plank pushed along x over a frictionless floor (12 dofs, box-box contact):
// friction 0.9 carries the block (8 N push: acceleration 3.2 m/s^2 < 0.9 g). The sliding
// variant (friction 0.1, 14 N) is not registered: the sliding block chatters on its corners
// (4 to 8 contacts switching every few steps from step ~15, also with solref 0.04 3), so no
// FD step keeps one branch over a useful horizon
static int plank_case(const char* name, double block_mu, double push, int expect_slide) {
    Problem p;
    gdnModel* m = gdn_test_load_model_as_is("cg_plank.xml");
    CHECK(m);
    const double fr[3] = {block_mu, 0.01, 0.001};
    CHECK(gdn_model_set_geom_friction(m, 2, fr) == GDN_OK);
    double q[14];
    m->opt.tolerance = 1e-14;
    CHECK(settle(m, 300, q) == 0);
    CHECK(problem_init_at(&p, name, m, 150, 0xB0003ULL, q, 2e-5, NULL, 0.005, 0.3));
    for (int t = 0; t < p.T; t++) {
        p.u[t] += push;
    }
    // h = 1e-7: the settled block rests face on face on the plank, where box-box's choice of
    // reference face ties (equal depths); a pitch step of 1e-6 of either body flips it at step 0
    // (one friction row's force jumps 0 -> 0.17 N: the primal's jump at the tie), 1e-7 does not
    p.h = p.hpi = 1e-7;
    int bad = check_all(&p, 7, 1);
    Regime g = regime_of(&p);
    print_regime(&p, &g);
    double qT[14];
    CHECK(gdn_tape_state(p.tape, p.T, qT, NULL) == GDN_OK);
    double rel = (qT[7] - qT[0]) - (q[7] - q[0]);
    printf("  %-22s plank moved %.4f m, block relative to plank %.5f m\n", name, qT[0] - q[0],
           rel);
    CHECK(qT[0] - q[0] > 0.01);
    if (expect_slide) {
        CHECK(rel < -0.005);
    } else {
        CHECK(fabs(rel) < 1e-3);
    }
    gdn_fd_problem_free(&p);
    return bad;
}

static int test_plank_carry(void) {
    return plank_case("plank carry", 0.9, 8, 0);
}


// slip-to-stick on a redundant manifold: a plate on four sphere feet (16 pyramidal rows, 6
// dofs) launched at 0.6 m/s stops by friction within ~60 steps (it hops on its feet while
// sliding). PGS, within the model's 100 iterations, does not reach the tolerance on the
// redundant solve around the slip-to-stick steps (13 steps at tol 1e-8, the last at step 59;
// 37 at 1e-10), and at tol 1e-8 a late converged PGS step has forces that are not the primal
// optimum's: the gradient is refused with GDN_ERR_UNCONVERGED naming the step the backward
// pass meets first (the last such step), its iterations and residual as on its record; never
// a number. (Newton and CG converge on this scene: 0 unconverged steps at tol 1e-14.)
static int unconverged_case(gdnSolver solver, gdnCone cone, double tol, const char* label) {
    gdnModel* m = gdn_test_load_model_as_is("cg_table.xml");
    CHECK(m);
    m->opt.solver = solver;
    m->opt.cone = cone;
    m->opt.tolerance = tol;
    const int T = 120;
    double q0[7], v0[6] = {0.6, 0.1, 0, 0, 0, 0.5};
    CHECK(settle(m, 200, q0) == 0);
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    gdnObjective obj = {{gdn_fd_terminal_cost, NULL, 0}, {gdn_fd_running_cost, NULL, 0}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 1, &tape, NULL, 0) == GDN_OK);
    double gq[6], gv[6];
    gdnAdjointGradients out = {0};
    out.qpos0 = gq;
    out.qvel0 = gv;
    char err[512] = "";
    gdnStatus st = gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err));
    int last_unconv = -1, n_unconv = 0, slip = 0, stick_end = 1, four = 0;
    for (int t = 0; t < T; t++) {
        gdnTapeStep rec;
        CHECK(gdn_tape_step(tape, t, &rec) == GDN_OK);
        four += rec.ncon == 4;
        int nq = 0;
        for (int i = 0; i < rec.nefc; i++) {
            nq += rec.efc_state[i] == GDN_CNSTRSTATE_QUADRATIC;
        }
        slip += nq < rec.nefc;
        if (t >= T - 20) {
            stick_end &= nq == rec.nefc;
        }
        if (!rec.solver_converged) {
            last_unconv = t;
            n_unconv++;
        }
    }
    printf("  %-18s %d of %d steps unconverged (last %d), %d with 4 contacts, %d slipping, "
           "sticking at the end %d: %s: %s\n", label, n_unconv, T, last_unconv, four, slip,
           stick_end, gdn_status_string(st), err);
    CHECK(slip > 10 && stick_end && four > T / 2);
    CHECK(last_unconv >= 0);
    CHECK(st == GDN_ERR_UNCONVERGED);
    // the step named: its record's iterations and residual, and either unconverged or refused
    // because its forces are not the primal optimum's at its acceleration
    int named = -1;
    const char* at = strstr(err, "step ");
    CHECK(at && sscanf(at, "step %d:", &named) == 1 && named >= 0 && named < T);
    gdnTapeStep rec;
    CHECK(gdn_tape_step(tape, named, &rec) == GDN_OK);
    char expect[160];
    snprintf(expect, sizeof(expect), "step %d: the constraint solve did not converge (%d "
             "iterations, residual %.3g", named, rec.solver_iter, rec.solver_residual);
    if (!strstr(err, expect)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", expect, err);
        CHECK(0);
    }
    CHECK(!rec.solver_converged || strstr(err, "not the primal optimum") != NULL);
    CHECK(named >= last_unconv);
    gdn_tape_free(tape);
    gdn_model_free(m);
    return 0;
}

static int test_slip_stick_unconverged(void) {
    CHECK(unconverged_case(GDN_SOL_PGS, GDN_CONE_PYRAMIDAL, 1e-8, "PGS tol 1e-8") == 0);
    CHECK(unconverged_case(GDN_SOL_PGS, GDN_CONE_PYRAMIDAL, 1e-10, "PGS tol 1e-10") == 0);
    return 0;
}

static const gdnTestCase CASES[] = {
    {"slip_stick_unconverged", test_slip_stick_unconverged},
    {"sphere_drop", test_sphere_drop},
    {"capsule_drop", test_capsule_drop},
    {"capsule_slide_stick", test_capsule_slide_stick},
    {"incline_stick", test_incline_stick},
    {"incline_slide", test_incline_slide},
    {"separated_contact", test_separated_contact},
    {"box_drop", test_box_drop},
    {"box_tip", test_box_tip},
    {"plank_carry", test_plank_carry},
    {"humanoid_fall", test_humanoid_fall},
    {"humanoid_com", test_humanoid_fall_com},
};
GDN_TEST_MAIN(CASES)
