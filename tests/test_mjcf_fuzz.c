// SPDX-License-Identifier: Apache-2.0
// Deterministic mutation fuzzing of the MJCF loader: byte flips, truncations, duplicated and
// deleted spans, hostile numbers, deep nesting and include cycles over the test models (contact
// scenes with meshes, pairs, excludes, equalities and limits among them) and MuJoCo's humanoid.
// Every input must return cleanly: an error with a message, or a sane model, which then takes
// a few steps (collision, constraint rows, the solve): each returns GDN_OK with a finite state
// or an error status, never a crash (the ASan build runs this too).
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gradyn/gradyn.h>

#include "runner/test.h"

#define MAX_INPUT (1 << 20)

static const char* const seed_files[] = {
    GDN_TEST_MODELS "/pendulum.xml",   GDN_TEST_MODELS "/double_pendulum.xml",
    GDN_TEST_MODELS "/arm7.xml",       GDN_TEST_MODELS "/ball_chain.xml",
    GDN_TEST_MODELS "/box_spin.xml",   GDN_TEST_MODELS "/humanoid32.xml",
    "/usr/share/mujoco/model/humanoid/humanoid.xml",
    GDN_TEST_MODELS "/scene_meshes.xml", GDN_TEST_MODELS "/sol_stack.xml",
    GDN_TEST_MODELS "/cnstr_fourbar.xml", GDN_TEST_MODELS "/cnstr_weld.xml",
    GDN_TEST_MODELS "/scene_tip.xml",
};

static const char* const hostile_numbers[] = {"nan", "1e999", "-0", "1e308", "99999999999",
                                              "-1", "0", "inf", "1e-320", "-1e308",
                                              "2147483648", "1 2 3 4 5 6 7 8 9 10 11", ""};

static unsigned long long g_rng = 0x9e3779b97f4a7c15ull;

static unsigned long long next_u64(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

static size_t pick(size_t n) {
    return n ? (size_t)(next_u64() % n) : 0;
}

static char* read_all(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char* buf = malloc(MAX_INPUT);
    *len = buf ? fread(buf, 1, MAX_INPUT - 1, f) : 0;
    fclose(f);
    if (buf) {
        buf[*len] = '\0';
    }
    return buf;
}

typedef struct Stats {
    int inputs, ok, errors, failures;
    int stepped, step_errors; // loaded models stepped; steps refused with an error status
} Stats;

#define FUZZ_STEPS 5

// a few steps of a loaded model: GDN_OK with a finite state, or an error status; 0, or 1 for a
// wrong outcome
static int step_model(const gdnModel* m, Stats* s) {
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 0; // sizes beyond memory: refused cleanly
    }
    gdn_data_reset(m, d);
    int bad = 0;
    for (int t = 0; t < FUZZ_STEPS; t++) {
        gdnStatus st = gdn_step(m, d);
        if (st != GDN_OK) {
            s->step_errors++;
            bad = !(st == GDN_ERR_NONFINITE || st == GDN_ERR_MEMORY || st == GDN_ERR_ARG ||
                    st == GDN_ERR_UNSUPPORTED);
            break;
        }
        for (int i = 0; i < m->nq && !bad; i++) {
            bad = !isfinite(d->qpos[i]);
        }
        for (int i = 0; i < m->nv && !bad; i++) {
            bad = !isfinite(d->qvel[i]);
        }
        if (bad) {
            break;
        }
    }
    s->stepped++;
    gdn_data_free(d);
    return bad;
}

