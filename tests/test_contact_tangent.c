// SPDX-License-Identifier: Apache-2.0
// Contact geometry tangent of the closed-form pairs: central differences, envelope, adjoint.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "collision/contact_derivative.h"
#include "collision/contact_derivative_pairs.h"
#include "collision/narrowphase.h"
#include "math/vec.h"
#include "runner/models.h"
#include "runner/test.h"

// Step of the central differences: the truncation error is O(eps^2) times third derivatives of
// O(1 / size^2) ~ 1e2 (geoms of ~0.1), ~1e-10; round-off is ~1e-16 |f| / eps ~ 1e-10. Both far
// below the 1e-6 gate. A contact near a degenerate direction has a length scale L smaller than
// its geoms' (the centre distance of two spheres or segment points; |a (a . n) - n| of a tilted
// cylinder's rim; the part of a capsule's axis orthogonal to the plane normal, which the frame
// orthogonalizes): with kappa = max(1, size / L), third derivatives grow as kappa^2 and the
// primal's own round-off as kappa, so the step EPS / sqrt(kappa) balances truncation (~1e-10
// kappa) and round-off (~1e-10 kappa^1.5), both relative to tangents that grow as kappa too. The
// identities sum intermediates of size kappa: their round-off is allowed ID_TOL kappa. Contacts
// with kappa > KAPPA_MAX are counted and skipped.
#define EPS 1e-6
#define KAPPA_MAX 1e3
#define FD_TOL 1e-6
#define ID_TOL 1e-12
// the denominators of the relative errors: max(|fd part|, FLOOR)
#define FLOOR 1e-3

// one pair kind's worst errors over every tested contact
typedef struct {
    const char* name;
    int count, mutated;
    double fd, adjoint, envelope;
    double kappa; // the largest conditioning tested
    int skipped;  // contacts with kappa > KAPPA_MAX
} PairStats;

// the 13 geometric numbers of a contact: dist, pos, frame
static void pack(const gdnContact* c, double v[13]) {
    v[0] = c->dist;
    memcpy(v + 1, c->pos, sizeof(double) * 3);
    memcpy(v + 4, c->frame, sizeof(double) * 9);
}

static void pack_tangent(const gdnContactTangent* t, double v[13]) {
    v[0] = t->dist;
    memcpy(v + 1, t->pos, sizeof(double) * 3);
    memcpy(v + 4, t->frame, sizeof(double) * 9);
}

// exp([w]) by Rodrigues: I + sin(a)/a [w] + (1 - cos(a))/a^2 [w]^2, a = |w|
static void rotation_exp(const double w[3], double R[9]) {
    double a = gdn_norm3(w);
    double s = a > 0 ? sin(a) / a : 1;
    double half = a > 0 ? sin(a / 2) / (a / 2) : 1;
    double c = 0.5 * half * half; // (1 - cos a) / a^2 without cancellation
    double W[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0}, W2[9];
    gdn_mulmatmat3(W2, W, W);
    for (int i = 0; i < 9; i++) {
        R[i] = (i % 4 == 0 ? 1 : 0) + s * W[i] + c * W2[i];
    }
}

// move geom g by eps x: xpos -> exp(eps [w]) xpos + eps v, xmat -> exp(eps [w]) xmat
static void move_geom(gdnData* d, int g, const double x[6], double eps) {
    double w[3] = {eps * x[0], eps * x[1], eps * x[2]}, R[9], p[3], mat[9];
    rotation_exp(w, R);
    gdn_mulmat3(p, R, d->geom_xpos + 3 * g);
    for (int i = 0; i < 3; i++) {
        d->geom_xpos[3 * g + i] = p[i] + eps * x[3 + i];
    }
    gdn_mulmatmat3(mat, R, d->geom_xmat + 9 * g);
    memcpy(d->geom_xmat + 9 * g, mat, sizeof(mat));
}

// the margin the driver used for a dynamic pair (no override, no explicit pairs in these models)
static double pair_margin(const gdnModel* m, int g1, int g2) {
    return fmax(m->geom_margin[g1], m->geom_margin[g2]);
}

