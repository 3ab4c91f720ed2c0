// SPDX-License-Identifier: Apache-2.0
// MJCF loader unit tests (no MuJoCo): orientation forms, defaults classes, units, fromto,
// inertia, keyframes, error messages with file and line, warnings for ignored dynamics.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <gradyn/gradyn.h>

#include "runner/test.h"

#define PI 3.14159265358979323846

static char g_err[2048];
static char g_warn[8192];

// load a model from a string; returns the status, the model in *m (NULL on error)
static gdnStatus load(const char* xml, gdnModel** m) {
    return gdn_load_xml_string(xml, strlen(xml), NULL, m, g_err, sizeof(g_err), g_warn,
                               sizeof(g_warn));
}

// load expecting failure with status st and a message containing every given fragment
static int expect_error(const char* xml, gdnStatus st, const char* frag1, const char* frag2) {
    gdnModel* m = NULL;
    gdnStatus got = load(xml, &m);
    if (got != st || m != NULL || !strstr(g_err, frag1) || (frag2 && !strstr(g_err, frag2))) {
        fprintf(stderr, "expected status %d with '%s' '%s', got %d: %s\n", (int)st, frag1,
                frag2 ? frag2 : "", (int)got, g_err);
        gdn_model_free(m);
        return 1;
    }
    return 0;
}

static double quat_dist(const double* a, const double* b) {
    double s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
    double d = 0;
    for (int k = 0; k < 4; k++) {
        d = fmax(d, fabs(s * a[k] - b[k]));
    }
    return d;
}

// every orientation form describes the same rotation: 90 degrees about z
static int test_orientation_forms_agree(void) {
    const char* xml =
        "<mujoco><worldbody>"
        "<body name='q' quat='0.7071067811865476 0 0 0.7071067811865476'><geom size='.1'/></body>"
        "<body name='aa' axisangle='0 0 1 90'><geom size='.1'/></body>"
        "<body name='eu' euler='0 0 90'><geom size='.1'/></body>"
        "<body name='xy' xyaxes='0 1 0 -1 0 0'><geom size='.1'/></body>"
        "<body name='za' zaxis='0 0 1' axisangle='0 0 1 90'><geom size='.1'/></body>"
        "</worldbody></mujoco>";
    gdnModel* m = NULL;
    gdnStatus st = load(xml, &m);
    // zaxis and axisangle together are rejected
    CHECK(st == GDN_ERR_MODEL && strstr(g_err, "multiple orientation"));
    const char* xml2 =
        "<mujoco><worldbody>"
        "<body name='q' quat='0.7071067811865476 0 0 0.7071067811865476'><geom size='.1'/></body>"
        "<body name='aa' axisangle='0 0 2 90'><geom size='.1'/></body>"
        "<body name='eu' euler='0 0 90'><geom size='.1'/></body>"
        "<body name='xy' xyaxes='0 2 0 -1 0.5 0'><geom size='.1'/></body>"
        "<body name='zq' quat='0.7071067811865476 0.7071067811865476 0 0'><geom size='.1'/></body>"
        "<body name='za' zaxis='0 -1 0'><geom size='.1'/></body>"
        "</worldbody></mujoco>";
    st = load(xml2, &m);
    CHECK(st == GDN_OK);
    for (int b = 2; b <= 4; b++) {
        CHECK(quat_dist(m->body_quat + 4 * b, m->body_quat + 4) < 1e-15);
    }
    // zaxis (0,-1,0) = rotation of +90 degrees about x
    CHECK(quat_dist(m->body_quat + 4 * 6, m->body_quat + 4 * 5) < 1e-15);
    gdn_model_free(m);

    // euler sequences: intrinsic "zyx" vs extrinsic "XYZ" describe the same rotation
    const char* xml3 = "<mujoco><compiler angle='radian' eulerseq='zyx'/><worldbody>"
                       "<body euler='0.3 -0.2 0.7'><geom size='.1'/></body></worldbody></mujoco>";
    const char* xml4 = "<mujoco><compiler angle='radian' eulerseq='XYZ'/><worldbody>"
                       "<body euler='0.7 -0.2 0.3'><geom size='.1'/></body></worldbody></mujoco>";
    gdnModel* a = NULL;
    gdnModel* b = NULL;
    CHECK(load(xml3, &a) == GDN_OK);
    CHECK(load(xml4, &b) == GDN_OK);
    CHECK(quat_dist(a->body_quat + 4, b->body_quat + 4) < 1e-15);
    gdn_model_free(a);
    gdn_model_free(b);
    return 0;
}

