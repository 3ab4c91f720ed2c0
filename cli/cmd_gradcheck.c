// SPDX-License-Identifier: Apache-2.0
// gradyn gradcheck: every block of grad's gradient against central finite differences, with an
// error floor from the round-off of J and a check that both samples took the rollout's branches.
//
// FD of J = gdn_rollout_objective, D(h) = (J(x + h) - J(x - h)) / (2 h), with the step per
// parameter class (eps from --eps, default 1e-6):
//   q0 (tangent, gdn_integrate_pos), v0, u_t, COM, vertices (m->vert_pos):   h = eps
//   mass: h = 100 eps m_b, inertia entries: h = 100 eps trace(I_b) / 3 (relative steps: with
//   eps itself, the rollout's round-off (~1e-14 of J) dominates the difference for a hand's
//   1e-4 kg m^2; with an absolute step, the truncation error does). A massless body: h = eps,
//   forward difference for the mass
// Inertia perturbations go through gdn_model_set_body_inertia on a freshly loaded copy of the
// model per body (the model itself is never touched); vertex perturbations are undone exactly.
//
// Error of entry i (gradient g_i, difference fd_i, step h_i, samples J+_i, J-_i):
//   noise_i  = K ulp(max(|J|, |J+_i|, |J-_i|)) / h_i   (the difference's round-off; K from
//              --noise-ulps, default NOISE_ULPS)
//   excess_i = max(0, |g_i - fd_i| - noise_i)
//   block error = max_i excess_i / max(||fd||_inf, ||g||_inf)   (0 when both are 0)
// so a block whose true gradient is exactly zero (or tiny) passes when the difference is
// noise. An entry whose excess exceeds tol times the block's scale is replayed: when its +eps
// or -eps sample took other branches than the rollout itself (contact set, row states, penalty
// vertices, control and force clamps; branch_trace.h), the difference is of another branch and
// the entry is reported as a branch change, not counted in the block error.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "branch_trace.h"
#include "cli.h"
#include "grad_problem.h"
#include "json_writer.h"
#include "number_format.h"

// the default round-off bound of one rollout's J, in units in the last place of J (measured at
// most 9 on the pendulums, 20 on arm7 with penalty contact, 83 on humanoid.xml with penalty
// contact; --noise-ulps raises it; docs/derivatives.md)
#define NOISE_ULPS 64.0

// entries replayed per block at most (each replay costs two rollouts and two traces)
#define MAX_TRACED 64

// branch changes listed in the JSON at most (all are counted)
#define MAX_NOTES 20

const char cli_gradcheck_usage[] =
    "usage: gradyn gradcheck MODEL.xml\n" GRAD_SYNOPSIS
    "    [--eps E] [--tol TOL] [--noise-ulps K] [--blocks qpos0,qvel0,ctrl,params,verts]\n"
    "Compares every block of grad's gradient (the same objective and options) with central\n"
    "finite differences of the rollout objective, D_i = (J(x + h e_i) - J(x - h e_i)) / 2h,\n"
    "h = eps (default 1e-6) for qpos0 (tangent space), qvel0, ctrl and verts, 100 eps times\n"
    "the mass or the inertia's trace / 3 for those parameters. Entry error:\n"
    "e_i = max(0, |g_i - D_i| - n_i), n_i = K ulp(max(|J|, |J+|, |J-|)) / h, the round-off\n"
    "of the difference (ulp(x): the spacing of doubles at x; K = --noise-ulps, default 64),\n"
    "so an exactly-zero or tiny block does not fail on noise; block error =\n"
    "max_i e_i / max(||D||_inf, ||g||_inf). A block whose noise bound exceeds TOL times its\n"
    "scale is named on stderr (a larger --eps lowers the bound). An entry\n"
    "whose error exceeds TOL is replayed: when its +eps or -eps sample took another branch\n"
    "than the rollout (contact set, constraint row states, penalty vertices in contact,\n"
    "control or force clamps) it is listed under branch_changes with the sample, the step and\n"
    "what changed, and left out of the block error. Prints per block the error, the worst\n"
    "entry, the noise bound and the branch changes as JSON, plus grad's step_flags and a note\n"
    "when a curved MPR contact is differentiated at its converged limit. Exit code\n"
    "1 when a block's error exceeds --tol (default 1e-5) or every entry of a block changed\n"
    "branch (result inconclusive: try a smaller --eps).\n";

