// SPDX-License-Identifier: Apache-2.0
// MJCF sections -> gdnSpec, in MuJoCo's section order (compiler, option, size, default,
// worldbody, ..., actuator, keyframe). What changes the dynamics but is not simulated is refused
// by name unless the load accepts it (mjcf/policy.h).
#include "mjcf/reader.h"
#include "mjcf/tendon.h"
#include "model/model_alloc.h"

#include <math.h>
#include <string.h>

#include "mjcf/defaults.h"
#include "mjcf/equality.h"
#include "mjcf/elements.h"
#include "mjcf/orientation.h"
#include "mjcf/assets.h"
#include "mjcf/contact.h"
#include "mjcf/policy.h"

#include <gradyn/sensor.h>

#define GDN_MAX_BODY_DEPTH 1000

// append one zeroed element to a spec array; NULL after recording an error
#define SPEC_PUSH(spec, e, arr, n, cap)                                                      \
    (gdn_pool_reserve((spec)->pool, (void**)&(spec)->arr, &(spec)->cap, (spec)->n + 1,      \
                      sizeof(*(spec)->arr))                                                  \
         ? &(spec)->arr[(spec)->n++]                                                         \
         : (gdn_xml_error((spec)->diag, GDN_ERR_MEMORY, (e), "out of memory"), NULL))

// what at e changes the dynamics and is not simulated: refused, or substituted with a warning
static int unsupported(gdnSpec* spec, gdnXmlElem* e, const char* what, const char* substitute) {
    return gdn_mjcf_unsupported(spec->diag, e, what, substitute);
}

gdnStatus gdn_spec_init(gdnSpec* spec, gdnPool* pool, gdnDiag* diag) {
    memset(spec, 0, sizeof(*spec));
    spec->pool = pool;
    spec->diag = diag;
    spec->size_nconmax = spec->size_njmax = -1;
    gdnSpecCompiler* c = &spec->compiler;
    c->autolimits = 0;
    c->settotalmass = -1;
    c->degree = 1;
    memcpy(c->eulerseq, "xyz", 4);
    c->inertiafromgeom = 2;
    c->inertiagrouprange[0] = 0;
    c->inertiagrouprange[1] = 5;
    gdn_length_range_opt_default(&c->lengthrange);
    c->convexhull = 1;
    gdn_option_default(&spec->opt);
    if (gdn_defaults_init(spec) < 0) {
        return diag->status;
    }
    // the world body
    if (!gdn_pool_reserve(pool, (void**)&spec->bodies, &spec->capbody, 1, sizeof(gdnSpecBody))) {
        return gdn_diag_error(diag, GDN_ERR_MEMORY, NULL, 0, NULL, "out of memory");
    }
    gdnSpecBody* w = &spec->bodies[0];
    memset(w, 0, sizeof(*w));
    w->name = "world";
    w->pos[0] = NAN;
    w->quat[0] = 1;
    w->ipos[0] = NAN;
    w->iquat[0] = 1;
    gdn_alt_clear(&w->alt);
    gdn_alt_clear(&w->ialt);
    spec->nbody = 1;
    return GDN_OK;
}

// ---------------------------------------------------------------- compiler, option, size

