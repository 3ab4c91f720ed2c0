// SPDX-License-Identifier: Apache-2.0
// Constraint rows (efc_*) against MuJoCo 2.2.2, isolated from collision and loading: MuJoCo's
// compiled model and its contacts are copied into gradyn, then every efc array is compared row
// by row (same order).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "constraint/constraint.h"
#include "oracle/from_mujoco.h"
#include "runner/test.h"

#define TOL 1e-12

// one scene: a model, a way to modify it, and states
typedef struct Scene {
    const char* file;
    int cone;          // mjCONE_*
    int condim;        // > 0: every geom's condim
    int enable;        // extra enable flags
    int disable;       // extra disable flags
} Scene;

// over every scene run so far: the worst relative error, scenes, rows compared and a bit per
// row type (1 << gdnConstraintType) that occurred
static double worst_all = 0;
static int scenes_all = 0;
static long rows_all = 0;
static unsigned types_all = 0;

static void copy_contacts(const mjData* md, gdnData* gd) {
    gd->ncon = md->ncon < gd->maxcon ? md->ncon : gd->maxcon;
    for (int i = 0; i < gd->ncon; i++) {
        const mjContact* s = md->contact + i;
        gdnContact* t = gd->contact + i;
        memset(t, 0, sizeof(*t));
        t->dist = s->dist;
        memcpy(t->pos, s->pos, sizeof(t->pos));
        memcpy(t->frame, s->frame, sizeof(t->frame));
        t->includemargin = s->includemargin;
        memcpy(t->friction, s->friction, sizeof(t->friction));
        memcpy(t->solref, s->solref, sizeof(t->solref));
        memcpy(t->solimp, s->solimp, sizeof(t->solimp));
        t->dim = s->dim;
        t->geom1 = s->geom1;
        t->geom2 = s->geom2;
        t->exclude = s->exclude;
        t->efc_address = -1;
    }
}

// compare every efc array; returns the worst relative error (inf on a structural mismatch)
static double compare_rows(const gdnModel* gm, const gdnData* gd, const mjModel* mm,
                           const mjData* md, const char* label) {
    int nv = mm->nv, nefc = md->nefc;
    if (gd->nefc != nefc || gd->ne != md->ne || gd->nf != md->nf) {
        printf("  %s: nefc %d/%d ne %d/%d nf %d/%d (gradyn/MuJoCo)\n", label, gd->nefc, nefc,
               gd->ne, md->ne, gd->nf, md->nf);
        return INFINITY;
    }
    for (int i = 0; i < nefc; i++) {
        if (gd->efc_type[i] != md->efc_type[i] || gd->efc_id[i] != md->efc_id[i]) {
            printf("  %s: row %d type %d/%d id %d/%d\n", label, i, gd->efc_type[i],
                   md->efc_type[i], gd->efc_id[i], md->efc_id[i]);
            return INFINITY;
        }
    }
    for (int i = 0; i < md->ncon; i++) {
        if (gd->contact[i].efc_address != md->contact[i].efc_address) {
            printf("  %s: contact %d efc_address %d/%d\n", label, i, gd->contact[i].efc_address,
                   md->contact[i].efc_address);
            return INFINITY;
        }
    }
    struct {
        const char* name;
        const double* g;
        const double* m;
        int n;
    } arr[] = {
        {"J", gd->efc_J, md->efc_J, nefc * nv},
        {"pos", gd->efc_pos, md->efc_pos, nefc},
        {"margin", gd->efc_margin, md->efc_margin, nefc},
        {"frictionloss", gd->efc_frictionloss, md->efc_frictionloss, nefc},
        {"diagApprox", gd->efc_diagApprox, md->efc_diagApprox, nefc},
        {"KBIP", gd->efc_KBIP, md->efc_KBIP, 4 * nefc},
        {"D", gd->efc_D, md->efc_D, nefc},
        {"R", gd->efc_R, md->efc_R, nefc},
        {"vel", gd->efc_vel, md->efc_vel, nefc},
        {"aref", gd->efc_aref, md->efc_aref, nefc},
    };
    double worst = 0;
    for (size_t k = 0; k < sizeof(arr) / sizeof(arr[0]); k++) {
        double e = gdn_test_relerr(arr[k].g, arr[k].m, arr[k].n, 1);
        if (!(e <= TOL) || getenv("GDN_CNSTR_VERBOSE")) {
            printf("  %s: %s error %.3g\n", label, arr[k].name, e);
        }
        worst = !(e <= worst) ? e : worst;
    }
    // contact mu of the regularized cone
    for (int i = 0; i < md->ncon; i++) {
        double e = fabs(gd->contact[i].mu - md->contact[i].mu) / fmax(1, fabs(md->contact[i].mu));
        if (!(e <= TOL)) {
            printf("  %s: contact %d mu error %.3g\n", label, i, e);
        }
        worst = !(e <= worst) ? e : worst;
    }
    (void)gm;
    return worst;
}

