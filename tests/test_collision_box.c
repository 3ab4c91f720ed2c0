// SPDX-License-Identifier: Apache-2.0
// Box collision pairs (plane-box, sphere-box, capsule-box, box-box) against MuJoCo 2.2.2.
//
// Each case is a model with a plane and two free bodies (geom a, geom b), loaded in both
// engines. For random and degenerate relative poses MuJoCo runs mj_kinematics + mj_collision;
// its contacts of the pair under test are the reference. Two comparisons:
//  - direct: MuJoCo's geom poses are copied into gradyn's data and our pair function is called
//    (box-box with the driver's removal of repeated points applied here), so the collision
//    routine alone is measured;
//  - driver: gradyn's own kinematics + gdn_collision, every contact of the scene (frames
//    completed) against MuJoCo's.
// Tolerance 1e-9 (absolute; sizes and poses are O(1)): these routines are closed form and
// perform MuJoCo's operations in MuJoCo's order, so they agree to round-off (measured 0 for the
// direct comparison); the driver comparison adds our kinematics' round-off (~1e-16) which can only
// matter at a branch boundary, which random poses hit with probability ~0.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "collision/narrowphase.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define TOL 1e-9
#define PI 3.14159265358979323846
#define NRANDOM 4000

typedef struct PairCase {
    const char* name;
    const char* geom_a; // type="..." size="..." of body a's geom ("" for plane-box: none)
    const char* geom_b; // body b's geom (the box)
    double margin;
} PairCase;

typedef struct PairStats {
    int calls, with_contacts, ncon, filtered, count_mismatch, max_count;
    int hist[9]; // number of samples with n contacts (8: 8 or more)
    double err_dist, err_pos, err_normal, err_driver;
} PairStats;

// geoms of the test model: 0 the plane, 1 body a's geom, 2 body b's geom
enum { PLANE = 0, GEOM_A = 1, GEOM_B = 2 };

static int write_model(const char* path, const PairCase* pc) {
    FILE* f = fopen(path, "w");
    if (!f) {
        return 1;
    }
    fprintf(f,
            "<mujoco>\n"
            "  <compiler angle=\"radian\"/>\n"
            "  <option gravity=\"0 0 0\"/>\n"
            "  <worldbody>\n"
            "    <geom type=\"plane\" size=\"5 5 0.1\" margin=\"%.17g\"/>\n"
            "    <body pos=\"0 0 1\"><freejoint/><geom %s margin=\"%.17g\"/></body>\n"
            "    <body pos=\"0 0 2\"><freejoint/><geom %s margin=\"%.17g\"/></body>\n"
            "  </worldbody>\n"
            "</mujoco>\n",
            pc->margin, pc->geom_a, pc->margin, pc->geom_b, pc->margin);
    fclose(f);
    return 0;
}