// the pair function of con at the geoms moved by eps (x1, x2, ds1, ds2), frames completed; the
// contact nearest base->pos; 1 when none is within 1e-3 (the contact left the margin)
static int moved_contact(gdnModel* m, gdnData* d, const gdnContact* base, const double x1[6],
                         const double x2[6], const double ds1[3], const double ds2[3], double eps,
                         double v[13]) {
    int g1 = base->geom1, g2 = base->geom2;
    double pos1[3], pos2[3], mat1[9], mat2[9], size1[3], size2[3];
    memcpy(pos1, d->geom_xpos + 3 * g1, sizeof(pos1));
    memcpy(pos2, d->geom_xpos + 3 * g2, sizeof(pos2));
    memcpy(mat1, d->geom_xmat + 9 * g1, sizeof(mat1));
    memcpy(mat2, d->geom_xmat + 9 * g2, sizeof(mat2));
    memcpy(size1, m->geom_size + 3 * g1, sizeof(size1));
    memcpy(size2, m->geom_size + 3 * g2, sizeof(size2));
    move_geom(d, g1, x1, eps);
    move_geom(d, g2, x2, eps);
    for (int i = 0; i < 3; i++) {
        m->geom_size[3 * g1 + i] += eps * ds1[i];
        m->geom_size[3 * g2 + i] += eps * ds2[i];
    }
    gdnContact con[GDN_MAXCONPAIR];
    gdnCollideFn fn = gdn_collide_function(m->geom_type[g1], m->geom_type[g2]);
    int num = fn(m, d, con, g1, g2, pair_margin(m, g1, g2));
    double best = INFINITY;
    for (int i = 0; i < num; i++) {
        gdn_make_frame(con[i].frame);
        double gap[3];
        gdn_sub3(gap, con[i].pos, base->pos);
        double g = gdn_norm3(gap);
        if (g < best) {
            best = g;
            pack(con + i, v);
        }
    }
    memcpy(d->geom_xpos + 3 * g1, pos1, sizeof(pos1));
    memcpy(d->geom_xpos + 3 * g2, pos2, sizeof(pos2));
    memcpy(d->geom_xmat + 9 * g1, mat1, sizeof(mat1));
    memcpy(d->geom_xmat + 9 * g2, mat2, sizeof(mat2));
    memcpy(m->geom_size + 3 * g1, size1, sizeof(size1));
    memcpy(m->geom_size + 3 * g2, size2, sizeof(size2));
    return best < 1e-3 ? 0 : 1;
}

// worst relative error of a against b over the parts dist, pos, frame (each against its own
// scale max(||b part||_inf, FLOOR))
static double parts_relerr(const double a[13], const double b[13]) {
    const int start[3] = {0, 1, 4}, len[3] = {1, 3, 9};
    double worst = 0;
    for (int p = 0; p < 3; p++) {
        worst = fmax(worst, gdn_test_relerr(a + start[p], b + start[p], len[p], FLOOR));
    }
    return worst;
}

// kappa of a contact (see EPS): size / L of its near-degenerate length scale L, at least 1
static double contact_kappa(const gdnModel* m, const gdnData* d, const gdnContact* con) {
    int t1 = m->geom_type[con->geom1], t2 = m->geom_type[con->geom2];
    const double* mat1 = d->geom_xmat + 9 * con->geom1;
    const double* mat2 = d->geom_xmat + 9 * con->geom2;
    double n[3] = {mat1[2], mat1[5], mat1[8]}, z2[3] = {mat2[2], mat2[5], mat2[8]}, q[3];
    double r1 = m->geom_size[3 * con->geom1], r2 = m->geom_size[3 * con->geom2];
    double L = (double)INFINITY, size = 1;
    if (t1 == GDN_GEOM_PLANE && (t2 == GDN_GEOM_CAPSULE || t2 == GDN_GEOM_CYLINDER)) {
        // the axis' part orthogonal to n (0 exactly: the held fallback branches, no 1 / L)
        gdn_addscl3(q, z2, n, -gdn_dot3(n, z2));
        L = gdn_norm3(q);
        if (L < GDN_MINVAL) {
            L = (double)INFINITY;
        }
    } else if (t1 != GDN_GEOM_PLANE) {
        // sphere-like pairs: the distance of the two centres
        L = con->dist + r1 + r2;
        size = r1 + r2;
    }
    return fmax(1, size / L);
}

static void random_vec(unsigned long long* rng, double* v, int n) {
    for (int i = 0; i < n; i++) {
        v[i] = gdn_test_uniform(rng, -1, 1);
    }
}

