// SPDX-License-Identifier: Apache-2.0
// MJCF element tree -> uncompiled model (gdnSpec): sections, body tree, actuators, keyframes.
#ifndef GDN_MJCF_READER_H
#define GDN_MJCF_READER_H

#include "mjcf/spec.h"

// initialize spec (MuJoCo's compiler and option defaults, world body, class "main")
gdnStatus gdn_spec_init(gdnSpec* spec, gdnPool* pool, gdnDiag* diag);

// read the <mujoco> root and everything below it into spec
gdnStatus gdn_mjcf_read(gdnSpec* spec, gdnXmlElem* root);

#endif
