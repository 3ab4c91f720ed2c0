// SPDX-License-Identifier: Apache-2.0
// gradyn gradcheck: every block of grad's gradient against central finite differences.
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
// Error per block: ||adjoint - fd||_inf / max(||fd||_inf, floor), floor = 1e-9 max(|J|, 1e-300)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grad_problem.h"
#include "json_writer.h"

static const char gradcheck_usage[] =
    "usage: gradyn gradcheck MODEL.xml [grad's options] [--eps E] [--tol TOL]\n"
    "                        [--blocks qpos0,qvel0,ctrl,params,verts]\n"
    "compares every block of grad's gradient with central finite differences of the rollout\n"
    "objective (step eps, default 1e-6; relative to the mass and inertia scale for those) and\n"
    "prints the worst relative error per block; exit code 1 when one exceeds --tol (1e-5)";

#define NBLOCKS 5
static const char* const block_names[NBLOCKS] = {"qpos0", "qvel0", "ctrl", "params", "verts"};

// the worst disagreement found in one block
typedef struct blockResult {
    int selected;
    long entries;
    double max_abs_error;  // ||adjoint - fd||_inf
    double scale;          // ||fd||_inf
    char worst[128];       // label of the entry with the largest error
} blockResult;

// everything the FD loops need
typedef struct checkContext {
    gradProblem* p;
    const gradArgs* a;
    gdnAdjointGradients g;
    double eps;
    blockResult blocks[NBLOCKS];
    char err[CLI_ERR_SIZE];
} checkContext;


// J of the current rollout on model m; 0 on success (message in c->err)
static int objective(checkContext* c, const gdnModel* m, double* J) {
    gdnStatus st = gdn_rollout_objective(m, &c->p->r, &c->p->obj, c->p->tape, J, c->err,
                                         (int)sizeof(c->err));
    return st != GDN_OK;
}


// record one entry's comparison
static void compare(blockResult* b, double adjoint, double fd, const char* label) {
    double e = fabs(adjoint - fd);
    if (!(e <= b->max_abs_error)) {
        b->max_abs_error = isfinite(e) ? e : HUGE_VAL;
        snprintf(b->worst, sizeof(b->worst), "%s", label);
    }
    b->scale = fmax(b->scale, fabs(fd));
    b->entries++;
}


// dJ/dq0 along each tangent direction: q0 (+) (+-h e_k)
static int check_qpos0(checkContext* c, double* qpert, double* dq) {
    gradProblem* p = c->p;
    const gdnModel* m = p->s.m;
    const double* saved = p->r.qpos0;
    int fail = 0;
    for (int k = 0; k < m->nv && !fail; k++) {
        double J[2];
        dq[k] = 1.0;
        for (int s = 0; s < 2 && !fail; s++) {
            memcpy(qpert, saved, sizeof(double) * (size_t)m->nq);
            gdn_integrate_pos(m, qpert, dq, s == 0 ? c->eps : -c->eps);
            p->r.qpos0 = qpert;
            fail = objective(c, m, &J[s]);
            p->r.qpos0 = saved;
        }
        dq[k] = 0.0;
        char label[64];
        snprintf(label, sizeof(label), "qpos0[%d]", k);
        compare(&c->blocks[0], c->g.qpos0[k], (J[0] - J[1]) / (2 * c->eps), label);
    }
    return fail;
}


// central difference of J in x[i] (restored exactly); 0 on success
static int central(checkContext* c, const gdnModel* m, double* x, double h, double* d) {
    const double x0 = *x;
    double J[2];
    *x = x0 + h;
    int fail = objective(c, m, &J[0]);
    *x = x0 - h;
    fail = fail || objective(c, m, &J[1]);
    *x = x0;
    *d = (J[0] - J[1]) / (2 * h);
    return fail;
}


// dJ/dv0 and dJ/du_t: plain coordinates of the rollout inputs
static int check_vectors(checkContext* c) {
    gradProblem* p = c->p;
    const gdnModel* m = p->s.m;
    int fail = 0;
    char label[64];
    for (int k = 0; c->blocks[1].selected && k < m->nv && !fail; k++) {
        double d = 0;
        fail = central(c, m, &p->qvel0[k], c->eps, &d);
        snprintf(label, sizeof(label), "qvel0[%d]", k);
        compare(&c->blocks[1], c->g.qvel0[k], d, label);
    }
    long n = (long)m->nu * p->r.nstep;
    for (long i = 0; c->blocks[2].selected && i < n && !fail; i++) {
        double d = 0;
        fail = central(c, m, &p->ctrl[i], c->eps, &d);
        snprintf(label, sizeof(label), "ctrl[%ld][%ld]", i / m->nu, i % m->nu);
        compare(&c->blocks[2], c->g.ctrl[i], d, label);
    }
    return fail;
}


