// SPDX-License-Identifier: Apache-2.0
// Collision detection against MuJoCo 2.2.2's mj_collision: primitive pairs in random poses,
// filters, explicit pairs, excludes, the bounded buffer, determinism and humanoid.xml at rest.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "collision/narrowphase.h"
#include "oracle/from_mujoco.h"
#include "oracle/mj_from_string.h"
#include "oracle/oracle.h"
#include "runner/test.h"

// geometric agreement with MuJoCo's closed forms (dist, pos, frame)
#define TOL 1e-9

// worst differences seen, printed at the end of each case
static double g_worst_dist, g_worst_pos, g_worst_frame;

// a model in both engines: MuJoCo's compiled from an MJCF string, gradyn's copied from it (the
// collision stage alone under test; the loader's <pair>/<exclude> are tested separately)
typedef struct {
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
} Pair2;

static int load_both(Pair2* p, const char* xml, int nconmax) {
    p->mm = gdn_oracle_mj_from_string(xml);
    if (!p->mm) {
        return 1;
    }
    p->md = mj_makeData(p->mm);
    p->gm = gdn_model_from_mujoco(p->mm);
    if (nconmax > 0) {
        p->gm->nconmax = nconmax;
    }
    if (!p->gm || gdn_data_create(p->gm, &p->gd) != GDN_OK) {
        return 1;
    }
    return 0;
}

static void free_both(Pair2* p) {
    gdn_data_free(p->gd);
    gdn_model_free(p->gm);
    mj_deleteData(p->md);
    mj_deleteModel(p->mm);
}

// both engines at qpos (copied from gradyn's data): kinematics then collision
static int collide_both(Pair2* p) {
    memcpy(p->md->qpos, p->gd->qpos, sizeof(double) * (size_t)p->gm->nq);
    mj_kinematics(p->mm, p->md);
    mj_collision(p->mm, p->md);
    gdn_kinematics(p->gm, p->gd);
    return gdn_collision(p->gm, p->gd) == GDN_OK ? 0 : 1;
}

static double maxdiff(const double* a, const double* b, int n) {
    double w = 0;
    for (int i = 0; i < n; i++) {
        w = fmax(w, fabs(a[i] - b[i]));
    }
    return w;
}

// contact i of both engines agrees (geoms, parameters exactly; geometry to TOL)
static int same_contact(const gdnContact* c, const mjContact* k) {
    CHECK(c->geom1 == k->geom1 && c->geom2 == k->geom2);
    CHECK(c->dim == k->dim && c->exclude == k->exclude);
    double dd = fabs(c->dist - k->dist), dp = maxdiff(c->pos, k->pos, 3);
    double df = maxdiff(c->frame, k->frame, 9);
    g_worst_dist = fmax(g_worst_dist, dd);
    g_worst_pos = fmax(g_worst_pos, dp);
    g_worst_frame = fmax(g_worst_frame, df);
    if (!(dd <= TOL && dp <= TOL && df <= TOL)) {
        fprintf(stderr, "geoms %d %d: dist %.17g vs %.17g, pos diff %.3g, frame diff %.3g\n",
                c->geom1, c->geom2, c->dist, k->dist, dp, df);
        return 1;
    }
    CHECK(maxdiff(c->friction, k->friction, 5) == 0);
    CHECK(maxdiff(c->solref, k->solref, 2) == 0);
    CHECK(fabs(c->includemargin - k->includemargin) <= 1e-15);
    CHECK(maxdiff(c->solimp, k->solimp, 5) <= 1e-15);
    return 0;
}

// the whole contact list equals MuJoCo's, in MuJoCo's order
static int same_contacts(const Pair2* p) {
    if (p->gd->ncon != p->md->ncon) {
        fprintf(stderr, "ncon %d vs MuJoCo %d\n", p->gd->ncon, p->md->ncon);
        for (int i = 0; i < p->md->ncon; i++) {
            fprintf(stderr, "  mj %d-%d dist %g\n", p->md->contact[i].geom1,
                    p->md->contact[i].geom2, p->md->contact[i].dist);
        }
        for (int i = 0; i < p->gd->ncon; i++) {
            fprintf(stderr, "  gdn %d-%d dist %g\n", p->gd->contact[i].geom1,
                    p->gd->contact[i].geom2, p->gd->contact[i].dist);
        }
        return 1;
    }
    CHECK(p->gd->ncon_overflow == 0);
    for (int i = 0; i < p->gd->ncon; i++) {
        if (same_contact(p->gd->contact + i, p->md->contact + i)) {
            fprintf(stderr, "contact %d differs\n", i);
            return 1;
        }
    }
    return 0;
}

