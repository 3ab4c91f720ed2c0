// SPDX-License-Identifier: Apache-2.0
// Internal: the adjoint of the inverse weights body_invweight0, dof_invweight0 (setconst.c).
#ifndef GDN_CONSTRAINT_SETCONST_DERIVATIVE_H
#define GDN_CONSTRAINT_SETCONST_DERIVATIVE_H

#include <gradyn/gradyn.h>

// The constants at qpos0 that move with the inertias, as one vector of gdn_weights_size(m):
// body_invweight0 (2 nbody), dof_invweight0 (nv), tendon_invweight0 (ntendon), then the
// actuator_acc0 of the muscles whose force is scale / acc0 (nu; 0 for the other actuators)
static inline size_t gdn_weights_size(const gdnModel* m) {
    return 2 * (size_t)m->nbody + (size_t)m->nv + (size_t)m->ntendon + (size_t)m->nu;
}

// 1 when actuator i's force reads actuator_acc0 (a muscle gain or bias with force < 0)
static inline int gdn_actuator_acc0_scaled(const gdnModel* m, int i) {
    return (m->actuator_gaintype[i] == GDN_GAIN_MUSCLE &&
            m->actuator_gainprm[GDN_NGAIN * i + 2] < 0) ||
           (m->actuator_biastype[i] == GDN_BIAS_MUSCLE &&
            m->actuator_biasprm[GDN_NBIAS * i + 2] < 0);
}

// the acc0 part of such a vector (NULL for NULL)
static inline double* gdn_weights_acc0(const gdnModel* m, double* w) {
    return w ? w + 2 * m->nbody + m->nv + m->ntendon : NULL;
}

static inline const double* gdn_weights_acc0_const(const gdnModel* m, const double* w) {
    return w ? w + 2 * m->nbody + m->nv + m->ntendon : NULL;
}

static inline int gdn_any_acc0_scaled(const gdnModel* m) {
    for (int i = 0; i < m->nu; i++) {
        if (gdn_actuator_acc0_scaled(m, i)) {
            return 1;
        }
    }
    return 0;
}

// gparam (nbody x GDN_N_INERTIA_PARAMS, canonical packing) += d/dpi of
// <gbw, body_invweight0> + <gdw, (dof_invweight0, tendon_invweight0, acc0)> (gbw: 2 nbody,
// gdw: nv + ntendon + nu, either NULL = 0), the
// weights as gdn_constraint_set_weights computes them at qpos0 from the inertias. Uses d as
// scratch: its qpos and qvel are restored, every intermediate is overwritten (kinematics at
// qpos0). GDN_ERR_MEMORY when the arena is short; a singular M(qpos0) (the weights are then
// zero) adds nothing.
gdnStatus gdn_constraint_weights_vjp(const gdnModel* m, gdnData* d, const double* gbw,
                                     const double* gdw, double* gparam);

// the tangent: dbw (2 nbody), ddw (nv + ntendon + nu: dof, tendon weights, acc0) of the weights
// under dparam (nbody x 10; NULL: zeros), d used as scratch as above
gdnStatus gdn_constraint_weights_jvp(const gdnModel* m, gdnData* d, const double* dparam,
                                     double* dbw, double* ddw);

#endif
