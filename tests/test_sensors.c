// SPDX-License-Identifier: Apache-2.0
// Sensors against MuJoCo 2.2.2: the compiled sensor arrays, sensordata after gdn_forward at
// random states and after gdn_step along Euler and RK4 rollouts (the sensors of the state the
// step starts from), the loader's refusals, GDN_DSBL_SENSOR, cutoff.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>
#include <mujoco/mujoco.h>

#include "collision/ray.h"
#include "kinematics/tendon_derivative.h"
#include "oracle/oracle.h"
#include "runner/models.h"
#include "runner/test.h"

// Tolerances, relative to max(|MuJoCo's value|_inf, 1) per sensor: the position and velocity
// sensors are closed forms of the kinematics (which agree to round-off), 1e-12; the
// acceleration sensors read the solved qacc and constraint forces, which agree to the solvers'
// shared tolerance (MuJoCo's Newton iterates from the same warm start, tolerance 1e-8): 1e-8
#define TOL_POSVEL 1e-12
#define TOL_ACC 1e-8
#define NSAMPLES 40
#define NSTEPS 150

static const char* const kModels[] = {"sensors_chain.xml",        "sensors_contact.xml",
                                      "sensors_deriv.xml",        "sensors_tendon.xml",
                                      "sensors_tendon_deriv.xml", "sensors_range.xml",
                                      "sensors_ball_actuator.xml", "sensors_inside_wrap.xml",
                                      "humanoid+sensors"};

// the whole of a file in malloc'ed memory, NULL when unreadable
static char* read_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
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

// sensors for MuJoCo's own humanoid sample (Debian libmujoco-samples) on its bodies, geoms,
// limited hinges, free root and motors (the sample has no sites: the site sensors are covered
// by the other models)
static const char kHumanoidSensors[] =
    "<sensor>\n"
    "    <framepos objtype=\"body\" objname=\"torso\"/>\n"
    "    <framequat objtype=\"xbody\" objname=\"head\"/>\n"
    "    <framezaxis objtype=\"geom\" objname=\"right_shin\"/>\n"
    "    <framepos objtype=\"geom\" objname=\"left_hand\" reftype=\"xbody\" refname=\"torso\"/>\n"
    "    <framequat objtype=\"geom\" objname=\"left_hand\" reftype=\"body\" refname=\"pelvis\"/>\n"
    "    <framelinvel objtype=\"body\" objname=\"right_foot\"/>\n"
    "    <frameangvel objtype=\"geom\" objname=\"left_left_foot\" reftype=\"body\"\n"
    "     refname=\"pelvis\"/>\n"
    "    <framelinvel objtype=\"xbody\" objname=\"right_hand\" reftype=\"geom\"\n"
    "     refname=\"torso\"/>\n"
    "    <framelinacc objtype=\"body\" objname=\"left_foot\"/>\n"
    "    <frameangacc objtype=\"geom\" objname=\"head\"/>\n"
    "    <subtreecom body=\"torso\"/>\n"
    "    <subtreelinvel body=\"torso\"/>\n"
    "    <subtreeangmom body=\"torso\"/>\n"
    "    <subtreeangmom body=\"right_thigh\"/>\n"
    "    <jointpos joint=\"abdomen_y\"/>\n"
    "    <jointvel joint=\"right_knee\"/>\n"
    "    <jointlimitpos joint=\"left_knee\"/>\n"
    "    <jointlimitvel joint=\"left_knee\"/>\n"
    "    <jointlimitfrc joint=\"left_knee\"/>\n"
    "    <jointlimitfrc joint=\"abdomen_y\"/>\n"
    "    <actuatorpos actuator=\"right_knee\"/>\n"
    "    <actuatorvel actuator=\"left_hip_y\"/>\n"
    "    <actuatorfrc actuator=\"abdomen_z\"/>\n"
    "    <clock/>\n"
    "  </sensor>\n";

// MuJoCo's humanoid with kHumanoidSensors spliced in before its closing tag, written to a
// temporary file (path): both engines load the same file
static int humanoid_with_sensors(char* path, size_t n) {
    char* human = read_file(GDN_ORACLE_MJ_HUMANOID);
    char* end = human ? strstr(human, "</mujoco>") : NULL;
    int ok = end != NULL;
    if (ok) {
        snprintf(path, n, "/tmp/gradyn_test_sensors_humanoid_%d.xml", (int)getpid());
        FILE* f = fopen(path, "wb");
        ok = f != NULL;
        if (f) {
            fwrite(human, 1, (size_t)(end - human), f);
            fputs(kHumanoidSensors, f);
            fputs("</mujoco>\n", f);
            fclose(f);
        }
    }
    free(human);
    return ok;
}

