// SPDX-License-Identifier: Apache-2.0
// The adjoint demo: trajectory optimization and system identification by gradient descent on
// gradients from ONE backward pass per iteration (gdn_adjoint_rollout_gradient).
//
//   gradyn_adjoint_demo [--svg PATH] [--models DIR] [--iters N]
//
// 1. Reach: arm7 (7 hinges, springs, damping, armature, motor/position/velocity/affine
//    actuators) starts bent and must bring its fingertip to a target and stop there after
//    0.6 s (300 steps). Unknowns: 12 control knots per actuator (piecewise constant, 84
//    values, clamped to ctrlrange); J = |tip_T - target|^2 + 0.01 |v_T|^2 + 1e-5 sum |u_t|^2.
//    dJ/dknot is the sum of dJ/du_t over the knot's steps (chain rule on the adjoint output).
// 2. System identification: a double pendulum is driven by a known excitation for 1.2 s and
//    its trajectory recorded. Starting from a wrong lower link (mass x1.6, COM off by 9 cm),
//    recover the link's mass and COM (x, z; y is along the hinge axes, unobservable) from
//    dJ/dpi, J = mean_t |q_t - q_t^rec|^2 + 0.01 |v_t - v_t^rec|^2.
// Both use the same L-BFGS (examples/lbfgs.c); the loss curves go to an SVG file.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "demo_timing.h"
#include "lbfgs.h"
#include "svg_plot.h"

#ifndef GDN_EXAMPLE_MODELS
#    define GDN_EXAMPLE_MODELS "tests/models"
#endif

#define MAX_ITERS 400

static gdnModel* load_model(const char* dir, const char* name) {
    char path[1024], err[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "adjoint demo: %s\n", err);
        return NULL;
    }
    return m;
}

// the rollout, objective and tape every evaluation uses
typedef struct problem {
    gdnModel* m;
    gdnRollout r;
    gdnObjective obj;
    gdnTape* tape;
    gdnAdjointGradients g;   // gradient buffers (ctrl, param as the problem needs)
    int backward_passes;
} problem;

// median seconds of a forward rollout and of a gradient (forward + backward) at the current
// inputs, interleaved, n runs each
static void time_gradient(problem* p, int n, double* forward, double* gradient) {
    demo_time_gradient(p->m, &p->r, &p->obj, p->tape, &p->g, n, forward, gradient);
}

// ---------------------------------------------------------------- 1. reach (arm7)

#define REACH_T 300
#define REACH_KNOTS 12

typedef struct reach {
    problem p;
    gdnTargetObjective spec;
    double* ctrl;     // (T x nu)
    double* gctrl;    // (T x nu)
} reach;

// control of actuator i from the unconstrained unknown z: inside ctrlrange [lo, hi] by
// u = mid + half tanh(z) when limited, u = z otherwise; *dudz is the derivative
static double control_of(const gdnModel* m, int i, double z, double* dudz) {
    if (!m->actuator_ctrllimited[i]) {
        *dudz = 1.0;
        return z;
    }
    double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
    double th = tanh(z);
    *dudz = 0.5 * (hi - lo) * (1 - th * th);
    return 0.5 * (hi + lo) + 0.5 * (hi - lo) * th;
}

// the inverse map (for the initial guess), z = atanh of the scaled control
static double unknown_of(const gdnModel* m, int i, double u) {
    if (!m->actuator_ctrllimited[i]) {
        return u;
    }
    double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
    double s = (2 * u - hi - lo) / (hi - lo);
    return atanh(fmax(-0.999, fmin(0.999, s)));
}

// expand knots x (KNOTS x nu unknowns) into the control schedule and the chain-rule factors
static void knots_to_ctrl(const gdnModel* m, const double* x, double* ctrl, double* dudz) {
    const int nu = m->nu, per = REACH_T / REACH_KNOTS;
    for (int k = 0; k < REACH_KNOTS; k++) {
        for (int i = 0; i < nu; i++) {
            ctrl[k * nu + i] = control_of(m, i, x[k * nu + i], &dudz[k * nu + i]);
        }
    }
    for (int t = REACH_T - 1; t >= 0; t--) {
        memmove(ctrl + t * nu, ctrl + (t / per) * nu, sizeof(double) * (size_t)nu);
    }
}

