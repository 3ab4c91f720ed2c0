// SPDX-License-Identifier: Apache-2.0
// Box pair and general convex contact tangents (collision/box_*_derivative.c,
// convex_derivative.c) against central differences of the pair functions themselves, their
// adjoints, and the envelope identity where it holds.
//
// For random poses and sizes of the two geoms (the geoms' poses are set directly in d, the
// sizes in m->geom_size) every contact a pair function returns is differentiated along random
// body twists x1, x2 and size tangents ds1, ds2 and compared with the central difference of
// that pair function: geom_xpos -> exp(e [w]) p + e v, geom_xmat -> exp(e [w]) R, size +- e ds,
// the contact at +-e matched to the unperturbed one (nearest position) with the same feature.
// Step e = 1e-5: the central difference's truncation error is e^2 |f'''| / 6 ~ 2e-11 |f'''|
// (|f'''| up to ~1e3 for sizes >= 0.05) and its round-off eps |f| / e ~ 1e-11, both far below
// the 1e-6 relative gate. A sample is kept only when the differences at e and 2e agree to 1e-4
// (else a branch boundary lies within 2e: a kink, not a tangent error); the gate requires
// fewer than 5% of the samples dropped this way (30% for MPR between polytopes: its final
// portal changes where a Minkowski edge lies exactly in the search plane, a support tie the
// primal breaks by round-off, so its output jumps; measured ~20%). The reference is the
// Richardson combination (4 fd(e) - fd(2e)) / 3. Adjoint: <t(x), tbar> = <x, adjoint(tbar)>
// to 1e-12 relative to the round-off scale sum_i |x_i| sum_k |t(e_i)_k tbar_k|.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "collision/box_derivative.h"
#include "collision/narrowphase.h"
#include "math/vec.h"
#include "runner/models.h"
#include "runner/test.h"

#define STEP 1e-5
#define FD_TOL 1e-6
#define ADJ_TOL 1e-12
#define NSAMPLE 3000
#define NFEATURE 1000

enum { PLANE = 0, SPHERE = 1, CAPSULE = 2, BOX1 = 3, BOX2 = 4 };

// the raw fields as one 10-vector
static void flat(double v[10], const gdnPairTangent* t) {
    v[0] = t->dist;
    memcpy(v + 1, t->pos, 3 * sizeof(double));
    memcpy(v + 4, t->normal, 3 * sizeof(double));
    memcpy(v + 7, t->hint, 3 * sizeof(double));
}

static void contact_flat(double v[10], const gdnContact* c) {
    v[0] = c->dist;
    memcpy(v + 1, c->pos, 3 * sizeof(double));
    memcpy(v + 4, c->frame, 6 * sizeof(double));
}

static void random_rotation(unsigned long long* rng, double R[9]) {
    double q[4];
    double n = 0;
    while (n < 1e-2) {
        for (int i = 0; i < 4; i++) {
            q[i] = gdn_test_uniform(rng, -1, 1);
        }
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    }
    for (int i = 0; i < 4; i++) {
        q[i] /= n;
    }
    gdn_quat2mat(R, q);
}

// exp([w]) as a matrix (Rodrigues through the axis-angle quaternion)
static void rotation_exp(double E[9], const double w[3]) {
    double a[3];
    gdn_copy3(a, w);
    double angle = gdn_norm3(a);
    if (angle == 0) {
        double q[4] = {1, 0, 0, 0};
        gdn_quat2mat(E, q);
        return;
    }
    gdn_scl3(a, a, 1 / angle);
    double q[4];
    gdn_axisangle2quat(q, a, angle);
    gdn_quat2mat(E, q);
}

// geom g moved by the finite twist e x: p -> exp(e [w]) p + e v, R -> exp(e [w]) R
static void move_geom(gdnData* d, int g, const double x[6], double e) {
    double w[3] = {e * x[0], e * x[1], e * x[2]}, E[9], p[3], R[9];
    rotation_exp(E, w);
    gdn_mulmat3(p, E, d->geom_xpos + 3 * g);
    for (int i = 0; i < 3; i++) {
        d->geom_xpos[3 * g + i] = p[i] + e * x[3 + i];
    }
    gdn_mulmatmat3(R, E, d->geom_xmat + 9 * g);
    memcpy(d->geom_xmat + 9 * g, R, sizeof(R));
}

typedef struct PairCase {
    const char* name;
    const char* model;
    int g1, g2;
    gdnPairTangentFn tangent;
    gdnPairAdjointFn adjoint;
    void (*pose)(gdnModel* m, gdnData* d, unsigned long long* rng);
    const int* required; // features that must be seen (terminated by -1)
    int (*identity_holds)(int feature);
    double identity_factor; // d dist = factor n . (dp2(pos) - dp1(pos)) where it holds
    double tangent_sign;    // +1; -1 only to prove the gate fails
    int unsupported;        // every contact must be GDN_ERR_UNSUPPORTED (not derived yet)
    double max_dropped;     // largest share of samples dropped at a branch boundary (0: 5%)
    // optional: keep only samples it accepts (up to 200 NSAMPLE tries for NSAMPLE / 30 kept)
    int (*accept)(const gdnModel* m, const gdnData* d, gdnContact* con, int n, int g1, int g2);
} PairCase;

