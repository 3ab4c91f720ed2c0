// SPDX-License-Identifier: Apache-2.0
// General convex collision (MPR, plane-convex) against MuJoCo 2.2.2's own collision functions
// on random relative poses, and the convex hull of mesh vertices.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "model/hull.h"
#include "collision/narrowphase.h"
#include "oracle/from_mujoco.h"
#include "oracle/mj_from_string.h"
#include "runner/test.h"

// two meshes given by vertices (MuJoCo builds their hulls with qhull); one body per geom
static const char* const convex_xml =
    "<mujoco>\n"
    "  <asset>\n"
    "    <mesh name='rock' vertex='0.31 0.02 -0.05  -0.22 0.17 0.08  0.05 -0.27 0.11  "
    "0.02 0.09 -0.29  -0.08 -0.14 -0.18  0.12 0.21 0.19  -0.25 -0.06 0.22  0.27 -0.19 -0.13  "
    "0.01 0.01 0.02  -0.12 0.28 -0.14  0.18 -0.02 0.28  -0.17 -0.24 -0.02'/>\n"
    "    <mesh name='wedge' vertex='-0.2 -0.15 -0.1  0.25 -0.15 -0.1  -0.2 0.15 -0.1  "
    "0.25 0.15 -0.1  -0.2 -0.15 0.12  -0.2 0.15 0.12  0.0 0.0 -0.1'/>\n"
    "  </asset>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='5 5 0.1'/>\n"
    "    <body name='b1'><freejoint/><geom type='sphere' size='0.2'/></body>\n"
    "    <body name='b2'><freejoint/><geom type='capsule' size='0.12 0.2'/></body>\n"
    "    <body name='b3'><freejoint/><geom type='ellipsoid' size='0.25 0.15 0.1'/></body>\n"
    "    <body name='b4'><freejoint/><geom type='cylinder' size='0.15 0.2'/></body>\n"
    "    <body name='b5'><freejoint/><geom type='box' size='0.2 0.12 0.08'/></body>\n"
    "    <body name='b6'><freejoint/><geom type='mesh' mesh='rock'/></body>\n"
    "    <body name='b7'><freejoint/><geom type='mesh' mesh='wedge'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

typedef struct {
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
} Pair;

// MuJoCo model from MJCF text (through a temporary file), gradyn's copied from it
static int load(Pair* p, const char* xml) {
    p->mm = gdn_oracle_mj_from_string(xml);
    if (!p->mm) {
        return 1;
    }
    p->md = mj_makeData(p->mm);
    p->gm = gdn_model_from_mujoco(p->mm);
    if (!p->gm || gdn_data_create(p->gm, &p->gd) != GDN_OK) {
        return 1;
    }
    return 0;
}

static void unload(Pair* p) {
    gdn_data_free(p->gd);
    gdn_model_free(p->gm);
    mj_deleteData(p->md);
    mj_deleteModel(p->mm);
}

// random unit quaternion
static void random_quat(unsigned long long* rng, double q[4]) {
    double n = 0;
    do {
        n = 0;
        for (int k = 0; k < 4; k++) {
            q[k] = gdn_test_uniform(rng, -1, 1);
            n += q[k] * q[k];
        }
    } while (n < 1e-2 || n > 1);
    for (int k = 0; k < 4; k++) {
        q[k] /= sqrt(n);
    }
}

// body b (free joint at qpos 7 (b - 1)) at position x, random orientation
static void place(Pair* p, unsigned long long* rng, int body, const double x[3]) {
    double* q = p->md->qpos + 7 * (body - 1);
    q[0] = x[0];
    q[1] = x[1];
    q[2] = x[2];
    random_quat(rng, q + 3);
}

// MuJoCo's function for a type pair is its general convex one (mjc_Convex) or plane-convex
static int is_convex_pair(int t1, int t2) {
    mjfCollision fn = mjCOLLISIONFUNC[t1][t2];
    return fn && (fn == mjCOLLISIONFUNC[mjGEOM_ELLIPSOID][mjGEOM_ELLIPSOID] ||
                  fn == mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_MESH]);
}

