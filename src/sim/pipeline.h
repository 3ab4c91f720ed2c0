// SPDX-License-Identifier: Apache-2.0
// Internal: the one pipeline of a step, the stage list that gdn_step, gdn_forward, gdn_inverse
// and the front half of every derivative run, and its formulation slot.
#ifndef GDN_SIM_PIPELINE_H
#define GDN_SIM_PIPELINE_H

#include <math.h>
#include <stddef.h>

#include <gradyn/gradyn.h>

#include "dynamics/aba.h"
#include "math/vecn.h"

// What a caller of the front half wants from the acceleration stage. The stages before it are
// the same for every mode (docs/architecture.md, "The flow of one step"):
//   check     : options, qpos, qvel, ctrl finite (warning counts, GDN_ERR_NONFINITE)
//   position  : kinematics (normalizes the quaternions of qpos in place), energy when enabled,
//               the formulation's position stage (reduced coordinates: contacts and rows)
//   velocity  : tau = qfrc_passive + qfrc_actuator + applied forces (+ penalty contact)
//   acceleration: the formulation's acceleration stage, by mode:
typedef enum gdnPipelineMode {
    // MuJoCo's mj_forward: qM, qfrc_bias, qfrc_smooth, qacc_smooth = M^-1 qfrc_smooth always,
    // qacc = the constrained acceleration (qacc_smooth without rows)
    GDN_PIPE_FORWARD = 0,
    // gdn_step's front half: qacc = the acceleration the step integrates,
    //   (M + h D)^-1 (qfrc_smooth + qfrc_constraint),  D = diag(dof_damping)
    // (MuJoCo's mj_Euler); without rows by one ABA, without qM or a separate RNE. Under the
    // implicit integrator mj_forward's stage, the sensors, then qacc = (M - h qDeriv)^-1
    // (qfrc_smooth + qfrc_constraint) (sim/implicit.c; qacc_smooth, qacc_warmstart mj_forward's)
    GDN_PIPE_STEP = 1,
    // the step's front half for a derivative: as GDN_PIPE_STEP (the derivative then reads the
    // solve from d: gradient/step_constrained.h)
    GDN_PIPE_DERIVATIVE = 2,
    // a flag or-ed into any mode: the sensors are not computed (the RK4 step's stages 1..3,
    // MuJoCo's mj_forwardSkip with skipsensor; d->sensordata keeps the first stage's). The
    // derivative mode never computes them
    GDN_PIPE_NOSENSOR = 16,
} gdnPipelineMode;

// The formulation slot: how a formulation adds constraints to the smooth dynamics. Reduced
// coordinates (MuJoCo's soft constraints) is the one today; the maximal-coordinate solver
// plugs in here, fed by the same kinematics, collision and forces.
typedef struct gdnFormulation {
    const char* name;
    // after kinematics: contacts and constraint rows (d->ncon, d->nefc)
    gdnStatus (*position)(const gdnModel* m, gdnData* d);
    // from tau (nv): the acceleration of the mode into d->qacc (and the formulation's outputs);
    // factor: where ABA's factorization of M + h D goes when the step's qacc comes from ABA
    // (NULL: not kept); work: 3 nv doubles of scratch
    gdnStatus (*acceleration)(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                              const double* tau, const gdnAbaFactor* factor, double* work);
} gdnFormulation;

// the reduced-coordinate formulation (sim/reduced.c)
extern const gdnFormulation gdn_formulation_reduced;

// the formulation the model selects
const gdnFormulation* gdn_formulation(const gdnModel* m);

// The stages check, position, velocity and acceleration at the state in d. On success d->qacc
// is the mode's acceleration. Any failure restores qpos as it was on entry; qvel and time are
// never changed. factor (GDN_PIPE_STEP and GDN_PIPE_DERIVATIVE): ABA's factorization of
// M + h D is kept there (arrays allocated by the caller, dynamics/aba.h) when there are no rows.
// Arena balanced.
gdnStatus gdn_pipeline_front(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                             const gdnAbaFactor* factor);

// gdn_step (the same checks, stages and bits), keeping ABA's factorization of M + h D in factor
// (caller's arrays, dynamics/aba.h; written only when the step has no rows) and copying the
// normalized qpos the front half leaves (before the integration) to qpos_front (nq) when
// non-NULL (Euler only: an RK4 step is gdn_step and writes neither). After it the kinematics, d->cdof and d->cinert in d are those of the step's state
gdnStatus gdn_step_keep(const gdnModel* m, gdnData* d, const gdnAbaFactor* factor,
                        double* qpos_front);

// the velocity stage alone (needs kinematics): d->qfrc_passive, the actuator outputs and
//   tau = qfrc_passive + qfrc_actuator + qfrc_applied + sum_b J_b' xfrc_applied_b
//         (+ qfrc_penalty when m->penalty.enabled, penalty/penalty.h)
// GDN_ERR_ARG / GDN_ERR_MEMORY from the penalty stage, and then tau is NaN
gdnStatus gdn_smooth_forces(const gdnModel* m, gdnData* d, double* tau);


// x[i stride] = NaN for i < n unless x[0] is NaN already: an output a path does not compute
// is NaN, never a previous state's value (every writer of such an array writes x[0], so a NaN
// there means the last poisoning still holds; repeated steps then cost one load)
static inline void gdn_poison(double* x, int n, int stride) {
    if (n > 0 && !isnan(x[0])) {
        for (int i = 0; i < n; i++) {
            x[(size_t)i * (size_t)stride] = NAN;
        }
    }
}

#endif