// a loaded model must be internally consistent
static int sane(const gdnModel* m) {
    int nq = 0, nv = 0;
    for (int j = 0; j < m->njnt; j++) {
        nq += gdn_joint_nq(m->jnt_type[j]);
        nv += gdn_joint_nv(m->jnt_type[j]);
        if (m->jnt_bodyid[j] <= 0 || m->jnt_bodyid[j] >= m->nbody) {
            return 0;
        }
    }
    if (nq != m->nq || nv != m->nv || m->nbody < 1) {
        return 0;
    }
    for (int b = 0; b < m->nbody; b++) {
        if (!(isfinite(m->body_mass[b]) && m->body_mass[b] >= 0)) {
            return 0;
        }
        for (int k = 0; k < 3; k++) {
            if (!(isfinite(m->body_inertia[3 * b + k]) && m->body_inertia[3 * b + k] >= 0) ||
                !isfinite(m->body_pos[3 * b + k]) || !isfinite(m->body_ipos[3 * b + k])) {
                return 0;
            }
        }
        if (b > 0 && (m->body_parentid[b] < 0 || m->body_parentid[b] >= b)) {
            return 0;
        }
    }
    for (int i = 0; i < m->nq; i++) {
        if (!isfinite(m->qpos0[i])) {
            return 0;
        }
    }
    for (int i = 0; i < m->nu; i++) {
        int j = m->actuator_trnid[2 * i];
        if (j < 0 || j >= m->njnt) {
            return 0;
        }
    }
    return 1;
}

static void run_one(const char* xml, size_t len, const char* dir, Stats* s) {
    char err[512], warn[1024];
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml_string(xml, len, dir, &m, err, sizeof(err), warn, sizeof(warn));
    s->inputs++;
    if (st == GDN_OK) {
        s->ok++;
        if (!m || !sane(m) || step_model(m, s)) {
            s->failures++;
            fprintf(stderr, "fuzz: OK status with an insane model or a bad step (input %d)\n",
                    s->inputs);
            FILE* f = fopen(GDN_BINARY_DIR "/mjcf_fuzz_failure.xml", "wb");
            if (f) {
                fwrite(xml, 1, len, f);
                fclose(f);
            }
        }
    } else {
        s->errors++;
        if (m || !err[0]) {
            s->failures++;
            fprintf(stderr, "fuzz: status %d without message or with a model (input %d)\n",
                    (int)st, s->inputs);
        }
    }
    gdn_model_free(m);
}

// one mutation of seed into out; returns the new length
static size_t mutate(const char* seed, size_t len, char* out, int kind) {
    memcpy(out, seed, len);
    size_t n = len;
    switch (kind) {
    case 0: { // flip a few bytes
        static const char interesting[] = "<>/\"'= \n&0.-e";
        int flips = 1 + (int)pick(4);
        for (int k = 0; k < flips; k++) {
            size_t at = pick(n);
            out[at] = next_u64() & 1 ? interesting[pick(sizeof(interesting) - 1)]
                                      : (char)(next_u64() & 0xff);
        }
        break;
    }
    case 1: { // duplicate a span
        size_t a = pick(n), span = 1 + pick(200);
        if (a + span > n) {
            span = n - a;
        }
        if (n + span < MAX_INPUT) {
            memmove(out + a + span, out + a, n - a);
            n += span;
        }
        break;
    }
    case 2: { // delete a span
        size_t a = pick(n), span = 1 + pick(200);
        if (a + span > n) {
            span = n - a;
        }
        memmove(out + a, out + a + span, n - a - span);
        n -= span;
        break;
    }
    default: { // replace a number with a hostile one
        size_t at = pick(n);
        while (at < n && !(out[at] >= '0' && out[at] <= '9')) {
            at++;
        }
        if (at >= n) {
            break;
        }
        size_t end = at;
        while (end < n && ((out[end] >= '0' && out[end] <= '9') || out[end] == '.' ||
                           out[end] == 'e' || out[end] == '-')) {
            end++;
        }
        const char* h = hostile_numbers[pick(sizeof(hostile_numbers) / sizeof(char*))];
        size_t hl = strlen(h);
        if (n - (end - at) + hl < MAX_INPUT) {
            memmove(out + at + hl, out + end, n - end);
            memcpy(out + at, h, hl);
            n = n - (end - at) + hl;
        }
        break;
    }
    }
    out[n] = '\0';
    return n;
}

