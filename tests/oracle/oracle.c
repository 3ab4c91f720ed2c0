// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 oracle for tests: loading in both engines, random states, comparisons.
#include "oracle/oracle.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "oracle/from_mujoco.h"
#include "runner/test.h"

#define ORACLE_PI 3.14159265358979323846

const char* const gdn_oracle_models[] = {
    "pendulum.xml", "double_pendulum.xml", "arm7.xml",      "ball_chain.xml",
    "box_spin.xml", "slider.xml",          "humanoid32.xml",
};
const int gdn_oracle_nmodels = (int)(sizeof(gdn_oracle_models) / sizeof(gdn_oracle_models[0]));

static int mj_warning_count;

// MuJoCo warning handler: count and print, never abort
static void count_mj_warning(const char* msg) {
    mj_warning_count++;
    fprintf(stderr, "MuJoCo warning: %s\n", msg);
}

void gdn_oracle_free(gdnOracle* o) {
    if (o->gd) {
        gdn_data_free(o->gd);
    }
    if (o->gm) {
        gdn_model_free(o->gm);
    }
    if (o->md) {
        mj_deleteData(o->md);
    }
    if (o->mm) {
        mj_deleteModel(o->mm);
    }
    o->gd = NULL;
    o->gm = NULL;
    o->md = NULL;
    o->mm = NULL;
}

// sizes that must agree before any array is compared
static int sizes_match(const gdnOracle* o) {
    const gdnModel* g = o->gm;
    const mjModel* m = o->mm;
    if (g->nq == m->nq && g->nv == m->nv && g->nu == m->nu && g->nbody == m->nbody &&
        g->njnt == m->njnt && g->ngeom == m->ngeom && g->nsite == m->nsite) {
        return 1;
    }
    fprintf(stderr,
            "%s: sizes differ: gradyn nq %d nv %d nu %d nbody %d njnt %d ngeom %d nsite %d, "
            "MuJoCo nq %d nv %d nu %d nbody %d njnt %d ngeom %d nsite %d\n",
            o->path, g->nq, g->nv, g->nu, g->nbody, g->njnt, g->ngeom, g->nsite, m->nq, m->nv,
            m->nu, m->nbody, m->njnt, m->ngeom, m->nsite);
    return 0;
}

int gdn_oracle_load_tight(gdnOracle* o, const char* path) {
    if (gdn_oracle_load(o, path)) {
        return 1;
    }
    o->gm->opt.disableflags &= ~(int)GDN_DSBL_CONSTRAINT;
    o->mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    o->gm->opt.disableflags |= GDN_DSBL_WARMSTART;
    o->mm->opt.disableflags |= mjDSBL_WARMSTART;
    o->gm->opt.tolerance = o->mm->opt.tolerance = 1e-12;
    o->gm->opt.iterations = o->mm->opt.iterations = 1000;
    return 0;
}

int gdn_oracle_load(gdnOracle* o, const char* path) {
    return gdn_oracle_load_from(o, path, GDN_ORACLE_FROM_XML);
}

