// SPDX-License-Identifier: Apache-2.0
// The trajectory adjoint: gradients of a rollout objective w.r.t. state, controls, inertia
// parameters and collision-mesh vertices from one forward and one backward pass.
#ifndef GRADYN_ADJOINT_H
#define GRADYN_ADJOINT_H

#include <stddef.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------- the rollout
//
// x_{t+1} = gdn_step(x_t, u_t) for t = 0 .. T-1, x = (qpos, qvel, act): exactly the step the
// simulator runs (same function, same penalty contact from m->penalty, same implicit damping),
// so the recorded states are bit-identical to a gdn_step loop started from the same data.
//
// Fill with gdn_rollout_init (sizes from the model, everything else zero), then set the
// pointers. The arrays are read, never written, and must stay valid during a call.
typedef struct gdnRollout {
    int nq, nv, nu, nbody;       // sizes of the arrays below as the caller built them; must
                                 // equal the model's (gdn_rollout_init copies the model's)
    int nstep;                   // T > 0: number of steps
    const double* qpos0;         // (nq) initial configuration. Quaternions must be unit within
                                 // GDN_ADJOINT_QUAT_TOL (then they are normalized), else error
    const double* qvel0;         // (nv) initial velocity (tangent space, qvel layout)
    const double* ctrl;          // (T x nu) open-loop controls, row t applied by step t;
                                 // may be NULL only when nu == 0. ctrl must not depend on the
                                 // state (no feedback terms are differentiated)
    const double* qfrc_applied;  // (nv) applied generalized force held constant, NULL: zero
    const double* xfrc_applied;  // (nbody x 6) applied [force; torque] at each body COM, world
                                 // frame, held constant; NULL: zero
    const double* mocap_pos;     // (nmocap x 3) mocap body positions held constant; NULL: the
                                 // model's (their body_pos, as gdn_data_reset sets them)
    const double* mocap_quat;    // (nmocap x 4) their orientations; NULL: the model's
    int na;                      // activation states (the model's; gdn_rollout_init copies it)
    const double* act0;          // (na) initial activations; NULL: zero (as gdn_data_reset)
} gdnRollout;

// tolerance on | |q| - 1 | for the quaternions of qpos0
#define GDN_ADJOINT_QUAT_TOL 1e-6

// sizes from m, nstep = T, every pointer NULL
GDN_API void gdn_rollout_init(const gdnModel* m, int nstep, gdnRollout* r);

// ---------------------------------------------------------------- the objective
//
//   J = g(q_T, v_T) + sum_{t=0}^{T-1} l(q_t, v_t, u_t)
//
// Each term is a callback that returns its value and, when asked, its analytic gradient.
// The state to evaluate is in scratch->qpos, scratch->qvel, scratch->act, scratch->ctrl
// (copies: scratch is a workspace the callback may use freely, e.g. gdn_kinematics(m, scratch)
// then gdn_jac; it is never the data the rollout steps). t is the time index (t = T for the
// terminal cost, whose scratch->ctrl is unspecified). A term's gradient has no act part: a
// term may read act (its value is the trajectory's), but dJ/dact flows through the dynamics
// only.
//   value  : always non-NULL; write the term's value.
//   gqpos  : NULL when no gradient is wanted. Otherwise dl/dqpos, pre-zeroed by the driver, in
//            the coordinates the term declares (gdnCost.grad_tangent): nq qpos coordinates
//            (0), or nv tangent coordinates (1).
//   gqvel  : NULL, or dl/dqvel (nv), pre-zeroed.
//   gctrl  : NULL, or dl/dctrl (nu), pre-zeroed; always NULL for the terminal cost.
// Return GDN_OK, or any other status to abort the call (reported with the step index).
typedef gdnStatus (*gdnCostFn)(const gdnModel* m, gdnData* scratch, int t, void* user,
                               double* value, double* gqpos, double* gqvel, double* gctrl);

// One term. With grad_tangent = 0 the gradient w.r.t. qpos is taken in the nq coordinates (as
// users write g(q) naturally) and the driver maps it to the tangent space in which every
// position gradient is returned: hinge/slide and free translation unchanged; for a quaternion
// block q (ball, free rotation) with coordinate gradient gq (4)
//     g_tangent_k = <gq, dq/ddelta_k>,  dq/ddelta_k = 0.5 q (x) [0, e_k]   (k = 0, 1, 2),
// i.e. g_tangent = 0.5 (q_w gq_v - gq_w q_v + gq_v x q_v), the derivative along the local
// rotation q <- q (x) exp(delta / 2) that gdn_integrate_pos applies (the component of gq along
// q, which the unit-norm constraint removes, has no effect).
// the map above for every joint: g_tangent (nv) from a qpos-coordinate gradient g_qpos (nq) at
// the configuration qpos (g_tangent must not alias g_qpos)
GDN_API void gdn_qpos_grad_to_tangent(const gdnModel* m, const double* qpos,
                                      const double* g_qpos, double* g_tangent);

