// SPDX-License-Identifier: Apache-2.0
// The main-job demo: simulate a model with gradyn and print steps/s, energy drift, root pose.
//
//   gradyn_demo MODEL.xml [STEPS]
//
// Starts from keyframe 0 when the model has one (else qpos0, at rest), controls zero, and runs
// STEPS steps (timed) of the full step: contacts, limits and equality constraints solved as
// MuJoCo does, then semi-implicit Euler. A second untimed run with damping and constraints off
// measures the integrator's energy drift alone.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

// initial state: keyframe 0 if the model has one, else the neutral configuration at rest
static void start_state(const gdnModel* m, gdnData* d) {
    if (m->nkey > 0) {
        gdn_data_reset_keyframe(m, d, 0);
    } else {
        gdn_data_reset(m, d);
    }
}

// up to steps steps; returns how many succeeded, *status is the first failure (or GDN_OK)
// what a run saw: contacts, Newton iterations and unconverged solves summed over its steps
typedef struct RunStats {
    long contacts;
    long iterations;
    long constrained;
    long unconverged;
} RunStats;

static long run_steps(const gdnModel* m, gdnData* d, long steps, gdnStatus* status,
                      RunStats* stats) {
    *status = GDN_OK;
    memset(stats, 0, sizeof(*stats));
    for (long i = 0; i < steps; i++) {
        *status = gdn_step(m, d);
        if (*status != GDN_OK) {
            return i;
        }
        stats->contacts += d->ncon;
        if (d->nefc > 0) {
            stats->constrained++;
            stats->iterations += d->solver_iter;
            stats->unconverged += !d->solver_converged;
        }
    }
    return steps;
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

    // run 1 (timed): the model as written, from keyframe 0 if any, else qpos0 at rest
    start_state(m, d);
    double energy0 = total_energy(m, d);
    double t0 = now_seconds();
    RunStats stats;
    long done = run_steps(m, d, steps, &st, &stats);
    double elapsed = now_seconds() - t0;
    double energy1 = total_energy(m, d);
    double time1 = d->time;
    double root_pos[3] = {0, 0, 0}, root_quat[4] = {1, 0, 0, 0};
    if (m->nbody > 1) {
        memcpy(root_pos, d->xpos + 3, sizeof(root_pos));
        memcpy(root_quat, d->xquat + 4, sizeof(root_quat));
    }

    // is the model conservative? (damping and contacts dissipate energy; actuators are off)
    double damping = 0.0;
    for (int i = 0; i < m->nv; i++) {
        damping = fmax(damping, m->dof_damping[i]);
    }

    // run 2: the same start with damping and constraints switched off, so the energy change
    // is the integrator's drift alone
    double drift_conservative = 0.0, energy_start = energy0;
    long done2 = 0;
    {
        for (int i = 0; i < m->nv; i++) {
            m->dof_damping[i] = 0.0;
        }
        m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
        gdnStatus st2 = GDN_OK;
        RunStats stats2;
        start_state(m, d);
        energy_start = total_energy(m, d);
        done2 = run_steps(m, d, steps, &st2, &stats2);
        double energy_end = total_energy(m, d);
        drift_conservative = (energy_end - energy_start) / fmax(fabs(energy_start), 1e-300);
    }

    // the summary
    const char* root = m->nbody > 1 ? gdn_id2name(m, "body", 1) : "";
    printf("model      %s (nq %d, nv %d, nu %d, nbody %d, dt %g s)\n", argv[1], m->nq, m->nv,
           m->nu, m->nbody, m->opt.timestep);
    printf("steps      %ld of %ld (%.3f s simulated)%s\n", done, steps, time1,
           st == GDN_OK ? "" : ", stopped: non-finite state");
    printf("speed      %.0f steps/s (%.3f us/step)\n", (double)done / elapsed,
           1e6 * elapsed / (double)(done > 0 ? done : 1));
    printf("contacts   %.2f per step; %ld constrained steps, %.3f Newton iterations per "
           "constrained step, %ld unconverged\n",
           (double)stats.contacts / (double)(done > 0 ? done : 1), stats.constrained,
           (double)stats.iterations / (double)(stats.constrained > 0 ? stats.constrained : 1),
           stats.unconverged);
    printf("energy     %.6g J -> %.6g J, change %.3g%% of |E0|%s\n", energy0, energy1,
           100.0 * (energy1 - energy0) / fmax(fabs(energy0), 1e-300),
           damping > 0.0 || stats.constrained > 0
               ? " (damping and contacts dissipate: a loss is expected)"
               : " (drift)");
    printf("drift      %.3g%% of |E0| over %ld steps with damping and constraints switched off "
           "(integrator drift)\n", 100.0 * drift_conservative, done2);
    // without constraints a free-floating model falls (run 2); semi-implicit Euler's energy
    // error in free fall is exactly -M |g|^2 h t / 2, the main part of that drift
    if (m->njnt > 0 && m->jnt_type[0] == GDN_JNT_FREE) {
        const double* g = m->opt.gravity;
        double mass = 0.0;
        for (int b = 1; b < m->nbody; b++) {
            mass += m->body_mass[b];
        }
        double expected = -0.5 * mass * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) *
                          m->opt.timestep * time1;
        printf("           (run 2 falls freely: Euler's exact free-fall error -M|g|^2 h t/2 = "
               "%.4g%% of |E0|)\n", 100.0 * expected / fmax(fabs(energy_start), 1e-300));
    }
    if (m->nbody > 1) {
        const double* p = root_pos;
        const double* q = root_quat;
        printf("root body  '%s': pos (%.6f, %.6f, %.6f) m, quat (%.6f, %.6f, %.6f, %.6f)\n",
               root && root[0] ? root : "body 1", p[0], p[1], p[2], q[0], q[1], q[2], q[3]);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return st == GDN_OK ? 0 : 1;
}
