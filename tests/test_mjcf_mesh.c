// SPDX-License-Identifier: Apache-2.0
// Mesh geoms compiled by the MJCF loader vs MuJoCo 2.2.2: mass properties, frames, float
// vertices, hulls, and mesh contacts (mesh-plane, mesh-box, mesh-mesh) in random poses.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/mj_from_string.h"
#include "runner/test.h"

#define MESH_DIR GDN_TEST_MODELS "/meshes"

// model fields: MuJoCo stores mesh vertices as float32 and derives the frame and the inertia
// box from float data, so both engines agree bit for bit when the float arithmetic is the same;
// 1e-6 relative allows one float rounding of a centre-of-mass term
#define FIELD_TOL 1e-6
// contacts of identical models: same algorithms, same floats
#define CONTACT_TOL 1e-9

static double g_worst_field, g_worst_contact;

// XML with the cube file and an exactmeshinertia setting substituted
static void model_xml(char* out, size_t n, const char* cube_file, int exact) {
    snprintf(out, n,
             "<mujoco><compiler meshdir='%s' exactmeshinertia='%s'/>"
             "<asset>"
             "<mesh name='tetra' file='tetra.stl' scale='1 1.5 0.8' refpos='0.1 0.2 0.05' "
             "refquat='1 0.2 0.3 -0.1'/>"
             "<mesh name='cube' file='%s'/>"
             "<mesh name='poly' file='poly.obj'/>"
             "<mesh name='lshape' file='lshape.obj' scale='1 1 -1'/>"
             "<mesh name='ltwin' file='lshape.obj' refquat='0 0 1 0'/>"
             "</asset><worldbody>"
             "<geom type='plane' size='5 5 0.1' pos='0 0 -0.1' euler='4 -3 0'/>"
             "<body pos='0 0 0.3'><freejoint/>"
             "<geom type='mesh' mesh='tetra' pos='.1 0 0' euler='10 20 30'/></body>"
             "<body pos='0.3 0 0.3'><freejoint/><geom type='mesh' mesh='cube' density='500'/>"
             "<geom type='sphere' size='0.05' pos='0 0 0.2'/></body>"
             "<body pos='0 0.3 0.3'><freejoint/><geom type='mesh' mesh='poly' mass='2'/></body>"
             "<body pos='0.3 0.3 0.3'><freejoint/><geom type='mesh' mesh='lshape'/></body>"
             "<body pos='-0.3 0 0.3'><freejoint/><geom type='box' size='.1 .2 .15'/>"
             "<geom type='mesh' mesh='ltwin' contype='0' conaffinity='0' group='4'/></body>"
             "<body pos='-0.3 0.3 0.3'><freejoint/><geom type='box' mesh='poly'/>"
             "<geom type='capsule' mesh='tetra' fitscale='1.2'/></body>"
             "</worldbody></mujoco>",
             MESH_DIR, exact ? "true" : "false", cube_file);
}

typedef struct Both {
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
} Both;

static int load_both(Both* b, const char* mj_xml, const char* gdn_xml) {
    memset(b, 0, sizeof(*b));
    char err[1000] = "";
    b->mm = gdn_oracle_mj_from_string(mj_xml);
    if (!b->mm) {
        return 1;
    }
    b->md = mj_makeData(b->mm);
    char warn[2000] = "";
    if (gdn_load_xml_string(gdn_xml, strlen(gdn_xml), NULL, &b->gm, err, sizeof(err), warn,
                            sizeof(warn)) != GDN_OK) {
        fprintf(stderr, "gradyn: %s\n", err);
        return 1;
    }
    if (warn[0]) {
        fprintf(stderr, "gradyn warnings: %s\n", warn);
    }
    return gdn_data_create(b->gm, &b->gd) != GDN_OK;
}

static void free_both(Both* b) {
    gdn_data_free(b->gd);
    gdn_model_free(b->gm);
    mj_deleteData(b->md);
    mj_deleteModel(b->mm);
}

// max_i |a_i - b_i| / max(|b|_inf, floor) (gdn_test_relerr), recorded in g_worst_field
static int near(const char* what, const double* a, const double* b, int n, double floor_) {
    const double worst = gdn_test_relerr(a, b, n, floor_);
    g_worst_field = fmax(g_worst_field, worst);
    if (getenv("GDN_MESH_VERBOSE")) {
        printf("    %-14s worst relative difference %.3g\n", what, worst);
    }
    if (!(worst <= FIELD_TOL)) {
        fprintf(stderr, "%s: relative %.3g (second array: MuJoCo's)\n", what, worst);
        gdn_test_print_worst(a, b, n);
        return 1;
    }
    return 0;
}

