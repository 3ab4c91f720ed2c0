// SPDX-License-Identifier: Apache-2.0
// The solver tests' scenes (see solver_scenes.h).
#include "oracle/solver_scenes.h"

#include <string.h>

#include "oracle/oracle.h"

#define HUMANOID GDN_ORACLE_MJ_HUMANOID

const gdnSolverScene gdn_oracle_solver_scenes[] = {
    {.name = "box rest pyramidal", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL, .steps = 400},
    {.name = "box rest elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC, .steps = 400},
    {.name = "box rest elliptic dim6", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
     .steps = 400, .condim = 6, .qvel0 = {0.3, 0, 0, 0, 0, 2}},
    {.name = "box slide pyramidal", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL,
     .steps = 300, .push = {1, 0.3, 0, 0, 0, 0}},
    {.name = "box slide elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC, .steps = 300,
     .push = {1, 0.3, 0, 0, 0, 0}},
    {.name = "box slide elliptic dim4", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC,
     .steps = 300, .condim = 4, .push = {1, 0.3, 0, 0, 0, 2}},
    {.name = "box tipping", .path = "sol_box.xml", .cone = mjCONE_PYRAMIDAL, .steps = 60,
     .tilt = 0.5, .qvel0 = {0, 0, 0, 1.5, 0, 0}},
    {.name = "box tipping elliptic", .path = "sol_box.xml", .cone = mjCONE_ELLIPTIC, .steps = 60,
     .tilt = 0.5, .qvel0 = {0, 0, 0, 1.5, 0, 0}},
    {.name = "five-box stack", .path = "sol_stack.xml", .cone = mjCONE_PYRAMIDAL, .steps = 300},
    {.name = "five-box stack ellip", .path = "sol_stack.xml", .cone = mjCONE_ELLIPTIC,
     .steps = 300},
    {.name = "stack kicked", .path = "sol_stack.xml", .steps = 300, .kick = 1},
    {.name = "stack kicked ellip", .path = "sol_stack.xml", .cone = mjCONE_ELLIPTIC,
     .steps = 300, .kick = 1},
    {.name = "stack kicked ellip dim6", .path = "sol_stack.xml", .cone = mjCONE_ELLIPTIC,
     .condim = 6, .steps = 300, .kick = 1},
    {.name = "stack kicked cold", .path = "sol_stack.xml", .steps = 300, .kick = 1,
     .coldstart = 1},
    {.name = "pendulum at limit", .path = "sol_pendulum_limit.xml", .steps = 20,
     .qpos_hinge = 0.55, .qvel0 = {3}},
    {.name = "four-bar connect", .path = "sol_fourbar.xml", .steps = 50, .qvel0 = {1}},
    {.name = "frictionloss slow", .path = "sol_frictionloss.xml", .steps = 1,
     .qvel0 = {0.001, 0.002, -0.001}},
    {.name = "frictionloss fast", .path = "sol_frictionloss.xml", .steps = 30,
     .qvel0 = {0.5, 2, -1}},
    {.name = "frictionloss cold", .path = "sol_frictionloss.xml", .steps = 30,
     .qvel0 = {0.5, 2, -1}, .kick = 0.05, .coldstart = 1},
    {.name = "humanoid pyramidal", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL, .steps = 250},
    {.name = "humanoid lying", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL, .steps = 600},
    {.name = "humanoid kicked", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL, .steps = 600,
     .kick = 3},
    {.name = "humanoid elliptic", .path = HUMANOID, .cone = mjCONE_ELLIPTIC, .steps = 250},
    {.name = "humanoid lying ellip", .path = HUMANOID, .cone = mjCONE_ELLIPTIC, .steps = 600},
    {.name = "humanoid kicked ellip", .path = HUMANOID, .cone = mjCONE_ELLIPTIC, .steps = 600,
     .kick = 3},
    {.name = "humanoid cold", .path = HUMANOID, .cone = mjCONE_PYRAMIDAL, .steps = 250,
     .coldstart = 1},
    {.name = "humanoid cold elliptic", .path = HUMANOID, .cone = mjCONE_ELLIPTIC, .steps = 250,
     .coldstart = 1},
    {.name = "stack cold", .path = "sol_stack.xml", .steps = 300, .coldstart = 1},
};

const int gdn_oracle_solver_nscenes =
    (int)(sizeof(gdn_oracle_solver_scenes) / sizeof(gdn_oracle_solver_scenes[0]));

const gdnSolverScene* gdn_oracle_solver_scene(const char* name) {
    for (int i = 0; i < gdn_oracle_solver_nscenes; i++) {
        if (strcmp(gdn_oracle_solver_scenes[i].name, name) == 0) {
            return &gdn_oracle_solver_scenes[i];
        }
    }
    return NULL;
}
