// SPDX-License-Identifier: Apache-2.0
// Kamino on the two-leg Jansen walker (tests/models/kamino_mech_leg.xml, 6 loop closures):
// standing on its feet at ctrl 0, stepping toward -x at ctrl > 0 with the stride the linkage
// geometry predicts, and MuJoCo 2.2.2's soft model walking the same way (issue 10).
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "runner/kamino_mujoco.h"
#include "runner/test.h"

static char g_err[2048];

static const double kPi = 3.14159265358979323846;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static gdnModel* load(void) {
    char path[512];
    snprintf(path, sizeof(path), "%s/kamino_mech_leg.xml", GDN_TEST_MODELS);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, g_err);
        return NULL;
    }
    return m;
}

static int cmp_int(const void* a, const void* b) {
    return *(const int*)a - *(const int*)b;
}

// ---- the linkage geometry of scripts/kamino_leg_model.py (x-z plane, crank axle at the origin,
// angles counterclockwise about -y: the hinges' positive sense), for the predictions

typedef struct P2 {
    double x, z;
} P2;

// Jansen's link lengths (his 'holy numbers' x 0.01 m), the script's a..m
static const double kA = 0.38, kB = 0.415, kC = 0.393, kD = 0.401, kE = 0.558, kF = 0.394,
                    kG = 0.367, kH = 0.657, kI = 0.49, kJ = 0.50, kK = 0.619, kL = 0.078,
                    kM = 0.15;
static const double kSole = 0.02; // the sole spheres' radius

// the two intersections of the circles (p1, r1) and (p2, r2): s[0] left of p1 -> p2, s[1] right
static void circles(P2 p1, double r1, P2 p2, double r2, P2 s[2]) {
    const double dx = p2.x - p1.x, dz = p2.z - p1.z, d = hypot(dx, dz);
    const double x = (r1 * r1 - r2 * r2 + d * d) / (2 * d), hh = sqrt(r1 * r1 - x * x);
    const double ex = dx / d, ez = dz / d;
    s[0] = (P2){p1.x + x * ex - hh * ez, p1.z + x * ez + hh * ex};
    s[1] = (P2){p1.x + x * ex + hh * ez, p1.z + x * ez - hh * ex};
}

// one leg at crank angle th: the foot point G (the sole's centre) and the foot link's angle
// (the direction F -> G), with the script's choice of intersections
static void leg(double th, P2* foot, double* foot_angle) {
    const P2 pv = {-kA, -kL}, a = {kM * cos(th), kM * sin(th)};
    P2 s[2];
    circles(a, kJ, pv, kB, s);
    const P2 c = s[0].z > s[1].z ? s[0] : s[1];
    circles(a, kK, pv, kC, s);
    const P2 d = s[0].z < s[1].z ? s[0] : s[1];
    circles(pv, kD, c, kE, s);
    const P2 e = s[0].x < s[1].x ? s[0] : s[1];
    circles(e, kF, d, kG, s);
    const P2 f = s[0].x < s[1].x ? s[0] : s[1];
    circles(f, kH, d, kI, s);
    const P2 g = s[0].z < s[1].z ? s[0] : s[1];
    *foot = g;
    *foot_angle = atan2(g.z - f.z, g.x - f.x);
}

// what the geometry predicts for a walker whose lower foot sticks to the floor: th0 the crank
// angle of the file (both feet at one height: the handover of support), the carriage's travel
// per half turn (one stance, -x), the band of the chassis height above its initial one
typedef struct Gait {
    double th0;
    double half_stride; // m per half turn of the crank
    double foot_travel; // the stance foot's x travel relative to the chassis (m)
    double roll;        // the sole's rolling contribution r * (foot link rotation) (m)
    double lift_lo;     // lift_z ranges over [lift_lo, bob] (lift_lo is 0) (m)
    double bob;
} Gait;

static double foot_dz(double t) {
    P2 g0, g1;
    double a;
    leg(t, &g0, &a);
    leg(t + kPi, &g1, &a);
    return g0.z - g1.z;
}

