// SPDX-License-Identifier: Apache-2.0
// Internal: the rollout tape (state record, step records, backward-pass buffers) and its layout.
#ifndef GDN_GRADIENT_TAPE_H
#define GDN_GRADIENT_TAPE_H

#include <string.h>

#include <gradyn/adjoint.h>

#include "dynamics/aba.h"

// State record: a state is (qpos nq, qvel nv, act na) contiguous, `stride` = nq + nv + na
// doubles.
//   checkpoint[c] = x_{cK}  for c = 0 .. ncheck-1 (K = 1: every state x_0 .. x_{T-1})
//   warm[c]       = d->qacc_warmstart before step cK (K > 1 only: the segment replay's start)
//   segment[s]    = x_{t0+1+s} for s = 0 .. K-2, refilled per segment in the backward pass
//   final         = x_T
// Step records: what step t left in gdnData (its integrated acceleration, and its solve when it
// had contacts or rows), variable size, back to back in `pool`, found through entry[slot]:
//   slot c < ncheck       : step min(cK + K, T) - 1, the last of segment c (K = 1: step c),
//                           recorded by the forward pass in order (pool [0, pool_forward))
//   slot ncheck + s       : step t0 + s for s = 0 .. K-2 of the segment the backward pass holds
//                           (seg_t0), recorded after the forward records, rewritten per segment
// One record (8-byte aligned sections, in this order; `bytes` is their sum):
//   qacc (nv doubles)                                        always
//   when ncon > 0 or nefc > 0, the solve block (gdn_tape_solve_bytes):
//     qacc_warmstart (nv doubles), contact (ncon gdnContact), efc_force (nefc doubles),
//     factor (nfactor doubles: row i of L, columns first[i] .. i, rows back to back),
//     efc_type, efc_id, efc_state (nefc ints each), factor_first (nv ints when nfactor > 0),
//     padding to 8 bytes
// Stored intermediates (gdnTapeOptions.store_intermediates): per record slot a block of
// inter_stride doubles in `inter`, what the front half of the recorded step computed at x_t and
// the step VJP reads (valid when the slot's entry has inter != 0):
//   qpos (nq, quaternions normalized), then the runs of the data's arrays xpos (3 nbody), xquat
//   (4 nbody), xmat (9 nbody), xipos (3 nbody), ximat (9 nbody), xanchor (3 njnt), xaxis
//   (3 njnt), subtree_com (3 nbody), cdof (6 nv: ABA's axes, the factor's first array), cinert
//   (10 nbody); the factor's U (6 nv) and dinv (nv); when the model has vertices (store_vert)
//   the penalty contact's vertex outputs vert_xpos, vert_force (3 nvert each) and nvert_active.
// Arrays adjacent in gdnData (up to its 64-byte alignment padding) share a run: one memcpy each
// way, the padding included. So a block is nq + 41 nbody + 6 njnt + 13 nv (+ 6 nvert + 1)
// doubles plus the padding inside the runs (at most 7 doubles per merged array).
// entry.inter: 0 none, 1 the kinematics and the factor, 3 also the vertex outputs
typedef struct gdnTapeRun {
    double* d;  // first array of the run in the tape's gdnData
    size_t n;   // doubles of the run, from d
    size_t off; // its offset in a block
} gdnTapeRun;

typedef struct gdnTapeInter {
    gdnTapeRun run[12]; // the kinematics' runs, then the vertex outputs'
    int nrun, nrun_kin;
    size_t off_axes;    // the factor's axes (= the copy of d->cdof) in a block
    size_t off_U;       // U, then dinv
    size_t off_nactive; // nvert_active (store_vert)
} gdnTapeInter;

typedef struct gdnTapeEntry {
    size_t offset;          // first byte of the record in the pool
    size_t bytes;           // its size
    int t;                  // the step, -1: empty
    int ncon, nefc, ne, nf; // gdnData's counts after the step
    int solver_iter, solver_converged;
    int nfactor;            // doubles of the recorded factor envelope (0: none)
    int inter;              // the slot's stored intermediates are this step's: 0 none, 1 or 3
    double solver_residual;
    int deriv_flags;        // the backward pass's derivative report of the step (data.h)
    double deriv_state_margin, deriv_activation_margin;
} gdnTapeEntry;

