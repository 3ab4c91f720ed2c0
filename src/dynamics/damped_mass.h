// SPDX-License-Identifier: Apache-2.0
// Internal: M + h diag(dof_damping) by the one tree factor (mass_factor.h), laid out for solves
// with many right-hand sides (the transition Jacobians).
#ifndef GDN_DYNAMICS_DAMPED_MASS_H
#define GDN_DYNAMICS_DAMPED_MASS_H

#include <gradyn/gradyn.h>

#include "dynamics/mass_factor.h"

// The transpose of a tree factor, for a gathered first pass of the solve: the dofs k below dof
// i (k with i on their chain), in decreasing k, at [descadr[i], descadr[i] + descnum[i]) of
// desc, and L(k, i) at the same place in descL
typedef struct gdnTreeBelow {
    const int* descadr;  // (nv)
    const int* descnum;  // (nv)
    const int* desc;     // (nnz - nv)
    const double* descL; // (nnz - nv)
} gdnTreeBelow;

// H = M + h D = L' diag(dvec) L with L unit lower triangular and L(k, i) != 0 only for i an
// ancestor dof of k (dof_parentid chain): no fill-in (Featherstone's LTDL), the one tree factor
// (gdn_mass_factor with h D as its diagonal and no simple dofs, so every row is eliminated),
// with its transpose
typedef struct gdnDampedMass {
    int nv;
    const int* parent;  // (nv) the model's dof_parentid
    gdnMassFactor f;    // the factor (f.simple all zero)
    gdnTreeBelow below; // its transpose
} gdnDampedMass;

// factorize M(q) + h diag(dof_damping) at the current kinematics (calls gdn_crb, which
// overwrites d->qM). Storage comes from the arena (the caller resets it). GDN_ERR_MEMORY when
// the arena is exhausted, GDN_ERR_NONFINITE for a pivot below GDN_MINVAL or NaN.
gdnStatus gdn_damped_mass_factor(const gdnModel* m, gdnData* d, double h, gdnDampedMass* dm);

// the same from a given mass matrix M (nv x nv row-major, armature included; only the entries
// (k, j) with j = k or j an ancestor dof of k are read) instead of gdn_crb's d->qM
gdnStatus gdn_damped_mass_factor_from(const gdnModel* m, gdnData* d, double h, const double* M,
                                      gdnDampedMass* dm);

// X <- H^-1 X for the ncol columns at X of a matrix with row stride ldx (a column range): the
// kernel of gdn_mass_solve_columns with the first pass gathered over dm's transpose (the same
// operations in the same order)
void gdn_damped_mass_solve_columns(const gdnDampedMass* dm, double* X, int ldx, int ncol);

// X <- (L' D L)^-1 X with the tree factor f for the ncol columns at X (row stride ldx): the one
// many-column tree solve, gdn_mass_solve's operations in its order on every column (simple dofs'
// rows skipped as it skips them; its skip of a zero x_i is not made, which can change only the
// sign of a zero). Column blocks with their rows' lane vectors in registers, in the copy
// math/simd.h chooses; the first pass scatters each row into its ancestors
void gdn_mass_solve_columns(const gdnModel* m, const gdnMassFactor* f, double* X, int ldx,
                            int ncol);

#endif
