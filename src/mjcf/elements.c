// SPDX-License-Identifier: Apache-2.0
// Readers for joint, geom, site and actuator elements (MuJoCo 2.2.2 attribute semantics).
#include "mjcf/elements.h"

#include <math.h>
#include <string.h>

#include "mjcf/orientation.h"

static void default_solref_solimp(double solref[2], double solimp[5]) {
    solref[0] = 0.02; // time constant
    solref[1] = 1;    // damping ratio
    solimp[0] = 0.9;  // dmin
    solimp[1] = 0.95; // dmax
    solimp[2] = 0.001; // width
    solimp[3] = 0.5;  // midpoint
    solimp[4] = 2;    // power
}

void gdn_spec_joint_init(gdnSpecJoint* j) {
    memset(j, 0, sizeof(*j));
    j->type = GDN_JNT_HINGE;
    j->axis[2] = 1;
    j->limited = 2;
    default_solref_solimp(j->solref, j->solimp);
    default_solref_solimp(j->solref_friction, j->solimp_friction);
    j->name = "";
}

void gdn_spec_geom_init(gdnSpecGeom* g) {
    memset(g, 0, sizeof(*g));
    g->type = GDN_GEOM_SPHERE;
    g->contype = 1;
    g->conaffinity = 1;
    g->condim = 3;
    g->friction[0] = 1;
    g->friction[1] = 0.005;
    g->friction[2] = 0.0001;
    g->solmix = 1.0;
    default_solref_solimp(g->solref, g->solimp);
    g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.5;
    g->rgba[3] = 1;
    g->mass_attr = NAN;
    g->density = 1000;
    g->fromto[0] = NAN;
    g->quat[0] = 1;
    gdn_alt_clear(&g->alt);
    g->mesh = "";
    g->meshid = -1;
    g->fitscale = 1;
    // MuJoCo 2.2.2's ellipsoid fluid coefficients: blunt, slender and angular drag, Kutta and
    // Magnus lift
    const double fluidcoef[5] = {0.5, 0.25, 1.5, 1.0, 1.0};
    memcpy(g->fluidcoef, fluidcoef, sizeof(fluidcoef));
    g->hfield = "";
    g->name = "";
}

void gdn_spec_site_init(gdnSpecSite* s) {
    memset(s, 0, sizeof(*s));
    s->type = GDN_GEOM_SPHERE;
    s->size[0] = s->size[1] = s->size[2] = 0.005;
    s->quat[0] = 1;
    s->fromto[0] = NAN;
    gdn_alt_clear(&s->alt);
    s->name = "";
}

void gdn_spec_actuator_init(gdnSpecActuator* a) {
    memset(a, 0, sizeof(*a));
    a->ctrllimited = a->forcelimited = a->actlimited = 2;
    a->trntype = GDN_MJ_TRN_UNDEFINED;
    a->gear[0] = 1;
    a->dynprm[0] = 1;
    a->gainprm[0] = 1;
    a->target = "";
    a->trnattr = "";
    a->slidersite = "";
    a->refsite = "";
    a->name = "";
}

int gdn_is_actuator_element(const char* name) {
    static const char* const names[] = {"general", "motor",    "position", "velocity",
                                        "intvelocity", "damper", "cylinder", "muscle",
                                        "adhesion", NULL};
    for (int i = 0; names[i]; i++) {
        if (!strcmp(name, names[i])) {
            return 1;
        }
    }
    return 0;
}

int gdn_read_alt(gdnSpec* spec, gdnXmlElem* e, gdnSpecAlt* alt, int allow_fullinertia) {
    gdnDiag* d = spec->diag;
    int count = 0, r;
    // "quat" is read by the caller; it only counts here
    for (int i = 0; i < e->nattr; i++) {
        count += !strcmp(e->attr[i].name, "quat");
    }
    GDN_TRY(r = gdn_attr_doubles(d, e, "axisangle", 4, alt->axisangle, 1));
    count += r > 0;
    GDN_TRY(r = gdn_attr_doubles(d, e, "xyaxes", 6, alt->xyaxes, 1));
    count += r > 0;
    GDN_TRY(r = gdn_attr_doubles(d, e, "zaxis", 3, alt->zaxis, 1));
    count += r > 0;
    GDN_TRY(r = gdn_attr_doubles(d, e, "euler", 3, alt->euler, 1));
    count += r > 0;
    if (allow_fullinertia) {
        GDN_TRY(r = gdn_attr_doubles(d, e, "fullinertia", 6, alt->fullinertia, 1));
        count += r > 0;
    }
    if (count > 1) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "multiple orientation specifiers for the same field are not allowed");
    }
    return 0;
}

