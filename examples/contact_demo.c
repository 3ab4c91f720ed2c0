// SPDX-License-Identifier: Apache-2.0
// The contact demo: L-BFGS on exact adjoint gradients through contact finds the pusher
// controls that make a box slide to a target and stop there by friction.
//
//   gradyn_contact_demo [--svg LOSS.svg] [--paths-svg PATHS.svg] [--model push_box.xml]
//                       [--iters N]
//
// Scene examples/models/push_box.xml: a 12 x 8 x 6 cm box on a floor (friction 0.3), a
// spring-held sphere pusher on two motored slides that touches only the box. Unknowns: 13
// control knots per motor over the 1.2 s rollout (600 steps), linear in between (26 values,
// bounded by +-ctrl_max); J = 10 |p_T - target|^2 + |v_T|^2 + 0.01 wz_T^2 + 1e-4 h sum |u_t|^2.
// Every rollout has the box's floor contacts (plane-box) and the pusher's (sphere-box)
// in the constraint solve, and every gradient is one gdn_adjoint_rollout_gradient call.
//
// How the scene was chosen (first with a capsule lying on its side, the box once box pairs
// had derivatives): J is smooth only while the contact set and the rows' states stay the same.
// (1) A pusher that starts apart from the body meets it with a force jump (the reference
// acceleration's damping term at zero depth), so it starts touching. (2) A pusher pair with
// friction chattered against the body (24 contact spans in one push); the pair is frictionless
// (condim 1). (3) A sliding body hops on MuJoCo's soft frictional contact (the friction rows'
// damping lifts it, by about b mu v / k, above the surface where the rows end), with either
// cone and every solref and solimp tried; its floor contacts leave and re-enter the set many
// times a rollout, each re-entry a small jump of J. MuJoCo 2.2.2 does the same on this scene
// (settled, then 1 m/s along x for 200 steps: 42 contact count changes, max |vz| 0.077 m/s, in
// both). That is the physics gdn_step integrates, so the demo keeps it: the gradient is the
// exact derivative of each smooth piece, and the line search pays for the jumps with extra
// evaluations once the loss is small. (4) A push exactly along x is a point of symmetry where
// J has a kink in the y knots (central FD there is 4 % off the one-sided adjoint), so the
// initial guess pushes slightly off the axis.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#include "contact_push.h"
#include "demo_timing.h"
#include "lbfgs.h"
#include "svg_paths.h"
#include "svg_plot.h"

#ifndef GDN_EXAMPLE_SCENE
#    define GDN_EXAMPLE_SCENE "examples/models/push_box.xml"
#endif

#define PUSH_T 600
#define PUSH_KNOTS 13
#define PUSH_SETTLE 200
#define MAX_ITERS 400

static void print_iteration(void* user, int iteration, double loss, int evaluations) {
    (void)user;
    if (iteration <= 10 || iteration % 10 == 0) {
        printf("  iter %3d  loss %.6e  (%d evaluations)\n", iteration, loss, evaluations);
    }
}

// what one rollout did: the box's end point, speed and travel, the last step with the
// pusher-box contact and the box's slide after it, the steps with contact rows
typedef struct summary {
    double end[2], dist, speed, travel, slide, t_release;
    int steps_with_rows, max_ncon, episodes;  // episodes: separate spans of pusher contact
    int floor_changes;                        // steps whose floor contact count changed
} summary;

static void summarize(pushProblem* p, const double* box, summary* s) {
    const gdnModel* m = p->m;
    int pusher_geom = gdn_name2id(m, "geom", "pusher"), last = -1, touching = 0, nfloor = -1;
    memset(s, 0, sizeof(*s));
    for (int t = 0; t < p->nstep; t++) {
        gdnTapeStep rec;
        if (gdn_tape_step(p->tape, t, &rec) != GDN_OK) {
            continue;
        }
        s->steps_with_rows += rec.nefc > 0;
        s->max_ncon = rec.ncon > s->max_ncon ? rec.ncon : s->max_ncon;
        int on = 0, fl = 0;
        for (int c = 0; c < rec.ncon; c++) {
            int pc = rec.contact[c].geom1 == pusher_geom || rec.contact[c].geom2 == pusher_geom;
            on |= pc;
            fl += !pc;
        }
        s->floor_changes += nfloor >= 0 && fl != nfloor;
        nfloor = fl;
        s->episodes += on && !touching;
        touching = on;
        last = on ? t : last;
    }
    for (int t = 0; t < p->nstep; t++) {
        double dx = box[2 * t + 2] - box[2 * t], dy = box[2 * t + 3] - box[2 * t + 1];
        s->travel += hypot(dx, dy);
        if (t > last) {
            s->slide += hypot(dx, dy);
        }
    }
    double* v = malloc(sizeof(double) * (size_t)m->nv);
    if (v && gdn_tape_state(p->tape, p->nstep, NULL, v) == GDN_OK) {
        s->speed = hypot(v[p->vadr[0]], v[p->vadr[1]]);
    }
    free(v);
    s->end[0] = box[2 * p->nstep];
    s->end[1] = box[2 * p->nstep + 1];
    s->dist = hypot(s->end[0] - p->target[0], s->end[1] - p->target[1]);
    s->t_release = (last + 1) * m->opt.timestep;
}

static void print_summary(const char* what, const summary* s) {
    printf("   %s: box ends at (%.3f, %.3f), %.1f mm from the target, speed %.2g m/s; it "
           "travels %.3f m, %.3f m of them sliding free after the pusher lets go at %.3f s "
           "(%d contact span%s)\n", what, s->end[0], s->end[1], 1e3 * s->dist, s->speed,
           s->travel, s->slide, s->t_release, s->episodes, s->episodes == 1 ? "" : "s");
}

