// SPDX-License-Identifier: Apache-2.0
// MJCF <contact>: explicit geom pairs and excluded body pairs (MuJoCo 2.2.2 semantics).
#ifndef GDN_MJCF_CONTACT_H
#define GDN_MJCF_CONTACT_H

#include "mjcf/compile.h"
#include "mjcf/spec.h"

// MuJoCo's built-in pair values: condim 3, friction 1 1 0.005 1e-4 1e-4, solref 0.02 1,
// solimp 0.9 0.95 0.001 0.5 2, margin 0, gap 0
void gdn_spec_pair_init(gdnSpecPair* p);

// read the attributes of one <pair> (in a <default> class when in_default: geom1, geom2 and
// class are not read there); 0 ok, -1 after recording an error
int gdn_read_pair(gdnSpec* spec, gdnXmlElem* e, gdnSpecPair* p, int in_default);

// read a <contact> section: <pair> and <exclude> children; 0 ok, -1 after an error
int gdn_mjcf_read_contact(gdnSpec* spec, gdnXmlElem* section);

// resolve geom and body names in the compiler's indexes of unique names (geom_order: spec geom
// index of each geom id, as grouped by gdn_compile_order), put the lower body id first, compute
// signatures and sort pairs and excludes by signature; 0 ok, -1 after an error naming the file
// and line of the offending element
int gdn_mjcf_compile_contact(gdnSpec* spec, const int* geom_order, const gdnNameIndex* geoms,
                             const gdnNameIndex* bodies);

// copy compiled pairs, excludes and <size nconmax njmax> into m (sized with spec->npair,
// spec->nexclude)
void gdn_mjcf_fill_contact(const gdnSpec* spec, gdnModel* m);

#endif