struct gdnTape {
    // the model's shape at creation (a call with another shape is refused)
    int nq, nv, nu, na, nbody, nvert, njnt;
    int max_steps;     // largest T
    int every;         // K: checkpoint interval (1 = full tape)
    int ncheck;        // checkpoint slots: ceil(max_steps / K)
    int stride;        // nq + nv + na
    int nstep;         // T of the last successful rollout, 0 before any
    int constrained;   // first step t of the last rollout with constraint rows, -1 for none
    int constrained_nefc; // its row count
    int record_factor; // record the Newton factor of constrained steps (gdnTapeOptions)
    int nslot;         // ncheck + K - 1 step-record slots
    int seg_t0;        // t0 of the segment whose records are in the segment slots, -1: none
    int store_inter;   // keep the stored intermediates of every recorded step (gdnTapeOptions)
    int store_vert;    // with store_inter: also the penalty vertex outputs (nvert > 0)
    size_t inter_stride; // doubles per slot of `inter` (0 when store_inter = 0)
    gdnTapeInter plan;   // the block layout

    double* checkpoint;  // (ncheck x stride)
    double* warm;        // (ncheck x nv), NULL when K = 1
    double* segment;     // ((K - 1) x stride), NULL when K = 1
    double* final;       // (stride)
    double* replay_next; // (stride) an RK4 reverse step's replayed x_{t+1}
    double* rk4_acc;     // (nslot x gdn_tape_rk4_stride) per record slot the step's RK4 stage
                         // accelerations and activation rates (d->qacc_rk4, act_dot_rk4);
                         // NULL unless the model was RK4 at creation

    double* inter;       // (nslot x inter_stride) the stored intermediates, NULL when off
    gdnTapeEntry* entry; // (nslot) the index of the step records
    unsigned char* pool; // the step records, back to back
    size_t pool_bytes;   // its size: nslot accelerations + the solve reserve
    size_t pool_used;    // first free byte
    size_t pool_forward; // end of the forward pass's records
    size_t solve_reserve; // bytes of pool_bytes reserved for solve blocks
    size_t solve_used;   // solve-block bytes of the records held now
    size_t solve_forward; // those of the forward pass's records

    // backward-pass and input buffers
    double* qpos0;       // (nq) validated, normalized initial configuration
    double* lam_q;       // (nv) lambda_{t+1}, position part (tangent)
    double* lam_v;       // (nv) lambda_{t+1}, velocity part
    double* g_q;         // (nv) lambda_t being formed
    double* g_v;         // (nv)
    double* lam_a;       // (na) lambda_{t+1}, activation part
    double* g_a;         // (na)
    double* act_work;    // (nu + 3 na) a smooth step's force-input cotangent and its update's
                         // partials (gradient/activation_derivative.h)
    double* cost_q;      // (max(nq, nv)) a cost term's position gradient as returned
    double* cost_qt;     // (nv) the same in the tangent space
    double* cost_v;      // (nv)
    double* cost_u;      // (nu)
    double* cost_a;      // (na) an internal term's act gradient (the batch objective's,
                         // src/batch/adjoint_batch.c: public terms have none), zeroed by
                         // gdn_cost_eval before a gradient evaluation
    int cost_a_set;      // 1 when the term wrote cost_a: the driver adds it to lambda's act
                         // part (never set by a public callback, whose gradients stay
                         // bit for bit as they were)
    double* gweights;    // (2 nbody + nv + ntendon) the backward pass's cotangents of
                         // body_invweight0, dof_invweight0 and tendon_invweight0
                         // (constrained steps' D), summed over the steps

    gdnData* d;          // the data the rollout steps
    gdnData* scratch;    // the objective callbacks' workspace
    void* buffer;        // the single allocation behind every array above
};

// the recorded state x_t when stored (else NULL): qpos at [0, nq), qvel at [nq, nq + nv)
double* gdn_tape_slot(const gdnTape* tape, int t);

// the record slot of step t < T (forward or segment slot, see above), -1 when t is not held
int gdn_tape_slot_of(const gdnTape* tape, int t);

// the acceleration integrated by step t < T (a forward record, or a segment record while the
// backward pass holds t's segment), NULL when not recorded
const double* gdn_tape_acc(const gdnTape* tape, int t);


// the factor arrays of slot's stored intermediates (where the recorded step's ABA writes them)
void gdn_tape_inter_factor(const gdnTape* tape, int slot, gdnAbaFactor* f);