// quaternions up to sign
static int near_quat(const char* what, const double* a, const double* b, int n) {
    double flipped[64];
    for (int q = 0; q < n; q++) {
        double dot = 0;
        for (int k = 0; k < 4; k++) {
            dot += a[4 * q + k] * b[4 * q + k];
        }
        for (int k = 0; k < 4; k++) {
            flipped[4 * q + k] = dot < 0 ? -a[4 * q + k] : a[4 * q + k];
        }
    }
    return near(what, flipped, b, 4 * n, 1);
}

static int same_model(const Both* b) {
    const gdnModel* g = b->gm;
    const mjModel* m = b->mm;
    CHECK(g->nbody == m->nbody && g->ngeom == m->ngeom && g->nmesh == m->nmesh);
    CHECK(g->ngeom <= 16);
    CHECK(near("body_mass", g->body_mass, m->body_mass, m->nbody, 1e-12) == 0);
    CHECK(near("body_inertia", g->body_inertia, m->body_inertia, 3 * m->nbody, 1e-12) == 0);
    CHECK(near("body_ipos", g->body_ipos, m->body_ipos, 3 * m->nbody, 1) == 0);
    CHECK(near_quat("body_iquat", g->body_iquat, m->body_iquat, m->nbody) == 0);
    CHECK(near("geom_pos", g->geom_pos, m->geom_pos, 3 * m->ngeom, 1) == 0);
    CHECK(near_quat("geom_quat", g->geom_quat, m->geom_quat, m->ngeom) == 0);
    CHECK(near("geom_size", g->geom_size, m->geom_size, 3 * m->ngeom, 1) == 0);
    CHECK(near("geom_rbound", g->geom_rbound, m->geom_rbound, m->ngeom, 1) == 0);
    for (int i = 0; i < m->ngeom; i++) {
        CHECK(g->geom_dataid[i] == m->geom_dataid[i]);
        CHECK(g->geom_type[i] == m->geom_type[i]);
    }
    for (int i = 0; i < m->nmesh; i++) {
        CHECK(g->mesh_vertnum[i] == m->mesh_vertnum[i]);
        CHECK(g->mesh_facenum[i] == m->mesh_facenum[i]);
        CHECK((g->mesh_graphadr[i] < 0) == (m->mesh_graphadr[i] < 0));
        if (m->mesh_graphadr[i] >= 0) {
            // the hull graph (Qhull in both engines): identical int for int
            const int* gg = g->mesh_graph + g->mesh_graphadr[i];
            const int* mg = m->mesh_graph + m->mesh_graphadr[i];
            int size = 2 + 3 * mg[0] + 6 * mg[1];
            if (gg[0] != mg[0] || gg[1] != mg[1] || memcmp(gg, mg, sizeof(int) * size) != 0) {
                fprintf(stderr, "mesh %d hull graph: %d vertices %d faces vs MuJoCo %d %d, "
                        "contents differ\n", i, gg[0], gg[1], mg[0], mg[1]);
                return 1;
            }
        }
        int adr = m->mesh_vertadr[i], n = m->mesh_vertnum[i];
        double* mv = malloc(sizeof(double) * 3 * (size_t)n);
        CHECK(mv != NULL);
        for (int k = 0; k < 3 * n; k++) {
            mv[k] = (double)m->mesh_vert[3 * adr + k];
        }
        int bad = near("mesh_vert", g->mesh_vert + 3 * g->mesh_vertadr[i], mv, 3 * n, 1);
        free(mv);
        CHECK(bad == 0);
        // faces: the file's as given, or the hull's triangles for a file without faces
        const int* gf = g->mesh_face + 3 * g->mesh_faceadr[i];
        const int* mf = m->mesh_face + 3 * m->mesh_faceadr[i];
        for (int k = 0; k < 3 * m->mesh_facenum[i]; k++) {
            if (gf[k] != mf[k]) {
                fprintf(stderr, "mesh %d face %d: %d vs MuJoCo %d\n", i, k / 3, gf[k], mf[k]);
                return 1;
            }
        }
    }
    return 0;
}

static int model_case(const char* mj_cube, const char* gdn_cube, int exact) {
    char mj_xml[4096], gdn_xml[4096];
    model_xml(mj_xml, sizeof(mj_xml), mj_cube, exact);
    model_xml(gdn_xml, sizeof(gdn_xml), gdn_cube, exact);
    Both b;
    CHECK(load_both(&b, mj_xml, gdn_xml) == 0);
    int bad = same_model(&b);
    free_both(&b);
    printf("  %s / %s, exactmeshinertia %d: worst relative field difference %.3g\n", gdn_cube,
           mj_cube, exact, g_worst_field);
    return bad;
}

