// SPDX-License-Identifier: Apache-2.0
// MJCF <tendon> loading (no MuJoCo): fixed tendons and their defaults, the compiler's checks,
// the refusals by name of what gradyn does not simulate.
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "runner/test.h"

static char g_err[2048];
static char g_warn[4096];

static gdnStatus load(const char* xml, gdnModel** m) {
    return gdn_load_xml_string(xml, strlen(xml), NULL, m, g_err, sizeof(g_err), g_warn,
                               sizeof(g_warn));
}

// a two-hinge arm, a ball joint and a site; tendon and actuator sections spliced in
static void arm(char* out, size_t n, const char* defaults, const char* tendon,
                const char* actuator, const char* compiler) {
    snprintf(out, n,
             "<mujoco>%s<default>%s</default><worldbody>"
             "<body name='a'><joint name='h1'/><geom size='.1'/><site name='s1'/>"
             "<body name='b' pos='0 0 -0.3'><joint name='h2' type='slide' springref='0.25'/>"
             "<geom size='.1'/></body></body>"
             "<body name='c' pos='1 0 0'><joint name='ball' type='ball'/><geom size='.1'/>"
             "<site name='s2'/></body>"
             "</worldbody><tendon>%s</tendon><actuator>%s</actuator></mujoco>",
             compiler, defaults, tendon, actuator);
}

static int expect(const char* xml, gdnStatus st, const char* frag) {
    gdnModel* m = NULL;
    const gdnStatus got = load(xml, &m);
    if (got != st || (st != GDN_OK && (m || !strstr(g_err, frag)))) {
        fprintf(stderr, "expected %s with '%s', got %s: %s\n", gdn_status_string(st), frag,
                gdn_status_string(got), g_err);
        gdn_model_free(m);
        return 1;
    }
    gdn_model_free(m);
    return 0;
}

// values from the element, from its class and from MuJoCo's defaults; the compiler's spring
// length at qpos_spring (h2's springref) and length0 at qpos0; names; tendon actuators
static int test_fixed_values(void) {
    char xml[4096];
    arm(xml, sizeof(xml),
        "<tendon damping='0.3'/><default class='c'><tendon stiffness='7' margin='0.01'/>"
        "</default>",
        "<fixed name='t1' class='c' limited='true' range='-1 1' frictionloss='0.2'>"
        "<joint joint='h1' coef='2'/><joint joint='h2' coef='-1'/></fixed>"
        "<fixed name='t2' springlength='0.5'><joint joint='h2' coef='3'/></fixed>",
        "<motor name='m' tendon='t2' gear='2'/>", "");
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_OK);
    CHECK(m->ntendon == 2 && m->nwrap == 3);
    CHECK(m->tendon_adr[0] == 0 && m->tendon_num[0] == 2 && m->tendon_adr[1] == 2);
    CHECK(m->wrap_type[0] == GDN_WRAP_JOINT && m->wrap_objid[1] == 1 && m->wrap_prm[1] == -1);
    CHECK(m->tendon_limited[0] == 1 && m->tendon_limited[1] == 0);
    CHECK(m->tendon_stiffness[0] == 7 && m->tendon_margin[0] == 0.01);
    CHECK(m->tendon_damping[0] == 0.3 && m->tendon_damping[1] == 0.3);
    CHECK(m->tendon_stiffness[1] == 0 && m->tendon_frictionloss[0] == 0.2);
    CHECK(m->tendon_solref_lim[0] == 0.02 && m->tendon_solimp_fri[2] == 0.001);
    // springlength -1 (default): the length at qpos_spring = -1 * 0.25; given: kept
    CHECK(m->tendon_lengthspring[0] == -0.25 && m->tendon_lengthspring[1] == 0.5);
    CHECK(m->tendon_length0[0] == 0 && m->tendon_length0[1] == 0);
    CHECK(m->tendon_invweight0[0] > 0 && m->tendon_invweight0[1] > 0);
    CHECK(gdn_name2id(m, "tendon", "t2") == 1 && !strcmp(gdn_id2name(m, "tendon", 0), "t1"));
    CHECK(m->actuator_trntype[0] == GDN_TRN_TENDON && m->actuator_trnid[0] == 1);
    CHECK(!strstr(g_warn, "tendon"));
    gdn_model_free(m);
    return 0;
}

