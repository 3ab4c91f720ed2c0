// SPDX-License-Identifier: Apache-2.0
// Internal: M + h diag(dof_damping) by the one tree factor (mass_factor.h), laid out for solves
// with many right-hand sides (the transition Jacobians).
#ifndef GDN_DYNAMICS_DAMPED_MASS_H
#define GDN_DYNAMICS_DAMPED_MASS_H

#include <gradyn/gradyn.h>

// H = M + h D = L' diag(dvec) L with L unit lower triangular and L(k, i) != 0 only for i an
// ancestor dof of k (dof_parentid chain): no fill-in (Featherstone's LTDL), the values of
// gdn_mass_factor (rowadr, rownnz, L, dinv are its adr, len, LD, Dinv). Row k of the factor
// holds the chain k, parent(k), parent(parent(k)), ... : entry 0 is dvec_k, entry t > 0 is
// L(k, chain_k[t]). The chain of an ancestor is a tail of the chain of its descendant.
typedef struct gdnDampedMass {
    int nv;
    int* rowadr;   // (nv) start of row k in chain / L
    int* rownnz;   // (nv) 1 + number of ancestor dofs of k
    int* chain;    // (nnz) dof ids along each row
    double* L;     // (nnz) the factor as above
    double* dinv;  // (nv) 1 / dvec
    // the transpose, for the first pass of a dense solve: the dofs k below dof i (k with i on
    // their chain), in decreasing k, at [descadr[i], descadr[i] + descnum[i]) of desc, and L(k, i)
    // at the same place in descL
    int* descadr;  // (nv)
    int* descnum;  // (nv)
    int* desc;     // (nnz - nv)
    double* descL; // (nnz - nv)
} gdnDampedMass;

// factorize M(q) + h diag(dof_damping) at the current kinematics (calls gdn_crb, which
// overwrites d->qM). Storage comes from the arena (the caller resets it). GDN_ERR_MEMORY when
// the arena is exhausted, GDN_ERR_NONFINITE for a pivot below GDN_MINVAL or NaN.
gdnStatus gdn_damped_mass_factor(const gdnModel* m, gdnData* d, double h, gdnDampedMass* dm);

// the same from a given mass matrix M (nv x nv row-major, armature included; only the entries
// (k, j) with j = k or j an ancestor dof of k are read) instead of gdn_crb's d->qM
gdnStatus gdn_damped_mass_factor_from(const gdnModel* m, gdnData* d, double h, const double* M,
                                      gdnDampedMass* dm);

// X <- H^-1 X for the ncol columns at X of a matrix with row stride ldx (a column range):
// the first pass gathers row i from the rows below it (x_i -= L(k, i) x_k over descendant dofs
// k, in decreasing k) with the row's accumulators in registers
void gdn_damped_mass_solve_columns(const gdnDampedMass* dm, double* X, int ldx, int ncol);

#endif