// run one scene over nstates states; qpos / qvel set by the caller-supplied generator
typedef void (*StateFn)(const mjModel* mm, mjData* md, int k, unsigned long long* rng);

static int run_scene(const Scene* sc, StateFn state, int nstates, int min_nefc) {
    char path[1024], err[1000];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, sc->file);
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    if (!mm) {
        printf("  %s: %s\n", sc->file, err);
        return 1;
    }
    mm->opt.cone = sc->cone;
    mm->opt.enableflags |= sc->enable;
    mm->opt.disableflags |= sc->disable;
    if (sc->condim > 0) {
        for (int g = 0; g < mm->ngeom; g++) {
            mm->geom_condim[g] = sc->condim;
        }
    }
    mjData* md = mj_makeData(mm);
    gdnModel* gm = gdn_model_from_mujoco(mm);
    gdnData* gd = NULL;
    int failures = 0;
    if (!gm || gdn_data_create(gm, &gd) != GDN_OK) {
        printf("  %s: cannot create the gradyn model\n", sc->file);
        failures = 1;
        goto done;
    }
    unsigned long long rng = 42;
    double worst = 0;
    int rows = 0;
    for (int k = 0; k < nstates; k++) {
        mj_resetData(mm, md);
        state(mm, md, k, &rng);
        mj_forward(mm, md);
        gdn_data_reset(gm, gd);
        memcpy(gd->qpos, md->qpos, sizeof(double) * (size_t)mm->nq);
        memcpy(gd->qvel, md->qvel, sizeof(double) * (size_t)mm->nv);
        gdn_kinematics(gm, gd);
        copy_contacts(md, gd);
        failures += gdn_make_constraint(gm, gd) != GDN_OK;
        gdn_reference_constraint(gm, gd);
        char label[256];
        snprintf(label, sizeof(label), "%s cone=%d condim=%d state %d", sc->file, sc->cone,
                 sc->condim, k);
        double e = compare_rows(gm, gd, mm, md, label);
        worst = !(e <= worst) ? e : worst;
        rows += md->nefc;
        for (int i = 0; i < gd->nefc; i++) {
            types_all |= 1u << gd->efc_type[i];
        }
        failures += gd->nefc_overflow != 0;
    }
    scenes_all++;
    rows_all += rows;
    printf("  %-22s cone=%d condim=%d: %d states, %d rows (avg %.1f), worst rel err %.3g\n",
           sc->file, sc->cone, sc->condim, nstates, rows, (double)rows / nstates, worst);
    worst_all = !(worst <= worst_all) ? worst : worst_all;
    failures += !(worst <= TOL) || rows < min_nefc * nstates;
done:
    gdn_data_free(gd);
    gdn_model_free(gm);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return failures;
}

// ---------------------------------------------------------------- state generators

// a random unit quaternion near the identity (tilt up to `tilt` radians)
static void near_identity_quat(double q[4], double tilt, unsigned long long* rng) {
    double axis[3] = {gdn_test_uniform(rng, -1, 1), gdn_test_uniform(rng, -1, 1),
                      gdn_test_uniform(rng, -1, 1)};
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-12;
    double a = gdn_test_uniform(rng, 0, tilt);
    q[0] = cos(a / 2);
    for (int i = 0; i < 3; i++) {
        q[i + 1] = sin(a / 2) * axis[i] / n;
    }
}