// random unit quaternion (w x y z)
static void random_quat(unsigned long long* rng, double q[4]) {
    double n = 0;
    do {
        n = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = gdn_test_uniform(rng, -1, 1);
            n += q[i] * q[i];
        }
    } while (n < 1e-2 || n > 1);
    n = sqrt(n);
    for (int i = 0; i < 4; i++) {
        q[i] /= n;
    }
}

// geom element of a type, sizes chosen per type
static const char* geom_xml(const char* type) {
    if (!strcmp(type, "sphere")) {
        return "type='sphere' size='0.4'";
    }
    if (!strcmp(type, "capsule")) {
        return "type='capsule' size='0.25 0.5'";
    }
    if (!strcmp(type, "ellipsoid")) {
        return "type='ellipsoid' size='0.5 0.3 0.2'";
    }
    if (!strcmp(type, "cylinder")) {
        return "type='cylinder' size='0.35 0.3'";
    }
    return "type='box' size='0.4 0.3 0.2'";
}

// two free bodies with geoms of type1 and type2 (margin 0.1 each), and a world plane whose
// normal is zaxis when type1 is "plane"
static void pair_xml(char* xml, size_t n, const char* type1, const char* type2,
                     const double zaxis[3]) {
    char world[256] = "";
    char body1[256] = "";
    if (!strcmp(type1, "plane")) {
        snprintf(world, sizeof(world),
                 "<geom type='plane' size='0 0 1' zaxis='%.17g %.17g %.17g' pos='0.1 -0.2 0.05'/>",
                 zaxis[0], zaxis[1], zaxis[2]);
    } else {
        snprintf(body1, sizeof(body1),
                 "<body pos='0 0 0'><freejoint/><geom %s margin='0.1'/></body>", geom_xml(type1));
    }
    snprintf(xml, n,
             "<mujoco><option gravity='0 0 0'/><worldbody>%s%s"
             "<body pos='0 0 1'><freejoint/><geom %s margin='0.1'/></body>"
             "</worldbody></mujoco>",
             world, body1, geom_xml(type2));
}