#define NBLOCKS 5
static const char* const block_names[NBLOCKS] = {"qpos0", "qvel0", "ctrl", "params", "verts"};

// one entry's comparison
typedef struct entryResult {
    double g, fd, noise;
    int traced;  // replayed to look for a branch change
    int branch;  // its samples took other branches than the rollout
} entryResult;

// one block's entries and summary
typedef struct blockResult {
    int selected;
    long entries;
    entryResult* e;        // (entries)
    long branch;           // entries with a branch change
    long traced;
    double rel_error;      // max excess / scale over the entries without a branch change
    double max_abs_error;  // max |g - fd| over them
    double max_noise;      // max noise_i over them
    double fd_norm, g_norm;
    long worst;            // entry of the largest excess (-1: none)
} blockResult;

// a branch change found by a replay
typedef struct branchNote {
    char entry[128];
    const char* sample;    // "+eps", "-eps" or "both"
    long step;
    char what[256];
} branchNote;

// everything the FD loops need
typedef struct checkContext {
    gradProblem* p;
    const gradArgs* a;
    gdnAdjointGradients g;
    double eps;
    double noise_ulps;       // K of the noise bound
    blockResult blocks[NBLOCKS];
    char err[CLI_ERR_SIZE];
    double* qpert;           // (nq) perturbed q0
    double* dq;              // (nv) unit tangent
    double* state;           // (nq + nv) x_T read back from the tape
    gdnModel* param_model;   // fresh copy for the inertia perturbations of param_body
    int param_body;
    cliBranchTrace nominal, plus, minus;
    int have_nominal;
    branchNote notes[MAX_NOTES];
    long nnotes;             // branch changes found (notes holds the first MAX_NOTES)
} checkContext;


// the spacing of doubles at |x| (the smallest subnormal at 0)
static double ulp(double x) {
    x = fabs(x);
    return isfinite(x) ? nextafter(x, INFINITY) - x : x;
}


// J of the current rollout on model m; 0 on success (message in c->err)
static int objective(checkContext* c, const gdnModel* m, double* J) {
    gdnStatus st = gdn_rollout_objective(m, &c->p->r, &c->p->obj, c->p->tape, J, c->err,
                                         (int)sizeof(c->err));
    return st != GDN_OK;
}


// a fresh copy of the model as the command line built it (file + options + --penalty); NULL on
// failure
static gdnModel* fresh_model(checkContext* c) {
    gdnModel* m = NULL;
    if (gdn_load_xml_ex(c->a->path, &cli_load_options, &m, c->err, (int)sizeof(c->err), NULL,
                        0) != GDN_OK) {
        return NULL;
    }
    m->opt = c->p->s.m->opt; // --nocontact, --noconstraint and the solver options
    const gdnPenalty* pen = &c->p->s.m->penalty;
    gdn_model_set_penalty(m, pen->enabled, pen->height, pen->stiffness, pen->damping);
    return m;
}


// the number of entries of block k
static long block_entries(const checkContext* c, int k) {
    const gdnModel* m = c->p->s.m;
    const long counts[NBLOCKS] = {m->nv, m->nv, (long)m->nu * c->p->r.nstep,
                                  (long)GDN_N_INERTIA_PARAMS * (m->nbody - 1), 3L * m->nvert};
    return counts[k];
}


// the body of penalty vertex v
static int vertex_body(const gdnModel* m, int v) {
    for (int b = 1; b < m->nbody; b++) {
        if (v >= m->body_vertadr[b] && v < m->body_vertadr[b] + m->body_vertnum[b]) {
            return b;
        }
    }
    return 0;
}