int gdn_oracle_load_from(gdnOracle* o, const char* path, gdnOracleSource source) {
    memset(o, 0, sizeof(*o));
    snprintf(o->path, sizeof(o->path), "%s", path);
    const char* slash = strrchr(o->path, '/');
    o->name = slash ? slash + 1 : o->path;
    mju_user_warning = count_mj_warning;
    o->warnings_at_load = mj_warning_count;

    char err[1024] = "";
    o->mm = mj_loadXML(path, NULL, err, (int)sizeof(err));
    if (!o->mm) {
        fprintf(stderr, "%s: MuJoCo failed to load: %s\n", path, err);
        return 1;
    }
    if (err[0]) {
        // a model returned with a message is a compiler warning
        mj_warning_count++;
        fprintf(stderr, "%s: MuJoCo load warning: %s\n", path, err);
    }
    o->mm->opt.disableflags |= mjDSBL_CONSTRAINT;
    o->md = mj_makeData(o->mm);

    char gerr[1024] = "", gwarn[4096] = "";
    gdnStatus st = GDN_OK;
    if (source == GDN_ORACLE_FROM_MJMODEL) {
        o->gm = gdn_model_from_mujoco(o->mm);
        st = o->gm ? GDN_OK : GDN_ERR_MEMORY;
    } else {
        st = gdn_load_xml(path, &o->gm, gerr, (int)sizeof(gerr), gwarn, (int)sizeof(gwarn));
    }
    if (st != GDN_OK || !o->gm) {
        fprintf(stderr, "%s: gradyn failed to load (%s): %s\n", path, gdn_status_string(st), gerr);
        gdn_oracle_free(o);
        return 1;
    }
    if (gwarn[0]) {
        fprintf(stderr, "%s: gradyn loader warnings:\n%s\n", path, gwarn);
    }
    o->gm->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    if (!sizes_match(o)) {
        gdn_oracle_free(o);
        return 1;
    }
    st = gdn_data_create(o->gm, &o->gd);
    if (st != GDN_OK || !o->gd) {
        fprintf(stderr, "%s: gdn_data_create failed (%s)\n", path, gdn_status_string(st));
        gdn_oracle_free(o);
        return 1;
    }
    return 0;
}

int gdn_oracle_warnings(const gdnOracle* o) {
    int n = mj_warning_count - o->warnings_at_load;
    if (o->md) {
        for (int i = 0; i < mjNWARNING; i++) {
            n += o->md->warning[i].number;
        }
    }
    return n;
}

// uniform random unit quaternion (Shoemake's method), normalized once more
static void random_quat(unsigned long long* rng, double q[4]) {
    double u1 = gdn_test_uniform(rng, 0, 1);
    double u2 = gdn_test_uniform(rng, 0, 2 * ORACLE_PI);
    double u3 = gdn_test_uniform(rng, 0, 2 * ORACLE_PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    q[0] = a * sin(u2);
    q[1] = a * cos(u2);
    q[2] = b * sin(u3);
    q[3] = b * cos(u3);
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) {
        q[k] /= norm;
    }
}

void gdn_oracle_copy_state(gdnOracle* o) {
    const gdnModel* g = o->gm;
    mjData* md = o->md;
    const gdnData* gd = o->gd;
    md->time = gd->time;
    memcpy(md->qpos, gd->qpos, sizeof(double) * (size_t)g->nq);
    memcpy(md->qvel, gd->qvel, sizeof(double) * (size_t)g->nv);
    memcpy(md->qacc, gd->qacc, sizeof(double) * (size_t)g->nv);
    memcpy(md->ctrl, gd->ctrl, sizeof(double) * (size_t)g->nu);
    memcpy(md->qfrc_applied, gd->qfrc_applied, sizeof(double) * (size_t)g->nv);
    memcpy(md->xfrc_applied, gd->xfrc_applied, sizeof(double) * 6 * (size_t)g->nbody);
    memcpy(md->mocap_pos, gd->mocap_pos, sizeof(double) * 3 * (size_t)g->nmocap);
    memcpy(md->mocap_quat, gd->mocap_quat, sizeof(double) * 4 * (size_t)g->nmocap);
}