static void random_unit(unsigned long long* rng, double v[3]) {
    double n = 0;
    while (n < 1e-3) {
        for (int i = 0; i < 3; i++) {
            v[i] = gdn_test_uniform(rng, -1, 1);
        }
        n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    for (int i = 0; i < 3; i++) {
        v[i] /= n;
    }
}

static void random_quat(unsigned long long* rng, double q[4]) {
    double axis[3];
    random_unit(rng, axis);
    double angle = gdn_test_uniform(rng, -PI, PI);
    q[0] = cos(angle / 2);
    for (int i = 0; i < 3; i++) {
        q[i + 1] = sin(angle / 2) * axis[i];
    }
}

// q = a * b
static void quat_mul(double q[4], const double a[4], const double b[4]) {
    double r[4];
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    memcpy(q, r, sizeof(r));
}

static void axis_quat(double q[4], int axis, double angle) {
    q[0] = cos(angle / 2);
    q[1] = q[2] = q[3] = 0;
    q[axis + 1] = sin(angle / 2);
}

// a pose of body a and b: positions and quaternions
typedef struct Pose {
    double pa[3], qa[4], pb[3], qb[4];
} Pose;

static double size_of(const mjModel* mm, int g, int k) {
    return mm->geom_size[3 * g + k];
}

// Draw a relative pose: family 0 random (center distance from 0 to 1.1 x the sum of bounding
// radii, so deep, touching, within margin and apart), 1 aligned faces (exact axis rotations, b
// above a's top face at a random depth), 2 edge across edge, 3 corner of b down on a's face,
// 4 b's long axis parallel to a's top face (capsule parallel to a face), 5 tiny perturbations of
// an exactly aligned stack (near-parallel faces).
// on_plane: the structured families put b on the plane z = 0 instead of on a (a is then parked
// far above)
static void draw_pose(unsigned long long* rng, const mjModel* mm, int family, int on_plane,
                     Pose* p) {
    random_quat(rng, p->qa);
    random_quat(rng, p->qb);
    for (int i = 0; i < 3; i++) {
        p->pa[i] = gdn_test_uniform(rng, -0.5, 0.5);
    }
    double rsum = mm->geom_rbound[GEOM_A] + mm->geom_rbound[GEOM_B];
    double margin = mm->geom_margin[GEOM_B];
    double depth = gdn_test_uniform(rng, -1.5 * margin - 0.01, 0.2);
    if (family == 0) {
        double dir[3];
        random_unit(rng, dir);
        double r = gdn_test_uniform(rng, 0, 1.1 * rsum);
        for (int i = 0; i < 3; i++) {
            p->pb[i] = p->pa[i] + r * dir[i];
        }
        return;
    }
    // the structured families work in a's frame with a's z up; a is axis-aligned
    static const double exact[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    memcpy(p->qa, exact[on_plane ? 0 : (int)gdn_test_uniform(rng, 0, 4)], sizeof(p->qa));
    if (on_plane) {
        p->pa[0] = p->pa[1] = p->pa[2] = 0;
    }
    double top = mm->geom_type[GEOM_A] == mjGEOM_BOX ? size_of(mm, GEOM_A, 2) : 0;
    if (mm->geom_type[GEOM_A] == mjGEOM_SPHERE) {
        top = size_of(mm, GEOM_A, 0);
    } else if (mm->geom_type[GEOM_A] == mjGEOM_CAPSULE) {
        top = size_of(mm, GEOM_A, 0);
    }
    double qa_mat[9];
    mju_quat2Mat(qa_mat, p->qa);
    double local[3] = {0, 0, 0}, extent_b = 0;
    double qrel[4] = {1, 0, 0, 0}, tmp[4];
    if (family == 1 || family == 5) {
        memcpy(qrel, exact[(int)gdn_test_uniform(rng, 0, 4)], sizeof(qrel));
        double rz[4];
        axis_quat(rz, 2, PI / 2 * (int)gdn_test_uniform(rng, 0, 4));
        quat_mul(qrel, rz, qrel);
        if (family == 5) {
            double tilt[4];
            double axis[3];
            random_unit(rng, axis);
            double angle = gdn_test_uniform(rng, -1e-9, 1e-9);
            tilt[0] = cos(angle / 2);
            for (int i = 0; i < 3; i++) {
                tilt[i + 1] = sin(angle / 2) * axis[i];
            }
            quat_mul(qrel, tilt, qrel);
        }
        local[0] = gdn_test_uniform(rng, -1, 1) * (family == 5 ? 0.0 : 0.6);
        local[1] = gdn_test_uniform(rng, -1, 1) * (family == 5 ? 0.0 : 0.6);
    } else if (family == 2) {
        // b rotated 45 deg about x then by a random angle about z; a's top edge along x
        double rx[4], rz[4];
        axis_quat(rx, 0, PI / 4);
        axis_quat(rz, 2, gdn_test_uniform(rng, -PI, PI));
        quat_mul(qrel, rz, rx);
        local[1] = size_of(mm, GEOM_A, 1);
        local[0] = gdn_test_uniform(rng, -0.3, 0.3);
    } else if (family == 3) {
        // b's (1,1,1) diagonal pointing down: rotate (1,1,1)/sqrt3 to -z, then random spin about z
        double from[3] = {1 / sqrt(3), 1 / sqrt(3), 1 / sqrt(3)}, to[3] = {0, 0, -1}, axis[3];
        mju_cross(axis, from, to);
        double s = mju_normalize3(axis);
        double angle = atan2(s, mju_dot3(from, to));
        double rc[4], rz[4];
        axis_quat(rz, 2, gdn_test_uniform(rng, -PI, PI));
        rc[0] = cos(angle / 2);
        for (int i = 0; i < 3; i++) {
            rc[i + 1] = sin(angle / 2) * axis[i];
        }
        quat_mul(qrel, rz, rc);
        local[0] = gdn_test_uniform(rng, -0.3, 0.3);
        local[1] = gdn_test_uniform(rng, -0.3, 0.3);
    } else {
        // b's z axis along a's x (a capsule lying flat), random angle about a's z
        double ry[4], rz[4];
        axis_quat(ry, 1, PI / 2);
        axis_quat(rz, 2, gdn_test_uniform(rng, -0.3, 0.3) * (gdn_test_uniform(rng, 0, 1) < 0.5));
        quat_mul(qrel, rz, ry);
        local[0] = gdn_test_uniform(rng, -0.4, 0.4);
        local[1] = gdn_test_uniform(rng, -0.4, 0.4);
    }
    // b's lowest extent below its center along a's z
    double rel_mat[9];
    mju_quat2Mat(rel_mat, qrel);
    int tb = mm->geom_type[GEOM_B];
    for (int k = 0; k < 3; k++) {
        extent_b += size_of(mm, GEOM_B, k) * fabs(rel_mat[6 + k]);
    }
    if (tb != mjGEOM_BOX) {
        extent_b = size_of(mm, GEOM_B, 0);
    }
    local[2] = (on_plane ? 0 : top) + extent_b - depth;
    quat_mul(tmp, p->qa, qrel);
    memcpy(p->qb, tmp, sizeof(tmp));
    double world[3];
    mju_mulMatVec(world, qa_mat, local, 3, 3);
    for (int i = 0; i < 3; i++) {
        p->pb[i] = p->pa[i] + world[i];
    }
}

static void set_pose(mjData* md, gdnData* gd, const Pose* p) {
    double qpos[14];
    memcpy(qpos, p->pa, 3 * sizeof(double));
    memcpy(qpos + 3, p->qa, 4 * sizeof(double));
    memcpy(qpos + 7, p->pb, 3 * sizeof(double));
    memcpy(qpos + 10, p->qb, 4 * sizeof(double));
    mju_normalize4(qpos + 3);
    mju_normalize4(qpos + 10);
    memcpy(md->qpos, qpos, sizeof(qpos));
    memcpy(gd->qpos, qpos, sizeof(qpos));
}

// MuJoCo's driver drops a box-box contact whose position repeats exactly in a later one
static int remove_repeated(gdnContact* con, int n) {
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int repeated = 0;
        for (int j = i + 1; j < n && !repeated; j++) {
            repeated = con[i].pos[0] == con[j].pos[0] && con[i].pos[1] == con[j].pos[1] &&
                       con[i].pos[2] == con[j].pos[2];
        }
        if (!repeated) {
            con[kept++] = con[i];
        }
    }
    return kept;
}

static double max_diff(const double* a, const double* b, int n) {
    double e = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        e = (d > e || d != d) ? d : e;
    }
    return e;
}

