// SPDX-License-Identifier: Apache-2.0
// MJCF <contact><pair>/<exclude>, <size nconmax njmax> and geom priority against MuJoCo 2.2.2:
// compiled fields, then gdn_collision on the loaded model vs mj_collision, and name errors.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "oracle/mj_from_string.h"
#include "runner/test.h"

static char g_err[2048];
static char g_warn[8192];

// one MJCF string loaded by both engines (gradyn's model from its own loader)
typedef struct {
    mjModel* mm;
    mjData* md;
    gdnModel* gm;
    gdnData* gd;
} Both;

static int load_both(Both* b, const char* xml) {
    memset(b, 0, sizeof(*b));
    b->mm = gdn_oracle_mj_from_string(xml);
    if (!b->mm) {
        return 1;
    }
    b->md = mj_makeData(b->mm);
    if (gdn_load_xml_string(xml, strlen(xml), NULL, &b->gm, g_err, sizeof(g_err), g_warn,
                            sizeof(g_warn)) != GDN_OK) {
        fprintf(stderr, "gradyn: %s\n", g_err);
        return 1;
    }
    return gdn_data_create(b->gm, &b->gd) == GDN_OK ? 0 : 1;
}

static void free_both(Both* b) {
    gdn_data_free(b->gd);
    gdn_model_free(b->gm);
    mj_deleteData(b->md);
    mj_deleteModel(b->mm);
}

static int same_ints(const int* a, const int* b, int n) {
    for (int i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            fprintf(stderr, "  index %d: %d vs MuJoCo %d\n", i, a[i], b[i]);
            return 0;
        }
    }
    return 1;
}

// exact equality: every value is parsed from the same text and copied
static int same_doubles(const double* a, const double* b, int n) {
    for (int i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            fprintf(stderr, "  index %d: %.17g vs MuJoCo %.17g\n", i, a[i], b[i]);
            return 0;
        }
    }
    return 1;
}

// every pair_*, exclude_signature and geom_priority equal to MuJoCo's; nconmax / njmax equal
// when <size> gave them (sized 1), automatic when not (sized 0: gradyn 0, MuJoCo 100 / 500),
// not compared (sized -1)
static int same_contact_fields(const Both* b, int sized) {
    const gdnModel* g = b->gm;
    const mjModel* m = b->mm;
    CHECK(g->npair == m->npair && g->nexclude == m->nexclude && g->ngeom == m->ngeom);
    int np = m->npair;
    CHECK(same_ints(g->pair_dim, m->pair_dim, np));
    CHECK(same_ints(g->pair_geom1, m->pair_geom1, np));
    CHECK(same_ints(g->pair_geom2, m->pair_geom2, np));
    CHECK(same_ints(g->pair_signature, m->pair_signature, np));
    CHECK(same_doubles(g->pair_solref, m->pair_solref, mjNREF * np));
    CHECK(same_doubles(g->pair_solimp, m->pair_solimp, mjNIMP * np));
    CHECK(same_doubles(g->pair_margin, m->pair_margin, np));
    CHECK(same_doubles(g->pair_gap, m->pair_gap, np));
    CHECK(same_doubles(g->pair_friction, m->pair_friction, 5 * np));
    CHECK(same_ints(g->exclude_signature, m->exclude_signature, m->nexclude));
    CHECK(same_ints(g->geom_priority, m->geom_priority, m->ngeom));
    if (sized > 0) {
        CHECK(g->nconmax == m->nconmax && g->njmax == m->njmax);
    } else if (sized == 0) {
        CHECK(g->nconmax == 0 && g->njmax == 0 && m->nconmax == 100 && m->njmax == 500);
    }
    return 0;
}