static const char* const joint_keys[] = {"free", "ball", "slide", "hinge"};
static const int joint_values[] = {GDN_JNT_FREE, GDN_JNT_BALL, GDN_JNT_SLIDE, GDN_JNT_HINGE};
static const char* const geom_keys[] = {"plane",    "hfield", "sphere", "capsule",
                                        "ellipsoid", "cylinder", "box", "mesh"};
static const int geom_values[] = {GDN_GEOM_PLANE,     GDN_GEOM_HFIELD,   GDN_GEOM_SPHERE,
                                  GDN_GEOM_CAPSULE,   GDN_GEOM_ELLIPSOID, GDN_GEOM_CYLINDER,
                                  GDN_GEOM_BOX,       GDN_GEOM_MESH};

int gdn_read_joint(gdnSpec* spec, gdnXmlElem* e, gdnSpecJoint* j, int in_default) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"class", "group", "user", NULL};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        const char* name = gdn_xml_attr(e, "name");
        j->name = name ? name : "";
    }
    GDN_TRY(gdn_attr_keyword(d, e, "type", joint_keys, joint_values, 4, &j->type));
    GDN_TRY(gdn_attr_tfauto(d, e, "limited", &j->limited));
    GDN_TRY(gdn_attr_doubles(d, e, "solreflimit", GDN_NREF, j->solref, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimplimit", GDN_NIMP, j->solimp, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solreffriction", GDN_NREF, j->solref_friction, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimpfriction", GDN_NIMP, j->solimp_friction, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "pos", 3, j->pos, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "axis", 3, j->axis, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "springdamper", 2, j->springdamper, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "stiffness", 1, &j->stiffness, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "range", 2, j->range, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "margin", 1, &j->margin, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "ref", 1, &j->ref, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "springref", 1, &j->springref, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "armature", 1, &j->armature, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "damping", 1, &j->damping, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "frictionloss", 1, &j->frictionloss, 1));
    j->elem = e;
    return 0;
}

int gdn_read_geom(gdnSpec* spec, gdnXmlElem* e, gdnSpecGeom* g, int in_default) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"class", "material", "user", NULL};
    static const char* const fluid_keys[] = {"none", "ellipsoid"};
    static const int fluid_values[] = {0, 1};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        const char* name = gdn_xml_attr(e, "name");
        g->name = name ? name : "";
    }
    GDN_TRY(gdn_attr_keyword(d, e, "type", geom_keys, geom_values, 8, &g->type));
    GDN_TRY(gdn_attr_doubles(d, e, "size", 3, g->size, 0));
    GDN_TRY(gdn_attr_int(d, e, "contype", &g->contype));
    GDN_TRY(gdn_attr_int(d, e, "conaffinity", &g->conaffinity));
    GDN_TRY(gdn_attr_int(d, e, "condim", &g->condim));
    GDN_TRY(gdn_attr_int(d, e, "priority", &g->priority));
    GDN_TRY(gdn_attr_int(d, e, "group", &g->group));
    GDN_TRY(gdn_attr_doubles(d, e, "friction", 3, g->friction, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solmix", 1, &g->solmix, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "solref", GDN_NREF, g->solref, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimp", GDN_NIMP, g->solimp, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "margin", 1, &g->margin, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "gap", 1, &g->gap, 1));
    const char* s;
    if ((s = gdn_xml_attr(e, "hfield"))) {
        g->hfield = s;
    }
    if ((s = gdn_xml_attr(e, "mesh"))) {
        g->mesh = s;
    }
    GDN_TRY(gdn_attr_doubles(d, e, "fitscale", 1, &g->fitscale, 1));
    GDN_TRY(gdn_attr_bool(d, e, "shellinertia", &g->shellinertia));
    GDN_TRY(gdn_attr_doubles(d, e, "rgba", 4, g->rgba, 1));
    GDN_TRY(gdn_attr_keyword(d, e, "fluidshape", fluid_keys, fluid_values, 2, &g->fluid));
    GDN_TRY(gdn_attr_doubles(d, e, "fluidcoef", 5, g->fluidcoef, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "mass", 1, &g->mass_attr, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "density", 1, &g->density, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "fromto", 6, g->fromto, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "pos", 3, g->pos, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "quat", 4, g->quat, 1));
    GDN_TRY(gdn_read_alt(spec, e, &g->alt, 0));
    g->elem = e;
    return 0;
}