// The three checks on one contact, each printed when it fails:
//   central differences of the pair function vs the tangent (<= FD_TOL), and a wrong sign of
//   d dist must fail it (when |d dist| is not tiny);
//   envelope (ds = 0, unless skip_envelope): d dist = n . (dp2(pos) - dp1(pos)) (<= ID_TOL);
//   adjoint: <t(x), tbar> = <x, adjoint(tbar)> (<= ID_TOL relative to the sum of |terms|);
//   the step and the identities' tolerances scaled by the contact's kappa (see EPS).
// same_rotation: x2's angular part is x1's (a branch that only such motions keep).
static int check_contact(gdnModel* m, gdnData* d, const gdnContact* con, unsigned long long* rng,
                         int skip_envelope, int same_rotation, PairStats* st) {
    double x1[6], x2[6], ds1[3], ds2[3];
    random_vec(rng, x1, 6);
    random_vec(rng, x2, 6);
    random_vec(rng, ds1, 3);
    random_vec(rng, ds2, 3);
    if (same_rotation) {
        memcpy(x2, x1, sizeof(double) * 3);
    }
    double kappa = contact_kappa(m, d, con);
    if (kappa > KAPPA_MAX) {
        st->skipped++;
        return 0;
    }
    st->kappa = fmax(st->kappa, kappa);
    const double eps = EPS / sqrt(kappa);

    // central differences
    gdnContactTangent t;
    CHECK(gdn_contact_tangent(m, d, con, x1, x2, ds1, ds2, &t) == GDN_OK);
    double tv[13], vp[13], vm[13], fd[13];
    pack_tangent(&t, tv);
    CHECK(moved_contact(m, d, con, x1, x2, ds1, ds2, eps, vp) == 0);
    CHECK(moved_contact(m, d, con, x1, x2, ds1, ds2, -eps, vm) == 0);
    for (int i = 0; i < 13; i++) {
        fd[i] = (vp[i] - vm[i]) / (2 * eps);
    }
    double err = parts_relerr(tv, fd);
    st->fd = fmax(st->fd, err);
    if (!(err <= FD_TOL)) {
        fprintf(stderr, "%s: contact geoms %d %d dist %g: FD relative error %.3g\n", st->name,
                con->geom1, con->geom2, con->dist, err);
        for (int i = 0; i < 13; i++) {
            fprintf(stderr, "  [%2d] tangent %+.12e fd %+.12e\n", i, tv[i], fd[i]);
        }
        return 1;
    }
    if (fabs(fd[0]) > 1e-3) {
        tv[0] = -tv[0];
        CHECK(parts_relerr(tv, fd) > FD_TOL);
        tv[0] = -tv[0];
        st->mutated++;
    }

    // envelope identity (sizes held)
    if (!skip_envelope) {
        gdnContactTangent t0;
        CHECK(gdn_contact_tangent(m, d, con, x1, x2, NULL, NULL, &t0) == GDN_OK);
        double dp1[3], dp2[3], rel[3];
        gdn_twist_point(dp1, x1, con->pos);
        gdn_twist_point(dp2, x2, con->pos);
        gdn_sub3(rel, dp2, dp1);
        double env = gdn_dot3(con->frame, rel);
        double scale = 1 + gdn_norm3(con->pos);
        double e = fabs(t0.dist - env) / scale;
        st->envelope = fmax(st->envelope, e);
        if (!(e <= ID_TOL * kappa)) {
            fprintf(stderr, "%s: envelope d dist %.17g vs n . (dp2 - dp1) %.17g\n", st->name,
                    t0.dist, env);
            return 1;
        }
    }

    // adjoint identity
    double tbarv[13], x1bar[6] = {0}, x2bar[6] = {0}, s1bar[3] = {0}, s2bar[3] = {0};
    random_vec(rng, tbarv, 13);
    gdnContactTangent tbar;
    tbar.dist = tbarv[0];
    memcpy(tbar.pos, tbarv + 1, sizeof(double) * 3);
    memcpy(tbar.frame, tbarv + 4, sizeof(double) * 9);
    CHECK(gdn_contact_tangent_adjoint(m, d, con, &tbar, x1bar, x2bar, s1bar, s2bar) == GDN_OK);
    double lhs = 0, rhs = 0, scale = 0;
    for (int i = 0; i < 13; i++) {
        lhs += tv[i] * tbarv[i];
        scale += fabs(tv[i] * tbarv[i]);
    }
    for (int i = 0; i < 6; i++) {
        rhs += x1[i] * x1bar[i] + x2[i] * x2bar[i];
        scale += fabs(x1[i] * x1bar[i]) + fabs(x2[i] * x2bar[i]);
    }
    for (int i = 0; i < 3; i++) {
        rhs += ds1[i] * s1bar[i] + ds2[i] * s2bar[i];
        scale += fabs(ds1[i] * s1bar[i]) + fabs(ds2[i] * s2bar[i]);
    }
    double aerr = fabs(lhs - rhs) / fmax(scale, 1e-300);
    st->adjoint = fmax(st->adjoint, aerr);
    if (!(aerr <= ID_TOL * kappa)) {
        fprintf(stderr, "%s: adjoint <t, tbar> %.17g vs <x, adjoint> %.17g\n", st->name, lhs,
                rhs);
        return 1;
    }
    // the adjoint accumulates (a second call doubles every output, up to the round-off of the
    // sums) and takes NULL for an output not wanted; the tangent takes NULL for a zero input
    double y1[6], y2[6], t1[3], t2[3];
    memcpy(y1, x1bar, sizeof(y1));
    memcpy(y2, x2bar, sizeof(y2));
    memcpy(t1, s1bar, sizeof(t1));
    memcpy(t2, s2bar, sizeof(t2));
    CHECK(gdn_contact_tangent_adjoint(m, d, con, &tbar, y1, y2, t1, t2) == GDN_OK);
    for (int i = 0; i < 6; i++) {
        CHECK_NEAR(y1[i], 2 * x1bar[i], 1e-13, 1e-13);
        CHECK_NEAR(y2[i], 2 * x2bar[i], 1e-13, 1e-13);
    }
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(t1[i], 2 * s1bar[i], 1e-13, 1e-13);
        CHECK_NEAR(t2[i], 2 * s2bar[i], 1e-13, 1e-13);
    }
    CHECK(gdn_contact_tangent_adjoint(m, d, con, &tbar, NULL, NULL, NULL, NULL) == GDN_OK);
    const double zero[6] = {0};
    gdnContactTangent tn, tz;
    CHECK(gdn_contact_tangent(m, d, con, x1, NULL, NULL, ds2, &tn) == GDN_OK);
    CHECK(gdn_contact_tangent(m, d, con, x1, zero, zero, ds2, &tz) == GDN_OK);
    CHECK(memcmp(&tn, &tz, sizeof(tn)) == 0);
    st->count++;
    return 0;
}