static int read_compiler(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    gdnSpecCompiler* c = &spec->compiler;
    static const char* const silent[] = {"strippath", "fitaabb", "texturedir", "usethread",
                                         NULL};
    static const char* const coord_keys[] = {"local", "global"};
    static const char* const angle_keys[] = {"radian", "degree"};
    static const int zero_one[] = {0, 1};
    gdn_attr_ignore(e, silent);
    c->meshdir = gdn_xml_attr(e, "meshdir");
    GDN_TRY(gdn_attr_bool(d, e, "exactmeshinertia", &c->exactmeshinertia));
    GDN_TRY(gdn_attr_bool(d, e, "convexhull", &c->convexhull));
    GDN_TRY(gdn_attr_bool(d, e, "autolimits", &c->autolimits));
    GDN_TRY(gdn_attr_doubles(d, e, "boundmass", 1, &c->boundmass, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "boundinertia", 1, &c->boundinertia, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "settotalmass", 1, &c->settotalmass, 1));
    GDN_TRY(gdn_attr_bool(d, e, "balanceinertia", &c->balanceinertia));
    GDN_TRY(gdn_attr_keyword(d, e, "coordinate", coord_keys, zero_one, 2, &c->global));
    GDN_TRY(gdn_attr_keyword(d, e, "angle", angle_keys, zero_one, 2, &c->degree));
    const char* seq = gdn_xml_attr(e, "eulerseq");
    if (seq) {
        if (strlen(seq) != 3) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "euler format must have length 3");
        }
        memcpy(c->eulerseq, seq, 4);
    }
    GDN_TRY(gdn_attr_bool(d, e, "discardvisual", &c->discardvisual));
    int fuse = 0;
    GDN_TRY(gdn_attr_bool(d, e, "fusestatic", &fuse));
    if (fuse) {
        GDN_TRY(unsupported(spec, e, "fusestatic=\"true\"",
                            "static bodies are kept as separate bodies"));
    }
    GDN_TRY(gdn_attr_tfauto(d, e, "inertiafromgeom", &c->inertiafromgeom));
    double range[2];
    int r;
    GDN_TRY(r = gdn_attr_doubles(d, e, "inertiagrouprange", 2, range, 1));
    if (r > 0) {
        if (range[0] != floor(range[0]) || range[1] != floor(range[1]) || fabs(range[0]) > 1e9 ||
            fabs(range[1]) > 1e9) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "inertiagrouprange must be two integers");
        }
        c->inertiagrouprange[0] = (int)range[0];
        c->inertiagrouprange[1] = (int)range[1];
    }
    gdn_attr_warn_unused(d, e);
    // <lengthrange>: the options of the muscles' length-range computation (MuJoCo's mjLROpt)
    for (gdnXmlElem* l = e->first; l; l = l->next) {
        if (strcmp(l->name, "lengthrange")) {
            continue;
        }
        static const char* const mode_keys[] = {"none", "muscle", "muscleuser", "all"};
        static const int modes[] = {0, 1, 2, 3};
        gdnLengthRangeOpt* o = &c->lengthrange;
        GDN_TRY(gdn_attr_keyword(d, l, "mode", mode_keys, modes, 4, &o->mode));
        GDN_TRY(gdn_attr_bool(d, l, "useexisting", &o->useexisting));
        GDN_TRY(gdn_attr_bool(d, l, "uselimit", &o->uselimit));
        const struct {
            const char* name;
            double* field;
        } values[] = {{"accel", &o->accel},       {"maxforce", &o->maxforce},
                      {"timeconst", &o->timeconst}, {"timestep", &o->timestep},
                      {"inttotal", &o->inttotal}, {"inteval", &o->inteval},
                      {"tolrange", &o->tolrange}};
        for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
            GDN_TRY(gdn_attr_doubles(d, l, values[k].name, 1, values[k].field, 1));
        }
        gdn_attr_warn_unused(d, l);
    }
    return 0;
}

// <flag>: enable/disable bits (MuJoCo's mjtDisableBit / mjtEnableBit values)
static int read_flags(gdnSpec* spec, gdnXmlElem* e) {
    static const char* const keys[] = {"disable", "enable"};
    static const int values[] = {0, 1};
    static const struct {
        const char* name;
        int bit;
    } disable[] = {{"constraint", GDN_DSBL_CONSTRAINT}, {"equality", GDN_DSBL_EQUALITY},
                   {"frictionloss", GDN_DSBL_FRICTIONLOSS}, {"limit", GDN_DSBL_LIMIT},
                   {"contact", GDN_DSBL_CONTACT},          {"passive", GDN_DSBL_PASSIVE},
                   {"gravity", GDN_DSBL_GRAVITY},          {"clampctrl", GDN_DSBL_CLAMPCTRL},
                   {"warmstart", GDN_DSBL_WARMSTART},      {"filterparent", GDN_DSBL_FILTERPARENT},
                   {"actuation", GDN_DSBL_ACTUATION},      {"refsafe", GDN_DSBL_REFSAFE},
                   {"sensor", GDN_DSBL_SENSOR}},
      enable[] = {{"override", GDN_ENBL_OVERRIDE}, {"energy", GDN_ENBL_ENERGY},
                  {"fwdinv", 0},                   {"sensornoise", GDN_ENBL_SENSORNOISE},
                  {"multiccd", 0}};
    gdnDiag* d = spec->diag;
    for (size_t i = 0; i < sizeof(disable) / sizeof(disable[0]); i++) {
        int on = 1, r;
        GDN_TRY(r = gdn_attr_keyword(d, e, disable[i].name, keys, values, 2, &on));
        if (r > 0) {
            spec->opt.disableflags &= ~disable[i].bit;
            spec->opt.disableflags |= on ? 0 : disable[i].bit;
        }
    }
    for (size_t i = 0; i < sizeof(enable) / sizeof(enable[0]); i++) {
        int on = 0, r;
        GDN_TRY(r = gdn_attr_keyword(d, e, enable[i].name, keys, values, 2, &on));
        // multiccd adds contacts to convex pairs: not simulated
        if (r > 0 && on && !strcmp(enable[i].name, "multiccd")) {
            GDN_TRY(unsupported(spec, e, "multiccd=\"enable\"",
                                "one contact per convex pair (no multi-contact)"));
        }
        if (r > 0) {
            spec->opt.enableflags &= ~enable[i].bit;
            spec->opt.enableflags |= on ? enable[i].bit : 0;
        }
    }
    gdn_attr_warn_unused(d, e);
    return 0;
}