// many random relative poses of one type pair, plus degenerate poses; every contact list must
// equal MuJoCo's
static int random_poses(const char* type1, const char* type2, int npose, double spread) {
    unsigned long long rng = 0x9e3779b97f4a7c15ull ^ (unsigned long long)strlen(type2) * 7919u ^
                             (unsigned long long)type1[1] * 104729u;
    int plane = !strcmp(type1, "plane");
    int found = 0, total = 0;
    for (int batch = 0; batch < 4; batch++) {
        double zaxis[3] = {0, 0, 1};
        if (batch > 0) {
            for (int k = 0; k < 3; k++) {
                zaxis[k] = gdn_test_uniform(&rng, -1, 1);
            }
        }
        char xml[2048];
        pair_xml(xml, sizeof(xml), type1, type2, zaxis);
        Pair2 p;
        CHECK(load_both(&p, xml, 0) == 0);
        int nfree = plane ? 1 : 2;
        for (int s = 0; s < npose; s++) {
            double* qpos = p.gd->qpos;
            for (int b = 0; b < nfree; b++) {
                for (int k = 0; k < 3; k++) {
                    qpos[7 * b + k] = gdn_test_uniform(&rng, -spread, spread);
                }
                random_quat(&rng, qpos + 7 * b + 3);
            }
            // degenerate poses: same orientation (parallel axes), coincident centres, the
            // centre on the plane, axis parallel / normal to the plane
            int kind = s % 8;
            if (!plane && kind == 1) {
                memcpy(qpos + 10, qpos + 3, 4 * sizeof(double));
            } else if (!plane && kind == 2) {
                memcpy(qpos + 10, qpos + 3, 4 * sizeof(double));
                for (int k = 0; k < 3; k++) {
                    qpos[7 + k] = qpos[k] + gdn_test_uniform(&rng, -0.1, 0.1);
                }
            } else if (!plane && kind == 3) {
                memcpy(qpos + 7, qpos, 3 * sizeof(double));
            } else if (plane && kind == 1) {
                // centre on the plane
                const double* x0 = p.gm->geom_pos;
                double dif[3], t;
                for (int k = 0; k < 3; k++) {
                    dif[k] = qpos[k] - x0[k];
                }
                double nz[3];
                double nn = sqrt(zaxis[0] * zaxis[0] + zaxis[1] * zaxis[1] + zaxis[2] * zaxis[2]);
                for (int k = 0; k < 3; k++) {
                    nz[k] = zaxis[k] / nn;
                }
                t = dif[0] * nz[0] + dif[1] * nz[1] + dif[2] * nz[2];
                for (int k = 0; k < 3; k++) {
                    qpos[k] -= t * nz[k];
                }
            } else if (plane && (kind == 2 || kind == 3)) {
                // the geom's z axis along the plane normal, or the plane frame itself
                memcpy(qpos + 3, p.gm->geom_quat, 4 * sizeof(double));
                if (kind == 3) {
                    double q90[4] = {sqrt(0.5), sqrt(0.5), 0, 0}, r[4];
                    const double* a = p.gm->geom_quat;
                    r[0] = a[0] * q90[0] - a[1] * q90[1];
                    r[1] = a[0] * q90[1] + a[1] * q90[0];
                    r[2] = a[2] * q90[0] + a[3] * q90[1];
                    r[3] = a[3] * q90[0] - a[2] * q90[1];
                    memcpy(qpos + 3, r, sizeof(r));
                }
            }
            CHECK(collide_both(&p) == 0);
            if (same_contacts(&p)) {
                fprintf(stderr, "%s-%s batch %d pose %d (kind %d)\n", type1, type2, batch, s,
                        kind);
                free_both(&p);
                return 1;
            }
            found += p.gd->ncon > 0;
            total += p.gd->ncon;
        }
        free_both(&p);
    }
    printf("  %s-%s: %d poses, %d with contacts, %d contacts; worst |ddist| %.2g |dpos| %.2g "
           "|dframe| %.2g\n",
           type1, type2, 4 * npose, found, total, g_worst_dist, g_worst_pos, g_worst_frame);
    CHECK(found > npose / 4); // the poses exercise contact, not only separation
    return 0;
}

static int test_plane_sphere(void) {
    return random_poses("plane", "sphere", 500, 1.0);
}
static int test_plane_capsule(void) {
    return random_poses("plane", "capsule", 500, 1.0);
}
static int test_plane_ellipsoid(void) {
    return random_poses("plane", "ellipsoid", 500, 1.0);
}
static int test_plane_cylinder(void) {
    return random_poses("plane", "cylinder", 500, 1.0);
}
static int test_sphere_sphere(void) {
    return random_poses("sphere", "sphere", 500, 0.6);
}
static int test_sphere_capsule(void) {
    return random_poses("sphere", "capsule", 500, 0.6);
}
static int test_capsule_capsule(void) {
    return random_poses("capsule", "capsule", 500, 0.6);
}

// pairs whose function lives in box*.c / convex*.c: tested here only when the table has them
static int other_pair(const char* type1, const char* type2, int t1, int t2) {
    if (!gdn_collide_function(t1, t2)) {
        printf("  %s-%s: not in the table yet (skipped)\n", type1, type2);
        return 0;
    }
    return random_poses(type1, type2, 300, 0.6);
}
static int test_box_pairs(void) {
    CHECK(other_pair("plane", "box", GDN_GEOM_PLANE, GDN_GEOM_BOX) == 0);
    CHECK(other_pair("sphere", "box", GDN_GEOM_SPHERE, GDN_GEOM_BOX) == 0);
    CHECK(other_pair("capsule", "box", GDN_GEOM_CAPSULE, GDN_GEOM_BOX) == 0);
    CHECK(other_pair("box", "box", GDN_GEOM_BOX, GDN_GEOM_BOX) == 0);
    return 0;
}