static void print_stats(const PairStats* st) {
    printf("  %-18s %4d contacts: FD rel err %.2e, adjoint %.2e, envelope %.2e; kappa <= %.3g, "
           "%d skipped\n",
           st->name, st->count, st->fd, st->adjoint, st->envelope, st->kappa, st->skipped);
}

// random unit quaternion: uniform (kind 0), within 0.3 rad of identity (1), or near a quarter
// turn about a random horizontal axis (2)
static void random_quat(unsigned long long* rng, int kind, double q[4]) {
    if (kind == 0) {
        double n;
        do {
            random_vec(rng, q, 4);
            n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        } while (n < 0.1 || n > 1);
        for (int i = 0; i < 4; i++) {
            q[i] /= n;
        }
        return;
    }
    double axis[3], angle;
    if (kind == 1) {
        random_vec(rng, axis, 3);
        angle = gdn_test_uniform(rng, 0, 0.3);
    } else {
        double phi = gdn_test_uniform(rng, 0, 6.283185307179586);
        axis[0] = cos(phi);
        axis[1] = sin(phi);
        axis[2] = gdn_test_uniform(rng, -0.2, 0.2);
        angle = 1.5707963267948966 + gdn_test_uniform(rng, -0.3, 0.3);
    }
    gdn_normalize3(axis);
    gdn_axisangle2quat(q, axis, angle);
}

// ---- plane pairs --------------------------------------------------------------------------------

enum { P_SPHERE, P_CAPSULE, P_ELLIPSOID, P_CYLINDER, P_N };