// the entry's name: qpos0[3], ctrl[t][i], body.Ixx, body.vert[v].x
static void entry_label(const checkContext* c, int k, long i, char* buf, size_t size) {
    const gdnModel* m = c->p->s.m;
    if (k == 0 || k == 1) {
        snprintf(buf, size, "%s[%ld]", block_names[k], i);
    } else if (k == 2) {
        snprintf(buf, size, "ctrl[%ld][%ld]", i / m->nu, i % m->nu);
    } else if (k == 3) {
        int b = 1 + (int)(i / GDN_N_INERTIA_PARAMS);
        snprintf(buf, size, "%s.%s", gdn_id2name(m, "body", b),
                 grad_param_names[i % GDN_N_INERTIA_PARAMS]);
    } else {
        int v = (int)(i / 3), b = vertex_body(m, v);
        snprintf(buf, size, "%s.vert[%d].%c", gdn_id2name(m, "body", b),
                 v - m->body_vertadr[b], "xyz"[i % 3]);
    }
}


// the step of entry i of block k; *forward set for a massless body's mass (forward difference)
static double entry_step(const checkContext* c, int k, long i, int* forward) {
    *forward = 0;
    if (k != 3) {
        return c->eps;
    }
    int b = 1 + (int)(i / GDN_N_INERTIA_PARAMS), j = (int)(i % GDN_N_INERTIA_PARAMS);
    gdnInertia in;
    double p0[GDN_N_INERTIA_PARAMS];
    gdn_body_inertia(c->p->s.m, b, &in);
    gdn_inertia_params(&in, p0);
    double trace = in.inertia[0] + in.inertia[4] + in.inertia[8];
    double rel = 100 * c->eps;
    double h = j == 0 ? rel * p0[0] : j < 4 ? c->eps : rel * trace / 3;
    *forward = j == 0 && !(h > 0);
    return h > 0 ? h : c->eps;
}


// J with body b's parameters set to params on the copy m; 0 on success
static int objective_params(checkContext* c, gdnModel* m, int b, const double* params,
                            double* J) {
    gdnInertia in;
    gdn_inertia_from_params(params, &in);
    const gdnStatus st = gdn_model_set_body_inertia(m, b, &in);
    if (st != GDN_OK) {
        const char* name = gdn_id2name(m, "body", b);
        snprintf(c->err, sizeof(c->err),
                 "body %d '%s': the inertia setter refuses the perturbed inertia (%s)%s; "
                 "--blocks without params checks the other blocks",
                 b, name ? name : "", gdn_status_string(st),
                 st == GDN_ERR_UNSUPPORTED ? ": the compiler rescaled its mass (settotalmass, "
                                             "boundmass or boundinertia)"
                                           : "");
        return 1;
    }
    return objective(c, m, J);
}


// replay the rollout just evaluated on m into trace and check that it ends where the tape's
// rollout ended, bit for bit; 0 on success
static int trace_sample(checkContext* c, const gdnModel* m, cliBranchTrace* trace) {
    gradProblem* p = c->p;
    if (cli_trace_run(m, &p->r, trace, c->err, (int)sizeof(c->err)) != 0) {
        return 1;
    }
    const int nq = m->nq, nv = m->nv;
    if (gdn_tape_state(p->tape, p->r.nstep, c->state, c->state + nq) != GDN_OK ||
        memcmp(c->state, trace->final_state, sizeof(double) * (size_t)(nq + nv)) != 0) {
        snprintf(c->err, sizeof(c->err), "branch trace: the replay does not end where "
                 "gdn_rollout_objective's rollout ended");
        return 1;
    }
    return 0;
}