// the general convex path (convex*.c, MuJoCo's mjc_Convex) through the driver
static int test_convex_pairs(void) {
    static const char* names[] = {"sphere", "capsule", "ellipsoid", "cylinder", "box"};
    static const int types[] = {GDN_GEOM_SPHERE, GDN_GEOM_CAPSULE, GDN_GEOM_ELLIPSOID,
                                GDN_GEOM_CYLINDER, GDN_GEOM_BOX};
    for (int i = 0; i < 5; i++) {
        for (int j = i; j < 5; j++) {
            if (types[j] >= GDN_GEOM_ELLIPSOID && types[j] != GDN_GEOM_BOX) {
                CHECK(other_pair(names[i], names[j], types[i], types[j]) == 0);
            } else if (types[i] >= GDN_GEOM_ELLIPSOID && types[i] != GDN_GEOM_BOX &&
                       types[j] == GDN_GEOM_BOX) {
                CHECK(other_pair(names[i], names[j], types[i], types[j]) == 0);
            }
        }
    }
    return 0;
}

// a scene exercising every filter: contype/conaffinity, parent-child (with and without
// GDN_DSBL_FILTERPARENT), welded bodies, <exclude>, explicit <pair> with its own parameters,
// solmix / solref mixing, condim and friction max, margin / gap, override
static const char* FILTER_XML =
    "<mujoco><option gravity='0 0 0'/>"
    "<contact><exclude body1='b3' body2='b4'/>"
    "<pair geom1='s5' geom2='floor' condim='1' friction='0.3 0.2 0.01 0.002 0.001' "
    " solref='0.05 0.7' solimp='0.8 0.9 0.01 0.4 3' margin='0.2' gap='0.05'/>"
    "<pair geom1='s1' geom2='s2' condim='6'/></contact>"
    "<worldbody><geom name='floor' type='plane' size='0 0 1'/>"
    "<body name='b1' pos='0 0 0.3'><freejoint/>"
    "  <geom name='s1' type='sphere' size='0.35' solmix='2' solref='0.03 0.9' condim='4'/>"
    "  <body name='b2' pos='0 0 0.5'><joint type='hinge'/>"
    "    <geom name='s2' type='capsule' size='0.2 0.3' friction='2 0.1 0.01' margin='0.05'/>"
    "    <body name='b2w' pos='0.3 0 0'><geom type='sphere' size='0.2'/></body></body></body>"
    "<body name='b3' pos='0.5 0 0.3'><freejoint/>"
    "  <geom type='sphere' size='0.3' contype='2' conaffinity='2' solimp='0.5 0.6 0.02 0.5 2'"
    "   gap='0.01' margin='0.03'/></body>"
    "<body name='b4' pos='0.6 0.1 0.4'><freejoint/>"
    "  <geom type='capsule' size='0.2 0.3' contype='3'/></body>"
    "<body name='b5' pos='-0.3 0.2 0.3'><freejoint/>"
    "  <geom name='s5' type='sphere' size='0.25' contype='4' conaffinity='4' solref='-100 -10'/>"
    "</body>"
    "<body name='b6' pos='-0.2 0.3 0.3'><freejoint/>"
    "  <geom type='sphere' size='0.25' contype='4' conaffinity='1' solref='-200 -5' solmix='0'/>"
    "</body></worldbody></mujoco>";