// nested classes inherit, childclass applies below a body, class= overrides childclass
static int test_defaults_inheritance(void) {
    const char* xml =
        "<mujoco><default>"
        "  <joint damping='1' armature='0.1'/>"
        "  <default class='a'><joint damping='2' stiffness='3'/>"
        "    <default class='b'><joint stiffness='4'/><geom type='box' size='.1 .2 .3'/></default>"
        "  </default>"
        "</default><worldbody>"
        "<body name='p' childclass='b'><joint name='j0'/><geom/>"
        "  <body name='c'><joint name='j1' class='a'/><joint name='j2' type='slide'/>"
        "  <geom class='main' size='.2'/></body>"
        "</body>"
        "<body name='d'><joint name='j3'/><geom size='.1'/></body>"
        "</worldbody></mujoco>";
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_OK);
    CHECK(m->njnt == 4);
    CHECK(m->dof_damping[0] == 2 && m->jnt_stiffness[0] == 4 && m->dof_armature[0] == 0.1);
    CHECK(m->dof_damping[1] == 2 && m->jnt_stiffness[1] == 3);
    CHECK(m->jnt_type[2] == GDN_JNT_SLIDE && m->jnt_stiffness[2] == 4);
    CHECK(m->dof_damping[3] == 1 && m->jnt_stiffness[3] == 0);
    CHECK(m->geom_type[0] == GDN_GEOM_BOX && m->geom_size[2] == 0.3);
    CHECK(m->geom_type[1] == GDN_GEOM_SPHERE);
    CHECK(m->dof_parentid[0] == -1 && m->dof_parentid[1] == 0 && m->dof_parentid[2] == 1);
    CHECK(m->dof_parentid[3] == -1);
    // unknown class is an error with the line
    CHECK(!expect_error("<mujoco><worldbody>\n<body><joint class='nope'/><geom size='1'/>"
                        "</body></worldbody></mujoco>",
                        GDN_ERR_MODEL, "<string>:2: joint:", "nope"));
    gdn_model_free(m);
    return 0;
}

// degrees: hinge range, ref and springref convert; slide ranges and radian models do not
static int test_degree_conversion(void) {
    const char* xml =
        "<mujoco><worldbody><body><geom size='.1'/>"
        "<joint name='h' range='-90 45' limited='true' ref='30' springref='60'/>"
        "<joint name='s' type='slide' range='-1 2' limited='true' ref='0.5'/>"
        "</body></worldbody></mujoco>";
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_OK);
    CHECK_NEAR(m->jnt_range[0], -PI / 2, 1e-15, 0);
    CHECK_NEAR(m->jnt_range[1], PI / 4, 1e-15, 0);
    CHECK_NEAR(m->qpos0[0], PI / 6, 1e-15, 0);
    CHECK_NEAR(m->qpos_spring[0], PI / 3, 1e-15, 0);
    CHECK(m->jnt_range[2] == -1 && m->jnt_range[3] == 2 && m->qpos0[1] == 0.5);
    gdn_model_free(m);
    const char* rad = "<mujoco><compiler angle='radian'/><worldbody><body><geom size='.1'/>"
                      "<joint range='-1 1' limited='true'/></body></worldbody></mujoco>";
    CHECK(load(rad, &m) == GDN_OK);
    CHECK(m->jnt_range[0] == -1 && m->jnt_range[1] == 1);
    gdn_model_free(m);
    // MuJoCo 2.2.2: a range without limited is an error unless autolimits
    CHECK(!expect_error("<mujoco><worldbody><body><geom size='.1'/><joint range='0 1'/>"
                        "</body></worldbody></mujoco>",
                        GDN_ERR_MODEL, "<string>:1: joint:", "autolimits"));
    CHECK(load("<mujoco><compiler autolimits='true'/><worldbody><body><geom size='.1'/>"
               "<joint range='0 1'/></body></worldbody></mujoco>",
               &m) == GDN_OK);
    CHECK(m->jnt_limited[0] == 1);
    gdn_model_free(m);
    return 0;
}