// J at the sample x + sign h e_i of block k (sign 0: the unperturbed point, on the parameter
// copy for block 3), replayed into trace when it is not NULL; every input restored; 0 on
// success
static int sample(checkContext* c, int k, long i, int sign, double h, double* J,
                  cliBranchTrace* trace) {
    gradProblem* p = c->p;
    gdnModel* m = p->s.m;
    int fail = 0;
    if (k == 0) {
        // q0 (+) sign h e_i in the tangent space
        const double* saved = p->r.qpos0;
        memcpy(c->qpert, saved, sizeof(double) * (size_t)m->nq);
        c->dq[i] = 1.0;
        gdn_integrate_pos(m, c->qpert, c->dq, sign * h);
        c->dq[i] = 0.0;
        p->r.qpos0 = c->qpert;
        fail = objective(c, m, J) || (trace && trace_sample(c, m, trace));
        p->r.qpos0 = saved;
        return fail;
    }
    if (k == 3) {
        // the inertia parameters of body b on the fresh copy of the model
        int b = 1 + (int)(i / GDN_N_INERTIA_PARAMS), j = (int)(i % GDN_N_INERTIA_PARAMS);
        if (c->param_body != b) {
            gdn_model_free(c->param_model);
            c->param_body = 0;
            c->param_model = fresh_model(c);
            if (!c->param_model) {
                return 1;
            }
            c->param_body = b;
        }
        gdnInertia in;
        double pp[GDN_N_INERTIA_PARAMS];
        gdn_body_inertia(m, b, &in);
        gdn_inertia_params(&in, pp);
        pp[j] += sign * h;
        return objective_params(c, c->param_model, b, pp, J) ||
               (trace && trace_sample(c, c->param_model, trace));
    }

    // plain coordinates: v0, u_t, vertex positions, written and restored exactly
    double* x = k == 1 ? &p->qvel0[i] : k == 2 ? &p->ctrl[i] : &m->vert_pos[i];
    const double x0 = *x;
    *x = x0 + sign * h;
    fail = objective(c, m, J) || (trace && trace_sample(c, m, trace));
    *x = x0;
    return fail;
}


// the finite differences of every entry of block k; 0 on success
static int difference_block(checkContext* c, int k, double J) {
    blockResult* b = &c->blocks[k];
    const double* grads[NBLOCKS] = {c->g.qpos0, c->g.qvel0, c->g.ctrl, c->g.param, c->g.vert};
    for (long i = 0; i < b->entries; i++) {
        int forward = 0;
        double h = entry_step(c, k, i, &forward);
        double Jp = 0, Jm = 0;
        if (sample(c, k, i, 1, h, &Jp, NULL) || sample(c, k, i, forward ? 0 : -1, h, &Jm, NULL)) {
            return 1;
        }
        entryResult* e = &b->e[i];
        // the parameter block's gradient skips the world row
        e->g = grads[k][k == 3 ? i + GDN_N_INERTIA_PARAMS : i];
        e->fd = (Jp - Jm) / (forward ? h : 2 * h);
        e->noise = c->noise_ulps * ulp(fmax(fabs(J), fmax(fabs(Jp), fabs(Jm)))) / h;
    }
    return 0;
}


// replay entry i's samples; *branch set when one took another branch than the rollout (noted)
static int check_branches(checkContext* c, int k, long i, int* branch) {
    *branch = 0;
    const gdnModel* m = c->p->s.m;
    if (!c->have_nominal) {
        double J = 0;
        if (objective(c, m, &J) || trace_sample(c, m, &c->nominal)) {
            return 1;
        }
        c->have_nominal = 1;
    }
    int forward = 0;
    double h = entry_step(c, k, i, &forward);
    double J = 0;
    if (sample(c, k, i, 1, h, &J, &c->plus) ||
        (!forward && sample(c, k, i, -1, h, &J, &c->minus))) {
        return 1;
    }
    long sp = 0, sm = 0;
    char wp[256] = "", wm[256] = "";
    int dp = cli_trace_diff(m, &c->nominal, &c->plus, &sp, wp, (int)sizeof(wp));
    int dm = !forward && cli_trace_diff(m, &c->nominal, &c->minus, &sm, wm, (int)sizeof(wm));
    if (!dp && !dm) {
        return 0;
    }
    *branch = 1;
    if (c->nnotes < MAX_NOTES) {
        branchNote* n = &c->notes[c->nnotes];
        entry_label(c, k, i, n->entry, sizeof(n->entry));
        int first_plus = dp && (!dm || sp <= sm);
        n->sample = dp && dm ? "both" : dp ? "+eps" : "-eps";
        n->step = first_plus ? sp : sm;
        snprintf(n->what, sizeof(n->what), "%s", first_plus ? wp : wm);
    }
    c->nnotes++;
    return 0;
}


