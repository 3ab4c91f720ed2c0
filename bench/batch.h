// SPDX-License-Identifier: Apache-2.0
// The issue-11 table: gdn_rollout_batch / gdn_adjoint_batch on 1 and 2 threads vs MuJoCo's
// mj_step run as mujoco.rollout runs it, on the humanoid state of the mujoco.rollout notebook.
#ifndef GDN_BENCH_BATCH_H
#define GDN_BENCH_BATCH_H

// print the table (medians of `batches` rounds; every engine and thread count once per round,
// the order alternating per round). Returns the number of cases that failed
int bench_batch_table(int batches);

#endif
