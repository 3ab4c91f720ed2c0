// SPDX-License-Identifier: Apache-2.0
// The contact demo's problem: controls of a pusher that make a box slide to a target by friction.
#ifndef GDN_EXAMPLE_CONTACT_PUSH_H
#define GDN_EXAMPLE_CONTACT_PUSH_H

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

// The scene is examples/models/push_box.xml: a box (slides x, y, z, yaw) on a floor with
// friction and a pusher (slides x, y, motors push_x, push_y) that touches only the box.
// Unknowns x: nknot control knots per motor at equal spacing over the rollout, knot-major
// (x[2 k + i] is motor i at knot k), interpolated linearly to every step's control. Objective:
//   J = w_pos |p_T - target|^2 + w_vel |v_T|^2 + w_yaw wz_T^2 + w_ctrl h sum_t |u_t|^2
// with p the box's world (x, y), v its (vx, vy, vz) and wz its yaw rate.
typedef struct pushProblem {
    gdnModel* m;
    int nstep, nknot, nx;          // rollout steps T, knots per motor, unknowns 2 nknot
    double target[2];              // the box's target (x, y), world frame
    double w_pos, w_vel, w_yaw, w_ctrl;
    double ctrl_max;               // bounds |x_k| <= ctrl_max (N), for the optimizer
    int qadr[4], vadr[4];          // box x, y, z, yaw: qpos and qvel addresses
    int pusher_qadr[2];            // pusher x, y qpos addresses
    double box_origin[2], pusher_origin[2]; // world (x, y) of each body at qpos = 0
    double *qpos0, *qvel0;         // the settled initial state
    double *ctrl, *gctrl;          // (T x nu) controls and dJ/du_t
    gdnRollout r;
    gdnObjective obj;
    gdnTape* tape;
    gdnAdjointGradients g;
    int evaluations, backward_passes;
    char err[512];                 // the last failure's message
} pushProblem;

// load the scene, settle it for settle_steps with zero controls (the initial state), set the
// default target and weights, make a tape for nstep steps. 0 on success, else err says why
int push_problem_init(pushProblem* p, const char* model_path, int nstep, int nknot,
                      int settle_steps);
void push_problem_free(pushProblem* p);

// the initial guess: a push at a third of ctrl_max along +x and a 16th along +y over the first
// quarter, then zero (slightly off the x axis: a push exactly along it is a point of symmetry
// where J has a kink in the y knots)
void push_initial_guess(const pushProblem* p, double* x);

// J(x) and, with grad non-NULL, dJ/dx from one adjoint pass (lbfgsFn). NaN on failure
// (p->err says why)
double push_objective(void* user, const double* x, double* grad);

// the rollout at x: the box's and pusher's (x, y) at every step 0 .. T into box and pusher
// ((T + 1) x 2 each; either may be NULL). 0 on success
int push_paths(pushProblem* p, const double* x, double* box, double* pusher);

#endif