static void random_qvel(const mjModel* mm, mjData* md, double scale, unsigned long long* rng) {
    for (int i = 0; i < mm->nv; i++) {
        md->qvel[i] = gdn_test_uniform(rng, -scale, scale);
    }
}

// box resting on / pressed into the plane: flat (4 contacts) and slightly tilted
static void box_state(const mjModel* mm, mjData* md, int k, unsigned long long* rng) {
    md->qpos[0] = gdn_test_uniform(rng, -1, 1);
    md->qpos[1] = gdn_test_uniform(rng, -1, 1);
    md->qpos[2] = 0.1 - gdn_test_uniform(rng, 0.001, 0.003);
    near_identity_quat(md->qpos + 3, k % 2 ? 0.004 : 0.0, rng);
    random_qvel(mm, md, 0.5, rng);
}

static void sphere_state(const mjModel* mm, mjData* md, int k, unsigned long long* rng) {
    (void)k;
    md->qpos[0] = gdn_test_uniform(rng, -1, 1);
    md->qpos[1] = gdn_test_uniform(rng, -1, 1);
    md->qpos[2] = 0.1 - gdn_test_uniform(rng, -0.001, 0.004);
    near_identity_quat(md->qpos + 3, 3.0, rng);
    random_qvel(mm, md, 2.0, rng);
}

// pendulum near, at, within the margin of and beyond its limits; slide and ball too
static void pendulum_state(const mjModel* mm, mjData* md, int k, unsigned long long* rng) {
    const double hinge[] = {-0.5, 0.7, -0.47, 0.68, -0.6, 0.9, 0.0, -0.52, 0.74, 0.3};
    md->qpos[0] = hinge[k % 10] + gdn_test_uniform(rng, -0.01, 0.01);
    md->qpos[1] = gdn_test_uniform(rng, -0.13, 0.13);
    double a = gdn_test_uniform(rng, 0.4, 0.8);
    double axis[3] = {gdn_test_uniform(rng, -1, 1), gdn_test_uniform(rng, -1, 1),
                      gdn_test_uniform(rng, -1, 1)};
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    md->qpos[2] = cos(a / 2);
    for (int i = 0; i < 3; i++) {
        md->qpos[3 + i] = sin(a / 2) * axis[i] / n;
    }
    random_qvel(mm, md, 3.0, rng);
}

// joints anywhere, velocities random
static void random_joint_state(const mjModel* mm, mjData* md, int k, unsigned long long* rng) {
    (void)k;
    for (int j = 0; j < mm->njnt; j++) {
        int a = mm->jnt_qposadr[j];
        if (mm->jnt_type[j] == mjJNT_FREE) {
            for (int i = 0; i < 3; i++) {
                md->qpos[a + i] = mm->qpos0[a + i] + gdn_test_uniform(rng, -0.05, 0.05);
            }
            near_identity_quat(md->qpos + a + 3, 0.5, rng);
        } else if (mm->jnt_type[j] == mjJNT_BALL) {
            near_identity_quat(md->qpos + a, 0.5, rng);
        } else {
            md->qpos[a] = gdn_test_uniform(rng, -0.4, 0.4);
        }
    }
    random_qvel(mm, md, 2.0, rng);
}

// ---------------------------------------------------------------- cases

static int test_box_cones_condims(void) {
    int failures = 0;
    const int condims[] = {1, 3, 4, 6};
    for (int cone = 0; cone <= 1; cone++) {
        for (int c = 0; c < 4; c++) {
            Scene sc = {"cnstr_box.xml", cone, condims[c], 0, 0};
            failures += run_scene(&sc, box_state, 40, 4);
        }
    }
    return failures != 0;
}

static int test_box_impratio_override(void) {
    int failures = 0;
    // impratio and the override of contact parameters (applied by MuJoCo's collision, copied)
    for (int cone = 0; cone <= 1; cone++) {
        Scene sc = {"cnstr_box.xml", cone, 3, mjENBL_OVERRIDE, 0};
        failures += run_scene(&sc, box_state, 20, 4);
    }
    return failures != 0;
}

