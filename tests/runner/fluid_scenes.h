// SPDX-License-Identifier: Apache-2.0
// The medium scenes test_fluid.c and test_implicit.c share, as MJCF strings.
#ifndef GDN_TEST_RUNNER_FLUID_SCENES_H
#define GDN_TEST_RUNNER_FLUID_SCENES_H

// three free bodies of different inertia boxes, one on a hinge chain, in water with a current
// (capsules and a square box: equal principal moments, the box law's parameter refusal)
extern const char gdn_test_fluid_water[];

// the same bodies with MuJoCo's ellipsoid model on their geoms (one with its own coefficients,
// one body with two geoms; the chain's second body keeps the inertia box)
extern const char gdn_test_fluid_ellipsoid[];

#endif