static int test_filters_pairs_excludes(void) {
    Pair2 p;
    CHECK(load_both(&p, FILTER_XML, 0) == 0);
    CHECK(p.gm->npair == 2 && p.gm->nexclude == 1);
    unsigned long long rng = 12345;
    int flags[3][2] = {{0, 0}, {mjDSBL_FILTERPARENT, 0}, {0, mjENBL_OVERRIDE}};
    int total = 0, ndim1 = 0, ndim6 = 0;
    for (int f = 0; f < 3; f++) {
        p.mm->opt.disableflags = p.gm->opt.disableflags = flags[f][0];
        p.mm->opt.enableflags = p.gm->opt.enableflags = flags[f][1];
        for (int s = 0; s < 200; s++) {
            // small random displacements about the initial configuration keep bodies touching
            for (int i = 0; i < p.gm->nq; i++) {
                p.gd->qpos[i] = p.gm->qpos0[i];
            }
            for (int j = 0; j < p.gm->njnt; j++) {
                int a = p.gm->jnt_qposadr[j];
                if (p.gm->jnt_type[j] == GDN_JNT_FREE) {
                    for (int k = 0; k < 3; k++) {
                        p.gd->qpos[a + k] += gdn_test_uniform(&rng, -0.15, 0.15);
                    }
                    random_quat(&rng, p.gd->qpos + a + 3);
                } else {
                    p.gd->qpos[a] = gdn_test_uniform(&rng, -1, 1);
                }
            }
            CHECK(collide_both(&p) == 0);
            if (same_contacts(&p)) {
                fprintf(stderr, "flags %d pose %d\n", f, s);
                free_both(&p);
                return 1;
            }
            total += p.gd->ncon;
            for (int i = 0; i < p.gd->ncon; i++) {
                ndim1 += p.gd->contact[i].dim == 1; // the explicit pair s5-floor
                ndim6 += p.gd->contact[i].dim == 6; // the explicit pair s1-s2 (parent-child)
            }
        }
    }
    printf("  %d contacts over 600 poses (%d of pair s5-floor, %d of pair s1-s2)\n", total, ndim1,
           ndim6);
    CHECK(ndim1 > 0 && ndim6 > 0);

    // without the exclude, b3-b4 (compatible, overlapping) would collide
    p.gm->nexclude = 0;
    p.gm->opt.disableflags = p.gm->opt.enableflags = 0;
    memcpy(p.gd->qpos, p.gm->qpos0, sizeof(double) * (size_t)p.gm->nq);
    gdn_kinematics(p.gm, p.gd);
    CHECK(gdn_collision(p.gm, p.gd) == GDN_OK);
    int b3b4 = 0;
    for (int i = 0; i < p.gd->ncon; i++) {
        int b1 = p.gm->geom_bodyid[p.gd->contact[i].geom1];
        int b2 = p.gm->geom_bodyid[p.gd->contact[i].geom2];
        b3b4 += (b1 == 4 && b2 == 5) || (b1 == 5 && b2 == 4);
    }
    CHECK(b3b4 > 0);
    p.gm->nexclude = 1;

    // disabled contact or constraints: nothing
    p.gm->opt.disableflags = GDN_DSBL_CONTACT;
    CHECK(gdn_collision(p.gm, p.gd) == GDN_OK && p.gd->ncon == 0);
    p.gm->opt.disableflags = GDN_DSBL_CONSTRAINT;
    CHECK(gdn_collision(p.gm, p.gd) == GDN_OK && p.gd->ncon == 0);
    CHECK(gdn_collision(NULL, p.gd) == GDN_ERR_ARG);
    free_both(&p);
    return 0;
}

// a row of overlapping capsules on the floor overflowing a 5-contact buffer: the first 5 contacts
// equal MuJoCo's first 5, the rest are counted, never written (ASan catches a write past it)
static int test_overflow(void) {
    char xml[4096];
    int n = snprintf(xml, sizeof(xml),
                     "<mujoco><worldbody><geom type='plane' size='0 0 1'/>");
    for (int i = 0; i < 6; i++) {
        n += snprintf(xml + n, sizeof(xml) - (size_t)n,
                      "<body pos='%g 0 0.05'><freejoint/>"
                      "<geom type='capsule' size='0.1 0.3' euler='0 90 0'/></body>",
                      0.5 * i);
    }
    snprintf(xml + n, sizeof(xml) - (size_t)n, "</worldbody></mujoco>");
    Pair2 p;
    CHECK(load_both(&p, xml, 5) == 0);
    CHECK(p.gd->maxcon == 5);
    memcpy(p.gd->qpos, p.gm->qpos0, sizeof(double) * (size_t)p.gm->nq);
    CHECK(collide_both(&p) == 0);
    printf("  MuJoCo: %d contacts; gradyn: %d written, %d overflowed\n", p.md->ncon, p.gd->ncon,
           p.gd->ncon_overflow);
    CHECK(p.md->ncon > 10);
    CHECK(p.gd->ncon == 5);
    CHECK(p.gd->ncon_overflow == p.md->ncon - 5);
    for (int i = 0; i < 5; i++) {
        CHECK(same_contact(p.gd->contact + i, p.md->contact + i) == 0);
    }
    free_both(&p);
    return 0;
}