// defaults classes (nested), partial friction/solref/solimp, geoms given in either body order,
// world geoms, repeated pairs, excludes with the world, priorities
static const char* FIELDS_XML =
    "<mujoco>\n"
    "<size nconmax='37' njmax='211' nstack='5000' nuserdata='3'/>\n"
    "<default><pair solref='0.03 0.5'/><geom priority='1'/>\n"
    "  <default class='c'><pair condim='4' friction='0.7 0.6' margin='0.1'/>\n"
    "    <default class='d'><pair condim='6' gap='0.02' solimp='0.5'/></default></default>\n"
    "  <default class='e'><geom priority='-2'/></default></default>\n"
    "<worldbody><geom name='floor' type='plane' size='1 1 1' priority='3'/>\n"
    "<geom name='wall' type='box' pos='2 0 0' size='.1 1 1' class='e'/>\n"
    "<body name='a'><freejoint/><geom name='ga' size='0.1' margin='0.3' condim='6'/></body>\n"
    "<body name='b' pos='0 0 1'><freejoint/><geom name='gb' size='0.1'/>"
    "<geom name='gb2' type='capsule' size='0.1 0.2' class='e'/>\n"
    "  <body name='c'><joint/><geom name='gc' type='box' size='.1 .1 .1'/></body></body>\n"
    "</worldbody>\n"
    "<contact><pair geom1='gb' geom2='ga' friction='0.5'/>\n"
    "<pair class='c' geom1='floor' geom2='gb2' solimp='0.1 0.2'/>\n"
    "<pair class='d' geom2='gc' geom1='gb' solref='-100' friction='0.1 0.2 0.3 0.4 0.5'/>\n"
    "<pair geom1='gb2' geom2='ga'/><pair name='p' geom1='ga' geom2='gb2' gap='0.2'/>\n"
    "<pair geom1='gc' geom2='wall' margin='0.25' condim='1'/>\n"
    "<exclude body1='b' body2='a'/><exclude body1='world' body2='b'/>"
    "<exclude name='x' body1='c' body2='c'/><exclude body1='a' body2='world'/></contact>\n"
    "</mujoco>";

static int test_fields(void) {
    Both b;
    CHECK(load_both(&b, FIELDS_XML) == 0);
    CHECK(b.gm->npair == 6 && b.gm->nexclude == 4);
    CHECK(same_contact_fields(&b, 1) == 0);
    CHECK(b.gd->maxcon == 37 && b.gd->maxefc == 211);
    CHECK(!strstr(g_warn, "pair") && !strstr(g_warn, "exclude") && !strstr(g_warn, "size"));
    free_both(&b);
    return 0;
}

// no <size>: automatic capacities; no contact section: no pairs
static int test_automatic_sizes(void) {
    Both b;
    CHECK(load_both(&b, "<mujoco><size nconmax='-1' njmax='-3'/><worldbody><geom size='1'/>"
                        "</worldbody></mujoco>") == 0);
    CHECK(same_contact_fields(&b, 0) == 0);
    CHECK(b.gm->npair == 0 && b.gm->nexclude == 0);
    free_both(&b);
    CHECK(load_both(&b, "<mujoco><worldbody><geom size='1'/></worldbody></mujoco>") == 0);
    CHECK(same_contact_fields(&b, 0) == 0);
    free_both(&b);
    return 0;
}

// many pairs and excludes in scrambled order, several per body pair: sorted by signature, and
// repeated signatures in the order MuJoCo's std::sort leaves them (reading order up to 16
// pairs; libstdc++'s introsort order above)
static int scrambled_pairs(int npair) {
    static const char* geoms[] = {"s0", "s1", "c0", "c1", "b0", "b1", "floor"};
    static char xml[65536];
    int len = snprintf(xml, sizeof(xml),
                       "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"
                       "<body name='A'><freejoint/><geom name='s0' size='.1'/>"
                       "<geom name='c0' type='capsule' size='.1 .1'/></body>"
                       "<body name='B'><freejoint/><geom name='s1' size='.1'/>"
                       "<geom name='c1' type='capsule' size='.1 .1'/></body>"
                       "<body name='C'><freejoint/><geom name='b0' type='box' size='.1 .1 .1'/>"
                       "<geom name='b1' type='box' size='.1 .1 .1'/></body>"
                       "</worldbody><contact>");
    unsigned long long rng = 99 + (unsigned long long)npair;
    for (int i = 0; i < npair; i++) {
        int g1 = (int)gdn_test_uniform(&rng, 0, 7), g2 = (int)gdn_test_uniform(&rng, 0, 7);
        len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                        "<pair geom1='%s' geom2='%s' margin='%d' friction='%d'/>", geoms[g1],
                        geoms[g2], i, i + 1);
        if (i % 3 == 0) {
            static const char* bodies[] = {"A", "B", "C", "world"};
            len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                            "<exclude body1='%s' body2='%s'/>",
                            bodies[(int)gdn_test_uniform(&rng, 0, 4)],
                            bodies[(int)gdn_test_uniform(&rng, 0, 4)]);
        }
    }
    snprintf(xml + len, sizeof(xml) - (size_t)len, "</contact></mujoco>");
    Both b;
    CHECK(load_both(&b, xml) == 0);
    int r = same_contact_fields(&b, 0);
    free_both(&b);
    return r;
}

