// SPDX-License-Identifier: Apache-2.0
// <default> classes: nested classes inherit their parent's values at creation.
#ifndef GDN_MJCF_DEFAULTS_H
#define GDN_MJCF_DEFAULTS_H

#include "mjcf/spec.h"

// create class 0 ("main") with MuJoCo's built-in values; 0 ok, -1 after an error
int gdn_defaults_init(gdnSpec* spec);

// read one top-level <default> section (into class 0) and its nested classes
int gdn_defaults_read(gdnSpec* spec, gdnXmlElem* section);

// id of the class named name, -1 when absent
int gdn_defaults_find(const gdnSpec* spec, const char* name);

// the class named by e's "class" attribute, or fallback when e has none; -1 after recording
// an error for an unknown class
int gdn_defaults_class_of(gdnSpec* spec, gdnXmlElem* e, int fallback);

#endif