typedef struct gdnCost {
    gdnCostFn fn;       // NULL: the term is absent (zero)
    void* user;         // passed to fn
    int grad_tangent;   // 0: fn's gqpos has nq qpos coordinates; 1: nv tangent coordinates
} gdnCost;

typedef struct gdnObjective {
    gdnCost terminal;   // g(q_T, v_T)
    gdnCost running;    // l(q_t, v_t, u_t), t = 0 .. T-1
} gdnObjective;

// A built-in objective (the CLI's):
//   J = weight |x(q_T) - target|^2 + ctrl_weight sum_t |u_t|^2 + vel_weight |v_T|^2
// with x the world position of the body-frame point `point` of body `body`. Its terminal
// gradient is computed from gdn_jac (tangent coordinates).
typedef struct gdnTargetObjective {
    int body;            // body id (1 .. nbody-1)
    double point[3];     // point in the body frame (zero: the body frame origin)
    double target[3];    // target, world frame
    double weight;       // weight of the squared distance at T
    double ctrl_weight;  // weight of the control effort (running cost); 0: none
    double vel_weight;   // weight of the final squared velocity |v_T|^2; 0: none
} gdnTargetObjective;

// point obj at the built-in callbacks with spec as their user data (spec must outlive obj's
// use). GDN_ERR_ARG when the body is out of range or a value is not finite
GDN_API gdnStatus gdn_objective_target(const gdnModel* m, const gdnTargetObjective* spec,
                                       gdnObjective* obj);

// ---------------------------------------------------------------- the tape
//
// All memory a rollout and its gradient need, allocated once by gdn_tape_create: the state
// record, the step records, the backward-pass buffers, the data the rollout steps and a scratch
// data for the objective. Nothing is allocated by gdn_rollout_objective or
// gdn_adjoint_rollout_gradient.
//
// The state record holds x_t = (qpos, qvel, act). Each recorded step t also gets a step record of
// variable size: the acceleration gdn_step integrated from x_t (d->qacc after the step, nv),
// and, when the step had contacts or constraint rows, its solve: the contacts, the rows' types,
// ids, states and forces, the solver's acceleration (d->qacc_warmstart after the step), the
// solver report and, optionally, the Newton Hessian factor (gdnTapeOptions.record_factor).
// Records lie back to back in one pool allocated at creation: the accelerations of every
// record slot plus a reserve for the solves (gdnTapeOptions.solve_bytes_per_step). A rollout
// whose solves do not fit fails with GDN_ERR_MEMORY naming the step and the bytes it needs;
// nothing is dropped. With gdnTapeOptions.store_intermediates (the default) each recorded step
// of a gradient's forward pass also keeps what the step VJP needs from its front half (the body
// kinematics, the normalized qpos, the body inertias, ABA's factorization of M + hD and the
// penalty vertex outputs), and the backward pass reads them back instead of recomputing them;
// without it the step VJP recomputes them from x_t and qacc_t (with qacc given it needs only
// the kinematics and the factorization, not the forces or a solve): the same gradients bit for
// bit either way. gdn_rollout_objective stores none of them. Every rollout starts from a zero warm start (as a fresh gdnData), so the records are
// bit for bit what a gdn_step loop from gdn_data_create leaves in gdnData after each step.
//
// With checkpoint_every = K > 1 only the states t = 0, K, 2K, ... (each with the warm start
// the next step reads) and x_T are kept, and the step records of each segment's last step
// (t = min(cK + K, T) - 1); the backward pass replays each segment of K steps forward with
// gdn_step from its checkpoint into a K-step buffer (states and step records) before walking it
// in reverse. Memory is then O(T / K + K) steps for one extra forward rollout of compute; the
// gradients and the replayed records are bit-identical to the full tape (K = 1). K near
// sqrt(T) minimizes memory.
typedef struct gdnTape gdnTape;