static int test_sorting(void) {
    static const int sizes[] = {5, 16, 17, 24, 31, 45, 64, 100, 257};
    for (int i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
        if (scrambled_pairs(sizes[i])) {
            fprintf(stderr, "%d pairs: pair order differs from MuJoCo's\n", sizes[i]);
            return 1;
        }
    }
    return 0;
}

// ---------------------------------------------------------------- collision on the loaded model

static double maxdiff(const double* a, const double* b, int n) {
    double w = 0;
    for (int i = 0; i < n; i++) {
        w = fmax(w, fabs(a[i] - b[i]));
    }
    return w;
}

static double g_geom_err, g_param_err;

// contact lists equal: same count and order, geoms/dim/exclude exactly, geometry to 1e-9
// (the loader's frames against MuJoCo's compiled ones), parameters to 1e-15
static int same_contacts(const Both* b) {
    const gdnData* gd = b->gd;
    const mjData* md = b->md;
    if (gd->ncon != md->ncon) {
        fprintf(stderr, "ncon %d vs MuJoCo %d\n", gd->ncon, md->ncon);
        return 1;
    }
    for (int i = 0; i < gd->ncon; i++) {
        const gdnContact* c = gd->contact + i;
        const mjContact* k = md->contact + i;
        CHECK(c->geom1 == k->geom1 && c->geom2 == k->geom2);
        CHECK(c->dim == k->dim && c->exclude == k->exclude);
        double geo = fmax(fabs(c->dist - k->dist),
                          fmax(maxdiff(c->pos, k->pos, 3), maxdiff(c->frame, k->frame, 9)));
        double par = fmax(maxdiff(c->friction, k->friction, 5),
                          fmax(maxdiff(c->solref, k->solref, 2),
                               fmax(maxdiff(c->solimp, k->solimp, 5),
                                    fabs(c->includemargin - k->includemargin))));
        g_geom_err = fmax(g_geom_err, geo);
        g_param_err = fmax(g_param_err, par);
        if (!(geo <= 1e-9 && par <= 1e-15)) {
            fprintf(stderr, "contact %d (geoms %d %d): geometry diff %.3g, parameter diff %.3g\n",
                    i, c->geom1, c->geom2, geo, par);
            return 1;
        }
    }
    return 0;
}

static void random_quat(unsigned long long* rng, double q[4]) {
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = gdn_test_uniform(rng, -1, 1);
        n += q[k] * q[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; k++) {
        q[k] /= n;
    }
}

// explicit pairs (one between geoms the filters would reject, one parent-child, one with the
// world), excludes between overlapping compatible bodies, priorities deciding the mixing
static const char* SCENE_XML =
    "<mujoco><option gravity='0 0 0'/>\n"
    "<size nconmax='60'/>\n"
    "<default><pair friction='0.4 0.3 0.02' solref='0.04 0.8'/></default>\n"
    "<worldbody><geom name='floor' type='plane' size='0 0 1' priority='1' friction='0.6 0.01 0.001'"
    " solref='0.01 1.2' condim='4'/>\n"
    "<body name='a' pos='0 0 0.3'><freejoint/>\n"
    "  <geom name='ga' type='box' size='0.2 0.15 0.1' contype='2' conaffinity='2'/>\n"
    "  <body name='a2' pos='0 0 0.35'><joint type='hinge' axis='1 0 0'/>\n"
    "    <geom name='ga2' type='capsule' size='0.1 0.2' condim='6'/></body></body>\n"
    "<body name='b' pos='0.3 0 0.3'><freejoint/>\n"
    "  <geom name='gb' type='sphere' size='0.2' priority='2' friction='1.5 0.02 0.003'"
    " solimp='0.7 0.8 0.01 0.5 2' condim='1'/></body>\n"
    "<body name='c' pos='-0.3 0.1 0.3'><freejoint/>\n"
    "  <geom name='gc' type='capsule' size='0.15 0.2' solmix='3'/>\n"
    "  <geom name='gc2' type='box' size='0.1 0.1 0.1' pos='0 0 0.2' priority='-1'/></body>\n"
    "<body name='d' pos='0 0.3 0.3'><freejoint/>\n"
    "  <geom name='gd' type='sphere' size='0.25' margin='0.05'/></body>\n"
    "</worldbody>\n"
    "<contact>\n"
    "  <pair geom1='floor' geom2='ga' condim='3' friction='0.9 0.8 0.01 0.001 0.002'/>\n"
    "  <pair geom1='ga2' geom2='ga' condim='6' margin='0.02' gap='0.01'/>\n"
    "  <pair geom1='gb' geom2='ga' solimp='0.6 0.9'/>\n"
    "  <pair geom1='gd' geom2='gc' condim='4' margin='0.1'/>\n"
    "  <exclude body1='c' body2='b'/><exclude body1='d' body2='a2'/>\n"
    "</contact></mujoco>";

