// SPDX-License-Identifier: Apache-2.0
// Allocation of a gdnModel from its sizes (one buffer, every array zeroed) and derived fields.
#ifndef GDN_MODEL_ALLOC_H
#define GDN_MODEL_ALLOC_H

#include <gradyn/model.h>

typedef struct gdnModelSizes {
    int nq, nv, nu, na, nbody, njnt, ngeom, nsite, nkey, nnames, neq;
    int npair, nexclude; // explicit contact pairs, excluded body pairs
    int ntendon, nwrap;  // tendons, their path objects
    int nmocap;          // mocap bodies
    int nsensor, nsensordata; // sensors, their values
} gdnModelSizes;

// a zeroed model with every array allocated for the given sizes (NULL on failure or on a
// negative / absurd size); the sizes are copied into the model, the options are MuJoCo's
// defaults (gdn_option_default)
gdnModel* gdn_model_alloc(const gdnModelSizes* sizes);

// fill the derived fields (body/geom/site_sameframe) from the compiled model; every producer of
// a model (the MJCF compiler, the test oracle's copy of a MuJoCo model) calls it last. A model
// that never calls it keeps zeros there, which is always correct, only slower
void gdn_model_finalize(gdnModel* m);

// body_subtreemass from body_mass (MuJoCo's order: each body's mass, then from the last body
// to the first each subtree added to its parent's); the loader and the inertia setter call it
void gdn_model_subtree_mass(gdnModel* m);

// MuJoCo 2.2.2's default options (timestep 0.002, gravity -9.81 z, Euler, Newton, 100
// iterations, tolerance 1e-8, pyramidal cone, impratio 1, override solref/solimp defaults)
void gdn_option_default(gdnOption* opt);

#endif