// one load in both engines with constraints on (the oracle disables them)
static int load(gdnOracle* o, const char* name) {
    char path[1024];
    if (!strcmp(name, "humanoid+sensors")) {
        if (!humanoid_with_sensors(path, sizeof(path))) {
            fprintf(stderr, "cannot write the humanoid sensor model\n");
            return 1;
        }
    } else {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, name);
    }
    int failed = gdn_oracle_load(o, path);
    if (!strcmp(name, "humanoid+sensors")) {
        remove(path);
    }
    if (failed) {
        return 1;
    }
    o->mm->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    o->gm->opt.disableflags &= ~GDN_DSBL_CONSTRAINT;
    return 0;
}

// the model's sensor arrays equal MuJoCo's compiled ones
static int arrays_match(const gdnOracle* o) {
    const gdnModel* g = o->gm;
    const mjModel* m = o->mm;
    if (g->nsensor != m->nsensor || g->nsensordata != m->nsensordata) {
        fprintf(stderr, "%s: nsensor %d/%d nsensordata %d/%d\n", o->name, g->nsensor,
                m->nsensor, g->nsensordata, m->nsensordata);
        return 0;
    }
    for (int i = 0; i < g->nsensor; i++) {
        const char* mname = mj_id2name(m, mjOBJ_SENSOR, i);
        if (g->sensor_type[i] != m->sensor_type[i] ||
            g->sensor_datatype[i] != m->sensor_datatype[i] ||
            g->sensor_needstage[i] != m->sensor_needstage[i] ||
            g->sensor_objtype[i] != m->sensor_objtype[i] ||
            g->sensor_objid[i] != m->sensor_objid[i] ||
            g->sensor_reftype[i] != m->sensor_reftype[i] ||
            g->sensor_refid[i] != m->sensor_refid[i] || g->sensor_dim[i] != m->sensor_dim[i] ||
            g->sensor_adr[i] != m->sensor_adr[i] || g->sensor_cutoff[i] != m->sensor_cutoff[i] ||
            g->sensor_noise[i] != m->sensor_noise[i] ||
            strcmp(gdn_id2name(g, "sensor", i), mname ? mname : "")) {
            fprintf(stderr, "%s: sensor %d's arrays differ from MuJoCo's\n", o->name, i);
            return 0;
        }
    }
    for (int s = 0; s < g->nsite; s++) {
        for (int k = 0; k < 3; k++) {
            if (g->site_type[s] != m->site_type[s] ||
                g->site_size[3 * s + k] != m->site_size[3 * s + k]) {
                fprintf(stderr, "%s: site %d's type or size differs\n", o->name, s);
                return 0;
            }
        }
    }
    return 1;
}

// per sensor of the model under test: how many compared samples had a value that says the
// sensor saw something (nonzero; a rangefinder's hit >= 0), so that no comparison is vacuous
#define MAX_SENSORS 256
static int g_active[MAX_SENSORS];

// every sensor's error, recorded under its stage's name; 1 when all are within tolerance
static int compare_sensors(const gdnOracle* o, gdnWorst* w, int sample, int what) {
    const gdnModel* g = o->gm;
    int ok = 1;
    for (int i = 0; i < g->nsensor && i < MAX_SENSORS; i++) {
        const int adr = g->sensor_adr[i], dim = g->sensor_dim[i];
        for (int k = 0; k < dim; k++) {
            const double x = o->md->sensordata[adr + k];
            g_active[i] += g->sensor_type[i] == GDN_SENS_RANGEFINDER ? x >= 0 : x != 0;
        }
        const int stage = g->sensor_needstage[i];
        // labels live as long as the table (gdn_worst_add keeps the pointer)
        static const char* const labels[3][4] = {{"", "fwd_pos", "fwd_vel", "fwd_acc"},
                                                 {"", "euler_pos", "euler_vel", "euler_acc"},
                                                 {"", "rk4_pos", "rk4_vel", "rk4_acc"}};
        const char* label = labels[what][stage];
        const double tol = stage == GDN_STAGE_ACC ? TOL_ACC : TOL_POSVEL;
        if (!gdn_worst_check(w, o->name, sample, label, o->gd->sensordata + adr,
                             o->md->sensordata + adr, dim, 1, tol)) {
            fprintf(stderr, "  sensor %d '%s' (type %d)\n", i, gdn_id2name(g, "sensor", i),
                    g->sensor_type[i]);
            ok = 0;
        }
    }
    return ok;
}

// gdn_forward vs mj_forward at random states (positions, velocities, controls, applied forces)
static int forward_samples(gdnOracle* o, gdnWorst* w) {
    unsigned long long rng = 99;
    int ok = 1;
    for (int s = 0; s < NSAMPLES; s++) {
        gdn_oracle_random_state(o, &rng, GDN_RAND_ALL, 1.5);
        o->gd->time = o->md->time = 0.25 * s;
        mj_forward(o->mm, o->md);
        gdnStatus st = gdn_forward(o->gm, o->gd);
        if (st != GDN_OK) {
            fprintf(stderr, "%s: gdn_forward %s\n", o->name, gdn_status_string(st));
            return 0;
        }
        ok &= compare_sensors(o, w, s, 0);
    }
    return ok;
}

