// SPDX-License-Identifier: Apache-2.0
// One-element readers shared by <default> classes and the body tree: joint, geom, site,
// actuator attributes on top of a struct pre-filled from the applicable defaults class.
#ifndef GDN_MJCF_ELEMENTS_H
#define GDN_MJCF_ELEMENTS_H

#include "mjcf/spec.h"

// MuJoCo's built-in defaults (the values of an element with no class)
void gdn_spec_joint_init(gdnSpecJoint* j);
void gdn_spec_geom_init(gdnSpecGeom* g);
void gdn_spec_site_init(gdnSpecSite* s);
void gdn_spec_actuator_init(gdnSpecActuator* a);

// read the attributes of one element into the struct; 0 ok, -1 after recording an error.
// in_default: the element sits in a <default> class (names and targets are not read)
int gdn_read_joint(gdnSpec* spec, gdnXmlElem* e, gdnSpecJoint* j, int in_default);
int gdn_read_geom(gdnSpec* spec, gdnXmlElem* e, gdnSpecGeom* g, int in_default);
int gdn_read_site(gdnSpec* spec, gdnXmlElem* e, gdnSpecSite* s, int in_default);
int gdn_read_actuator(gdnSpec* spec, gdnXmlElem* e, gdnSpecActuator* a, int in_default);

// read the alternative orientation attributes (and count "quat"); error when more than one
// is given. fullinertia is read only when allow_fullinertia
int gdn_read_alt(gdnSpec* spec, gdnXmlElem* e, gdnSpecAlt* alt, int allow_fullinertia);

// true when name is an actuator element (general, motor, position, ...)
int gdn_is_actuator_element(const char* name);

#endif