// a fresh copy of the model as the command line built it (file + options + --penalty); NULL on
// failure
static gdnModel* fresh_model(checkContext* c) {
    gdnModel* m = NULL;
    if (gdn_load_xml(c->a->path, &m, c->err, (int)sizeof(c->err), NULL, 0) != GDN_OK) {
        return NULL;
    }
    m->opt = c->p->s.m->opt; // --nocontact, --noconstraint and the solver options
    const gdnPenalty* pen = &c->p->s.m->penalty;
    gdn_model_set_penalty(m, pen->enabled, pen->height, pen->stiffness, pen->damping);
    return m;
}


// J with body b's parameters set to params (on the copy m); 0 on success
static int objective_params(checkContext* c, gdnModel* m, int b, const double* params,
                            double* J) {
    gdnInertia in;
    gdn_inertia_from_params(params, &in);
    if (gdn_model_set_body_inertia(m, b, &in) != GDN_OK) {
        snprintf(c->err, sizeof(c->err), "body %d: perturbed inertia refused", b);
        return 1;
    }
    return objective(c, m, J);
}


// dJ/dpi: per body, the 10 canonical parameters on a fresh copy of the model
static int check_params(checkContext* c) {
    const gdnModel* m0 = c->p->s.m;
    int fail = 0;
    for (int b = 1; b < m0->nbody && !fail; b++) {
        gdnModel* m = fresh_model(c);
        if (!m) {
            return 1;
        }
        gdnInertia in0;
        double p0[GDN_N_INERTIA_PARAMS], pp[GDN_N_INERTIA_PARAMS];
        gdn_body_inertia(m, b, &in0);
        gdn_inertia_params(&in0, p0);
        double trace = in0.inertia[0] + in0.inertia[4] + in0.inertia[8];
        for (int k = 0; k < GDN_N_INERTIA_PARAMS && !fail; k++) {
            double rel = 100 * c->eps;
            double h = k == 0 ? rel * p0[0] : k < 4 ? c->eps : rel * trace / 3;
            int forward = k == 0 && !(h > 0);
            h = h > 0 ? h : c->eps;
            double J[2];
            for (int s = 0; s < 2 && !fail; s++) {
                memcpy(pp, p0, sizeof(pp));
                pp[k] += s == 0 ? h : (forward ? 0.0 : -h);
                fail = objective_params(c, m, b, pp, &J[s]);
            }
            char label[128];
            snprintf(label, sizeof(label), "%s.%s", gdn_id2name(m0, "body", b),
                     grad_param_names[k]);
            double d = (J[0] - J[1]) / (forward ? h : 2 * h);
            compare(&c->blocks[3], c->g.param[GDN_N_INERTIA_PARAMS * b + k], d, label);
        }
        gdn_model_free(m);
    }
    return fail;
}