// J(knots) and, when wanted, dJ/dknot = sum over the knot's steps of dJ/du_t
static double reach_objective(void* user, const double* x, double* grad) {
    reach* c = user;
    const gdnModel* m = c->p.m;
    const int nu = m->nu, per = REACH_T / REACH_KNOTS;
    double dudz[REACH_KNOTS * 16];
    knots_to_ctrl(m, x, c->ctrl, dudz);
    double J = NAN;
    if (!grad) {
        gdn_rollout_objective(m, &c->p.r, &c->p.obj, c->p.tape, &J, NULL, 0);
        return J;
    }
    char err[512];
    if (gdn_adjoint_rollout_gradient(m, &c->p.r, &c->p.obj, c->p.tape, &c->p.g, err,
                                     (int)sizeof(err)) != GDN_OK) {
        fprintf(stderr, "reach: %s\n", err);
        return NAN;
    }
    c->p.backward_passes++;
    memset(grad, 0, sizeof(double) * (size_t)(REACH_KNOTS * nu));
    for (int t = 0; t < REACH_T; t++) {
        for (int i = 0; i < nu; i++) {
            grad[(t / per) * nu + i] += c->gctrl[t * nu + i];
        }
    }
    for (int k = 0; k < REACH_KNOTS * nu; k++) {
        grad[k] *= dudz[k];
    }
    return c->p.g.J;
}

static void print_iteration(void* user, int iteration, double loss, int evaluations) {
    (void)user;
    if (iteration <= 10 || iteration % 10 == 0) {
        printf("  iter %3d  loss %.6e  (%d evaluations)\n", iteration, loss, evaluations);
    }
}

// world position of the objective's point at the tape's final state
static void final_tip(problem* p, const gdnTargetObjective* spec, gdnData* d, double x[3]) {
    gdn_tape_state(p->tape, p->r.nstep, d->qpos, d->qvel);
    gdn_kinematics(p->m, d);
    const double* R = d->xmat + 9 * spec->body;
    for (int i = 0; i < 3; i++) {
        x[i] = d->xpos[3 * spec->body + i] + R[3 * i] * spec->point[0] +
               R[3 * i + 1] * spec->point[1] + R[3 * i + 2] * spec->point[2];
    }
}