// MuJoCo's bounding-sphere filters that run before the pair function
static int mj_prefiltered(const mjModel* mm, const mjData* md, int g1, int g2, double margin) {
    if (mm->geom_rbound[g1] > 0 && mm->geom_rbound[g2] > 0 &&
        mju_dist3(md->geom_xpos + 3 * g1, md->geom_xpos + 3 * g2) >
            mm->geom_rbound[g1] + mm->geom_rbound[g2] + margin) {
        return 1;
    }
    if (mm->geom_type[g1] == mjGEOM_PLANE) {
        double diff[3];
        mju_sub3(diff, md->geom_xpos + 3 * g2, md->geom_xpos + 3 * g1);
        const double* mat = md->geom_xmat + 9 * g1;
        double h = diff[0] * mat[2] + diff[1] * mat[5] + diff[2] * mat[8];
        if (h > margin + mm->geom_rbound[g2]) {
            return 1;
        }
    }
    return 0;
}

// one pose: the direct comparison of the pair function, then the driver comparison
static int compare_pose(gdnOracle* o, int g1, int g2, gdnCollideFn fn, PairStats* st, int verbose) {
    mjModel* mm = o->mm;
    mjData* md = o->md;
    gdnModel* gm = o->gm;
    gdnData* gd = o->gd;
    mj_kinematics(mm, md);
    mj_collision(mm, md);
    double margin = fmax(mm->geom_margin[g1], mm->geom_margin[g2]);

    // MuJoCo's contacts of the pair, in its order
    int ref[GDN_MAXCONPAIR], nref = 0;
    for (int i = 0; i < md->ncon && nref < GDN_MAXCONPAIR; i++) {
        if (md->contact[i].geom1 == g1 && md->contact[i].geom2 == g2) {
            ref[nref++] = i;
        }
    }

    // direct: our pair function on MuJoCo's geom poses
    memcpy(gd->geom_xpos, md->geom_xpos, sizeof(double) * 3 * (size_t)mm->ngeom);
    memcpy(gd->geom_xmat, md->geom_xmat, sizeof(double) * 9 * (size_t)mm->ngeom);
    gdnContact con[GDN_MAXCONPAIR];
    memset(con, 0, sizeof(con));
    int n = 0;
    st->calls++;
    if (mj_prefiltered(mm, md, g1, g2, margin)) {
        st->filtered++;
    } else {
        n = fn(gm, gd, con, g1, g2, margin);
        if (mm->geom_type[g1] == mjGEOM_BOX && mm->geom_type[g2] == mjGEOM_BOX) {
            n = remove_repeated(con, n);
        }
    }
    if (n != nref) {
        st->count_mismatch++;
        if (verbose) {
            fprintf(stderr, "  count: gradyn %d, MuJoCo %d\n", n, nref);
        }
        return 1;
    }
    st->hist[n < 8 ? n : 8]++;
    st->max_count = n > st->max_count ? n : st->max_count;
    st->with_contacts += n > 0;
    st->ncon += n;
    for (int i = 0; i < n; i++) {
        const mjContact* c = md->contact + ref[i];
        double ed = fabs(con[i].dist - c->dist);
        double ep = max_diff(con[i].pos, c->pos, 3);
        double en = max_diff(con[i].frame, c->frame, 3);
        double zero[3] = {0, 0, 0};
        en = fmax(en, max_diff(con[i].frame + 3, zero, 3)); // no tangent hint for box pairs
        st->err_dist = fmax(st->err_dist, ed);
        st->err_pos = fmax(st->err_pos, ep);
        st->err_normal = fmax(st->err_normal, en);
        if (!(ed <= TOL && ep <= TOL && en <= TOL)) {
            if (verbose) {
                fprintf(stderr, "  contact %d: dist err %.3g, pos err %.3g, normal err %.3g\n",
                        i, ed, ep, en);
            }
            return 1;
        }
    }

    // driver: our kinematics and gdn_collision, every contact of the scene
    gdn_kinematics(gm, gd);
    if (gdn_collision(gm, gd) != GDN_OK || gd->ncon != md->ncon) {
        if (verbose) {
            fprintf(stderr, "  driver: gradyn ncon %d, MuJoCo %d\n", gd->ncon, md->ncon);
        }
        st->count_mismatch++;
        return 1;
    }
    for (int i = 0; i < gd->ncon; i++) {
        const gdnContact* a = gd->contact + i;
        const mjContact* b = md->contact + i;
        double e = fmax(fabs(a->dist - b->dist), max_diff(a->pos, b->pos, 3));
        e = fmax(e, max_diff(a->frame, b->frame, 9));
        if (a->geom1 != b->geom1 || a->geom2 != b->geom2) {
            e = INFINITY;
        }
        st->err_driver = fmax(st->err_driver, e);
        if (!(e <= TOL)) {
            if (verbose) {
                fprintf(stderr, "  driver contact %d: error %.3g\n", i, e);
            }
            return 1;
        }
    }
    return 0;
}