static int test_sphere_rolling(void) {
    int failures = 0;
    for (int cone = 0; cone <= 1; cone++) {
        Scene sc3 = {"cnstr_sphere.xml", cone, 3, 0, 0};
        failures += run_scene(&sc3, sphere_state, 40, 1);
        Scene sc6 = {"cnstr_sphere.xml", cone, 0, 0, 0};
        failures += run_scene(&sc6, sphere_state, 40, 1);
    }
    return failures != 0;
}

static int test_pendulum_limits(void) {
    int failures = 0;
    Scene sc = {"cnstr_pendulum.xml", 0, 0, 0, 0};
    failures += run_scene(&sc, pendulum_state, 60, 1);
    Scene nosafe = {"cnstr_pendulum.xml", 0, 0, 0, mjDSBL_REFSAFE};
    failures += run_scene(&nosafe, pendulum_state, 20, 1);
    return failures != 0;
}

static int test_fourbar_connect(void) {
    int failures = 0;
    Scene sc = {"cnstr_fourbar.xml", 0, 0, 0, 0};
    failures += run_scene(&sc, random_joint_state, 40, 3);
    return failures != 0;
}

static int test_weld(void) {
    int failures = 0;
    Scene sc = {"cnstr_weld.xml", 0, 0, 0, 0};
    failures += run_scene(&sc, random_joint_state, 40, 12);
    return failures != 0;
}

static int test_frictionloss(void) {
    int failures = 0;
    Scene sc = {"cnstr_frictionloss.xml", 0, 0, 0, 0};
    failures += run_scene(&sc, random_joint_state, 20, 2);
    return failures != 0;
}

static int test_overflow(void) {
    int failures = 0;
    // rows beyond maxefc are counted, never written
    char path[1024], err[1000];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, "cnstr_box.xml");
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    CHECK(mm != NULL);
    mjData* md = mj_makeData(mm);
    unsigned long long rng = 7;
    box_state(mm, md, 0, &rng);
    mj_forward(mm, md);
    CHECK(md->ncon == 4);
    gdnModel* gm = gdn_model_from_mujoco(mm);
    gm->njmax = 10;
    gdnData* gd = NULL;
    CHECK(gm && gdn_data_create(gm, &gd) == GDN_OK);
    memcpy(gd->qpos, md->qpos, sizeof(double) * (size_t)mm->nq);
    gdn_kinematics(gm, gd);
    copy_contacts(md, gd);
    CHECK(gdn_make_constraint(gm, gd) == GDN_OK);
    CHECK(gd->nefc == 8);
    CHECK(gd->nefc_overflow == 8);
    CHECK(gd->contact[2].efc_address == -1 && gd->contact[1].efc_address == 4);
    gdn_data_free(gd);
    gdn_model_free(gm);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return failures != 0;
}

