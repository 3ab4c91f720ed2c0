// SPDX-License-Identifier: Apache-2.0
// Internal: the dual problem of one Kamino world and its PADMM backend (issue 10). AGREED
// INTERFACE between the core (src/kamino/*, builds the problem) and the backend
// (src/kamino/padmm.{c,h}, solves it). Copy this file to src/kamino/dual.h unchanged; extend
// only by adding fields at the end of the structs (tell the lead).
#ifndef GDN_KAMINO_DUAL_H
#define GDN_KAMINO_DUAL_H

#include <gradyn/gradyn.h>

#include "math/cholesky.h"

// Rows, in this order: nb bilateral rows (joints, loop closures), nl unilateral rows (joint
// limits: lambda >= 0), nc contacts of 3 rows each, [t0, t1, n] (lambda in the Coulomb cone
// ||lambda_t|| <= mu lambda_n). n = nb + nl + 3 nc.
//
// The problem (kamino.md 2.2): find lambda in K with v+ = D lambda + v_f, vhat = v+ + Gamma(v+)
// in K* and lambda . vhat = 0, where Gamma adds mu ||v+_t|| to each contact's normal component
// (De Saxce) and bilateral rows require vhat = 0. Impulses in N s (or N m s), velocities in m/s
// (or rad/s).
typedef struct gdnKaminoDual {
    int nb, nl, nc, n;
    const double* D;  // n x n, row-major, symmetric positive semidefinite (rank-deficient
                      // with redundant loop rows): D = J M^-1 J' (+ compliance diagonal); only
                      // the lower triangle inside env is read
    const double* vf; // n: the free constraint velocity, biases and restitution included
    const double* mu; // nc: friction coefficient of each contact (0 allowed)
    const gdnCholEnvelope* env; // D's envelope (math/cholesky.h: row i has no nonzero left of
                      // column first[i]; its entries there are +0), or NULL: dense. The factor
                      // and the solves skip what lies outside it (same bits as dense)
} gdnKaminoDual;

// PADMM settings (kamino.md 2.4; defaults by gdn_kamino_padmm_defaults)
typedef struct gdnKaminoPadmmSettings {
    int max_iterations;    // 200
    double tol_primal;     // 1e-6 (r_p, N s)
    double tol_dual;       // 1e-6 (r_d, m/s)
    double tol_compl;      // 1e-6 (r_c, J)
    double eta;            // 1e-5: proximal weight
    double rho;            // 1.0: penalty
    int acceleration;      // 1: Nesterov with restart (Goldstein et al.)
    double restart_factor; // 0.999
    int preconditioning;   // 1: diagonal P = clamp(1/sqrt(D_ii + eps), 1/50, 50), one value per
                           // contact triplet (the max diagonal of its three rows)
    double warmstart_scale; // 0.9: the warm start's scale on the bilateral rows (shrinks
                            // their unbounded null space toward the minimum-norm solution)
    double rho_bilateral;   // 0: the penalty on bilateral rows (no projection acts on them, so
                            // none is needed: with 0 they are solved in the linear step, y = x,
                            // z = 0); rho_bilateral = rho is kamino.md's single penalty
    int penalty_update;     // 1: balanced penalty (kamino.md 2.4g) on the unilateral rows,
                            // with a refactorization when rho changes
    double penalty_ratio;   // 10: rho changes when one residual exceeds this times the other
    double penalty_factor;  // 1.5: by this factor
    double rho_min;         // 1e-5
    double rho_max;         // 1e6
    double warmstart_scale_unilateral; // 0.9: the warm start's scale on limit and contact rows
                            // (1 keeps the point a degenerate contact solution needs: padmm.c)
} gdnKaminoPadmmSettings;

// the terminal status of one solve (the seed's PADMM definitions, physical units, absolute)
typedef struct gdnKaminoSolveStatus {
    int converged;  // 1 when r_p, r_d, r_c all met their tolerances (iteration > 1)
    int iterations;
    double r_p;     // ||P (x - y)||_inf
    double r_d;     // ||P^-1 (eta (x - x_prev) + rho (y - y_prev))||_inf
    double r_c;     // max over limit rows |x z| and contacts |x_c . z_c|
    double rho;     // the penalty of the unilateral rows at the end
    int refactorizations; // penalty updates (each a new factor)
    int unused;     // (keeps the record free of padding, so records compare with memcmp)
} gdnKaminoSolveStatus;

// scratch the backend needs for a problem of n rows, in doubles (the caller provides it: no
// malloc in a step)
size_t gdn_kamino_padmm_scratch(int n);

void gdn_kamino_padmm_defaults(gdnKaminoPadmmSettings* s);

// Solve. lambda (n): in: the warm start (scaled inside by warmstart_scale on bilateral rows,
// warmstart_scale_unilateral on the rest; zeros for none), out: the impulses. vplus (n): in:
// the warm start of v+ (or zeros), out: v+ = D lambda + vf. scratch:
// gdn_kamino_padmm_scratch(n) doubles. Returns GDN_OK (converged or capped: see status),
// GDN_ERR_NONFINITE for NaN/Inf in the problem or the iterates (status says where),
// GDN_ERR_ARG for bad sizes. Deterministic: bit-identical results for identical inputs.
gdnStatus gdn_kamino_padmm_solve(const gdnKaminoDual* p, const gdnKaminoPadmmSettings* s,
                                 double* lambda, double* vplus, double* scratch,
                                 gdnKaminoSolveStatus* status);

// After a solve of problem p (n rows, nb bilateral): r (nb) = P_b (Dt_bb + (eta +
// rho_bilateral) I)^-1 P_b r, with the factor the solve left in scratch (its leading block: the
// bilateral rows' part, whatever the unilateral rows and their penalty). With rho_bilateral = 0
// this is (D_bb + eta P_b^-2)^-1 r: the regularized inverse of the bilateral Delassus block.
void gdn_kamino_padmm_bilateral_solve(const gdnKaminoDual* p, const double* scratch, double* r);
#endif
