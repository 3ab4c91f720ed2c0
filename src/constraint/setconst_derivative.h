// SPDX-License-Identifier: Apache-2.0
// Internal: the adjoint of the inverse weights body_invweight0, dof_invweight0 (setconst.c).
#ifndef GDN_CONSTRAINT_SETCONST_DERIVATIVE_H
#define GDN_CONSTRAINT_SETCONST_DERIVATIVE_H

#include <gradyn/gradyn.h>

// gparam (nbody x GDN_N_INERTIA_PARAMS, canonical packing) += d/dpi of
// <gbw, body_invweight0> + <gdw, (dof_invweight0, tendon_invweight0)> (gbw: 2 nbody, gdw:
// nv + ntendon, either NULL = 0), the
// weights as gdn_constraint_set_weights computes them at qpos0 from the inertias. Uses d as
// scratch: its qpos and qvel are restored, every intermediate is overwritten (kinematics at
// qpos0). GDN_ERR_MEMORY when the arena is short; a singular M(qpos0) (the weights are then
// zero) adds nothing.
gdnStatus gdn_constraint_weights_vjp(const gdnModel* m, gdnData* d, const double* gbw,
                                     const double* gdw, double* gparam);

// the tangent: dbw (2 nbody), ddw (nv + ntendon: dof, then tendon weights) of the weights
// under dparam (nbody x 10; NULL: zeros), d used as scratch as above
gdnStatus gdn_constraint_weights_jvp(const gdnModel* m, gdnData* d, const double* dparam,
                                     double* dbw, double* ddw);

#endif
