// SPDX-License-Identifier: Apache-2.0
// Model setters against recompilation: set a value, load the MJCF text edited to the same value,
// and compare every model field (src/model/model_fields.h) bit for bit; then 300 steps of both.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "model/model_fields.h"
#include "runner/test.h"

#define HUMANOID_MJ "/usr/share/mujoco/model/humanoid/humanoid.xml"
#define HUMANOIDS22_MJ "/usr/share/mujoco/model/humanoid/22_humanoids.xml"

static long g_arrays, g_values; // compared over the whole run

// ---------------------------------------------------------------- text helpers

static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) {
        s[n] = 0;
    }
    fclose(f);
    return s;
}

static int exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) {
        fclose(f);
    }
    return f != NULL;
}

static const char* model_path(const char* file) {
    static char buf[1024];
    if (file[0] == '/') {
        return file;
    }
    snprintf(buf, sizeof(buf), "%s/%s", GDN_TEST_MODELS, file);
    return buf;
}

// dir of a path (static buffer)
static const char* dir_of(const char* path) {
    static char buf[1024];
    snprintf(buf, sizeof(buf), "%s", path);
    char* slash = strrchr(buf, '/');
    if (slash) {
        *slash = 0;
    }
    return buf;
}

static gdnModel* load_text(const char* xml, const char* dir) {
    char err[1024];
    gdnModel* m = NULL;
    if (gdn_load_xml_string(xml, strlen(xml), dir, &m, err, sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "  load: %s\n", err);
        return NULL;
    }
    return m;
}

// s with [a, b) replaced by ins (new heap string; s freed)
static char* splice(char* s, size_t a, size_t b, const char* ins) {
    size_t n = strlen(s), k = strlen(ins);
    char* r = malloc(n - (b - a) + k + 1);
    memcpy(r, s, a);
    memcpy(r + a, ins, k);
    memcpy(r + a + k, s + b, n - b + 1);
    free(s);
    return r;
}

// the MJCF tags of interest, in document order: each <body> start (its id), each <geom> outside
// <default> (its body), each <pair>; comments skipped
typedef struct Tag {
    size_t start, end; // '<' and one past '>'
    int body;          // body id of a body tag, owner body of a geom
    int geom_doc;      // document order among geoms
} Tag;

#define SCAN_MAX 4096 // tags of one kind (bodies, geoms, pairs) a scanned file may hold

typedef struct Scan {
    Tag bodies[SCAN_MAX], geoms[SCAN_MAX], pairs[SCAN_MAX];
    int nbody, ngeom, npair;
} Scan;

static int is_tag(const char* p, const char* name) {
    size_t k = strlen(name);
    return !strncmp(p + 1, name, k) && (p[1 + k] == ' ' || p[1 + k] == '>' ||
                                         p[1 + k] == '/' || p[1 + k] == '\n' || p[1 + k] == '\t');
}

static void scan(const char* s, Scan* sc) {
    memset(sc, 0, sizeof(*sc));
    int stack[64], depth = 0, in_default = 0, nb = 0;
    stack[0] = 0;
    for (const char* p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        if (!strncmp(p, "<!--", 4)) {
            p = strstr(p, "-->");
            if (!p) {
                return;
            }
            continue;
        }
        const char* e = strchr(p, '>');
        if (!e) {
            return;
        }
        int selfclose = e[-1] == '/';
        size_t start = (size_t)(p - s), end = (size_t)(e - s) + 1;
        if (is_tag(p, "default")) {
            in_default += !selfclose;
        } else if (is_tag(p, "/default")) {
            in_default--;
        } else if (sc->nbody == SCAN_MAX || sc->ngeom == SCAN_MAX || sc->npair == SCAN_MAX ||
                   depth == 63) {
            return; // beyond the test's capacity: the edits then fail visibly
        } else if (is_tag(p, "body")) {
            nb++;
            sc->bodies[sc->nbody++] = (Tag){start, end, nb, 0};
            if (!selfclose) {
                stack[++depth] = nb;
            }
        } else if (is_tag(p, "/body")) {
            depth--;
        } else if (is_tag(p, "geom") && !in_default) {
            sc->geoms[sc->ngeom] = (Tag){start, end, stack[depth], sc->ngeom};
            sc->ngeom++;
        } else if (is_tag(p, "pair") && !in_default) {
            sc->pairs[sc->npair++] = (Tag){start, end, 0, 0};
        }
    }
}

// geom id g's tag: geoms are numbered by body, in document order within a body
static Tag geom_tag(const Scan* sc, int g) {
    int k = 0;
    for (int b = 0; b <= sc->nbody; b++) {
        for (int i = 0; i < sc->ngeom; i++) {
            if (sc->geoms[i].body == b && k++ == g) {
                return sc->geoms[i];
            }
        }
    }
    return (Tag){0, 0, -1, -1};
}