// gdn_step vs mj_step from the same state at every step (MuJoCo's state copied from gradyn's,
// warm start included), from qpos0 with a control signal: sensordata after the step
static int rollout(gdnOracle* o, gdnWorst* w, int integrator) {
    o->gm->opt.integrator = (gdnIntegrator)integrator;
    o->mm->opt.integrator = integrator == GDN_INT_RK4 ? mjINT_RK4 : mjINT_EULER;
    gdn_data_reset(o->gm, o->gd);
    mj_resetData(o->mm, o->md);
    unsigned long long rng = 7;
    int ok = 1;
    const int nv = o->gm->nv, nq = o->gm->nq;
    for (int k = 0; k < nv; k++) {
        o->gd->qvel[k] = gdn_test_uniform(&rng, -0.5, 0.5);
    }
    for (int t = 0; t < NSTEPS; t++) {
        for (int k = 0; k < o->gm->nu; k++) {
            o->gd->ctrl[k] = sin(0.05 * t + k);
        }
        memcpy(o->md->qpos, o->gd->qpos, sizeof(double) * (size_t)nq);
        memcpy(o->md->qvel, o->gd->qvel, sizeof(double) * (size_t)nv);
        memcpy(o->md->ctrl, o->gd->ctrl, sizeof(double) * (size_t)o->gm->nu);
        memcpy(o->md->qacc_warmstart, o->gd->qacc_warmstart, sizeof(double) * (size_t)nv);
        o->md->time = o->gd->time;
        mj_step(o->mm, o->md);
        gdnStatus st = gdn_step(o->gm, o->gd);
        if (st != GDN_OK) {
            fprintf(stderr, "%s: gdn_step %s at step %d\n", o->name, gdn_status_string(st), t);
            return 0;
        }
        ok &= compare_sensors(o, w, t, integrator == GDN_INT_RK4 ? 2 : 1);
    }
    return ok;
}

static int test_sensors_vs_mujoco(void) {
    gdnWorst total = {0};
    int failed = 0;
    for (int i = 0; i < (int)(sizeof(kModels) / sizeof(kModels[0])); i++) {
        gdnOracle o;
        if (load(&o, kModels[i])) {
            failed = 1;
            continue;
        }
        gdnWorst w = {0};
        memset(g_active, 0, sizeof(g_active));
        int ok = arrays_match(&o);
        ok &= forward_samples(&o, &w);
        ok &= rollout(&o, &w, GDN_INT_EULER);
        ok &= rollout(&o, &w, GDN_INT_RK4);
        // every sensor saw something at least once, but the user ones and the actuatorpos of
        // a free joint's motor (zeros in both: MuJoCo gives a free joint no length)
        for (int k = 0; k < o.gm->nsensor && k < MAX_SENSORS; k++) {
            const gdnModel* gm = o.gm;
            const int act = gm->sensor_objid[k];
            const int free_length =
                gm->sensor_type[k] == GDN_SENS_ACTUATORPOS &&
                gm->actuator_trntype[act] == GDN_TRN_JOINT &&
                gm->jnt_type[gm->actuator_trnid[2 * act]] == GDN_JNT_FREE;
            if (!g_active[k] && gm->sensor_type[k] != GDN_SENS_USER && !free_length) {
                fprintf(stderr, "%s: sensor %d '%s' never active\n", o.name, k,
                        gdn_id2name(o.gm, "sensor", k));
                ok = 0;
            }
        }
        gdn_worst_print(&w, o.name);
        for (int k = 0; k < w.n; k++) {
            gdn_worst_add(&total, w.name[k], w.err[k]);
        }
        if (gdn_oracle_warnings(&o)) {
            fprintf(stderr, "%s: MuJoCo warnings\n", o.name);
            ok = 0;
        }
        failed |= !ok;
        gdn_oracle_free(&o);
    }
    gdn_worst_print(&total, "all models");
    CHECK(!failed);
    return 0;
}

// a loaded model from an XML string; NULL with the status and message in st / err
static gdnModel* load_string(const char* xml, gdnStatus* st, char* err, int nerr, char* warn,
                             int nwarn) {
    gdnModel* m = NULL;
    *st = gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, nerr, warn, nwarn);
    return m;
}

