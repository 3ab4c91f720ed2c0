// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 on Kamino's scenes, for the comparisons issue 10 prints: the creep of soft contact
// on the hard-contact scenes, the closure error of soft equality connects, steps per second.
#ifndef GDN_TEST_RUNNER_KAMINO_MUJOCO_H
#define GDN_TEST_RUNNER_KAMINO_MUJOCO_H

#include <mujoco/mujoco.h>

// file (relative to tests/models unless it starts with '/') compiled by mj_loadXML; prints the
// reason to stderr and returns NULL on failure
mjModel* gdn_kmj_load(const char* file);

// the solver MuJoCo runs with: the model's own (tolerance <= 0 and iterations <= 0 keep the
// file's), or a tighter one; cone < 0 keeps the file's cone, else mjCONE_PYRAMIDAL / ELLIPTIC
typedef struct gdnKmjSolver {
    double tolerance;
    int iterations;
    int cone;
} gdnKmjSolver;

// apply s to m->opt
void gdn_kmj_apply_solver(mjModel* m, const gdnKmjSolver* s);

// the loop-closure error of every equality connect at the current kinematics of d: the largest
// |anchor on body1 - anchor on body2| in world coordinates (m); 0 without connects
double gdn_kmj_connect_error(const mjModel* m, const mjData* d);

// MuJoCo's creep on a scene that should hold still: body slips relative to ref_body (NULL or
// "world": the world) over the last tail fraction of a run of duration seconds from qpos0 (or
// keyframe 0 when the file has one), zero controls; the metric is gdnKrefCreep's
// (runner/kamino_reference.h), so Kamino's run can report the same numbers
typedef struct gdnKmjCreep {
    double speed;      // |p(T) - p(T - tail duration)| / (tail duration), m/s: the mean slip
    double speed_max;  // largest per-step |dp| / h over the tail, m/s
    double drift;      // |p(T) - p(0)|, m: the whole run's slip
    int ncon;          // contacts at the last step
} gdnKmjCreep;

// returns 0, or -1 (message on stderr) when the file or a body name is missing or the state
// stops being finite
int gdn_kmj_creep(const char* file, const char* body, const char* ref_body, double duration,
                  double tail, const gdnKmjSolver* solver, gdnKmjCreep* out);

// a mechanism driven with ctrl (every actuator) for nstep steps from qpos0
typedef struct gdnKmjMech {
    double closure_max;    // largest connect error over the run, m
    double closure_mean;   // its mean over the steps, m
    double closure_final;  // at the last step, m
    double steps_per_s;    // mj_step calls per second over a second timed run of nstep steps
    double us_per_step;    // 1e6 / steps_per_s
} gdnKmjMech;

// returns 0, or -1 as gdn_kmj_creep
int gdn_kmj_mechanism(const char* file, double ctrl, int nstep, const gdnKmjSolver* solver,
                      gdnKmjMech* out);

#endif