static int test_fuzz_mutations(void) {
    char* out = malloc(MAX_INPUT + 1);
    CHECK(out != NULL);
    Stats s = {0};
    int nseeds = 0;
    for (size_t f = 0; f < sizeof(seed_files) / sizeof(seed_files[0]); f++) {
        size_t len = 0;
        char* seed = read_all(seed_files[f], &len);
        if (!seed) {
            continue;
        }
        nseeds++;
        run_one(seed, len, GDN_TEST_MODELS, &s);
        // truncation at every Nth offset
        size_t step = len / 150 + 1;
        for (size_t cut = 0; cut < len; cut += step) {
            run_one(seed, cut, GDN_TEST_MODELS, &s);
        }
        // random mutations, some stacked
        for (int i = 0; i < 1500; i++) {
            size_t n = mutate(seed, len, out, (int)pick(4));
            if (next_u64() % 4 == 0) {
                char* tmp = malloc(n + 1);
                if (tmp) {
                    memcpy(tmp, out, n + 1);
                    n = mutate(tmp, n, out, (int)pick(4));
                    free(tmp);
                }
            }
            run_one(out, n, GDN_TEST_MODELS, &s);
        }
        free(seed);
    }
    printf("fuzz: %d seeds, %d inputs, %d loaded (%d stepped %d times: %d refused a step with "
           "an error status), %d rejected\n",
           nseeds, s.inputs, s.ok, s.stepped, FUZZ_STEPS, s.step_errors, s.errors);
    free(out);
    CHECK(nseeds >= 3);
    CHECK(s.inputs > 3000);
    CHECK(s.stepped > 1000);
    CHECK(s.failures == 0);
    return 0;
}

// nesting at and beyond every limit, and include cycles of several lengths
static int test_fuzz_structure(void) {
    Stats s = {0};
    char* buf = malloc(MAX_INPUT);
    CHECK(buf != NULL);
    for (int depth = 1; depth < 3000; depth = depth * 3 / 2 + 1) {
        size_t n = (size_t)sprintf(buf, "<mujoco><worldbody>");
        for (int i = 0; i < depth && n + 64 < MAX_INPUT; i++) {
            n += (size_t)sprintf(buf + n, "<body><joint/><geom size='.1'/>");
        }
        for (int i = 0; i < depth && n + 64 < MAX_INPUT; i++) {
            n += (size_t)sprintf(buf + n, "</body>");
        }
        n += (size_t)sprintf(buf + n, "</worldbody></mujoco>");
        run_one(buf, n, NULL, &s);
        run_one(buf, n / 2, NULL, &s);
    }
    // include cycles: f0 -> f1 -> ... -> f(k-1) -> f0
    char dir[512], path[700];
    snprintf(dir, sizeof(dir), "%s/mjcf_fuzz_include", GDN_BINARY_DIR);
    mkdir(dir, 0755);
    for (int k = 1; k <= 20; k += 3) {
        for (int i = 0; i < k; i++) {
            snprintf(path, sizeof(path), "%s/c%d_%d.xml", dir, k, i);
            FILE* f = fopen(path, "w");
            CHECK(f != NULL);
            fprintf(f, "<mujoco><include file='c%d_%d.xml'/></mujoco>", k, (i + 1) % k);
            fclose(f);
        }
        int n = sprintf(buf, "<mujoco><include file='c%d_0.xml'/></mujoco>", k);
        char err[512];
        gdnModel* m = NULL;
        gdnStatus st = gdn_load_xml_string(buf, (size_t)n, dir, &m, err, sizeof(err), NULL, 0);
        CHECK(st != GDN_OK && m == NULL && err[0]);
        s.inputs++;
    }
    printf("fuzz structure: %d inputs, %d loaded, %d rejected\n", s.inputs, s.ok, s.errors);
    free(buf);
    CHECK(s.failures == 0);
    return 0;
}

static const gdnTestCase cases[] = {
    {"fuzz_mutations", test_fuzz_mutations},
    {"fuzz_structure", test_fuzz_structure},
};

GDN_TEST_MAIN(cases)