// fromto: centre, half-length and z axis along the segment; capsule mass and inertia
static int test_fromto_and_inertia(void) {
    const char* xml =
        "<mujoco><worldbody><body><freejoint/>"
        "<geom type='capsule' fromto='0 0 0 0 0.6 0.8' size='0.1'/></body>"
        "<body pos='1 0 0'><freejoint/><geom type='box' size='.1 .2 .3' mass='2'/>"
        "<geom type='sphere' pos='0 0 1' size='.1' mass='2'/></body>"
        "</worldbody></mujoco>";
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_OK);
    CHECK_NEAR(m->geom_pos[1], 0.3, 1e-15, 0);
    CHECK_NEAR(m->geom_pos[2], 0.4, 1e-15, 0);
    CHECK_NEAR(m->geom_size[1], 0.5, 1e-15, 0);
    double R[9];
    const double* q = m->geom_quat;
    // z axis of the geom = third column of R(q) = direction of the segment (from - to)
    R[2] = 2 * (q[1] * q[3] + q[0] * q[2]);
    R[5] = 2 * (q[2] * q[3] - q[0] * q[1]);
    R[8] = q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3];
    CHECK_NEAR(fabs(R[5]), 0.6, 1e-15, 1e-15);
    CHECK_NEAR(fabs(R[8]), 0.8, 1e-15, 1e-15);
    // capsule mass = 1000 (pi r^2 h + 4/3 pi r^3)
    double mass = 1000 * PI * (0.01 * 1.0 + 4.0 / 3.0 * 0.001);
    CHECK_NEAR(m->body_mass[1], mass, 1e-14, 0);
    // two geoms: COM between them, parallel-axis term m d^2 along x and y
    CHECK_NEAR(m->body_mass[2], 4, 1e-15, 0);
    gdnInertia in;
    gdn_body_inertia(m, 2, &in);
    CHECK_NEAR(in.com[2], 0.5, 1e-15, 0);
    double ixx = 2 * (0.04 + 0.09) / 3 + 2 * 0.4 * 0.01 + 4 * 0.25;
    double izz = 2 * (0.01 + 0.04) / 3 + 2 * 0.4 * 0.01;
    CHECK_NEAR(in.inertia[0], ixx, 1e-13, 0);
    CHECK_NEAR(in.inertia[8], izz, 1e-13, 0);
    CHECK(fabs(in.inertia[1]) < 1e-15);
    gdn_model_free(m);
    return 0;
}

// explicit inertial with fullinertia is diagonalized; qpos0 of free joints is the body pose
static int test_inertial_and_keyframes(void) {
    const char* xml =
        "<mujoco><worldbody><body pos='1 2 3'><freejoint name='f'/>"
        "<inertial pos='0.1 0 0' mass='3' fullinertia='2 3 4 0.1 0.2 0.3'/>"
        "<body pos='0 0 1'><joint name='b' type='ball'/><geom size='.1'/></body></body>"
        "</worldbody><actuator><position joint='b' kp='5'/></actuator>"
        "<keyframe><key time='1' qvel='1 2 3 4 5 6 7 8 9'/>"
        "<key qpos='0 0 0 2 0 0 0  0 0 0 3'/></keyframe></mujoco>";
    gdnModel* m = NULL;
    gdnStatus st = load(xml, &m);
    // a position actuator on a ball joint is allowed; check the rest
    CHECK(st == GDN_OK);
    CHECK(m->nq == 11 && m->nv == 9 && m->nkey == 2);
    CHECK(m->qpos0[0] == 1 && m->qpos0[1] == 2 && m->qpos0[2] == 3 && m->qpos0[3] == 1);
    CHECK(m->qpos0[7] == 1);
    gdnInertia in;
    gdn_body_inertia(m, 1, &in);
    // MuJoCo's Jacobi solver stops once a rotation's cosine is within 1e-12 of 1 (angles
    // below ~1.4e-6), so the rebuilt tensor is only good to ~1e-6 of its scale (as in MuJoCo)
    CHECK_NEAR(in.inertia[0], 2, 0, 1e-5);
    CHECK_NEAR(in.inertia[4], 3, 0, 1e-5);
    CHECK_NEAR(in.inertia[1], 0.1, 0, 1e-5);
    CHECK_NEAR(in.inertia[5], 0.3, 0, 1e-5);
    CHECK(m->key_time[0] == 1 && m->key_qpos[0] == 1 && m->key_qvel[8] == 9);
    CHECK(m->key_qpos[11 + 3] == 1 && m->key_qpos[11 + 10] == 1); // normalized
    CHECK(m->actuator_biasprm[1] == -5 && m->actuator_gainprm[0] == 5);
    CHECK(gdn_name2id(m, "joint", "b") == 1 && gdn_name2id(m, "body", "world") == 0);
    gdn_model_free(m);
    CHECK(!expect_error("<mujoco><worldbody><body><freejoint/><geom size='1'/></body>"
                        "</worldbody><keyframe>\n\n<key qpos='1 2'/></keyframe></mujoco>",
                        GDN_ERR_MODEL, "<string>:3: key:", "qpos"));
    return 0;
}