// the constraint solver attributes of <option>: solver, iterations, tolerance, cone, impratio
// (MuJoCo 2.2.2 keywords and ranges); noslip_iterations > 0 goes through the policy (the
// no-slip post-pass is not implemented)
static int read_solver_options(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    gdnOption* o = &spec->opt;
    static const char* const solvers[] = {"PGS", "CG", "Newton"};
    static const int solver_codes[] = {GDN_SOL_PGS, GDN_SOL_CG, GDN_SOL_NEWTON};
    static const char* const cones[] = {"pyramidal", "elliptic"};
    static const int cone_codes[] = {GDN_CONE_PYRAMIDAL, GDN_CONE_ELLIPTIC};
    int solver = o->solver, cone = o->cone;
    GDN_TRY(gdn_attr_keyword(d, e, "solver", solvers, solver_codes, 3, &solver));
    GDN_TRY(gdn_attr_keyword(d, e, "cone", cones, cone_codes, 2, &cone));
    o->solver = (gdnSolver)solver;
    o->cone = (gdnCone)cone;
    GDN_TRY(gdn_attr_int(d, e, "iterations", &o->iterations));
    GDN_TRY(gdn_attr_doubles(d, e, "tolerance", 1, &o->tolerance, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "impratio", 1, &o->impratio, 1));
    int noslip = 0;
    GDN_TRY(gdn_attr_int(d, e, "noslip_iterations", &noslip));
    if (o->iterations < 0 || noslip < 0) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "iterations and noslip_iterations must be non-negative");
    }
    if (!(o->tolerance >= 0) || !(o->impratio > 0)) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "tolerance must be non-negative and impratio positive");
    }
    if (noslip > 0) {
        GDN_TRY(unsupported(spec, e, "noslip_iterations > 0 (the no-slip post-pass)",
                            "no no-slip pass is run"));
    }
    return 0;
}

static int read_option(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    gdnOption* o = &spec->opt;
    static const char* const silent[] = {"apirate", "noslip_tolerance", "jacobian", NULL};
    static const char* const integrators[] = {"Euler", "RK4", "implicit"};
    static const char* const collision_keys[] = {"all", "predefined", "dynamic"};
    static const int codes[] = {0, 1, 2};
    gdn_attr_ignore(e, silent);
    GDN_TRY(read_solver_options(spec, e));
    GDN_TRY(gdn_attr_doubles(d, e, "timestep", 1, &o->timestep, 1));
    if (!(o->timestep > 0)) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "timestep must be positive");
    }
    GDN_TRY(gdn_attr_doubles(d, e, "gravity", 3, o->gravity, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "magnetic", 3, o->magnetic, 1));
    // the contact override (used under <flag override="enable">)
    GDN_TRY(gdn_attr_doubles(d, e, "o_margin", 1, &o->o_margin, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "o_solref", GDN_NREF, o->o_solref, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "o_solimp", GDN_NIMP, o->o_solimp, 0));
    // general convex collision (MPR): iteration limit and tolerance
    GDN_TRY(gdn_attr_int(d, e, "mpr_iterations", &o->mpr_iterations));
    GDN_TRY(gdn_attr_doubles(d, e, "mpr_tolerance", 1, &o->mpr_tolerance, 1));
    if (o->mpr_iterations < 0 || !(o->mpr_tolerance >= 0) || !isfinite(o->mpr_tolerance)) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "mpr_iterations and mpr_tolerance must be non-negative");
    }
    int integrator = 0;
    GDN_TRY(gdn_attr_keyword(d, e, "integrator", integrators, codes, 3, &integrator));
    o->integrator = (gdnIntegrator)integrator; // Euler, RK4 or implicit
    // the medium: MuJoCo's inertia-box fluid forces (dynamics/fluid.h)
    GDN_TRY(gdn_attr_doubles(d, e, "wind", 3, o->wind, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "density", 1, &o->density, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "viscosity", 1, &o->viscosity, 1));
    // collision="predefined" (pairs only) or "dynamic" (no pairs) filter the contacts
    int collision = 0;
    GDN_TRY(gdn_attr_keyword(d, e, "collision", collision_keys, codes, 3, &collision));
    o->collision = collision; // gdnCollisionMode: the codes are its values
    gdn_attr_warn_unused(d, e);
    for (gdnXmlElem* c = e->first; c; c = c->next) {
        if (!strcmp(c->name, "flag")) {
            GDN_TRY(read_flags(spec, c));
        } else {
            return gdn_xml_error(d, GDN_ERR_PARSE, c, "unrecognized element in option");
        }
    }
    return 0;
}

