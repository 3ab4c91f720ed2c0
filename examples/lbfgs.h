// SPDX-License-Identifier: Apache-2.0
// A small L-BFGS with box bounds by projection and a backtracking (Armijo) line search.
#ifndef GDN_EXAMPLE_LBFGS_H
#define GDN_EXAMPLE_LBFGS_H

// the objective: J(x), and its gradient into grad when grad is non-NULL (one backward pass);
// returns a non-finite value on failure
typedef double (*lbfgsFn)(void* user, const double* x, double* grad);

// called after every accepted iteration (0 = the start) with the loss; may be NULL
typedef void (*lbfgsReport)(void* user, int iteration, double loss, int evaluations);

typedef struct lbfgsOptions {
    int max_iter;        // iterations (each: one gradient, one or more primal evaluations)
    int memory;          // curvature pairs kept (<= 16)
    const double* lo;    // (n) lower bounds or NULL
    const double* hi;    // (n) upper bounds or NULL
    double first_step;   // length of the first step along -grad (in x units)
    double rel_tol;      // stop when the loss falls below rel_tol * loss at the start
} lbfgsOptions;

// minimize fn from x (updated in place); the loss after each iteration goes to history
// (max_iter + 1 entries, the start first) and to report. Returns the number of iterations
// done, or -1 when an evaluation failed or memory ran out
int lbfgs_minimize(lbfgsFn fn, void* user, double* x, int n, const lbfgsOptions* opt,
                   double* history, lbfgsReport report);

#endif