// gdn_collision vs mj_collision over 2000 random poses of xml (SCENE_XML or a variant): the
// contacts, their geometry and parameters; counts of contacts, those from explicit pairs and
// those between geoms of unequal priority
static int collide_poses(const char* xml, int* total, int* npairs_seen, int* nprio) {
    Both b;
    CHECK(load_both(&b, xml) == 0);
    CHECK(same_contact_fields(&b, -1) == 0);
    CHECK(b.gm->nconmax == 60 && b.mm->nconmax == 60 && b.gm->njmax == 0);
    CHECK(b.gm->opt.collision == b.mm->opt.collision);
    unsigned long long rng = 2024;
    *total = *npairs_seen = *nprio = 0;
    g_geom_err = g_param_err = 0;
    for (int s = 0; s < 2000; s++) {
        // random displacements about the initial configuration keep bodies touching
        memcpy(b.gd->qpos, b.gm->qpos0, sizeof(double) * (size_t)b.gm->nq);
        for (int j = 0; j < b.gm->njnt; j++) {
            int a = b.gm->jnt_qposadr[j];
            if (b.gm->jnt_type[j] == GDN_JNT_FREE) {
                for (int k = 0; k < 3; k++) {
                    b.gd->qpos[a + k] += gdn_test_uniform(&rng, -0.2, 0.2);
                }
                random_quat(&rng, b.gd->qpos + a + 3);
            } else {
                b.gd->qpos[a] = gdn_test_uniform(&rng, -1.5, 1.5);
            }
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
        *total += b.gd->ncon;
        for (int i = 0; i < b.gd->ncon; i++) {
            int g1 = b.gd->contact[i].geom1, g2 = b.gd->contact[i].geom2;
            int pair = 0;
            for (int p = 0; p < b.gm->npair; p++) {
                pair |= (b.gm->pair_geom1[p] == g1 && b.gm->pair_geom2[p] == g2) ||
                        (b.gm->pair_geom1[p] == g2 && b.gm->pair_geom2[p] == g1);
            }
            *npairs_seen += pair;
            *nprio += !pair && b.gm->geom_priority[g1] != b.gm->geom_priority[g2];
        }
    }
    free_both(&b);
    return 0;
}

static int test_collision_loaded(void) {
    int total, npairs_seen, nprio;
    CHECK(collide_poses(SCENE_XML, &total, &npairs_seen, &nprio) == 0);
    printf("  %d contacts over 2000 poses (%d from explicit pairs, %d with unequal priorities);"
           " worst geometry diff %.3g, parameter diff %.3g\n",
           total, npairs_seen, nprio, g_geom_err, g_param_err);
    CHECK(npairs_seen > 0 && nprio > 0);
    return 0;
}

// <option collision="predefined"> (the explicit pairs only, exclusions ignored) and "dynamic"
// (the filtered geom pairs only: an explicit pair's geoms collide with geom-mixed parameters)
// equal MuJoCo's over the same poses
static int test_collision_modes(void) {
    static const char* const modes[] = {"predefined", "dynamic"};
    for (int k = 0; k < 2; k++) {
        char xml[8192];
        const char* opt = "<option gravity='0 0 0'/>";
        const char* at = strstr(SCENE_XML, opt);
        CHECK(at);
        snprintf(xml, sizeof(xml), "%.*s<option gravity='0 0 0' collision='%s'/>%s",
                 (int)(at - SCENE_XML), SCENE_XML, modes[k], at + strlen(opt));
        int total, npairs_seen, nprio;
        CHECK(collide_poses(xml, &total, &npairs_seen, &nprio) == 0);
        printf("  collision=\"%s\": %d contacts over 2000 poses (%d from explicit pairs' geoms, "
               "%d with unequal priorities) as MuJoCo's; worst geometry diff %.3g, parameter "
               "diff %.3g\n",
               modes[k], total, npairs_seen, nprio, g_geom_err, g_param_err);
        // predefined: every contact from a pair; dynamic: contacts between other geoms too
        CHECK(total > 0);
        CHECK(k == 0 ? npairs_seen == total && nprio == 0 : nprio > 0);
    }
    return 0;
}

// ---------------------------------------------------------------- errors

static int expect_error(const char* xml, gdnStatus st, const char* frag1, const char* frag2) {
    gdnModel* m = NULL;
    gdnStatus got = gdn_load_xml_string(xml, strlen(xml), NULL, &m, g_err, sizeof(g_err), NULL,
                                        0);
    if (got != st || m != NULL || !strstr(g_err, frag1) || (frag2 && !strstr(g_err, frag2))) {
        fprintf(stderr, "expected status %d with '%s' '%s', got %d: %s\n", (int)st, frag1,
                frag2 ? frag2 : "", (int)got, g_err);
        gdn_model_free(m);
        return 1;
    }
    return 0;
}

#define BODIES                                                                                  \
    "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"                        \
    "<body name='a'><freejoint/><geom name='ga' size='.1'/></body></worldbody>\n"

static int test_errors(void) {
    CHECK(!expect_error(BODIES "<contact>\n<pair geom1='ga' geom2='nope'/></contact></mujoco>",
                        GDN_ERR_MODEL, "<string>:3: pair:", "nope"));
    CHECK(!expect_error(BODIES "<contact><pair geom1='x1' geom2='ga'/></contact></mujoco>",
                        GDN_ERR_MODEL, "<string>:2: pair:", "geom1 'x1'"));
    CHECK(!expect_error(BODIES "<contact>\n\n<exclude body1='a' body2='zz'/></contact></mujoco>",
                        GDN_ERR_MODEL, "<string>:4: exclude:", "body2 'zz'"));
    CHECK(!expect_error(BODIES "<contact><exclude body1='q' body2='a'/></contact></mujoco>",
                        GDN_ERR_MODEL, "<string>:2: exclude:", "body1 'q'"));
    CHECK(!expect_error(BODIES "<contact><pair geom1='ga'/></contact></mujoco>", GDN_ERR_PARSE,
                        "<string>:2: pair:", "geom2"));
    CHECK(!expect_error(BODIES "<contact><exclude body2='a'/></contact></mujoco>", GDN_ERR_PARSE,
                        "<string>:2: exclude:", "body1"));
    CHECK(!expect_error(BODIES "<contact><pair geom1='ga' geom2='floor' condim='2'/></contact>"
                               "</mujoco>",
                        GDN_ERR_MODEL, "<string>:2: pair:", "condim"));
    CHECK(!expect_error(BODIES "<contact><pair class='k' geom1='ga' geom2='floor'/></contact>"
                               "</mujoco>",
                        GDN_ERR_MODEL, "<string>:2: pair:", "'k'"));
    CHECK(!expect_error(BODIES "<contact><pair geom1='ga' geom2='floor' friction='1 2 3 4 5 6'/>"
                               "</contact></mujoco>",
                        GDN_ERR_PARSE, "<string>:2: pair:", "friction"));
    CHECK(!expect_error(BODIES "<contact><geom/></contact></mujoco>", GDN_ERR_PARSE,
                        "<string>:2: geom:", "contact"));
    CHECK(!expect_error(BODIES "<size nconmax='x'/></mujoco>", GDN_ERR_PARSE, "<string>:2: size:",
                        "nconmax"));
    // nconmax 0 (MuJoCo: no contact capacity) cannot be represented: warned, sized automatically
    gdnModel* m = NULL;
    const char* zero = BODIES "<size nconmax='0'/></mujoco>";
    CHECK(gdn_load_xml_string(zero, strlen(zero), NULL, &m, g_err, sizeof(g_err), g_warn,
                              sizeof(g_warn)) == GDN_OK);
    CHECK(m->nconmax == 0 && strstr(g_warn, "<string>:2: size:"));
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"fields", test_fields},
    {"automatic_sizes", test_automatic_sizes},
    {"sorting", test_sorting},
    {"collision_loaded", test_collision_loaded},
    {"collision_modes", test_collision_modes},
    {"errors", test_errors},
};

GDN_TEST_MAIN(cases)