// <size nkey nconmax njmax>: a negative nconmax / njmax means automatic (MuJoCo: 100 / 500,
// gradyn: gdnModel's 0); the other sizes (memory, user data) are irrelevant here
static int read_size(gdnSpec* spec, gdnXmlElem* e) {
    gdnDiag* d = spec->diag;
    int nkey = 0, r;
    GDN_TRY(r = gdn_attr_int(d, e, "nkey", &nkey));
    if (r > 0) {
        spec->size_nkey = nkey;
    }
    GDN_TRY(gdn_attr_int(d, e, "nconmax", &spec->size_nconmax));
    GDN_TRY(gdn_attr_int(d, e, "njmax", &spec->size_njmax));
    if (spec->size_nconmax == 0 || spec->size_njmax == 0) {
        gdn_diag_warn(d, e->file, e->line, e->name,
                      "nconmax or njmax 0 (no contacts / rows in MuJoCo) is sized automatically");
    }
    for (int i = 0; i < e->nattr; i++) {
        e->attr[i].used = 1;
    }
    return 0;
}

// ---------------------------------------------------------------- body tree

static int read_body(gdnSpec* spec, gdnXmlElem* section, int body);

static int read_inertial(gdnSpec* spec, gdnXmlElem* e, gdnSpecBody* b) {
    gdnDiag* d = spec->diag;
    if (b->explicit_inertial) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "repeated inertial element");
    }
    b->explicit_inertial = 1;
    int r;
    GDN_TRY(r = gdn_attr_doubles(d, e, "pos", 3, b->ipos, 1));
    if (r == 0) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'pos'");
    }
    GDN_TRY(gdn_attr_doubles(d, e, "quat", 4, b->iquat, 1));
    GDN_TRY(r = gdn_attr_doubles(d, e, "mass", 1, &b->mass, 1));
    if (r == 0) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'mass'");
    }
    GDN_TRY(gdn_attr_doubles(d, e, "diaginertia", 3, b->inertia, 1));
    GDN_TRY(gdn_read_alt(spec, e, &b->ialt, 1));
    gdn_attr_warn_unused(d, e);
    return 0;
}

static int read_child_body(gdnSpec* spec, gdnXmlElem* e, int parent) {
    gdnDiag* d = spec->diag;
    int depth = spec->bodies[parent].depth + 1;
    if (depth > GDN_MAX_BODY_DEPTH) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "bodies nested too deeply");
    }
    int def = spec->bodies[parent].def;
    const char* childclass = gdn_xml_attr(e, "childclass");
    if (childclass) {
        def = gdn_defaults_find(spec, childclass);
        if (def < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "unknown default childclass '%.64s'",
                                 childclass);
        }
    }
    gdnSpecBody* b = SPEC_PUSH(spec, e, bodies, nbody, capbody);
    if (!b) {
        return -1;
    }
    int id = spec->nbody - 1;
    const char* name = gdn_xml_attr(e, "name");
    b->name = name ? name : "";
    b->elem = e;
    b->parent = parent;
    b->def = def;
    b->depth = depth;
    b->pos[0] = NAN;
    b->quat[0] = 1;
    b->ipos[0] = NAN;
    b->iquat[0] = 1;
    gdn_alt_clear(&b->alt);
    gdn_alt_clear(&b->ialt);
    gdn_xml_attr(e, "user");
    GDN_TRY(gdn_attr_doubles(d, e, "pos", 3, b->pos, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "quat", 4, b->quat, 1));
    GDN_TRY(gdn_attr_bool(d, e, "mocap", &b->mocap));
    GDN_TRY(gdn_read_alt(spec, e, &b->alt, 0));
    gdn_attr_warn_unused(d, e);
    return read_body(spec, e, id);
}