static int run_pair(const PairCase* pc, int g1, int g2) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/test_collision_box_%s.xml", GDN_BINARY_DIR, pc->name);
    if (write_model(path, pc)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    gdnOracle o;
    if (gdn_oracle_load(&o, path)) {
        return 1;
    }
    o.mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    o.gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    gdnCollideFn fn = gdn_collide_function(o.mm->geom_type[g1], o.mm->geom_type[g2]);
    CHECK(fn != NULL);

    PairStats st = {0};
    unsigned long long rng = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)strlen(pc->name);
    int failures = 0;
    for (int s = 0; s < NRANDOM; s++) {
        int family = s < NRANDOM / 2 ? 0 : 1 + s % 5;
        Pose p;
        draw_pose(&rng, o.mm, family, g1 == PLANE, &p);
        if (g1 == PLANE) {
            // plane-box: body a is parked far away; box b near the plane
            p.pa[2] = 50;
            p.pb[0] = gdn_test_uniform(&rng, -1, 1);
            p.pb[1] = gdn_test_uniform(&rng, -1, 1);
            if (family == 0) {
                p.pb[2] = gdn_test_uniform(&rng, -0.5, 1.5) * o.mm->geom_rbound[GEOM_B];
            }
        }
        set_pose(o.md, o.gd, &p);
        if (compare_pose(&o, g1, g2, fn, &st, failures < 3)) {
            if (failures < 3) {
                fprintf(stderr, "%s: sample %d (family %d) differs\n", pc->name, s, family);
            }
            failures++;
        }
    }
    printf("%-16s margin %.2g: %d poses, %d with contacts (%d contacts; by count 0..8+:", pc->name,
           pc->margin, st.calls, st.with_contacts, st.ncon);
    for (int i = 0; i < 9; i++) {
        printf(" %d", st.hist[i]);
    }
    printf(", max %d), %d prefiltered; max |err| dist %.3g pos %.3g normal %.3g, driver %.3g; "
           "%d failed\n",
           st.max_count, st.filtered, st.err_dist, st.err_pos, st.err_normal, st.err_driver,
           failures);
    gdn_oracle_free(&o);
    CHECK(failures == 0);
    return 0;
}

