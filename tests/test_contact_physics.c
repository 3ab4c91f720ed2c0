// SPDX-License-Identifier: Apache-2.0
// Analytic contact physics through gdn_step, independent of MuJoCo: a block held on an incline
// (creep predicted from solref / solimp) and sliding down a steeper one, sliding deceleration
// mu g, a sphere going from sliding to rolling at 5/7 of its speed, normal forces = weight.
//
// Soft contacts (MuJoCo's model, which gdn_step implements) are not rigid Coulomb contacts; the
// checks below state what the soft model predicts and test that:
// - Held block: every contact row is in the quadratic state, so at a steady creep velocity v
//   (qacc = 0) each row's force is f = D aref with aref = -B vel - K I (pos - margin). The
//   tangential balance of the n contacts gives, for a body of mass m (translational inverse
//   weight 1/m) and impedance d = I in [dmin, dmax] (solimp):
//     pyramidal (edges R = 2 mu^2 R_n, R_n = (1 - d)/d (1 + mu^2)/m):
//         v = g sin(a) (1 + mu^2) (1 - d) / (d B n)
//     elliptic (friction rows R_t = (1 - d)/d / (m impratio)):
//         v = g sin(a) (1 - d) / (d B n impratio)
//   with B = 2 / (dmax max(timeconst, 2 h)). The measured creep must lie between the values at
//   d = dmax and d = dmin.
// - Sliding: with the elliptic cone every sliding contact is in the cone state, where the
//   friction force is exactly mu times the normal force. The friction demand B |v_t| then
//   exceeds the cone and the projection adds normal force, so the block hops by a fraction of
//   a millimetre (ncon alternates with 0): its mean acceleration is not g (sin a - mu cos a)
//   at every instant. What Coulomb friction implies exactly is the impulse balance over any
//   window of T seconds in which every contact step is in the cone state:
//     dv_t = g T (sin a - mu cos a) - mu dv_n
//   (dv_n: change of the normal velocity), which the test checks to round-off; the mean
//   acceleration is then within mu max|v_n| * 2 / T of the rigid value, also checked.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "runner/test.h"

#define GRAVITY 9.81
#define PI 3.14159265358979323846

// load an MJCF string; NULL (message printed) on failure
static gdnModel* load_string(const char* xml) {
    gdnModel* m = NULL;
    char err[1024] = "";
    if (gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) !=
        GDN_OK) {
        fprintf(stderr, "load: %s\n", err);
        return NULL;
    }
    return m;
}


// a floor and one block (box, mass 1) under gravity tilted by angle (the incline's frame):
// slide joints (the textbook block, which translates only) or a free joint
static gdnModel* block_model(double angle, const char* cone, double mu, int free_joint,
                             const char* size) {
    char xml[2048];
    const char* joints = free_joint ? "<freejoint/>"
                                    : "<joint name='x' type='slide' axis='1 0 0'/>"
                                      "<joint name='y' type='slide' axis='0 1 0'/>"
                                      "<joint name='z' type='slide' axis='0 0 1'/>";
    snprintf(xml, sizeof(xml),
             "<mujoco><option gravity='%.17g 0 %.17g' cone='%s'/><worldbody>"
             "<geom name='floor' type='plane' size='10 10 .1' friction='%g'/>"
             "<body name='block' pos='0 0 .1'>%s"
             "<geom type='box' size='%s' mass='1' friction='%g' condim='3'/></body>"
             "</worldbody></mujoco>",
             GRAVITY * sin(angle), -GRAVITY * cos(angle), cone, mu, joints, size, mu);
    return load_string(xml);
}


// n steps; GDN_OK or the first failure (printed); counts unconverged solves
static int run_steps(const gdnModel* m, gdnData* d, int n, int* unconverged) {
    for (int i = 0; i < n; i++) {
        gdnStatus status = gdn_step(m, d);
        if (status != GDN_OK) {
            fprintf(stderr, "step %d: %s\n", i, gdn_status_string(status));
            return 1;
        }
        if (unconverged && d->nefc > 0 && !d->solver_converged) {
            (*unconverged)++;
        }
    }
    return 0;
}


