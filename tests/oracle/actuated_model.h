// SPDX-License-Identifier: Apache-2.0
// The actuated test model (every actuator and spring kind) shared by the force tests.
#ifndef GDN_TEST_ACTUATED_MODEL_H
#define GDN_TEST_ACTUATED_MODEL_H

// write the MJCF of a free/ball/hinge/slide chain with motor, position, velocity and general
// affine actuators (3D and 6D gears, ctrl and force clamping) and springs on every joint type
// to <tag>_actuated.xml in the build directory (one file per test binary, so tests running in
// parallel never share it); its path (static buffer), NULL when the file cannot be written
const char* gdn_oracle_actuated_model_path(const char* tag);

#endif