// the same state gives the same contacts, bit for bit, on every call
static int test_deterministic(void) {
    Pair2 p;
    CHECK(load_both(&p, FILTER_XML, 0) == 0);
    unsigned long long rng = 99;
    for (int i = 0; i < p.gm->nq; i++) {
        p.gd->qpos[i] = p.gm->qpos0[i] + gdn_test_uniform(&rng, -0.05, 0.05);
    }
    gdn_kinematics(p.gm, p.gd);
    CHECK(gdn_collision(p.gm, p.gd) == GDN_OK);
    int ncon = p.gd->ncon;
    CHECK(ncon > 0);
    gdnContact* first = malloc(sizeof(gdnContact) * (size_t)ncon);
    CHECK(first);
    memcpy(first, p.gd->contact, sizeof(gdnContact) * (size_t)ncon);
    int same = 1;
    for (int rep = 0; rep < 10; rep++) {
        CHECK(gdn_collision(p.gm, p.gd) == GDN_OK);
        same &= p.gd->ncon == ncon &&
                !memcmp(first, p.gd->contact, sizeof(gdnContact) * (size_t)ncon);
    }
    free(first);
    free_both(&p);
    CHECK(same);
    return 0;
}

// MuJoCo's humanoid settled on its floor by mj_step, then both engines collide that state
static int test_humanoid_rest(void) {
    char err[1000] = "";
    Pair2 p;
    p.mm = mj_loadXML(GDN_ORACLE_MJ_HUMANOID, NULL, err, sizeof(err));
    CHECK(p.mm);
    p.md = mj_makeData(p.mm);
    p.gm = gdn_model_from_mujoco(p.mm);
    CHECK(p.gm && gdn_data_create(p.gm, &p.gd) == GDN_OK);
    int worst_ncon = 0;
    for (int step = 0; step < 1500; step++) {
        mj_step(p.mm, p.md);
        if (step % 100 == 99) {
            memcpy(p.gd->qpos, p.md->qpos, sizeof(double) * (size_t)p.gm->nq);
            CHECK(collide_both(&p) == 0);
            if (same_contacts(&p)) {
                fprintf(stderr, "humanoid step %d\n", step);
                return 1;
            }
            worst_ncon = p.md->ncon > worst_ncon ? p.md->ncon : worst_ncon;
        }
    }
    printf("  humanoid: %d contacts at rest (up to %d while settling); worst |ddist| %.2g "
           "|dpos| %.2g |dframe| %.2g\n",
           p.md->ncon, worst_ncon, g_worst_dist, g_worst_pos, g_worst_frame);
    CHECK(p.md->ncon > 0);
    free_both(&p);
    return 0;
}

static const gdnTestCase cases[] = {
    {"plane_sphere", test_plane_sphere},
    {"plane_capsule", test_plane_capsule},
    {"plane_ellipsoid", test_plane_ellipsoid},
    {"plane_cylinder", test_plane_cylinder},
    {"sphere_sphere", test_sphere_sphere},
    {"sphere_capsule", test_sphere_capsule},
    {"capsule_capsule", test_capsule_capsule},
    {"box_pairs", test_box_pairs},
    {"convex_pairs", test_convex_pairs},
    {"filters_pairs_excludes", test_filters_pairs_excludes},
    {"overflow", test_overflow},
    {"deterministic", test_deterministic},
    {"humanoid_rest", test_humanoid_rest},
};

GDN_TEST_MAIN(cases)