// set attribute name="value" on the tag at [t.start, t.end): replace the value (either quote)
// or add it
static char* set_attr(char* s, Tag t, const char* name, const char* value) {
    char key[64], ins[512];
    snprintf(key, sizeof(key), " %s=", name);
    char saved = s[t.end];
    s[t.end] = 0;
    char* at = strstr(s + t.start, key);
    s[t.end] = saved;
    if (at) {
        size_t a = (size_t)(at - s) + strlen(key) + 1;
        size_t b = (size_t)(strchr(s + a, s[a - 1]) - s);
        return splice(s, a, b, value);
    }
    snprintf(ins, sizeof(ins), " %s=\"%s\"", name, value);
    size_t pos = t.start + 1 + strcspn(s + t.start + 1, " \t\n/>");
    return splice(s, pos, pos, ins);
}

// "%.17g %.17g ..." of n doubles
static const char* fmt_doubles(const double* v, int n) {
    static char buf[512];
    int k = 0;
    for (int i = 0; i < n; i++) {
        k += snprintf(buf + k, sizeof(buf) - (size_t)k, "%s%.17g", i ? " " : "", v[i]);
    }
    return buf;
}

// ---------------------------------------------------------------- comparisons

// every field of a and b compared bit for bit; prints the fields that differ; 1 when equal
static int same_model(const gdnModel* a, const gdnModel* b, const char* what) {
    gdnModelField fa[512], fb[512];
    int na = gdn_model_fields(a, fa, 512), nb = gdn_model_fields(b, fb, 512);
    if (na != nb || na > 512) {
        return 0;
    }
    int ndiff = 0;
    for (int i = 0; i < na; i++) {
        static const size_t elem[] = {sizeof(int), sizeof(double), sizeof(char)};
        g_arrays++;
        g_values += (long)fa[i].count;
        if (fa[i].count != fb[i].count) {
            printf("  %s: %s has %zu values, the edited file's %zu\n", what, fa[i].name,
                   fa[i].count, fb[i].count);
            ndiff++;
            continue;
        }
        size_t bytes = fa[i].count * elem[fa[i].type];
        if (bytes && memcmp(fa[i].ptr, fb[i].ptr, bytes)) {
            size_t first = 0;
            while (first < fa[i].count &&
                   !memcmp((const char*)fa[i].ptr + first * elem[fa[i].type],
                           (const char*)fb[i].ptr + first * elem[fa[i].type],
                           elem[fa[i].type])) {
                first++;
            }
            if (fa[i].type == GDN_FIELD_DOUBLE) {
                printf("  %s: %s differs at %zu: %.17g vs %.17g\n", what, fa[i].name, first,
                       ((const double*)fa[i].ptr)[first], ((const double*)fb[i].ptr)[first]);
            } else {
                printf("  %s: %s differs at %zu\n", what, fa[i].name, first);
            }
            ndiff++;
        }
    }
    return ndiff == 0;
}

// FNV-1a over bytes
static unsigned long long fnv(unsigned long long h, const void* p, size_t n) {
    const unsigned char* c = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ c[i]) * 1099511628211ull;
    }
    return h;
}

// hash of 300 steps from qpos0 with a small initial velocity (qpos, qvel, qacc, efc_force)
static unsigned long long rollout_hash(const gdnModel* m) {
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0;
    }
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = 0.1 * sin(1.0 + i);
    }
    unsigned long long h = 1469598103934665603ull;
    for (int t = 0; t < 300; t++) {
        if (gdn_step(m, d) != GDN_OK) {
            h = 0;
            break;
        }
        h = fnv(h, d->qpos, sizeof(double) * (size_t)m->nq);
        h = fnv(h, d->qvel, sizeof(double) * (size_t)m->nv);
        h = fnv(h, d->qacc, sizeof(double) * (size_t)m->nv);
        h = fnv(h, d->efc_force, sizeof(double) * (size_t)d->nefc);
    }
    gdn_data_free(d);
    return h;
}

// the set model equals the edited file's model, and both roll out the same
static int check_pair(const gdnModel* set, const char* edited, const char* dir, const char* what) {
    gdnModel* ref = load_text(edited, dir);
    if (!ref) {
        return 0;
    }
    int ok = same_model(set, ref, what);
    unsigned long long h1 = rollout_hash(set), h2 = rollout_hash(ref);
    if (h1 != h2 || !h1) {
        printf("  %s: rollout hash %016llx vs %016llx\n", what, h1, h2);
        ok = 0;
    }
    gdn_model_free(ref);
    return ok;
}

// ---------------------------------------------------------------- inertia

// <inertial> of body b replaced (or added after its <body> tag)
static char* put_inertial(char* s, int b, const char* inertial) {
    static Scan sc;
    scan(s, &sc);
    Tag t = sc.bodies[b - 1];
    // an existing <inertial> child: between the body tag and the next <body or </body>
    const char* from = s + t.end;
    const char* stop1 = strstr(from, "<body");
    const char* stop2 = strstr(from, "</body");
    const char* stop = !stop1 ? stop2 : !stop2 ? stop1 : stop1 < stop2 ? stop1 : stop2;
    const char* in = strstr(from, "<inertial");
    if (in && (!stop || in < stop)) {
        size_t a = (size_t)(in - s), e = (size_t)(strstr(in, "/>") - s) + 2;
        return splice(s, a, e, inertial);
    }
    return splice(s, t.end, t.end, inertial);
}

