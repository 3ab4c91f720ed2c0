// SPDX-License-Identifier: Apache-2.0
// L-BFGS (two-loop recursion), projected onto box bounds, with Armijo backtracking.
#include "lbfgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LBFGS_MAX_MEMORY 16

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

// x = clamp(x, lo, hi)
static void project(double* x, int n, const double* lo, const double* hi) {
    for (int i = 0; i < n; i++) {
        if (lo && x[i] < lo[i]) {
            x[i] = lo[i];
        }
        if (hi && x[i] > hi[i]) {
            x[i] = hi[i];
        }
    }
}

// d = -H g with H the L-BFGS inverse-Hessian estimate from the pairs (s_k, y_k):
// two-loop recursion, H0 = (s'y / y'y) I of the newest pair
static void direction(double* d, const double* g, int n, double* const* s, double* const* y,
                      const double* rho, int count, int newest, int memory) {
    double alpha[LBFGS_MAX_MEMORY];
    for (int i = 0; i < n; i++) {
        d[i] = -g[i];
    }
    for (int k = 0; k < count; k++) {
        int j = (newest - k + memory) % memory;
        alpha[j] = rho[j] * dot(s[j], d, n);
        for (int i = 0; i < n; i++) {
            d[i] -= alpha[j] * y[j][i];
        }
    }
    double gamma = dot(s[newest], y[newest], n) / dot(y[newest], y[newest], n);
    for (int i = 0; i < n; i++) {
        d[i] *= gamma;
    }
    for (int k = count - 1; k >= 0; k--) {
        int j = (newest - k + memory) % memory;
        double beta = rho[j] * dot(y[j], d, n);
        for (int i = 0; i < n; i++) {
            d[i] += (alpha[j] - beta) * s[j][i];
        }
    }
}

int lbfgs_minimize(lbfgsFn fn, void* user, double* x, int n, const lbfgsOptions* opt,
                   double* history, lbfgsReport report) {
    int memory = opt->memory < 1 ? 1 : opt->memory > LBFGS_MAX_MEMORY ? LBFGS_MAX_MEMORY
                                                                          : opt->memory;
    double* buf = malloc(sizeof(double) * (size_t)n * (size_t)(5 + 2 * memory));
    if (!buf) {
        return -1;
    }
    double *g = buf, *gnew = buf + n, *d = buf + 2 * n, *xnew = buf + 3 * n, *step = buf + 4 * n;
    double *s[LBFGS_MAX_MEMORY], *y[LBFGS_MAX_MEMORY], rho[LBFGS_MAX_MEMORY];
    for (int k = 0; k < memory; k++) {
        s[k] = buf + (size_t)n * (size_t)(5 + 2 * k);
        y[k] = s[k] + n;
    }
    project(x, n, opt->lo, opt->hi);
    double J = fn(user, x, g);
    int evaluations = 1, count = 0, newest = 0, iter = 0;
    double J0 = J;
    history[0] = J;
    if (report) {
        report(user, 0, J, evaluations);
    }
    for (iter = 1; iter <= opt->max_iter && isfinite(J) && J > opt->rel_tol * J0; iter++) {
        // the search direction: steepest descent scaled to first_step, then L-BFGS
        if (count == 0) {
            double gn = sqrt(dot(g, g, n));
            for (int i = 0; i < n; i++) {
                d[i] = -g[i] * opt->first_step / fmax(gn, 1e-300);
            }
        } else {
            direction(d, g, n, s, y, rho, count, newest, memory);
        }
        if (dot(d, g, n) >= 0) { // not a descent direction: restart from steepest descent
            if (count == 0) {
                break; // zero gradient
            }
            count = 0;
            iter--;
            continue;
        }

        // backtracking on the projected step until J falls enough (Armijo, c = 1e-4)
        double t = 1.0, Jnew = NAN;
        for (int trial = 0; trial < 30; trial++, t *= 0.5) {
            for (int i = 0; i < n; i++) {
                xnew[i] = x[i] + t * d[i];
            }
            project(xnew, n, opt->lo, opt->hi);
            for (int i = 0; i < n; i++) {
                step[i] = xnew[i] - x[i];
            }
            Jnew = fn(user, xnew, NULL);
            evaluations++;
            if (isfinite(Jnew) && Jnew <= J + 1e-4 * dot(g, step, n)) {
                break;
            }
        }
        if (!isfinite(Jnew) || Jnew > J) {
            if (count > 0) { // the quasi-Newton direction failed: retry along -grad
                count = 0;
                iter--;
                continue;
            }
            break; // no progress along -grad: converged to the precision available
        }

        // one backward pass at the accepted point, then the new curvature pair
        double Jg = fn(user, xnew, gnew);
        evaluations++;
        if (!isfinite(Jg)) {
            free(buf);
            return -1;
        }
        int slot = count == 0 ? 0 : (newest + 1) % memory;
        for (int i = 0; i < n; i++) {
            s[slot][i] = xnew[i] - x[i];
            y[slot][i] = gnew[i] - g[i];
        }
        double sy = dot(s[slot], y[slot], n);
        if (sy > 1e-16 * sqrt(dot(s[slot], s[slot], n) * dot(y[slot], y[slot], n))) {
            rho[slot] = 1.0 / sy;
            newest = slot;
            count = count < memory ? count + 1 : memory;
        }
        memcpy(x, xnew, sizeof(double) * (size_t)n);
        memcpy(g, gnew, sizeof(double) * (size_t)n);
        J = Jg;
        history[iter] = J;
        if (report) {
            report(user, iter, J, evaluations);
        }
    }
    free(buf);
    return iter - 1;
}
