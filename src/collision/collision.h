// SPDX-License-Identifier: Apache-2.0
// Internal collision entry (the public gdn_collision is in gradyn.h).
#ifndef GDN_COLLISION_COLLISION_H
#define GDN_COLLISION_COLLISION_H

#include <gradyn/gradyn.h>

// smallest friction coefficient of a contact (MuJoCo's mjMINMU): the mixed value is clamped to
// it (collision.c; the parameter adjoint, contact_param_derivative.c, passes no derivative there)
#define GDN_MIN_MU 1e-5

// gdn_collision without its argument check: for the pipeline, whose entries checked the model
// and data once (model/validate.h)
gdnStatus gdn_collision_stage(const gdnModel* m, gdnData* d);

#endif