// malformed input: parse errors with file and line
static int test_error_messages(void) {
    // truncated XML
    CHECK(!expect_error("<mujoco>\n<worldbody>\n<body>", GDN_ERR_PARSE, "<string>:3", NULL));
    // bad numbers: garbage, NaN, overflow, wrong count
    CHECK(!expect_error("<mujoco><worldbody>\n\n<body pos='1 x 2'/></worldbody></mujoco>",
                        GDN_ERR_PARSE, "<string>:3: body:", "pos"));
    CHECK(!expect_error("<mujoco><worldbody><body pos='1 nan 2'/></worldbody></mujoco>",
                        GDN_ERR_PARSE, "<string>:1: body:", "pos"));
    CHECK(!expect_error("<mujoco><option timestep='1e999'/></mujoco>", GDN_ERR_PARSE,
                        "<string>:1: option:", "timestep"));
    CHECK(!expect_error("<mujoco><option gravity='0 0'/></mujoco>", GDN_ERR_PARSE,
                        "option:", "not have enough data"));
    CHECK(!expect_error("<mujoco><option gravity='0 0 1 2'/></mujoco>", GDN_ERR_PARSE,
                        "option:", "too much data"));
    // unknown keyword
    CHECK(!expect_error("<mujoco><worldbody><body>\n<joint type='hinged'/></body></worldbody>"
                        "</mujoco>",
                        GDN_ERR_PARSE, "<string>:2: joint:", "hinged"));
    // unknown element
    CHECK(!expect_error("<mujoco><worldbody><bodyy/></worldbody></mujoco>", GDN_ERR_PARSE,
                        "bodyy", NULL));
    // huge counts
    CHECK(!expect_error("<mujoco><size nkey='2000000000'/><worldbody><body><freejoint/>"
                        "<geom size='1'/></body></worldbody></mujoco>",
                        GDN_ERR_MODEL, "nkey", NULL));
    // past the int range: MuJoCo's sscanf keeps the low 32 bits (1215752191 keyframes)
    CHECK(!expect_error("<mujoco><size nkey='99999999999'/></mujoco>", GDN_ERR_MODEL, "nkey",
                        NULL));
    // deep nesting
    char deep[40000];
    size_t n = 0;
    n += (size_t)sprintf(deep + n, "<mujoco><worldbody>");
    for (int i = 0; i < 2000; i++) {
        n += (size_t)sprintf(deep + n, "<body>");
    }
    CHECK(!expect_error(deep, GDN_ERR_PARSE, "nested too deeply", NULL));
    // semantic errors
    // coordinate="global" is read (tests/test_mjcf_lenient.c); a bad keyword is not
    CHECK(!expect_error("<mujoco><compiler coordinate='world'/></mujoco>", GDN_ERR_PARSE,
                        "compiler:", "coordinate"));
    CHECK(!expect_error("<mujoco><worldbody><body name='a'><geom size='1'/></body>"
                        "<body name='a'><geom size='1'/></body></worldbody></mujoco>",
                        GDN_ERR_MODEL, "repeated body name", NULL));
    CHECK(!expect_error("<mujoco><worldbody><body><joint/></body></worldbody></mujoco>",
                        GDN_ERR_MODEL, "mass and inertia", NULL));
    CHECK(!expect_error("<mujoco><worldbody><body><joint name='j'/><geom size='1'/></body>"
                        "</worldbody><actuator>\n<adhesion body='b'/></actuator></mujoco>",
                        GDN_ERR_MODEL, "<string>:2: adhesion:", "ctrlrange"));
    CHECK(!expect_error("<mujoco><worldbody><body><joint name='j'/><geom size='1'/></body>"
                        "</worldbody><actuator><motor joint='k'/></actuator></mujoco>",
                        GDN_ERR_MODEL, "motor:", "'k'"));
    // a DOCTYPE loads, as in MuJoCo 2.2.2 (tests/test_mjcf_lenient.c); its entities are not
    // defined: a reference to one is refused by expat as tinyxml2 leaves it unexpanded
    // file errors
    gdnModel* m = NULL;
    CHECK(gdn_load_xml("/nonexistent/model.xml", &m, g_err, sizeof(g_err), NULL, 0) ==
          GDN_ERR_IO);
    CHECK(m == NULL && strstr(g_err, "/nonexistent/model.xml"));
    return 0;
}

