// SPDX-License-Identifier: Apache-2.0
// Internal: MJCF <equality> (connect, weld, joint and tendon; MuJoCo 2.2.2 semantics) and
// <default><equality>: reading into the spec (compiled by mjcf/compile.c).
#ifndef GDN_MJCF_EQUALITY_H
#define GDN_MJCF_EQUALITY_H

#include "mjcf/spec.h"

// MuJoCo's equality defaults: active, solref 0.02 1, solimp 0.9 0.95 0.001 0.5 2, data zero but
// data[1] = 1 (polycoef 0 1 0 0 0) and data[10] = 1 (torquescale)
void gdn_spec_equality_init(gdnSpecEquality* q);

// <default><equality active solref solimp>; 0 ok, -1 after an error
int gdn_read_equality_default(gdnSpec* spec, gdnXmlElem* e, gdnSpecEquality* q);

// an <equality> section; each element starts from its class's (or main's) defaults;
// <distance> is refused as MuJoCo 2.2.2 refuses it. 0 ok, -1 after an error
int gdn_mjcf_read_equality(gdnSpec* spec, gdnXmlElem* section);

#endif
