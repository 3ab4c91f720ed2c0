// SPDX-License-Identifier: Apache-2.0
// Kamino on closed-loop mechanisms: the four-bar, the slider-crank and the two-leg Jansen walker
// of tests/models, each crank driven for 2 s; prints the loop closure error (the distance
// between each equality connect's two anchors), PADMM's iterations and the steps per second.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "demo_timing.h"

// the world point of a body-frame point: Kamino holds the principal inertia frame at the COM,
// the body frame is that frame turned back by body_iquat and shifted by -R body_ipos
static void quat_rotate(const double q[4], const double v[3], double out[3]) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double t[3] = {2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]),
                         2 * (x * v[1] - y * v[0])};
    out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
    out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
    out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

static void body_point(const gdnModel* m, const gdnKaminoWorld* w, int b, const double local[3],
                       double out[3]) {
    // R_body = R_principal conj(iquat): R_body x = R_principal (conj(iquat) x)
    const double* iq = m->body_iquat + 4 * b;
    const double conj[4] = {iq[0], -iq[1], -iq[2], -iq[3]};
    double rel[3], t[3];
    for (int k = 0; k < 3; k++) {
        rel[k] = local[k] - m->body_ipos[3 * b + k];
    }
    quat_rotate(conj, rel, t);
    quat_rotate(w->body_quat + 4 * b, t, out);
    for (int k = 0; k < 3; k++) {
        out[k] += w->body_pos[3 * b + k];
    }
}

// largest distance between the anchors of the model's connects
static double closure_error(const gdnModel* m, const gdnKaminoWorld* w) {
    double worst = 0;
    for (int e = 0; e < m->neq; e++) {
        if (m->eq_type[e] != 0) {
            continue;
        }
        const double* data = m->eq_data + GDN_NEQDATA * e;
        double p1[3], p2[3];
        body_point(m, w, m->eq_obj1id[e], data, p1);
        body_point(m, w, m->eq_obj2id[e], data + 3, p2);
        const double dx = p1[0] - p2[0], dy = p1[1] - p2[1], dz = p1[2] - p2[2];
        const double dist = sqrt(dx * dx + dy * dy + dz * dz);
        worst = dist > worst ? dist : worst;
    }
    return worst;
}

// one mechanism: the crank's velocity actuator asked for speed rad/s, 2 s of steps, with the
// default settings (the pose projection on: projection 3) or Kamino's velocity-level recovery
// alone (projection 0)
static int run(const char* file, double speed, int projection) {
    char path[1024], err[1024], warn[2048];
    snprintf(path, sizeof(path), "%s/%s", GDN_EXAMPLE_MODELS, file);
    gdnModel* m = NULL;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    if (gdn_load_xml(path, &m, err, (int)sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gdnKaminoSettings set;
    gdn_kamino_settings_default(&set);
    set.restitution = m->opt.kamino_restitution;
    set.projection_iterations = projection;
    if (gdn_kamino_model_create(m, &set, &km, err, (int)sizeof(err), warn, (int)sizeof(warn)) !=
            GDN_OK ||
        gdn_kamino_data_create(km, 1, &kd) != GDN_OK) {
        fprintf(stderr, "%s: %s\n", file, err);
        gdn_kamino_model_free(km);
        gdn_model_free(m);
        return 1;
    }
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    for (int a = 0; a < m->nu; a++) {
        w->ctrl[a] = speed;
    }
    const int steps = (int)(2.0 / m->opt.timestep);
    double worst = 0, iters = 0;
    int unconverged = 0;
    const double t0 = demo_now_seconds();
    for (int k = 0; k < steps; k++) {
        if (gdn_kamino_step(km, kd) != GDN_OK) {
            fprintf(stderr, "%s: step %d failed\n", file, k);
            break;
        }
        const double e = closure_error(m, w);
        worst = e > worst ? e : worst;
        iters += w->status.iterations;
        unconverged += !w->status.converged;
    }
    const double dt = demo_now_seconds() - t0;
    printf("%-28s projection %d %5d steps  %8.0f steps/s  %5.1f iterations/step  %4d unconverged  "
           "closure error <= %.2e m\n",
           file, projection, steps, steps / dt, iters / steps, unconverged, worst);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

int main(void) {
    int fail = 0;
    printf("Kamino (PADMM) on closed-loop mechanisms, cranks driven at 3 rad/s for 2 s\n");
    fail |= run("kamino_mech_fourbar.xml", 3, 3);
    fail |= run("kamino_mech_slidercrank.xml", 3, 3);
    fail |= run("kamino_mech_leg.xml", 3, 3);
    // without the projection the loops drift to Kamino's (omega h)^2 L / (2 alpha)
    fail |= run("kamino_mech_fourbar.xml", 3, 0);
    fail |= run("kamino_mech_leg.xml", 3, 0);
    return fail;
}
