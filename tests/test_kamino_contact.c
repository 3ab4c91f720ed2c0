// SPDX-License-Identifier: Apache-2.0
// Kamino contact scenes of kamino.md 6.3: sliding box (deceleration mu g, stopping distance),
// zero-friction slide, incline hold (no creep, against gdn_step's soft contact) and slide, sphere
// slide-to-roll at 5/7 v0, bounce height e^2 h, a five-box stack's impulses.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "runner/test.h"

static char g_err[2048];

typedef struct Scene {
    gdnModel* m;
    gdnKaminoModel* km;
    gdnKaminoData* kd;
    gdnKaminoWorld* w;
} Scene;

static int scene_open(Scene* s, const char* xml, double tol) {
    memset(s, 0, sizeof(*s));
    if (gdn_load_xml_string(xml, strlen(xml), NULL, &s->m, g_err, sizeof(g_err), NULL, 0) !=
        GDN_OK) {
        fprintf(stderr, "load: %s\n", g_err);
        return 1;
    }
    gdnKaminoSettings st;
    gdn_kamino_settings_default(&st);
    st.restitution = s->m->opt.kamino_restitution;
    st.tol_primal = st.tol_dual = st.tol_compl = tol;
    st.max_iterations = 1000;
    if (gdn_kamino_model_create(s->m, &st, &s->km, g_err, sizeof(g_err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "kamino: %s\n", g_err);
        return 1;
    }
    if (gdn_kamino_data_create(s->km, 1, &s->kd) != GDN_OK) {
        return 1;
    }
    s->w = gdn_kamino_world(s->kd, 0);
    return 0;
}

static void scene_close(Scene* s) {
    gdn_kamino_data_free(s->kd);
    gdn_kamino_model_free(s->km);
    gdn_model_free(s->m);
}

#define BOX_ON_PLANE(mu, gravity)                                                            \
    "<mujoco><option timestep=\"0.001\" gravity=\"" gravity "\"/><worldbody>"                \
    "<geom type=\"plane\" size=\"5 5 0.1\" friction=\"" mu " 0 0\"/>"                         \
    "<body pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\" "   \
    "friction=\"" mu " 0 0\"/></body></worldbody></mujoco>"

// v_k = v0 - mu g h k until the stop at k* = ceil(v0 / (mu g h)); x_k = v0 h k - mu g h^2 k (k+1)/2
static int test_sliding_box(void) {
    Scene s;
    CHECK(scene_open(&s, BOX_ON_PLANE("0.5", "0 0 -9.81"), 1e-10) == 0);
    double v0 = 1.0, mu = 0.5, g = 9.81, h = 0.001;
    // settle, then launch
    for (int k = 0; k < 10; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
    }
    s.w->body_u[6] = v0;
    double x0 = s.w->body_pos[3], verr = 0, xerr = 0;
    int kstar = (int)ceil(v0 / (mu * g * h));
    for (int k = 1; k <= kstar + 200; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        int kk = k < kstar ? k : kstar;
        double v = k < kstar ? v0 - mu * g * h * k : 0;
        double x = v0 * h * kk - mu * g * h * h * kk * (kk + 1) / 2;
        if (k >= kstar) {
            x = v0 * h * (kstar - 1) - mu * g * h * h * (kstar - 1) * kstar / 2;
        }
        verr = fmax(verr, fabs(s.w->body_u[6] - v));
        xerr = fmax(xerr, fabs(s.w->body_pos[3] - x0 - x));
    }
    printf("  sliding box: mu 0.5, v0 1: max |v - v_k| = %.3g m/s, max |x - x_k| = %.3g m, "
           "stop at %.6f m (v0^2 / 2 mu g = %.6f)\n",
           verr, xerr, s.w->body_pos[3] - x0, v0 * v0 / (2 * mu * g));
    CHECK(verr <= 1e-8); // kamino.md 6.3: 1e-4, 1e-5
    CHECK(xerr <= 1e-8);
    scene_close(&s);
    return 0;
}

// without friction the tangential momentum is kept exactly
static int test_zero_friction(void) {
    Scene s;
    CHECK(scene_open(&s, BOX_ON_PLANE("0", "0 0 -9.81"), 1e-10) == 0);
    for (int k = 0; k < 10; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
    }
    s.w->body_u[6] = 1.0;
    s.w->body_u[7] = -0.5;
    double err = 0;
    for (int k = 0; k < 1000; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        err = fmax(err, fmax(fabs(s.w->body_u[6] - 1.0), fabs(s.w->body_u[7] + 0.5)));
    }
    printf("  zero friction: max tangential velocity change over 1000 steps %.3g m/s\n", err);
    CHECK(err <= 1e-12); // kamino.md 6.3: 1e-6
    scene_close(&s);
    return 0;
}

// the incline by a tilted gravity (angle th about y): hold iff tan th <= mu, else a = g (sin th -
// mu cos th); the hold measured against gdn_step (MuJoCo's soft contact) on the same scene
static int test_incline(void) {
    double g = 9.81, mu = 0.5, th_hold = 0.4, th_slide = 0.6; // tan 0.4 = 0.42, tan 0.6 = 0.68
    char xml[1024], grav[128];
    double speed_k = 0, speed_mj = 0;
    for (int c = 0; c < 2; c++) {
        double th = c ? th_slide : th_hold;
        snprintf(grav, sizeof(grav), "%.17g 0 %.17g", g * sin(th), -g * cos(th));
        snprintf(xml, sizeof(xml),
                 "<mujoco><option timestep=\"0.001\" gravity=\"%s\"/><worldbody>"
                 "<geom type=\"plane\" size=\"5 5 0.1\" friction=\"0.5 0 0\"/>"
                 "<body pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
                 "mass=\"1\" friction=\"0.5 0 0\"/></body></worldbody></mujoco>",
                 grav);
        Scene s;
        CHECK(scene_open(&s, xml, 1e-10) == 0);
        double x0 = s.w->body_pos[3];
        int n = 1000;
        for (int k = 0; k < n; k++) {
            CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
            if (!c && k >= 100) {
                speed_k = fmax(speed_k, fabs(s.w->body_u[6]));
            }
        }
        if (!c) {
            // MuJoCo's soft contact on the same file (gdn_step, its default solver settings)
            gdnData* d = NULL;
            CHECK(gdn_data_create(s.m, &d) == GDN_OK);
            for (int k = 0; k < n; k++) {
                CHECK(gdn_step(s.m, d) == GDN_OK);
                if (k >= 100) {
                    speed_mj = fmax(speed_mj, fabs(d->qvel[0]));
                }
            }
            printf("  incline hold (tan th %.3f <= mu %.2f): kamino max speed %.3g m/s, "
                   "gdn_step (soft) %.3g m/s, kamino displacement %.3g m\n",
                   tan(th), mu, speed_k, speed_mj, fabs(s.w->body_pos[3] - x0));
            gdn_data_free(d);
            CHECK(speed_k <= 1e-9);
        } else {
            double a = g * (sin(th) - mu * cos(th)), t = n * 0.001;
            double v = s.w->body_u[6], vexp = a * t;
            double x = s.w->body_pos[3] - x0, xexp = a * 0.001 * 0.001 * n * (n + 1) / 2;
            printf("  incline slide (tan th %.3f > mu): v %.6f (a t = %.6f), x %.6f (%.6f)\n",
                   tan(th), v, vexp, x, xexp);
            CHECK(fabs(v - vexp) <= 2e-3);
            CHECK(fabs(x - xexp) <= 2e-4);
        }
        scene_close(&s);
    }
    return 0;
}

// a solid sphere launched without spin: rolls at 5/7 v0, speed never increasing
static int test_slide_to_roll(void) {
    Scene s;
    const char* xml = "<mujoco><option timestep=\"0.001\"/><worldbody>"
                      "<geom type=\"plane\" size=\"5 5 0.1\" friction=\"0.3 0 0\"/>"
                      "<body pos=\"0 0 0.1\"><freejoint/><geom type=\"sphere\" size=\"0.1\" "
                      "mass=\"1\" friction=\"0.3 0 0\"/></body></worldbody></mujoco>";
    CHECK(scene_open(&s, xml, 1e-10) == 0);
    for (int k = 0; k < 10; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
    }
    double v0 = 2.0, r = 0.1, prev = v0;
    s.w->body_u[6] = v0;
    double rise = 0;
    for (int k = 0; k < 2000; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        double v = s.w->body_u[6];
        rise = fmax(rise, v - prev);
        prev = v;
    }
    double v = s.w->body_u[6], slip = v - s.w->body_u[10] * r;
    printf("  slide to roll: v %.8f (5/7 v0 = %.8f), slip v - w r = %.3g, largest one-step "
           "speed increase %.3g m/s\n", v, 5.0 / 7 * v0, slip, rise);
    CHECK(fabs(v - 5.0 / 7 * v0) <= 1e-4);
    CHECK(fabs(slip) <= 1e-5);
    CHECK(rise <= 1e-9);
    scene_close(&s);
    return 0;
}

// apex after the first bounce against e^2 h_drop
static int bounce(double e, double* ratio) {
    char xml[1024];
    snprintf(xml, sizeof(xml),
             "<mujoco><option timestep=\"0.0005\"/><custom><numeric name=\"kamino_restitution\" "
             "data=\"%g\"/></custom><worldbody>"
             "<geom type=\"plane\" size=\"5 5 0.1\"/>"
             "<body pos=\"0 0 1.1\"><freejoint/><geom type=\"sphere\" size=\"0.1\" "
             "mass=\"1\"/></body></worldbody></mujoco>",
             e);
    Scene s;
    CHECK(scene_open(&s, xml, 1e-10) == 0);
    double apex = 0;
    int bounced = 0;
    for (int k = 0; k < 6000; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        if (s.w->ncontact) {
            bounced = 1;
        }
        if (bounced && !s.w->ncontact) {
            apex = fmax(apex, s.w->body_pos[5] - 0.1);
            if (s.w->body_u[8] < 0) {
                break;
            }
        }
    }
    *ratio = apex / 1.0;
    scene_close(&s);
    return 0;
}

static int test_bounce(void) {
    double r5, r8;
    CHECK(bounce(0.5, &r5) == 0);
    CHECK(bounce(0.8, &r8) == 0);
    printf("  bounce: apex / drop = %.4f (e 0.5: %.4f), %.4f (e 0.8: %.4f), ratio %.3f (2.56)\n",
           r5, 0.25, r8, 0.64, r8 / r5);
    CHECK(fabs(r5 / 0.25 - 1) <= 0.02); // kamino.md 6.3: 1-3 %
    CHECK(fabs(r8 / 0.64 - 1) <= 0.02);
    return 0;
}

// five 1 kg boxes: the ground carries 5 m g h per step, all normal impulses sum to 15 m g h
static int test_stack(void) {
    char xml[4096];
    int n = snprintf(xml, sizeof(xml),
                     "<mujoco><option timestep=\"0.001\"/><worldbody>"
                     "<geom type=\"plane\" size=\"5 5 0.1\"/>");
    for (int b = 0; b < 5; b++) {
        n += snprintf(xml + n, sizeof(xml) - (size_t)n,
                      "<body pos=\"0 0 %.3f\"><freejoint/><geom type=\"box\" "
                      "size=\"0.1 0.1 0.1\" mass=\"1\"/></body>",
                      0.1 + 0.2 * b);
    }
    snprintf(xml + n, sizeof(xml) - (size_t)n, "</worldbody></mujoco>");
    Scene s;
    CHECK(scene_open(&s, xml, 1e-8) == 0);
    double mgh = 9.81 * 0.001, ground = 0, total = 0, it = 0;
    int steps = 500, unconv = 0;
    for (int k = 0; k < steps; k++) {
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        it += s.w->status.iterations;
        unconv += !s.w->status.converged;
    }
    for (int c = 0; c < s.w->ncontact; c++) {
        double ln = s.w->contact[c].force[2] * 0.001;
        total += ln;
        if (s.w->contact[c].body1 == 0 || s.w->contact[c].body2 == 0) {
            ground += ln;
        }
    }
    printf("  five-box stack after %d steps: %d contacts, ground %.5f m g h (5), total %.5f m g h "
           "(15), top box z drift %.3g m, %.1f it/step, %d unconverged\n",
           steps, s.w->ncontact, ground / mgh, total / mgh, s.w->body_pos[3 * 5 + 2] - 0.9,
           it / steps, unconv);
    CHECK(fabs(ground / mgh - 5) <= 5e-3); // kamino.md 6.3: 2 %
    CHECK(fabs(total / mgh - 15) <= 15e-3);
    CHECK(unconv == 0);
    scene_close(&s);
    return 0;
}

// a box pinched between two sliding jaws pressed together (10 N each, mu 0.5 against 0.98 N of
// weight): held without creep, measured against gdn_step's soft contact on the same scene
static int test_pinch(void) {
    const char* xml =
        "<mujoco><option timestep=\"0.001\"/><worldbody>"
        "<body name=\"left\" pos=\"-0.1 0 1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
        "<geom type=\"box\" size=\"0.05 0.05 0.05\" mass=\"1\" friction=\"0.5 0 0\"/></body>"
        "<body name=\"right\" pos=\"0.1 0 1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
        "<geom type=\"box\" size=\"0.05 0.05 0.05\" mass=\"1\" friction=\"0.5 0 0\"/></body>"
        "<body name=\"held\" pos=\"0 0 1\"><freejoint/>"
        "<geom type=\"box\" size=\"0.05 0.04 0.04\" mass=\"0.1\" friction=\"0.5 0 0\"/></body>"
        "</worldbody><contact><exclude body1=\"left\" body2=\"right\"/></contact></mujoco>";
    Scene s;
    CHECK(scene_open(&s, xml, 1e-10) == 0);
    int left = gdn_name2id(s.m, "body", "left"), right = gdn_name2id(s.m, "body", "right");
    int held = gdn_name2id(s.m, "body", "held");
    double vk = 0, z0 = s.w->body_pos[3 * held + 2];
    int n = 1000;
    for (int k = 0; k < n; k++) {
        s.w->xfrc_applied[6 * left] = 10;
        s.w->xfrc_applied[6 * right] = -10;
        CHECK(gdn_kamino_step(s.km, s.kd) == GDN_OK);
        CHECK(s.w->status.converged);
        if (k >= 100) {
            vk = fmax(vk, fabs(s.w->body_u[6 * held + 2]));
        }
    }
    double dz = s.w->body_pos[3 * held + 2] - z0;
    gdnData* d = NULL;
    CHECK(gdn_data_create(s.m, &d) == GDN_OK);
    double vm = 0;
    for (int k = 0; k < n; k++) {
        d->xfrc_applied[6 * left] = 10;
        d->xfrc_applied[6 * right] = -10;
        CHECK(gdn_step(s.m, d) == GDN_OK);
        if (k >= 100) {
            vm = fmax(vm, fabs(d->qvel[2 + 2])); // the free joint's z velocity (after 2 slides)
        }
    }
    printf("  pinch: held box vertical speed kamino %.3g m/s (drop %.3g m over 1 s), gdn_step "
           "(soft) %.3g m/s, %d contacts\n",
           vk, dz, vm, s.w->ncontact);
    CHECK(vk <= 1e-9);
    gdn_data_free(d);
    scene_close(&s);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"sliding_box", test_sliding_box}, {"zero_friction", test_zero_friction},
        {"incline", test_incline},         {"slide_to_roll", test_slide_to_roll},
        {"bounce", test_bounce},           {"stack", test_stack},
        {"pinch", test_pinch},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
