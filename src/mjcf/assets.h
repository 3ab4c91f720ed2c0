// SPDX-License-Identifier: Apache-2.0
// MJCF <asset> meshes and the <custom> numeric that enables penalty contact.
#ifndef GDN_MJCF_ASSETS_H
#define GDN_MJCF_ASSETS_H

#include "mjcf/spec.h"

// the name of the custom numeric that enables penalty ground contact
#define GDN_MJCF_PENALTY_NUMERIC "gradyn_penalty"

// <asset>: every <mesh> into spec->meshes (textures, materials, height fields, skins are
// visual or unsupported and skipped); 0 ok, -1 after an error
int gdn_mjcf_read_assets(gdnSpec* spec, gdnXmlElem* section);

// <custom>: <numeric name="gradyn_penalty" data="height stiffness damping"/> enables penalty
// contact (spec->penalty); every other custom element is user data and skipped; 0 ok, -1 after
// an error
int gdn_mjcf_read_custom(gdnSpec* spec, gdnXmlElem* section);

#endif
