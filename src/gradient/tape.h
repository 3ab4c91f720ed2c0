// SPDX-License-Identifier: Apache-2.0
// Internal: the rollout tape (state record, backward-pass buffers, workspaces) and its layout.
#ifndef GDN_GRADIENT_TAPE_H
#define GDN_GRADIENT_TAPE_H

#include <gradyn/adjoint.h>

// Record layout: a state is (qpos nq, qvel nv) contiguous, `stride` = nq + nv doubles.
//   checkpoint[c] = x_{cK}  for c = 0 .. ncheck-1 (K = 1: every state x_0 .. x_{T-1})
//   segment[s]    = x_{t0+1+s} for s = 0 .. K-2, refilled per segment in the backward pass
//   final         = x_T
// and the integrated accelerations (nv each, d->qacc after gdn_step from x_t) the step VJP
// takes instead of recomputing them (gdn_step_vjp_at):
//   acc_check[c]   = qacc of segment c's last step, t = min(cK + K, T) - 1 (K = 1: qacc_c),
//                    recorded by the forward pass
//   acc_segment[s] = qacc_{t0+s} for s = 0 .. K-2, refilled with the segment's states
struct gdnTape {
    // the model's shape at creation (a call with another shape is refused)
    int nq, nv, nu, nbody, nvert;
    int max_steps;     // largest T
    int every;         // K: checkpoint interval (1 = full tape)
    int ncheck;        // checkpoint slots: ceil(max_steps / K)
    int stride;        // nq + nv
    int nstep;         // T of the last successful rollout, 0 before any
    int constrained;   // first step t of the last rollout with constraint rows, -1 for none
    int constrained_nefc; // its row count

    double* checkpoint;  // (ncheck x stride)
    double* segment;     // ((K - 1) x stride), NULL when K = 1
    double* final;       // (stride)
    double* acc_check;   // (ncheck x nv)
    double* acc_segment; // ((K - 1) x nv), NULL when K = 1

    // backward-pass and input buffers
    double* qpos0;       // (nq) validated, normalized initial configuration
    double* lam_q;       // (nv) lambda_{t+1}, position part (tangent)
    double* lam_v;       // (nv) lambda_{t+1}, velocity part
    double* g_q;         // (nv) lambda_t being formed
    double* g_v;         // (nv)
    double* cost_q;      // (max(nq, nv)) a cost term's position gradient as returned
    double* cost_qt;     // (nv) the same in the tangent space
    double* cost_v;      // (nv)
    double* cost_u;      // (nu)

    gdnData* d;          // the data the rollout steps
    gdnData* scratch;    // the objective callbacks' workspace
    void* buffer;        // the single allocation behind every array above
};

// the recorded state x_t when stored (else NULL): qpos at [0, nq), qvel at [nq, nq + nv)
double* gdn_tape_slot(const gdnTape* tape, int t);

// the acceleration integrated by step t < T (acc_check or acc_segment; the latter only while
// the backward pass holds t's segment), NULL when not recorded
const double* gdn_tape_acc(const gdnTape* tape, int t);

#endif