// children of a body (or of worldbody when body == 0)
static int read_body(gdnSpec* spec, gdnXmlElem* section, int body) {
    gdnDiag* d = spec->diag;
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        const char* n = e->name;
        int world = body == 0;
        if (!strcmp(n, "body")) {
            GDN_TRY(read_child_body(spec, e, body));
            continue;
        }
        if (!strcmp(n, "camera") || !strcmp(n, "light")) {
            continue; // visual only
        }
        if (!strcmp(n, "composite")) {
            return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, e,
                                 "<composite> is not supported (planned: a later issue)");
        }
        if ((world && (!strcmp(n, "inertial") || !strcmp(n, "joint") ||
                       !strcmp(n, "freejoint")))) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "world body cannot have joints or inertia");
        }
        int def = spec->bodies[body].def;
        if (!strcmp(n, "inertial")) {
            GDN_TRY(read_inertial(spec, e, &spec->bodies[body]));
        } else if (!strcmp(n, "joint")) {
            GDN_TRY(def = gdn_defaults_class_of(spec, e, def));
            gdnSpecJoint* j = SPEC_PUSH(spec, e, joints, njnt, capjnt);
            if (!j) {
                return -1;
            }
            *j = spec->defs[def].joint;
            j->body = body;
            GDN_TRY(gdn_read_joint(spec, e, j, 0));
            gdn_attr_warn_unused(d, e);
        } else if (!strcmp(n, "freejoint")) {
            // a free joint takes no values from default classes
            gdnSpecJoint* j = SPEC_PUSH(spec, e, joints, njnt, capjnt);
            if (!j) {
                return -1;
            }
            gdn_spec_joint_init(j);
            j->type = GDN_JNT_FREE;
            j->body = body;
            j->elem = e;
            const char* name = gdn_xml_attr(e, "name");
            j->name = name ? name : "";
            gdn_xml_attr(e, "group");
            gdn_attr_warn_unused(d, e);
        } else if (!strcmp(n, "geom")) {
            GDN_TRY(def = gdn_defaults_class_of(spec, e, def));
            gdnSpecGeom g = spec->defs[def].geom;
            g.body = body;
            GDN_TRY(gdn_read_geom(spec, e, &g, 0));
            gdn_attr_warn_unused(d, e);
            if (spec->compiler.discardvisual && !g.contype && !g.conaffinity) {
                continue; // visual-only geom removed, as MuJoCo does
            }
            gdnSpecGeom* slot = SPEC_PUSH(spec, e, geoms, ngeom, capgeom);
            if (!slot) {
                return -1;
            }
            *slot = g;
        } else if (!strcmp(n, "site")) {
            GDN_TRY(def = gdn_defaults_class_of(spec, e, def));
            gdnSpecSite* s = SPEC_PUSH(spec, e, sites, nsite, capsite);
            if (!s) {
                return -1;
            }
            *s = spec->defs[def].site;
            s->body = body;
            GDN_TRY(gdn_read_site(spec, e, s, 0));
            gdn_attr_warn_unused(d, e);
        } else {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in body");
        }
    }
    return 0;
}

// ---------------------------------------------------------------- actuators, keyframes

static int read_actuators(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        if (!gdn_is_actuator_element(e->name)) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in actuator");
        }
        int def;
        GDN_TRY(def = gdn_defaults_class_of(spec, e, 0));
        gdnSpecActuator* a = SPEC_PUSH(spec, e, actuators, nu, capu);
        if (!a) {
            return -1;
        }
        *a = spec->defs[def].actuator;
        a->target = "";
        a->trnattr = "";
        a->trntype = GDN_MJ_TRN_UNDEFINED;
        GDN_TRY(gdn_read_actuator(spec, e, a, 0));
        gdn_attr_warn_unused(d, e);
    }
    return 0;
}