// the refusals: camera frames, MuJoCo's compile errors (unknown object, wrong joint type, an
// unlimited tendon's limit sensor, cutoff on an axis, refname without reftype, negative noise)
static int test_sensor_refusals(void) {
    static const struct {
        const char* sensor;
        gdnStatus status;
        const char* text;
    } cases[] = {
        {"<framepos objtype=\"camera\" objname=\"c\"/>", GDN_ERR_UNSUPPORTED, "camera"},
        {"<jointpos joint=\"nope\"/>", GDN_ERR_MODEL, "unrecognized name 'nope'"},
        {"<jointpos joint=\"ball\"/>", GDN_ERR_MODEL, "joint must be slide or hinge"},
        {"<ballquat joint=\"hinge\"/>", GDN_ERR_MODEL, "joint must be ball"},
        {"<jointlimitpos joint=\"hinge\"/>", GDN_ERR_MODEL, "joint must be limited"},
        {"<tendonlimitpos tendon=\"t\"/>", GDN_ERR_MODEL, "tendon must be limited"},
        {"<tendonpos/>", GDN_ERR_PARSE, "required attribute missing: 'tendon'"},
        {"<tendonpos joint=\"hinge\" tendon=\"t\"/>", GDN_ERR_PARSE,
         "unrecognized attribute 'joint'"},
        {"<framexaxis objtype=\"site\" objname=\"s\" cutoff=\"1\"/>", GDN_ERR_MODEL,
         "cutoff applied to axis"},
        {"<framepos objtype=\"site\" objname=\"s\" refname=\"s\"/>", GDN_ERR_MODEL,
         "reftype is missing"},
        {"<gyro site=\"s\" noise=\"-1\"/>", GDN_ERR_MODEL, "negative noise"},
        {"<gyro/>", GDN_ERR_PARSE, "required attribute missing: 'site'"},
        {"<subtreecom/>", GDN_ERR_PARSE, "required attribute missing: 'body'"},
        {"<barometer site=\"s\"/>", GDN_ERR_PARSE, "unrecognized element in sensor"},
    };
    for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        char xml[2048], err[512] = "", warn[512] = "";
        snprintf(xml, sizeof(xml),
                 "<mujoco><worldbody><body><joint name=\"hinge\"/><geom size=\"0.1\"/>"
                 "<site name=\"s\"/><body><joint name=\"ball\" type=\"ball\"/><geom "
                 "size=\"0.1\"/></body></body></worldbody><tendon><fixed name=\"t\"><joint "
                 "joint=\"hinge\" coef=\"1\"/></fixed></tendon><sensor>\n%s</sensor></mujoco>",
                 cases[i].sensor);
        gdnStatus st;
        gdnModel* m = load_string(xml, &st, err, sizeof(err), warn, sizeof(warn));
        CHECK(m == NULL);
        CHECK(st == cases[i].status);
        CHECK(strstr(err, cases[i].text) != NULL);
        CHECK(strstr(err, ":2:") != NULL); // the sensor's line
        if (m || st != cases[i].status || !strstr(err, cases[i].text)) {
            fprintf(stderr, "case %d: status %s, message '%s'\n", i, gdn_status_string(st), err);
        }
        gdn_model_free(m);
    }
    return 0;
}

// noise is stored and never applied; the loader warns only when the model enables sensornoise
// (MuJoCo's default is off, so a model with noise but no flag behaves as MuJoCo's)
static int test_sensor_noise(void) {
    const char* base = "<mujoco><option><flag sensornoise=\"%s\"/></option><worldbody><body>"
                       "<joint name=\"j\"/><geom size=\"0.1\"/></body></worldbody><sensor>"
                       "<jointpos joint=\"j\" noise=\"0.5\"/></sensor></mujoco>";
    for (int on = 0; on < 2; on++) {
        char xml[1024], err[512] = "", warn[512] = "";
        snprintf(xml, sizeof(xml), base, on ? "enable" : "disable");
        gdnStatus st;
        gdnModel* m = load_string(xml, &st, err, sizeof(err), warn, sizeof(warn));
        CHECK(m != NULL);
        if (!m) {
            return 0;
        }
        CHECK(m->sensor_noise[0] == 0.5);
        CHECK((strstr(warn, "noise is not applied") != NULL) == on);
        gdnData* d = NULL;
        CHECK(gdn_data_create(m, &d) == GDN_OK);
        d->qpos[0] = 0.3;
        CHECK(gdn_forward(m, d) == GDN_OK);
        CHECK(d->sensordata[0] == 0.3);
        gdn_data_free(d);
        gdn_model_free(m);
    }
    return 0;
}