// dJ/dV: every vertex coordinate, written into the model and restored exactly
static int check_verts(checkContext* c) {
    gdnModel* m = c->p->s.m;
    int fail = 0;
    for (int b = 1; b < m->nbody && !fail; b++) {
        for (int v = 0; v < m->body_vertnum[b] && !fail; v++) {
            int i = m->body_vertadr[b] + v;
            for (int k = 0; k < 3 && !fail; k++) {
                double d = 0;
                fail = central(c, m, &m->vert_pos[3 * i + k], c->eps, &d);
                char label[128];
                snprintf(label, sizeof(label), "%s.vert[%d].%c", gdn_id2name(m, "body", b),
                         v, "xyz"[k]);
                compare(&c->blocks[4], c->g.vert[3 * i + k], d, label);
            }
        }
    }
    return fail;
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


// the report; returns the worst relative error over the selected blocks
static double write_report(checkContext* c, double J, double floor_, double seconds) {
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
    cli_json_double(&w, "eps", c->eps);
    cli_json_double(&w, "tol", c->a->tol);
    cli_json_double(&w, "J", J);
    cli_json_double(&w, "floor", floor_);
    double worst = 0;
    cli_json_begin_array(&w, "blocks");
    for (int k = 0; k < NBLOCKS; k++) {
        const blockResult* b = &c->blocks[k];
        if (!b->selected) {
            continue;
        }
        double rel = b->max_abs_error / fmax(b->scale, floor_);
        worst = isnan(rel) || rel > worst ? (isnan(rel) ? HUGE_VAL : rel) : worst;
        cli_json_begin_object(&w, NULL);
        cli_json_string(&w, "block", block_names[k]);
        cli_json_int(&w, "entries", b->entries);
        cli_json_double(&w, "rel_error", b->entries ? rel : 0.0);
        cli_json_double(&w, "max_abs_error", b->max_abs_error);
        cli_json_double(&w, "fd_norm_inf", b->scale);
        cli_json_string(&w, "worst_entry", b->max_abs_error > 0 ? b->worst : NULL);
        cli_json_end_object(&w);
    }
    cli_json_end_array(&w);
    cli_json_double(&w, "worst_rel_error", worst);
    cli_json_string(&w, "result", worst <= c->a->tol ? "pass" : "fail");
    cli_json_double(&w, "seconds", seconds);
    cli_json_end_object(&w);
    return worst;
}


// the gradient, then the FD blocks; CLI_EXIT_OK or an exit code
static int run_check(checkContext* c) {
    gradProblem* p = c->p;
    const gdnModel* m = p->s.m;
    double t0 = grad_seconds();
    gdnStatus st = gdn_adjoint_rollout_gradient(m, &p->r, &p->obj, p->tape, &c->g, c->err,
                                                (int)sizeof(c->err));
    if (st != GDN_OK) {
        return cli_fail("%s (%s)%s", c->err[0] ? c->err : "gradient failed",
                        gdn_status_string(st),
                        st == GDN_ERR_UNSUPPORTED ? CLI_CONSTRAINT_HINT : "");
    }
    double J = c->g.J;
    double* qpert = malloc(sizeof(double) * ((size_t)m->nq + (size_t)m->nv) + 1);
    if (!qpert) {
        return cli_fail("out of memory");
    }
    double* dq = qpert + m->nq;
    memset(dq, 0, sizeof(double) * (size_t)m->nv);
    int fail = c->blocks[0].selected && check_qpos0(c, qpert, dq);
    fail = fail || check_vectors(c);
    fail = fail || (c->blocks[3].selected && check_params(c));
    fail = fail || (c->blocks[4].selected && check_verts(c));
    free(qpert);
    if (fail) {
        return cli_fail("finite differences: %s", c->err);
    }
    double floor_ = 1e-9 * fmax(fabs(J), 1e-300);
    double worst = write_report(c, J, floor_, grad_seconds() - t0);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        return cli_fail("<stdout>: write error");
    }
    if (!(worst <= c->a->tol)) {
        fprintf(stderr, "gradyn gradcheck: worst relative error %.3g exceeds --tol %.3g\n",
                worst, c->a->tol);
        return CLI_EXIT_ERROR;
    }
    return CLI_EXIT_OK;
}


int cli_gradcheck(int argc, char** argv) {
    gradArgs a;
    int code = grad_parse_args(argc, argv, 1, gradcheck_usage, &a);
    if (code != CLI_EXIT_OK) {
        return code < 0 ? CLI_EXIT_OK : code;
    }
    checkContext c;
    memset(&c, 0, sizeof(c));
    c.a = &a;
    c.eps = a.eps > 0 ? a.eps : 1e-6;
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
    const gdnModel* m = p.s.m;
    c.g.qpos0 = calloc((size_t)m->nv + 1, sizeof(double));
    c.g.qvel0 = calloc((size_t)m->nv + 1, sizeof(double));
    c.g.ctrl = calloc((size_t)m->nu * (size_t)a.steps + 1, sizeof(double));
    c.g.param = calloc((size_t)m->nbody * GDN_N_INERTIA_PARAMS + 1, sizeof(double));
    c.g.vert = calloc(3 * (size_t)m->nvert + 1, sizeof(double));
    if (!c.g.qpos0 || !c.g.qvel0 || !c.g.ctrl || !c.g.param || !c.g.vert) {
        code = cli_fail("out of memory");
    } else {
        code = run_check(&c);
    }
    free(c.g.qpos0);
    free(c.g.qvel0);
    free(c.g.ctrl);
    free(c.g.param);
    free(c.g.vert);
    grad_problem_close(&p);
    return code;
}