static int read_keyframes(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    const int maxn = 10000000;
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        if (strcmp(e->name, "key")) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in keyframe");
        }
        gdnSpecKey* k = SPEC_PUSH(spec, e, keys, nkey, capkey);
        if (!k) {
            return -1;
        }
        const char* name = gdn_xml_attr(e, "name");
        k->name = name ? name : "";
        k->elem = e;
        GDN_TRY(gdn_attr_doubles(d, e, "time", 1, &k->time, 1));
        GDN_TRY(k->nqpos = gdn_attr_double_list(d, spec->pool, e, "qpos", maxn, &k->qpos));
        GDN_TRY(k->nqvel = gdn_attr_double_list(d, spec->pool, e, "qvel", maxn, &k->qvel));
        GDN_TRY(k->nctrl = gdn_attr_double_list(d, spec->pool, e, "ctrl", maxn, &k->ctrl));
        GDN_TRY(k->nact = gdn_attr_double_list(d, spec->pool, e, "act", maxn, &k->act));
        GDN_TRY(k->nmpos = gdn_attr_double_list(d, spec->pool, e, "mpos", maxn, &k->mpos));
        GDN_TRY(k->nmquat = gdn_attr_double_list(d, spec->pool, e, "mquat", maxn, &k->mquat));
        gdn_attr_warn_unused(d, e);
    }
    return 0;
}

// ---------------------------------------------------------------- sensors

// the object type of an MJCF type name (MuJoCo's mju_str2Type over the types gradyn has; any
// other MuJoCo type is 99: the compiler then refuses it as MuJoCo does); 1 read, 0 absent,
// -1 after an error
static int read_objtype(gdnSpec* spec, gdnXmlElem* e, const char* attr, int* out) {
    static const char* const keys[] = {"body",   "xbody", "joint",  "geom",    "site",
                                       "camera", "tendon", "actuator", "dof",   "light",
                                       "mesh",   "skin",  "hfield", "texture", "material",
                                       "pair",   "exclude", "equality", "sensor", "numeric",
                                       "text",   "tuple", "key"};
    static const int values[] = {GDN_OBJ_BODY,   GDN_OBJ_XBODY,  GDN_OBJ_JOINT,    GDN_OBJ_GEOM,
                                 GDN_OBJ_SITE,   GDN_OBJ_CAMERA, GDN_OBJ_TENDON,   GDN_OBJ_ACTUATOR,
                                 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};
    return gdn_attr_keyword(spec->diag, e, attr, keys, values, 23, out);
}