// the creep speed of the held block at impedance imp (header comment)
static double creep_speed(const gdnModel* m, double angle, double mu, int elliptic, double imp,
                          const gdnContact* c, int ncon) {
    double timeconst = fmax(c->solref[0], 2 * m->opt.timestep);
    double damping = 2 / (c->solimp[1] * timeconst);
    double soft = (1 - imp) / imp;
    double slope = GRAVITY * sin(angle);
    if (elliptic) {
        return slope * soft / (damping * ncon * m->opt.impratio);
    }
    return slope * (1 + mu * mu) * soft / (damping * ncon);
}


// a cube on a 10 degree incline with mu = 0.5 (friction angle 26.6 degrees) creeps at the
// predicted speed, both cones; every row quadratic (the premise of the prediction)
static int test_incline_held(void) {
    const double angle = 10 * PI / 180, mu = 0.5;
    for (int elliptic = 0; elliptic < 2; elliptic++) {
        gdnModel* m = block_model(angle, elliptic ? "elliptic" : "pyramidal", mu, 1,
                                  ".1 .1 .1");
        CHECK(m != NULL);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        gdn_data_reset(m, d);
        int unconverged = 0;
        CHECK(run_steps(m, d, 1000, &unconverged) == 0);
        double x0 = d->qpos[0], t0 = d->time;
        CHECK(run_steps(m, d, 500, &unconverged) == 0);
        double creep = (d->qpos[0] - x0) / (d->time - t0);
        CHECK(d->ncon == 4);
        for (int r = 0; r < d->nefc; r++) {
            CHECK(d->efc_state[r] == GDN_CNSTRSTATE_QUADRATIC);
        }
        const gdnContact* c = &d->contact[0];
        double fast = creep_speed(m, angle, mu, elliptic, c->solimp[0], c, d->ncon);
        double slow = creep_speed(m, angle, mu, elliptic, c->solimp[1], c, d->ncon);
        printf("  %s: creep %.6g m/s, predicted [%.6g, %.6g] (d in [dmax, dmin]); "
               "drift over 1 s %.3g mm; %d unconverged\n", elliptic ? "elliptic" : "pyramidal",
               creep, slow, fast, 1e3 * creep, unconverged);
        CHECK(creep >= slow * (1 - 1e-9) && creep <= fast * (1 + 1e-9));
        CHECK(fabs(d->qvel[0] - creep) <= 1e-6 * creep); // steady
        CHECK(unconverged == 0);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}


// per-step history of a translating block: x and z velocities, and whether every contact was
// in the elliptic cone state (1), some was not (0), or there was no contact (-1)
typedef struct slideHistory {
    int n;
    double* vx;
    double* vz;
    int* cone;
} slideHistory;

static int history_record(const gdnModel* m, gdnData* d, slideHistory* h, int steps,
                          int* unconverged) {
    h->n = steps + 1;
    h->vx = malloc(sizeof(double) * (size_t)h->n);
    h->vz = malloc(sizeof(double) * (size_t)h->n);
    h->cone = malloc(sizeof(int) * (size_t)h->n);
    if (!h->vx || !h->vz || !h->cone) {
        return 1;
    }
    h->vx[0] = d->qvel[0];
    h->vz[0] = d->qvel[2];
    h->cone[0] = -1;
    for (int i = 1; i <= steps; i++) {
        if (run_steps(m, d, 1, unconverged) != 0) {
            return 1;
        }
        h->vx[i] = d->qvel[0];
        h->vz[i] = d->qvel[2];
        int state = d->ncon ? 1 : -1;
        for (int c = 0; c < d->ncon; c++) {
            int row = d->contact[c].efc_address;
            if (row < 0 || d->efc_state[row] != GDN_CNSTRSTATE_CONE) {
                state = 0;
            }
        }
        h->cone[i] = state;
    }
    return 0;
}

static void history_free(slideHistory* h) {
    free(h->vx);
    free(h->vz);
    free(h->cone);
}


// the impulse balance dv_t + mu dv_n = g T (sin a - mu cos a) over steps (i0, i1] when every
// contact step there is in the cone state; relative residual, or -1 when the window is not
// all cone / free flight
static double impulse_residual(const slideHistory* h, int i0, int i1, double angle, double mu,
                               double h_step) {
    for (int i = i0 + 1; i <= i1; i++) {
        if (h->cone[i] == 0) {
            return -1;
        }
    }
    double T = h_step * (i1 - i0);
    double lhs = (h->vx[i1] - h->vx[i0]) + mu * (h->vz[i1] - h->vz[i0]);
    double rhs = GRAVITY * T * (sin(angle) - mu * cos(angle));
    return fabs(lhs - rhs) / fmax(fabs(rhs), GRAVITY * T * mu);
}


// above the friction angle (35 > 26.6 degrees) the block slides with g (sin a - mu cos a) in the
// sense of the impulse balance (to round-off) and on average (within the hop bound)
static int test_incline_slide(void) {
    const double angle = 35 * PI / 180, mu = 0.5;
    gdnModel* m = block_model(angle, "elliptic", mu, 0, ".2 .2 .05");
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    d->qpos[2] = -0.05; // resting on the floor (body at z = .1, half height .05)
    int unconverged = 0;
    slideHistory h;
    CHECK(history_record(m, d, &h, 1000, &unconverged) == 0);

    // the window: from the first step of a sliding (cone-state) contact to the end
    int start = -1;
    for (int i = 1; i <= 1000 && start < 0; i++) {
        if (h.cone[i] == 1) {
            start = i;
        }
    }
    CHECK(start > 0 && start < 500);
    int bad = 0;
    for (int i = start + 1; i <= 1000; i++) {
        bad += h.cone[i] == 0;
    }
    double dt = m->opt.timestep;
    double residual = impulse_residual(&h, start, 1000, angle, mu, dt);
    double T = dt * (1000 - start);
    double mean_acc = (h.vx[1000] - h.vx[start]) / T;
    double rigid = GRAVITY * (sin(angle) - mu * cos(angle));
    double vz_max = 0;
    for (int i = start; i <= 1000; i++) {
        vz_max = fmax(vz_max, fabs(h.vz[i]));
    }
    printf("  slide: sliding from step %d, %d later contact steps outside the cone state; "
           "impulse balance residual %.2g; mean acceleration %.5g vs g (sin a - mu cos a) = "
           "%.5g (bound mu 2 max|v_n| / T = %.3g); %d unconverged\n", start, bad, residual,
           mean_acc, rigid, 2 * mu * vz_max / T, unconverged);
    CHECK(bad == 0);
    CHECK(residual >= 0 && residual < 1e-9);
    CHECK(fabs(mean_acc - rigid) <= 2 * mu * vz_max / T + 1e-9);
    CHECK(unconverged == 0);
    history_free(&h);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}


// a block sent at 2 m/s along a flat floor: impulse balance dv_t = -mu (g T + dv_n) while
// sliding, and it stops after v0 / (mu g) and v0^2 / (2 mu g) within the hop's share
static int test_sliding_deceleration(void) {
    const double mu = 0.5, v0 = 2;
    gdnModel* m = block_model(0, "elliptic", mu, 0, ".2 .2 .05");
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_data_reset(m, d);
    d->qpos[2] = -0.05;
    int unconverged = 0;
    CHECK(run_steps(m, d, 100, &unconverged) == 0); // settle
    d->qvel[0] = v0;
    double x0 = d->qpos[0];
    slideHistory h;
    CHECK(history_record(m, d, &h, 400, &unconverged) == 0);

    // stop: first step with vx below 1% of v0 (the end of the cone-state sliding)
    int stop = -1;
    for (int i = 1; i <= 400 && stop < 0; i++) {
        if (h.vx[i] < 0.01 * v0) {
            stop = i;
        }
    }
    CHECK(stop > 0);
    int last_cone = 0;
    for (int i = 1; i <= stop; i++) {
        if (h.cone[i] == 1) {
            last_cone = i;
        }
    }
    double dt = m->opt.timestep;
    double residual = impulse_residual(&h, 0, last_cone, 0, mu, dt);
    double vz_max = 0;
    for (int i = 0; i <= stop; i++) {
        vz_max = fmax(vz_max, fabs(h.vz[i]));
    }
    double t_stop = dt * stop, t_rigid = v0 / (mu * GRAVITY);
    double x_stop = d->qpos[0] - x0, x_rigid = v0 * v0 / (2 * mu * GRAVITY);
    // the hop changes the normal impulse by at most m (max|v_n| + |v_n at the stop|), i.e. the
    // stopping time by mu 2 max|v_n| / (mu g); the 1% threshold and one step add v0 / 100 /
    // (mu g) + h
    double t_bound = 2 * vz_max / GRAVITY + 0.01 * v0 / (mu * GRAVITY) + dt;
    printf("  deceleration: impulse balance residual %.2g over %d sliding steps; stop after "
           "%.4f s (rigid %.4f, bound %.3g), %.4f m (rigid %.4f); %d unconverged\n", residual,
           last_cone, t_stop, t_rigid, t_bound, x_stop, x_rigid, unconverged);
    CHECK(residual >= 0 && residual < 1e-9);
    CHECK(fabs(t_stop - t_rigid) <= t_bound);
    CHECK(fabs(x_stop - x_rigid) <= v0 * t_bound);
    CHECK(fabs(d->qvel[0]) < 1e-4); // at rest
    CHECK(unconverged == 0);
    history_free(&h);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}


// the sliding speed of a sphere's contact point (the midpoint of the penetration): v_x -
// omega_y (z - z_contact); the sphere's speed when there is no contact
static double contact_slip(const gdnData* d) {
    double lever = d->ncon ? d->qpos[2] - d->contact[0].pos[2] : d->qpos[2];
    return d->qvel[0] - lever * d->qvel[4];
}


// a solid sphere (r = .1, I = 2/5 m r^2) sent at v0 without spin: friction decelerates it and
// spins it up until it rolls at 5/7 v0 (angular momentum about the contact point is conserved;
// the lever arm is r minus half the penetration, 1e-3 of r here). condim 3: condim 6 adds a
// rolling-friction torque that keeps slowing the rolling sphere, which is not the textbook
// problem; the rolling check is no slip at the contact point, v = omega (z - z_contact), after
// the transition and a speed that then stays
static int test_sphere_rolls(void) {
    const double mu = 0.5, v0 = 2, r = 0.1;
    for (int elliptic = 0; elliptic < 2; elliptic++) {
        char xml[1024];
        snprintf(xml, sizeof(xml),
                 "<mujoco><option cone='%s'/><worldbody>"
                 "<geom type='plane' size='10 10 .1' friction='%g'/>"
                 "<body pos='0 0 %g'><freejoint/>"
                 "<geom type='sphere' size='%g' mass='1' friction='%g' condim='3'/></body>"
                 "</worldbody></mujoco>", elliptic ? "elliptic" : "pyramidal", mu, r, r, mu);
        gdnModel* m = load_string(xml);
        CHECK(m != NULL);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        gdn_data_reset(m, d);
        int unconverged = 0;
        CHECK(run_steps(m, d, 100, &unconverged) == 0);
        d->qvel[0] = v0;
        double t0 = d->time, t_roll = -1;
        for (int i = 0; i < 500; i++) {
            CHECK(run_steps(m, d, 1, &unconverged) == 0);
            double slip = contact_slip(d);
            if (t_roll < 0 && fabs(slip) < 0.01 * v0) {
                t_roll = d->time - t0;
            }
        }
        double v_roll = d->qvel[0], slip = contact_slip(d);
        CHECK(run_steps(m, d, 250, &unconverged) == 0);
        double v_later = d->qvel[0];
        double t_rigid = 2 * v0 / (7 * mu * GRAVITY);
        printf("  %s: rolls (slip < 1%%) after %.4f s (rigid %.4f), v %.6f = %.6f v0 "
               "(5/7 = %.6f), slip %.2g, 0.5 s later v %.6f; %d unconverged\n",
               elliptic ? "elliptic" : "pyramidal", t_roll, t_rigid, v_roll, v_roll / v0,
               5.0 / 7.0, slip, v_later, unconverged);
        CHECK(fabs(v_roll / v0 - 5.0 / 7.0) < 2e-3);
        CHECK(fabs(slip) < 1e-3 * v0);
        CHECK(fabs(v_later - v_roll) < 1e-3 * v0);
        CHECK(t_roll > 0.8 * t_rigid && t_roll < 1.5 * t_rigid);
        CHECK(unconverged == 0);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}


// normal force of contact c (gdn_contact_force: the first row, or the pyramid's edge forces
// summed, each edge J_n +- mu J_t carrying its force along the normal)
static double normal_force(const gdnModel* m, const gdnData* d, int c) {
    double f[6];
    return gdn_contact_force(m, d, c, f) == GDN_OK ? f[0] : (double)NAN;
}


// at rest the floor's normal forces sum to the weight: one box (both cones) and the five-box
// stack (every box's weight reaches the floor); qfrc_constraint on the bottom z dof too
static int test_resting_weight(void) {
    for (int k = 0; k < 3; k++) {
        gdnModel* m = NULL;
        if (k < 2) {
            m = block_model(0, k ? "elliptic" : "pyramidal", 1, 1, ".1 .15 .05");
        } else {
            char err[1024];
            CHECK(gdn_load_xml(GDN_TEST_MODELS "/sol_stack.xml", &m, err, (int)sizeof(err), NULL,
                               0) == GDN_OK);
        }
        CHECK(m != NULL);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        gdn_data_reset(m, d);
        int unconverged = 0;
        CHECK(run_steps(m, d, 1500, &unconverged) == 0);
        double weight = 0, floor_force = 0;
        for (int b = 1; b < m->nbody; b++) {
            weight += m->body_mass[b] * GRAVITY;
        }
        for (int c = 0; c < d->ncon; c++) {
            if (d->contact[c].geom1 == 0 || d->contact[c].geom2 == 0) {
                floor_force += normal_force(m, d, c);
            }
        }
        // the bottom body's z dof (free joint: dof 2) carries the whole weight
        double qfrc_z = d->qfrc_constraint[2];
        printf("  %s: weight %.6f N, floor normal forces %.10f N (%d contacts), qfrc_constraint "
               "z %.10f; %d unconverged\n", k == 2 ? "five-box stack" : k ? "elliptic box"
                                                                     : "pyramidal box",
               weight, floor_force, d->ncon, qfrc_z, unconverged);
        CHECK(fabs(floor_force - weight) < 1e-6 * weight);
        if (k < 2) {
            CHECK(fabs(qfrc_z - weight) < 1e-6 * weight);
        }
        CHECK(unconverged == 0);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}

static const gdnTestCase cases[] = {
    {"incline_held", test_incline_held},
    {"incline_slide", test_incline_slide},
    {"sliding_deceleration", test_sliding_deceleration},
    {"sphere_rolls", test_sphere_rolls},
    {"resting_weight", test_resting_weight},
};

GDN_TEST_MAIN(cases)
