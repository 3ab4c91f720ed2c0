// SPDX-License-Identifier: Apache-2.0
// Loader parity: every tests/models/*.xml and MuJoCo's humanoid models compiled by gradyn's
// MJCF loader and by mj_loadXML (MuJoCo 2.2.2), compared field by field.
//
// Tolerance: 1e-12 relative (||ours - mujoco||_inf / ||mujoco||_inf per quantity; the inertia
// tensor per body). The loader repeats MuJoCo's compiler arithmetic operation by operation
// (same formulas, same order, IEEE double, no FMA contraction), so most fields agree bit for
// bit; 1e-12 leaves room for libm differences in sin/cos/atan2/sqrt between builds while
// still catching any wrong formula, unit or frame (those show up at 1e-3 or worse).
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "runner/test.h"

#define TOL 1e-12
#define MAX_MODELS 128

static const char* const mujoco_models[] = {
    "/usr/share/mujoco/model/humanoid/humanoid.xml",
    "/usr/share/mujoco/model/humanoid/22_humanoids.xml",
};

static int g_mj_warnings = 0;

static void count_warning(const char* msg) {
    (void)msg;
    g_mj_warnings++;
}

static double rel_err_int(const int* a, const int* b, int n) {
    for (int i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return INFINITY;
        }
    }
    return 0;
}

// worst error per quantity over all models
typedef struct Worst {
    const char* name[48];
    double err[48];
    int n;
    int failed;
} Worst;

static void record(Worst* w, const char* model, const char* name, double err) {
    int k = 0;
    while (k < w->n && strcmp(w->name[k], name)) {
        k++;
    }
    if (k == w->n) {
        w->name[w->n] = name;
        w->err[w->n++] = 0;
    }
    w->err[k] = fmax(w->err[k], err);
    if (!(err <= TOL)) {
        fprintf(stderr, "%s: %s relative error %.3g > %.3g\n", model, name, err, TOL);
        w->failed++;
    }
}

// R diag(I) R' for principal inertia I and frame q (row-major 3x3)
static void inertia_tensor(double T[9], const double I[3], const double q[4]) {
    double R[9];
    mju_quat2Mat(R, q);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            T[3 * i + j] = R[3 * i] * I[0] * R[3 * j] + R[3 * i + 1] * I[1] * R[3 * j + 1] +
                           R[3 * i + 2] * I[2] * R[3 * j + 2];
        }
    }
}

// quaternion arrays equal up to sign per quaternion
static double quat_err(const double* a, const double* b, int n) {
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const double* p = a + 4 * i;
        const double* q = b + 4 * i;
        double s = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0 ? -1 : 1;
        for (int k = 0; k < 4; k++) {
            worst = fmax(worst, fabs(s * p[k] - q[k]));
        }
    }
    return worst;
}