// GDN_DSBL_SENSOR: sensordata keeps its values; RK4's later stages do not overwrite the
// first stage's sensors (the clock reads the step's start time)
static int test_sensor_disable_and_rk4_clock(void) {
    const char* xml = "<mujoco><option integrator=\"RK4\"/><worldbody><body><joint name=\"j\"/>"
                      "<geom size=\"0.1\" pos=\"0.2 0 0\"/></body></worldbody><sensor><clock/>"
                      "<jointvel joint=\"j\"/></sensor></mujoco>";
    char err[512] = "";
    gdnStatus st;
    gdnModel* m = load_string(xml, &st, err, sizeof(err), NULL, 0);
    CHECK(m != NULL);
    if (!m) {
        return 0;
    }
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    d->time = 1.5;
    d->qvel[0] = 2;
    CHECK(gdn_step(m, d) == GDN_OK);
    CHECK(d->sensordata[0] == 1.5); // stage 0's time, not t + h / 2 or t + h
    CHECK(d->sensordata[1] == 2);
    m->opt.disableflags |= GDN_DSBL_SENSOR;
    CHECK(gdn_step(m, d) == GDN_OK);
    CHECK(d->sensordata[0] == 1.5);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// sensordata of gdn_forward at q (+) eps dq, v + eps dv (scratch state restored)
static int forward_at(const gdnModel* m, gdnData* d, const double* q0, const double* v0,
                      const double* u0, const double* dq, const double* dv, const double* du,
                      double eps, double* out) {
    memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, v0, sizeof(double) * (size_t)m->nv);
    for (int k = 0; k < m->nu; k++) {
        d->ctrl[k] = u0[k] + (du ? eps * du[k] : 0);
    }
    if (dq) {
        gdn_integrate_pos(m, d->qpos, dq, eps);
    }
    for (int k = 0; dv && k < m->nv; k++) {
        d->qvel[k] += eps * dv[k];
    }
    if (gdn_forward(m, d) != GDN_OK) {
        return 0;
    }
    memcpy(out, d->sensordata, sizeof(double) * (size_t)m->nsensordata);
    return 1;
}