// <sensor>: MuJoCo 2.2.2's sensor elements and attributes (name, cutoff, noise, user and the
// object: site, joint, tendon, actuator, body, or objtype / objname with reftype / refname for
// the frame sensors); no default classes (2.2.2 has none for sensors). Compiled by
// mjcf/sensor.c
static int read_sensors(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    // element, type, the attribute naming the object ("" objtype / objname, NULL none),
    // its object type, whether reftype / refname are read
    static const struct {
        const char* name;
        int type;
        const char* attr;
        int objtype, ref;
    } kinds[] = {
        {"touch", GDN_SENS_TOUCH, "site", GDN_OBJ_SITE, 0},
        {"accelerometer", GDN_SENS_ACCELEROMETER, "site", GDN_OBJ_SITE, 0},
        {"velocimeter", GDN_SENS_VELOCIMETER, "site", GDN_OBJ_SITE, 0},
        {"gyro", GDN_SENS_GYRO, "site", GDN_OBJ_SITE, 0},
        {"force", GDN_SENS_FORCE, "site", GDN_OBJ_SITE, 0},
        {"torque", GDN_SENS_TORQUE, "site", GDN_OBJ_SITE, 0},
        {"magnetometer", GDN_SENS_MAGNETOMETER, "site", GDN_OBJ_SITE, 0},
        {"rangefinder", GDN_SENS_RANGEFINDER, "site", GDN_OBJ_SITE, 0},
        {"jointpos", GDN_SENS_JOINTPOS, "joint", GDN_OBJ_JOINT, 0},
        {"jointvel", GDN_SENS_JOINTVEL, "joint", GDN_OBJ_JOINT, 0},
        {"tendonpos", GDN_SENS_TENDONPOS, "tendon", GDN_OBJ_TENDON, 0},
        {"tendonvel", GDN_SENS_TENDONVEL, "tendon", GDN_OBJ_TENDON, 0},
        {"actuatorpos", GDN_SENS_ACTUATORPOS, "actuator", GDN_OBJ_ACTUATOR, 0},
        {"actuatorvel", GDN_SENS_ACTUATORVEL, "actuator", GDN_OBJ_ACTUATOR, 0},
        {"actuatorfrc", GDN_SENS_ACTUATORFRC, "actuator", GDN_OBJ_ACTUATOR, 0},
        {"ballquat", GDN_SENS_BALLQUAT, "joint", GDN_OBJ_JOINT, 0},
        {"ballangvel", GDN_SENS_BALLANGVEL, "joint", GDN_OBJ_JOINT, 0},
        {"jointlimitpos", GDN_SENS_JOINTLIMITPOS, "joint", GDN_OBJ_JOINT, 0},
        {"jointlimitvel", GDN_SENS_JOINTLIMITVEL, "joint", GDN_OBJ_JOINT, 0},
        {"jointlimitfrc", GDN_SENS_JOINTLIMITFRC, "joint", GDN_OBJ_JOINT, 0},
        {"tendonlimitpos", GDN_SENS_TENDONLIMITPOS, "tendon", GDN_OBJ_TENDON, 0},
        {"tendonlimitvel", GDN_SENS_TENDONLIMITVEL, "tendon", GDN_OBJ_TENDON, 0},
        {"tendonlimitfrc", GDN_SENS_TENDONLIMITFRC, "tendon", GDN_OBJ_TENDON, 0},
        {"framepos", GDN_SENS_FRAMEPOS, "", 0, 1},
        {"framequat", GDN_SENS_FRAMEQUAT, "", 0, 1},
        {"framexaxis", GDN_SENS_FRAMEXAXIS, "", 0, 1},
        {"frameyaxis", GDN_SENS_FRAMEYAXIS, "", 0, 1},
        {"framezaxis", GDN_SENS_FRAMEZAXIS, "", 0, 1},
        {"framelinvel", GDN_SENS_FRAMELINVEL, "", 0, 1},
        {"frameangvel", GDN_SENS_FRAMEANGVEL, "", 0, 1},
        {"framelinacc", GDN_SENS_FRAMELINACC, "", 0, 0},
        {"frameangacc", GDN_SENS_FRAMEANGACC, "", 0, 0},
        {"subtreecom", GDN_SENS_SUBTREECOM, "body", GDN_OBJ_BODY, 0},
        {"subtreelinvel", GDN_SENS_SUBTREELINVEL, "body", GDN_OBJ_BODY, 0},
        {"subtreeangmom", GDN_SENS_SUBTREEANGMOM, "body", GDN_OBJ_BODY, 0},
        {"clock", GDN_SENS_CLOCK, NULL, GDN_OBJ_UNKNOWN, 0},
        {"user", GDN_SENS_USER, "", 0, 0},
    };
    const int nkind = (int)(sizeof(kinds) / sizeof(kinds[0]));
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        int k = 0;
        while (k < nkind && strcmp(e->name, kinds[k].name)) {
            k++;
        }
        if (k == nkind) {
            // a sensor <plugin> too: MuJoCo 2.2.2 has none
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in sensor");
        }
        gdnSpecSensor* s = SPEC_PUSH(spec, e, sensors, nsensor, capsensor);
        if (!s) {
            return -1;
        }
        memset(s, 0, sizeof(*s));
        s->elem = e;
        s->type = kinds[k].type;
        s->objtype = kinds[k].objtype;
        s->objname = "";
        s->refname = "";
        const char* name = gdn_xml_attr(e, "name");
        s->name = name ? name : "";
        gdn_xml_attr(e, "user"); // user data: MuJoCo's sensor_user, unused by the physics
        GDN_TRY(gdn_attr_doubles(d, e, "cutoff", 1, &s->cutoff, 1));
        GDN_TRY(gdn_attr_doubles(d, e, "noise", 1, &s->noise, 1));
        const char* attr = kinds[k].attr;
        if (attr && attr[0]) {
            const char* obj = gdn_xml_attr(e, attr);
            if (!obj) {
                return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: '%s'",
                                     attr);
            }
            s->objname = obj;
        } else if (attr) {
            int r;
            GDN_TRY(r = read_objtype(spec, e, "objtype", &s->objtype));
            const char* obj = gdn_xml_attr(e, "objname");
            if (r == 0 || !obj) {
                return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: '%s'",
                                     r == 0 ? "objtype" : "objname");
            }
            s->objname = obj;
        }
        if (kinds[k].ref) {
            int r;
            GDN_TRY(r = read_objtype(spec, e, "reftype", &s->reftype));
            const char* ref = gdn_xml_attr(e, "refname");
            if (r > 0) {
                if (!ref) {
                    return gdn_xml_error(d, GDN_ERR_PARSE, e,
                                         "required attribute missing: 'refname'");
                }
                s->refname = ref;
            } else if (ref) {
                return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                     "refname '%.64s' given but reftype is missing", ref);
            }
        }
        if (s->type == GDN_SENS_USER) {
            static const char* const stages[] = {"none", "pos", "vel", "acc"};
            static const int stage_codes[] = {GDN_STAGE_NONE, GDN_STAGE_POS, GDN_STAGE_VEL,
                                              GDN_STAGE_ACC};
            static const char* const types[] = {"real", "positive", "axis", "quaternion"};
            static const int type_codes[] = {GDN_DATATYPE_REAL, GDN_DATATYPE_POSITIVE,
                                             GDN_DATATYPE_AXIS, GDN_DATATYPE_QUATERNION};
            int rd, rs, rt;
            GDN_TRY(rd = gdn_attr_int(d, e, "dim", &s->dim));
            GDN_TRY(rs = gdn_attr_keyword(d, e, "needstage", stages, stage_codes, 4,
                                          &s->needstage));
            GDN_TRY(rt = gdn_attr_keyword(d, e, "datatype", types, type_codes, 4,
                                          &s->datatype));
            if (!rd || !rs || !rt) {
                return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: '%s'",
                                     !rd ? "dim" : !rs ? "needstage" : "datatype");
            }
        }
        gdn_attr_warn_unused(d, e);
    }
    return 0;
}

