// SPDX-License-Identifier: Apache-2.0
// The issue-10 table: Kamino's step (gdn_kamino_step, PADMM, default settings) vs MuJoCo 2.2.2's
// mj_step on the same MJCF files (closed-loop mechanisms, a contact scene), in one run.
#ifndef GDN_BENCH_KAMINO_H
#define GDN_BENCH_KAMINO_H

// print the table: per scene, a statistics run and a warm-up of each engine, then batches
// interleaved engine by engine (the order alternates per batch); a batch repeats a window
// (reset to qpos0, 0.2 s of steps untimed, the next window steps timed) until it lasts about
// batch_seconds; per-step time = median over batches. Returns the number of scenes that failed
// to load or step.
int bench_kamino_table(int batches, double batch_seconds, int window);

// --list lines (MODEL/kamino_step/gradyn and MODEL/kamino_step/mujoco per scene) and --count:
// load the scene, reset and step 0.2 s (the start of the timed window), then calls steps of
// one engine (calls = the window reproduces the timed interval). Returns 0 when it ran, 1 on a
// load or step failure, 2 when MODEL/ROW is not a Kamino row
void bench_kamino_list(void);
int bench_kamino_count(const char* model, const char* row, int mujoco, long calls);

#endif