static int run_reach(const char* dir, int iters, double* history, int* niter) {
    reach c;
    memset(&c, 0, sizeof(c));
    c.p.m = load_model(dir, "arm7.xml");
    if (!c.p.m) {
        return 1;
    }
    gdnModel* m = c.p.m;
    const int nu = m->nu, nx = REACH_KNOTS * nu;
    gdnData* d = NULL;
    gdn_data_create(m, &d);
    gdn_data_reset_keyframe(m, d, 0);

    // rollout from the keyframe (copied: d is reused below), controls from the knots
    c.ctrl = calloc((size_t)(REACH_T * nu), sizeof(double));
    c.gctrl = calloc((size_t)(REACH_T * nu), sizeof(double));
    double* x = calloc((size_t)nx, sizeof(double));
    double* q0 = calloc((size_t)(m->nq + m->nv), sizeof(double));
    if (!c.ctrl || !c.gctrl || !x || !q0) {
        fprintf(stderr, "reach: out of memory\n");
        return 1;
    }
    double* v0 = q0 + m->nq;
    memcpy(q0, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(v0, d->qvel, sizeof(double) * (size_t)m->nv);
    gdn_rollout_init(m, REACH_T, &c.p.r);
    c.p.r.qpos0 = q0;
    c.p.r.qvel0 = v0;
    c.p.r.ctrl = c.ctrl;
    c.p.g.ctrl = c.gctrl;

    // the objective: fingertip (site "tip", 0.1 m out of the hand) to the target, at rest
    c.spec.body = gdn_name2id(m, "body", "hand");
    c.spec.point[2] = 0.1;
    // a reachable target: where constant controls u_ref (inside ctrlrange) take the tip in
    // REACH_T steps of the simulator
    const double u_ref[7] = {0.3, 0.9, 0.4, 0.5, -0.3, 0.4, -0.5};
    memcpy(d->ctrl, u_ref, sizeof(u_ref));
    for (int t = 0; t < REACH_T; t++) {
        gdn_step(m, d);
    }
    gdn_kinematics(m, d);
    double target[3];
    for (int i = 0; i < 3; i++) {
        target[i] = d->xpos[3 * c.spec.body + i] + d->xmat[9 * c.spec.body + 3 * i + 2] * 0.1;
    }
    gdn_data_reset_keyframe(m, d, 0);
    for (int k = 0; k < REACH_KNOTS; k++) {
        for (int i = 0; i < nu; i++) {
            x[k * nu + i] = unknown_of(m, i, d->ctrl[i]);
        }
    }
    memcpy(c.spec.target, target, sizeof(target));
    c.spec.weight = 1.0;
    c.spec.vel_weight = 0.01;
    c.spec.ctrl_weight = 1e-5;
    gdn_objective_target(m, &c.spec, &c.p.obj);
    if (gdn_tape_create(m, REACH_T, 1, &c.p.tape, NULL, 0) != GDN_OK) {
        fprintf(stderr, "reach: out of memory\n");
        return 1;
    }

    double tip[3];
    reach_objective(&c, x, NULL);
    final_tip(&c.p, &c.spec, d, tip);
    printf("1. reach: arm7 (nv = %d, nu = %d), %d steps of %g s, %d knots x %d controls = "
           "%d unknowns\n", m->nv, nu, REACH_T, m->opt.timestep, REACH_KNOTS, nu, nx);
    printf("   target (%.2f, %.2f, %.2f); with the keyframe's controls the tip ends at "
           "(%.3f, %.3f, %.3f)\n", target[0], target[1], target[2], tip[0], tip[1], tip[2]);

    lbfgsOptions opt = {iters, 8, NULL, NULL, 0.5, 1e-12};
    *niter = lbfgs_minimize(reach_objective, &c, x, nx, &opt, history, print_iteration);
    if (*niter < 0) {
        return 1;
    }
    reach_objective(&c, x, NULL);
    final_tip(&c.p, &c.spec, d, tip);
    double dist = sqrt(pow(tip[0] - target[0], 2) + pow(tip[1] - target[1], 2) +
                       pow(tip[2] - target[2], 2));
    double vmax = 0;
    for (int i = 0; i < m->nv; i++) {
        vmax = fmax(vmax, fabs(d->qvel[i]));
    }
    printf("   after %d iterations (%d backward passes): loss %.3e -> %.3e (x%.1e), tip at "
           "(%.3f, %.3f, %.3f), %.1f mm from the target, max |v_T| %.3f rad/s\n", *niter,
           c.p.backward_passes, history[0], history[*niter], history[0] / history[*niter],
           tip[0], tip[1], tip[2], 1e3 * dist, vmax);
    double tf = 0, tg = 0;
    time_gradient(&c.p, 21, &tf, &tg);
    printf("   timing: forward rollout %.3f ms, gradient (forward + backward, all %d dJ/du_t) "
           "%.3f ms = %.2fx the rollout; central FD of the %d knots would take %d rollouts "
           "(%.0fx)\n\n", 1e3 * tf, REACH_T * nu, 1e3 * tg, tg / tf, nx, 2 * nx,
           2 * nx * tf / tg);

    gdn_tape_free(c.p.tape);
    gdn_data_free(d);
    gdn_model_free(m);
    free(c.ctrl);
    free(c.gctrl);
    free(x);
    free(q0);
    return 0;
}

// ---------------------------------------------------------------- 2. system identification

#define SYSID_T 600

typedef struct sysid {
    problem p;
    int body;                 // the link being identified
    gdnInertia truth, start;  // the recorded model's and the initial guess's inertia
    const double* qrec;       // ((T + 1) x nq) recorded positions
    const double* vrec;       // ((T + 1) x nv) recorded velocities
    double* gparam;           // (nbody x 10)
} sysid;

// l_t = (|q_t - q_t^rec|^2 + 0.01 |v_t - v_t^rec|^2) / (T + 1), terminal the same at T
static gdnStatus tracking_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                               double* gqpos, double* gqvel, double* gctrl) {
    (void)gctrl;
    const sysid* c = user;
    const double w = 1.0 / (SYSID_T + 1), wv = 0.01 * w;
    const double* qr = c->qrec + (size_t)t * (size_t)m->nq;
    const double* vr = c->vrec + (size_t)t * (size_t)m->nv;
    double J = 0;
    for (int i = 0; i < m->nq; i++) {
        double e = s->qpos[i] - qr[i];
        J += w * e * e;
        if (gqpos) {
            gqpos[i] = 2 * w * e;
        }
    }
    for (int i = 0; i < m->nv; i++) {
        double e = s->qvel[i] - vr[i];
        J += wv * e * e;
        if (gqvel) {
            gqvel[i] = 2 * wv * e;
        }
    }
    *value = J;
    return GDN_OK;
}