static int test_plane_pairs(void) {
    gdnModel* m = gdn_test_load_model_as_is("tan_plane.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    PairStats st[P_N] = {{"plane-sphere", 0, 0, 0, 0, 0, 0, 0},
                         {"plane-capsule", 0, 0, 0, 0, 0, 0, 0},
                         {"plane-ellipsoid", 0, 0, 0, 0, 0, 0, 0},
                         {"plane-cylinder", 0, 0, 0, 0, 0, 0, 0}};
    // features seen: capsule runs of 1 and 2 contacts, cylinder runs of 1, 2 (top rim), 3
    // (triangle); penetrating and within-margin contacts
    int capsule_runs[3] = {0}, cylinder_runs[5] = {0}, penetrating = 0, separated = 0;
    const double* plane_pos = d->geom_xpos; // geom 0 after kinematics
    unsigned long long rng = 0x9e3779b97f4a7c15ULL;
    int configs = 0;
    for (int trial = 0; trial < 4000 && configs < 150; trial++) {
        gdn_data_reset(m, d);
        gdn_kinematics(m, d);
        // each body above the plane at a random height, random orientation kind
        for (int b = 0; b < 4; b++) {
            double* q = d->qpos + 7 * b;
            q[0] = plane_pos[0] + gdn_test_uniform(&rng, -0.5, 0.5) + 1.2 * b;
            q[1] = plane_pos[1] + gdn_test_uniform(&rng, -0.5, 0.5);
            int kind = (int)gdn_test_uniform(&rng, 0, 3);
            random_quat(&rng, kind, q + 3);
            // height over the tilted plane z = plane_z + slope: search a height that touches
            q[2] = 0;
        }
        gdn_kinematics(m, d);
        // put each geom's centre at a random height over the plane (n . (x - p) = h)
        const double* mat = d->geom_xmat;
        double n[3] = {mat[2], mat[5], mat[8]};
        for (int b = 0; b < 4; b++) {
            double* q = d->qpos + 7 * b;
            int g = b + 1;
            double dif[3];
            gdn_sub3(dif, d->geom_xpos + 3 * g, plane_pos);
            double height = gdn_dot3(n, dif);
            double want = gdn_test_uniform(&rng, 0.02, 0.32);
            for (int i = 0; i < 3; i++) {
                q[i] += n[i] * (want - height);
            }
        }
        gdn_kinematics(m, d);
        CHECK(gdn_collision(m, d) == GDN_OK);
        if (d->ncon == 0) {
            continue;
        }
        configs++;
        for (int i = 0; i < d->ncon;) {
            const gdnContact* c = d->contact + i;
            int run = 1;
            while (i + run < d->ncon && d->contact[i + run].geom1 == c->geom1 &&
                   d->contact[i + run].geom2 == c->geom2) {
                run++;
            }
            // sphere, capsule, ellipsoid, cylinder are consecutive geom types
            int kind = m->geom_type[c->geom2] - GDN_GEOM_SPHERE;
            CHECK(kind >= P_SPHERE && kind < P_N);
            CHECK(c->geom1 == 0 && m->geom_type[c->geom1] == GDN_GEOM_PLANE);
            if (kind == P_CAPSULE) {
                capsule_runs[run]++;
            }
            if (kind == P_CYLINDER) {
                cylinder_runs[run]++;
            }
            for (int k = 0; k < run; k++) {
                const gdnContact* ck = c + k;
                penetrating += ck->dist < 0;
                separated += ck->dist >= 0;
                // the inscribed triangle's points are not support points: their dist moves with
                // the rim direction, so the envelope identity does not apply to them
                // (a run is bottom rim, [top rim], [the two triangle points])
                int triangle = kind == P_CYLINDER && run >= 3 && k >= run - 2;
                if (check_contact(m, d, ck, &rng, triangle, 0, st + kind)) {
                    fprintf(stderr, "config %d, contact %d of a run of %d\n", configs, k, run);
                    return 1;
                }
            }
            i += run;
        }
    }
    for (int k = 0; k < P_N; k++) {
        print_stats(st + k);
        CHECK(st[k].count >= 20);
        CHECK(st[k].mutated > 0);
    }
    printf("  capsule runs of 1 / 2: %d / %d; cylinder runs of 1 / 2 / 3 / 4: %d / %d / %d / %d; "
           "penetrating %d, within margin %d\n",
           capsule_runs[1], capsule_runs[2], cylinder_runs[1], cylinder_runs[2],
           cylinder_runs[3], cylinder_runs[4], penetrating, separated);
    CHECK(capsule_runs[1] > 0 && capsule_runs[2] > 0);
    CHECK(cylinder_runs[1] > 0 && cylinder_runs[2] > 0 && cylinder_runs[3] > 0);
    CHECK(penetrating > 0 && separated > 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// Axes exactly along the plane normal (the capsule's and the cylinder's geom_xmat set to the
// plane's): the cylinder's rim falls back to its x axis (|a (a . n) - n| < MINVAL) and the
// capsule's hint has no part orthogonal to n (tangent 1 = (1, 0, 0)). Both branches are held
// only by motions with equal angular parts (the plane's and the geom's), which keep the axes
// parallel.
static int test_plane_flat(void) {
    gdnModel* m = gdn_test_load_model_as_is("tan_plane.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    PairStats st[2] = {{"plane-capsule |", 0, 0, 0, 0, 0, 0, 0}, {"plane-cylinder |", 0, 0, 0, 0, 0, 0, 0}};
    int cylinder_runs[5] = {0};
    unsigned long long rng = 0x6a09e667f3bcc909ULL;
    int gcap = gdn_name2id(m, "geom", "capsule"), gcyl = gdn_name2id(m, "geom", "cylinder");
    for (int trial = 0; trial < 40; trial++) {
        gdn_data_reset(m, d);
        gdn_kinematics(m, d);
        const double* mat = d->geom_xmat;
        double n[3] = {mat[2], mat[5], mat[8]};
        // upside down half of the time (the cylinder's axis flip)
        double sign = trial % 2 ? 1 : -1;
        for (int g = gcap; g <= gcyl; g += gcyl - gcap) {
            double half = m->geom_size[3 * g + 1];
            double reach = g == gcap ? half + m->geom_size[3 * g] : half;
            double height = reach + gdn_test_uniform(&rng, -0.03, 0.045);
            for (int i = 0; i < 9; i++) {
                // z column along +-n, x column kept (a rotation: flip x and z together)
                d->geom_xmat[9 * g + i] = (i % 3 == 1) ? mat[i] : sign * mat[i];
            }
            double* p = d->geom_xpos + 3 * g;
            for (int i = 0; i < 3; i++) {
                p[i] = d->geom_xpos[i] + gdn_test_uniform(&rng, -0.5, 0.5) + height * n[i];
            }
        }
        // the degenerate branches are the ones taken: |z (z . n) - n| < MINVAL
        for (int g = gcap; g <= gcyl; g += gcyl - gcap) {
            const double* gm = d->geom_xmat + 9 * g;
            double z[3] = {gm[2], gm[5], gm[8]}, q[3];
            gdn_scl3(q, z, gdn_dot3(z, n));
            gdn_sub3(q, q, n);
            CHECK(gdn_norm3(q) < GDN_MINVAL);
        }
        CHECK(gdn_collision(m, d) == GDN_OK);
        for (int i = 0; i < d->ncon;) {
            const gdnContact* c = d->contact + i;
            int run = 1;
            while (i + run < d->ncon && d->contact[i + run].geom2 == c->geom2) {
                run++;
            }
            if (c->geom2 != gcap && c->geom2 != gcyl) {
                i += run;
                continue;
            }
            int kind = c->geom2 == gcyl;
            if (kind) {
                cylinder_runs[run]++;
            }
            for (int k = 0; k < run; k++) {
                int triangle = kind && run >= 3 && k >= run - 2;
                if (check_contact(m, d, c + k, &rng, triangle, 1, st + kind)) {
                    fprintf(stderr, "trial %d, contact %d of a run of %d\n", trial, k, run);
                    return 1;
                }
            }
            i += run;
        }
    }
    for (int k = 0; k < 2; k++) {
        print_stats(st + k);
        CHECK(st[k].count >= 10 && st[k].mutated > 0);
    }
    printf("  flat cylinder runs of 1 / 3: %d / %d\n", cylinder_runs[1], cylinder_runs[3]);
    CHECK(cylinder_runs[3] > 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---- sphere and capsule pairs -------------------------------------------------------------------

enum { S_SPHERE_SPHERE, S_SPHERE_CAPSULE, S_CAPSULE_CAPSULE, S_N };

// the segment parameter of point c on the capsule g: (c - p) . z / h
static double segment_param(const gdnModel* m, const gdnData* d, int g, const double c[3]) {
    const double* mat = d->geom_xmat + 9 * g;
    double z[3] = {mat[2], mat[5], mat[8]}, dif[3];
    gdn_sub3(dif, c, d->geom_xpos + 3 * g);
    return gdn_dot3(dif, z) / m->geom_size[3 * g + 1];
}

// 1 when the witness point of geom g (its surface point along the normal) is a clamped end of
// its segment: c = pos -+ n (r + dist / 2)
static int at_end(const gdnModel* m, const gdnData* d, const gdnContact* c, int second) {
    int g = second ? c->geom2 : c->geom1;
    double k = m->geom_size[3 * g] + c->dist / 2, centre[3];
    gdn_addscl3(centre, c->pos, c->frame, second ? k : -k);
    return fabs(fabs(segment_param(m, d, g, centre)) - 1) < 1e-9;
}

static int test_sphere_pairs(void) {
    gdnModel* m = gdn_test_load_model_as_is("tan_spheres.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    PairStats st[S_N] = {{"sphere-sphere", 0, 0, 0, 0, 0, 0, 0},
                         {"sphere-capsule", 0, 0, 0, 0, 0, 0, 0},
                         {"capsule-capsule", 0, 0, 0, 0, 0, 0, 0}};
    // features: sphere-capsule interior / end; capsule-capsule interior-interior, one end, both
    // ends; contacts whose geom1 is on the later body (the driver swapped the pair)
    int sc[2] = {0}, cc[3] = {0}, swapped = 0, penetrating = 0, separated = 0;
    unsigned long long rng = 0x2545f4914f6cdd1dULL;
    for (int trial = 0; trial < 300; trial++) {
        gdn_data_reset(m, d);
        for (int b = 0; b < 4; b++) {
            double* q = d->qpos + 7 * b;
            for (int i = 0; i < 3; i++) {
                q[i] = gdn_test_uniform(&rng, -0.3, 0.3);
            }
            random_quat(&rng, 0, q + 3);
        }
        gdn_kinematics(m, d);
        CHECK(gdn_collision(m, d) == GDN_OK);
        for (int i = 0; i < d->ncon; i++) {
            const gdnContact* c = d->contact + i;
            int t1 = m->geom_type[c->geom1], t2 = m->geom_type[c->geom2];
            int kind = t1 == GDN_GEOM_SPHERE ? (t2 == GDN_GEOM_SPHERE ? S_SPHERE_SPHERE
                                                                        : S_SPHERE_CAPSULE)
                                             : S_CAPSULE_CAPSULE;
            if (kind == S_SPHERE_CAPSULE) {
                sc[at_end(m, d, c, 1)]++;
            }
            if (kind == S_CAPSULE_CAPSULE) {
                cc[at_end(m, d, c, 0) + at_end(m, d, c, 1)]++;
            }
            swapped += m->geom_bodyid[c->geom1] > m->geom_bodyid[c->geom2];
            penetrating += c->dist < 0;
            separated += c->dist >= 0;
            if (check_contact(m, d, c, &rng, 0, 0, st + kind)) {
                fprintf(stderr, "trial %d, contact %d\n", trial, i);
                return 1;
            }
        }
    }
    for (int k = 0; k < S_N; k++) {
        print_stats(st + k);
        CHECK(st[k].count >= 20);
        CHECK(st[k].mutated > 0);
    }
    printf("  sphere-capsule interior / end: %d / %d; capsule-capsule interior / one end / "
           "two ends: %d / %d / %d; swapped %d; penetrating %d, within margin %d\n",
           sc[0], sc[1], cc[0], cc[1], cc[2], swapped, penetrating, separated);
    CHECK(sc[0] > 0 && sc[1] > 0 && cc[0] > 0 && cc[1] > 0 && cc[2] > 0);
    CHECK(swapped > 0 && penetrating > 0 && separated > 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// parallel capsules (|det| < MINVAL): the two-contact branch, under motions with equal angular
// parts (which keep the axes parallel, so the primal stays on the branch)
static int test_capsule_parallel(void) {
    gdnModel* m = gdn_test_load_model_as_is("tan_spheres.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    PairStats st = {"capsule-capsule //", 0, 0, 0, 0, 0, 0, 0};
    int gA = gdn_name2id(m, "geom", "capA"), gB = gdn_name2id(m, "geom", "capB");
    CHECK(gA >= 0 && gB >= 0);
    int runs[3] = {0}, given1 = 0;
    unsigned long long rng = 0x853c49e6748fea9bULL;
    for (int trial = 0; trial < 60; trial++) {
        gdn_data_reset(m, d);
        double q[4], zaxis[3], off[3], perp[3];
        random_quat(&rng, 0, q);
        // spheres far away; capsules with the same orientation, side by side along a direction
        // perpendicular to the axis at a distance near r1 + r2, shifted along the axis
        for (int b = 1; b <= 2; b++) {
            d->qpos[7 * b] = 3 + b;
            d->qpos[7 * b + 3] = 1;
        }
        double R[9];
        gdn_quat2mat(R, q);
        zaxis[0] = R[2];
        zaxis[1] = R[5];
        zaxis[2] = R[8];
        random_vec(&rng, off, 3);
        gdn_addscl3(perp, off, zaxis, -gdn_dot3(off, zaxis));
        gdn_normalize3(perp);
        double gap = gdn_test_uniform(&rng, 0.1, 0.22), shift = gdn_test_uniform(&rng, -0.5, 0.5);
        double* qa = d->qpos;
        double* qb = d->qpos + 21;
        for (int i = 0; i < 3; i++) {
            qa[i] = 0.1 * off[i];
            qb[i] = qa[i] + gap * perp[i] + shift * zaxis[i];
        }
        memcpy(qa + 3, q, sizeof(q));
        memcpy(qb + 3, q, sizeof(q));
        gdn_kinematics(m, d);
        CHECK(gdn_collision(m, d) == GDN_OK);
        int run = 0;
        for (int i = 0; i < d->ncon; i++) {
            const gdnContact* c = d->contact + i;
            CHECK(c->geom1 == gA && c->geom2 == gB);
            run++;
            // a witness inside segment 1: the candidates (clamp GIVEN, +-1)
            given1 += !at_end(m, d, c, 0);
            if (check_contact(m, d, c, &rng, 0, 1, &st)) {
                fprintf(stderr, "trial %d, contact %d of %d\n", trial, i, d->ncon);
                return 1;
            }
        }
        CHECK(run <= 2);
        runs[run]++;
    }
    print_stats(&st);
    printf("  parallel runs of 0 / 1 / 2 contacts: %d / %d / %d; witness inside segment 1: %d\n",
           runs[0], runs[1], runs[2], given1);
    CHECK(st.count >= 20 && st.mutated > 0);
    CHECK(runs[2] > 0 && given1 > 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---- the frame completion alone -----------------------------------------------------------------

// gdn_make_frame_tangent against central differences of gdn_make_frame on (n + e dn, h + e dh),
// n unit and dn NOT orthogonal to n (normalization's projection), with and without a hint,
// |n_y| on either side of 0.5; and its adjoint identity
static int test_make_frame(void) {
    unsigned long long rng = 0xda3e39cb94b95bdbULL;
    double worst = 0, worst_adj = 0;
    int branch[3] = {0}; // hint, e_y, e_z
    for (int trial = 0; trial < 300; trial++) {
        double n[3], hint[3], dn[3], dh[3];
        random_vec(&rng, n, 3);
        gdn_normalize3(n);
        random_vec(&rng, hint, 3);
        int use_hint = trial % 2;
        if (use_hint) {
            gdn_normalize3(hint);
        }
        random_vec(&rng, dn, 3);
        random_vec(&rng, dh, 3);
        double frame[9] = {0};
        memcpy(frame, n, sizeof(n));
        if (use_hint) {
            memcpy(frame + 3, hint, sizeof(hint));
        }
        gdn_make_frame(frame);
        branch[use_hint ? 0 : (fabs(frame[1]) < 0.5 ? 1 : 2)]++;
        gdnPairTangent pt = {0};
        memcpy(pt.normal, dn, sizeof(dn));
        if (use_hint) {
            memcpy(pt.hint, dh, sizeof(dh));
        }
        gdnContactTangent t;
        gdn_make_frame_tangent(frame, use_hint ? hint : NULL, &pt, &t);
        double fd[9];
        double fp[9] = {0}, fm[9] = {0};
        for (int i = 0; i < 3; i++) {
            fp[i] = n[i] + EPS * dn[i];
            fm[i] = n[i] - EPS * dn[i];
            if (use_hint) {
                fp[3 + i] = hint[i] + EPS * dh[i];
                fm[3 + i] = hint[i] - EPS * dh[i];
            }
        }
        gdn_make_frame(fp);
        gdn_make_frame(fm);
        for (int i = 0; i < 9; i++) {
            fd[i] = (fp[i] - fm[i]) / (2 * EPS);
        }
        double err = gdn_test_relerr(t.frame, fd, 9, FLOOR);
        worst = fmax(worst, err);
        CHECK_ARRAY_REL(t.frame, fd, 9, FD_TOL, FLOOR);
        // a wrong normalization (no projection) fails
        double wrong[9];
        memcpy(wrong, t.frame, sizeof(wrong));
        memcpy(wrong, dn, sizeof(dn));
        CHECK(gdn_test_relerr(wrong, fd, 9, FLOOR) > FD_TOL);

        // adjoint identity
        gdnContactTangent tbar = {0};
        random_vec(&rng, tbar.frame, 9);
        gdnPairTangent ptbar;
        gdn_make_frame_adjoint(frame, use_hint ? hint : NULL, &tbar, &ptbar);
        double lhs = 0, rhs = 0, scale = 0;
        for (int i = 0; i < 9; i++) {
            lhs += t.frame[i] * tbar.frame[i];
            scale += fabs(t.frame[i] * tbar.frame[i]);
        }
        for (int i = 0; i < 3; i++) {
            rhs += pt.normal[i] * ptbar.normal[i] + pt.hint[i] * ptbar.hint[i];
            scale += fabs(pt.normal[i] * ptbar.normal[i]) + fabs(pt.hint[i] * ptbar.hint[i]);
        }
        double aerr = fabs(lhs - rhs) / scale;
        worst_adj = fmax(worst_adj, aerr);
        CHECK(aerr <= ID_TOL);
        if (!use_hint) {
            CHECK(ptbar.hint[0] == 0 && ptbar.hint[1] == 0 && ptbar.hint[2] == 0);
        }
    }
    printf("  make_frame: FD rel err %.2e, adjoint %.2e; hint / e_y / e_z branches %d / %d / %d\n",
           worst, worst_adj, branch[0], branch[1], branch[2]);
    CHECK(branch[0] > 0 && branch[1] > 0 && branch[2] > 0);
    return 0;
}

// ---- argument checks ----------------------------------------------------------------------------

static int test_arguments(void) {
    gdnModel* m = gdn_test_load_model_as_is("tan_spheres.xml");
    CHECK(m);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_kinematics(m, d);
    int gA = gdn_name2id(m, "geom", "capA"), gS = gdn_name2id(m, "geom", "sphA");
    gdnContact con = {0};
    con.geom1 = gS;
    con.geom2 = gA;
    double x[6] = {1, 0, 0, 0, 0, 1};
    gdnContactTangent t, tbar = {0};
    CHECK(gdn_contact_tangent(NULL, d, &con, x, x, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_contact_tangent(m, d, NULL, x, x, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_contact_tangent(m, d, &con, x, x, NULL, NULL, NULL) == GDN_ERR_ARG);
    CHECK(gdn_contact_tangent_adjoint(m, d, &con, NULL, x, x, NULL, NULL) == GDN_ERR_ARG);
    // geom order other than the table's (capsule before sphere): not made by the driver
    con.geom1 = gA;
    con.geom2 = gS;
    CHECK(gdn_contact_tangent(m, d, &con, x, x, NULL, NULL, &t) == GDN_ERR_ARG);
    con.geom1 = m->ngeom;
    CHECK(gdn_contact_tangent(m, d, &con, x, x, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_contact_tangent_adjoint(m, d, &con, &tbar, NULL, NULL, NULL, NULL) ==
          GDN_ERR_ARG);
    // coincident sphere centres: no derivative
    con.geom1 = gS;
    con.geom2 = gdn_name2id(m, "geom", "sphB");
    memcpy(d->geom_xpos + 3 * con.geom2, d->geom_xpos + 3 * con.geom1, sizeof(double) * 3);
    CHECK(gdn_contact_tangent(m, d, &con, x, x, NULL, NULL, &t) == GDN_ERR_UNSUPPORTED);
    CHECK(gdn_contact_tangent_adjoint(m, d, &con, &tbar, x, x, NULL, NULL) ==
          GDN_ERR_UNSUPPORTED);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"make_frame", test_make_frame},
    {"plane_pairs", test_plane_pairs},
    {"plane_flat", test_plane_flat},
    {"sphere_pairs", test_sphere_pairs},
    {"capsule_parallel", test_capsule_parallel},
    {"arguments", test_arguments},
};

GDN_TEST_MAIN(cases)