typedef struct Stats {
    int seen[NFEATURE], kept[NFEATURE];
    double fd_err[NFEATURE], adj_err[NFEATURE], id_err[NFEATURE];
    int contacts, dropped, dropped_jump, unsupported;
} Stats;

// contact of the pair at the current poses nearest ref (and its feature); 0 when none
static int rerun(const gdnModel* m, const gdnData* d, const PairCase* pc, const gdnContact* ref,
                 gdnContact* out, int* feature) {
    gdnContact con[GDN_MAXCONPAIR];
    gdnCollideFn fn = gdn_collide_function(m->geom_type[pc->g1], m->geom_type[pc->g2]);
    int n = fn(m, d, con, pc->g1, pc->g2, gdn_box_pair_margin(m, pc->g1, pc->g2));
    int best = -1;
    double score = 0;
    for (int i = 0; i < n; i++) {
        double s = gdn_box_match_score(ref, ref->dist, con[i].pos);
        if (best < 0 || s < score) {
            best = i;
            score = s;
        }
    }
    if (best < 0) {
        return 0;
    }
    *out = con[best];
    out->geom1 = pc->g1;
    out->geom2 = pc->g2;
    *feature = gdn_box_pair_feature(m, d, out);
    return 1;
}

// central difference with step e along (x1, x2, ds1, ds2) and the largest one-sided
// difference's deviation from it (a jump at the unperturbed state: the primal's branch there
// is not the one around it); 0 when a side lost the feature
static int central(gdnModel* m, gdnData* d, const PairCase* pc, const gdnContact* con,
                   int feature, const double x1[6], const double x2[6], const double ds1[3],
                   const double ds2[3], double e, double fd[10], double* jump) {
    double save_pos[2][3], save_mat[2][9], save_size[2][3];
    int g[2] = {pc->g1, pc->g2};
    for (int k = 0; k < 2; k++) {
        memcpy(save_pos[k], d->geom_xpos + 3 * g[k], sizeof(save_pos[k]));
        memcpy(save_mat[k], d->geom_xmat + 9 * g[k], sizeof(save_mat[k]));
        memcpy(save_size[k], m->geom_size + 3 * g[k], sizeof(save_size[k]));
    }
    double val[2][10];
    int ok = 1;
    for (int side = 0; side < 2 && ok; side++) {
        double h = side ? -e : e;
        move_geom(d, pc->g1, x1, h);
        move_geom(d, pc->g2, x2, h);
        for (int i = 0; i < 3; i++) {
            m->geom_size[3 * pc->g1 + i] += h * ds1[i];
            m->geom_size[3 * pc->g2 + i] += h * ds2[i];
        }
        gdnContact out;
        int f = -1;
        ok = rerun(m, d, pc, con, &out, &f) && (feature < 0 || f == feature);
        contact_flat(val[side], &out);
        for (int k = 0; k < 2; k++) {
            memcpy(d->geom_xpos + 3 * g[k], save_pos[k], sizeof(save_pos[k]));
            memcpy(d->geom_xmat + 9 * g[k], save_mat[k], sizeof(save_mat[k]));
            memcpy(m->geom_size + 3 * g[k], save_size[k], sizeof(save_size[k]));
        }
    }
    // the raw pair output at the unperturbed state (a driver contact has its frame completed)
    double center[10], fwd[10], bwd[10];
    gdnContact out0;
    int f0 = -1;
    ok = ok && rerun(m, d, pc, con, &out0, &f0);
    contact_flat(center, &out0);
    for (int i = 0; i < 10; i++) {
        fd[i] = (val[0][i] - val[1][i]) / (2 * e);
        fwd[i] = (val[0][i] - center[i]) / e;
        bwd[i] = (center[i] - val[1][i]) / e;
    }
    if (jump) {
        *jump = fmax(gdn_test_relerr(fwd, fd, 10, 1e-3), gdn_test_relerr(bwd, fd, 10, 1e-3));
    }
    return ok;
}

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

