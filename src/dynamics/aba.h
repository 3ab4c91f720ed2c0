// SPDX-License-Identifier: Apache-2.0
// Internal: the articulated-body factorization of M + diag(extra) that gdn_aba leaves behind.
#ifndef GDN_DYNAMICS_ABA_H
#define GDN_DYNAMICS_ABA_H

#include <gradyn/gradyn.h>

// What pass 2 of ABA computes per dof k (aba.c), in the frame of the ABA (world axes about
// subtree_com of the tree's root): the motion axis S_k, U_k = ai_k S_k with ai_k the
// articulated inertia where dof k is eliminated, and dinv_k = 1 / (S_k' U_k + armature_k +
// extra_k). Together with the tree they factor H = M + diag(extra) at the kinematics they were
// computed at: H^-1 x is two O(nv) sweeps (gdn_aba_solve). Arrays owned by the caller.
typedef struct gdnAbaFactor {
    double* axes; // 6 nv
    double* U;    // 6 nv
    double* dinv; // nv
    double* implicit_LU; // nv x nv, NULL: none. The implicit integrator's factor of
                         // M - h qDeriv (gdn_implicit_factor), written by a front half that
                         // runs the implicit step acceleration, read by its derivatives
} gdnAbaFactor;

// 13 nv doubles from the arena for a factor (NULL members when exhausted: GDN_ERR_MEMORY)
gdnStatus gdn_aba_factor_alloc(const gdnModel* m, gdnData* d, gdnAbaFactor* f);

// gdn_aba, also writing its factorization into f (same operations, same results as gdn_aba)
void gdn_aba_factored(const gdnModel* m, gdnData* d, const double* tau, const double* extra,
                      double* qacc, const gdnAbaFactor* f);

// the factorization alone, into f, at the kinematics in d: ABA's axes and pass 2 without any
// velocity or bias term (no acceleration). Bit for bit what gdn_aba_factored keeps with the same
// extra (NULL = none). Scratch 36 nbody doubles from the arena (GDN_ERR_MEMORY)
gdnStatus gdn_aba_factor(const gdnModel* m, gdnData* d, const double* extra,
                         const gdnAbaFactor* f);

// x <- H^-1 x (nv, in place) with H the matrix f factors: ABA's passes 2 and 3 with zero
// velocity and gravity. Scratch 6 nbody doubles from the arena (GDN_ERR_MEMORY, x unchanged)
gdnStatus gdn_aba_solve(const gdnModel* m, gdnData* d, const gdnAbaFactor* f, double* x);

#endif