static int write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    if (!f) {
        return 1;
    }
    fputs(text, f);
    fclose(f);
    return 0;
}

// includes: relative to the main file's directory at any depth (MuJoCo 2.2.2), a repeated
// file (a cycle) and missing files reported with the line
static int test_includes(void) {
    char dir[512], sub[600], path[700];
    snprintf(dir, sizeof(dir), "%s/mjcf_include_test", GDN_BINARY_DIR);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    mkdir(dir, 0755);
    mkdir(sub, 0755);
    snprintf(path, sizeof(path), "%s/main.xml", dir);
    CHECK(!write_file(path, "<mujoco>\n<include file='sub/bodies.xml'/>\n"
                            "<actuator><motor joint='j'/></actuator></mujoco>"));
    snprintf(path, sizeof(path), "%s/bodies.xml", sub);
    CHECK(!write_file(path, "<mujoco><worldbody><include file='sub/leaf.xml'/></worldbody>"
                            "</mujoco>"));
    snprintf(path, sizeof(path), "%s/leaf.xml", sub);
    CHECK(!write_file(path, "<mujoco><body><joint name='j'/><geom size='1'/></body></mujoco>"));
    snprintf(path, sizeof(path), "%s/main.xml", dir);
    gdnModel* m = NULL;
    gdnStatus st = gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "%s\n", g_err);
    }
    CHECK(st == GDN_OK && m->nbody == 2 && m->nu == 1);
    gdn_model_free(m);

    // cycle: a includes b includes a
    snprintf(path, sizeof(path), "%s/a.xml", dir);
    CHECK(!write_file(path, "<mujoco>\n\n<include file='b.xml'/></mujoco>"));
    snprintf(path, sizeof(path), "%s/b.xml", dir);
    CHECK(!write_file(path, "<mujoco><include file='a.xml'/></mujoco>"));
    snprintf(path, sizeof(path), "%s/a.xml", dir);
    st = gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0);
    CHECK(st == GDN_ERR_MODEL && m == NULL && strstr(g_err, "b.xml:1: include:") &&
          strstr(g_err, "a.xml' already included"));

    // missing file
    snprintf(path, sizeof(path), "%s/missing.xml", dir);
    CHECK(!write_file(path, "<mujoco>\n<include file='nothere.xml'/></mujoco>"));
    st = gdn_load_xml(path, &m, g_err, sizeof(g_err), NULL, 0);
    CHECK(st == GDN_ERR_IO && strstr(g_err, "missing.xml:2: include:") &&
          strstr(g_err, "nothere.xml"));

    // from a string with a directory
    const char* xml = "<mujoco><include file='sub/bodies.xml'/></mujoco>";
    st = gdn_load_xml_string(xml, strlen(xml), dir, &m, g_err, sizeof(g_err), NULL, 0);
    CHECK(st == GDN_OK && m->njnt == 1);
    gdn_model_free(m);
    return 0;
}

