// SPDX-License-Identifier: Apache-2.0
// Internal: evaluating one objective term at a recorded state, gradients in the tangent space.
#ifndef GDN_GRADIENT_COST_H
#define GDN_GRADIENT_COST_H

#include <gradyn/adjoint.h>

#include "gradient/tape.h"

// value of term c at (qpos, qvel, ctrl) (ctrl NULL for the terminal term) with the
// activations act (na: the scratch's forces read them; the term's gradient does not reach
// them). With want_grad the gradients land in tape->cost_qt (nv, tangent), tape->cost_v (nv)
// and, when want_ctrl, tape->cost_u (nu). The state is copied into tape->scratch first.
// Returns the callback's status, GDN_ERR_NONFINITE for a non-finite value or gradient
// (message in err)
gdnStatus gdn_cost_eval(const gdnModel* m, gdnTape* tape, const gdnCost* c, int t,
                        const double* qpos, const double* qvel, const double* act,
                        const double* ctrl, double* value, int want_grad, int want_ctrl,
                        char* err, int err_size);

#endif
