// SPDX-License-Identifier: Apache-2.0
// The branches a rollout took, step by step (contact set, constraint row states, penalty
// vertices in contact, control and force clamps), recorded by replaying it with gdn_step, and
// the first difference between two such records (gradcheck: did the +eps and -eps samples of
// a finite difference take the same branches as the unperturbed rollout?).
#ifndef GDN_CLI_BRANCH_TRACE_H
#define GDN_CLI_BRANCH_TRACE_H

#include <stddef.h>

#include <gradyn/adjoint.h>

// per step t (x_t -> x_{t+1}), after gdn_step, a run of ints in data from step_start[t]:
//   ncon, then geom1, geom2 of each contact (detection order)
//   nefc, then type, id, state of each row
//   nactive, then the ids of the penalty vertices with a nonzero force
//   nu, then per actuator the ctrl clamp (-1 below ctrlrange, 0 inside, 1 above; 0 when not
//   limited or clamping is off) and the force clamp (-1 at forcerange's low end, 1 at its high
//   end, 0 inside or not limited)
typedef struct cliBranchTrace {
    int* data;
    size_t size, capacity;
    size_t* step_start;    // (nstep + 1)
    long nstep;
    double* final_state;   // (nq + nv) x_T of the replay
} cliBranchTrace;

// replay rollout r on model m from a fresh gdnData (zero warm start, time 0, r's applied
// forces), as gdn_rollout_objective runs it, recording every step into trace (its memory is
// (re)allocated; free with cli_trace_free). 0 on success, else err says why
int cli_trace_run(const gdnModel* m, const gdnRollout* r, cliBranchTrace* trace, char* err,
                  int err_size);

// the first step at which a and b differ and what differs there, in words (e.g. "contact set:
// ncon 4 -> 5", "row 3 (contact, id 1): state quadratic -> satisfied", "penalty vertex 17
// (body 'box'): free -> in contact", "ctrl[1]: inside ctrlrange -> above"), names from m;
// 1 and *step set when they differ, 0 when the records are equal
int cli_trace_diff(const gdnModel* m, const cliBranchTrace* a, const cliBranchTrace* b,
                   long* step, char* what, int what_size);

void cli_trace_free(cliBranchTrace* trace);

#endif