// one pair: random samples, every contact checked; fills stats
static int run_pair(const PairCase* pc, Stats* st, unsigned long long seed) {
    gdnModel* m = gdn_test_load_model_as_is(pc->model);
    CHECK(m != NULL);
    CHECK(m->ngeom <= 8);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_kinematics(m, d);
    double size0[8][3];
    memcpy(size0, m->geom_size, 3 * sizeof(double) * (size_t)m->ngeom);
    memset(st, 0, sizeof(*st));
    unsigned long long rng = seed;
    int failed = 0;
    int nsample = pc->accept ? NSAMPLE / 30 : NSAMPLE, tries = 0;
    for (int sample = 0; sample < nsample && !failed && tries < 200 * NSAMPLE; tries++) {
        memcpy(m->geom_size, size0, 3 * sizeof(double) * (size_t)m->ngeom);
        pc->pose(m, d, &rng);
        gdnContact con[GDN_MAXCONPAIR];
        gdnCollideFn fn = gdn_collide_function(m->geom_type[pc->g1], m->geom_type[pc->g2]);
        CHECK(fn != NULL);
        int n = fn(m, d, con, pc->g1, pc->g2, gdn_box_pair_margin(m, pc->g1, pc->g2));
        if (pc->accept && !pc->accept(m, d, con, n, pc->g1, pc->g2)) {
            continue;
        }
        sample++;
        for (int k = 0; k < n; k++) {
            // a repeated position is dropped by the driver (box-box)
            int repeated = 0;
            for (int j = 0; j < n; j++) {
                repeated |= j != k && con[j].pos[0] == con[k].pos[0] &&
                            con[j].pos[1] == con[k].pos[1] && con[j].pos[2] == con[k].pos[2];
            }
            if (repeated) {
                continue;
            }
            gdnContact* c = con + k;
            c->geom1 = pc->g1;
            c->geom2 = pc->g2;
            int feature = gdn_box_pair_feature(m, d, c);
            if (feature < 0 || feature >= NFEATURE) {
                fprintf(stderr, "%s: sample %d contact %d: no feature match (%d)\n", pc->name,
                        sample, k, feature);
                failed = 1;
                break;
            }
            st->contacts++;
            st->seen[feature]++;
            double x1[6], x2[6], ds1[3], ds2[3];
            for (int i = 0; i < 6; i++) {
                x1[i] = gdn_test_uniform(&rng, -1, 1);
                x2[i] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int i = 0; i < 3; i++) {
                ds1[i] = m->geom_type[pc->g1] == GDN_GEOM_PLANE ? 0
                                                                : gdn_test_uniform(&rng, -1, 1);
                ds2[i] = gdn_test_uniform(&rng, -1, 1);
            }
            gdnPairTangent t;
            gdnStatus status = pc->tangent(m, d, c, x1, x2, ds1, ds2, &t);
            if (status == GDN_ERR_UNSUPPORTED) {
                st->unsupported++;
                continue;
            }
            if (pc->unsupported) {
                fprintf(stderr, "%s: expected GDN_ERR_UNSUPPORTED, got %d\n", pc->name, status);
                failed = 1;
                break;
            }
            if (status != GDN_OK) {
                fprintf(stderr, "%s: tangent status %d\n", pc->name, status);
                failed = 1;
                break;
            }
            double tv[10];
            flat(tv, &t);
            for (int i = 0; i < 10; i++) {
                tv[i] *= pc->tangent_sign;
            }

            // central differences at e and 2e
            // dropped: a side lost the feature, the differences at e and 2e disagree (a kink
            // within 2e) or a one-sided difference is off by more than 1e-2 (a jump at the
            // unperturbed state itself; the one-sided error is O(e |f''|) ~ 1e-5 |f''|)
            double fd[10], fd2[10], jump = 0;
            if (!central(m, d, pc, c, feature, x1, x2, ds1, ds2, STEP, fd, &jump) ||
                !central(m, d, pc, c, feature, x1, x2, ds1, ds2, 2 * STEP, fd2, NULL) ||
                gdn_test_relerr(fd2, fd, 10, 1e-3) > 1e-4 || jump > 1e-2) {
                st->dropped++;
                st->dropped_jump += jump > 1e-2;
                continue;
            }
            st->kept[feature]++;
            // Richardson: (4 fd(e) - fd(2e)) / 3 cancels the e^2 term
            double ref[10];
            for (int i = 0; i < 10; i++) {
                ref[i] = (4 * fd[i] - fd2[i]) / 3;
            }
            double err = gdn_test_relerr(tv, ref, 10, 1e-3);
            st->fd_err[feature] = fmax(st->fd_err[feature], err);
            if (!(err <= FD_TOL)) {
                fprintf(stderr, "%s: sample %d contact %d feature %d: FD relative error %.3g\n",
                        pc->name, sample, k, feature, err);
                gdn_test_print_worst(tv, ref, 10);
                failed = 1;
                break;
            }

            // adjoint identity <t(x), tbar> = <x, adjoint(tbar)>
            gdnPairTangent tbar;
            double tb[10];
            for (int i = 0; i < 10; i++) {
                tb[i] = gdn_test_uniform(&rng, -1, 1);
            }
            tbar.dist = tb[0];
            memcpy(tbar.pos, tb + 1, 3 * sizeof(double));
            memcpy(tbar.normal, tb + 4, 3 * sizeof(double));
            memcpy(tbar.hint, tb + 7, 3 * sizeof(double));
            double x1b[6] = {0}, x2b[6] = {0}, s1b[3] = {0}, s2b[3] = {0};
            if (pc->adjoint(m, d, c, &tbar, x1b, x2b, s1b, s2b) != GDN_OK) {
                fprintf(stderr, "%s: adjoint failed\n", pc->name);
                failed = 1;
                break;
            }
            flat(tv, &t);
            double lhs = dot(tv, tb, 10);
            double rhs = dot(x1, x1b, 6) + dot(x2, x2b, 6) + dot(ds1, s1b, 3) + dot(ds2, s2b, 3);
            // relative to the round-off scale of the sums: sum_i |x_i| sum_k |t(e_i)_k tbar_k|
            // over the 18 input columns (a column can be large when a divisor is small)
            double scale = fmax(1, fabs(lhs));
            double colsum = 0;
            for (int i = 0; i < 18; i++) {
                double e1[6] = {0}, e2[6] = {0}, es1[3] = {0}, es2[3] = {0}, xi;
                if (i < 6) {
                    e1[i] = 1, xi = x1[i];
                } else if (i < 12) {
                    e2[i - 6] = 1, xi = x2[i - 6];
                } else if (i < 15) {
                    es1[i - 12] = 1, xi = ds1[i - 12];
                } else {
                    es2[i - 15] = 1, xi = ds2[i - 15];
                }
                gdnPairTangent ti;
                double tiv[10];
                CHECK(pc->tangent(m, d, c, e1, e2, es1, es2, &ti) == GDN_OK);
                flat(tiv, &ti);
                for (int q = 0; q < 10; q++) {
                    colsum += fabs(xi * tiv[q] * tb[q]);
                }
            }
            scale = fmax(scale, colsum);
            double aerr = fabs(lhs - rhs) / scale;
            st->adj_err[feature] = fmax(st->adj_err[feature], aerr);
            if (!(aerr <= ADJ_TOL)) {
                fprintf(stderr, "%s: feature %d: adjoint identity %.17g vs %.17g (scale %.3g)\n",
                        pc->name, feature, lhs, rhs, scale);
                failed = 1;
                break;
            }

            // envelope identity: motion only, d dist = factor n . (dp2(pos) - dp1(pos))
            gdnPairTangent tm;
            CHECK(pc->tangent(m, d, c, x1, x2, NULL, NULL, &tm) == GDN_OK);
            double dp1[3], dp2[3], rel[3];
            gdn_box_point_motion(dp1, x1, c->pos);
            gdn_box_point_motion(dp2, x2, c->pos);
            gdn_sub3(rel, dp2, dp1);
            double predicted = pc->identity_factor * gdn_dot3(c->frame, rel);
            double ierr = fabs(tm.dist - predicted) / fmax(1, fabs(tm.dist));
            st->id_err[feature] = fmax(st->id_err[feature], ierr);
            if (pc->identity_holds && pc->identity_holds(feature) && !(ierr <= 1e-12)) {
                fprintf(stderr, "%s: feature %d: envelope identity %.17g vs %.17g\n", pc->name,
                        feature, tm.dist, predicted);
                failed = 1;
                break;
            }
        }
    }
    memcpy(m->geom_size, size0, 3 * sizeof(double) * (size_t)m->ngeom);
    gdn_data_free(d);
    gdn_model_free(m);
    CHECK(!failed);

    // report, coverage and the dropped share
    double max_dropped = pc->max_dropped > 0 ? pc->max_dropped : 0.05;
    int dropped_ok = st->dropped < max_dropped * st->contacts;
    printf("%s: %d contacts, %d dropped near a branch boundary (%d of them a jump at the "
           "unperturbed state), %d unsupported\n",
           pc->name, st->contacts, st->dropped, st->dropped_jump, st->unsupported);
    for (int f = 0; f < NFEATURE; f++) {
        if (st->seen[f]) {
            printf("  feature %3d: seen %5d kept %5d  FD %.2e  adjoint %.2e  identity %.2e%s\n",
                   f, st->seen[f], st->kept[f], st->fd_err[f], st->adj_err[f], st->id_err[f],
                   pc->identity_holds && pc->identity_holds(f) ? " (asserted)" : "");
        }
    }
    CHECK(dropped_ok);
    if (pc->unsupported) {
        CHECK(st->contacts > 100 && st->unsupported == st->contacts);
        return 0;
    }
    for (const int* f = pc->required; *f >= 0; f++) {
        if (st->kept[*f] < 3) {
            fprintf(stderr, "%s: feature %d checked only %d times\n", pc->name, *f, st->kept[*f]);
            return 1;
        }
    }
    return 0;
}