// the MJCF loader's constraint fields vs MuJoCo's compiled model: equality, invweight0,
// friction-loss and limit parameters
static int compare_loader(const char* file) {
    char path[1024], err[1000], warn[2000] = "";
    if (file[0] == '/') {
        snprintf(path, sizeof(path), "%s", file);
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    }
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    gdnModel* gm = NULL;
    int failures = 0;
    if (!mm || gdn_load_xml(path, &gm, err, sizeof(err), warn, sizeof(warn)) != GDN_OK) {
        printf("  %s: %s\n", file, err);
        mj_deleteModel(mm);
        return 1;
    }
    if (warn[0]) {
        printf("  %s: loader warnings: %s\n", file, warn);
        failures++;
    }
    int ne = mm->neq, nv = mm->nv, nj = mm->njnt, nb = mm->nbody;
    if (gm->neq != ne || gm->nv != nv || gm->njnt != nj || gm->nbody != nb) {
        printf("  %s: sizes differ\n", file);
        failures = 1;
        goto done;
    }
    for (int i = 0; i < ne; i++) {
        failures += gm->eq_type[i] != mm->eq_type[i] || gm->eq_obj1id[i] != mm->eq_obj1id[i] ||
                    gm->eq_obj2id[i] != mm->eq_obj2id[i] || gm->eq_active[i] != mm->eq_active[i];
    }
    for (int j = 0; j < nj; j++) {
        failures += gm->jnt_limited[j] != mm->jnt_limited[j];
    }
    struct {
        const char* name;
        const double* g;
        const double* m;
        int n;
    } arr[] = {
        {"eq_data", gm->eq_data, mm->eq_data, ne * mjNEQDATA},
        {"eq_solref", gm->eq_solref, mm->eq_solref, ne * mjNREF},
        {"eq_solimp", gm->eq_solimp, mm->eq_solimp, ne * mjNIMP},
        {"body_invweight0", gm->body_invweight0, mm->body_invweight0, 2 * nb},
        {"dof_invweight0", gm->dof_invweight0, mm->dof_invweight0, nv},
        {"dof_frictionloss", gm->dof_frictionloss, mm->dof_frictionloss, nv},
        {"dof_solref", gm->dof_solref, mm->dof_solref, nv * mjNREF},
        {"dof_solimp", gm->dof_solimp, mm->dof_solimp, nv * mjNIMP},
        {"jnt_range", gm->jnt_range, mm->jnt_range, 2 * nj},
        {"jnt_margin", gm->jnt_margin, mm->jnt_margin, nj},
        {"jnt_solref", gm->jnt_solref, mm->jnt_solref, nj * mjNREF},
        {"jnt_solimp", gm->jnt_solimp, mm->jnt_solimp, nj * mjNIMP},
    };
    double worst = 0;
    for (size_t k = 0; k < sizeof(arr) / sizeof(arr[0]); k++) {
        double e = gdn_test_relerr(arr[k].g, arr[k].m, arr[k].n, 1);
        if (!(e <= TOL)) {
            printf("  %s: loader %s error %.3g\n", file, arr[k].name, e);
            failures++;
        }
        worst = !(e <= worst) ? e : worst;
    }
    printf("  %-22s loader: worst rel err %.3g, integer fields %s\n", file, worst,
           failures ? "DIFFER" : "equal");
done:
    gdn_model_free(gm);
    mj_deleteModel(mm);
    return failures;
}

static int test_loader(void) {
    const char* files[] = {"cnstr_box.xml",     "cnstr_sphere.xml", "cnstr_pendulum.xml",
                           "cnstr_fourbar.xml", "cnstr_weld.xml",   "cnstr_frictionloss.xml",
                           "/usr/share/mujoco/model/humanoid/humanoid.xml"};
    int failures = 0;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        failures += compare_loader(files[i]);
    }
    return failures != 0;
}

// the suite as a whole (it summarizes the scene cases before it, so it fails when run alone):
// scenes ran and compared rows, every row type gradyn builds occurred in some scene (equality,
// dof friction loss, joint limit, frictionless, pyramidal and elliptic contact), and the worst
// relative error over all of them is within the tolerance
static int test_summary(void) {
    static const int kTypes[] = {GDN_CNSTR_EQUALITY,         GDN_CNSTR_FRICTION_DOF,
                                 GDN_CNSTR_LIMIT_JOINT,      GDN_CNSTR_CONTACT_FRICTIONLESS,
                                 GDN_CNSTR_CONTACT_PYRAMIDAL, GDN_CNSTR_CONTACT_ELLIPTIC};
    printf("  %d scenes, %ld rows, worst relative error %.3g (tolerance %.0e)\n", scenes_all,
           rows_all, worst_all, TOL);
    CHECK(scenes_all > 0 && rows_all > 0);
    for (size_t k = 0; k < sizeof(kTypes) / sizeof(kTypes[0]); k++) {
        if (!(types_all & (1u << kTypes[k]))) {
            fprintf(stderr, "  no scene produced a row of type %d\n", kTypes[k]);
            return 1;
        }
    }
    CHECK(worst_all <= TOL);
    return 0;
}

static const gdnTestCase cases[] = {
    {"box_cones_condims", test_box_cones_condims},
    {"box_impratio_override", test_box_impratio_override},
    {"sphere_rolling", test_sphere_rolling},
    {"pendulum_limits", test_pendulum_limits},
    {"fourbar_connect", test_fourbar_connect},
    {"weld", test_weld},
    {"frictionloss", test_frictionloss},
    {"overflow", test_overflow},
    {"loader", test_loader},
    {"summary", test_summary},
};

GDN_TEST_MAIN(cases)
