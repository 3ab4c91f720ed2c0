// SPDX-License-Identifier: Apache-2.0
// Golden hashes of Kamino's paths: rollouts of the loop mechanisms, every analytic scene, the
// settings that take other code paths, and many worlds, each a 64-bit FNV-1a over every
// world's body_pos, body_quat, body_u, qpos, qvel, lambda, contact forces and status record
// after every step; and the in-process determinism the guide asks for (a rollout repeated after
// gdn_kamino_reset, world w of a 3-world run against a lone world from the same state).
//
// The hashes must be the same at -O0, -O2 and under ASan+UBSan (-ffp-contract=off, no
// fast-math, initial states and controls from integer arithmetic). A change that keeps
// Kamino's arithmetic keeps every hash; one that alters it on purpose regenerates the table
// (tests/golden_kamino_table.h, the whole file printed by --print) and says why in its commit:
//
//   cmake --build build --target test_kamino_golden &&
//     build/tests/test_kamino_golden --print > tests/golden_kamino_table.h &&
//     cmake --build build --target test_kamino_golden && build/tests/test_kamino_golden
//
// (then check the Debug and ASan builds give the same table: scripts/test.sh, or their
// test_kamino_golden alone). `test_kamino_golden --print` only prints, it checks nothing.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "runner/models.h"
#include "runner/test.h"

// the settings a path changes from gdn_kamino_settings_default
typedef enum Variant {
    V_DEFAULT = 0,
    V_PROJECTION_OFF,      // projection_iterations 0: Kamino's velocity-level recovery alone
    V_PROJECTION_GN,       // rho_bilateral 1: a penalty on the bilateral rows too, so the
                           // projection assembles and factors its own J M^-1 J' (Gauss-Newton)
    V_PENALTY_OFF,         // penalty_update 0: rho fixed
    V_ACCELERATION_OFF,    // acceleration 0: no Nesterov extrapolation
    V_PRECONDITIONING_OFF, // preconditioning 0: P = I
    V_WARMSTART_OFF,       // warmstart 0: every solve from zero
    V_CURVATURE_OFF        // curvature_bias 0: kamino.md's joint-row target alone (the
                           // projection then takes two chord iterations on the four-bar)
} Variant;

// one hashed path: a tests/models file, its settings, steps, worlds and controls
typedef struct KaminoPath {
    const char* name; // the table's key
    const char* file;
    Variant variant;
    int nstep;
    int nworld;  // 1, or several worlds from different initial states (world 0 the file's)
    double ctrl; // every actuator's control (the mechanisms' crank speed, rad/s)
} KaminoPath;