static const PairCase plane_box = {"plane_box", "type=\"sphere\" size=\"0.1\"",
                                   "type=\"box\" size=\"0.3 0.2 0.1\"", 0.02};
static const PairCase plane_cube = {"plane_cube", "type=\"sphere\" size=\"0.1\"",
                                    "type=\"box\" size=\"0.25 0.25 0.25\"", 0};
static const PairCase sphere_box = {"sphere_box", "type=\"sphere\" size=\"0.15\"",
                                    "type=\"box\" size=\"0.3 0.2 0.1\"", 0.02};
static const PairCase sphere_cube = {"sphere_cube", "type=\"sphere\" size=\"0.4\"",
                                     "type=\"box\" size=\"0.2 0.2 0.2\"", 0};
static const PairCase capsule_box = {"capsule_box", "type=\"capsule\" size=\"0.1 0.3\"",
                                     "type=\"box\" size=\"0.3 0.2 0.1\"", 0.02};
static const PairCase capsule_cube = {"capsule_cube", "type=\"capsule\" size=\"0.05 0.5\"",
                                      "type=\"box\" size=\"0.2 0.2 0.2\"", 0};
static const PairCase box_box = {"box_box", "type=\"box\" size=\"0.3 0.2 0.1\"",
                                 "type=\"box\" size=\"0.25 0.15 0.2\"", 0.02};
