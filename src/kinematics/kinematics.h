// SPDX-License-Identifier: Apache-2.0
// Internal forward kinematics entry points (the public gdn_kinematics is in gradyn.h).
#ifndef GDN_KINEMATICS_KINEMATICS_H
#define GDN_KINEMATICS_KINEMATICS_H

#include <gradyn/gradyn.h>

// gdn_kinematics without the geom and site frames: body frames (xpos, xquat, xmat), inertial
// frames (xipos, ximat), joint anchors and axes, subtree_com, and the quaternions of qpos
// normalized in place, bit for bit gdn_kinematics' values; geom_x* and site_x* are left as
// they were. For passes that read no geom or site frame (the derivative front halves).
void gdn_kinematics_bodies(const gdnModel* m, gdnData* d);

// the geom frames (geom_xpos, geom_xmat) from the body and inertial frames in d, bit for bit
// gdn_kinematics' (for a pass that restored or recomputed the bodies alone and then needs them:
// the ellipsoid fluid model)
void gdn_kinematics_geoms(const gdnModel* m, gdnData* d);

// gdn_kinematics without its argument check: for the pipeline, whose entries checked the model
// and data once (model/validate.h)
void gdn_kinematics_stage(const gdnModel* m, gdnData* d);

#endif