// the unknowns x = (mass, com_x, com_z) into the model (COM y and inertia stay as recorded)
static int set_guess(sysid* c, const double* x) {
    gdnInertia in = c->truth;
    in.mass = x[0];
    in.com[0] = x[1];
    in.com[2] = x[2];
    return gdn_model_set_body_inertia(c->p.m, c->body, &in) != GDN_OK;
}

static double sysid_objective(void* user, const double* x, double* grad) {
    sysid* c = user;
    if (set_guess(c, x)) {
        return NAN;
    }
    double J = NAN;
    if (!grad) {
        gdn_rollout_objective(c->p.m, &c->p.r, &c->p.obj, c->p.tape, &J, NULL, 0);
        return J;
    }
    memset(c->gparam, 0, sizeof(double) * (size_t)c->p.m->nbody * GDN_N_INERTIA_PARAMS);
    char err[512];
    if (gdn_adjoint_rollout_gradient(c->p.m, &c->p.r, &c->p.obj, c->p.tape, &c->p.g, err,
                                     (int)sizeof(err)) != GDN_OK) {
        fprintf(stderr, "sysid: %s\n", err);
        return NAN;
    }
    c->p.backward_passes++;
    const double* gp = c->gparam + GDN_N_INERTIA_PARAMS * c->body;
    grad[0] = gp[0];
    grad[1] = gp[1];
    grad[2] = gp[3];
    return c->p.g.J;
}

