// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 on Kamino's scenes: creep, connect closure error, steps per second.
#define _POSIX_C_SOURCE 199309L
#include "runner/kamino_mujoco.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runner/kamino_reference.h"

mjModel* gdn_kmj_load(const char* file) {
    char path[1024], err[1024] = "";
    if (file[0] == '/') {
        snprintf(path, sizeof(path), "%s", file);
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    }
    mjModel* m = mj_loadXML(path, NULL, err, (int)sizeof(err));
    if (!m) {
        fprintf(stderr, "mj_loadXML %s: %s\n", path, err);
    }
    return m;
}

void gdn_kmj_apply_solver(mjModel* m, const gdnKmjSolver* s) {
    if (!s) {
        return;
    }
    if (s->tolerance > 0) {
        m->opt.tolerance = s->tolerance;
    }
    if (s->iterations > 0) {
        m->opt.iterations = s->iterations;
    }
    if (s->cone >= 0) {
        m->opt.cone = s->cone;
    }
}

double gdn_kmj_connect_error(const mjModel* m, const mjData* d) {
    double worst = 0;
    for (int i = 0; i < m->neq; i++) {
        if (m->eq_type[i] != mjEQ_CONNECT) {
            continue;
        }
        // each anchor in world coordinates: xpos + xmat * local anchor
        const mjtNum* data = m->eq_data + mjNEQDATA * i;
        const int b[2] = {m->eq_obj1id[i], m->eq_obj2id[i]};
        mjtNum w[2][3];
        for (int s = 0; s < 2; s++) {
            mju_rotVecMat(w[s], data + 3 * s, d->xmat + 9 * b[s]);
            mju_addTo3(w[s], d->xpos + 3 * b[s]);
        }
        mjtNum diff[3];
        mju_sub3(diff, w[0], w[1]);
        worst = fmax(worst, mju_norm3(diff));
    }
    return worst;
}

// the body's id by name ("world" or NULL: 0), or -1 with a message
static int body_id(const mjModel* m, const char* name) {
    if (!name || !strcmp(name, "world")) {
        return 0;
    }
    const int id = mj_name2id(m, mjOBJ_BODY, name);
    if (id < 0) {
        fprintf(stderr, "no body named %s\n", name);
    }
    return id;
}

// position of body b relative to body r, world axes
static void rel_pos(const mjData* d, int b, int r, mjtNum p[3]) {
    mju_sub3(p, d->xpos + 3 * b, d->xpos + 3 * r);
}

// the start state: keyframe 0 when present, else qpos0; zero controls; kinematics computed
static void start_state(const mjModel* m, mjData* d) {
    mj_resetData(m, d);
    if (m->nkey > 0) {
        mj_resetDataKeyframe(m, d, 0);
    }
    mju_zero(d->ctrl, m->nu);
    mj_forward(m, d);
}

int gdn_kmj_creep(const char* file, const char* body, const char* ref_body, double duration,
                  double tail, const gdnKmjSolver* solver, gdnKmjCreep* out) {
    memset(out, 0, sizeof(*out));
    mjModel* m = gdn_kmj_load(file);
    if (!m) {
        return -1;
    }
    gdn_kmj_apply_solver(m, solver);
    mjData* d = mj_makeData(m);
    const int b = body_id(m, body), r = body_id(m, ref_body);
    int rc = b < 0 || r < 0 ? -1 : 0;
    if (rc == 0) {
        // run, feeding the relative position to the shared creep metric
        start_state(m, d);
        const double h = m->opt.timestep;
        const int nstep = (int)lround(duration / h);
        gdnKrefCreep c;
        mjtNum p[3];
        rel_pos(d, b, r, p);
        gdn_kref_creep_begin(&c, nstep, h, tail, p);
        for (int k = 1; k <= nstep && rc == 0; k++) {
            mj_step(m, d);
            rel_pos(d, b, r, p);
            if (!(mju_norm3(p) < 1e6)) {
                fprintf(stderr, "%s: state not finite at step %d\n", file, k);
                rc = -1;
            }
            gdn_kref_creep_sample(&c, k, p);
        }
        out->speed = c.speed;
        out->speed_max = c.speed_max;
        out->drift = c.drift;
        out->ncon = d->ncon;
    }
    mj_deleteData(d);
    mj_deleteModel(m);
    return rc;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int gdn_kmj_mechanism(const char* file, double ctrl, int nstep, const gdnKmjSolver* solver,
                      gdnKmjMech* out) {
    memset(out, 0, sizeof(*out));
    mjModel* m = gdn_kmj_load(file);
    if (!m) {
        return -1;
    }
    gdn_kmj_apply_solver(m, solver);
    mjData* d = mj_makeData(m);
    int rc = 0;
    // the measured run: closure error after every step
    start_state(m, d);
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = ctrl;
    }
    double sum = 0;
    for (int k = 0; k < nstep; k++) {
        mj_step(m, d);
        const double e = gdn_kmj_connect_error(m, d);
        if (!(e < 1e6)) {
            fprintf(stderr, "%s: state not finite at step %d\n", file, k + 1);
            rc = -1;
            break;
        }
        out->closure_max = fmax(out->closure_max, e);
        sum += e;
        out->closure_final = e;
    }
    out->closure_mean = sum / nstep;
    // the timed run: the same motion, nothing but mj_step inside the clock
    start_state(m, d);
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = ctrl;
    }
    const double t0 = now_seconds();
    for (int k = 0; k < nstep && rc == 0; k++) {
        mj_step(m, d);
    }
    const double t1 = now_seconds();
    out->steps_per_s = nstep / fmax(t1 - t0, 1e-12);
    out->us_per_step = 1e6 / out->steps_per_s;
    mj_deleteData(d);
    mj_deleteModel(m);
    return rc;
}