static void set_pose(gdnData* d, int g, const double p[3], const double R[9]) {
    memcpy(d->geom_xpos + 3 * g, p, 3 * sizeof(double));
    memcpy(d->geom_xmat + 9 * g, R, 9 * sizeof(double));
}

static void random_box_size(gdnModel* m, int g, unsigned long long* rng) {
    for (int i = 0; i < 3; i++) {
        m->geom_size[3 * g + i] = gdn_test_uniform(rng, 0.05, 0.5);
    }
}

// a point near box g: its center plus R (k s + l) with l uniform in [-extra, extra]
static void near_box(const gdnModel* m, const gdnData* d, int g, double k, double extra,
                     unsigned long long* rng, double out[3]) {
    double local[3];
    for (int i = 0; i < 3; i++) {
        double s = m->geom_size[3 * g + i] * k + extra;
        local[i] = gdn_test_uniform(rng, -s, s);
    }
    gdn_mulmat3(out, d->geom_xmat + 9 * g, local);
    gdn_add3(out, out, d->geom_xpos + 3 * g);
}

static void pose_plane_box(gdnModel* m, gdnData* d, unsigned long long* rng) {
    double p[3], R[9];
    for (int i = 0; i < 3; i++) {
        p[i] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    random_rotation(rng, R);
    set_pose(d, PLANE, p, R);
    random_box_size(m, BOX2, rng);
    double n[3] = {R[2], R[5], R[8]}, q[3];
    double h = gdn_test_uniform(rng, -0.3, 0.6);
    for (int i = 0; i < 3; i++) {
        q[i] = p[i] + n[i] * h + gdn_test_uniform(rng, -0.3, 0.3);
    }
    random_rotation(rng, R);
    set_pose(d, BOX2, q, R);
}

static void pose_box2(gdnModel* m, gdnData* d, unsigned long long* rng) {
    double p[3], R[9];
    for (int i = 0; i < 3; i++) {
        p[i] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    random_rotation(rng, R);
    random_box_size(m, BOX2, rng);
    set_pose(d, BOX2, p, R);
}

static void pose_sphere_box(gdnModel* m, gdnData* d, unsigned long long* rng) {
    pose_box2(m, d, rng);
    double r = gdn_test_uniform(rng, 0.05, 0.4), c[3], R[9];
    m->geom_size[3 * SPHERE] = r;
    near_box(m, d, BOX2, 1.3, r, rng, c);
    random_rotation(rng, R);
    set_pose(d, SPHERE, c, R);
}

static void pose_capsule_box(gdnModel* m, gdnData* d, unsigned long long* rng) {
    pose_box2(m, d, rng);
    double r = gdn_test_uniform(rng, 0.03, 0.3), h = gdn_test_uniform(rng, 0.05, 0.6);
    m->geom_size[3 * CAPSULE] = r;
    m->geom_size[3 * CAPSULE + 1] = h;
    double c[3], R[9];
    near_box(m, d, BOX2, 1.2, r + 0.5 * h, rng, c);
    random_rotation(rng, R);
    set_pose(d, CAPSULE, c, R);
}

static void pose_box_box(gdnModel* m, gdnData* d, unsigned long long* rng) {
    double p[3], R[9], q[3];
    for (int i = 0; i < 3; i++) {
        p[i] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    random_rotation(rng, R);
    random_box_size(m, BOX1, rng);
    random_box_size(m, BOX2, rng);
    set_pose(d, BOX1, p, R);
    double dir[3], reach = 0;
    for (int i = 0; i < 3; i++) {
        dir[i] = gdn_test_uniform(rng, -1, 1);
        reach += m->geom_size[3 * BOX1 + i] + m->geom_size[3 * BOX2 + i];
    }
    gdn_normalize3(dir);
    double k = gdn_test_uniform(rng, 0.15, 0.6) * reach;
    for (int i = 0; i < 3; i++) {
        q[i] = p[i] + dir[i] * k;
    }
    random_rotation(rng, R);
    set_pose(d, BOX2, q, R);
}

static int always(int feature) {
    (void)feature;
    return 1;
}

static int sphere_outside(int feature) { return feature == 0; }

// a segment end against a face, sphere outside: the sphere center is a fixed capsule point
static int capsule_end_outside(int feature) { return feature == 0 || feature == 20; }

// box-box: an incident corner on a face has dist = h / 2 (MuJoCo 2.2.2 stores the halved height)
static int box_corner(int feature) { return feature == 2 || feature == 12; }

static const int req_plane_box[] = {0, 1, 2, 3, 4, 5, 6, 7, -1};
static const int req_sphere_box[] = {0, 1, -1};
static const int req_capsule_box[] = {0, 20, 30, 40, 50, 60, 70, 80, 90, 100, 500, 520, -1};
static const int req_box_box[] = {0, 1, 2, 10, 11, 12, 20, 21, 22, -1};

static const PairCase plane_box = {
    .name = "plane-box", .model = "tangent_box_pairs.xml", .g1 = PLANE, .g2 = BOX2,
    .tangent = gdn_plane_box_tangent, .adjoint = gdn_plane_box_adjoint,
    .pose = pose_plane_box, .required = req_plane_box, .identity_holds = always,
    .identity_factor = 1.0, .tangent_sign = 1.0};
static const PairCase sphere_box = {
    .name = "sphere-box", .model = "tangent_box_pairs.xml", .g1 = SPHERE, .g2 = BOX2,
    .tangent = gdn_sphere_box_tangent, .adjoint = gdn_sphere_box_adjoint,
    .pose = pose_sphere_box, .required = req_sphere_box, .identity_holds = sphere_outside,
    .identity_factor = 1.0, .tangent_sign = 1.0};
static const PairCase capsule_box = {
    .name = "capsule-box", .model = "tangent_box_pairs.xml", .g1 = CAPSULE, .g2 = BOX2,
    .tangent = gdn_capsule_box_tangent, .adjoint = gdn_capsule_box_adjoint,
    .pose = pose_capsule_box, .required = req_capsule_box,
    .identity_holds = capsule_end_outside, .identity_factor = 1.0, .tangent_sign = 1.0};
static const PairCase box_box = {
    .name = "box-box", .model = "tangent_box_pairs.xml", .g1 = BOX1, .g2 = BOX2,
    .tangent = gdn_box_box_tangent, .adjoint = gdn_box_box_adjoint, .pose = pose_box_box,
    .required = req_box_box, .identity_holds = box_corner, .identity_factor = 0.5,
    .tangent_sign = 1.0};

// edge-edge samples with two or more rectangle corners: after the first corner that passes the
// (u, v) test the primal divides by that corner's squared distance (MuJoCo 2.2.2 reuses det)
static int two_edge_corners(const gdnModel* m, const gdnData* d, gdnContact* con, int n, int g1,
                            int g2) {
    int count = 0;
    for (int k = 0; k < n; k++) {
        con[k].geom1 = g1;
        con[k].geom2 = g2;
        count += gdn_box_pair_feature(m, d, con + k) == 21;
    }
    return count >= 2;
}

static const int req_box_box_corners[] = {21, -1};
static const PairCase box_box_corners = {
    .name = "box-box (edge-edge, several rectangle corners)", .model = "tangent_box_pairs.xml",
    .g1 = BOX1, .g2 = BOX2, .tangent = gdn_box_box_tangent, .adjoint = gdn_box_box_adjoint,
    .pose = pose_box_box, .required = req_box_box_corners, .identity_holds = box_corner,
    .identity_factor = 0.5, .tangent_sign = 1.0, .accept = two_edge_corners};

static int test_box_box_corners(void) {
    Stats st;
    if (run_pair(&box_box_corners, &st, 20)) {
        return 1;
    }
    CHECK(st.kept[21] >= 2 * NSAMPLE / 30 * 9 / 10);
    return 0;
}

// ---- general convex pairs (tangent_box_convex.xml) ----
// (the model's ellipsoid, 4, and MPR with a margin: test_contact_tangent_curved)
enum { CPLANE = 0, CBOX = 1, CPOLY = 2, CTETRA = 3 };

// geom g2 near geom g1: its center at g1's plus a random direction times k (rbound sum)
static void pose_near(gdnModel* m, gdnData* d, int g1, int g2, double k0, double k1,
                      unsigned long long* rng) {
    double p[3], R[9], q[3], dir[3];
    for (int i = 0; i < 3; i++) {
        p[i] = gdn_test_uniform(rng, -0.5, 0.5);
        dir[i] = gdn_test_uniform(rng, -1, 1);
    }
    random_rotation(rng, R);
    set_pose(d, g1, p, R);
    gdn_normalize3(dir);
    double k = gdn_test_uniform(rng, k0, k1) * (m->geom_rbound[g1] + m->geom_rbound[g2]);
    for (int i = 0; i < 3; i++) {
        q[i] = p[i] + dir[i] * k;
    }
    random_rotation(rng, R);
    set_pose(d, g2, q, R);
}

static void pose_plane_poly(gdnModel* m, gdnData* d, unsigned long long* rng) {
    double p[3], R[9], q[3];
    for (int i = 0; i < 3; i++) {
        p[i] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    random_rotation(rng, R);
    set_pose(d, CPLANE, p, R);
    double n[3] = {R[2], R[5], R[8]};
    double h = gdn_test_uniform(rng, -0.3, 1.0) * m->geom_rbound[CPOLY];
    for (int i = 0; i < 3; i++) {
        q[i] = p[i] + n[i] * h + gdn_test_uniform(rng, -0.3, 0.3);
    }
    random_rotation(rng, R);
    set_pose(d, CPOLY, q, R);
}

static void pose_box_poly(gdnModel* m, gdnData* d, unsigned long long* rng) {
    random_box_size(m, CBOX, rng);
    pose_near(m, d, CBOX, CPOLY, 0.1, 0.7, rng);
}

static void pose_poly_tetra(gdnModel* m, gdnData* d, unsigned long long* rng) {
    pose_near(m, d, CPOLY, CTETRA, 0.1, 0.6, rng);
}

static int mpr_identity(int feature) {
    (void)feature;
    return 0;
}

static const int req_plane_poly[] = {-1};
static const int req_mpr[] = {0, -1};

static const PairCase plane_poly = {
    .name = "plane-mesh", .model = "tangent_box_convex.xml", .g1 = CPLANE, .g2 = CPOLY,
    .tangent = gdn_plane_mesh_tangent, .adjoint = gdn_plane_mesh_adjoint,
    .pose = pose_plane_poly, .required = req_plane_poly, .identity_holds = always,
    .identity_factor = 1.0, .tangent_sign = 1.0};
static const PairCase box_poly = {
    .name = "box-mesh (MPR)", .model = "tangent_box_convex.xml", .g1 = CBOX, .g2 = CPOLY,
    .tangent = gdn_convex_mpr_tangent, .adjoint = gdn_convex_mpr_adjoint,
    .pose = pose_box_poly, .required = req_mpr, .identity_holds = mpr_identity,
    .identity_factor = 1.0, .tangent_sign = 1.0, .max_dropped = 0.3};
static const PairCase poly_tetra = {
    .name = "mesh-mesh (MPR)", .model = "tangent_box_convex.xml", .g1 = CPOLY, .g2 = CTETRA,
    .tangent = gdn_convex_mpr_tangent, .adjoint = gdn_convex_mpr_adjoint,
    .pose = pose_poly_tetra, .required = req_mpr, .identity_holds = mpr_identity,
    .identity_factor = 1.0, .tangent_sign = 1.0, .max_dropped = 0.3};
static int test_plane_mesh(void) {
    Stats st;
    if (run_pair(&plane_poly, &st, 15)) {
        return 1;
    }
    int kinds = 0;
    for (int f = 0; f < NFEATURE; f++) {
        kinds += st.kept[f] > 0;
    }
    CHECK(kinds >= 5);
    return 0;
}

static int test_mpr_box_mesh(void) {
    Stats st;
    return run_pair(&box_poly, &st, 16);
}

static int test_mpr_mesh_mesh(void) {
    Stats st;
    return run_pair(&poly_tetra, &st, 17);
}

static int test_plane_box(void) {
    Stats st;
    return run_pair(&plane_box, &st, 11);
}

static int test_sphere_box(void) {
    Stats st;
    return run_pair(&sphere_box, &st, 12);
}

static int test_capsule_box(void) {
    Stats st;
    return run_pair(&capsule_box, &st, 13);
}

static int test_box_box(void) {
    Stats st;
    return run_pair(&box_box, &st, 14);
}

// The driver's contacts of a simulated scene (frames completed, repeats removed): every box-pair
// contact is matched, its tangent agrees with central differences of its pair function and its
// adjoint passes the identity, at several times of a falling and settling rollout. Matched by
// position only (a capsule lying flat on a face ties its two ends: the same points under either
// label). A settled box on a box with parallel faces sits at a tie of the separating axes (face
// of box 1 = face of box 2 = an edge pair): under a perturbation the primal switches between
// face points (dist = h / 2, MuJoCo 2.2.2) and edge points (dist = h), a jump of the primal
// itself; such contacts are counted as dropped (fewer than 5% allowed).
static int test_driver_contacts(void) {
    gdnModel* m = gdn_test_load_model_as_is("tangent_box_scene.xml");
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 21;
    int checked = 0, dropped = 0, kinds[4] = {0};
    double worst = 0;
    for (int step = 0; step < 400; step++) {
        CHECK(gdn_step(m, d) == GDN_OK);
        if (step % 20 != 19) {
            continue;
        }
        CHECK(gdn_forward(m, d) == GDN_OK);
        for (int i = 0; i < d->ncon; i++) {
            const gdnContact* c = d->contact + i;
            if (m->geom_type[c->geom2] != GDN_GEOM_BOX) {
                continue;
            }
            int t1 = m->geom_type[c->geom1];
            PairCase pc = t1 == GDN_GEOM_PLANE    ? plane_box
                          : t1 == GDN_GEOM_SPHERE ? sphere_box
                          : t1 == GDN_GEOM_CAPSULE ? capsule_box
                                                   : box_box;
            pc.g1 = c->geom1;
            pc.g2 = c->geom2;
            int feature = gdn_box_pair_feature(m, d, c);
            CHECK(feature >= 0);
            double x1[6], x2[6], ds1[3] = {0}, ds2[3];
            for (int k = 0; k < 6; k++) {
                x1[k] = gdn_test_uniform(&rng, -1, 1);
                x2[k] = gdn_test_uniform(&rng, -1, 1);
            }
            for (int k = 0; k < 3; k++) {
                if (t1 != GDN_GEOM_PLANE) {
                    ds1[k] = gdn_test_uniform(&rng, -1, 1);
                }
                ds2[k] = gdn_test_uniform(&rng, -1, 1);
            }
            gdnPairTangent t;
            CHECK(pc.tangent(m, d, c, x1, x2, ds1, ds2, &t) == GDN_OK);
            double tv[10], fd[10], fd2[10], ref[10];
            flat(tv, &t);
            double jump = 0;
            if (!central(m, d, &pc, c, -1, x1, x2, ds1, ds2, STEP, fd, &jump) ||
                !central(m, d, &pc, c, -1, x1, x2, ds1, ds2, 2 * STEP, fd2, NULL) ||
                gdn_test_relerr(fd2, fd, 10, 1e-3) > 1e-4 || jump > 1e-2) {
                dropped++;
                continue;
            }
            for (int k = 0; k < 10; k++) {
                ref[k] = (4 * fd[k] - fd2[k]) / 3;
            }
            double err = gdn_test_relerr(tv, ref, 10, 1e-3);
            worst = fmax(worst, err);
            if (!(err <= FD_TOL)) {
                fprintf(stderr, "step %d contact %d geoms %d %d feature %d dist %g: FD %.3g\n",
                        step, i, c->geom1, c->geom2, feature, c->dist, err);
                gdn_test_print_worst(tv, ref, 10);
                return 1;
            }
            gdnPairTangent tbar = {
                .dist = 0.3, .pos = {-0.2, 0.5, 0.7}, .normal = {0.1, -0.4, 0.9}};
            double x1b[6] = {0}, x2b[6] = {0}, s1b[3] = {0}, s2b[3] = {0};
            CHECK(pc.adjoint(m, d, c, &tbar, x1b, x2b, s1b, s2b) == GDN_OK);
            double lhs = t.dist * tbar.dist + gdn_dot3(t.pos, tbar.pos) +
                         gdn_dot3(t.normal, tbar.normal);
            double rhs = dot(x1, x1b, 6) + dot(x2, x2b, 6) + dot(ds1, s1b, 3) + dot(ds2, s2b, 3);
            CHECK_NEAR(lhs, rhs, 1e-12, 1e-12);
            checked++;
            kinds[t1 == GDN_GEOM_PLANE    ? 0
                  : t1 == GDN_GEOM_SPHERE ? 1
                  : t1 == GDN_GEOM_CAPSULE ? 2
                                           : 3]++;
        }
    }
    printf("driver contacts: %d checked (plane-box %d, sphere-box %d, capsule-box %d, box-box %d), "
           "max FD relative error %.2e; %d at a branch boundary (dropped)\n",
           checked, kinds[0], kinds[1], kinds[2], kinds[3], worst, dropped);
    gdn_data_free(d);
    gdn_model_free(m);
    for (int k = 0; k < 4; k++) {
        CHECK(kinds[k] > 0);
    }
    CHECK(dropped * 20 < checked + dropped);
    return 0;
}

// bad input: a contact of another pair, geom ids out of range, a contact the pair does not
// produce at this state, NULL arguments: GDN_ERR_ARG, never a crash; NULL tangents are zero
static int test_bad_input(void) {
    gdnModel* m = gdn_test_load_model_as_is("tangent_box_pairs.xml");
    CHECK(m != NULL);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 31;
    gdnContact con[GDN_MAXCONPAIR];
    int n = 0;
    while (n == 0) {
        pose_box_box(m, d, &rng);
        n = gdn_collide_box_box(m, d, con, BOX1, BOX2, gdn_box_pair_margin(m, BOX1, BOX2));
    }
    con[0].geom1 = BOX1;
    con[0].geom2 = BOX2;
    gdnPairTangent t;
    double x[6] = {1, 0, 0, 0, 1, 0}, xb[6] = {0};
    CHECK(gdn_box_box_tangent(m, d, con, x, NULL, NULL, NULL, &t) == GDN_OK);
    CHECK(gdn_box_box_tangent(m, d, con, NULL, NULL, NULL, NULL, &t) == GDN_OK);
    CHECK(t.dist == 0 && t.pos[0] == 0 && t.normal[2] == 0);
    CHECK(gdn_box_box_adjoint(m, d, con, &t, NULL, NULL, NULL, NULL) == GDN_OK);
    CHECK(gdn_sphere_box_tangent(m, d, con, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_convex_mpr_tangent(m, d, con, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_box_tangent(NULL, d, con, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_box_tangent(m, NULL, con, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_box_tangent(m, d, NULL, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_box_tangent(m, d, con, x, NULL, NULL, NULL, NULL) == GDN_ERR_ARG);
    CHECK(gdn_box_box_adjoint(m, d, con, NULL, xb, NULL, NULL, NULL) == GDN_ERR_ARG);
    gdnContact bad = con[0];
    bad.geom2 = m->ngeom;
    CHECK(gdn_box_box_tangent(m, d, &bad, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_pair_feature(m, d, &bad) == -1);
    bad = con[0];
    bad.pos[0] += 1e-3; // not a contact of this pair at this state
    CHECK(gdn_box_box_tangent(m, d, &bad, x, NULL, NULL, NULL, &t) == GDN_ERR_ARG);
    CHECK(gdn_box_box_adjoint(m, d, &bad, &t, xb, NULL, NULL, NULL) == GDN_ERR_ARG);
    for (int i = 0; i < 6; i++) {
        CHECK(xb[i] == 0); // nothing accumulated on failure
    }
    CHECK(gdn_box_pair_tangent_fn(GDN_GEOM_BOX, GDN_GEOM_BOX) == gdn_box_box_tangent);
    CHECK(gdn_box_pair_adjoint_fn(GDN_GEOM_PLANE, GDN_GEOM_MESH) == gdn_plane_mesh_adjoint);
    CHECK(gdn_box_pair_tangent_fn(GDN_GEOM_CYLINDER, GDN_GEOM_BOX) == gdn_convex_mpr_tangent);
    CHECK(gdn_box_pair_tangent_fn(GDN_GEOM_PLANE, GDN_GEOM_SPHERE) == NULL);
    CHECK(gdn_box_pair_adjoint_fn(GDN_GEOM_BOX, GDN_GEOM_PLANE) == NULL);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"plane_box", test_plane_box},
    {"sphere_box", test_sphere_box},
    {"capsule_box", test_capsule_box},
    {"box_box", test_box_box},
    {"box_box_corners", test_box_box_corners},
    {"driver_contacts", test_driver_contacts},
    {"plane_mesh", test_plane_mesh},
    {"mpr_box_mesh", test_mpr_box_mesh},
    {"mpr_mesh_mesh", test_mpr_mesh_mesh},
    {"bad_input", test_bad_input},
};

GDN_TEST_MAIN(cases)