static int run_sysid(const char* dir, int iters, double* history, int* niter) {
    sysid c;
    memset(&c, 0, sizeof(c));
    c.p.m = load_model(dir, "double_pendulum.xml");
    if (!c.p.m) {
        return 1;
    }
    gdnModel* m = c.p.m;
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    c.body = gdn_name2id(m, "body", "lower");
    gdn_body_inertia(m, c.body, &c.truth);

    // the excitation and the recorded trajectory of the true model
    double* ctrl = calloc((size_t)(SYSID_T * nu), sizeof(double));
    double* qrec = calloc((size_t)((SYSID_T + 1) * nq), sizeof(double));
    double* vrec = calloc((size_t)((SYSID_T + 1) * nv), sizeof(double));
    c.gparam = calloc((size_t)m->nbody * GDN_N_INERTIA_PARAMS, sizeof(double));
    gdnData* d = NULL;
    if (!ctrl || !qrec || !vrec || !c.gparam || gdn_data_create(m, &d) != GDN_OK) {
        fprintf(stderr, "sysid: out of memory\n");
        return 1;
    }
    const double h = m->opt.timestep, pi = 3.14159265358979323846;
    for (int t = 0; t < SYSID_T; t++) {
        ctrl[t * nu] = 1.5 * sin(2 * pi * 1.3 * t * h);
        ctrl[t * nu + 1] = 0.8 * sin(2 * pi * 2.1 * t * h + 0.5);
    }
    gdn_data_reset(m, d);
    d->qpos[0] = 0.5;
    d->qpos[1] = -0.3;
    const double q0[2] = {d->qpos[0], d->qpos[1]}, v0[2] = {0, 0};
    for (int t = 0; t <= SYSID_T; t++) {
        memcpy(qrec + t * nq, d->qpos, sizeof(double) * (size_t)nq);
        memcpy(vrec + t * nv, d->qvel, sizeof(double) * (size_t)nv);
        memcpy(d->ctrl, ctrl + (t < SYSID_T ? t : 0) * nu, sizeof(double) * (size_t)nu);
        if (t < SYSID_T && gdn_step(m, d) != GDN_OK) {
            fprintf(stderr, "sysid: recording failed\n");
            return 1;
        }
    }

    // the same rollout on the model being identified, tracking cost at every step
    c.qrec = qrec;
    c.vrec = vrec;
    gdn_rollout_init(m, SYSID_T, &c.p.r);
    c.p.r.qpos0 = q0;
    c.p.r.qvel0 = v0;
    c.p.r.ctrl = ctrl;
    c.p.obj.terminal = (gdnCost){tracking_cost, &c, 0};
    c.p.obj.running = (gdnCost){tracking_cost, &c, 0};
    c.p.g.param = c.gparam;
    if (gdn_tape_create(m, SYSID_T, 1, &c.p.tape, NULL, 0) != GDN_OK) {
        fprintf(stderr, "sysid: out of memory\n");
        return 1;
    }
    const double truth[3] = {c.truth.mass, c.truth.com[0], c.truth.com[2]};
    double x[3] = {1.6 * truth[0], truth[1] + 0.04, truth[2] - 0.08};
    const double lo[3] = {0.05, -1, -1}, hi[3] = {20, 1, 1};
    printf("2. system identification: double pendulum, %d steps (%.1f s) under a two-sine "
           "excitation; link 'lower'\n", SYSID_T, SYSID_T * h);
    printf("   truth:   mass %.4f kg, COM x %+.4f m, z %+.4f m\n", truth[0], truth[1],
           truth[2]);
    printf("   guess:   mass %.4f kg, COM x %+.4f m, z %+.4f m\n", x[0], x[1], x[2]);

    lbfgsOptions opt = {iters, 8, lo, hi, 0.05, 1e-20};
    *niter = lbfgs_minimize(sysid_objective, &c, x, 3, &opt, history, print_iteration);
    if (*niter < 0) {
        return 1;
    }
    printf("   found:   mass %.4f kg, COM x %+.4f m, z %+.4f m after %d iterations (%d "
           "backward passes)\n", x[0], x[1], x[2], *niter, c.p.backward_passes);
    printf("   errors:  mass %.1e kg, COM %.1e m; loss %.3e -> %.3e\n", fabs(x[0] - truth[0]),
           fmax(fabs(x[1] - truth[1]), fabs(x[2] - truth[2])), history[0], history[*niter]);
    set_guess(&c, x);
    double tf = 0, tg = 0;
    time_gradient(&c.p, 21, &tf, &tg);
    printf("   timing: forward rollout %.3f ms, gradient (forward + backward, all %d inertia "
           "parameters) %.3f ms = %.2fx the rollout\n\n", 1e3 * tf,
           GDN_N_INERTIA_PARAMS * (m->nbody - 1), 1e3 * tg, tg / tf);

    gdn_tape_free(c.p.tape);
    gdn_data_free(d);
    gdn_model_free(m);
    free(ctrl);
    free(qrec);
    free(vrec);
    free(c.gparam);
    return 0;
}

int main(int argc, char** argv) {
    const char* svg = "adjoint_demo.svg";
    const char* dir = GDN_EXAMPLE_MODELS;
    int iters = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--svg")) {
            svg = argv[i + 1];
        } else if (!strcmp(argv[i], "--models")) {
            dir = argv[i + 1];
        } else if (!strcmp(argv[i], "--iters")) {
            iters = atoi(argv[i + 1]);
        }
    }
    iters = iters < 1 ? 1 : iters > MAX_ITERS ? MAX_ITERS : iters;
    static double reach_loss[MAX_ITERS + 1], sysid_loss[MAX_ITERS + 1];
    int reach_iters = 0, sysid_iters = 0;
    double t0 = demo_now_seconds();
    if (run_reach(dir, iters, reach_loss, &reach_iters) != 0 ||
        run_sysid(dir, iters, sysid_loss, &sysid_iters) != 0) {
        return 1;
    }
    svgSeries series[2] = {
        {"arm7 reach: |tip_T - target|^2 + ...", "#1f77b4", reach_loss, reach_iters + 1},
        {"double pendulum: identify mass and COM", "#d62728", sysid_loss, sysid_iters + 1},
    };
    if (svg_plot_write(svg, "gradyn adjoint demo: loss per L-BFGS iteration", series, 2) != 0) {
        fprintf(stderr, "adjoint demo: cannot write %s\n", svg);
        return 1;
    }
    printf("loss curves written to %s (%.1f s in total)\n", svg, demo_now_seconds() - t0);
    return 0;
}