static int test_mass_frames_vertices(void) {
    CHECK(model_case("cube_bin.stl", "cube_bin.stl", 0) == 0);
    CHECK(model_case("cube_bin.stl", "cube_bin.stl", 1) == 0);
    // MuJoCo 2.2.2 reads binary STL only: both refuse the ASCII cube, gradyn naming the file
    char xml[4096], err[1000] = "";
    model_xml(xml, sizeof(xml), "cube_ascii.stl", 0);
    char path[GDN_ORACLE_TMP_PATH];
    CHECK(gdn_oracle_tmp_xml(xml, path) == 0);
    mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
    remove(path);
    CHECK(mm == NULL && strstr(err, "perhaps this is an ASCII file"));
    gdnModel* gm = NULL;
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &gm, err, sizeof(err), NULL, 0) ==
              GDN_ERR_PARSE &&
          !gm);
    CHECK(strstr(err, "cube_ascii.stl") && strstr(err, "binary STL only"));
    printf("  cube_ascii.stl: refused by both (MuJoCo 2.2.2 reads binary STL only)\n");
    return 0;
}

// ---------------------------------------------------------------- contacts

static void random_quat(unsigned long long* rng, double q[4]) {
    double n = 0;
    do {
        n = 0;
        for (int k = 0; k < 4; k++) {
            q[k] = gdn_test_uniform(rng, -1, 1);
            n += q[k] * q[k];
        }
    } while (n < 0.01 || n > 1);
    n = sqrt(n);
    for (int k = 0; k < 4; k++) {
        q[k] /= n;
    }
}

// same contacts in the same order: geoms, dim, and dist / pos / frame within CONTACT_TOL
static int same_contacts(const Both* b) {
    if (b->gd->ncon != b->md->ncon) {
        fprintf(stderr, "ncon %d vs MuJoCo %d\n", b->gd->ncon, b->md->ncon);
        return 1;
    }
    for (int i = 0; i < b->md->ncon; i++) {
        const gdnContact* c = b->gd->contact + i;
        const mjContact* k = b->md->contact + i;
        CHECK(c->geom1 == k->geom1 && c->geom2 == k->geom2 && c->dim == k->dim);
        double e = fabs(c->dist - k->dist);
        for (int j = 0; j < 3; j++) {
            e = fmax(e, fabs(c->pos[j] - k->pos[j]));
            e = fmax(e, fabs(c->frame[j] - k->frame[j]));
        }
        g_worst_contact = fmax(g_worst_contact, e);
        if (!(e <= CONTACT_TOL)) {
            fprintf(stderr, "contact %d (geoms %d %d): difference %.3g\n", i, c->geom1,
                    c->geom2, e);
            return 1;
        }
    }
    return 0;
}

// 3000 random poses of the five meshes, the plane, the boxes and the fitted primitives: the
// same contacts as mj_collision (the hull graphs are identical, so the plane-mesh extra
// points and the MPR support searches visit the same vertices in the same order)
static int test_mesh_contacts(void) {
    char xml[4096];
    model_xml(xml, sizeof(xml), "cube_bin.stl", 0);
    Both b;
    CHECK(load_both(&b, xml, xml) == 0);
    CHECK(same_model(&b) == 0);
    g_worst_contact = 0;
    unsigned long long rng = 0x2545f4914f6cdd1dull;
    int nfree = b.gm->njnt, poses = 3000, with = 0, total = 0;
    int pair_count[16][16] = {{0}};
    for (int s = 0; s < poses; s++) {
        for (int j = 0; j < nfree; j++) {
            double* q = b.gd->qpos + 7 * j;
            q[0] = gdn_test_uniform(&rng, -0.25, 0.25);
            q[1] = gdn_test_uniform(&rng, -0.25, 0.25);
            q[2] = gdn_test_uniform(&rng, -0.05, 0.3);
            random_quat(&rng, q + 3);
        }
        memcpy(b.md->qpos, b.gd->qpos, sizeof(double) * (size_t)b.gm->nq);
        mj_kinematics(b.mm, b.md);
        mj_collision(b.mm, b.md);
        gdn_kinematics(b.gm, b.gd);
        CHECK(gdn_collision(b.gm, b.gd) == GDN_OK);
        if (same_contacts(&b)) {
            fprintf(stderr, "pose %d\n", s);
            free_both(&b);
            return 1;
        }
        with += b.gd->ncon > 0;
        total += b.gd->ncon;
        for (int i = 0; i < b.gd->ncon; i++) {
            pair_count[b.gd->contact[i].geom1][b.gd->contact[i].geom2]++;
        }
    }
    // mesh-plane, mesh-box and mesh-mesh pairs all occur
    int plane_mesh = 0, mesh_box = 0, mesh_mesh = 0;
    for (int g1 = 0; g1 < b.gm->ngeom; g1++) {
        for (int g2 = 0; g2 < b.gm->ngeom; g2++) {
            int t1 = b.gm->geom_type[g1], t2 = b.gm->geom_type[g2];
            int n = pair_count[g1][g2];
            plane_mesh += t1 == GDN_GEOM_PLANE && t2 == GDN_GEOM_MESH ? n : 0;
            mesh_box += (t1 == GDN_GEOM_MESH && t2 == GDN_GEOM_BOX) ||
                                (t1 == GDN_GEOM_BOX && t2 == GDN_GEOM_MESH)
                            ? n
                            : 0;
            mesh_mesh += t1 == GDN_GEOM_MESH && t2 == GDN_GEOM_MESH ? n : 0;
        }
    }
    printf("  %d poses, %d with contacts, %d contacts (plane-mesh %d, mesh-box %d, mesh-mesh "
           "%d), all as MuJoCo's; worst |difference| %.3g\n",
           poses, with, total, plane_mesh, mesh_box, mesh_mesh, g_worst_contact);
    free_both(&b);
    CHECK(plane_mesh > 100 && mesh_box > 100 && mesh_mesh > 100);
    return 0;
}