static const PairCase cube_cube = {"cube_cube", "type=\"box\" size=\"0.2 0.2 0.2\"",
                                   "type=\"box\" size=\"0.2 0.2 0.2\"", 0};
static const PairCase plate_bar = {"plate_bar", "type=\"box\" size=\"0.5 0.5 0.05\"",
                                   "type=\"box\" size=\"0.6 0.05 0.05\"", 0.01};

static int test_plane_box(void) {
    CHECK(run_pair(&plane_box, PLANE, GEOM_B) == 0);
    CHECK(run_pair(&plane_cube, PLANE, GEOM_B) == 0);
    return 0;
}

static int test_sphere_box(void) {
    CHECK(run_pair(&sphere_box, GEOM_A, GEOM_B) == 0);
    CHECK(run_pair(&sphere_cube, GEOM_A, GEOM_B) == 0);
    return 0;
}

static int test_capsule_box(void) {
    CHECK(run_pair(&capsule_box, GEOM_A, GEOM_B) == 0);
    CHECK(run_pair(&capsule_cube, GEOM_A, GEOM_B) == 0);
    return 0;
}

static int test_box_box(void) {
    CHECK(run_pair(&box_box, GEOM_A, GEOM_B) == 0);
    CHECK(run_pair(&cube_cube, GEOM_A, GEOM_B) == 0);
    CHECK(run_pair(&plate_bar, GEOM_A, GEOM_B) == 0);
    return 0;
}

// gdnOption.box_edge_bias: a finger box pressed flat against a larger aligned block, a few
// microns deep and turned by 1e-13..1e-12 rad about z. There a_i x b_j (finger y x block z) is
// the face normal x itself, so its overlap equals the face's up to round-off and MuJoCo's
// relative 1e-12 preference (6e-18 m here) decides nothing: bias 0 (MuJoCo's rule) picks the
// edge pair on some poses (one or two points instead of the face's four), bias 1e-9 m never
static int test_box_edge_bias(void) {
    const char* xml = "<mujoco><worldbody>"
                      "<body><freejoint/><geom type=\"box\" size=\"0.02 0.04 0.04\"/></body>"
                      "<body><freejoint/><geom type=\"box\" size=\"0.05 0.05 0.05\"/></body>"
                      "</worldbody></mujoco>";
    gdnModel* m = NULL;
    char err[256];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) ==
          GDN_OK);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    int edge[2] = {0, 0}, poses = 0;
    for (int i = 0; i < 40; i++) {
        for (int j = 0; j < 40; j++) {
            const double depth = 1e-6 + 2.5e-7 * i, angle = 1e-13 * (1 + 0.25 * j);
            const double c = cos(angle), sn = sin(angle);
            // finger (geom 0) left of the block (geom 1), its +x face depth into the block's -x
            const double R[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
            const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            const double pf[3] = {-0.07 + depth, 0, 1}, pb[3] = {0, 0, 1};
            memcpy(d->geom_xpos, pf, sizeof(pf));
            memcpy(d->geom_xmat, R, sizeof(R));
            memcpy(d->geom_xpos + 3, pb, sizeof(pb));
            memcpy(d->geom_xmat + 9, I, sizeof(I));
            for (int b = 0; b < 2; b++) {
                gdnModel mb = *m;
                mb.opt.box_edge_bias = b ? 1e-9 : 0;
                gdnContact con[8];
                const int n = gdn_collide_box_box(&mb, d, con, 0, 1, 0);
                CHECK(n >= 1);
                edge[b] += n < 4;
            }
            poses++;
        }
    }
    printf("  aligned shallow box-box, %d poses: fewer than the face's 4 contacts on %d with "
           "MuJoCo's rule, on %d with box_edge_bias 1e-9 m\n",
           poses, edge[0], edge[1]);
    CHECK(edge[0] > 0 && edge[1] == 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"box_edge_bias", test_box_edge_bias},
    {"plane_box", test_plane_box},
    {"sphere_box", test_sphere_box},
    {"capsule_box", test_capsule_box},
    {"box_box", test_box_box},
};

GDN_TEST_MAIN(cases)
