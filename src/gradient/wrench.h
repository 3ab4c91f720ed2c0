// SPDX-License-Identifier: Apache-2.0
// Internal: the body wrenches a step's derivatives see, every source summed: the penalty
// contact (penalty/penalty.h) and the medium's fluid forces (dynamics/fluid.h).
#ifndef GDN_GRADIENT_WRENCH_H
#define GDN_GRADIENT_WRENCH_H

#include <gradyn/gradyn.h>

#include "dynamics/fluid.h"
#include "penalty/penalty.h"

// 1 when body wrenches enter the step (the residual's W, dr/dW dW and the J(q)' W motion)
static inline int gdn_wrench_active(const gdnModel* m) {
    return gdn_penalty_active(m) || gdn_fluid_active(m);
}

// W (6 x nbody, overwritten): the penalty wrenches as the step summed them
// (gdn_penalty_wrenches_again) plus the fluid wrenches at the state in d (kinematics). V (6 x
// nbody): the body twists, NULL to compute them here. GDN_ERR_MEMORY when the arena is short
gdnStatus gdn_wrenches_again(const gdnModel* m, gdnData* d, const double* V, double* W);

// the same from the arena (NULL when no source is active or the arena is short; every caller
// reads NULL as "no wrenches")
const double* gdn_wrenches_from_outputs(const gdnModel* m, gdnData* d);

// dW (6 x nbody, overwritten) along the body tangents xi, eta, the vertex tangents dvert and
// the inertia parameters' dparam (the fluid's inertia boxes; any NULL = 0); GDN_ERR_MEMORY when
// the arena is short
gdnStatus gdn_wrench_jvp(const gdnModel* m, gdnData* d, const double* xi, const double* eta,
                         const double* dvert, const double* dparam, double* dW);

// the adjoint: xibar, etabar (6 x nbody), gvert (nvert x 3) and gparam (nbody x 10) ACCUMULATE
// (NULL: not wanted)
gdnStatus gdn_wrench_vjp(const gdnModel* m, gdnData* d, const double* Wbar, double* xibar,
                         double* etabar, double* gvert, double* gparam);

#endif