// how gdn_tape_create_opt sizes a tape
typedef struct gdnTapeOptions {
    int max_steps;               // largest T (> 0)
    int checkpoint_every;        // 1 (or 0) = full tape, K > 1 = checkpointing
    size_t solve_bytes_per_step; // the solve reserve per record slot, in bytes: the tape holds
                                 // max_steps slots with a full tape, ceil(max_steps / K) + K - 1
                                 // with checkpointing, and reserves this times the slot count
                                 // for the solves of all of them together (shared: one step may
                                 // take more when others take less; a step without contacts or
                                 // rows takes none). 0: no solve is recorded, a rollout with
                                 // contacts or rows fails with GDN_ERR_MEMORY
    int record_factor;           // 1: also record the Newton solver's Hessian factor of each
                                 // step that leaves one (d->solver_H_valid), its envelope only,
                                 // and add its largest size to the reserve per slot; 0: not
    int store_intermediates;     // 1 (gdn_tape_options_init's default): every step a
                                 // gradient's forward pass (or segment replay) records also
                                 // keeps what its front half computed and the step VJP needs
                                 // (the body kinematics, the normalized qpos, the body
                                 // inertias, ABA's factorization of M + hD and, when the model
                                 // has vertices, the penalty vertex outputs), so the backward
                                 // pass reads them instead of recomputing them: about
                                 // (nq + 41 nbody + 6 njnt + 13 nv + 6 nvert) * 8 bytes per
                                 // record slot (gdn_tape_intermediate_bytes; 18.6 kB for
                                 // humanoid.xml); 0: not kept, the backward pass recomputes
                                 // them (the same gradients, bit for bit)
} gdnTapeOptions;

// the default options (what gdn_tape_create uses): max_steps, checkpoint_every as given,
// record_factor 0 and a solve reserve per slot of
//     gdn_tape_solve_bytes(m, c, 4 c + 2 nv, 0),  c = 4 nbody
// i.e. on average 4 contacts per body (a box resting on a face has 4) with 4 rows each (condim
// 3, pyramidal) and 2 rows per dof (limits, equalities, friction loss) per recorded step;
// no reserve when m's constraints are disabled (GDN_DSBL_CONSTRAINT) as the tape is made (a
// rollout that has contacts or rows after all then fails with GDN_ERR_MEMORY, naming the step).
// gdn_tape_create_opt caps any reserve per slot at the largest solve one step can leave (the
// contact and row capacities of a gdnData for m, gdn_tape_solve_bytes(m, maxcon, maxefc,
// record_factor)); reserved memory that no record reaches is allocated but never touched
GDN_API void gdn_tape_options_init(const gdnModel* m, int max_steps, int checkpoint_every,
                                   gdnTapeOptions* opt);

// a tape for rollouts of up to opt->max_steps steps on models shaped like m (the same nq, nv,
// nu, nbody, nvert). GDN_ERR_ARG for NULL pointers or bad sizes, GDN_ERR_MEMORY when the sizes
// overflow or the allocation fails (*tape NULL); err gets a message (may be NULL)
GDN_API gdnStatus gdn_tape_create_opt(const gdnModel* m, const gdnTapeOptions* opt,
                                      gdnTape** tape, char* err, int err_size);

// gdn_tape_create_opt with gdn_tape_options_init(m, max_steps, checkpoint_every)
GDN_API gdnStatus gdn_tape_create(const gdnModel* m, int max_steps, int checkpoint_every,
                                  gdnTape** tape, char* err, int err_size);
GDN_API void gdn_tape_free(gdnTape* tape);

// bytes of the solve block of one step record with ncon contacts and nefc rows (0 when both
// are 0): 8 nv (the warm start) + ncon sizeof(gdnContact) + 20 nefc (force, type, id, state)
// + with_factor 4 nv (nv + 1) + 4 nv (the largest factor and its first columns; a recorded
// factor takes its envelope only, at most that), rounded up to 8. 0 for a NULL model or
// negative counts
GDN_API size_t gdn_tape_solve_bytes(const gdnModel* m, int ncon, int nefc, int with_factor);

// memory of the tape's records, in bytes:
//   bytes_per_step: the fixed part of one step of a full tape, (nq + 2 nv + na) * 8: the state
//     and its acceleration; a step with contacts or rows adds its solve block
//     (gdn_tape_solve_bytes) from the reserve
//   state_bytes: everything allocated for records for max_steps as created: the checkpoints
//     and the segment buffer (nq + nv doubles each), their warm starts (nv each, K > 1), the
//     final state (nq + nv), the acceleration of every record slot (nv each) and the solve
//     reserve (the slot count times solve_bytes_per_step plus, with record_factor, the
//     largest factor, capped per slot as gdn_tape_options_init says)
//   bytes_used: the part of state_bytes that holds the current records: the state_bytes less
//     the reserve, plus the solve blocks of the records held now (the forward pass's, and after
//     a gradient with K > 1 those of the segment replayed last); state_bytes - the reserve
//     before any rollout and for rollouts without contacts or rows
// 0 for NULL
GDN_API size_t gdn_tape_bytes_per_step(const gdnTape* tape);
GDN_API size_t gdn_tape_state_bytes(const gdnTape* tape);
GDN_API size_t gdn_tape_bytes_used(const gdnTape* tape);