// the mechanisms and scenes at the defaults; every settings variant on the leg (loops,
// contacts, penalty updates: each variant changes its bits) and the pinch (slide joints,
// contacts, a hard cone problem; the acceleration variant on the sliding incline instead, the
// pinch converging before it acts), the projection's two on the four-bar too (penalty and
// acceleration do not act there: its bilateral rows alone converge in 2 iterations); many
// worlds on the four-bar (inconsistent loop velocities) and the ball (contacts at different
// steps). 1000 steps each; the leg is the slow one (~60 us a step at -O2, ~1 ms under ASan:
// its 8 paths are half the test's time), lower LEG_STEPS if it grows slower
#define LEG_STEPS 1000
static const KaminoPath kPaths[] = {
    {"mech_fourbar", "kamino_mech_fourbar.xml", V_DEFAULT, 1000, 1, 3},
    {"mech_slidercrank", "kamino_mech_slidercrank.xml", V_DEFAULT, 1000, 1, 3},
    {"mech_leg", "kamino_mech_leg.xml", V_DEFAULT, LEG_STEPS, 1, 3},
    {"scene_box_rest", "kamino_scene_box_rest.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_box_slide", "kamino_scene_box_slide.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_slide_frictionless", "kamino_scene_slide_frictionless.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_incline_hold", "kamino_scene_incline_hold.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_incline_slide", "kamino_scene_incline_slide.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_sphere_roll", "kamino_scene_sphere_roll.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_ball_bounce", "kamino_scene_ball_bounce.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_stack5", "kamino_scene_stack5.xml", V_DEFAULT, 1000, 1, 0},
    {"scene_pinch", "kamino_scene_pinch.xml", V_DEFAULT, 1000, 1, 0},
    {"fourbar_projection_off", "kamino_mech_fourbar.xml", V_PROJECTION_OFF, 1000, 1, 3},
    {"fourbar_projection_gauss_newton", "kamino_mech_fourbar.xml", V_PROJECTION_GN, 1000, 1, 3},
    {"fourbar_curvature_off", "kamino_mech_fourbar.xml", V_CURVATURE_OFF, 1000, 1, 3},
    {"leg_curvature_off", "kamino_mech_leg.xml", V_CURVATURE_OFF, LEG_STEPS, 1, 3},
    {"leg_projection_off", "kamino_mech_leg.xml", V_PROJECTION_OFF, LEG_STEPS, 1, 3},
    {"leg_projection_gauss_newton", "kamino_mech_leg.xml", V_PROJECTION_GN, LEG_STEPS, 1, 3},
    {"leg_penalty_update_off", "kamino_mech_leg.xml", V_PENALTY_OFF, LEG_STEPS, 1, 3},
    {"leg_acceleration_off", "kamino_mech_leg.xml", V_ACCELERATION_OFF, LEG_STEPS, 1, 3},
    {"leg_preconditioning_off", "kamino_mech_leg.xml", V_PRECONDITIONING_OFF, LEG_STEPS, 1, 3},
    {"leg_warmstart_off", "kamino_mech_leg.xml", V_WARMSTART_OFF, LEG_STEPS, 1, 3},
    {"pinch_projection_off", "kamino_scene_pinch.xml", V_PROJECTION_OFF, 1000, 1, 0},
    {"pinch_projection_gauss_newton", "kamino_scene_pinch.xml", V_PROJECTION_GN, 1000, 1, 0},
    {"pinch_penalty_update_off", "kamino_scene_pinch.xml", V_PENALTY_OFF, 1000, 1, 0},
    // (the pinch converges in 2 iterations: the acceleration never acts there; the sliding
    // incline takes ~27)
    {"incline_slide_acceleration_off", "kamino_scene_incline_slide.xml", V_ACCELERATION_OFF, 1000,
     1, 0},
    {"pinch_preconditioning_off", "kamino_scene_pinch.xml", V_PRECONDITIONING_OFF, 1000, 1, 0},
    {"pinch_warmstart_off", "kamino_scene_pinch.xml", V_WARMSTART_OFF, 1000, 1, 0},
    {"worlds3_fourbar", "kamino_mech_fourbar.xml", V_DEFAULT, 1000, 3, 3},
    {"worlds3_ball_bounce", "kamino_scene_ball_bounce.xml", V_DEFAULT, 1000, 3, 0},
};
#define NPATH ((int)(sizeof(kPaths) / sizeof(kPaths[0])))
#define MAX_WORLDS 3

// one row of the committed table
typedef struct GoldenRow {
    const char* path;
    uint64_t hash;
} GoldenRow;

#include "golden_kamino_table.h"

#define NROW ((int)(sizeof(kGolden) / sizeof(kGolden[0])))

static char g_err[2048];

// the path's settings: the defaults with the file's restitution, then the variant's change
static void path_settings(const gdnModel* m, Variant v, gdnKaminoSettings* s) {
    gdn_kamino_settings_default(s);
    s->restitution = m->opt.kamino_restitution;
    switch (v) {
    case V_DEFAULT: break;
    case V_PROJECTION_OFF: s->projection_iterations = 0; break;
    case V_PROJECTION_GN: s->rho_bilateral = 1; break;
    case V_PENALTY_OFF: s->penalty_update = 0; break;
    case V_ACCELERATION_OFF: s->acceleration = 0; break;
    case V_PRECONDITIONING_OFF: s->preconditioning = 0; break;
    case V_WARMSTART_OFF: s->warmstart = 0; break;
    case V_CURVATURE_OFF: s->curvature_bias = 0; break;
    }
}

// world w's initial state: keyframe 0 when the file has one, else qpos0 at rest; worlds after
// the first add a velocity uniform in [-0.3, 0.3) per dof (a loop's inconsistent velocity is
// the first step's impulse)
static void initial_state(const gdnModel* m, int w, double* qpos, double* qvel) {
    memcpy(qpos, m->nkey > 0 ? m->key_qpos : m->qpos0, sizeof(double) * (size_t)m->nq);
    if (m->nkey > 0) {
        memcpy(qvel, m->key_qvel, sizeof(double) * (size_t)m->nv);
    } else {
        memset(qvel, 0, sizeof(double) * (size_t)m->nv);
    }
    unsigned long long rng = 0x243F6A8885A308D3ULL + 0x9E3779B97F4A7C15ULL * (unsigned)w;
    for (int i = 0; w > 0 && i < m->nv; i++) {
        qvel[i] += gdn_test_uniform(&rng, -0.3, 0.3);
    }
}

