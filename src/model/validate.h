// SPDX-License-Identifier: Apache-2.0
// Internal: the input checks of the public entries (the data's model, the options, time).
#ifndef GDN_MODEL_VALIDATE_H
#define GDN_MODEL_VALIDATE_H

#include <gradyn/gradyn.h>

// signature of the sizes that fix a gdnData's layout (nq, nv, nu, na, nbody, njnt, ngeom, nsite,
// nvert, nconmax, njmax, nmocap, nsensordata, ntendon, nwrap): gdn_data_create stores it in
// d->model_signature_. A model with other sizes has another signature; a copy of the model, or
// a model of the same sizes, has the same one and may share the data (every array then has the
// size the model indexes).
// Each size times its own odd 64-bit constant, summed, then mixed: independent products, a few
// cycles (inline: it runs in every public call); two size lists collide only when a combination
// of the constants with small integer coefficients is 0 mod 2^64
static inline unsigned long long gdn_model_signature(const gdnModel* m) {
    const unsigned long long s =
        (unsigned long long)(unsigned)m->nq * 0x9e3779b97f4a7c15ull +
        (unsigned long long)(unsigned)m->nv * 0xbf58476d1ce4e5b9ull +
        (unsigned long long)(unsigned)m->nu * 0x94d049bb133111ebull +
        (unsigned long long)(unsigned)m->nbody * 0xd6e8feb86659fd93ull +
        (unsigned long long)(unsigned)m->njnt * 0xa0761d6478bd642full +
        (unsigned long long)(unsigned)m->ngeom * 0xe7037ed1a0b428dbull +
        (unsigned long long)(unsigned)m->nsite * 0x8ebc6af09c88c6e3ull +
        (unsigned long long)(unsigned)m->nvert * 0x589965cc75374cc3ull +
        (unsigned long long)(unsigned)m->nconmax * 0x1d8e4e27c47d124full +
        (unsigned long long)(unsigned)m->njmax * 0xc2b2ae3d27d4eb4full +
        (unsigned long long)(unsigned)m->nmocap * 0x165667b19e3779f9ull +
        (unsigned long long)(unsigned)m->nsensordata * 0x27d4eb2f165667c5ull +
        (unsigned long long)(unsigned)m->ntendon * 0x2545f4914f6cdd1dull +
        (unsigned long long)(unsigned)m->nwrap * 0xff51afd7ed558ccdull +
        (unsigned long long)(unsigned)m->na * 0xc4ceb9fe1a85ec53ull;
    return s ^ (s >> 29);
}

// GDN_ERR_ARG for a NULL m or d, or a d created for a model of other sizes; else GDN_OK
static inline gdnStatus gdn_check_model_data(const gdnModel* m, const gdnData* d) {
    if (!m || !d || d->model_signature_ != gdn_model_signature(m)) {
        return GDN_ERR_ARG;
    }
    return GDN_OK;
}

// GDN_ERR_ARG unless every option is in the loader's range: timestep finite and > 0, gravity
// finite, integrator GDN_INT_EULER, solver and cone known codes, iterations >= 0, tolerance
// finite and >= 0, impratio finite and > 0, mpr_iterations >= 0, mpr_tolerance and
// box_edge_bias finite and >= 0, no unknown disable / enable bit, and with GDN_ENBL_OVERRIDE a
// finite o_margin, o_solref and o_solimp
gdnStatus gdn_check_options(const gdnOption* opt);

// model/data and options: the checks of every call that runs the pipeline (gdn_forward,
// gdn_inverse, the step derivatives); the state is the pipeline's own check stage
gdnStatus gdn_check_call(const gdnModel* m, const gdnData* d);

// gdn_check_call, and GDN_ERR_NONFINITE when time + timestep is not finite: gdn_step's checks
gdnStatus gdn_check_step(const gdnModel* m, const gdnData* d);

#endif
