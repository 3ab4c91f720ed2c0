// SPDX-License-Identifier: Apache-2.0
// Internal: the input checks of the public entries (the data's model, the options, time).
#ifndef GDN_MODEL_VALIDATE_H
#define GDN_MODEL_VALIDATE_H

#include <gradyn/gradyn.h>

// signature of the sizes that fix a gdnData's layout (nq, nv, nu, nbody, njnt, ngeom, nsite,
// nvert, nconmax, njmax): gdn_data_create stores it in d->model_signature_. A model with other
// sizes has another signature; a copy of the model, or a model of the same sizes, has the same
// one and may share the data (every array then has the size the model indexes)
unsigned long long gdn_model_signature(const gdnModel* m);

// GDN_ERR_ARG for a NULL m or d, or a d created for a model of other sizes; else GDN_OK
gdnStatus gdn_check_model_data(const gdnModel* m, const gdnData* d);

// GDN_ERR_ARG unless every option is in the loader's range: timestep finite and > 0, gravity
// finite, integrator GDN_INT_EULER, solver and cone known codes, iterations >= 0, tolerance
// finite and >= 0, impratio finite and > 0, mpr_iterations >= 0, mpr_tolerance finite and >= 0,
// no unknown disable / enable bit, and with GDN_ENBL_OVERRIDE a finite o_margin, o_solref and
// o_solimp
gdnStatus gdn_check_options(const gdnOption* opt);

// model/data and options: the checks of every call that runs the pipeline (gdn_forward,
// gdn_inverse, the step derivatives); the state is the pipeline's own check stage
gdnStatus gdn_check_call(const gdnModel* m, const gdnData* d);

// gdn_check_call, and GDN_ERR_NONFINITE when time + timestep is not finite: gdn_step's checks
gdnStatus gdn_check_step(const gdnModel* m, const gdnData* d);

#endif
