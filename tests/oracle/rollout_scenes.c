// SPDX-License-Identifier: Apache-2.0
// The contact rollout scenes (see rollout_scenes.h).
#include "oracle/rollout_scenes.h"

#include <string.h>

#include "oracle/solver_problem.h"

const gdnRolloutScene gdn_oracle_rollout_scenes[] = {
    {"drop_sphere", "scene_drop_sphere.xml", {0.3, -0.2, 0, 1, 2, -3}, 0},
    {"drop_capsule", "scene_drop_capsule.xml", {0.3, -0.2, 0, 1, 2, -3}, 0},
    {"drop_box", "scene_drop_box.xml", {0.3, -0.2, 0, 1, 2, -3}, 0},
    {"drop_cylinder", "scene_drop_cylinder.xml", {0.3, -0.2, 0, 1, 2, -3}, 0},
    {"slide_pyramidal", "scene_slide.xml", {1.5, 0.4, 0, 0, 0, 0.5}, 0},
    {"slide_elliptic", "scene_slide_elliptic.xml", {1.5, 0.4, 0, 0, 0, 0.5}, 0},
    {"tip_over_edge", "scene_tip.xml", {0.2, 0, 0, 0, 4, 0}, 0},
    {"five_box_stack", "sol_stack.xml", {0}, 0},
    {"pendulum_limit", "sol_pendulum_limit.xml", {6}, 0.3},
    {"fourbar_connect", "sol_fourbar.xml", {3}, 0},
    {"humanoid", GDN_ORACLE_MJ_HUMANOID, {0}, 0},
};

const int gdn_oracle_rollout_nscenes =
    (int)(sizeof(gdn_oracle_rollout_scenes) / sizeof(gdn_oracle_rollout_scenes[0]));

const gdnRolloutScene* gdn_oracle_rollout_scene(const char* name) {
    for (int i = 0; i < gdn_oracle_rollout_nscenes; i++) {
        if (strcmp(gdn_oracle_rollout_scenes[i].name, name) == 0) {
            return &gdn_oracle_rollout_scenes[i];
        }
    }
    return NULL;
}

int gdn_oracle_load_constrained(gdnOracle* o, const char* file) {
    char path[1024];
    if (gdn_oracle_load(o, gdn_oracle_solver_model_path(file, path, sizeof(path)))) {
        return 1;
    }
    o->mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    o->gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    return 0;
}

void gdn_oracle_rollout_init(gdnOracle* o, const gdnRolloutScene* s) {
    mj_resetData(o->mm, o->md);
    gdn_data_reset(o->gm, o->gd);
    const int nv6 = o->mm->nv < 6 ? o->mm->nv : 6;
    for (int i = 0; i < nv6; i++) {
        o->md->qvel[i] = s->qvel0[i];
    }
    if (s->qpos_hinge != 0) {
        o->md->qpos[0] = s->qpos_hinge;
    }
    memcpy(o->gd->qpos, o->md->qpos, sizeof(double) * (size_t)o->mm->nq);
    memcpy(o->gd->qvel, o->md->qvel, sizeof(double) * (size_t)o->mm->nv);
}

int gdn_oracle_rollout_open(gdnOracle* o, const gdnRolloutScene* s) {
    if (gdn_oracle_load_constrained(o, s->file)) {
        return 1;
    }
    gdn_oracle_rollout_init(o, s);
    return 0;
}
