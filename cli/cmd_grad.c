// SPDX-License-Identifier: Apache-2.0
// gradyn grad: one rollout with the built-in target objective, J and every gradient as JSON.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grad_problem.h"
#include "json_writer.h"

const char cli_grad_usage[] =
    "usage: gradyn grad MODEL.xml\n" GRAD_SYNOPSIS
    "Runs one rollout and one adjoint pass and prints JSON: J, dJ_dqpos0 (nv, tangent space),\n"
    "dJ_dqvel0, dJ_dctrl (T x nu), dJ_dparams (one object per body, the 10 inertia parameters\n"
    "by name), dJ_dverts (per body with a skin), x_T, the wall time, the solver options in\n"
    "effect, and step_flags: the steps with contacts or constraint rows (their ncon, nefc,\n"
    "solver_iter, solver_converged) and the backward pass's derivative report of each\n"
    "(derivative_flags: 1 one-sided, 2 a row near a state boundary, 4 a row near its inclusion\n"
    "margin, 8 a curved MPR contact differentiated at the search's converged limit, 16 a solve\n"
    "stopped with forces away from its solution's (PGS at its tolerance), 32 a tendon's inside\n"
    "wrap differentiated at its equation's root;\n"
    "state_margin, activation_margin).\n";

// the gradient arrays, sized for the problem
typedef struct gradOutputs {
    double* g_qpos0;
    double* g_qvel0;
    double* g_ctrl;
    double* g_param;
    double* g_vert;
} gradOutputs;


static void outputs_free(gradOutputs* o) {
    free(o->g_qpos0);
    free(o->g_qvel0);
    free(o->g_ctrl);
    free(o->g_param);
    free(o->g_vert);
}


// allocate every block (zeroed); 0 on success
static int outputs_alloc(const gdnModel* m, long steps, gradOutputs* o) {
    o->g_qpos0 = calloc((size_t)m->nv + 1, sizeof(double));
    o->g_qvel0 = calloc((size_t)m->nv + 1, sizeof(double));
    o->g_ctrl = calloc((size_t)m->nu * (size_t)steps + 1, sizeof(double));
    o->g_param = calloc((size_t)m->nbody * GDN_N_INERTIA_PARAMS + 1, sizeof(double));
    o->g_vert = calloc(3 * (size_t)m->nvert + 1, sizeof(double));
    return !o->g_qpos0 || !o->g_qvel0 || !o->g_ctrl || !o->g_param || !o->g_vert;
}


// the world position of the objective's point at T (from the tape's last state)
static void final_point(gradProblem* p, double x[3]) {
    gdnModel* m = p->s.m;
    gdnData* d = p->s.d;
    gdn_tape_state(p->tape, p->r.nstep, d->qpos, d->qvel);
    gdn_kinematics(m, d);
    const int b = p->spec.body;
    const double* R = d->xmat + 9 * b;
    for (int i = 0; i < 3; i++) {
        x[i] = d->xpos[3 * b + i] + R[3 * i] * p->spec.point[0] +
               R[3 * i + 1] * p->spec.point[1] + R[3 * i + 2] * p->spec.point[2];
    }
}