// largest differences over all compared contacts
typedef struct {
    int pairs, contacts, count_mismatch;
    double dist, pos, normal;
} Errors;

// MuJoCo (with its mpr_tolerance set to tol_mj) vs gradyn on geoms g1, g2 at the current poses
static void compare_pair(Pair* p, int g1, int g2, double margin, double tol_mj, Errors* e,
                         Errors* mj_sens) {
    mjContact cm[GDN_MAXCONPAIR], cm_tight[GDN_MAXCONPAIR];
    gdnContact cg[GDN_MAXCONPAIR];
    int t1 = p->mm->geom_type[g1], t2 = p->mm->geom_type[g2];
    p->mm->opt.mpr_tolerance = tol_mj;
    int nm = mjCOLLISIONFUNC[t1][t2](p->mm, p->md, cm, g1, g2, margin);
    p->mm->opt.mpr_tolerance = 1e-10;
    int nt = mjCOLLISIONFUNC[t1][t2](p->mm, p->md, cm_tight, g1, g2, margin);
    p->mm->opt.mpr_tolerance = tol_mj;
    memcpy(p->gd->geom_xpos, p->md->geom_xpos, sizeof(double) * 3 * (size_t)p->mm->ngeom);
    memcpy(p->gd->geom_xmat, p->md->geom_xmat, sizeof(double) * 9 * (size_t)p->mm->ngeom);
    gdnCollideFn fn = t1 == mjGEOM_PLANE ? gdn_collide_plane_convex : gdn_collide_convex;
    int ng = fn(p->gm, p->gd, cg, g1, g2, margin);
    e->pairs++;
    if (ng != nm) {
        e->count_mismatch++;
        fprintf(stderr, "  count: geoms %d-%d types %d-%d: gradyn %d, MuJoCo %d\n", g1, g2, t1,
                t2, ng, nm);
        return;
    }
    for (int c = 0; c < nm; c++) {
        e->contacts++;
        e->dist = fmax(e->dist, fabs(cg[c].dist - cm[c].dist));
        for (int k = 0; k < 3; k++) {
            e->pos = fmax(e->pos, fabs(cg[c].pos[k] - cm[c].pos[k]));
            e->normal = fmax(e->normal, fabs(cg[c].frame[k] - cm[c].frame[k]));
        }
    }
    if (nt == nm) {
        for (int c = 0; c < nm; c++) {
            mj_sens->contacts++;
            mj_sens->dist = fmax(mj_sens->dist, fabs(cm_tight[c].dist - cm[c].dist));
            for (int k = 0; k < 3; k++) {
                mj_sens->pos = fmax(mj_sens->pos, fabs(cm_tight[c].pos[k] - cm[c].pos[k]));
                mj_sens->normal = fmax(mj_sens->normal,
                                       fabs(cm_tight[c].frame[k] - cm[c].frame[k]));
            }
        }
    } else {
        mj_sens->count_mismatch++;
    }
}

