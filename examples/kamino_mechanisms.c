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
        const double e = gdn_kamino_connect_error(km, w);
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