// bytes of the stored intermediates of one record slot (gdnTapeOptions.store_intermediates):
// (nq + 41 nbody + 6 njnt + 13 nv) * 8, plus (6 nvert + 1) * 8 when the model has vertices,
// plus the alignment padding between gdnData's arrays copied with them (at most 56 bytes per
// array); 0 when the tape does not store them or for NULL. Not part of the three counts above:
// the tape allocates this times its slot count (max_steps with a full tape,
// ceil(max_steps / K) + K - 1 with checkpointing) on top of them
GDN_API size_t gdn_tape_intermediate_bytes(const gdnTape* tape);

// the state x_t recorded by the last rollout (qpos nq, qvel nv; either may be NULL; its act:
// gdn_tape_state_act):
// every t in 0 .. T with a full tape; t = T or a multiple of K with checkpointing.
// GDN_ERR_ARG when t is not recorded or no rollout ran
GDN_API gdnStatus gdn_tape_state(const gdnTape* tape, int t, double* qpos, double* qvel);

// its activations (na), on the same terms
GDN_API gdnStatus gdn_tape_state_act(const gdnTape* tape, int t, double* act);

// One step record as gdn_tape_step returns it: what gdn_step from x_t left in gdnData. The
// pointers point into the tape and stay valid until its next rollout or gradient call.
typedef struct gdnTapeStep {
    int t;                       // the step (x_t -> x_{t+1})
    size_t bytes;                // the record's size in the tape: 8 nv + its solve block
    const double* qacc;          // (nv) the integrated acceleration (d->qacc)
    // the solve; ncon = nefc = 0 and NULL arrays when the step had no contacts and no rows
    int ncon;                    // contacts (d->ncon)
    const gdnContact* contact;   // (ncon) d->contact
    int nefc, ne, nf;            // rows, equality rows, friction-loss rows (d->nefc, ne, nf)
    const int* efc_type;         // (nefc) gdnConstraintType
    const int* efc_id;           // (nefc)
    const int* efc_state;        // (nefc) gdnConstraintState at the solution
    const double* efc_force;     // (nefc)
    const double* qacc_warmstart; // (nv) d->qacc_warmstart after the step: the solver's
                                 // acceleration (MuJoCo's qacc; differs from qacc with damping)
    int solver_iter;             // d->solver_iter (0 without rows)
    int solver_converged;        // d->solver_converged
    double solver_residual;      // d->solver_residual
    // the Newton Hessian factor L (d->solver_H, lower triangle; H = L L'), recorded when the
    // tape was created with record_factor and the step's solve left one (d->solver_H_valid):
    int factor_valid;            // 1: recorded; 0: factor_first and factor are NULL
    const int* factor_first;     // (nv) row i of L is zero left of column factor_first[i]
    const double* factor;        // rows of L back to back, row i its columns
                                 // factor_first[i] .. i (sum of i - factor_first[i] + 1 doubles)
    // the derivative report of this step from the last gdn_adjoint_rollout_gradient's backward
    // pass (derivative.h: GDN_DERIV_* flags, the margins to another branch); 0 and +inf for a
    // step without rows or before a gradient
    int deriv_flags;
    double deriv_state_margin;
    double deriv_activation_margin;
} gdnTapeStep;

// the record of step t of the last rollout: every t in 0 .. T-1 with a full tape; with
// checkpointing the last step of each segment (t = min(cK + K, T) - 1) and, after
// gdn_adjoint_rollout_gradient, the steps of the segment its backward pass replayed last
// (0 .. min(K, T) - 2). GDN_ERR_ARG when t is not recorded, no rollout ran or a pointer is NULL
GDN_API gdnStatus gdn_tape_step(const gdnTape* tape, int t, gdnTapeStep* rec);

// ---------------------------------------------------------------- rollout and gradient