// ---------------------------------------------------------------- sections

// <tendon>: fixed and spatial tendons (mjcf/tendon.c)
static int read_tendons(gdnSpec* spec, gdnXmlElem* section) {
    return gdn_mjcf_read_tendons(spec, section);
}

// <worldbody>: the children of body 0; the world body takes no attributes
static int read_worldbody(gdnSpec* spec, gdnXmlElem* e) {
    if (e->nattr) {
        return gdn_xml_error(spec->diag, GDN_ERR_MODEL, e, "world body cannot have attributes");
    }
    return read_body(spec, e, 0);
}

// the top-level sections and the pass that reads each: MuJoCo's order (compiler, option, size,
// default, asset and custom, worldbody, contact / equality / tendon, actuator, keyframe),
// whatever their order in the file; the sections without a reader are accepted and skipped
static const struct {
    const char* name;
    int pass;
    int (*read)(gdnSpec* spec, gdnXmlElem* section);
} sections[] = {
    {"compiler", 0, read_compiler},         {"option", 1, read_option},
    {"size", 2, read_size},                 {"default", 3, gdn_defaults_read},
    {"asset", 4, gdn_mjcf_read_assets},     {"custom", 4, gdn_mjcf_read_custom},
    {"worldbody", 5, read_worldbody},       {"contact", 6, gdn_mjcf_read_contact},
    {"equality", 6, gdn_mjcf_read_equality}, {"tendon", 6, read_tendons},
    {"actuator", 7, read_actuators},        {"keyframe", 8, read_keyframes},
    {"visual", -1, NULL},                   {"statistic", -1, NULL},
    {"sensor", 7, read_sensors},
};
#define GDN_NSECTION ((int)(sizeof(sections) / sizeof(sections[0])))
#define GDN_NPASS 9

// the sections[] entry of a top-level element name, -1 when unknown
static int section_of(const char* name) {
    for (int i = 0; i < GDN_NSECTION; i++) {
        if (!strcmp(name, sections[i].name)) {
            return i;
        }
    }
    return -1;
}

gdnStatus gdn_mjcf_read(gdnSpec* spec, gdnXmlElem* root) {
    gdnDiag* d = spec->diag;
    if (strcmp(root->name, "mujoco")) {
        return gdn_diag_error(d, GDN_ERR_PARSE, root->file, root->line, root->name,
                              "root element must be <mujoco>");
    }
    gdn_xml_attr(root, "model");
    gdn_attr_warn_unused(d, root);
    spec->model_dir = root->dir;

    // check every top-level name once
    for (gdnXmlElem* e = root->first; e; e = e->next) {
        if (section_of(e->name) >= 0) {
            continue;
        }
        return gdn_diag_error(d, GDN_ERR_PARSE, e->file, e->line, e->name,
                              "unrecognized model element");
    }

    // sections pass by pass, each pass in file order
    for (int pass = 0; pass < GDN_NPASS; pass++) {
        for (gdnXmlElem* e = root->first; e; e = e->next) {
            const int s = section_of(e->name);
            if (s >= 0 && sections[s].pass == pass && sections[s].read(spec, e) < 0) {
                return d->status;
            }
        }
    }
    return d->status;
}