void gdn_oracle_random_state(gdnOracle* o, unsigned long long* rng, int what, double vel_scale) {
    const gdnModel* g = o->gm;
    gdnData* d = o->gd;
    gdn_data_reset(g, d);
    mj_resetData(o->mm, o->md);

    // configuration, joint by joint
    if (what & GDN_RAND_QPOS) {
        for (int j = 0; j < g->njnt; j++) {
            double* q = d->qpos + g->jnt_qposadr[j];
            switch (g->jnt_type[j]) {
            case GDN_JNT_FREE:
                for (int k = 0; k < 3; k++) {
                    q[k] = gdn_test_uniform(rng, -1, 1);
                }
                random_quat(rng, q + 3);
                break;
            case GDN_JNT_BALL:
                random_quat(rng, q);
                break;
            case GDN_JNT_SLIDE:
                q[0] = gdn_test_uniform(rng, -0.5, 0.5);
                break;
            default:
                q[0] = gdn_test_uniform(rng, -ORACLE_PI, ORACLE_PI);
                break;
            }
        }
    }
    if (what & GDN_RAND_QVEL) {
        for (int i = 0; i < g->nv; i++) {
            d->qvel[i] = gdn_test_uniform(rng, -vel_scale, vel_scale);
        }
    }

    // controls: beyond ctrlrange by 20% of its width on each side when limited
    if (what & GDN_RAND_CTRL) {
        for (int i = 0; i < g->nu; i++) {
            double lo = -1, hi = 1;
            if (g->actuator_ctrllimited[i]) {
                double w = g->actuator_ctrlrange[2 * i + 1] - g->actuator_ctrlrange[2 * i];
                lo = g->actuator_ctrlrange[2 * i] - 0.2 * w;
                hi = g->actuator_ctrlrange[2 * i + 1] + 0.2 * w;
            }
            d->ctrl[i] = gdn_test_uniform(rng, lo, hi);
        }
    }
    if (what & GDN_RAND_QFRC) {
        for (int i = 0; i < g->nv; i++) {
            d->qfrc_applied[i] = gdn_test_uniform(rng, -vel_scale, vel_scale);
        }
    }
    if (what & GDN_RAND_XFRC) {
        for (int i = 6; i < 6 * g->nbody; i++) {
            d->xfrc_applied[i] = gdn_test_uniform(rng, -vel_scale, vel_scale);
        }
    }
    gdn_oracle_copy_state(o);
}

void gdn_oracle_full_m(const gdnOracle* o, double* dense) {
    mj_fullM(o->mm, dense, o->md->qM);
}

double gdn_oracle_qpos_distance(const gdnOracle* o, const double* qa, const double* qb,
                                double* scratch) {
    mj_differentiatePos(o->mm, scratch, 1.0, qb, qa);
    double worst = 0;
    for (int i = 0; i < o->mm->nv; i++) {
        double e = fabs(scratch[i]);
        if (!(e <= worst)) {
            worst = e; // NaN propagates
        }
    }
    return worst;
}

double gdn_oracle_quat_distance(const double a[4], const double b[4]) {
    double plus = 0, minus = 0;
    for (int k = 0; k < 4; k++) {
        plus = fmax(plus, fabs(a[k] - b[k]));
        minus = fmax(minus, fabs(a[k] + b[k]));
    }
    if (plus != plus || minus != minus) {
        return INFINITY;
    }
    return fmin(plus, minus);
}

void gdn_worst_add(gdnWorst* w, const char* name, double err) {
    int i = 0;
    while (i < w->n && strcmp(w->name[i], name) != 0) {
        i++;
    }
    if (i == w->n) {
        if (w->n == GDN_ORACLE_MAXQ) {
            return;
        }
        w->name[i] = name;
        w->err[i] = 0;
        w->n++;
    }
    if (!(err <= w->err[i])) {
        w->err[i] = err;
    }
}

int gdn_worst_check_err(gdnWorst* w, const char* model, int sample, const char* name, double err,
                        double tol) {
    gdn_worst_add(w, name, err);
    if (err <= tol) {
        return 1;
    }
    if (w->failures++ < 8) {
        fprintf(stderr, "%s sample %d: %s error %.3g > %.3g\n", model, sample, name, err, tol);
    }
    return 0;
}

int gdn_worst_check(gdnWorst* w, const char* model, int sample, const char* name, const double* a,
                    const double* b, int n, double floor_, double tol) {
    int printed_before = w->failures;
    int ok = gdn_worst_check_err(w, model, sample, name, gdn_test_relerr(a, b, n, floor_), tol);
    if (!ok && printed_before < 8) {
        gdn_test_print_worst(a, b, n);
    }
    return ok;
}

double gdn_worst_max(const gdnWorst* w) {
    double worst = 0;
    for (int i = 0; i < w->n; i++) {
        if (!(w->err[i] <= worst)) {
            worst = w->err[i];
        }
    }
    return worst;
}

void gdn_worst_print(const gdnWorst* w, const char* model) {
    printf("%-20s", model);
    for (int i = 0; i < w->n; i++) {
        printf(" %s=%.2e", w->name[i], w->err[i]);
    }
    printf("\n");
    fflush(stdout);
}
