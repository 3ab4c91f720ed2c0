// SPDX-License-Identifier: Apache-2.0
// Allocation of a gdnModel from its sizes: one buffer, every array zeroed.
#ifndef GDN_MODEL_ALLOC_H
#define GDN_MODEL_ALLOC_H

#include <gradyn/model.h>

typedef struct gdnModelSizes {
    int nq, nv, nu, nbody, njnt, ngeom, nsite, nkey, nnames;
} gdnModelSizes;

// a zeroed model with every array allocated for the given sizes (NULL on failure or on a
// negative / absurd size); the sizes are copied into the model
gdnModel* gdn_model_alloc(const gdnModelSizes* sizes);

#endif