// the block's norms and error over the entries without a branch change
static void summarize_block(blockResult* b) {
    b->fd_norm = b->g_norm = b->max_abs_error = b->max_noise = 0;
    for (long i = 0; i < b->entries; i++) {
        const entryResult* e = &b->e[i];
        if (!e->branch) {
            b->fd_norm = fmax(b->fd_norm, fabs(e->fd));
            b->g_norm = fmax(b->g_norm, fabs(e->g));
        }
    }
    double scale = fmax(b->fd_norm, b->g_norm), worst = 0;
    b->worst = -1;
    for (long i = 0; i < b->entries; i++) {
        const entryResult* e = &b->e[i];
        if (e->branch) {
            continue;
        }
        double error = fabs(e->g - e->fd);
        double excess = isfinite(error) ? fmax(0.0, error - e->noise) : HUGE_VAL;
        b->max_abs_error = isfinite(error) ? fmax(b->max_abs_error, error) : HUGE_VAL;
        b->max_noise = fmax(b->max_noise, e->noise);
        if (excess > worst) {
            worst = excess;
            b->worst = i;
        }
    }
    b->rel_error = worst == 0 ? 0.0 : (scale > 0 && isfinite(worst) ? worst / scale : HUGE_VAL);
}


// find the entries that fail because a sample took another branch: replay every entry over
// the tolerance (at most MAX_TRACED per block), drop those with a branch change, and repeat
// with the smaller scale until no new entry is over it; 0 on success
static int find_branch_changes(checkContext* c, int k) {
    blockResult* b = &c->blocks[k];
    for (;;) {
        summarize_block(b);
        double scale = fmax(b->fd_norm, b->g_norm);
        int dropped = 0;
        for (long i = 0; i < b->entries && b->traced < MAX_TRACED; i++) {
            entryResult* e = &b->e[i];
            double error = fabs(e->g - e->fd);
            double excess = isfinite(error) ? fmax(0.0, error - e->noise) : HUGE_VAL;
            if (e->branch || e->traced || !(excess > c->a->tol * scale)) {
                continue;
            }
            e->traced = 1;
            b->traced++;
            if (check_branches(c, k, i, &e->branch) != 0) {
                return 1;
            }
            b->branch += e->branch;
            dropped |= e->branch;
        }
        if (!dropped) {
            return 0;
        }
    }
}


// mark the blocks named in --blocks (NULL: all); 0 on success
static int select_blocks(checkContext* c, const char* list) {
    for (int k = 0; k < NBLOCKS; k++) {
        c->blocks[k].selected = list == NULL;
    }
    for (const char* s = list; s && *s;) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int k = 0; k < NBLOCKS; k++) {
            if (strlen(block_names[k]) == len && strncmp(s, block_names[k], len) == 0) {
                c->blocks[k].selected = found = 1;
            }
        }
        if (!found) {
            return 1;
        }
        s += len + (s[len] == ',');
    }
    return 0;
}