// the document: sizes, objective, J, then the gradient blocks
static void write_result(gradProblem* p, const gradArgs* a, const gdnAdjointGradients* g,
                         const gradStepReport* report, double seconds) {
    const gdnModel* m = p->s.m;
    cliJson w;
    cli_json_init(&w, stdout);
    cli_json_begin_object(&w, NULL);
    cli_json_string(&w, "model", a->path);
    cli_json_int(&w, "nq", m->nq);
    cli_json_int(&w, "nv", m->nv);
    cli_json_int(&w, "nu", m->nu);
    cli_json_int(&w, "nbody", m->nbody);
    cli_json_int(&w, "nvert", m->nvert);
    cli_json_int(&w, "steps", a->steps);
    cli_json_double(&w, "timestep", m->opt.timestep);
    cli_json_int(&w, "penalty", m->penalty.enabled);
    cli_json_int(&w, "checkpoint", a->checkpoint);
    grad_write_solver(&w, m);

    cli_json_begin_object(&w, "objective");
    cli_json_string(&w, "body", gdn_id2name(m, "body", p->spec.body));
    cli_json_int(&w, "body_id", p->spec.body);
    cli_json_numbers(&w, "point", p->spec.point, 3);
    cli_json_numbers(&w, "target", p->spec.target, 3);
    cli_json_double(&w, "weight", p->spec.weight);
    cli_json_double(&w, "effort", p->spec.ctrl_weight);
    cli_json_double(&w, "vel_weight", p->spec.vel_weight);
    double x[3];
    final_point(p, x);
    cli_json_numbers(&w, "x_T", x, 3);
    cli_json_end_object(&w);

    cli_json_double(&w, "J", g->J);
    cli_json_double(&w, "seconds", seconds);
    cli_json_numbers(&w, "dJ_dqpos0", g->qpos0, m->nv);
    cli_json_numbers(&w, "dJ_dqvel0", g->qvel0, m->nv);
    cli_json_matrix(&w, "dJ_dctrl", g->ctrl, m->nu > 0 ? (int)a->steps : 0, m->nu);

    // inertia parameters: one object per body, the canonical entries by name
    cli_json_begin_array(&w, "dJ_dparams");
    for (int b = 1; b < m->nbody; b++) {
        cli_json_begin_object(&w, NULL);
        cli_json_string(&w, "body", gdn_id2name(m, "body", b));
        cli_json_int(&w, "id", b);
        for (int k = 0; k < GDN_N_INERTIA_PARAMS; k++) {
            cli_json_double(&w, grad_param_names[k], g->param[GDN_N_INERTIA_PARAMS * b + k]);
        }
        cli_json_end_object(&w);
    }
    cli_json_end_array(&w);

    // vertices: one object per body with a skin, rows in the body's vertex order
    cli_json_begin_array(&w, "dJ_dverts");
    for (int b = 1; b < m->nbody; b++) {
        if (m->body_vertnum[b] == 0) {
            continue;
        }
        cli_json_begin_object(&w, NULL);
        cli_json_string(&w, "body", gdn_id2name(m, "body", b));
        cli_json_int(&w, "id", b);
        cli_json_matrix(&w, "verts", g->vert + 3 * (size_t)m->body_vertadr[b],
                        m->body_vertnum[b], 3);
        cli_json_end_object(&w);
    }
    cli_json_end_array(&w);
    grad_step_report_write(&w, report);
    cli_json_end_object(&w);
}


int cli_grad(int argc, char** argv) {
    gradArgs a;
    int code = grad_parse_args(argc, argv, 0, &a);
    if (code != CLI_EXIT_OK) {
        return code < 0 ? CLI_EXIT_OK : code;
    }
    gradProblem p;
    code = grad_problem_open(&p, &a);
    if (code != CLI_EXIT_OK) {
        return code;
    }
    gradOutputs o = {0};
    if (outputs_alloc(p.s.m, a.steps, &o) != 0) {
        outputs_free(&o);
        grad_problem_close(&p);
        return cli_fail("out of memory");
    }
    gdnAdjointGradients g = {.qpos0 = o.g_qpos0, .qvel0 = o.g_qvel0,
                             .ctrl = p.s.m->nu > 0 ? o.g_ctrl : NULL, .param = o.g_param,
                             .vert = o.g_vert};
    char err[CLI_ERR_SIZE] = "";
    double t0 = grad_seconds();
    gdnStatus st = gdn_adjoint_rollout_gradient(p.s.m, &p.r, &p.obj, p.tape, &g, err,
                                                (int)sizeof(err));
    double seconds = grad_seconds() - t0;
    gradStepReport report = {0};
    if (st != GDN_OK) {
        code = grad_library_error("gradient", st, err);
    } else if ((code = grad_step_report(&p, &report)) == CLI_EXIT_OK) {
        write_result(&p, &a, &g, &report, seconds);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            code = cli_fail("<stdout>: write error");
        }
    }
    grad_step_report_free(&report);
    outputs_free(&o);
    grad_problem_close(&p);
    return code;
}
