// SPDX-License-Identifier: Apache-2.0
// Internal: the integrators (Euler, RK4, implicit): the damping each one folds into its
// acceleration, the RK4 tableau, the RK4 step, the implicit integrator's matrix.
#ifndef GDN_SIM_INTEGRATOR_H
#define GDN_SIM_INTEGRATOR_H

#include <gradyn/gradyn.h>

#include "sim/pipeline.h"

// The factor of D = diag(dof_damping) in the acceleration the step integrates: h for Euler
// (mj_Euler solves (M + h D) a = qfrc_smooth + qfrc_constraint), 0 for RK4 (each stage's
// acceleration is mj_forward's, M a = qfrc_smooth + qfrc_constraint), 0 for implicit (its
// acceleration stage is mj_forward's; the step then solves with M - h qDeriv, below). Every
// place that adds h D to M asks this one function.
static inline double gdn_damping_h(const gdnModel* m) {
    return m->opt.integrator == GDN_INT_EULER ? m->opt.timestep : 0.0;
}

// MuJoCo 2.2.2's RK4 tableau (sim/rk4.c): stage i = 1..3 starts from x_0 along
// gdn_rk4_A[i-1] times stage i-1's derivative (the tableau's only nonzero entry in its row:
// MuJoCo's sum over j < i adds exact zeros for the others), at time t + gdn_rk4_A[i-1] h (C, the
// row sums, equal A's entries); the step combines the four with gdn_rk4_B
extern const double gdn_rk4_A[3];
extern const double gdn_rk4_B[4];

// The four stages of one RK4 step, in the caller's arrays (gdn_rk4_record_alloc): the stage
// states x_i = (q_i, v_i), their accelerations a_i, the warm start each stage's solve read,
// and the combined velocity and acceleration the step integrates
typedef struct gdnRk4Record {
    double* q[4];    // nq each: q_0 as the front half normalized it, q_i = q_0 (+) h dX_i
    double* v[4];    // nv each: v_i = v_0 + h dA_i
    double* a[4];    // nv each: the stage accelerations (d->qacc after stage i's front half)
    double* warm[4]; // nv each: d->qacc_warmstart before stage i
    double* dq[3];   // nv each: dX_i = sum_j A(i-1, j) v_j, the velocity stage i integrates
    double* vbar;    // nv: sum_j B_j v_j, the velocity the step integrates
    double* abar;    // nv: sum_j B_j a_j, its acceleration
    double* act[4];  // na each: the stage activations act_i = act_0 + h A_i act_dot_{i-1}
    double* adot[4]; // na each: their act_dot (d->act_dot after stage i's front half)
    double* adotbar; // na: sum_j B_j adot_j, the act_dot the step integrates
} gdnRk4Record;

// arrays of a record from the arena (the caller resets it); GDN_ERR_MEMORY when short
gdnStatus gdn_rk4_record_alloc(const gdnModel* m, gdnData* d, gdnRk4Record* rec);

// stage i's state (1..3) from the record's q_0, v_0 and stage i-1: dq[i-1], q[i], v[i]
void gdn_rk4_stage_state(const gdnModel* m, gdnRk4Record* rec, int i);

// the step's combination of the four stages: vbar, abar
void gdn_rk4_combine(const gdnModel* m, gdnRk4Record* rec);

// the step's update from the combined stages (MuJoCo's mj_advance with an explicit velocity):
// act = clamp(act_0 + h adotbar) (act NULL: not wanted), qvel = v_0 + h abar, qpos = q_0 (+) h vbar
void gdn_rk4_advance(const gdnModel* m, const gdnRk4Record* rec, double* qpos, double* qvel,
                     double* act);

// MuJoCo 2.2.2's mj_RungeKutta(m, d, 4) after mj_forward: four front halves of the pipeline
// (mode: GDN_PIPE_STEP, or GDN_PIPE_DERIVATIVE for a derivative's replay), then
//   v' = v_0 + h abar,  q' = q_0 (+) h vbar,  time += h
// d is left as the fourth stage's front half left it (kinematics, qacc = a_3, the warm start
// of the next step), as MuJoCo leaves mjData; d->qacc_rk4 holds a_0 .. a_3 and
// d->act_dot_rk4 the stage activation rates. rec (NULL: a local one) receives the stages.
// A failed stage leaves qpos, qvel and time as they were on entry and returns its status.
gdnStatus gdn_rk4_step(const gdnModel* m, gdnData* d, gdnPipelineMode mode, gdnRk4Record* rec);

// ---------------------------------------------------------------- implicit (sim/implicit.c)

// MuJoCo 2.2.2's mj_implicit after mj_forward:
//   qacc = (M - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint),
//   qDeriv = d(qfrc_actuator + qfrc_passive - qfrc_bias) / d qvel as mjd_smooth_vel defines it:
//   per actuator moment' kv moment with kv the affine bias's kv plus the gain's velocity slope
//   (affine kv, muscle: mjd_muscleGain_vel) times the UNclamped ctrl (or act), no force clamp;
//   -diag(dof_damping); -b J'J per damped tendon; the fluid forces' d qfrc / d qvel;
//   -d qfrc_bias / d qvel (exact). Kept only on
//   M's sparsity (dof i with its ancestors and descendants: mj_makeMSparse), factored as
//   (U + I) L without pivoting from the last dof up (mju_factorLUSparse, no fill-in).
//   The medium's forces add their exact velocity derivative (mjd_inertiaBoxFluid and
//   mjd_ellipsoidFluid's J' B J, which are exact: the same to round-off).

// qDeriv dense (nv x nv, every entry written; the off-pattern ones are not read by the
// factor). Needs the acceleration stage's d (kinematics with the geom frames, cdof, cinert,
// ten_J, actuator_length and velocity). GDN_ERR_MEMORY
gdnStatus gdn_implicit_qderiv(const gdnModel* m, gdnData* d, double* D);

// actuator i's coefficient kv in qDeriv (moment' kv moment), and the muscle slope it reads
double gdn_implicit_actuator_kv(const gdnModel* m, const gdnData* d, int i);
double gdn_implicit_muscle_gain_vel(double len, double vel, const double lengthrange[2],
                                    double acc0, const double prm[]);
// its partials d/dlen, d/dvel (the same branches; for the implicit step's derivative)
void gdn_implicit_muscle_gain_vel_partials(double len, double vel, const double lengthrange[2],
                                           double acc0, const double prm[], double* dlen,
                                           double* dvel);

// H (nv x nv dense) = the LU of itself on M's pattern, in place; GDN_ERR_SINGULAR for a pivot
// below MuJoCo's mjMINVAL (MuJoCo stops with mju_error there)
gdnStatus gdn_implicit_factor(const gdnModel* m, gdnData* d, double* H);

// x = H^-1 x with the factor of gdn_implicit_factor (mju_solveLUSparse's order)
gdnStatus gdn_implicit_solve(const gdnModel* m, gdnData* d, const double* LU, double* x);

// H = the factored M - h qDeriv at the state in d (d->qM filled)
gdnStatus gdn_implicit_matrix(const gdnModel* m, gdnData* d, double* H);

// qacc (nv) = (M - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint) after a plain acceleration
// stage; LU (nv x nv, NULL: arena scratch) receives the factor (gdn_implicit_matrix's)
gdnStatus gdn_implicit_acceleration(const gdnModel* m, gdnData* d, double* qacc, double* LU);

#endif