// ---------------------------------------------------------------- MuJoCo's sample with a mesh

static int test_mug(void) {
    const char* path = "/usr/share/mujoco/model/mug/mug.xml";
    if (access(path, R_OK) != 0) {
        printf("  %s absent: skipped\n", path);
        return 0;
    }
    char err[1000] = "";
    mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
    CHECK(m != NULL);
    gdnModel* g = NULL;
    CHECK(gdn_load_xml(path, &g, err, sizeof(err), NULL, 0) == GDN_OK);
    g_worst_field = 0;
    int bad = near("mug body_mass", g->body_mass, m->body_mass, m->nbody, 1e-12) ||
              near("mug body_inertia", g->body_inertia, m->body_inertia, 3 * m->nbody, 1e-12) ||
              near("mug body_ipos", g->body_ipos, m->body_ipos, 3 * m->nbody, 1) ||
              near("mug geom_pos", g->geom_pos, m->geom_pos, 3 * m->ngeom, 1) ||
              near_quat("mug geom_quat", g->geom_quat, m->geom_quat, 1) ||
              g->mesh_vertnum[0] != m->mesh_vertnum[0] || g->mesh_graphadr[0] != -1;
    printf("  mug.xml: mass %.17g vs MuJoCo %.17g, %d mesh vertices; worst relative field "
           "difference %.3g\n",
           g->body_mass[1], m->body_mass[1], g->mesh_vertnum[0], g_worst_field);
    gdn_model_free(g);
    mj_deleteModel(m);
    return bad;
}

// ---------------------------------------------------------------- errors

static int test_bad_meshes(void) {
    const char* bad[] = {
        // fewer than 4 vertices, flat (no volume), unknown mesh, fromto
        "<mujoco><asset><mesh name='a' vertex='0 0 0  1 0 0  0 1 0'/></asset><worldbody><body>"
        "<geom type='mesh' mesh='a'/></body></worldbody></mujoco>",
        "<mujoco><asset><mesh name='a' vertex='0 0 0  1 0 0  0 1 0  1 1 0'/></asset>"
        "<worldbody><body><geom type='mesh' mesh='a'/></body></worldbody></mujoco>",
        "<mujoco><worldbody><body><geom type='mesh' mesh='nope'/></body></worldbody></mujoco>",
        "<mujoco><asset><mesh name='a' vertex='0 0 0  1 0 0  0 1 0  0 0 1'/></asset><worldbody>"
        "<body><geom type='box' mesh='a' fromto='0 0 0 1 0 0' size='1 1 1'/></body>"
        "</worldbody></mujoco>",
        "<mujoco><option mpr_iterations='-1'/></mujoco>",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gdnModel* m = NULL;
        char err[500] = "";
        gdnStatus st = gdn_load_xml_string(bad[i], strlen(bad[i]), NULL, &m, err, sizeof(err),
                                           NULL, 0);
        if (st == GDN_OK || m) {
            fprintf(stderr, "bad model %zu accepted\n", i);
            gdn_model_free(m);
            return 1;
        }
    }
    // options reach the model
    const char* ok = "<mujoco><option mpr_iterations='7' mpr_tolerance='1e-9'/></mujoco>";
    gdnModel* m = NULL;
    CHECK(gdn_load_xml_string(ok, strlen(ok), NULL, &m, NULL, 0, NULL, 0) == GDN_OK);
    CHECK(m->opt.mpr_iterations == 7 && m->opt.mpr_tolerance == 1e-9);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"mass_frames_vertices", test_mass_frames_vertices},
    {"mesh_contacts", test_mesh_contacts},
    {"mug", test_mug},
    {"bad_meshes", test_bad_meshes},
};

GDN_TEST_MAIN(cases)
