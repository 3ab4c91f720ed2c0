// SPDX-License-Identifier: Apache-2.0
// Batched rollouts and trajectory gradients on a thread pool (docs/batch.md).
#ifndef GRADYN_BATCH_H
#define GRADYN_BATCH_H

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

#ifdef __cplusplus
extern "C" {
#endif

// Layouts: every array is dense, row-major, entry-major (C order, numpy's default):
//   qpos0 [nbatch][nq], qvel0 [nbatch][nv], act0 [nbatch][na], ctrl [nbatch][T][nu],
//   qpos [nbatch][T+1][nq], qvel [nbatch][T+1][nv], act [nbatch][T+1][na], ncon [nbatch][T+1],
//   sensordata [nbatch][T][nsensordata].
// The state x_t = (qpos_t, qvel_t, act_t) is MuJoCo's physics state in mujoco.rollout's order,
// kept in one array per component as qpos and qvel always were: row 0 is x_0 as given, row
// t + 1 the state after step t. sensordata has one row per step, as ctrl: row t is what step t
// computed (at x_t with ctrl_t, the values mj_step and mujoco.rollout record for that step).
// models: nmodel = 1 (every entry uses models[0]) or nmodel = nbatch (entry b uses models[b]:
// domain randomization). All models must have the sizes of models[0] (nq, nv, nu, nbody,
// njnt, ngeom, nsite, nvert, nconmax, njmax, npair, nexclude, neq, nmesh, nmeshvert,
// nmeshface, nmeshgraph, na, nmocap, ntendon, nwrap, nsensor, nsensordata), else GDN_ERR_ARG
// naming the first differing size.
// nthread: 0 = one thread per core (sysconf), capped at nbatch and at GDN_BATCH_MAX_THREADS;
// the calling thread is one of them. Results are bit for bit independent of nthread and of
// which thread runs which entry. Each call starts its threads and allocates its per-thread
// memory, and frees them before returning; for repeated calls, a gdnBatchPool (below) keeps
// both.

#define GDN_BATCH_MAX_THREADS 256

// bytes of a per-entry message, terminator included
#define GDN_BATCH_MESSAGE_SIZE 256

// the outcome of one batch entry
typedef struct gdnBatchStatus {
    gdnStatus status;                     // GDN_OK, or why the entry stopped
    int step;                             // the step t (x_t -> x_{t+1}) that failed; -1: none
                                          // (GDN_OK) or the failure is not tied to a step
    char message[GDN_BATCH_MESSAGE_SIZE]; // "" for GDN_OK, else the cause
} gdnBatchStatus;

// ---------------------------------------------------------------- rollouts
//
// For each entry b: a gdnData reset as gdn_data_reset leaves it (zero applied forces, time 0,
// zero warm start, zero activations act), qpos = qpos0[b], qvel = qvel0[b] (gdn_rollout_batch
// starts act at 0 and does not return it; gdn_rollout_batch_full below takes act0 and returns
// act and sensordata); then for t = 0 .. T-1: ctrl = ctrl[b][t],
// gdn_step. Row 0 of qpos / qvel is the initial state as given, row t + 1 the state after
// step t: bit for bit what a gdn_step loop on a fresh gdnData leaves. ncon (NULL: not wanted):
// row t (t < T) is d->ncon of step t (the contacts at x_t), row T the contacts gdn_forward
// finds at x_T.
// A step that fails (gdn_step's status) or leaves a non-finite state stops the entry: status[b]
// gets the status, the step and the message; rows t + 1 .. T of qpos / qvel (and act) are NaN,
// rows t .. T of ncon -1 (rows t .. T-1 of sensordata NaN). The other entries are unaffected.
// Returns GDN_OK when the call ran (entry failures are in status only); without running
// anything: GDN_ERR_ARG for NULL pointers (models, a model, qpos0, qvel0, ctrl with nu > 0,
// qpos, qvel, status), nbatch <= 0, T <= 0, nthread < 0, nmodel neither 1 nor nbatch, models
// of different sizes, array sizes that overflow; GDN_ERR_NONFINITE for a non-finite qpos0,
// qvel0 or ctrl ("entry b: ..."); GDN_ERR_MEMORY when the per-thread data cannot be
// allocated. err (may be NULL) gets the message.
GDN_API gdnStatus gdn_rollout_batch(const gdnModel* const* models, int nmodel, int nbatch, int T,
                                    const double* qpos0, const double* qvel0, const double* ctrl,
                                    int nthread, double* qpos, double* qvel, int* ncon,
                                    gdnBatchStatus* status, char* err, int err_size);

// The full state and the sensors: gdn_rollout_batch with
//   act0 (NULL: zero, gdn_data_reset's and gdnRollout.act0's default; pass the model's key_act
//     row for a keyframe's) [nbatch][na]: each entry's initial activations, checked finite;
//   act (NULL: not wanted) [nbatch][T+1][na]: row 0 = act0 as given, row t + 1 = d->act after
//     step t;
//   sensordata (NULL: not wanted) [nbatch][T][nsensordata]: row t = d->sensordata after step
//     t, i.e. the sensors gdn_step computed at the state the step starts from (x_t, ctrl_t; an
//     RK4 step's first stage), MuJoCo 2.2.2's mj_step values; zeros with GDN_DSBL_SENSOR (the
//     reset data's) and for user sensors.
// Bit for bit a gdn_step loop on a fresh gdnData with d->act = act0[b], at any nthread; na = 0
// or nsensordata = 0 make the matching arrays empty (they may be NULL). With act0, act and
// sensordata NULL this is gdn_rollout_batch.
GDN_API gdnStatus gdn_rollout_batch_full(const gdnModel* const* models, int nmodel, int nbatch,
                                         int T, const double* qpos0, const double* qvel0,
                                         const double* act0, const double* ctrl, int nthread,
                                         double* qpos, double* qvel, double* act,
                                         double* sensordata, int* ncon, gdnBatchStatus* status,
                                         char* err, int err_size);

// ---------------------------------------------------------------- gradients
//
// For each entry, the vector-Jacobian product of the rollout map of gdn_rollout_batch,
//   (qpos0, qvel0, ctrl, inertia parameters) -> (qpos_t, qvel_t), t = 0 .. T,
// with the cotangents cqpos [nbatch][T+1][nq] and cqvel [nbatch][T+1][nv] (either NULL:
// zero), i.e. the gradients of the linear objective
//   J = sum_{t=0}^{T} <cqpos_t, qpos_t> + <cqvel_t, qvel_t>
// computed with one gdn_adjoint_rollout_gradient per entry (a full tape, one per thread).
//
// qpos convention: cqpos_t is in qpos coordinates (nq per row, as the rollout returns qpos_t).
// The rollout takes qpos0 raw: row 0 is qpos0 itself, and the steps see it with its
// quaternions normalized (gdn_step's kinematics normalizes in place), so
//   qpos0 (nq): the true gradient w.r.t. the raw nq input: cqpos_0 plus the pull-back of the
//     steps' tangent gradient through the normalization (gdn_tangent_grad_to_qpos at qpos0);
//     for a unit quaternion the component along q is cqpos_0's alone;
//   qpos0_tangent (nv): the gradient w.r.t. delta in qpos0 := normalize(qpos0) (+) delta
//     (gdn_integrate_pos's tangent space; the convention of gdnAdjointGradients.qpos0), with
//     cqpos_0 mapped by gdn_qpos_grad_to_tangent.
// The quaternions of qpos0 may have any nonzero norm: within GDN_ADJOINT_QUAT_TOL of unit they
// are passed to the adjoint as they are (the results then equal gdn_adjoint_rollout_gradient's
// with that objective bit for bit), farther off normalized first.
typedef struct gdnBatchGradients {
    double* J;             // (nbatch) J; NULL: not wanted
    double* qpos0;         // (nbatch x nq) dJ/dqpos0, raw qpos coordinates; NULL: not wanted
    double* qpos0_tangent; // (nbatch x nv) dJ/dqpos0 in the tangent space; NULL: not wanted
    double* qvel0;         // (nbatch x nv) dJ/dqvel0; NULL: not wanted
    double* ctrl;          // (nbatch x T x nu) dJ/dctrl (zero where ctrlrange clamps); NULL
    double* param;         // (nbatch x nbody x 10) dJ/dpi of the entry's model, canonical
                           // packing (gdnAdjointGradients.param); NULL: not wanted (skips the
                           // parameter channels)
    // per entry, the layouts of gdnAdjointGradients (NULL: not wanted; the same rules, e.g.
    // geom_size needs param):
    double* vert;          // (nbatch x nvert x 3) dJ/dV, collision-mesh vertices, body frame
    double* geom_friction; // (nbatch x ngeom x 3)
    double* geom_solref;   // (nbatch x ngeom x 2)
    double* geom_solimp;   // (nbatch x ngeom x 5)
    double* geom_size;     // (nbatch x ngeom x 3)
    double* pair_friction; // (nbatch x npair x 5)
    double* pair_solref;   // (nbatch x npair x 2)
    double* pair_solimp;   // (nbatch x npair x 5)
    double* act0;          // (nbatch x na) dJ/dact0 (gdnAdjointGradients.act0: through the
                           // dynamics, plus cact_0 of gdn_adjoint_batch_full); NULL: not
                           // wanted
} gdnBatchGradients;

// Per entry errors (status[b], its arrays NaN, the others unaffected): those of
// gdn_adjoint_rollout_gradient (GDN_ERR_UNSUPPORTED for rows without a derivative,
// GDN_ERR_UNCONVERGED, GDN_ERR_NONFINITE, GDN_ERR_MEMORY for a solve reserve too small, ...),
// with step = the t of its "step t: ..." message (-1 when it names none), and GDN_ERR_ARG for a
// zero quaternion in qpos0. Call errors as gdn_rollout_batch (out NULL is GDN_ERR_ARG; the
// cotangents are checked finite too); GDN_ERR_MEMORY when a tape cannot be allocated.
GDN_API gdnStatus gdn_adjoint_batch(const gdnModel* const* models, int nmodel, int nbatch, int T,
                                    const double* qpos0, const double* qvel0, const double* ctrl,
                                    const double* cqpos, const double* cqvel, int nthread,
                                    const gdnBatchGradients* out, gdnBatchStatus* status,
                                    char* err, int err_size);

// gdn_adjoint_batch of the rollout map of gdn_rollout_batch_full: the entries start from act0
// (NULL: zero) and out->act0 gets dJ/dact0. cact [nbatch][T+1][na] (NULL: zero) are the
// cotangents of act, csensordata [nbatch][T][nsensordata] (NULL: zero) those of sensordata:
//   J = sum_{t=0}^{T} <cqpos_t, qpos_t> + <cqvel_t, qvel_t> + <cact_t, act_t>
//       + sum_{t=0}^{T-1} <cs_t, s_t>
// with s_t the sensors at (x_t, ctrl_t), evaluated by gdn_forward on the tape's scratch data
// (time = the step's time) and differentiated by gdn_sensor_vjp_act (position- and
// velocity-stage sensors, every acceleration-stage one, actuatorfrc with its act channel). An
// entry whose step t has a state without a derivative for a sensor with a nonzero cotangent
// (sensor.h) fails with GDN_ERR_UNSUPPORTED at step t, the message naming the sensor and the
// cause (gdn_sensor_refusal's); act0, cact and csensordata are checked finite. With act0,
// cact, csensordata and out->act0 NULL this is gdn_adjoint_batch (the same results bit for bit); with act0 given (and cact,
// csensordata NULL), J and every gradient equal gdn_adjoint_rollout_gradient's with
// gdnRollout.act0 = act0[b] bit for bit.
GDN_API gdnStatus gdn_adjoint_batch_full(const gdnModel* const* models, int nmodel, int nbatch,
                                         int T, const double* qpos0, const double* qvel0,
                                         const double* act0, const double* ctrl,
                                         const double* cqpos, const double* cqvel,
                                         const double* cact, const double* csensordata,
                                         int nthread,
                                         const gdnBatchGradients* out, gdnBatchStatus* status,
                                         char* err, int err_size);

// ---------------------------------------------------------------- the batch pool
//
// A persistent workspace for repeated batch calls (MPC: short T, small batches, thousands of
// calls): parked worker threads and per-worker memory kept from one call to the next.
// gdn_rollout_batch and gdn_adjoint_batch are a pool created, run once and freed.
//
// Threads: nthread workers (0 = one per online core; at most GDN_BATCH_MAX_THREADS), the
// calling thread being worker 0 of every call and nthread - 1 pthreads parked on a condition
// variable between calls (started by gdn_batch_pool_create, joined by gdn_batch_pool_free).
// A call of nbatch entries uses min(nthread, nbatch) workers. When the system refuses a
// thread the pool keeps those that started (gdn_batch_pool_nthread). Results are bit for bit
// those of gdn_rollout_batch / gdn_adjoint_batch, independent of nthread and of which worker
// runs which entry.
//
// Memory: each worker gets a gdnData on its first rollout call, and a full tape plus 2 nq +
// 4 nv + na + nu doubles on its first gradient call; a tape is replaced by a longer one only when a
// call's T exceeds its steps (it then has the call's T steps) or the call's model needs a
// larger solve reserve per step (constraints enabled after a pool's tapes were made for a
// model with GDN_DSBL_CONSTRAINT). Calls with the same or a smaller T, the same or fewer
// entries, allocate nothing and start no thread. A tape longer than T reserves more solve
// memory than gdn_adjoint_batch's tape for T would: an entry that fails there with
// GDN_ERR_MEMORY (a solve larger than the reserve) may succeed on the pool.
//
// Models: every call's models must have the sizes of the model the pool was created for (the
// list of gdn_rollout_batch), else GDN_ERR_ARG naming the first differing size; the pool
// keeps only those sizes, not the model (it may be freed).
//
// Not reentrant: a call made while another call on the same pool is running (from another
// thread) returns GDN_ERR_ARG at once ("the batch pool is busy ...") without touching the
// pool or the outputs. Different pools may run concurrently. gdn_batch_pool_free must not
// overlap a call on that pool.
typedef struct gdnBatchPool gdnBatchPool;

// a pool for models of m's sizes and nthread workers (threads started, no data or tape yet).
// GDN_ERR_ARG for NULL pointers or nthread < 0, GDN_ERR_MEMORY; *pool is NULL on error
GDN_API gdnStatus gdn_batch_pool_create(const gdnModel* m, int nthread, gdnBatchPool** pool,
                                        char* err, int err_size);

// join the threads and free everything; NULL is ignored
GDN_API void gdn_batch_pool_free(gdnBatchPool* pool);

// the pool's workers, the calling thread included (0 for NULL)
GDN_API int gdn_batch_pool_nthread(const gdnBatchPool* pool);

// gdn_rollout_batch on the pool's workers: the same arguments but nthread, the same results
// and errors, plus GDN_ERR_ARG for a NULL pool, a busy pool or models of other sizes than the
// pool's
GDN_API gdnStatus gdn_batch_pool_rollout(gdnBatchPool* pool, const gdnModel* const* models,
                                         int nmodel, int nbatch, int T, const double* qpos0,
                                         const double* qvel0, const double* ctrl, double* qpos,
                                         double* qvel, int* ncon, gdnBatchStatus* status,
                                         char* err, int err_size);

// gdn_adjoint_batch on the pool's workers, likewise
GDN_API gdnStatus gdn_batch_pool_adjoint(gdnBatchPool* pool, const gdnModel* const* models,
                                         int nmodel, int nbatch, int T, const double* qpos0,
                                         const double* qvel0, const double* ctrl,
                                         const double* cqpos, const double* cqvel,
                                         const gdnBatchGradients* out, gdnBatchStatus* status,
                                         char* err, int err_size);

// gdn_rollout_batch_full and gdn_adjoint_batch_full on the pool's workers, likewise
GDN_API gdnStatus gdn_batch_pool_rollout_full(gdnBatchPool* pool, const gdnModel* const* models,
                                              int nmodel, int nbatch, int T,
                                              const double* qpos0, const double* qvel0,
                                              const double* act0, const double* ctrl,
                                              double* qpos, double* qvel, double* act,
                                              double* sensordata, int* ncon,
                                              gdnBatchStatus* status, char* err, int err_size);
GDN_API gdnStatus gdn_batch_pool_adjoint_full(gdnBatchPool* pool, const gdnModel* const* models,
                                              int nmodel, int nbatch, int T,
                                              const double* qpos0, const double* qvel0,
                                              const double* act0, const double* ctrl,
                                              const double* cqpos, const double* cqvel,
                                              const double* cact, const double* csensordata,
                                              const gdnBatchGradients* out,
                                              gdnBatchStatus* status, char* err, int err_size);

// ---------------------------------------------------------------- the qpos pull-back
//
// g_qpos (nq) = the gradient w.r.t. raw qpos coordinates of a function f(normalize(qpos))
// whose tangent gradient at normalize(qpos) is g_tangent (nv): hinge, slide and free
// translation unchanged; a quaternion block x (ball, free rotation) with n = x / |x| = (w, u)
// and tangent gradient g (3):
//     g_w = -(2 / |x|) <u, g>,   g_u = (2 / |x|) (w g + u x g)
// (dn = (I - n n') dx / |x| and n (+) delta = n (x) exp(delta / 2)); for |x| = 1,
// gdn_qpos_grad_to_tangent maps g_qpos back to g_tangent. A quaternion of norm below 1e-15
// (which gdn_step replaces by the identity) gives zeros. Nothing happens when an argument is
// NULL; g_qpos must not alias.
GDN_API void gdn_tangent_grad_to_qpos(const gdnModel* m, const double* qpos,
                                      const double* g_tangent, double* g_qpos);

#ifdef __cplusplus
}
#endif

#endif