int gdn_read_site(gdnSpec* spec, gdnXmlElem* e, gdnSpecSite* s, int in_default) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"class", "group", "material", "rgba", "user", NULL};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        const char* name = gdn_xml_attr(e, "name");
        s->name = name ? name : "";
    }
    GDN_TRY(gdn_attr_keyword(d, e, "type", geom_keys, geom_values, 8, &s->type));
    GDN_TRY(gdn_attr_doubles(d, e, "size", 3, s->size, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "pos", 3, s->pos, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "quat", 4, s->quat, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "fromto", 6, s->fromto, 1));
    GDN_TRY(gdn_read_alt(spec, e, &s->alt, 0));
    s->elem = e;
    return 0;
}

// transmission attributes: at most one names the target
static int read_transmission(gdnSpec* spec, gdnXmlElem* e, gdnSpecActuator* a) {
    static const char* const attrs[] = {"joint", "jointinparent", "tendon", "cranksite",
                                        "site", "body"};
    static const int types[] = {GDN_TRN_JOINT,          GDN_MJ_TRN_JOINTINPARENT,
                                GDN_TRN_TENDON,         GDN_MJ_TRN_SLIDERCRANK,
                                GDN_MJ_TRN_SITE,        GDN_MJ_TRN_BODY};
    int count = 0;
    for (int i = 0; i < 6; i++) {
        const char* s = gdn_xml_attr(e, attrs[i]);
        if (s) {
            a->target = s;
            a->trnattr = attrs[i];
            a->trntype = types[i];
            count++;
        }
    }
    if (count > 1) {
        return gdn_xml_error(spec->diag, GDN_ERR_MODEL, e,
                             "actuator can have at most one transmission target");
    }
    return 0;
}

// the slider-crank's cranklength and slidersite and the site transmission's refsite (a default
// class may carry them; an element whose transmission is another type refuses them, as MuJoCo)
static int read_transmission_params(gdnSpec* spec, gdnXmlElem* e, gdnSpecActuator* a) {
    gdnDiag* d = spec->diag;
    const int has_len = gdn_xml_attr(e, "cranklength") != NULL;
    GDN_TRY(gdn_attr_doubles(d, e, "cranklength", 1, &a->cranklength, 1));
    const char* slider = gdn_xml_attr(e, "slidersite");
    const char* ref = gdn_xml_attr(e, "refsite");
    if (slider) {
        a->slidersite = slider;
    }
    if (ref) {
        a->refsite = ref;
    }
    if ((has_len || slider) && a->trntype != GDN_MJ_TRN_SLIDERCRANK &&
        a->trntype != GDN_MJ_TRN_UNDEFINED) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "cranklength and slidersite can only be used in slidercrank "
                             "transmission");
    }
    if (ref && a->trntype != GDN_MJ_TRN_SITE && a->trntype != GDN_MJ_TRN_UNDEFINED) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "refsite can only be used with site transmission");
    }
    return 0;
}