// a test model's text (*xml, caller frees) and its directory, and the model loaded from that
// text (NULL, with *xml freed and NULL, when the file is missing)
static gdnModel* load_case(const char* file, char** xml, char dir[1024]) {
    const char* path = model_path(file);
    *xml = slurp(path);
    if (!*xml) {
        printf("  %s: not found\n", file);
        return NULL;
    }
    snprintf(dir, 1024, "%s", dir_of(path));
    return load_text(*xml, dir);
}

// set body b's inertia (diagonal in body axes, or rotated) and compare with the edited file
static int inertia_case(const char* file, int b, int rotated) {
    char* xml = NULL;
    char dir[1024];
    gdnModel* m = load_case(file, &xml, dir);
    if (!m) {
        free(xml);
        return 0;
    }
    const double* p = m->body_inertia + 3 * b;
    gdnInertia in;
    memset(&in, 0, sizeof(in));
    in.mass = 1.3 * m->body_mass[b] + 0.1;
    in.com[0] = m->body_ipos[3 * b] + 0.01;
    in.com[1] = m->body_ipos[3 * b + 1] - 0.02;
    in.com[2] = m->body_ipos[3 * b + 2] + 0.005;
    double d[3] = {1.2 * p[0] + 0.001, 1.1 * p[1] + 0.002, 1.3 * p[2] + 0.0015};
    if (rotated) {
        // R diag(d) R' with R a rotation about (1, 2, 3) / |.| by 0.4 rad
        double ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, c = cos(0.4),
               s = sin(0.4), R[9];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                R[3 * i + j] = (i == j ? c : 0) + (1 - c) * ax[i] * ax[j];
            }
        }
        R[1] -= s * ax[2], R[2] += s * ax[1], R[3] += s * ax[2];
        R[5] -= s * ax[0], R[6] -= s * ax[1], R[7] += s * ax[0];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double v = 0;
                for (int k = 0; k < 3; k++) {
                    v += R[3 * i + k] * d[k] * R[3 * j + k];
                }
                in.inertia[3 * i + j] = v;
            }
        }
    } else {
        in.inertia[0] = d[0];
        in.inertia[4] = d[1];
        in.inertia[8] = d[2];
    }
    double w0 = m->dof_invweight0[0], bw0 = m->body_invweight0[2 * b];
    gdnStatus st = gdn_model_set_body_inertia(m, b, &in);
    int ok = st == GDN_OK;
    if (!ok) {
        printf("  %s body %d: set returned %s\n", file, b, gdn_status_string(st));
    } else {
        // the weights moved (the refresh ran) and the file edit matches bit for bit
        ok = m->body_invweight0[2 * b] != bw0 || m->dof_invweight0[0] != w0;
        char el[2048];
        char pos[512], quat[512], diag[512];
        snprintf(pos, sizeof(pos), "%s", fmt_doubles(m->body_ipos + 3 * b, 3));
        snprintf(quat, sizeof(quat), "%s", fmt_doubles(m->body_iquat + 4 * b, 4));
        snprintf(diag, sizeof(diag), "%s", fmt_doubles(rotated ? m->body_inertia + 3 * b : d, 3));
        snprintf(el, sizeof(el), "<inertial mass=\"%.17g\" pos=\"%s\" %s%s%sdiaginertia=\"%s\"/>",
                 in.mass, rotated ? pos : fmt_doubles(in.com, 3), rotated ? "quat=\"" : "",
                 rotated ? quat : "", rotated ? "\" " : "", diag);
        xml = put_inertial(xml, b, el);
        char what[256];
        snprintf(what, sizeof(what), "%s body %d inertia%s", file, b, rotated ? " (rotated)" : "");
        ok = check_pair(m, xml, dir, what) && ok;
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

static int test_inertia_matches_edited_file(void) {
    static const struct {
        const char* file;
        int body;
    } cases[] = {{"sol_stack.xml", 3},  {"cnstr_weld.xml", 2}, {"cnstr_weld.xml", 3},
                 {"humanoid32.xml", 1}, {"humanoid32.xml", 5}, {"humanoid32.xml", 9},
                 {"box_penalty.xml", 1}, {"arm7.xml", 4},      {HUMANOID_MJ, 1},
                 {HUMANOID_MJ, 7},       {HUMANOID_MJ, 12},     {HUMANOIDS22_MJ, 100}};
    int ok = 1;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].file[0] == '/' && !exists(cases[i].file)) {
            continue; // MuJoCo's humanoid is optional
        }
        for (int rotated = 0; rotated < 2; rotated++) {
            ok &= inertia_case(cases[i].file, cases[i].body, rotated);
        }
    }
    CHECK(ok);
    return 0;
}

// ---------------------------------------------------------------- geoms and pairs

typedef enum { GEOM_FRICTION, GEOM_SOLREF, GEOM_SOLIMP, GEOM_SIZE } GeomEdit;