static Gait gait(void) {
    Gait gt;
    // the script's bisection for the crossing in (80, 115) degrees
    double lo = 80 * kPi / 180, hi = 115 * kPi / 180;
    for (int it = 0; it < 80; it++) {
        const double mid = 0.5 * (lo + hi);
        if (foot_dz(lo) * foot_dz(mid) <= 0) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    gt.th0 = 0.5 * (lo + hi);
    // leg 0 stands (is the lower foot) for crank angles th0 + (pi, 2 pi): its foot moves +x
    // relative to the chassis and the link turns; a sphere rolling without slip moves its centre
    // by -r dphi in x (the angle counted about -y), so the chassis moves by
    // -(foot travel + r dphi) per stance
    P2 g_on, g_off;
    double a_on, a_off;
    leg(gt.th0 + kPi, &g_on, &a_on);
    leg(gt.th0 + 2 * kPi, &g_off, &a_off);
    gt.foot_travel = g_off.x - g_on.x;
    gt.roll = kSole * (a_off - a_on);
    gt.half_stride = gt.foot_travel + gt.roll;
    // the chassis height over a turn: the lower foot's depth below the axle, less the start's
    // (at th0, the handover, the lower foot is at its highest: the band starts at 0)
    double z0 = 0, lo_lift = INFINITY, hi_lift = -INFINITY;
    for (int k = 0; k <= 2000; k++) {
        P2 g0, g1;
        double a;
        leg(gt.th0 + kPi * k / 1000, &g0, &a);
        leg(gt.th0 + kPi + kPi * k / 1000, &g1, &a);
        const double low = fmin(g0.z, g1.z);
        z0 = k ? z0 : low;
        lo_lift = fmin(lo_lift, z0 - low);
        hi_lift = fmax(hi_lift, z0 - low);
    }
    gt.lift_lo = lo_lift;
    gt.bob = hi_lift;
    return gt;
}

// ---- Kamino runs of the walker

// what one run measured
typedef struct LegRun {
    double fn_mean;                   // mean of the summed contact normal forces (N)
    double fn_tail_min, fn_tail_max;  // their range over the last second (N)
    double lift_min, lift_max;        // lift_z qpos over the run (m)
    double lift_tail;                 // max - min of lift_z over the last second (m)
    double rail_tail;                 // |rail_x change| over the last second (m)
    double rail_v_tail;               // max |rail_x qvel| over the last second (m/s)
    double rail_x;                    // rail_x at the end (m)
    double crank;                     // crank angle turned, unwrapped (rad)
    double rail_half[8];              // rail_x when the crank has turned k pi, k = 1..
    int nhalf;                        // half turns completed
    double slip;                      // sum over loaded contacts of |tangential v| h (m)
    double closure_max;               // largest loop closure error (m)
    double closure_first, closure_second; // its max over the run's first and second half
    double power;                     // the crank servo's mean power kv (ctrl - w) w (W)
    int nstep, unconverged, median_it, max_it, flight;
    double us_per_step;
} LegRun;

// the velocity of the point p of body b (world), from the body's twist
static void point_velocity(const gdnKaminoWorld* w, int b, const double p[3], double v[3]) {
    const double* u = w->body_u + 6 * b;
    const double* c = w->body_pos + 3 * b;
    const double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    v[0] = u[0] + u[4] * r[2] - u[5] * r[1];
    v[1] = u[1] + u[5] * r[0] - u[3] * r[2];
    v[2] = u[2] + u[3] * r[1] - u[4] * r[0];
}

// duration seconds from the file's initial state with ctrl, PADMM at tolerance 1e-8 (the
// default settings otherwise)
static int leg_run(const gdnModel* m, double ctrl, double duration, LegRun* r) {
    memset(r, 0, sizeof(*r));
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.tol_primal = s.tol_dual = s.tol_compl = 1e-8;
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    const double h = m->opt.timestep;
    const int n = (int)lround(duration / h), tail = (int)lround(1.0 / h);
    const int jlift = gdn_name2id(m, "joint", "lift_z"), jrail = gdn_name2id(m, "joint", "rail_x");
    const int jcrank = gdn_name2id(m, "joint", "crank");
    CHECK(jlift >= 0 && jrail >= 0 && jcrank >= 0);
    const int qlift = m->jnt_qposadr[jlift], qrail = m->jnt_qposadr[jrail];
    const int vrail = m->jnt_dofadr[jrail], qcrank = m->jnt_qposadr[jcrank];
    const int vcrank = m->jnt_dofadr[jcrank];
    const double kv = m->actuator_gainprm[0]; // the velocity servo: kv (ctrl - w)
    int* its = malloc(sizeof(int) * (size_t)n);
    CHECK(its);
    r->nstep = n;
    r->lift_min = r->lift_max = w->qpos[qlift];
    r->fn_tail_min = INFINITY;
    r->fn_tail_max = -INFINITY;
    double tail_lo = INFINITY, tail_hi = -INFINITY, fsum = 0, rail_tail0 = 0;
    double prev = w->qpos[qcrank], prev_rail = w->qpos[qrail];
    const double t0 = now_s();
    for (int k = 0; k < n; k++) {
        w->ctrl[0] = ctrl;
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        its[k] = w->status.iterations;
        r->unconverged += !w->status.converged;
        // the contacts: summed normal force, the slip of the loaded ones (the contact point's
        // tangential velocity after the step, which the hard contact holds at 0 when it sticks)
        double fn = 0;
        for (int c = 0; c < w->ncontact; c++) {
            const gdnKaminoContact* ct = w->contact + c;
            fn += ct->force[2];
            if (ct->force[2] > 0) {
                double v[3];
                point_velocity(w, ct->body2 ? ct->body2 : ct->body1, ct->pos, v);
                const double* t = ct->frame;
                const double v0 = v[0] * t[0] + v[1] * t[1] + v[2] * t[2];
                const double v1 = v[0] * t[3] + v[1] * t[4] + v[2] * t[5];
                r->slip += hypot(v0, v1) * h;
            }
        }
        fsum += fn;
        r->flight += fn == 0;
        r->power += kv * (ctrl - w->qvel[vcrank]) * w->qvel[vcrank] / n;
        const double z = w->qpos[qlift];
        r->lift_min = fmin(r->lift_min, z);
        r->lift_max = fmax(r->lift_max, z);
        // the crank angle unwrapped (each step's change taken in [-pi, pi)); the rail position
        // where it passes k pi, interpolated linearly within the step
        double d = w->qpos[qcrank] - prev;
        d -= 2 * kPi * floor((d + kPi) / (2 * kPi));
        const double before = r->crank;
        r->crank += d;
        prev = w->qpos[qcrank];
        const double target = kPi * (r->nhalf + 1);
        if (r->nhalf < 8 && before < target && r->crank >= target) {
            const double f = (target - before) / (r->crank - before);
            r->rail_half[r->nhalf++] = prev_rail + f * (w->qpos[qrail] - prev_rail);
        }
        prev_rail = w->qpos[qrail];
        const double e = gdn_kamino_connect_error(km, w);
        r->closure_max = fmax(r->closure_max, e);
        if (k < n / 2) {
            r->closure_first = fmax(r->closure_first, e);
        } else {
            r->closure_second = fmax(r->closure_second, e);
        }
        if (k == n - tail - 1) {
            rail_tail0 = w->qpos[qrail];
        }
        if (k >= n - tail) {
            tail_lo = fmin(tail_lo, z);
            tail_hi = fmax(tail_hi, z);
            r->fn_tail_min = fmin(r->fn_tail_min, fn);
            r->fn_tail_max = fmax(r->fn_tail_max, fn);
            r->rail_v_tail = fmax(r->rail_v_tail, fabs(w->qvel[vrail]));
        }
    }
    r->us_per_step = 1e6 * (now_s() - t0) / n;
    r->fn_mean = fsum / n;
    r->lift_tail = tail_hi - tail_lo;
    r->rail_x = w->qpos[qrail];
    r->rail_tail = fabs(r->rail_x - rail_tail0);
    qsort(its, (size_t)n, sizeof(int), cmp_int);
    r->median_it = its[n / 2];
    r->max_it = its[n - 1];
    free(its);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    return 0;
}

// the weight the feet carry: the carriage slides on a rail fixed to the world (its joint takes
// its weight), the chassis slides vertically on it with nothing but the feet below it, so the
// feet carry the chassis and everything on it (MJCF body "chassis" and its subtree)
static double carried_weight(const gdnModel* m, double* all) {
    const int chassis = gdn_name2id(m, "body", "chassis");
    double carried = 0, total = 0;
    for (int b = 1; b < m->nbody; b++) {
        int a = b;
        while (a > 0 && a != chassis) {
            a = m->body_parentid[a];
        }
        total += m->body_mass[b];
        carried += a == chassis ? m->body_mass[b] : 0;
    }
    const double g = sqrt(m->opt.gravity[0] * m->opt.gravity[0] +
                          m->opt.gravity[1] * m->opt.gravity[1] +
                          m->opt.gravity[2] * m->opt.gravity[2]);
    *all = total * g;
    return carried * g;
}

// the C geometry reproduces the file: at the initial state each sole's centre sits where leg()
// puts it relative to the crank axle (the model's positions are exact to 1e-12 m)
static int test_geometry(void) {
    gdnModel* m = load();
    CHECK(m);
    const Gait gt = gait();
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    const int crank = gdn_name2id(m, "body", "crank");
    const double zero[3] = {0, 0, 0};
    double axle[3];
    gdn_kamino_body_point(km, w, crank, zero, axle);
    for (int n = 0; n < 2; n++) {
        char name[16];
        snprintf(name, sizeof(name), "sole%d", n);
        const int g = gdn_name2id(m, "geom", name);
        CHECK(g >= 0);
        double p[3];
        gdn_kamino_body_point(km, w, m->geom_bodyid[g], m->geom_pos + 3 * g, p);
        P2 foot;
        double a;
        leg(gt.th0 + n * kPi, &foot, &a);
        CHECK_NEAR(p[0] - axle[0], foot.x, 0, 1e-9);
        CHECK_NEAR(p[2] - axle[2], foot.z, 0, 1e-9);
        // both soles touch the floor (z = 0) at the start
        CHECK_NEAR(p[2], kSole, 0, 1e-9);
    }
    printf("  geometry: crossing th0 %.9f rad, stance foot travel %.6f m + rolling %.6f m = %.6f "
           "m per half turn (%.6f m per turn), chassis height band [%.3g, %.6f] m\n",
           gt.th0, gt.foot_travel, gt.roll, gt.half_stride, 2 * gt.half_stride, gt.lift_lo,
           gt.bob);
    // the file's crossing angle (its header comment, 9 decimals) and a band that starts at 0
    CHECK_NEAR(gt.th0, 1.662036212, 0, 1e-9);
    CHECK(fabs(gt.lift_lo) < 1e-12);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// standing: ctrl 0 (the velocity servo holds the crank) for 2 s from the file's state
static int test_standing(void) {
    gdnModel* m = load();
    CHECK(m);
    LegRun r;
    CHECK(leg_run(m, 0, 2.0, &r) == 0);
    double all;
    const double weight = carried_weight(m, &all);
    printf("  standing 2 s at ctrl 0: contact normal force mean %.9g N (%+.3g N), last second "
           "[%.9g, %.9g] N; carried weight %.9g N (all bodies %.6g N); lift_z range [%.3g, "
           "%.3g] m, drift over the last second %.3g m; rail_x %.3g m at the end, last second "
           "|dx| %.3g m, |v| <= %.3g m/s; contact slip %.3g m; closure <= %.3g m; PADMM median "
           "%d iterations (max %d), %d of %d unconverged; %.0f us/step\n",
           r.fn_mean, r.fn_mean - weight, r.fn_tail_min, r.fn_tail_max, weight, all, r.lift_min,
           r.lift_max, r.lift_tail, r.rail_x, r.rail_tail, r.rail_v_tail, r.slip, r.closure_max,
           r.median_it, r.max_it, r.unconverged, r.nstep, r.us_per_step);
    // momentum balance of the chassis subtree: mean normal force = M g + dP_z / T. It starts at
    // rest and stays at rest (the drift below), so dP_z / T < 7 kg * 1e-8 m/s / 2 s; what is
    // left is PADMM's primal tolerance (1e-8 N s per row, / h = 5e-6 N): 1e-6 relative is 1e3
    // times that, and far below the carriage's 4.9 N the feet must not carry
    CHECK_NEAR(r.fn_mean, weight, 1e-6, 0);
    CHECK_NEAR(r.fn_tail_min, weight, 1e-6, 0);
    CHECK_NEAR(r.fn_tail_max, weight, 1e-6, 0);
    // the chassis height: hard contact, no settling beyond the Baumgarte deadzone (1e-6 m);
    // over the last second the height moves by less than the dual tolerance's 1e-8 m/s * 1 s
    // allowed 10 times
    CHECK(r.lift_min > -1e-6 && r.lift_max < 1e-6);
    CHECK(r.lift_tail < 1e-7);
    // the feet stick: no sliding but PADMM's velocity-level tolerance (1e-8 m/s); allowed 10
    // times (measured ~1.3e-8 m/s). MuJoCo's soft contact first gives way by ~0.2 mm in x, then
    // holds (test mujoco prints it)
    CHECK(r.rail_v_tail < 1e-7);
    CHECK(r.rail_tail < 1e-7);
    CHECK(fabs(r.rail_x) < 1e-6);
    // the crank held by the servo, the loops closed
    CHECK(r.closure_max < 1e-8);
    CHECK(r.unconverged <= r.nstep / 100);
    gdn_model_free(m);
    return 0;
}

// stepping at ctrl rad/s for duration s: the crank turns, the walker moves toward -x by the
// stride the geometry predicts per half turn, the chassis stays in its band, the loops closed
static int stepping(double ctrl, double duration, int min_half, LegRun* out) {
    gdnModel* m = load();
    CHECK(m);
    const Gait gt = gait();
    LegRun r;
    CHECK(leg_run(m, ctrl, duration, &r) == 0);
    if (out) {
        *out = r;
    }
    printf("  stepping %.1f s at ctrl %g rad/s: crank %.4f rad (ctrl t %.4f: slip %.2f%%, servo "
           "power %.3g W), rail_x %.4f m, %.4f m per turn over the run; lift_z in [%.4g, %.4g] "
           "m (kinematic [0, %.4g]); closure max %.3g m (first half %.3g, second %.3g); contact "
           "slip %.3g m; %d steps without load on the feet; PADMM median %d iterations (max "
           "%d), %d of %d unconverged; %.0f us/step\n",
           duration, ctrl, r.crank, ctrl * duration, 100 * (1 - r.crank / (ctrl * duration)),
           r.power, r.rail_x, -r.rail_x * 2 * kPi / r.crank, r.lift_min, r.lift_max, gt.bob,
           r.closure_max, r.closure_first, r.closure_second, r.slip, r.flight, r.median_it,
           r.max_it, r.unconverged, r.nstep, r.us_per_step);
    for (int k = 0; k < r.nhalf; k++) {
        const double prev = k ? r.rail_half[k - 1] : 0;
        printf("    half turn %d: rail_x %.5f m, moved %.5f m (geometry %.5f m, %+.2f%%)\n", k + 1,
               r.rail_half[k], r.rail_half[k] - prev, -gt.half_stride,
               100 * ((prev - r.rail_half[k]) / gt.half_stride - 1));
    }
    CHECK(r.nhalf >= min_half);
    // the crank turns at the servo's speed less its slip: slip = mean load torque / kv. The
    // load is inertial (Kamino drops the rail's damping: the walker's x speed changes with the
    // stance foot's rate, 0.09..0.25 m/rad, and the handovers of support are inelastic); the
    // servo cannot outrun ctrl on average, and a 15% slip would be a mean load torque of
    // 0.15 kv ctrl (2.25 N m at 3 rad/s), 2.7 times the 0.83 N m of the ~5.5% measured
    CHECK(r.crank > 0.85 * ctrl * duration && r.crank < ctrl * duration);
    // toward -x, each half turn by the stance foot's travel: the feet stick (their slip below
    // is 1e-3 of the stride), what is left is the handover, where the lower foot changes at a
    // crank angle other than the kinematic crossing when the chassis is briefly airborne or
    // penetrates; 2% of the half stride (13 mm) is the stance foot's travel over 0.05 rad at
    // its fastest (0.25 m/rad), several steps of the crank at 3 rad/s
    for (int k = 0; k < r.nhalf; k++) {
        const double prev = k ? r.rail_half[k - 1] : 0;
        CHECK_NEAR(prev - r.rail_half[k], gt.half_stride, 0.02, 0);
    }
    CHECK(r.slip < 1e-3 * fabs(r.rail_x));
    // the chassis height follows the lower foot: [0, bob] up to a 1 mm margin for the touchdown
    // penetration (the contact's Baumgarte recovery, gamma 0.01) and the brief flights
    CHECK(r.lift_min > gt.lift_lo - 1e-3 && r.lift_max < gt.bob + 1e-3);
    // loop closure: the velocity-level rows leave a drift that Baumgarte (alpha 0.01) pulls
    // back; bounded (not growing: the second half's max below twice the first's) under 1 mm, a
    // bound that also holds with a position projection
    CHECK(r.closure_max < 1e-3);
    CHECK(r.closure_second < 2 * r.closure_first + 1e-9);
    // PADMM converged on at least 95% of the steps at tolerance 1e-8
    CHECK(r.unconverged <= r.nstep / 20);
    gdn_model_free(m);
    return 0;
}

// the run at 3 rad/s, kept for the comparison with MuJoCo
static LegRun g_run3;
static int g_have_run3;

static int test_stepping_3(void) {
    CHECK(stepping(3.0, 4.0, 3, &g_run3) == 0);
    g_have_run3 = 1;
    return 0;
}

static int test_stepping_1_5(void) {
    return stepping(1.5, 2.5, 1, NULL);
}

// MuJoCo 2.2.2 on the same file (its own soft contact and connects, the rail's damping) at
// ctrl 3 for 4 s: it walks toward -x too; both engines' distance per half turn and per turn
static int test_mujoco(void) {
    mjModel* mm = gdn_kmj_load("kamino_mech_leg.xml");
    CHECK(mm);
    mjData* d = mj_makeData(mm);
    mj_forward(mm, d);
    const int qrail = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "rail_x")];
    const int qcrank = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "crank")];
    const int qlift = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "lift_z")];
    const int n = (int)lround(4.0 / mm->opt.timestep);
    double lift_min = 0, lift_max = 0, closure = 0, half[8];
    int nhalf = 0;
    for (int k = 0; k < n; k++) {
        const double c0 = d->qpos[qcrank], x0 = d->qpos[qrail];
        d->ctrl[0] = 3;
        mj_step(mm, d);
        mj_kinematics(mm, d);
        lift_min = fmin(lift_min, d->qpos[qlift]);
        lift_max = fmax(lift_max, d->qpos[qlift]);
        closure = fmax(closure, gdn_kmj_connect_error(mm, d));
        // the rail where the crank (a continuous hinge angle) passes k pi
        const double c1 = d->qpos[qcrank], target = kPi * (nhalf + 1);
        if (nhalf < 8 && c0 < target && c1 >= target) {
            half[nhalf++] = x0 + (target - c0) / (c1 - c0) * (d->qpos[qrail] - x0);
        }
    }
    const double crank = d->qpos[qcrank], x = d->qpos[qrail];
    mj_deleteData(d);
    mj_deleteModel(mm);
    // MuJoCo standing 2 s at ctrl 0: the carriage's creep over the last 0.5 s
    gdnKmjCreep creep;
    CHECK(gdn_kmj_creep("kamino_mech_leg.xml", "carriage", "world", 2.0, 0.25, NULL, &creep) == 0);
    // Kamino's run at 3 rad/s (from test_stepping_3 when it ran)
    if (!g_have_run3) {
        gdnModel* m = load();
        CHECK(m);
        CHECK(leg_run(m, 3.0, 4.0, &g_run3) == 0);
        gdn_model_free(m);
        g_have_run3 = 1;
    }
    const LegRun* r = &g_run3;
    const Gait gt = gait();
    printf("  4 s at ctrl 3: MuJoCo crank %.4f rad, rail_x %.4f m, %.4f m per turn over the run, "
           "lift_z in [%.4g, %.4g] m, closure max %.3g m; Kamino crank %.4f rad, rail_x %.4f m, "
           "%.4f m per turn over the run; geometry %.4f m per turn\n",
           crank, x, -x * 2 * kPi / crank, lift_min, lift_max, closure, r->crank, r->rail_x,
           -r->rail_x * 2 * kPi / r->crank, 2 * gt.half_stride);
    for (int k = 0; k < nhalf; k++) {
        const double prev = k ? half[k - 1] : 0;
        const double kprev = k ? r->rail_half[k - 1] : 0;
        printf("    half turn %d: MuJoCo moved %.5f m, Kamino %.5f m, geometry %.5f m\n", k + 1,
               half[k] - prev, k < r->nhalf ? r->rail_half[k] - kprev : (double)NAN,
               -gt.half_stride);
    }
    printf("  standing 2 s at ctrl 0: MuJoCo's carriage creeps at %.3g m/s over the last 0.5 s "
           "(max %.3g m/s), %.3g m in all; Kamino's |v| <= 1e-7 m/s (test standing)\n",
           creep.speed, creep.speed_max, creep.drift);
    // MuJoCo turns the crank (over 1.5 turns) and walks toward -x, at least half the stride per
    // half turn (its soft contact may slip, the geometry is the same)
    CHECK(crank > 3 * kPi && nhalf >= 3);
    for (int k = 0; k < nhalf; k++) {
        const double prev = k ? half[k - 1] : 0;
        CHECK(prev - half[k] > 0.5 * gt.half_stride);
    }
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"geometry", test_geometry},     {"standing", test_standing},
        {"stepping_3", test_stepping_3}, {"stepping_1_5", test_stepping_1_5},
        {"mujoco", test_mujoco},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