int gdn_read_actuator(gdnSpec* spec, gdnXmlElem* e, gdnSpecActuator* a, int in_default) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"class", "group", "user", NULL};
    static const char* const dyn_keys[] = {"none", "integrator", "filter", "muscle", "user"};
    static const char* const gain_keys[] = {"fixed", "affine", "muscle", "user"};
    static const char* const bias_keys[] = {"none", "affine", "muscle", "user"};
    static const int codes[] = {0, 1, 2, 3, 4};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        const char* name = gdn_xml_attr(e, "name");
        a->name = name ? name : "";
    }
    GDN_TRY(gdn_attr_tfauto(d, e, "ctrllimited", &a->ctrllimited));
    GDN_TRY(gdn_attr_tfauto(d, e, "forcelimited", &a->forcelimited));
    GDN_TRY(gdn_attr_tfauto(d, e, "actlimited", &a->actlimited));
    GDN_TRY(gdn_attr_doubles(d, e, "ctrlrange", 2, a->ctrlrange, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "forcerange", 2, a->forcerange, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "actrange", 2, a->actrange, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "lengthrange", 2, a->lengthrange, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "gear", 6, a->gear, 0));
    if (!in_default) {
        GDN_TRY(read_transmission(spec, e, a));
    }
    GDN_TRY(read_transmission_params(spec, e, a));

    const char* type = e->name;
    if (!strcmp(type, "general")) {
        GDN_TRY(gdn_attr_keyword(d, e, "dyntype", dyn_keys, codes, 5, &a->dyntype));
        GDN_TRY(gdn_attr_keyword(d, e, "gaintype", gain_keys, codes, 4, &a->gaintype));
        GDN_TRY(gdn_attr_keyword(d, e, "biastype", bias_keys, codes, 4, &a->biastype));
        GDN_TRY(gdn_attr_doubles(d, e, "dynprm", GDN_MJ_NDYN, a->dynprm, 0));
        GDN_TRY(gdn_attr_doubles(d, e, "gainprm", GDN_NGAIN, a->gainprm, 0));
        GDN_TRY(gdn_attr_doubles(d, e, "biasprm", GDN_NBIAS, a->biasprm, 0));
    } else if (!strcmp(type, "motor")) {
        // force = gear * ctrl
        a->gainprm[0] = 1;
        a->dyntype = GDN_DYN_NONE;
        a->gaintype = GDN_GAIN_FIXED;
        a->biastype = GDN_BIAS_NONE;
    } else if (!strcmp(type, "position") || !strcmp(type, "velocity")) {
        // force = kp ctrl - kp q (position), kv ctrl - kv qdot (velocity)
        const int velocity = !strcmp(type, "velocity");
        memset(a->biasprm, 0, sizeof(a->biasprm));
        GDN_TRY(gdn_attr_doubles(d, e, velocity ? "kv" : "kp", 1, a->gainprm, 1));
        a->biasprm[velocity ? 2 : 1] = -a->gainprm[0];
        a->dyntype = GDN_DYN_NONE;
        a->gaintype = GDN_GAIN_FIXED;
        a->biastype = GDN_BIAS_AFFINE;
    } else if (!strcmp(type, "damper")) {
        // force = -kv qdot ctrl, ctrl >= 0
        memset(a->gainprm, 0, sizeof(a->gainprm));
        GDN_TRY(gdn_attr_doubles(d, e, "kv", 1, a->gainprm + 2, 1));
        if (a->gainprm[2] < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "damping coefficient cannot be negative");
        }
        a->gainprm[2] = -a->gainprm[2];
        if (!gdn_xml_attr(e, "ctrlrange")) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "required attribute missing: 'ctrlrange'");
        }
        if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "damper control range cannot be negative");
        }
        a->ctrllimited = 1;
        a->dyntype = GDN_DYN_NONE;
        a->gaintype = GDN_GAIN_AFFINE;
        a->biastype = GDN_BIAS_NONE;
    } else if (!strcmp(type, "intvelocity")) {
        // act_dot = ctrl, force = kp act - kp q: a position servo on the integrated velocity
        memset(a->biasprm, 0, sizeof(a->biasprm));
        GDN_TRY(gdn_attr_doubles(d, e, "kp", 1, a->gainprm, 1));
        a->biasprm[1] = -a->gainprm[0];
        a->dyntype = GDN_DYN_INTEGRATOR;
        a->gaintype = GDN_GAIN_FIXED;
        a->biastype = GDN_BIAS_AFFINE;
        a->actlimited = 1;
    } else if (!strcmp(type, "cylinder")) {
        // act_dot = (ctrl - act) / timeconst, force = area act + bias0 + bias1 q + bias2 qdot
        double diameter;
        GDN_TRY(gdn_attr_doubles(d, e, "timeconst", 1, a->dynprm, 0));
        GDN_TRY(gdn_attr_doubles(d, e, "bias", 3, a->biasprm, 1));
        GDN_TRY(gdn_attr_doubles(d, e, "area", 1, a->gainprm, 1));
        if (gdn_xml_attr(e, "diameter")) {
            GDN_TRY(gdn_attr_doubles(d, e, "diameter", 1, &diameter, 1));
            a->gainprm[0] = GDN_MJ_PI / 4 * diameter * diameter;
        }
        a->dyntype = GDN_DYN_FILTER;
        a->gaintype = GDN_GAIN_FIXED;
        a->biastype = GDN_BIAS_AFFINE;
    } else if (!strcmp(type, "muscle")) {
        // MuJoCo's muscle defaults where the class left the global defaults, then the
        // attributes; biasprm = gainprm (range, force, scale, lmin, lmax, vmax, fpmax, fvmax)
        static const struct {
            double* field;
            double global, muscle;
        } defaults[] = {{NULL, 1, 0.01}, {NULL, 0, 0.04}, {NULL, 1, 0.75}, {NULL, 0, 1.05},
                        {NULL, 0, -1},   {NULL, 0, 200},  {NULL, 0, 0.5},  {NULL, 0, 1.6},
                        {NULL, 0, 1.5},  {NULL, 0, 1.3},  {NULL, 0, 1.2}};
        double* slot[11] = {a->dynprm,      a->dynprm + 1,  a->gainprm,     a->gainprm + 1,
                            a->gainprm + 2, a->gainprm + 3, a->gainprm + 4, a->gainprm + 5,
                            a->gainprm + 6, a->gainprm + 7, a->gainprm + 8};
        for (int k = 0; k < 11; k++) {
            if (*slot[k] == defaults[k].global) {
                *slot[k] = defaults[k].muscle;
            }
        }
        static const struct {
            const char* name;
            int n, at; // count, gainprm index (-1: dynprm)
        } attrs[] = {{"timeconst", 2, -1}, {"range", 2, 0}, {"force", 1, 2}, {"scale", 1, 3},
                     {"lmin", 1, 4},       {"lmax", 1, 5},  {"vmax", 1, 6},  {"fpmax", 1, 7},
                     {"fvmax", 1, 8}};
        for (size_t k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++) {
            double* dst = attrs[k].at < 0 ? a->dynprm : a->gainprm + attrs[k].at;
            GDN_TRY(gdn_attr_doubles(d, e, attrs[k].name, attrs[k].n, dst, 1));
        }
        memcpy(a->biasprm, a->gainprm, 9 * sizeof(double));
        a->dyntype = GDN_DYN_MUSCLE;
        a->gaintype = GDN_GAIN_MUSCLE;
        a->biastype = GDN_BIAS_MUSCLE;
    } else {
        // adhesion: force = gain ctrl (ctrl in a nonnegative range) on a body transmission
        memset(a->gainprm, 0, sizeof(a->gainprm));
        memset(a->biasprm, 0, sizeof(a->biasprm));
        a->gainprm[0] = 1;
        GDN_TRY(gdn_attr_doubles(d, e, "gain", 1, a->gainprm, 1));
        if (a->gainprm[0] < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "adhesion gain cannot be negative");
        }
        if (!gdn_xml_attr(e, "ctrlrange")) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e, "required attribute missing: 'ctrlrange'");
        }
        if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "adhesion control range cannot be negative");
        }
        a->ctrllimited = 1;
        a->dyntype = GDN_DYN_NONE;
        a->gaintype = GDN_GAIN_FIXED;
        a->biastype = GDN_BIAS_NONE;
    }
    a->elem = e;
    return 0;
}
