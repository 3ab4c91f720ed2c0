// SPDX-License-Identifier: Apache-2.0
// Collision skins for penalty contact: body-frame vertices of primitive and mesh geoms.
#ifndef GDN_MJCF_SKIN_H
#define GDN_MJCF_SKIN_H

#include "mjcf/compile.h"

// skin every geom of a non-world body with contype or conaffinity nonzero (planes and height
// fields never; shapes in docs/contact_penalty.md), in geom id order, into m's collision meshes,
// and copy the penalty settings; mesh files are read here. 0 ok, -1 after an error
int gdn_mjcf_skins(gdnSpec* spec, const gdnSpecTree* tree, gdnModel* m);

#endif
