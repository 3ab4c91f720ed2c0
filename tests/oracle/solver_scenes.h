// SPDX-License-Identifier: Apache-2.0
// The solver tests' scenes: MuJoCo states with active constraints of every kind (solver tests).
#ifndef GDN_TEST_ORACLE_SOLVER_SCENES_H
#define GDN_TEST_ORACLE_SOLVER_SCENES_H

#include "oracle/solver_problem.h"

// test_solver's scenes, in its order: a box resting, sliding and tipping (pyramidal, elliptic
// condim 3, 4, 6), a five-box stack (at rest and kicked, both cones, cold start), a pendulum at
// its joint limit, a four-bar closed by an equality connect, dof friction loss (quadratic and
// linear regimes, cold), and MuJoCo's humanoid (standing on the floor, lying, kicked; both
// cones; cold)
extern const gdnSolverScene gdn_oracle_solver_scenes[];
extern const int gdn_oracle_solver_nscenes;

// the scene of gdn_oracle_solver_scenes with this name (NULL when none)
const gdnSolverScene* gdn_oracle_solver_scene(const char* name);

#endif