// "pass", "fail" or "inconclusive" (a block whose every entry changed branch); *worst and
// *worst_block: the largest block error
static const char* verdict(const checkContext* c, double* worst, int* worst_block) {
    int inconclusive = 0;
    *worst = 0;
    *worst_block = -1;
    for (int k = 0; k < NBLOCKS; k++) {
        const blockResult* b = &c->blocks[k];
        if (!b->selected) {
            continue;
        }
        inconclusive |= b->entries > 0 && b->branch == b->entries;
        double rel = isnan(b->rel_error) ? HUGE_VAL : b->rel_error;
        if (*worst_block < 0 || rel > *worst) {
            *worst = rel;
            *worst_block = k;
        }
    }
    if (!(*worst <= c->a->tol)) {
        return "fail";
    }
    return inconclusive ? "inconclusive" : "pass";
}


// the report
static void write_report(checkContext* c, double J, const gradStepReport* steps,
                         double seconds) {
    const gdnModel* m = c->p->s.m;
    cliJson w;
    cli_json_init(&w, stdout);
    cli_json_begin_object(&w, NULL);
    cli_json_string(&w, "model", c->a->path);
    cli_json_int(&w, "nv", m->nv);
    cli_json_int(&w, "nu", m->nu);
    cli_json_int(&w, "nvert", m->nvert);
    cli_json_int(&w, "steps", c->a->steps);
    cli_json_int(&w, "penalty", m->penalty.enabled);
    grad_write_solver(&w, m);
    cli_json_double(&w, "eps", c->eps);
    cli_json_double(&w, "tol", c->a->tol);
    cli_json_double(&w, "noise_ulps", c->noise_ulps);
    cli_json_double(&w, "J", J);
    cli_json_begin_array(&w, "blocks");
    for (int k = 0; k < NBLOCKS; k++) {
        const blockResult* b = &c->blocks[k];
        if (!b->selected) {
            continue;
        }
        char label[128] = "";
        if (b->worst >= 0) {
            entry_label(c, k, b->worst, label, sizeof(label));
        }
        cli_json_begin_object(&w, NULL);
        cli_json_string(&w, "block", block_names[k]);
        cli_json_int(&w, "entries", b->entries);
        cli_json_int(&w, "checked", b->entries - b->branch);
        cli_json_int(&w, "branch_changes", b->branch);
        cli_json_int(&w, "replayed", b->traced);
        cli_json_double(&w, "rel_error", b->rel_error);
        cli_json_double(&w, "max_abs_error", b->max_abs_error);
        // the error before the noise bound is taken off (what the difference itself shows)
        double scale = fmax(b->fd_norm, b->g_norm);
        cli_json_double(&w, "raw_rel_error", scale > 0 ? b->max_abs_error / scale
                                             : (b->max_abs_error > 0 ? HUGE_VAL : 0.0));
        cli_json_double(&w, "noise", b->max_noise);
        // the smallest relative error this eps resolves in the block (null: an all-zero block)
        cli_json_double(&w, "noise_rel", scale > 0 ? b->max_noise / scale
                                         : (b->max_noise > 0 ? HUGE_VAL : 0.0));
        cli_json_double(&w, "fd_norm_inf", b->fd_norm);
        cli_json_double(&w, "grad_norm_inf", b->g_norm);
        cli_json_string(&w, "worst_entry", b->worst >= 0 ? label : NULL);
        cli_json_end_object(&w);
    }
    cli_json_end_array(&w);

    // the branch changes found, the first MAX_NOTES of them
    cli_json_int(&w, "branch_changes", c->nnotes);
    cli_json_begin_array(&w, "branch_change_list");
    for (long i = 0; i < c->nnotes && i < MAX_NOTES; i++) {
        const branchNote* n = &c->notes[i];
        cli_json_begin_object(&w, NULL);
        cli_json_string(&w, "entry", n->entry);
        cli_json_string(&w, "sample", n->sample);
        cli_json_int(&w, "step", n->step);
        cli_json_string(&w, "change", n->what);
        cli_json_end_object(&w);
    }
    cli_json_end_array(&w);

    double worst = 0;
    int worst_block = -1;
    const char* result = verdict(c, &worst, &worst_block);
    cli_json_double(&w, "worst_rel_error", worst);
    cli_json_string(&w, "result", result);
    // curved MPR contacts: the gradient is the converged geometry's, the FD the truncated
    // search's (docs/derivatives.md)
    int mpr_limit = 0, inexact = 0;
    for (long k = 0; k < steps->constrained; k++) {
        mpr_limit |= ((int)steps->flags[k] & GDN_DERIV_MPR_LIMIT) != 0;
        inexact |= ((int)steps->flags[k] & GDN_DERIV_INEXACT_SOLVE) != 0;
    }
    cli_json_string(&w, "note",
                    mpr_limit ? "curved MPR contacts are differentiated at the search's converged "
                                "limit, which the forward approximates to mpr_tolerance: raise "
                                "agreement with <option mpr_tolerance=\"1e-15\" "
                                "mpr_iterations=\"1000\"/>"
                    : inexact ? "the solver stopped with forces away from its solution's (PGS at "
                                "its tolerance): the gradient is the solution's, which the "
                                "forward approximates; raise agreement with a tighter "
                                "--tolerance and more --iterations, or --solver newton"
                              : NULL);
    cli_json_double(&w, "seconds", seconds);
    grad_step_report_write(&w, steps);
    cli_json_end_object(&w);
}


