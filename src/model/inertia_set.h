// SPDX-License-Identifier: Apache-2.0
// Internal: writing one body's mass properties in the model layer (the public setter, which also
// refreshes the constraint weights, is src/constraint/inertia_setter.c).
#ifndef GDN_MODEL_INERTIA_SET_H
#define GDN_MODEL_INERTIA_SET_H

#include <gradyn/gradyn.h>

// a body's mass properties as they were before a write
typedef struct gdnBodyInertiaSave {
    double mass, ipos[3], iquat[4], inertia[3];
    int source; // body_inertiasource
} gdnBodyInertiaSave;

// body b's body_mass, body_ipos, principal form (body_iquat, body_inertia) from in, as an
// <inertial mass pos quat diaginertia> element with the stored values compiles; then
// body_inertiasource[b] = 0, body_subtreemass and the sameframe flags. The old values go to save
// (NULL: not kept). GDN_ERR_ARG (model unchanged) for a bad b, NULL in, non-finite values, a
// negative mass or principal moment, or a moving body left without mass (the compiler's rules;
// its A + B >= C check is not applied); GDN_ERR_UNSUPPORTED for a body the compiler rescaled or
// clamped
gdnStatus gdn_model_write_body_inertia(gdnModel* m, int b, const gdnInertia* in,
                                       gdnBodyInertiaSave* save);

// the write itself, from a principal form: body b's mass, ipos, iquat, inertia and
// body_inertiasource = source, then the moving-body mass check (GDN_ERR_ARG, model unchanged),
// body_subtreemass and the sameframe flags; the old values go to save (NULL: not kept)
gdnStatus gdn_model_put_body_mass(gdnModel* m, int b, double mass, const double ipos[3],
                                  const double iquat[4], const double inertia[3], int source,
                                  gdnBodyInertiaSave* save);

// body b's geoms leave its inertia (it is explicit now): geom_inertial, geom_mass and
// geom_inertia of each set to 0, as the compiler records them for a body with <inertial>
void gdn_model_body_geoms_explicit(gdnModel* m, int b);

// undo gdn_model_write_body_inertia or gdn_model_put_body_mass from its save
void gdn_model_restore_body_inertia(gdnModel* m, int b, const gdnBodyInertiaSave* save);

#endif