// every convex type pair, random poses (separated, touching within margin, penetrating)
static int run_random_pairs(double margin, int trials, Errors* total, Errors* sens) {
    Pair p;
    CHECK(load(&p, convex_xml) == 0);
    unsigned long long rng = 12345;
    int ngeom = p.mm->ngeom;
    for (int g1 = 0; g1 < ngeom; g1++) {
        for (int g2 = g1 + 1; g2 < ngeom; g2++) {
            int t1 = p.mm->geom_type[g1], t2 = p.mm->geom_type[g2];
            if (t1 > t2 || !is_convex_pair(t1, t2)) {
                continue;
            }
            Errors e = {0}, s = {0};
            int b1 = p.mm->geom_bodyid[g1], b2 = p.mm->geom_bodyid[g2];
            double r1 = p.mm->geom_rbound[g1], r2 = p.mm->geom_rbound[g2];
            for (int trial = 0; trial < trials; trial++) {
                mj_resetData(p.mm, p.md);
                for (int b = 1; b < p.mm->nbody; b++) {
                    double far[3] = {10.0 * b, 0, 5};
                    place(&p, &rng, b, far);
                }
                double x1[3] = {0, 0, 1}, x2[3];
                if (b1 > 0) {
                    place(&p, &rng, b1, x1);
                } else {
                    x1[2] = 0;
                }
                double u[3];
                do {
                    for (int k = 0; k < 3; k++) {
                        u[k] = gdn_test_uniform(&rng, -1, 1);
                    }
                } while (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] > 1 ||
                         u[0] * u[0] + u[1] * u[1] + u[2] * u[2] < 1e-2);
                double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
                double dist = gdn_test_uniform(&rng, 0.1, 1.05) * (b1 > 0 ? r1 + r2 : r2);
                for (int k = 0; k < 3; k++) {
                    x2[k] = x1[k] + (b1 > 0 ? u[k] / un * dist : 0);
                }
                if (b1 == 0) {
                    x2[2] = gdn_test_uniform(&rng, -0.8, 1.05) * r2;
                }
                place(&p, &rng, b2, x2);
                mj_kinematics(p.mm, p.md);
                compare_pair(&p, g1, g2, margin, 1e-6, &e, &s);
            }
            printf("  %-9s-%-9s margin %.2g: %4d poses, %4d contacts, count mismatch %d; "
                   "max |d dist| %.2e |d pos| %.2e |d normal| %.2e; MuJoCo 1e-6 vs 1e-10: "
                   "%.2e %.2e %.2e\n",
                   (const char*[]){"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                   "cylinder", "box", "mesh"}[t1],
                   (const char*[]){"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                   "cylinder", "box", "mesh"}[t2],
                   margin, e.pairs, e.contacts, e.count_mismatch, e.dist, e.pos, e.normal,
                   s.dist, s.pos, s.normal);
            total->pairs += e.pairs;
            total->contacts += e.contacts;
            total->count_mismatch += e.count_mismatch;
            total->dist = fmax(total->dist, e.dist);
            total->pos = fmax(total->pos, e.pos);
            total->normal = fmax(total->normal, e.normal);
            sens->dist = fmax(sens->dist, s.dist);
            sens->pos = fmax(sens->pos, s.pos);
            sens->normal = fmax(sens->normal, s.normal);
        }
    }
    unload(&p);
    return 0;
}

static int test_convex_vs_mujoco(void) {
    for (int im = 0; im < 2; im++) {
        double margin = im ? 0.05 : 0;
        Errors total = {0}, sens = {0};
        CHECK(run_random_pairs(margin, 400, &total, &sens) == 0);
        printf("  all: %d poses, %d contacts, %d count mismatches; max |d dist| %.2e, |d pos| "
               "%.2e, |d normal| %.2e (MuJoCo's own change 1e-6 -> 1e-10: %.2e %.2e %.2e)\n",
               total.pairs, total.contacts, total.count_mismatch, total.dist, total.pos,
               total.normal, sens.dist, sens.pos, sens.normal);
        CHECK(total.contacts > 100);
        CHECK(total.count_mismatch == 0);
        CHECK(total.dist <= 1e-9);
        CHECK(total.pos <= 1e-9);
        CHECK(total.normal <= 1e-9);
    }
    return 0;
}

// hull properties: every point on or below every face plane, V - E + F = 2 with every edge in
// exactly two faces (E = 3F/2, each directed edge once), graph neighbour lists symmetric
static int check_hull(const double* pts, int n, const gdnHull* h, double* max_outside) {
    double ext = 0;
    for (int i = 0; i < 3 * n; i++) {
        ext = fmax(ext, fabs(pts[i]));
    }
    *max_outside = 0;
    for (int f = 0; f < h->nface; f++) {
        const double* a = pts + 3 * h->face[3 * f];
        const double* b = pts + 3 * h->face[3 * f + 1];
        const double* c = pts + 3 * h->face[3 * f + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        CHECK(len > 0);
        for (int i = 0; i < n; i++) {
            double d = ((pts[3 * i] - a[0]) * nrm[0] + (pts[3 * i + 1] - a[1]) * nrm[1] +
                        (pts[3 * i + 2] - a[2]) * nrm[2]) / len;
            *max_outside = fmax(*max_outside, d);
        }
    }
    CHECK(*max_outside <= 1e-9 * ext);
    CHECK(h->nface % 2 == 0);
    int nedge = 3 * h->nface / 2;
    CHECK(h->nvert - nedge + h->nface == 2);
    for (int f = 0; f < h->nface; f++) {
        for (int k = 0; k < 3; k++) {
            int a = h->face[3 * f + k], b = h->face[3 * f + (k + 1) % 3], twins = 0, same = 0;
            for (int g = 0; g < h->nface; g++) {
                for (int j = 0; j < 3; j++) {
                    int c = h->face[3 * g + j], d = h->face[3 * g + (j + 1) % 3];
                    twins += c == b && d == a;
                    same += c == a && d == b;
                }
            }
            CHECK(twins == 1 && same == 1);
        }
    }
    int size = gdn_hull_graph_size(h);
    int* graph = malloc(sizeof(int) * (size_t)size);
    CHECK(graph);
    gdn_hull_graph(h, graph);
    int nv = graph[0];
    const int* edgeadr = graph + 2;
    const int* localid = graph + 2 + 2 * nv;
    int ok = 1;
    for (int i = 0; i < nv && ok; i++) {
        for (int e = edgeadr[i]; localid[e] >= 0; e++) {
            int j = localid[e], back = 0;
            for (int e2 = edgeadr[j]; localid[e2] >= 0; e2++) {
                back += localid[e2] == i;
            }
            ok &= back == 1;
        }
    }
    CHECK(localid[nv + 3 * h->nface - 1] == -1);
    free(graph);
    CHECK(ok);
    return 0;
}

// random clouds, cube grids (many coplanar points on every face, duplicates, interior points):
// hull properties; for clouds in general position also MuJoCo's (qhull's) hull vertex set
static int test_hull_properties(void) {
    unsigned long long rng = 777;
    double worst = 0;
    int cases_run = 0;
    for (int trial = 0; trial < 60; trial++) {
        int n = 4 + (int)gdn_test_uniform(&rng, 0, 300);
        double* pts = malloc(sizeof(double) * 3 * (size_t)(n + 200));
        CHECK(pts);
        int kind = trial % 3;
        int m = 0;
        for (int i = 0; i < n; i++, m++) {
            for (int k = 0; k < 3; k++) {
                double x = gdn_test_uniform(&rng, -1, 1);
                if (kind == 1) {
                    x = floor(x * 3) / 3; // grid: coplanar rows and duplicates
                }
                pts[3 * m + k] = x;
            }
            if (kind == 2 && i % 4 == 0) { // on a sphere, plus exact repeats
                double r = sqrt(pts[3 * m] * pts[3 * m] + pts[3 * m + 1] * pts[3 * m + 1] +
                                pts[3 * m + 2] * pts[3 * m + 2]) + 1e-12;
                for (int k = 0; k < 3; k++) {
                    pts[3 * m + k] /= r;
                }
                if (m > 0) {
                    memcpy(pts + 3 * (m + 1), pts + 3 * m, sizeof(double) * 3);
                    m++;
                }
            }
        }
        gdnHull h;
        char cause[128];
        gdnStatus st = gdn_hull_build(pts, m, &h, cause, sizeof(cause));
        if (st != GDN_OK) {
            fprintf(stderr, "  hull of %d points: %s\n", m, cause);
        }
        CHECK(st == GDN_OK);
        double outside;
        CHECK(check_hull(pts, m, &h, &outside) == 0);
        worst = fmax(worst, outside);
        cases_run++;
        gdn_hull_free(&h);
        free(pts);
    }
    printf("  %d clouds: Euler V - E + F = 2, edge twins, symmetric graph; max point above a "
           "face %.2e\n", cases_run, worst);

    // MuJoCo's hull vertex set of the 'rock' and 'wedge' meshes (MuJoCo built its graphs from
    // the vertices before centring them, so only the set is comparable here; the loader's graphs
    // equal MuJoCo's int for int in test_mjcf_mesh)
    Pair p;
    CHECK(load(&p, convex_xml) == 0);
    for (int id = 0; id < p.mm->nmesh; id++) {
        int nv = p.mm->mesh_vertnum[id];
        double* v = malloc(sizeof(double) * 3 * (size_t)nv);
        CHECK(v);
        for (int i = 0; i < 3 * nv; i++) {
            v[i] = p.mm->mesh_vert[3 * p.mm->mesh_vertadr[id] + i];
        }
        gdnHull h;
        CHECK(gdn_hull_build(v, nv, &h, NULL, 0) == GDN_OK);
        const int* graph = p.mm->mesh_graph + p.mm->mesh_graphadr[id];
        CHECK(graph[0] == h.nvert && graph[1] == h.nface);
        for (int i = 0; i < h.nvert; i++) {
            int found = 0;
            for (int j = 0; j < graph[0]; j++) {
                found |= graph[2 + graph[0] + j] == h.vert[i];
            }
            CHECK(found);
        }
        printf("  mesh %d: %d hull vertices, %d triangles, as MuJoCo's\n", id, h.nvert,
               h.nface);
        gdn_hull_free(&h);
        free(v);
    }
    unload(&p);
    return 0;
}

// degenerate input: an error status and a cause, never a hull
static int test_hull_degenerate(void) {
    const double coplanar[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0, 0.2, 0.7, 0};
    const double collinear[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0.5, 0.5, 0.5};
    const double same[] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    const double few[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const double nan_pt[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
    struct {
        const double* p;
        int n;
        const char* word;
    } bad[] = {{coplanar, 6, "coplanar"}, {collinear, 5, "collinear"}, {same, 5, "coincide"},
               {few, 3, "at least 4"}, {nan_pt, 4, "non-finite"}};
    for (int i = 0; i < 5; i++) {
        gdnHull h;
        char cause[128];
        CHECK(gdn_hull_build(bad[i].p, bad[i].n, &h, cause, sizeof(cause)) == GDN_ERR_MODEL);
        CHECK(strstr(cause, bad[i].word) != NULL);
        CHECK(h.nface == 0 && h.face == NULL);
        printf("  %s\n", cause);
    }

    // a tetrahedron at 1e150 passes the no-volume test but Qhull's precision checks fail (its
    // squared distances overflow): Qhull's error and message come back, nothing leaks (ASan)
    const double s = 1e150;
    const double huge[] = {0, 0, 0, s, 0, 0, 0, s, 0, 0.3 * s, 0.3 * s, s, 0.2 * s, 0.2 * s,
                           0.1 * s};
    gdnHull h;
    char cause[200];
    CHECK(gdn_hull_build(huge, 5, &h, cause, sizeof(cause)) == GDN_ERR_MODEL);
    CHECK(strstr(cause, "Qhull") != NULL);
    CHECK(h.nface == 0 && h.graph == NULL);
    printf("  %s\n", cause);
    return 0;
}

static const gdnTestCase cases[] = {
    {"convex_vs_mujoco", test_convex_vs_mujoco},
    {"hull_properties", test_hull_properties},
    {"hull_degenerate", test_hull_degenerate},
};

GDN_TEST_MAIN(cases)