// the gradient, then the FD blocks and the branch replays; CLI_EXIT_OK or an exit code
static int run_check(checkContext* c) {
    gradProblem* p = c->p;
    const gdnModel* m = p->s.m;
    double t0 = grad_seconds();
    gdnStatus st = gdn_adjoint_rollout_gradient(m, &p->r, &p->obj, p->tape, &c->g, c->err,
                                                (int)sizeof(c->err));
    if (st != GDN_OK) {
        return grad_library_error("gradient", st, c->err);
    }
    gradStepReport steps;
    if (grad_step_report(p, &steps) != CLI_EXIT_OK) {
        return CLI_EXIT_ERROR;
    }
    const double J = c->g.J;
    int fail = 0;
    for (int k = 0; k < NBLOCKS && !fail; k++) {
        fail = c->blocks[k].selected && difference_block(c, k, J);
    }
    for (int k = 0; k < NBLOCKS && !fail; k++) {
        fail = c->blocks[k].selected && find_branch_changes(c, k);
    }
    if (fail) {
        grad_step_report_free(&steps);
        return cli_fail("finite differences: %s", c->err);
    }
    write_report(c, J, &steps, grad_seconds() - t0);
    grad_step_report_free(&steps);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        return cli_fail("<stdout>: write error");
    }

    // blocks whose noise bound exceeds the tolerance: their check is weaker than --tol
    for (int b = 0; b < NBLOCKS; b++) {
        const blockResult* r = &c->blocks[b];
        double scale = fmax(r->fd_norm, r->g_norm);
        if (!r->selected || scale == 0 || !(r->max_noise > c->a->tol * scale)) {
            continue;
        }
        char n[CLI_NUMBER_SIZE], x[CLI_NUMBER_SIZE];
        if (r->max_noise < scale) {
            fprintf(stderr, "gradyn gradcheck: note: block %s resolves relative errors above %s "
                    "only (its noise bound over its scale; a larger --eps lowers it)\n",
                    block_names[b], cli_format_double(n, r->max_noise / scale));
        } else {
            fprintf(stderr, "gradyn gradcheck: note: block %s (scale %s) is below its noise "
                    "bound %s: this eps only checks that it is zero to within the noise\n",
                    block_names[b], cli_format_double(x, scale),
                    cli_format_double(n, r->max_noise));
        }
    }

    // the verdict on stderr too
    double worst = 0;
    int k = -1;
    const char* result = verdict(c, &worst, &k);
    if (c->nnotes > 0) {
        const branchNote* n = &c->notes[0];
        fprintf(stderr, "gradyn gradcheck: %ld entries left out: their %s took another branch "
                "than the rollout (first: %s, %s sample, step %ld: %s): the difference straddles "
                "a branch boundary; a smaller --eps helps unless the point lies on it\n",
                c->nnotes, "+eps or -eps sample", n->entry, n->sample, n->step, n->what);
    }
    if (strcmp(result, "pass") == 0) {
        return CLI_EXIT_OK;
    }
    char e[CLI_NUMBER_SIZE], tol[CLI_NUMBER_SIZE];
    if (strcmp(result, "fail") == 0) {
        char label[128] = "";
        if (k >= 0 && c->blocks[k].worst >= 0) {
            entry_label(c, k, c->blocks[k].worst, label, sizeof(label));
        }
        fprintf(stderr, "gradyn gradcheck: worst relative error %s (block %s, entry %s) exceeds "
                "--tol %s\n", cli_format_double(e, worst), k >= 0 ? block_names[k] : "?",
                label, cli_format_double(tol, c->a->tol));
    } else {
        fprintf(stderr, "gradyn gradcheck: inconclusive: every entry of a block took another "
                "branch in a sample; try a smaller --eps\n");
    }
    return CLI_EXIT_ERROR;
}


