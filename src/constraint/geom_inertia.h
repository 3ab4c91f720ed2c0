// SPDX-License-Identifier: Apache-2.0
// Internal: a body's mass properties from its geoms after one geom's size changes, by the MJCF
// compiler's own functions (src/mjcf/inertia.h), for gdn_model_set_geom_size.
#ifndef GDN_CONSTRAINT_GEOM_INERTIA_H
#define GDN_CONSTRAINT_GEOM_INERTIA_H

#include <gradyn/gradyn.h>

// what the compiler gives geom g and its body when g's size is size
typedef struct gdnGeomMassEdit {
    double geom_mass, geom_inertia[3];                // the geom's record
    double mass, ipos[3], iquat[4], inertia[3];       // its body's mass properties
} gdnGeomMassEdit;

// out for geom g (m->geom_inertial[g] = 1) at the new size: the geom's mass (its density times
// the volume, or its given mass) and principal inertia, then the body's frame combined from the
// body's inertial geoms as compile_inertia does. GDN_ERR_ARG when the compiler would reject the
// result (non-finite, negative, A + B < C, too small a total mass); GDN_ERR_UNSUPPORTED when the
// record cannot tell what the compiler would do (a given mass the compiler had dropped for a
// vanishing volume); GDN_ERR_MEMORY on allocation failure
gdnStatus gdn_geom_mass_edit(const gdnModel* m, int g, const double size[3],
                             gdnGeomMassEdit* out);

#endif
