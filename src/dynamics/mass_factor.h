// SPDX-License-Identifier: Apache-2.0
// Internal: the tree LDL' factor of M in MuJoCo's order (mj_factorM / mj_factorI, mj_solveM).
#ifndef GDN_DYNAMICS_MASS_FACTOR_H
#define GDN_DYNAMICS_MASS_FACTOR_H

#include <gradyn/gradyn.h>

// The tree factor of M = L' D L: row k of L holds the chain of dof k (k itself, then its
// ancestors, nearest first), packed at adr[k] with len[k] entries, so the chain of an ancestor i
// of k is the tail of row k from i's position on (both rows then run over the same columns in
// the same order). Arrays from the arena (the caller marks and resets it).
typedef struct gdnMassFactor {
    int* adr;          // nv: start of row k in LD
    int* len;          // nv: 1 + the number of ancestors of dof k
    const int* simple; // nv: 1 for MuJoCo's simple dofs (skipped by factor and solve)
    double* LD;        // D(k) at adr[k], then L(k, j) for the ancestors j of k
    double* Dinv;      // nv: 1 / D
} gdnMassFactor;

// the layout and the scratch of a factor from the arena; simple (gdn_simple_dofs, nv) is kept
// by pointer, or computed into the arena when NULL. GDN_ERR_MEMORY when the arena is short.
gdnStatus gdn_mass_factor_alloc(const gdnModel* m, gdnData* d, const int* simple,
                                gdnMassFactor* f);

// qM + diag(diag) = L' D L along the dof tree (qM dense nv x nv; diag nv, or NULL), in
// MuJoCo's order (mj_factorI); pivots below GDN_MINVAL are raised to it. Returns the number of
// pivots that were below GDN_MINVAL or NaN (0 for a positive definite matrix)
int gdn_mass_factor(const gdnModel* m, const double* qM, const double* diag, gdnMassFactor* f);

// x = (L' D L)^-1 x (nv, in place), in MuJoCo's order (mj_solveLD with one vector)
void gdn_mass_solve(const gdnModel* m, const gdnMassFactor* f, double* x);

// MuJoCo's simple dofs (its compiler's body_simple / dof_simplenum != 0): simple (nv) = 1 for
// a dof of a body whose inertia frame is its body frame, that hangs from the world (or from a
// dof-free child of the world), has no child body, and whose joints sit at the body origin with
// single-component axes and no joint after a rotation. body (nbody ints) is scratch
void gdn_simple_dofs(const gdnModel* m, int* body, int* simple);

#endif