static int compare_model(const char* path, Worst* w) {
    char err[1024], warn[4096];
    gdnModel* g = NULL;
    gdnStatus st = gdn_load_xml(path, &g, err, sizeof(err), warn, sizeof(warn));
    if (st != GDN_OK) {
        fprintf(stderr, "%s: gradyn load failed: %s\n", path, err);
        return 1;
    }
    char mjerr[1024] = "";
    mjModel* m = mj_loadXML(path, NULL, mjerr, sizeof(mjerr));
    if (!m) {
        fprintf(stderr, "%s: MuJoCo load failed: %s\n", path, mjerr);
        gdn_model_free(g);
        return 1;
    }
    const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int sizes_ok = g->nq == m->nq && g->nv == m->nv && g->nu == m->nu &&
                   g->nbody == m->nbody && g->njnt == m->njnt && g->ngeom == m->ngeom &&
                   g->nsite == m->nsite && g->nkey == m->nkey;
    if (!sizes_ok) {
        fprintf(stderr, "%s: sizes differ: nq %d/%d nv %d/%d nu %d/%d nbody %d/%d njnt %d/%d "
                        "ngeom %d/%d nsite %d/%d nkey %d/%d\n",
                name, g->nq, m->nq, g->nv, m->nv, g->nu, m->nu, g->nbody, m->nbody, g->njnt,
                m->njnt, g->ngeom, m->ngeom, g->nsite, m->nsite, g->nkey, m->nkey);
        w->failed++;
        mj_deleteModel(m);
        gdn_model_free(g);
        return 1;
    }
    int nb = m->nbody, nj = m->njnt, ng = m->ngeom, nu = m->nu;
    record(w, name, "body_parentid", rel_err_int(g->body_parentid, m->body_parentid, nb));
    record(w, name, "body_rootid", rel_err_int(g->body_rootid, m->body_rootid, nb));
    record(w, name, "body_weldid", rel_err_int(g->body_weldid, m->body_weldid, nb));
    record(w, name, "body_jntadr", rel_err_int(g->body_jntadr, m->body_jntadr, nb));
    record(w, name, "body_dofadr", rel_err_int(g->body_dofadr, m->body_dofadr, nb));
    record(w, name, "body_geomadr", rel_err_int(g->body_geomadr, m->body_geomadr, nb));
    record(w, name, "dof_parentid", rel_err_int(g->dof_parentid, m->dof_parentid, m->nv));
    record(w, name, "body_pos", gdn_test_relerr(g->body_pos, m->body_pos, 3 * nb, 0));
    record(w, name, "body_quat", quat_err(g->body_quat, m->body_quat, nb));
    record(w, name, "body_mass", gdn_test_relerr(g->body_mass, m->body_mass, nb, 0));
    record(w, name, "body_subtreemass",
           gdn_test_relerr(g->body_subtreemass, m->body_subtreemass, nb, 0));
    record(w, name, "body_ipos", gdn_test_relerr(g->body_ipos, m->body_ipos, 3 * nb, 0));
    double worst_tensor = 0;
    for (int b = 0; b < nb; b++) {
        double Tg[9], Tm[9];
        inertia_tensor(Tg, g->body_inertia + 3 * b, g->body_iquat + 4 * b);
        inertia_tensor(Tm, m->body_inertia + 3 * b, m->body_iquat + 4 * b);
        worst_tensor = fmax(worst_tensor, gdn_test_relerr(Tg, Tm, 9, 0));
    }
    record(w, name, "inertia_tensor", worst_tensor);
    record(w, name, "jnt_type", rel_err_int(g->jnt_type, m->jnt_type, nj));
    record(w, name, "jnt_qposadr", rel_err_int(g->jnt_qposadr, m->jnt_qposadr, nj));
    record(w, name, "jnt_dofadr", rel_err_int(g->jnt_dofadr, m->jnt_dofadr, nj));
    int limited_diff = 0;
    for (int j = 0; j < nj; j++) {
        limited_diff += g->jnt_limited[j] != (int)m->jnt_limited[j];
    }
    record(w, name, "jnt_limited", limited_diff ? INFINITY : 0);
    record(w, name, "jnt_pos", gdn_test_relerr(g->jnt_pos, m->jnt_pos, 3 * nj, 0));
    record(w, name, "jnt_axis", gdn_test_relerr(g->jnt_axis, m->jnt_axis, 3 * nj, 0));
    record(w, name, "jnt_range", gdn_test_relerr(g->jnt_range, m->jnt_range, 2 * nj, 0));
    record(w, name, "jnt_stiffness", gdn_test_relerr(g->jnt_stiffness, m->jnt_stiffness, nj, 0));
    record(w, name, "jnt_solimp", gdn_test_relerr(g->jnt_solimp, m->jnt_solimp, 5 * nj, 0));
    record(w, name, "dof_damping", gdn_test_relerr(g->dof_damping, m->dof_damping, m->nv, 0));
    record(w, name, "dof_armature", gdn_test_relerr(g->dof_armature, m->dof_armature, m->nv, 0));
    record(w, name, "qpos0", gdn_test_relerr(g->qpos0, m->qpos0, m->nq, 0));
    record(w, name, "qpos_spring", gdn_test_relerr(g->qpos_spring, m->qpos_spring, m->nq, 0));
    record(w, name, "actuator_trnid", rel_err_int(g->actuator_trnid, m->actuator_trnid, 2 * nu));
    record(w, name, "actuator_gear",
           gdn_test_relerr(g->actuator_gear, m->actuator_gear, 6 * nu, 0));
    record(w, name, "actuator_gainprm",
           gdn_test_relerr(g->actuator_gainprm, m->actuator_gainprm, mjNGAIN * nu, 0));
    record(w, name, "actuator_biasprm",
           gdn_test_relerr(g->actuator_biasprm, m->actuator_biasprm, mjNBIAS * nu, 0));
    record(w, name, "actuator_ctrlrange",
           gdn_test_relerr(g->actuator_ctrlrange, m->actuator_ctrlrange, 2 * nu, 0));
    record(w, name, "geom_type", rel_err_int(g->geom_type, m->geom_type, ng));
    record(w, name, "geom_size", gdn_test_relerr(g->geom_size, m->geom_size, 3 * ng, 0));
    record(w, name, "geom_pos", gdn_test_relerr(g->geom_pos, m->geom_pos, 3 * ng, 0));
    record(w, name, "geom_quat", quat_err(g->geom_quat, m->geom_quat, ng));
    record(w, name, "site_pos", gdn_test_relerr(g->site_pos, m->site_pos, 3 * m->nsite, 0));
    record(w, name, "site_quat", quat_err(g->site_quat, m->site_quat, m->nsite));
    record(w, name, "key_qpos", gdn_test_relerr(g->key_qpos, m->key_qpos, m->nkey * m->nq, 0));
    record(w, name, "timestep", gdn_test_relerr(&g->opt.timestep, &m->opt.timestep, 1, 0));
    record(w, name, "gravity", gdn_test_relerr(g->opt.gravity, m->opt.gravity, 3, 0));
    record(w, name, "disableflags",
           rel_err_int(&g->opt.disableflags, &m->opt.disableflags, 1));
    for (int b = 0; b < nb; b++) {
        const char* gn = gdn_id2name(g, "body", b);
        const char* mn = mj_id2name(m, mjOBJ_BODY, b);
        if (strcmp(gn, mn ? mn : "")) {
            fprintf(stderr, "%s: body %d named '%s' / '%s'\n", name, b, gn, mn ? mn : "");
            w->failed++;
        }
    }
    if (warn[0]) {
        fprintf(stderr, "%s: gradyn warnings:\n%s", name, warn);
    }
    printf("%-22s nq=%-4d nv=%-4d nu=%-4d nbody=%-4d ngeom=%-4d ok\n", name, m->nq, m->nv,
           m->nu, m->nbody, m->ngeom);
    mj_deleteModel(m);
    gdn_model_free(g);
    return 0;
}

