// SPDX-License-Identifier: Apache-2.0
// Closed-form references for Kamino's acceptance scenes (see kamino_reference.h).
#include "runner/kamino_reference.h"

#include <math.h>
#include <stddef.h>

#define KREF_PI 3.14159265358979323846

gdnKrefFourbar gdn_kref_fourbar_model(void) {
    gdnKrefFourbar fb = {KREF_FOURBAR_GROUND, KREF_FOURBAR_CRANK, KREF_FOURBAR_COUPLER,
                         KREF_FOURBAR_ROCKER};
    return fb;
}

int gdn_kref_fourbar_is_crank_rocker(const gdnKrefFourbar* fb) {
    // shortest and longest links, and the crank the shortest
    const double len[4] = {fb->ground, fb->crank, fb->coupler, fb->rocker};
    double s = len[0], l = len[0], sum = 0;
    for (int i = 0; i < 4; i++) {
        s = fmin(s, len[i]);
        l = fmax(l, len[i]);
        sum += len[i];
    }
    return fb->crank == s && s + l <= sum - s - l;
}

double gdn_kref_freudenstein_residual(const gdnKrefFourbar* fb, double theta2, double theta4) {
    const double a = fb->crank, b = fb->coupler, c = fb->rocker, d = fb->ground;
    const double k1 = d / a, k2 = d / c, k3 = (a * a - b * b + c * c + d * d) / (2 * a * c);
    return k1 * cos(theta4) - k2 * cos(theta2) + k3 - cos(theta2 - theta4);
}

// the angle of theta - ref wrapped into (-pi, pi]
static double wrap_near(double theta, double ref) {
    const double two_pi = 2 * KREF_PI;
    double d = fmod(theta - ref, two_pi);
    if (d > KREF_PI) {
        d -= two_pi;
    } else if (d <= -KREF_PI) {
        d += two_pi;
    }
    return d;
}

double gdn_kref_fourbar_output(const gdnKrefFourbar* fb, double theta2, double theta4_prev) {
    // Freudenstein as P cos(t4) + Q sin(t4) + R = 0 (cos(t2 - t4) expanded)
    const double a = fb->crank, b = fb->coupler, c = fb->rocker, d = fb->ground;
    const double k1 = d / a, k2 = d / c, k3 = (a * a - b * b + c * c + d * d) / (2 * a * c);
    const double P = k1 - cos(theta2), Q = -sin(theta2), R = k3 - k2 * cos(theta2);
    const double n = hypot(P, Q), ratio = -R / n;
    if (!(fabs(ratio) <= 1)) {
        return (double)NAN;
    }
    // the two roots phi +- acos(-R / n), phi = atan2(Q, P); the one nearest theta4_prev
    const double phi = atan2(Q, P), half = acos(ratio);
    const double d1 = wrap_near(phi + half, theta4_prev), d2 = wrap_near(phi - half, theta4_prev);
    return theta4_prev + (fabs(d1) <= fabs(d2) ? d1 : d2);
}

double gdn_kref_fourbar_coupler(const gdnKrefFourbar* fb, double theta2, double theta4) {
    // B - A = O4 + c e(t4) - a e(t2), O4 = (d, 0)
    const double bx = fb->ground + fb->rocker * cos(theta4) - fb->crank * cos(theta2);
    const double bz = fb->rocker * sin(theta4) - fb->crank * sin(theta2);
    return atan2(bz, bx);
}

double gdn_kref_slider_x(double r, double l, double e, double theta) {
    const double h = r * sin(theta) - e, s = l * l - h * h;
    return s >= 0 ? r * cos(theta) + sqrt(s) : (double)NAN;
}

void gdn_kref_free_fall(double z0, double g, double h, int n, double* v, double* z) {
    if (v) {
        *v = -n * g * h;
    }
    if (z) {
        *z = z0 - n * (n + 1) * g * h * h / 2.0;
    }
}

int gdn_kref_slide_stop_step(double v0, double mu, double g, double h) {
    return (int)ceil(v0 / (mu * g * h));
}

void gdn_kref_slide(double v0, double mu, double g, double h, int k, double* v, double* x) {
    const double dv = mu * g * h;
    const int kstop = gdn_kref_slide_stop_step(v0, mu, g, h);
    // moving steps 1..kp carry speed v0 - dv i; the stopping step and later add nothing
    const int kp = k < kstop ? k : kstop - 1;
    if (v) {
        *v = k < kstop ? v0 - dv * k : 0;
    }
    if (x) {
        *x = v0 * h * kp - dv * h * kp * (kp + 1) / 2.0;
    }
}

double gdn_kref_slide_stop_distance(double v0, double mu, double g) {
    return v0 * v0 / (2 * mu * g);
}

double gdn_kref_incline_accel(double theta, double mu, double g) {
    return tan(theta) <= mu ? 0 : g * (sin(theta) - mu * cos(theta));
}

double gdn_kref_roll_speed(double v0, double i_ratio) {
    return v0 / (1 + i_ratio);
}

double gdn_kref_roll_time(double v0, double mu, double g, double i_ratio) {
    // slip speed v - omega r falls at mu g (1 + 1 / i_ratio) from v0
    return v0 * i_ratio / (mu * g * (1 + i_ratio));
}

double gdn_kref_bounce_height(double e, double h) {
    return e * e * h;
}

double gdn_kref_stack_impulses(int n, double m, double g, double h, double* impulse) {
    double sum = 0;
    for (int k = 0; k < n; k++) {
        const double p = (n - k) * m * g * h;
        if (impulse) {
            impulse[k] = p;
        }
        sum += p;
    }
    return sum;
}

static double dist3(const double a[3], const double b[3]) {
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

void gdn_kref_creep_begin(gdnKrefCreep* c, int nstep, double h, double tail, const double p0[3]) {
    c->nstep = nstep;
    c->h = h;
    c->ktail = nstep - (int)lround(tail * nstep);
    for (int i = 0; i < 3; i++) {
        c->p0[i] = c->pt[i] = c->prev[i] = c->last[i] = p0[i];
    }
    c->speed = c->speed_max = c->drift = 0;
}

void gdn_kref_creep_sample(gdnKrefCreep* c, int k, const double p[3]) {
    // the tail's start, the per-step speeds inside the tail
    if (k == c->ktail) {
        for (int i = 0; i < 3; i++) {
            c->pt[i] = p[i];
        }
    }
    if (k > c->ktail) {
        c->speed_max = fmax(c->speed_max, dist3(p, c->prev) / c->h);
    }
    for (int i = 0; i < 3; i++) {
        c->prev[i] = c->last[i] = p[i];
    }
    if (k == c->nstep) {
        c->speed = dist3(p, c->pt) / ((c->nstep - c->ktail) * c->h);
        c->drift = dist3(p, c->p0);
    }
}