// one world's step into h: state, rows, contacts, status (field by field: a struct's padding
// is not hashed)
static uint64_t hash_world(uint64_t h, const gdnModel* m, int nbody, const gdnKaminoWorld* w) {
    h = gdn_test_fnv1a(h, &w->time, sizeof(double));
    h = gdn_test_fnv1a(h, w->body_pos, sizeof(double) * 3 * (size_t)nbody);
    h = gdn_test_fnv1a(h, w->body_quat, sizeof(double) * 4 * (size_t)nbody);
    h = gdn_test_fnv1a(h, w->body_u, sizeof(double) * 6 * (size_t)nbody);
    h = gdn_test_fnv1a(h, w->qpos, sizeof(double) * (size_t)m->nq);
    h = gdn_test_fnv1a(h, w->qvel, sizeof(double) * (size_t)m->nv);
    h = gdn_test_fnv1a(h, &w->nrow, sizeof(int));
    h = gdn_test_fnv1a(h, w->lambda, sizeof(double) * (size_t)w->nrow);
    h = gdn_test_fnv1a(h, &w->ncontact, sizeof(int));
    for (int c = 0; c < w->ncontact; c++) {
        const gdnKaminoContact* k = w->contact + c;
        h = gdn_test_fnv1a(h, &k->geom1, sizeof(int));
        h = gdn_test_fnv1a(h, &k->geom2, sizeof(int));
        h = gdn_test_fnv1a(h, k->force, sizeof(double) * 3);
    }
    const gdnKaminoStatus* s = &w->status;
    const int ints[8] = {s->converged, s->iterations,        s->nbilateral,  s->nlimit,
                         s->ncontact,  s->ncontact_overflow, (int)s->result, s->refactorizations};
    const double reals[4] = {s->r_p, s->r_d, s->r_c, s->rho};
    h = gdn_test_fnv1a(h, ints, sizeof(ints));
    return gdn_test_fnv1a(h, reals, sizeof(reals));
}

// a path's worlds reset to their initial states (world w to state state0 + w), controls set
// (a reset clears them)
static int reset_path(const gdnModel* m, const gdnKaminoModel* km, gdnKaminoData* kd,
                      const KaminoPath* p, int state0, double* qpos, double* qvel) {
    for (int w = 0; w < p->nworld; w++) {
        unsigned char mask[MAX_WORLDS] = {0};
        mask[w] = 1;
        initial_state(m, state0 + w, qpos, qvel);
        CHECK(gdn_kamino_reset(km, kd, mask, qpos, qvel) == GDN_OK);
        gdnKaminoWorld* world = gdn_kamino_world(kd, w);
        for (int a = 0; a < m->nu; a++) {
            world->ctrl[a] = p->ctrl;
        }
    }
    return 0;
}

// what a path's first run did (printed beside its hash: which solver paths it exercised)
typedef struct PathStats {
    long iterations, unconverged, refactorizations, contacts, world_steps;
} PathStats;

