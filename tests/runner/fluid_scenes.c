// SPDX-License-Identifier: Apache-2.0
// The medium scenes test_fluid.c and test_implicit.c share (inertia box; ellipsoid).
#include "runner/fluid_scenes.h"

// three free bodies of different inertia boxes, one on a hinge chain, in water with a current
const char gdn_test_fluid_water[] =
    "<mujoco>\n"
    "  <option density='1000' viscosity='0.0009' wind='0.3 -0.2 0.1' timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 0.1' pos='0 0 0.75'/>\n"
    "    <body pos='0 0 1'><freejoint/>\n"
    "      <geom type='box' size='0.2 0.05 0.02' mass='2'/></body>\n"
    "    <body pos='1 0 1'><freejoint/>\n"
    "      <geom type='capsule' size='0.05' fromto='0 0 0 0.3 0.1 0' mass='1'/></body>\n"
    "    <body pos='0 1 1'><freejoint/>\n"
    "      <geom type='ellipsoid' size='0.1 0.2 0.05' mass='0.5'/></body>\n"
    "    <body pos='-1 0 1'><joint type='hinge' axis='0 1 0'/>\n"
    "      <geom type='capsule' size='0.04' fromto='0 0 0 0 0 -0.4' mass='1'/>\n"
    "      <body pos='0 0 -0.4'><joint type='ball'/>\n"
    "        <geom type='box' size='0.1 0.1 0.02' pos='0 0 -0.1' mass='0.7'/></body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

// the same bodies with MuJoCo's ellipsoid model on their geoms (one with its own coefficients,
// one body with two geoms; the chain's second body keeps the inertia box: its one geom is off)
const char gdn_test_fluid_ellipsoid[] =
    "<mujoco>\n"
    "  <option density='1000' viscosity='0.0009' wind='0.3 -0.2 0.1' timestep='0.002'/>\n"
    "  <default><geom fluidshape='ellipsoid'/></default>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 0.1' pos='0 0 0.75' fluidshape='none'/>\n"
    "    <body pos='0 0 1'><freejoint/>\n"
    "      <geom type='box' size='0.2 0.05 0.02' mass='2'/></body>\n"
    "    <body pos='1 0 1'><freejoint/>\n"
    "      <geom type='capsule' size='0.05' fromto='0 0 0 0.3 0.1 0' mass='1'\n"
    "            fluidcoef='0.4 0.3 1.2 0.8 1.1'/></body>\n"
    "    <body pos='0 1 1'><freejoint/>\n"
    "      <geom type='ellipsoid' size='0.1 0.2 0.05' mass='0.5'/>\n"
    "      <geom type='sphere' size='0.05' pos='0.1 0 0' mass='0.1'/></body>\n"
    "    <body pos='-1 0 1'><joint type='hinge' axis='0 1 0'/>\n"
    "      <geom type='cylinder' size='0.04' fromto='0 0 0 0 0 -0.4' mass='1'/>\n"
    "      <body pos='0 0 -0.4'><joint type='ball'/>\n"
    "        <geom type='box' size='0.1 0.1 0.02' pos='0 0 -0.1' mass='0.7'\n"
    "              fluidshape='none'/></body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";
