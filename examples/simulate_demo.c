// SPDX-License-Identifier: Apache-2.0
// The main-job demo: simulate a model with gradyn and print steps/s, energy drift, root pose.
//
//   gradyn_demo MODEL.xml [STEPS]
//
// Starts from keyframe 0 when the model has one (else qpos0, at rest), controls zero, no
// contacts (gradyn has no constraints yet), and runs STEPS semi-implicit Euler steps.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gradyn/gradyn.h>

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// total mechanical energy E = potential (gravity, springs) + kinetic (0.5 v'Mv) at the state
static double total_energy(const gdnModel* m, gdnData* d) {
    gdn_forward(m, d);
    gdn_energy(m, d);
    return d->energy[0] + d->energy[1];
}

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s MODEL.xml [STEPS]\n", argv[0]);
        return 2;
    }
    long steps = argc == 3 ? atol(argv[2]) : 5000;
    if (steps < 1) {
        fprintf(stderr, "steps must be positive\n");
        return 2;
    }

    // load the model and make its data
    char err[1024] = "", warn[4096] = "";
    gdnModel* m = NULL;
    gdnData* d = NULL;
    gdnStatus st = gdn_load_xml(argv[1], &m, err, (int)sizeof(err), warn, (int)sizeof(warn));
    if (st != GDN_OK) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], err);
        return 1;
    }
    if (warn[0]) {
        fprintf(stderr, "warnings:\n%s", warn);
    }
    st = gdn_data_create(m, &d);
    if (st != GDN_OK) {
        fprintf(stderr, "gdn_data_create: %s\n", gdn_status_string(st));
        gdn_model_free(m);
        return 1;
    }

    // initial state: keyframe 0 if any, else the neutral configuration at rest
    if (m->nkey > 0) {
        gdn_data_reset_keyframe(m, d, 0);
    } else {
        gdn_data_reset(m, d);
    }
    double energy0 = total_energy(m, d);

    // the timed loop: nothing but steps
    double t0 = now_seconds();
    long done = 0;
    for (; done < steps; done++) {
        st = gdn_step(m, d);
        if (st != GDN_OK) {
            break;
        }
    }
    double elapsed = now_seconds() - t0;
    double energy1 = total_energy(m, d);

    // is the model conservative? (damping dissipates energy; actuators are off)
    double damping = 0.0;
    for (int i = 0; i < m->nv; i++) {
        damping = fmax(damping, m->dof_damping[i]);
    }

    // the summary
    const char* root = m->nbody > 1 ? gdn_id2name(m, "body", 1) : "";
    printf("model      %s (nq %d, nv %d, nu %d, nbody %d, dt %g s)\n", argv[1], m->nq, m->nv,
           m->nu, m->nbody, m->opt.timestep);
    printf("steps      %ld of %ld (%.3f s simulated)%s\n", done, steps, d->time,
           st == GDN_OK ? "" : ", stopped: non-finite state");
    printf("speed      %.0f steps/s (%.3f us/step)\n", (double)done / elapsed,
           1e6 * elapsed / (double)(done > 0 ? done : 1));
    printf("energy     %.6g J -> %.6g J, drift %.3g%% of |E0|%s\n", energy0, energy1,
           100.0 * (energy1 - energy0) / fmax(fabs(energy0), 1e-300),
           damping > 0.0 ? " (joint damping in the model: dissipation expected)" : "");
    if (m->nbody > 1) {
        const double* p = d->xpos + 3;
        const double* q = d->xquat + 4;
        printf("root body  '%s': pos (%.6f, %.6f, %.6f) m, quat (%.6f, %.6f, %.6f, %.6f)\n",
               root && root[0] ? root : "body 1", p[0], p[1], p[2], q[0], q[1], q[2], q[3]);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return st == GDN_OK ? 0 : 1;
}