// set one geom parameter and compare with the file whose <geom> tag carries the same attribute
static int geom_case(const char* file, int g, GeomEdit what, const double* v) {
    static const char* const attr[] = {"friction", "solref", "solimp", "size"};
    static const int n[] = {3, 2, 5, 3};
    char* xml = NULL;
    char dir[1024];
    gdnModel* m = load_case(file, &xml, dir);
    if (!xml) {
        return 0;
    }
    int ok = m != NULL;
    if (ok) {
        gdnStatus st = what == GEOM_FRICTION ? gdn_model_set_geom_friction(m, g, v)
                       : what == GEOM_SOLREF ? gdn_model_set_geom_solref(m, g, v)
                       : what == GEOM_SOLIMP ? gdn_model_set_geom_solimp(m, g, v)
                                             : gdn_model_set_geom_size(m, g, v);
        ok = st == GDN_OK;
        if (!ok) {
            printf("  %s geom %d %s: %s\n", file, g, attr[what], gdn_status_string(st));
        } else {
            static Scan sc;
            scan(xml, &sc);
            xml = set_attr(xml, geom_tag(&sc, g), attr[what], fmt_doubles(v, n[what]));
            char label[256];
            snprintf(label, sizeof(label), "%s geom %d %s", file, g, attr[what]);
            ok = check_pair(m, xml, dir, label);
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

static int test_geom_params_match_edited_file(void) {
    const double fr[3] = {0.7, 0.011, 0.0003}, sr[2] = {0.015, 0.8};
    const double si[5] = {0.85, 0.97, 0.002, 0.4, 3}, direct[2] = {-2000, -30};
    int ok = 1;
    // sol_stack: geom 0 the floor, 1..5 the boxes; humanoid32 and MuJoCo's humanoid: limbs
    ok &= geom_case("sol_stack.xml", 2, GEOM_FRICTION, fr);
    ok &= geom_case("sol_stack.xml", 0, GEOM_SOLREF, sr);
    ok &= geom_case("sol_stack.xml", 3, GEOM_SOLREF, direct);
    ok &= geom_case("sol_stack.xml", 4, GEOM_SOLIMP, si);
    ok &= geom_case("humanoid32.xml", 3, GEOM_FRICTION, fr);
    ok &= geom_case("humanoid32.xml", 0, GEOM_SOLIMP, si);
    ok &= geom_case("scene_slide.xml", 1, GEOM_FRICTION, fr);
    if (exists(HUMANOID_MJ)) {
        ok &= geom_case(HUMANOID_MJ, 5, GEOM_FRICTION, fr);
        ok &= geom_case(HUMANOID_MJ, 0, GEOM_SOLREF, sr);
    }
    CHECK(ok);
    return 0;
}

// a box model with explicit inertials (geom sizes do not enter the mass) and collision skins
static const char* size_xml =
    "<mujoco><option timestep='0.002'/>"
    "<custom><numeric name='gradyn_penalty' data='0 10000 100'/></custom>"
    "<worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
    "<body pos='0 0 0.3'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.01 0.012 0.014'/>"
    "<geom type='box' size='0.1 0.08 0.06' pos='0.01 0 0' euler='0.1 0.2 0.3'/>"
    "<geom type='capsule' size='0.03 0.1' pos='0 0.1 0' contype='1'/>"
    "<geom type='sphere' size='0.05' pos='0 0 0.1' contype='0' conaffinity='0'/></body>"
    "<body pos='0.5 0 0.3'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
    "<geom type='cylinder' size='0.05 0.1'/><geom type='ellipsoid' size='0.05 0.06 0.07'/>"
    "</body></worldbody></mujoco>";

// set one geom's size in an in-memory model and compare with the edited text
static int size_text_case(const char* text, int g, const double size[3]) {
    char* xml = malloc(strlen(text) + 1);
    strcpy(xml, text);
    gdnModel* m = load_text(xml, NULL);
    int ok = m != NULL;
    if (ok) {
        gdnStatus st = gdn_model_set_geom_size(m, g, size);
        ok = st == GDN_OK;
        if (!ok) {
            printf("  geom %d size: %s\n", g, gdn_status_string(st));
        } else {
            static Scan sc;
            scan(xml, &sc);
            xml = set_attr(xml, geom_tag(&sc, g), "size", fmt_doubles(size, 3));
            char label[64];
            snprintf(label, sizeof(label), "geom %d size", g);
            ok = check_pair(m, xml, NULL, label);
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

static int test_geom_size_matches_edited_file(void) {
    const double box[3] = {0.12, 0.07, 0.065}, cap[3] = {0.035, 0.12, 0};
    const double sph[3] = {0.06, 0, 0}, cyl[3] = {0.055, 0.09, 0}, ell[3] = {0.04, 0.07, 0.08};
    const double plane[3] = {3, 3, 0.2};
    CHECK(size_text_case(size_xml, 1, box));
    CHECK(size_text_case(size_xml, 2, cap));
    CHECK(size_text_case(size_xml, 3, sph));
    CHECK(size_text_case(size_xml, 4, cyl));
    CHECK(size_text_case(size_xml, 5, ell));
    CHECK(size_text_case(size_xml, 0, plane));
    // sol_stack's floor (world body, explicit-free): no mass enters
    CHECK(geom_case("sol_stack.xml", 0, GEOM_SIZE, plane));
    return 0;
}

// size = geom g's size times scale
static void scaled_size(const gdnModel* m, int g, double scale, double size[3]) {
    for (int k = 0; k < 3; k++) {
        size[k] = m->geom_size[3 * g + k] * scale;
    }
}

// a body whose inertia comes from its geoms made explicit (its current inertia through the
// setter), then a geom's size changed: the file gets both edits, the body's mass stays
static int inertia_then_size_case(const char* file, const char* geom, double scale) {
    char* xml = NULL;
    char dir[1024];
    gdnModel* m = load_case(file, &xml, dir);
    if (!xml) {
        return 0;
    }
    int g = m ? gdn_name2id(m, "geom", geom) : -1;
    int ok = g >= 0;
    if (ok) {
        int b = m->geom_bodyid[g];
        double size[3];
        scaled_size(m, g, scale, size);
        gdnInertia in;
        gdn_body_inertia(m, b, &in);
        ok = m->body_inertiasource[b] == 1 && gdn_model_set_body_inertia(m, b, &in) == GDN_OK &&
             m->body_inertiasource[b] == 0 && gdn_model_set_geom_size(m, g, size) == GDN_OK;
        if (ok) {
            char el[2048], pos[512], quat[512];
            snprintf(pos, sizeof(pos), "%s", fmt_doubles(m->body_ipos + 3 * b, 3));
            snprintf(quat, sizeof(quat), "%s", fmt_doubles(m->body_iquat + 4 * b, 4));
            snprintf(el, sizeof(el), "<inertial mass=\"%.17g\" pos=\"%s\" quat=\"%s\" "
                     "diaginertia=\"%s\"/>", m->body_mass[b], pos, quat,
                     fmt_doubles(m->body_inertia + 3 * b, 3));
            xml = put_inertial(xml, b, el);
            static Scan sc;
            scan(xml, &sc);
            xml = set_attr(xml, geom_tag(&sc, g), "size", fmt_doubles(size, 3));
            char label[256];
            snprintf(label, sizeof(label), "%s geom %s inertia then size", file, geom);
            ok = check_pair(m, xml, dir, label);
        } else {
            printf("  %s geom %s: the inertia-then-size sequence was refused\n", file, geom);
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

// a geom of a body whose inertia comes from its geoms: the body's mass properties follow
static int inferred_size_case(const char* file, const char* geom, double scale) {
    char* xml = NULL;
    char dir[1024];
    gdnModel* m = load_case(file, &xml, dir);
    if (!xml) {
        return 0;
    }
    int g = m ? gdn_name2id(m, "geom", geom) : -1;
    int ok = g >= 0;
    if (ok) {
        int b = m->geom_bodyid[g];
        double size[3], mass0 = m->body_mass[b];
        scaled_size(m, g, scale, size);
        gdnStatus st = gdn_model_set_geom_size(m, g, size);
        ok = m->body_inertiasource[b] == 1 && st == GDN_OK;
        // the mass moved unless the geom's mass is given (or the geom is not inertial)
        ok = ok && (m->body_mass[b] != mass0) == (m->geom_inertial[g] && m->geom_density[g] > 0);
        if (ok) {
            static Scan sc;
            scan(xml, &sc);
            xml = set_attr(xml, geom_tag(&sc, g), "size", fmt_doubles(size, 3));
            char label[256];
            snprintf(label, sizeof(label), "%s geom %s size (inertia from geoms)", file, geom);
            ok = check_pair(m, xml, dir, label);
        } else {
            printf("  %s geom %s: size %s\n", file, geom, gdn_status_string(st));
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

// a body with inertia from geoms of every rule: density (default and given), a given mass, a
// geom outside inertiagrouprange (group 6), a non-colliding one (no skin)
static const char* inferred_xml =
    "<mujoco><worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
    "<body name='a' pos='0 0 0.3'><freejoint/>"
    "<geom name='box' type='box' size='0.1 0.08 0.06' pos='0.01 0 0' euler='0.1 0.2 0.3'/>"
    "<geom name='cap' type='capsule' size='0.03 0.1' pos='0 0.1 0' mass='0.5'/>"
    "<geom name='sph' type='sphere' size='0.05' pos='0 0 0.1' density='300' group='4'/>"
    "<geom name='ell' type='ellipsoid' size='0.05 0.06 0.07' pos='0 -0.1 0' group='6'/>"
    "<geom name='cyl' type='cylinder' size='0.04 0.05' pos='-0.1 0 0' contype='0' "
    "conaffinity='0'/></body>"
    "<body name='b' pos='0.5 0 0.3'><joint type='hinge' axis='0 1 0'/>"
    "<geom name='one' type='box' size='0.05 0.06 0.07' pos='0 0 -0.1'/></body>"
    "</worldbody></mujoco>";

static int inferred_text_case(const char* geom, double scale) {
    char* xml = malloc(strlen(inferred_xml) + 1);
    strcpy(xml, inferred_xml);
    gdnModel* m = load_text(xml, NULL);
    int g = m ? gdn_name2id(m, "geom", geom) : -1;
    int ok = g >= 0;
    if (ok) {
        double size[3];
        scaled_size(m, g, scale, size);
        gdnStatus st = gdn_model_set_geom_size(m, g, size);
        ok = st == GDN_OK;
        if (ok) {
            static Scan sc;
            scan(xml, &sc);
            xml = set_attr(xml, geom_tag(&sc, g), "size", fmt_doubles(size, 3));
            char label[64];
            snprintf(label, sizeof(label), "geom %s size (inertia from geoms)", geom);
            ok = check_pair(m, xml, NULL, label);
        } else {
            printf("  geom %s: size %s\n", geom, gdn_status_string(st));
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

static int test_geom_size_with_inertia_from_geoms(void) {
    CHECK(inferred_text_case("box", 1.2));
    CHECK(inferred_text_case("cap", 0.8));
    CHECK(inferred_text_case("sph", 1.3));
    CHECK(inferred_text_case("ell", 1.1));
    CHECK(inferred_text_case("cyl", 0.9));
    CHECK(inferred_text_case("one", 1.25));
    CHECK(inferred_size_case("humanoid32.xml", "chest", 1.1));
    CHECK(inferred_size_case("humanoid32.xml", "head", 0.9));
    CHECK(inferred_size_case("arm7.xml", "wrist2", 1.2));
    CHECK(inferred_size_case("arm7.xml", "wrist1", 0.9));
    if (exists(HUMANOID_MJ)) {
        CHECK(inferred_size_case(HUMANOID_MJ, "head", 1.2));
    }
    return 0;
}

static int test_inertia_then_geom_size(void) {
    CHECK(inertia_then_size_case("humanoid32.xml", "chest", 1.1));
    CHECK(inertia_then_size_case("humanoid32.xml", "head", 0.9));
    if (exists(HUMANOID_MJ)) {
        CHECK(inertia_then_size_case(HUMANOID_MJ, "head", 1.2));
    }
    return 0;
}

// pairs: two explicit pairs, set by id, the <pair> tag found by its geom names
static const char* pair_xml =
    "<mujoco><worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
    "<body name='a' pos='0 0 0.1'><freejoint/><geom name='ga' type='sphere' size='0.1'/></body>"
    "<body name='b' pos='0.3 0 0.1'><freejoint/><geom name='gb' type='box' size='0.1 0.1 0.1'/>"
    "</body></worldbody><contact>"
    "<pair geom1='gb' geom2='floor' condim='6'/>"
    "<pair geom1='ga' geom2='floor' condim='4' friction='0.5 0.5 0.01 0.001 0.001'/>"
    "</contact></mujoco>";

static int pair_case(int p, int what, const double* v) {
    static const char* const attr[] = {"friction", "solref", "solimp"};
    static const int n[] = {5, 2, 5};
    char* xml = malloc(strlen(pair_xml) + 1);
    strcpy(xml, pair_xml);
    gdnModel* m = load_text(xml, NULL);
    int ok = m != NULL && p < m->npair;
    if (ok) {
        gdnStatus st = what == 0   ? gdn_model_set_pair_friction(m, p, v)
                       : what == 1 ? gdn_model_set_pair_solref(m, p, v)
                                   : gdn_model_set_pair_solimp(m, p, v);
        ok = st == GDN_OK;
        const char* g1 = gdn_id2name(m, "geom", m->pair_geom1[p]);
        const char* g2 = gdn_id2name(m, "geom", m->pair_geom2[p]);
        static Scan sc;
        scan(xml, &sc);
        int found = -1;
        for (int i = 0; i < sc.npair; i++) {
            char k1[64], k2[64];
            snprintf(k1, sizeof(k1), "geom1='%s'", g1);
            snprintf(k2, sizeof(k2), "geom2='%s'", g2);
            char saved = xml[sc.pairs[i].end];
            xml[sc.pairs[i].end] = 0;
            char* t = xml + sc.pairs[i].start;
            int hit = (strstr(t, k1) && strstr(t, k2));
            snprintf(k1, sizeof(k1), "geom1='%s'", g2);
            snprintf(k2, sizeof(k2), "geom2='%s'", g1);
            hit |= strstr(t, k1) && strstr(t, k2) != NULL;
            xml[sc.pairs[i].end] = saved;
            if (hit) {
                found = i;
            }
        }
        ok = ok && found >= 0;
        if (ok) {
            xml = set_attr(xml, sc.pairs[found], attr[what], fmt_doubles(v, n[what]));
            char label[64];
            snprintf(label, sizeof(label), "pair %d %s", p, attr[what]);
            ok = check_pair(m, xml, NULL, label);
        }
    }
    gdn_model_free(m);
    free(xml);
    return ok;
}

static int test_pair_params_match_edited_file(void) {
    const double fr[5] = {0.8, 0.6, 0.02, 0.002, 0.003}, sr[2] = {0.01, 0.7};
    const double si[5] = {0.8, 0.9, 0.003, 0.3, 2.5};
    for (int p = 0; p < 2; p++) {
        CHECK(pair_case(p, 0, fr));
        CHECK(pair_case(p, 1, sr));
        CHECK(pair_case(p, 2, si));
    }
    return 0;
}

// penalty and collision-mesh setters against the file with the same numeric / the set skin
static int test_penalty_and_skin(void) {
    const char* path = model_path("box_penalty.xml");
    char* xml = slurp(path);
    CHECK(xml != NULL);
    gdnModel* m = load_text(xml, NULL);
    CHECK(m != NULL);
    CHECK(gdn_model_set_penalty(m, 1, 0.01, 20000, 150) == GDN_OK);
    const char* at = strstr(xml, "data=\"0 10000 100\"");
    CHECK(at != NULL);
    size_t a = (size_t)(at - xml);
    xml = splice(xml, a, a + strlen("data=\"0 10000 100\""), "data=\"0.01 20000 150\"");
    CHECK(check_pair(m, xml, NULL, "penalty"));
    // the skin set back to the loader's own points gives the loaded model again
    gdnModel* ref = load_text(xml, NULL);
    CHECK(ref != NULL);
    double v[24];
    memcpy(v, ref->vert_pos + 3 * ref->body_vertadr[1], sizeof(v));
    CHECK(gdn_model_set_collision_mesh(m, 1, NULL, 0) == GDN_OK);
    CHECK(m->nvert == 0);
    CHECK(gdn_model_set_collision_mesh(m, 1, v, 8) == GDN_OK);
    CHECK(same_model(m, ref, "skin"));
    gdn_model_free(ref);
    gdn_model_free(m);
    free(xml);
    return 0;
}

// bad input: every setter refuses it with a status and leaves the model as loaded
static int test_setters_refuse_bad_input(void) {
    char* xml = slurp(model_path("humanoid32.xml"));
    CHECK(xml != NULL);
    gdnModel* m = load_text(xml, NULL);
    gdnModel* ref = load_text(xml, NULL);
    CHECK(m && ref);
    const double nan3[3] = {NAN, 0, 0}, neg3[3] = {-0.1, 0.005, 0.0001}, ok3[3] = {1, 0.005, 0};
    const double mixed[2] = {0.02, -1}, inf2[2] = {INFINITY, 1};
    const double badimp[5] = {1.2, 0.95, 0.001, 0.5, 2}, badpow[5] = {0.9, 0.95, 0.001, 0.5, 0.5};
    const double negw[5] = {0.9, 0.95, -0.001, 0.5, 2};
    CHECK(gdn_model_set_geom_friction(NULL, 0, ok3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_friction(m, -1, ok3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_friction(m, m->ngeom, ok3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_friction(m, 0, NULL) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_friction(m, 0, nan3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_friction(m, 0, neg3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_solref(m, 0, mixed) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_solref(m, 0, inf2) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_solimp(m, 0, badimp) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_solimp(m, 0, badpow) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_solimp(m, 0, negw) == GDN_ERR_ARG);
    CHECK(gdn_model_set_pair_friction(m, 0, NULL) == GDN_ERR_ARG); // npair = 0
    CHECK(gdn_model_set_pair_solref(m, 0, mixed) == GDN_ERR_ARG);
    CHECK(gdn_model_set_pair_solimp(m, -1, badimp) == GDN_ERR_ARG);
    // sizes: non-positive, non-finite; a geom whose body's inertia comes from its geoms
    const double zero3[3] = {0, 0.1, 0.1}, good[3] = {0.05, 0.1, 0.1};
    int g_inferred = -1, g_sphere_explicit = -1;
    for (int g = 0; g < m->ngeom; g++) {
        int src = m->body_inertiasource[m->geom_bodyid[g]];
        if (src == 1 && g_inferred < 0 && m->geom_type[g] != GDN_GEOM_PLANE) {
            g_inferred = g;
        }
        if (src == 0 && m->geom_bodyid[g] > 0 && g_sphere_explicit < 0) {
            g_sphere_explicit = g;
        }
    }
    CHECK(g_inferred >= 0 && g_sphere_explicit >= 0);
    CHECK(gdn_model_set_geom_size(m, g_sphere_explicit, zero3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_size(m, g_sphere_explicit, nan3) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_size(m, 0, NULL) == GDN_ERR_ARG);
    CHECK(gdn_model_set_geom_size(m, m->ngeom, good) == GDN_ERR_ARG);
    // inertia: negative moment, a massless moving body, non-finite values
    gdnInertia in;
    gdn_body_inertia(m, 1, &in);
    gdnInertia bad = in;
    bad.inertia[0] = -1;
    CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
    bad = in;
    bad.mass = 0;
    CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
    bad = in;
    bad.com[1] = NAN;
    CHECK(gdn_model_set_body_inertia(m, 1, &bad) == GDN_ERR_ARG);
    CHECK(gdn_model_set_body_inertia(m, 0, &in) == GDN_ERR_ARG);
    CHECK(same_model(m, ref, "after refused edits"));
    gdn_model_free(m);
    gdn_model_free(ref);
    free(xml);

    // mesh geoms: the size is the mesh's
    const char* path = model_path("scene_meshes.xml");
    char* mx = slurp(path);
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s", dir_of(path));
    gdnModel* mm = load_text(mx, dir);
    CHECK(mm != NULL);
    int gmesh = -1;
    for (int g = 0; g < mm->ngeom; g++) {
        if (mm->geom_type[g] == GDN_GEOM_MESH) {
            gmesh = g;
        }
    }
    CHECK(gmesh >= 0);
    CHECK(gdn_model_set_geom_size(mm, gmesh, good) == GDN_ERR_UNSUPPORTED);
    gdn_model_free(mm);
    free(mx);

    // a primitive beside a mesh geom in one skin: the skin cannot be rebuilt in place
    const char* mixed_skin =
        "<mujoco><asset><mesh name='t' vertex='0 0 0 0.1 0 0 0 0.1 0 0 0 0.1'/></asset>"
        "<worldbody><body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
        "<geom type='mesh' mesh='t'/><geom name='s' type='sphere' size='0.05'/></body>"
        "</worldbody></mujoco>";
    gdnModel* mk = load_text(mixed_skin, NULL);
    CHECK(mk != NULL);
    const double r5[3] = {0.06, 0, 0};
    CHECK(gdn_model_set_geom_size(mk, gdn_name2id(mk, "geom", "s"), r5) == GDN_ERR_UNSUPPORTED);
    gdn_model_free(mk);

    // a skin the user replaced is the user's: a size edit leaves it
    gdnModel* mu = load_text(size_xml, NULL);
    CHECK(mu != NULL);
    const double corner[6] = {0.1, 0.2, 0.3, -0.1, -0.2, -0.3};
    CHECK(gdn_model_set_collision_mesh(mu, 1, corner, 2) == GDN_OK);
    const double box2[3] = {0.2, 0.2, 0.2};
    CHECK(gdn_model_set_geom_size(mu, 1, box2) == GDN_OK);
    CHECK(mu->body_vertnum[1] == 2 && !memcmp(mu->vert_pos + 3 * mu->body_vertadr[1], corner,
                                              sizeof(corner)));
    CHECK(mu->geom_size[3] == 0.2);
    gdn_model_free(mu);

    // settotalmass: the compiler rescaled every mass, so no <inertial> reproduces a set value
    const char* scaled = "<mujoco><compiler settotalmass='3'/><worldbody><body><freejoint/>"
                         "<geom type='sphere' size='0.1'/></body></worldbody></mujoco>";
    gdnModel* ms = load_text(scaled, NULL);
    CHECK(ms != NULL && ms->body_inertiasource[1] == 2);
    gdn_body_inertia(ms, 1, &in);
    CHECK(gdn_model_set_body_inertia(ms, 1, &in) == GDN_ERR_UNSUPPORTED);
    const double r[3] = {0.2, 0, 0};
    CHECK(gdn_model_set_geom_size(ms, 0, r) == GDN_ERR_UNSUPPORTED);
    gdn_model_free(ms);
    return 0;
}

// the field list covers the whole model: every array of the single allocation and the rest
static int test_field_list(void) {
    gdnModel* m = load_text("<mujoco><worldbody/></mujoco>", NULL);
    CHECK(m != NULL);
    int n = gdn_model_fields(m, NULL, 0);
    gdnModelField f[512];
    CHECK(n > 100 && n <= 512);
    CHECK(gdn_model_fields(m, f, 512) == n);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        seen += !strcmp(f[i].name, "body_invweight0") + !strcmp(f[i].name, "stat_meaninertia") +
                !strcmp(f[i].name, "vert_pos") + !strcmp(f[i].name, "opt.timestep");
    }
    CHECK(seen == 4);
    printf("  %d fields per model\n", n);
    gdn_model_free(m);
    return 0;
}

// how much the cases above compared (all of them when the run is not filtered)
static int test_summary(void) {
    printf("  compared %ld model fields, %ld values, bit for bit (set model vs edited file)\n",
           g_arrays, g_values);
    return 0;
}

static const gdnTestCase cases[] = {
    {"field_list", test_field_list},
    {"inertia_matches_edited_file", test_inertia_matches_edited_file},
    {"geom_params_match_edited_file", test_geom_params_match_edited_file},
    {"geom_size_matches_edited_file", test_geom_size_matches_edited_file},
    {"geom_size_with_inertia_from_geoms", test_geom_size_with_inertia_from_geoms},
    {"inertia_then_geom_size", test_inertia_then_geom_size},
    {"pair_params_match_edited_file", test_pair_params_match_edited_file},
    {"penalty_and_skin", test_penalty_and_skin},
    {"setters_refuse_bad_input", test_setters_refuse_bad_input},
    {"summary", test_summary},
};

GDN_TEST_MAIN(cases)