// the primal only: run the rollout (recording states and step records, the solves of
// constrained steps included, on the tape) and return J.
// Errors (status, message in err): GDN_ERR_ARG for NULL pointers, sizes that differ from the
// model or the tape, T <= 0 or T > the tape's max_steps, a quaternion of qpos0 off unit norm
// by more than GDN_ADJOINT_QUAT_TOL; GDN_ERR_NONFINITE for non-finite qpos0, qvel0, ctrl,
// applied forces, a step that fails ("step t: ...") or a non-finite objective value;
// GDN_ERR_MEMORY when a step's solve does not fit in the tape's solve reserve ("step t: ...
// needs n bytes, f of r reserved bytes are free"); the status of a failing callback. *J is NaN
// and no record is readable on error.
GDN_API gdnStatus gdn_rollout_objective(const gdnModel* m, const gdnRollout* r,
                                        const gdnObjective* obj, gdnTape* tape, double* J,
                                        char* err, int err_size);

// Everything one backward pass produces. The caller owns the arrays; NULL: not wanted
// (skipping param and vert together lets the step VJP skip the parameter channels).
typedef struct gdnAdjointGradients {
    double J;             // objective value (bit-identical to gdn_rollout_objective's)
    double* qpos0;        // (nv) dJ/dq0 in the tangent space: J(q0 (+) dq) = J + <g, dq>
    double* qvel0;        // (nv) dJ/dv0
    double* act0;         // (na) dJ/dact0 (the objective's terms do not read act: it acts
                          // through the dynamics)
    double* ctrl;         // (T x nu) dJ/du_t (zero where a control is clamped by ctrlrange)
    double* param;        // (nbody x 10) dJ/dpi, canonical packing [m, cx, cy, cz, Ixx, Iyy,
                          // Izz, Ixy, Ixz, Iyz] (gdn_inertia_params); world row 0 is zero
    double* vert;         // (nvert x 3) dJ/dV: per collision-mesh vertex, body frame
    // The contact parameters (gdn_model_set_geom_* / gdn_model_set_pair_* layouts; summed over
    // the steps' contacts, zero for parameters no contact row read; the rules at ties, floors
    // and clamps: gdnContactParamGradients in derivative.h):
    double* geom_friction; // (ngeom x 3) dJ/d geom_friction (slide, spin, roll)
    double* geom_solref;   // (ngeom x 2) dJ/d geom_solref
    double* geom_solimp;   // (ngeom x 5) dJ/d geom_solimp (dmin, dmax, width, midpoint, power)
    double* geom_size;     // (ngeom x 3) dJ/d geom_size of primitives: through the contact
                           // geometry and, for a geom whose body's inertia comes from its geoms,
                           // through that inertia (dJ/dpi: param must be wanted too, else
                           // GDN_ERR_ARG); GDN_ERR_UNSUPPORTED under the penalty contact model
                           // or at a step with a mesh or height-field contact
    double* pair_friction; // (npair x 5) dJ/d pair_friction
    double* pair_solref;   // (npair x 2) dJ/d pair_solref
    double* pair_solimp;   // (npair x 5) dJ/d pair_solimp
} gdnAdjointGradients;

// One forward rollout with gdn_step (recorded on the tape, as gdn_rollout_objective) and one
// backward pass with gdn_step_vjp:
//   lambda_T = grad g(x_T);  for t = T-1 .. 0:
//   (lambda_t, dJ/du_t, dJ/dpi +=, dJ/dV +=) = J_step(x_t, u_t)' lambda_{t+1} + grad l(x_t, u_t)
// and dJ/dx_0 = lambda_0. A step with constraint rows is differentiated through its solve
// (derivative.h, docs/derivatives.md): its front half is replayed from x_t, u_t and the warm
// start it read, bit for bit the recorded one, and the inertia parameters' share through the
// rows' regularization (the inverse weights) is summed over the steps and added to dJ/dpi at
// the end. Same errors as gdn_rollout_objective, plus the status of a failing step VJP
// ("step t: ..."): GDN_ERR_UNCONVERGED ("step t: the constraint solve did not converge (i
// iterations, residual r...)") unless m opts into one-sided derivatives (GDN_ENBL_ONESIDED),
// GDN_ERR_UNSUPPORTED ("step t has n constraint rows and no derivative through its <kind>
// yet") for rows or contact pairs without a derivative, GDN_ERR_SINGULAR; J is NaN then. Each
// step's derivative report is in its record afterwards (gdnTapeStep.deriv_*). On error the
// gradient arrays hold unspecified values.
// Deterministic: the same inputs give bit-identical outputs.
GDN_API gdnStatus gdn_adjoint_rollout_gradient(const gdnModel* m, const gdnRollout* r,
                                               const gdnObjective* obj, gdnTape* tape,
                                               gdnAdjointGradients* out, char* err,
                                               int err_size);

#ifdef __cplusplus
}
#endif

#endif