// the compiler's checks and gradyn's refusals, each naming its element
static int test_errors(void) {
    char xml[4096];
    arm(xml, sizeof(xml), "", "<fixed><joint joint='h1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_PARSE, "required attribute missing: 'coef'") == 0);
    arm(xml, sizeof(xml), "", "<fixed><joint coef='1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_PARSE, "required attribute missing: 'joint'") == 0);
    arm(xml, sizeof(xml), "", "<fixed><joint joint='nope' coef='1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "joint 'nope' not found") == 0);
    arm(xml, sizeof(xml), "", "<fixed name='e'/>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "path cannot be empty") == 0);
    arm(xml, sizeof(xml), "", "<fixed range='0 1'><joint joint='h1' coef='1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "autolimits") == 0);
    arm(xml, sizeof(xml), "", "<fixed range='1 0' limited='true'><joint joint='h1' coef='1'/>"
        "</fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "invalid limits") == 0);
    arm(xml, sizeof(xml), "", "<fixed range='0 1'><joint joint='h1' coef='1'/></fixed>", "",
        "<compiler autolimits='true'/>");
    CHECK(expect(xml, GDN_OK, "") == 0);
    arm(xml, sizeof(xml), "", "<fixed><joint joint='ball' coef='1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_UNSUPPORTED, "ball or free joint") == 0);
    arm(xml, sizeof(xml), "", "<fixed><joint joint='h1' coef='1'/><joint joint='h1' coef='2'/>"
        "</fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_UNSUPPORTED, "repeated") == 0);
    arm(xml, sizeof(xml), "", "<fixed><site site='s1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_PARSE, "unrecognized element in fixed tendon") == 0);
    // spatial paths: MuJoCo's checks, a positive divisor, wrapping refused by name
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "at least two objects") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='nope'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "site 'nope' not found") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='s1'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "site is repeated") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='s2'/><pulley divisor='2'/>"
        "</spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "ends with pulley") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='s2'/><pulley divisor='2'/>"
        "<pulley divisor='2'/><site site='s2'/><site site='s1'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "consecutive pulleys") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='s2'/><pulley divisor='2'/>"
        "<site site='s1'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "neighbor that is not a pulley") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><pulley divisor='0'/><site site='s2'/>"
        "<site site='s1'/></spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "divisor must be positive") == 0);
    arm(xml, sizeof(xml), "", "<spatial width='0'><site site='s1'/><site site='s2'/></spatial>",
        "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "positive width") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><geom geom='g'/><site site='s2'/>"
        "</spatial>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "geom 'g' not found") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><geom/><site site='s2'/></spatial>", "",
        "");
    CHECK(expect(xml, GDN_ERR_PARSE, "required attribute missing: 'geom'") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><joint joint='h1' coef='1'/></spatial>",
        "", "");
    CHECK(expect(xml, GDN_ERR_PARSE, "unrecognized element in spatial tendon") == 0);
    arm(xml, sizeof(xml), "", "<spatial><site site='s1'/><site site='s2'/><pulley divisor='2'/>"
        "<site site='s2'/><site site='s1'/></spatial>", "<motor tendon='nope'/>", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "unknown transmission target") == 0);
    arm(xml, sizeof(xml), "", "<fixed name='t'><joint joint='h1' coef='1'/></fixed>",
        "<motor tendon='nope'/>", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "unknown transmission target 'nope'") == 0);
    arm(xml, sizeof(xml), "", "<fixed name='t'><joint joint='h1' coef='1'/></fixed>"
        "<fixed name='t'><joint joint='h2' coef='1'/></fixed>", "", "");
    CHECK(expect(xml, GDN_ERR_MODEL, "repeated tendon name 't'") == 0);
    return 0;
}

// wrapping geoms: the compiler's checks (sphere or cylinder, bracketed by sites, the side site)
static int test_wrap_errors(void) {
    static const char* const fmt =
        "<mujoco><worldbody><site name='a' pos='-1 0 0'/>"
        "<body><joint/><geom name='sph' size='0.1'/><geom name='box' type='box' size='.1 .1 .1'/>"
        "<geom name='cyl' type='cylinder' size='.1 .1'/><site name='b' pos='1 0 0'/></body>"
        "</worldbody><tendon><spatial>%s</spatial></tendon></mujoco>";
    const char* cases[][3] = {
        {"<site site='a'/><geom geom='box'/><site site='b'/>", "not sphere or cylinder", ""},
        {"<site site='a'/><geom geom='sph'/>", "not bracketed by sites", ""},
        {"<geom geom='sph'/><site site='a'/><site site='b'/>", "not bracketed by sites", ""},
        {"<site site='a'/><geom geom='sph' sidesite='zz'/><site site='b'/>",
         "side site 'zz' not found", ""},
        {"<site site='a'/><geom geom='cyl' sidesite='b'/><site site='b'/>", "", "ok"},
    };
    for (int k = 0; k < (int)(sizeof(cases) / sizeof(cases[0])); k++) {
        char xml[2048];
        snprintf(xml, sizeof(xml), fmt, cases[k][0]);
        if (cases[k][2][0]) {
            gdnModel* m = NULL;
            CHECK(load(xml, &m) == GDN_OK);
            CHECK(m->wrap_type[1] == GDN_WRAP_CYLINDER && m->wrap_objid[1] == 2);
            CHECK(m->wrap_prm[1] == 1); // the side site's id
            gdn_model_free(m);
            continue;
        }
        CHECK(expect(xml, GDN_ERR_MODEL, cases[k][1]) == 0);
    }
    return 0;
}

// a spatial tendon's path arrays and the compiler's length0 (sites 1 m apart at qpos0)
static int test_spatial_values(void) {
    char xml[4096];
    arm(xml, sizeof(xml), "", "<spatial name='sp' stiffness='2'><site site='s1'/>"
        "<site site='s2'/><pulley divisor='4'/><site site='s2'/><site site='s1'/></spatial>",
        "<motor tendon='sp'/>", "");
    gdnModel* m = NULL;
    CHECK(load(xml, &m) == GDN_OK);
    CHECK(m->ntendon == 1 && m->nwrap == 5 && m->tendon_num[0] == 5);
    CHECK(m->wrap_type[0] == GDN_WRAP_SITE && m->wrap_type[2] == GDN_WRAP_PULLEY);
    CHECK(m->wrap_objid[1] == 1 && m->wrap_objid[2] == -1 && m->wrap_prm[2] == 4);
    // 1 + 1/4, the spring length defaulting to it
    CHECK(fabs(m->tendon_length0[0] - 1.25) < 1e-15);
    CHECK(m->tendon_lengthspring[0] == m->tendon_length0[0]);
    gdnData* d = NULL;
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    gdn_kinematics(m, d);
    // path points: s1, s2, the pulley, s2, s1
    CHECK(d->ten_wrapadr[0] == 0 && d->ten_wrapnum[0] == 5);
    CHECK(d->wrap_obj[0] == -1 && d->wrap_obj[2] == -2 && d->wrap_obj[4] == -1);
    CHECK(d->wrap_xpos[3] == 1 && d->wrap_xpos[12] == 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"fixed_values", test_fixed_values},
        {"errors", test_errors},
        {"spatial_values", test_spatial_values},
        {"wrap_errors", test_wrap_errors},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