// the path rolled out `runs` times on one model and data (gdn_kamino_reset between runs),
// world w from initial state state0 + w: hash[r] over every world's step in world order with
// the step's return code, world[r][w] world w's own chain (no return code: that is the first
// error of any world); stats of the first run (NULL: none)
static int rollout(const KaminoPath* p, int state0, int runs, uint64_t* hash,
                   uint64_t world[][MAX_WORLDS], PathStats* stats) {
    gdnModel* m = gdn_test_load_model_as_is(p->file);
    CHECK(m);
    CHECK(p->nworld >= 1 && p->nworld <= MAX_WORLDS);
    gdnKaminoSettings s;
    path_settings(m, p->variant, &s);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    if (gdn_kamino_model_create(m, &s, &km, g_err, (int)sizeof(g_err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "%s: %s\n", p->file, g_err);
        return 1;
    }
    CHECK(gdn_kamino_data_create(km, p->nworld, &kd) == GDN_OK);
    const int nbody = gdn_kamino_model_nbody(km);
    double* q = calloc((size_t)(m->nq + m->nv), sizeof(double));
    CHECK(q);
    PathStats st = {0};
    for (int r = 0; r < runs; r++) {
        CHECK(reset_path(m, km, kd, p, state0, q, q + m->nq) == 0);
        uint64_t h = GDN_TEST_FNV_OFFSET;
        for (int w = 0; w < p->nworld; w++) {
            world[r][w] = GDN_TEST_FNV_OFFSET;
        }
        for (int k = 0; k < p->nstep; k++) {
            const int status = (int)gdn_kamino_step(km, kd);
            h = gdn_test_fnv1a(h, &status, sizeof(status));
            for (int w = 0; w < p->nworld; w++) {
                const gdnKaminoWorld* wd = gdn_kamino_world(kd, w);
                h = hash_world(h, m, nbody, wd);
                world[r][w] = hash_world(world[r][w], m, nbody, wd);
                if (r == 0) {
                    st.iterations += wd->status.iterations;
                    st.unconverged += !wd->status.converged;
                    st.refactorizations += wd->status.refactorizations;
                    st.contacts += wd->ncontact;
                    st.world_steps++;
                }
            }
        }
        hash[r] = h;
    }
    if (stats) {
        *stats = st;
    }
    free(q);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// the table as the whole header file (`--print`)
static int print_table(void) {
    printf("// SPDX-License-Identifier: Apache-2.0\n"
           "// The golden hashes of test_kamino_golden.c, printed by `test_kamino_golden "
           "--print` (see that\n// file for what they cover and the command that regenerates "
           "this file).\nstatic const GoldenRow kGolden[] = {\n");
    for (int i = 0; i < NPATH; i++) {
        uint64_t hash[1], world[1][MAX_WORLDS];
        if (rollout(kPaths + i, 0, 1, hash, world, NULL) != 0) {
            return 1;
        }
        printf("    {\"%s\", 0x%016llxULL},\n", kPaths[i].name, (unsigned long long)hash[0]);
        fflush(stdout);
    }
    printf("};\n");
    return 0;
}

// the path at the defaults on the same file, one world (-1 when none)
static int default_path(const KaminoPath* p) {
    for (int j = 0; j < NPATH; j++) {
        if (kPaths[j].variant == V_DEFAULT && kPaths[j].nworld == 1 &&
            strcmp(kPaths[j].file, p->file) == 0) {
            return j;
        }
    }
    return -1;
}

// every path's hash against the committed row; in-process determinism: the same rollout again
// on the same data after gdn_kamino_reset (no state survives a reset), each world of a
// many-world path against a lone world from its state (worlds never couple); and every
// settings variant's hash differs from its file's default path (it does take another path).
// Every path runs and every failure is listed before the test fails.
static int test_golden(void) {
    CHECK(NROW == NPATH);
    uint64_t got[NPATH];
    int mismatches = 0, failures = 0;
    for (int i = 0; i < NPATH; i++) {
        const KaminoPath* p = kPaths + i;
        CHECK(strcmp(kGolden[i].path, p->name) == 0);
        uint64_t hash[2], world[2][MAX_WORLDS];
        PathStats st;
        CHECK(rollout(p, 0, 2, hash, world, &st) == 0);
        got[i] = hash[0];
        const double n = (double)st.world_steps;
        printf("  %-32s %4d steps x %d world%s: %5.1f it/step, %3ld unconverged, %5ld "
               "refactorizations, %5.2f contacts/step\n",
               p->name, p->nstep, p->nworld, p->nworld > 1 ? "s" : " ", st.iterations / n,
               st.unconverged, st.refactorizations, st.contacts / n);
        if (hash[0] != kGolden[i].hash) {
            fprintf(stderr, "%s: hash 0x%016llx, expected 0x%016llx\n", p->name,
                    (unsigned long long)hash[0], (unsigned long long)kGolden[i].hash);
            mismatches++;
        }
        if (hash[1] != hash[0]) {
            fprintf(stderr, "%s: the rollout after gdn_kamino_reset differs from the first\n",
                    p->name);
            failures++;
        }
        // world w against a lone world from world w's initial state
        for (int w = 0; p->nworld > 1 && w < p->nworld; w++) {
            KaminoPath lone = *p;
            lone.nworld = 1;
            uint64_t lone_hash[1], lone_world[1][MAX_WORLDS];
            CHECK(rollout(&lone, w, 1, lone_hash, lone_world, NULL) == 0);
            if (lone_world[0][0] != world[0][w]) {
                fprintf(stderr, "%s: world %d differs from a lone world from its state\n",
                        p->name, w);
                failures++;
            }
        }
    }
    for (int i = 0; i < NPATH; i++) {
        const int j = default_path(kPaths + i);
        if (kPaths[i].variant != V_DEFAULT && (j < 0 || got[i] == got[j])) {
            fprintf(stderr, "%s: the same hash as %s: the variant takes no other path there\n",
                    kPaths[i].name, j < 0 ? "(no default path)" : kPaths[j].name);
            failures++;
        }
    }
    printf("%d Kamino paths, %d hash mismatches, %d determinism or coverage failures\n", NPATH,
           mismatches, failures);
    if (mismatches > 0) {
        fprintf(stderr, "an intended change of Kamino's bits regenerates the table: see the top "
                        "of tests/test_kamino_golden.c\n");
    }
    CHECK(failures == 0);
    CHECK(mismatches == 0);
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        return print_table();
    }
    const gdnTestCase cases[] = {{"kamino_golden", test_golden}};
    return gdn_test_main(argc, argv, cases, 1);
}