// the per-block entry arrays and the FD buffers; 0 on success
static int alloc_check(checkContext* c) {
    const gdnModel* m = c->p->s.m;
    int fail = 0;
    for (int k = 0; k < NBLOCKS; k++) {
        blockResult* b = &c->blocks[k];
        b->entries = b->selected ? block_entries(c, k) : 0;
        b->e = calloc((size_t)b->entries + 1, sizeof(entryResult));
        fail |= b->e == NULL;
    }
    c->qpert = calloc((size_t)m->nq + 1, sizeof(double));
    c->dq = calloc((size_t)m->nv + 1, sizeof(double));
    c->state = calloc((size_t)m->nq + (size_t)m->nv + 1, sizeof(double));
    c->g.qpos0 = calloc((size_t)m->nv + 1, sizeof(double));
    c->g.qvel0 = calloc((size_t)m->nv + 1, sizeof(double));
    c->g.ctrl = calloc((size_t)m->nu * (size_t)c->a->steps + 1, sizeof(double));
    c->g.param = calloc((size_t)m->nbody * GDN_N_INERTIA_PARAMS + 1, sizeof(double));
    c->g.vert = calloc(3 * (size_t)m->nvert + 1, sizeof(double));
    return fail || !c->qpert || !c->dq || !c->state || !c->g.qpos0 || !c->g.qvel0 ||
           !c->g.ctrl || !c->g.param || !c->g.vert;
}


static void free_check(checkContext* c) {
    for (int k = 0; k < NBLOCKS; k++) {
        free(c->blocks[k].e);
    }
    free(c->qpert);
    free(c->dq);
    free(c->state);
    free(c->g.qpos0);
    free(c->g.qvel0);
    free(c->g.ctrl);
    free(c->g.param);
    free(c->g.vert);
    gdn_model_free(c->param_model);
    cli_trace_free(&c->nominal);
    cli_trace_free(&c->plus);
    cli_trace_free(&c->minus);
}


int cli_gradcheck(int argc, char** argv) {
    gradArgs a;
    int code = grad_parse_args(argc, argv, 1, &a);
    if (code != CLI_EXIT_OK) {
        return code < 0 ? CLI_EXIT_OK : code;
    }
    static checkContext c;
    memset(&c, 0, sizeof(c));
    c.a = &a;
    c.eps = a.eps > 0 ? a.eps : 1e-6;
    c.noise_ulps = a.noise_ulps > 0 ? a.noise_ulps : NOISE_ULPS;
    if (select_blocks(&c, a.blocks) != 0) {
        return cli_usage_error("gradcheck", "--blocks '%s': names are qpos0, qvel0, ctrl, "
                               "params, verts", a.blocks);
    }
    gradProblem p;
    code = grad_problem_open(&p, &a);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    c.p = &p;
    if (alloc_check(&c) != 0) {
        code = cli_fail("out of memory");
    } else {
        code = run_check(&c);
    }
    free_check(&c);
    grad_problem_close(&p);
    return code;
}
