// SPDX-License-Identifier: Apache-2.0
// Before timing a row: do both engines compute the same thing? (worst relative difference)
#ifndef GDN_BENCH_CHECK_H
#define GDN_BENCH_CHECK_H

#include "rows.h"

// run the row in both engines on every random state and return the worst
// ||gradyn - mujoco||_inf / max(||mujoco||_inf, 1) of the row's output (+inf if non-finite)
double bench_row_agreement(benchModel* bm, const benchRow* row);

#endif
