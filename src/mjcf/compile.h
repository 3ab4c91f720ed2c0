// SPDX-License-Identifier: Apache-2.0
// gdnSpec -> gdnModel: frames, mass properties, joints and derived tree fields, MuJoCo 2.2.2
// semantics and arithmetic.
#ifndef GDN_MJCF_COMPILE_H
#define GDN_MJCF_COMPILE_H

#include "mjcf/spec.h"

// the tree of a spec in id order: joints, geoms and sites grouped by body
typedef struct gdnSpecTree {
    int* jnt_order;  // (njnt) spec joint index of joint id
    int* geom_order; // (ngeom)
    int* site_order; // (nsite)
    int* body_jntadr;  // (nbody) first joint id of each body
    int* body_geomadr; // (nbody)
    int* body_siteadr; // (nbody)
} gdnSpecTree;

// group joints, geoms and sites by body (stable); 0 ok, -1 after an error
int gdn_compile_order(gdnSpec* spec, gdnSpecTree* tree);

// compile bodies, their geoms, joints and sites in place (frames, inertia, limits, units);
// 0 ok, -1 after an error
int gdn_compile_tree(gdnSpec* spec, const gdnSpecTree* tree);

// the non-empty names of one object type sorted by name (equal names by index), for the
// duplicate check and lookups
typedef struct gdnNamedItem {
    const char* name;
    int index; // in the spec array the names come from
} gdnNamedItem;
typedef struct gdnNameIndex {
    gdnNamedItem* items;
    int n;
} gdnNameIndex;

// the spec array index of name in idx, -1 when absent (or empty)
int gdn_name_find(const gdnNameIndex* idx, const char* name);

// compile everything into a new model; NULL after an error
gdnModel* gdn_compile_model(gdnSpec* spec);

#endif
