// SPDX-License-Identifier: Apache-2.0
// Internal: MJCF <tendon> (fixed tendons, spatial tendons through sites, pulleys and wrapping
// geoms; MuJoCo 2.2.2 semantics): reading, compiling, arrays.
#ifndef GDN_MJCF_TENDON_H
#define GDN_MJCF_TENDON_H

#include "mjcf/compile.h"
#include "mjcf/spec.h"

// MuJoCo's tendon defaults: limited auto, range 0 0, solref 0.02 1, solimp 0.9 0.95 0.001 0.5
// 2 (limit and friction), margin, stiffness, damping, frictionloss 0, springlength -1
void gdn_spec_tendon_init(gdnSpecTendon* t);

// the attributes of a <fixed> element or of <default><tendon>; 0 ok, -1 after an error
int gdn_read_tendon(gdnSpec* spec, gdnXmlElem* e, gdnSpecTendon* t, int in_default);

// a <tendon> section: <fixed> tendons with their <joint joint coef> children, <spatial>
// tendons with <site site>, <geom geom sidesite> (wrapping) and <pulley divisor> children;
// 0 ok, -1 after an error
int gdn_mjcf_read_tendons(gdnSpec* spec, gdnXmlElem* section);

// joint, site and geom names to ids (*_id_of_spec: the id of each spec joint, site, geom), the
// checks of MuJoCo's compiler (non-empty path, a spatial path's pulleys, sites and sphere or
// cylinder geoms bracketed by sites,
// width, limited auto, range) and gradyn's (hinge and slide joints only, no joint twice in one
// fixed tendon, a positive pulley divisor); 0 ok, -1 after an error
int gdn_mjcf_compile_tendons(gdnSpec* spec, const gdnNameIndex* joints,
                             const int* jnt_id_of_spec, const gdnNameIndex* sites,
                             const int* site_id_of_spec, const gdnNameIndex* geoms,
                             const int* geom_id_of_spec);

// the tendon_* and wrap_* arrays (tendon_lengthspring as given: the loader replaces negative
// values by the length at qpos_spring; tendon_length0, tendon_invweight0 are the loader's)
void gdn_mjcf_fill_tendons(const gdnSpec* spec, gdnModel* m);

#endif