// the normalized qpos of slot's stored intermediates (where the recorded step copies it)
double* gdn_tape_inter_qpos(const gdnTape* tape, int slot);

// after the recorded step on tape->d (gdn_step_keep into the slot's factor and qpos): the
// kinematics, cdof and cinert, which the integration does not change, into the slot, with vert
// (the step had penalty contact, and the tape has room: store_vert) also the vertex outputs;
// marks its entry valid (inter 1, or 3 with the vertex outputs)
void gdn_tape_inter_save(gdnTape* tape, int slot, int vert);

// the slot's stored intermediates back into tape->d: qpos (normalized), the body kinematics,
// cdof, cinert, and the vertex outputs when stored, as the front half of the step left them
void gdn_tape_inter_restore(const gdnTape* tape, int slot);

// empty the step records (before a forward pass)
void gdn_tape_clear_records(gdnTape* tape);

// drop the segment records (before a segment replay): the pool top returns to pool_forward
void gdn_tape_clear_segment(gdnTape* tape);

// gdn_tape_record for a step with contacts or rows: qacc and the solve block.
// GDN_ERR_MEMORY ("step t: ...", nothing written) when the solve reserve is too small
gdnStatus gdn_tape_record_solve(gdnTape* tape, int slot, int t, const gdnData* d, char* err,
                                int err_size);

// record what gdn_step left in d for step t into `slot` at the pool's top: qacc, and the solve
// block when d has contacts or rows (gdn_tape_record_solve). A record without a solve block
// always fits (the pool holds the accelerations of every slot), and is written here inline: it
// is on the path of every unconstrained step of a rollout
static inline gdnStatus gdn_tape_record(gdnTape* tape, int slot, int t, const gdnData* d,
                                        char* err, int err_size) {
    if (d->ncon != 0 || d->nefc != 0) {
        return gdn_tape_record_solve(tape, slot, t, d, err, err_size);
    }
    const size_t bytes = sizeof(double) * (size_t)tape->nv;
    gdnTapeEntry* e = &tape->entry[slot];
    e->offset = tape->pool_used;
    e->bytes = bytes;
    e->t = t;
    e->ncon = 0;
    e->nefc = 0;
    e->ne = 0;
    e->nf = 0;
    e->solver_iter = d->solver_iter;
    e->solver_converged = d->solver_converged;
    e->nfactor = 0;
    e->inter = 0;
    e->solver_residual = d->solver_residual;
    memcpy(tape->pool + tape->pool_used, d->qacc, bytes);
    tape->pool_used += bytes;
    return GDN_OK;
}

// whether the forward pass keeps the steps' front-half intermediates: asked for, and the
// model's integrator is Euler (an RK4 step has four front halves: its reverse step replays it)
static inline int gdn_tape_keeps_inter(const gdnModel* m, const gdnTape* tape) {
    return tape->store_inter && m->opt.integrator == GDN_INT_EULER;
}

// a record slot's RK4 block: the stage accelerations a_0 .. a_3 (4 nv, d->qacc_rk4), then the
// stage activation rates f_0 .. f_3 (4 na, d->act_dot_rk4)
static inline size_t gdn_tape_rk4_stride(const gdnModel* m) {
    return 4 * ((size_t)(m->nv > 0 ? m->nv : 1) + (size_t)m->na);
}

// an RK4 step's stages into record slot's block, when the tape has it and the model steps
// with RK4 (the step's record is written by gdn_tape_record)
static inline void gdn_tape_record_rk4(const gdnModel* m, gdnTape* tape, int slot,
                                       const gdnData* d) {
    if (tape->rk4_acc && m->opt.integrator == GDN_INT_RK4) {
        double* b = tape->rk4_acc + (size_t)slot * gdn_tape_rk4_stride(m);
        memcpy(b, d->qacc_rk4, sizeof(double) * 4 * (size_t)m->nv);
        memcpy(b + 4 * (size_t)m->nv, d->act_dot_rk4, sizeof(double) * 4 * (size_t)m->na);
    }
}

// the RK4 block recorded for step t (NULL: none kept)
static inline const double* gdn_tape_rk4_acc(const gdnModel* m, const gdnTape* tape, int slot) {
    return tape->rk4_acc && slot >= 0 && m->opt.integrator == GDN_INT_RK4
               ? tape->rk4_acc + (size_t)slot * gdn_tape_rk4_stride(m)
               : NULL;
}

#endif