// gdn_sensor_jvp against central differences of gdn_forward's sensordata (eps 1e-6: the
// truncation error eps^2 |f^(3)| ~ 1e-12 relative, the round-off 1e-16 / eps ~ 1e-10), per
// sensor relative to max(|FD|, 1); the dot-product identity <g, J u> = <J^T g, u> to 1e-12;
// the refusal of a model with an acceleration sensor or a rangefinder, by name
#define FD_TOL 1e-7
static int sensor_derivatives_of(const char* file) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, file);
    char err[512] = "";
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(path, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    if (!m) {
        return 0;
    }
    // the acceleration sensors read the solve: converged to round-off, so that the
    // differences see its solution and not the default tolerance's 1e-8 / eps
    m->opt.tolerance = 1e-14;
    m->opt.iterations = 300;
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    const int nq = m->nq, nv = m->nv, ns = m->nsensordata;
    const int nu = m->nu;
    double* buf = calloc((size_t)(2 * nq + 8 * nv + 6 * ns + 4 * nu + 8), sizeof(double));
    double *q0 = buf, *v0 = q0 + nq, *dq = v0 + nv, *dv = dq + nv, *gq = dv + nv, *gv = gq + nv;
    double *js = gv + nv, *fp = js + ns, *fm = fp + ns, *g = fm + ns;
    double *u0 = g + ns, *du = u0 + nu, *gu = du + nu;
    unsigned long long rng = 4242;
    double worst_fd = 0, worst_dot = 0;
    int checked = 0, hit_types = 0, hit_moving = 0;
    for (int sample = 0; sample < 30; sample++) {
        gdn_data_reset(m, d);
        for (int k = 0; k < nv; k++) {
            dq[k] = gdn_test_uniform(&rng, -1, 1);
            v0[k] = gdn_test_uniform(&rng, -2, 2);
        }
        memcpy(q0, m->qpos0, sizeof(double) * (size_t)nq);
        gdn_integrate_pos(m, q0, dq, 0.6);
        for (int k = 0; k < nv; k++) {
            dq[k] = gdn_test_uniform(&rng, -1, 1);
            dv[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < ns; k++) {
            g[k] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int k = 0; k < nu; k++) {
            u0[k] = gdn_test_uniform(&rng, -0.5, 0.5);
            du[k] = gdn_test_uniform(&rng, -1, 1);
        }
        const double eps = 1e-6;
        if (!forward_at(m, d, q0, v0, u0, dq, dv, du, eps, fp) ||
            !forward_at(m, d, q0, v0, u0, dq, dv, du, -eps, fm) ||
            !forward_at(m, d, q0, v0, u0, NULL, NULL, NULL, 0, js)) {
            CHECK(0);
            break;
        }
        // a sample whose limit rows or cutoffs switch within +-eps (a kink) is not compared
        // with FD (the identity still holds)
        int kink = 0;
        for (int i = 0; i < m->nsensor; i++) {
            const int a = m->sensor_adr[i];
            const double c = m->sensor_cutoff[i];
            kink |= (fp[a] == 0) != (fm[a] == 0) || (fp[a] == 0) != (js[a] == 0);
            // a rangefinder whose ray changes geom, face or hit / miss within +-eps jumps
            kink |= m->sensor_type[i] == GDN_SENS_RANGEFINDER && fabs(fp[a] - fm[a]) > 1e-4;
            for (int k = 0; c > 0 && k < m->sensor_dim[i]; k++) {
                kink |= (fabs(fp[a + k]) == c) != (fabs(fm[a + k]) == c);
            }
        }
        CHECK(gdn_sensor_jvp(m, d, dq, dv, du, js) == GDN_OK);
        // an acceleration sensor at a contact from MPR with a curved shape (the chain against
        // the cylinder, ellipsoid and mesh walls) is differentiated at the search's converged
        // limit, which the forward at the default mpr_tolerance is not (docs/derivatives.md):
        // no FD comparison there either
        kink |= (d->deriv_flags & GDN_DERIV_MPR_LIMIT) != 0;
        CHECK(gdn_sensor_vjp(m, d, g, gq, gv, gu) == GDN_OK);
        CHECK(d->parena == 0);
        double lhs = 0, rhs = 0, scale = 0;
        for (int k = 0; k < ns; k++) {
            lhs += g[k] * js[k];
            scale += fabs(g[k] * js[k]);
        }
        for (int k = 0; k < nv; k++) {
            rhs += gq[k] * dq[k] + gv[k] * dv[k];
        }
        for (int k = 0; k < nu; k++) {
            rhs += gu[k] * du[k];
        }
        worst_dot = gdn_oracle_worst(worst_dot, fabs(lhs - rhs) / fmax(scale, 1));
        if (kink) {
            continue;
        }
        checked++;
        // which geom type each rangefinder's ray hit (the coverage of the samples)
        for (int i = 0; i < m->nsensor; i++) {
            if (m->sensor_type[i] == GDN_SENS_RANGEFINDER) {
                const int site = m->sensor_objid[i];
                const double* R = d->site_xmat + 9 * site;
                const double a[3] = {R[2], R[5], R[8]};
                int geom = -1;
                gdn_ray(m, d, d->site_xpos + 3 * site, a, m->site_bodyid[site], &geom);
                hit_types |= geom >= 0 ? 1 << m->geom_type[geom] : 1 << 15;
                hit_moving |= geom >= 0 && m->geom_bodyid[geom] > 0;
            }
        }
        for (int i = 0; i < m->nsensor; i++) {
            const int adr = m->sensor_adr[i], dim = m->sensor_dim[i];
            double e = 0, mag = 1;
            for (int k = 0; k < dim; k++) {
                const double fd = (fp[adr + k] - fm[adr + k]) / (2 * eps);
                e = fmax(e, fabs(js[adr + k] - fd));
                mag = fmax(mag, fabs(fd));
            }
            if (e / mag > FD_TOL) {
                fprintf(stderr, "sample %d sensor %d '%s' (type %d): JVP vs FD %.3g\n", sample, i,
                        gdn_id2name(m, "sensor", i), m->sensor_type[i], e / mag);
            }
            worst_fd = gdn_oracle_worst(worst_fd, e / mag);
        }
    }
    printf("sensor derivatives (%s): %d samples, JVP vs central FD %.2e, dot identity %.2e\n",
           file, checked, worst_fd, worst_dot);
    CHECK(checked >= 20);
    CHECK(worst_fd <= FD_TOL);
    if (!strcmp(file, "sensors_range.xml")) {
        // plane, sphere, capsule, ellipsoid, cylinder, box, mesh, a moving geom and a miss
        const int want = 1 << GDN_GEOM_PLANE | 1 << GDN_GEOM_SPHERE | 1 << GDN_GEOM_CAPSULE |
                         1 << GDN_GEOM_ELLIPSOID | 1 << GDN_GEOM_CYLINDER | 1 << GDN_GEOM_BOX |
                         1 << GDN_GEOM_MESH | 1 << 15;
        printf("  rangefinder hits: geom types 0x%x (want 0x%x), a moving geom: %d\n", hit_types,
               want, hit_moving);
        CHECK((hit_types & want) == want && hit_moving);
    }
    CHECK(worst_dot <= 1e-12);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static int test_sensor_derivatives(void) {
    CHECK(sensor_derivatives_of("sensors_deriv.xml") == 0);
    // the tendon sensors (fixed and spatial, their limit rows, tendon actuators' length and
    // velocity): J dq, J dv + (DJ' v) . dq
    CHECK(sensor_derivatives_of("sensors_tendon_deriv.xml") == 0);
    // the rangefinder against every primitive, static and moving: the hit point stays on the
    // surface, dx = n . (dh_geom - dh_site) / (n . a)
    CHECK(sensor_derivatives_of("sensors_range.xml") == 0);
    // every sensor type but touch on a chain (the acceleration stage: qacc and the limit
    // forces through the solve, cacc, cfrc_int; touch and contacts: test_sensor_acc.c), and the
    // tendon limit forces of a spatial and a fixed tendon
    CHECK(sensor_derivatives_of("sensors_chain.xml") == 0);
    CHECK(sensor_derivatives_of("sensors_tendon.xml") == 0);
    // ball joints on their cone limits: jointlimitvel's row J = -n moves with q
    CHECK(sensor_derivatives_of("sensors_ball_limit.xml") == 0);
    // motors on a ball joint (length log(q) . g: d = (Jinv(log q)' g) . dq, velocity g . v),
    // a free joint (length 0, velocity g . v) and a hinge's joint-in-parent: actuatorpos / vel
    CHECK(sensor_derivatives_of("sensors_ball_actuator.xml") == 0);

    // a refusal at a state (sensors_inside_wrap.xml at qpos 0: its tendon wraps inside
    // without a root), by name: nothing written; a cotangent that skips the sensor is not
    // refused, nor is the step, which does not read the tendon
    gdnModel* m = gdn_test_load_model("sensors_inside_wrap.xml");
    gdnData* d = NULL;
    CHECK(m);
    if (!m) {
        return 0;
    }
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_forward(m, d) == GDN_OK);
    const int ns = m->nsensordata;
    double* out = calloc((size_t)ns, sizeof(double));
    out[0] = 7;
    char why[256];
    CHECK(gdn_sensor_refusal(m, d, why, (int)sizeof(why)) == -1 && why[0] == 0);
    CHECK(gdn_sensor_jvp(m, d, NULL, NULL, NULL, out) == GDN_ERR_UNSUPPORTED);
    CHECK(out[0] == 7);
    CHECK(gdn_sensor_refusal(m, d, why, (int)sizeof(why)) == 1);
    printf("  refused: %s\n", why);
    CHECK(strstr(why, "'tl' (tendonpos)") && strstr(why, GDN_TENDON_WRAP_WHAT));
    for (int k = 0; k < ns; k++) {
        out[k] = 1;
    }
    double gu[1] = {7};
    CHECK(gdn_sensor_vjp(m, d, out, NULL, NULL, gu) == GDN_ERR_UNSUPPORTED && gu[0] == 7);
    for (int k = 0; k < ns; k++) {
        out[k] = k == 0 ? 1 : 0; // jointpos 'xq' only
    }
    double gq[1], gv[1], y[2], x[2] = {0.3, -0.2};
    CHECK(gdn_sensor_vjp(m, d, out, gq, gv, NULL) == GDN_OK && gq[0] == 1 && gv[0] == 0);
    CHECK(gdn_sensor_refusal(m, d, NULL, 0) == -1);
    CHECK(gdn_step_jvp(m, d, x, x + 1, NULL, NULL, NULL, y, y + 1) == GDN_OK);
    CHECK(gdn_sensor_jvp(NULL, d, NULL, NULL, NULL, out) == GDN_ERR_ARG);
    CHECK(gdn_sensor_refusal(NULL, d, why, (int)sizeof(why)) == -1 && why[0] == 0);
    free(out);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// a sensor objective for the trajectory adjoint: 0.5 sum_k w_k s_k^2 over sensordata, with
// its gradient from gdn_sensor_vjp (tangent coordinates: grad_tangent = 1; gctrl through the
// actuatorfrc sensors); the clock (time in the scratch data is unspecified) weighs 0, and the
// terminal cost (whose scratch->ctrl is unspecified) reads zero controls
typedef struct {
    const double* w;
    int T;
} SensorCost;

static gdnStatus sensor_cost(const gdnModel* m, gdnData* scratch, int t, void* user,
                             double* value, double* gqpos, double* gqvel, double* gctrl) {
    const SensorCost* c = user;
    if (t == c->T) {
        memset(scratch->ctrl, 0, sizeof(double) * (size_t)m->nu);
    }
    gdnStatus st = gdn_forward(m, scratch);
    if (st != GDN_OK) {
        return st;
    }
    double g[256];
    *value = 0;
    for (int k = 0; k < m->nsensordata && k < 256; k++) {
        *value += 0.5 * c->w[k] * scratch->sensordata[k] * scratch->sensordata[k];
        g[k] = c->w[k] * scratch->sensordata[k];
    }
    if (!gqpos && !gqvel && !gctrl) {
        return GDN_OK;
    }
    return gdn_sensor_vjp(m, scratch, g, gqpos, gqvel, gctrl);
}

// the trajectory adjoint of a rollout whose running and terminal costs are sensor objectives
// (every position and velocity sensor of sensors_deriv.xml, limits active on the way) against
// central differences of gdn_rollout_objective along random directions of q0, v0 and the
// controls (eps 1e-6; rollouts of 40 steps amplify FD round-off to ~1e-9 relative): 1e-6
static int test_sensor_adjoint_objective(void) {
    char path[1024], err[256] = "";
    snprintf(path, sizeof(path), "%s/sensors_deriv.xml", GDN_TEST_MODELS);
    gdnModel* m = NULL;
    CHECK(gdn_load_xml(path, &m, err, sizeof(err), NULL, 0) == GDN_OK);
    if (!m || m->nsensordata > 256) {
        gdn_model_free(m);
        return 0;
    }
    const int T = 40, nq = m->nq, nv = m->nv, nu = m->nu;
    double* buf = calloc((size_t)(8 * nv + 2 * nq + 4 * T * nu + 256 + 8), sizeof(double));
    double *w = buf, *q0 = w + 256, *v0 = q0 + nq, *u = v0 + nv, *gq = u + T * nu;
    double *gv = gq + nv, *gu = gv + nv, *dq = gu + T * nu, *dv = dq + nv, *du = dv + nv;
    double *qp = du + T * nu, *vp = qp + nq, *up = vp + nv;
    unsigned long long rng = 31;
    for (int k = 0; k < m->nsensordata; k++) {
        w[k] = gdn_test_uniform(&rng, 0.1, 1);
    }
    for (int i = 0; i < m->nsensor; i++) {
        if (m->sensor_type[i] == GDN_SENS_CLOCK) {
            w[m->sensor_adr[i]] = 0;
        }
    }
    memcpy(q0, m->qpos0, sizeof(double) * (size_t)nq);
    for (int k = 0; k < nv; k++) {
        v0[k] = gdn_test_uniform(&rng, -1, 1);
        dq[k] = gdn_test_uniform(&rng, -1, 1);
        dv[k] = gdn_test_uniform(&rng, -1, 1);
    }
    for (int k = 0; k < T * nu; k++) {
        u[k] = gdn_test_uniform(&rng, -0.5, 0.5);
        du[k] = gdn_test_uniform(&rng, -1, 1);
    }
    gdnRollout r;
    gdn_rollout_init(m, T, &r);
    r.qpos0 = q0;
    r.qvel0 = v0;
    r.ctrl = u;
    SensorCost cost = {w, T};
    gdnObjective obj = {{sensor_cost, &cost, 1}, {sensor_cost, &cost, 1}};
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, T, 0, &tape, err, sizeof(err)) == GDN_OK);
    gdnAdjointGradients out = {0};
    out.qpos0 = gq;
    out.qvel0 = gv;
    out.ctrl = gu;
    CHECK(gdn_adjoint_rollout_gradient(m, &r, &obj, tape, &out, err, sizeof(err)) == GDN_OK);
    double analytic = 0;
    for (int k = 0; k < nv; k++) {
        analytic += gq[k] * dq[k] + gv[k] * dv[k];
    }
    for (int k = 0; k < T * nu; k++) {
        analytic += gu[k] * du[k];
    }
    // J(q0 (+) eps dq, v0 + eps dv, u + eps du), central
    const double eps = 1e-6;
    double J[2];
    r.qpos0 = qp;
    r.qvel0 = vp;
    r.ctrl = up;
    for (int s = 0; s < 2; s++) {
        const double e = s ? -eps : eps;
        memcpy(qp, q0, sizeof(double) * (size_t)nq);
        gdn_integrate_pos(m, qp, dq, e);
        for (int k = 0; k < nv; k++) {
            vp[k] = v0[k] + e * dv[k];
        }
        for (int k = 0; k < T * nu; k++) {
            up[k] = u[k] + e * du[k];
        }
        CHECK(gdn_rollout_objective(m, &r, &obj, tape, &J[s], err, sizeof(err)) == GDN_OK);
    }
    const double fd = (J[0] - J[1]) / (2 * eps);
    const double rel = fabs(analytic - fd) / fmax(fabs(fd), 1e-12);
    printf("sensor objective adjoint (T = %d): J = %.6g, <grad, dir> = %.12g, central FD "
           "%.12g, relative %.2e\n",
           T, out.J, analytic, fd, rel);
    CHECK(rel < 1e-6);
    gdn_tape_free(tape);
    free(buf);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase kCases[] = {
    {"sensor_adjoint_objective", test_sensor_adjoint_objective},
    {"sensor_derivatives", test_sensor_derivatives},
    {"sensors_vs_mujoco", test_sensors_vs_mujoco},
    {"sensor_refusals", test_sensor_refusals},
    {"sensor_noise", test_sensor_noise},
    {"sensor_disable_and_rk4_clock", test_sensor_disable_and_rk4_clock},
};

GDN_TEST_MAIN(kCases)