int main(int argc, char** argv) {
    const char* svg = "contact_demo_loss.svg";
    const char* paths_svg = "contact_demo_paths.svg";
    const char* scene = GDN_EXAMPLE_SCENE;
    int iters = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--svg")) {
            svg = argv[i + 1];
        } else if (!strcmp(argv[i], "--paths-svg")) {
            paths_svg = argv[i + 1];
        } else if (!strcmp(argv[i], "--model")) {
            scene = argv[i + 1];
        } else if (!strcmp(argv[i], "--iters")) {
            iters = atoi(argv[i + 1]);
        }
    }
    iters = iters < 1 ? 1 : iters > MAX_ITERS ? MAX_ITERS : iters;
    double t_start = demo_now_seconds();

    pushProblem p;
    if (push_problem_init(&p, scene, PUSH_T, PUSH_KNOTS, PUSH_SETTLE) != 0) {
        fprintf(stderr, "contact demo: %s\n", p.err);
        return 1;
    }
    double x[2 * PUSH_KNOTS], lo[2 * PUSH_KNOTS], hi[2 * PUSH_KNOTS];
    for (int k = 0; k < p.nx; k++) {
        lo[k] = -p.ctrl_max;
        hi[k] = p.ctrl_max;
    }
    push_initial_guess(&p, x);
    static double box0[2 * (PUSH_T + 1)], pusher0[2 * (PUSH_T + 1)];
    static double box1[2 * (PUSH_T + 1)], pusher1[2 * (PUSH_T + 1)];
    summary s0, s1;
    if (push_paths(&p, x, box0, pusher0) != 0) {
        fprintf(stderr, "contact demo: initial rollout: %s\n", p.err);
        return 1;
    }
    summarize(&p, box0, &s0);
    printf("push a box to a target: %s (nv = %d, nu = %d), %d steps of %g s, %d knots x %d "
           "motors = %d unknowns in [%g, %g] N\n", scene, p.m->nv, p.m->nu, p.nstep,
           p.m->opt.timestep, p.nknot, p.m->nu, p.nx, -p.ctrl_max, p.ctrl_max);
    printf("   target (%.2f, %.2f); contacts: plane-box (floor-box) and sphere-box "
           "(pusher-box), up to %d per step, rows on %d of %d steps, floor contact count "
           "changes %d\n", p.target[0], p.target[1], s0.max_ncon, s0.steps_with_rows, p.nstep,
           s0.floor_changes);
    print_summary("initial guess", &s0);

    // the optimization
    static double history[MAX_ITERS + 1];
    lbfgsOptions opt = {iters, 8, lo, hi, 1.0, 1e-12};
    int niter = lbfgs_minimize(push_objective, &p, x, p.nx, &opt, history, print_iteration);
    if (niter < 0) {
        fprintf(stderr, "contact demo: %s\n", p.err);
        return 1;
    }
    if (push_paths(&p, x, box1, pusher1) != 0) {
        fprintf(stderr, "contact demo: final rollout: %s\n", p.err);
        return 1;
    }
    summarize(&p, box1, &s1);
    double t_opt = demo_now_seconds() - t_start;
    printf("   after %d iterations (%d backward passes, %d evaluations): loss %.3e -> %.3e "
           "(x%.1e)\n", niter, p.backward_passes, p.evaluations, history[0], history[niter],
           history[0] / history[niter]);
    print_summary("optimized", &s1);
    printf("   floor contact count changes %d\n", s1.floor_changes);
    printf("   knots (N, x then y):");
    for (int k = 0; k < p.nknot; k++) {
        printf(" (%.2f, %.2f)", x[2 * k], x[2 * k + 1]);
    }
    printf("\n");

    // gradient vs rollout time at the optimum
    double tf = 0, tg = 0;
    push_objective(&p, x, NULL);
    demo_time_gradient(p.m, &p.r, &p.obj, p.tape, &p.g, 15, &tf, &tg);
    printf("   timing: forward rollout %.3f ms, gradient (forward + backward through every "
           "contact solve) %.3f ms = %.2fx the rollout; central FD of the %d knots would take "
           "%d rollouts (%.0fx)\n", 1e3 * tf, 1e3 * tg, tg / tf, p.nx, 2 * p.nx,
           2 * p.nx * tf / tg);

    // the plots
    svgSeries loss = {"box to target: 10 |p_T - target|^2 + |v_T|^2 + effort", "#1f77b4",
                      history, niter + 1};
    int bad = svg_plot_write(svg, "gradyn contact demo: loss per L-BFGS iteration", &loss, 1);
    svgPath path[4] = {
        {"box, initial guess", "#1f77b4", 1, box0, p.nstep + 1},
        {"pusher, initial guess", "#ff7f0e", 1, pusher0, p.nstep + 1},
        {"box, optimized", "#1f77b4", 0, box1, p.nstep + 1},
        {"pusher, optimized", "#ff7f0e", 0, pusher1, p.nstep + 1},
    };
    svgMark mark[3] = {
        {"target", "#2ca02c", p.target[0], p.target[1], 0.01, 1},
        {"box at start", "#1f77b4", box0[0], box0[1], 0.03, 0},
        {"pusher at start", "#ff7f0e", pusher0[0], pusher0[1], 0.025, 0},
    };
    bad |= svg_paths_write(paths_svg, "gradyn contact demo: top view, box and pusher paths",
                           path, 4, mark, 3);
    if (bad) {
        fprintf(stderr, "contact demo: cannot write %s or %s\n", svg, paths_svg);
        return 1;
    }
    printf("loss curve written to %s, paths to %s (%.1f s for the optimization, %.1f s in "
           "total)\n", svg, paths_svg, t_opt, demo_now_seconds() - t_start);
    push_problem_free(&p);
    return 0;
}
