// SPDX-License-Identifier: Apache-2.0
// The issue-4 table: the contact step (gdn_step vs mj_step with contacts and constraints on,
// each model's own settings; one row with the CG solver in both) over whole rollouts, with both
// engines' solver iterations.
#ifndef GDN_BENCH_CONTACT_H
#define GDN_BENCH_CONTACT_H

// print the table: for each contact model, batches of one rollout of steps steps from the
// model's initial state per engine, interleaved (the order alternates per batch); per-step time
// = median over batches. Returns the number of models that failed to load or step.
int bench_contact_table(int batches, int steps);

#endif