static int compare_strings(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static int test_parity_all_models(void) {
    mju_user_warning = count_warning;
    static char paths[MAX_MODELS][1024];
    const char* list[MAX_MODELS];
    int n = 0;
    DIR* dir = opendir(GDN_TEST_MODELS);
    CHECK(dir != NULL);
    struct dirent* ent;
    while ((ent = readdir(dir))) {
        size_t len = strlen(ent->d_name);
        if (len > 4 && !strcmp(ent->d_name + len - 4, ".xml")) {
            // every model is read: more files than room fails instead of skipping the rest
            if (n >= MAX_MODELS - 2) {
                fprintf(stderr, "tests/models has more models than MAX_MODELS - 2 = %d\n",
                        MAX_MODELS - 2);
                closedir(dir);
                return -1;
            }
            snprintf(paths[n], sizeof(paths[n]), "%s/%s", GDN_TEST_MODELS, ent->d_name);
            list[n] = paths[n];
            n++;
        }
    }
    closedir(dir);
    qsort(list, (size_t)n, sizeof(list[0]), compare_strings);
    for (size_t k = 0; k < sizeof(mujoco_models) / sizeof(mujoco_models[0]); k++) {
        list[n++] = mujoco_models[k];
    }
    CHECK(n >= 3);
    Worst w;
    memset(&w, 0, sizeof(w));
    int load_failures = 0;
    for (int i = 0; i < n; i++) {
        load_failures += compare_model(list[i], &w);
    }
    printf("worst relative error over %d models (tolerance %.0e):\n", n, TOL);
    for (int k = 0; k < w.n; k++) {
        printf("  %-20s %.3g\n", w.name[k], w.err[k]);
    }
    CHECK(load_failures == 0);
    CHECK(w.failed == 0);
    CHECK(g_mj_warnings == 0);
    return 0;
}

static const gdnTestCase cases[] = {
    {"parity_all_models", test_parity_all_models},
};

GDN_TEST_MAIN(cases)
