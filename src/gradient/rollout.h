// SPDX-License-Identifier: Apache-2.0
// Internal: the rollout's validation and forward pass, shared by the primal and the adjoint.
#ifndef GDN_GRADIENT_ROLLOUT_H
#define GDN_GRADIENT_ROLLOUT_H

#include <gradyn/adjoint.h>

#include "gradient/tape.h"

// checks every input before anything runs; leaves x_0's configuration in tape->qpos0
// (quaternions normalized as gdn_step's kinematics normalizes them)
gdnStatus gdn_rollout_validate(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                               gdnTape* tape, char* err, int err_size);

// x = (d->qpos, d->qvel) and back
void gdn_rollout_save_state(const gdnModel* m, const gdnData* d, double* x);
void gdn_rollout_load_state(const gdnModel* m, gdnData* d, const double* x);

// row t of the controls (NULL when nu = 0)
const double* gdn_rollout_ctrl_row(const gdnModel* m, const gdnRollout* r, int t);

// the forward pass: x_0 from tape->qpos0 and r->qvel0 with a zero warm start; for t < T
// record x_t (every K-th, with its warm start when K > 1), J += l(x_t, u_t),
// x_{t+1} = gdn_step(x_t, u_t) (its step record, qacc and solve, kept at each segment's last
// step, tape.h; with store and a tape that stores intermediates, also the recorded steps'
// stored intermediates, their front halves run by gdn_step_keep: same bits); then record x_T
// and J += g(x_T). GDN_ERR_MEMORY when a solve does not fit
gdnStatus gdn_rollout_forward(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                              gdnTape* tape, int store, double* J, char* err, int err_size);

// after a forward pass with K > 1: replay segment s [t0, t1) from its checkpoint and warm start
// with gdn_step, its states x_{t0+1} .. x_{t1-1} into tape->segment and the records of steps
// t0 .. t1-2 into the segment slots (bit for bit the forward pass's steps; with the stored
// intermediates when the tape stores them)
gdnStatus gdn_rollout_replay(const gdnModel* m, const gdnRollout* r, gdnTape* tape, int s,
                             char* err, int err_size);

#endif
