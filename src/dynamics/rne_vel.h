// SPDX-License-Identifier: Apache-2.0
// Internal: the velocity tangent of the bias force C(q, v) (RNE with zero acceleration): the
// rne part of MuJoCo 2.2.2's qDeriv (mjd_rne_vel) and its products.
#ifndef GDN_DYNAMICS_RNE_VEL_H
#define GDN_DYNAMICS_RNE_VEL_H

#include <gradyn/gradyn.h>

// The primal quantities of the sweep at the state in d (d->cdof, d->cinert of gdn_com_pos
// and d->qvel): the body velocities V (6 x nbody) and the axis rates Sdot (6 x nv) of
// gdn_com_vel, in the com frame. Arena blocks (the caller resets); NULL when short
typedef struct gdnRneVel {
    double* V;
    double* Sdot;
    double* IV;  // 6 x nbody: cinert_b V_b
    double* eta; // 6 x nbody scratch: the velocity tangent
    double* dA;  // 6 x nbody scratch: the acceleration tangent
    double* dF;  // 6 x nbody scratch: the force tangent, summed over subtrees
    int* moving; // nbody scratch: 1 where eta or dA may be nonzero (a dof with dv != 0 at or
                 // above the body); elsewhere the sweep skips the body's algebra
} gdnRneVel;

gdnStatus gdn_rne_vel_prepare(const gdnModel* m, gdnData* d, gdnRneVel* w);

// out (nv) = (d C / d v) dv at the prepared state: with eta the velocity tangent,
//   eta_b = eta_parent + sum_j S_j dv_j,  dSdot_j = eta_(before j) x S_j,
//   dA_b = dA_parent + sum_j (dSdot_j v_j + Sdot_j dv_j),
//   df_b = I_b dA_b + eta_b x* (I_b V_b) + V_b x* (I_b eta_b),  out_i = S_i' sum_subtree df
// C is quadratic in v, so this is also the polarization: out(v; dv) = out(dv; v)
void gdn_rne_vel_jvp(const gdnModel* m, const gdnData* d, gdnRneVel* w, const double* dv,
                     double* out);

// D (nv x nv, row stride ld) += scale * d C / d v, column by column
gdnStatus gdn_rne_vel_dense(const gdnModel* m, gdnData* d, double scale, double* D, int ld);

#endif