// elements that change dynamics but are not simulated are refused by name (file:line); the
// load option accept_unsupported loads them with warnings naming the substitutes
static int test_warnings(void) {
    const char* xml =
        "<mujoco>\n<option integrator='implicit' noslip_iterations='2' density='1.2'/>\n"
        "<worldbody><body name='a'><joint name='j'/><geom size='.1'/>"
        "<site name='s'/></body>\n<body name='b'><joint/><geom size='.1'/></body></worldbody>\n"
        "<tendon><fixed name='t'><joint joint='j' coef='1'/></fixed></tendon>\n"
        "<equality><connect body1='a' body2='b' anchor='0 0 0'/></equality>\n"
        "<contact><exclude body1='a' body2='b'/></contact>\n"
        "<visual><global fovy='45'/></visual><sensor><jointpos joint='j'/></sensor>"
        "</mujoco>";
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_ERR_UNSUPPORTED && !m);
    CHECK(strstr(g_err,
                 "<string>:2: option: noslip_iterations > 0 (the no-slip post-pass) is not "
                 "simulated by gradyn"));
    CHECK(strstr(g_err, "accept_unsupported") && strstr(g_err, "no no-slip pass"));
    const gdnLoadOptions accept = {1};
    CHECK(gdn_load_xml_string_ex(xml, strlen(xml), NULL, &accept, &m, g_err, sizeof(g_err),
                                 g_warn, sizeof(g_warn)) == GDN_OK);
    CHECK(strstr(g_warn, "<string>:2: option: noslip_iterations > 0 (the no-slip post-pass) is "
                         "not simulated by gradyn; accepted (accept_unsupported): no no-slip "
                         "pass is run"));
    CHECK(!strstr(g_warn, "integrator")); // the implicit integrator is simulated (issue 12)
    CHECK(m->opt.integrator == GDN_INT_IMPLICIT);
    CHECK(!strstr(g_warn, "fluid")); // the inertia-box fluid forces are simulated (issue 12)
    CHECK(m->opt.density == 1.2);
    CHECK(!strstr(g_warn, "tendon")); // fixed tendons are simulated (issue 12)
    CHECK(m->ntendon == 1 && m->tendon_num[0] == 1);
    CHECK(!strstr(g_warn, "connect")); // equality connect is simulated (issue 4)
    CHECK(m->neq == 1 && m->eq_obj1id[0] == 1 && m->eq_obj2id[0] == 2);
    CHECK(!strstr(g_warn, "exclude")); // contact excludes are simulated (issue 4)
    CHECK(m->nexclude == 1 && m->exclude_signature[0] == (2 << 16) + 3);
    CHECK(!strstr(g_warn, "visual") && !strstr(g_warn, "sensor"));
    CHECK(m->nsite == 1);
    gdn_model_free(m);
    // an attribute MJCF 2.2.2's schema does not know is refused, as MuJoCo refuses it
    // ("Schema violation: unrecognized attribute"), naming the element and the attribute
    CHECK(load("<mujoco><worldbody><body><joint dampin='1'/><geom size='1'/></body>"
               "</worldbody></mujoco>",
               &m) == GDN_ERR_PARSE);
    CHECK(strstr(g_err, "joint: unrecognized attribute 'dampin'"));
    // ... in a default class, a nested body and an actuator too; the element's own schema
    // decides (a geom takes fromto, a site in a tendon takes only site)
    CHECK(load("<mujoco><default><default class='a'><geom fromto='0 0 0 1 0 0' foo='1'/>"
               "</default></default></mujoco>",
               &m) == GDN_ERR_PARSE);
    CHECK(strstr(g_err, "geom: unrecognized attribute 'foo'"));
    CHECK(load("<mujoco><worldbody><body><geom size='1'/><body><joint/><geom size='1'/>"
               "<site name='s' bar='2'/></body></body></worldbody></mujoco>",
               &m) == GDN_ERR_PARSE);
    CHECK(strstr(g_err, "site: unrecognized attribute 'bar'"));
    CHECK(load("<mujoco><worldbody><body><joint name='j'/><geom size='1'/></body></worldbody>"
               "<actuator><motor joint='j' kp='1'/></actuator></mujoco>",
               &m) == GDN_ERR_PARSE);
    CHECK(strstr(g_err, "motor: unrecognized attribute 'kp'"));
    // a MuJoCo attribute gradyn does not read (visual only) loads
    CHECK(load("<mujoco><worldbody><body><joint/><geom size='1' rgba='1 0 0 1' group='2'/>"
               "</body></worldbody></mujoco>",
               &m) == GDN_OK);
    gdn_model_free(m);
    // flags
    CHECK(load("<mujoco><option><flag gravity='disable' contact='disable' energy='enable'/>"
               "</option></mujoco>",
               &m) == GDN_OK);
    CHECK(m->opt.disableflags == (GDN_DSBL_GRAVITY | GDN_DSBL_CONTACT));
    CHECK(m->opt.enableflags == GDN_ENBL_ENERGY);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"orientation_forms_agree", test_orientation_forms_agree},
    {"defaults_inheritance", test_defaults_inheritance},
    {"degree_conversion", test_degree_conversion},
    {"fromto_and_inertia", test_fromto_and_inertia},
    {"inertial_and_keyframes", test_inertial_and_keyframes},
    {"error_messages", test_error_messages},
    {"includes", test_includes},
    {"warnings", test_warnings},
};

GDN_TEST_MAIN(cases)
