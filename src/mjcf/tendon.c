// SPDX-License-Identifier: Apache-2.0
// MJCF <tendon>: fixed tendons and spatial tendons through sites and pulleys (MuJoCo 2.2.2's
// mjCTendon / mjCWrap), read, compiled, copied.
#include "mjcf/tendon.h"

#include <string.h>

#include "mjcf/defaults.h"

void gdn_spec_tendon_init(gdnSpecTendon* t) {
    memset(t, 0, sizeof(*t));
    t->limited = 2;
    t->width = 0.003;
    t->solref_lim[0] = t->solref_fri[0] = 0.02;
    t->solref_lim[1] = t->solref_fri[1] = 1;
    const double solimp[GDN_NIMP] = {0.9, 0.95, 0.001, 0.5, 2};
    memcpy(t->solimp_lim, solimp, sizeof(solimp));
    memcpy(t->solimp_fri, solimp, sizeof(solimp));
    t->springlength = -1;
    t->name = "";
    t->wrapadr = 0;
    t->nwrap = 0;
}

int gdn_read_tendon(gdnSpec* spec, gdnXmlElem* e, gdnSpecTendon* t, int in_default) {
    gdnDiag* d = spec->diag;
    // visual attributes
    static const char* const ignored[] = {"class", "group", "material", "rgba", "user", NULL};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        const char* name = gdn_xml_attr(e, "name");
        t->name = name ? name : "";
    }
    GDN_TRY(gdn_attr_tfauto(d, e, "limited", &t->limited));
    GDN_TRY(gdn_attr_doubles(d, e, "width", 1, &t->width, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "range", 2, t->range, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "solreflimit", GDN_NREF, t->solref_lim, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimplimit", GDN_NIMP, t->solimp_lim, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solreffriction", GDN_NREF, t->solref_fri, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimpfriction", GDN_NIMP, t->solimp_fri, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "margin", 1, &t->margin, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "stiffness", 1, &t->stiffness, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "damping", 1, &t->damping, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "frictionloss", 1, &t->frictionloss, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "springlength", 1, &t->springlength, 1));
    t->elem = e;
    return 0;
}

// one <joint joint coef> of a fixed tendon (both attributes required)
static int read_joint_wrap(gdnSpec* spec, gdnXmlElem* e, gdnSpecWrap* w) {
    gdnDiag* d = spec->diag;
    memset(w, 0, sizeof(*w));
    w->type = GDN_WRAP_JOINT;
    w->elem = e;
    w->objid = -1;
    w->name = gdn_xml_attr(e, "joint");
    if (!w->name) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'joint'");
    }
    int n;
    GDN_TRY(n = gdn_attr_doubles(d, e, "coef", 1, &w->prm, 1));
    if (n == 0) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'coef'");
    }
    gdn_attr_warn_unused(d, e);
    return 0;
}

// one <site site>, <geom geom sidesite> or <pulley divisor> of a spatial tendon
static int read_spatial_wrap(gdnSpec* spec, gdnXmlElem* e, gdnSpecWrap* w) {
    gdnDiag* d = spec->diag;
    memset(w, 0, sizeof(*w));
    w->elem = e;
    w->objid = -1;
    w->name = "";
    w->side = "";
    if (!strcmp(e->name, "geom")) {
        // the wrap type (sphere or cylinder) follows the geom's, at compile time
        w->type = GDN_WRAP_SPHERE;
        w->name = gdn_xml_attr(e, "geom");
        if (!w->name) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'geom'");
        }
        const char* side = gdn_xml_attr(e, "sidesite");
        w->side = side ? side : "";
    } else if (!strcmp(e->name, "site")) {
        w->type = GDN_WRAP_SITE;
        w->name = gdn_xml_attr(e, "site");
        if (!w->name) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'site'");
        }
    } else if (!strcmp(e->name, "pulley")) {
        w->type = GDN_WRAP_PULLEY;
        int n;
        GDN_TRY(n = gdn_attr_doubles(d, e, "divisor", 1, &w->prm, 1));
        if (n == 0) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'divisor'");
        }
    } else {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in spatial tendon");
    }
    gdn_attr_warn_unused(d, e);
    return 0;
}

int gdn_mjcf_read_tendons(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    gdn_attr_warn_unused(d, section);
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        const int fixed = !strcmp(e->name, "fixed");
        if (!fixed && strcmp(e->name, "spatial")) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in tendon");
        }
        int def;
        GDN_TRY(def = gdn_defaults_class_of(spec, e, 0));
        if (!gdn_pool_reserve(spec->pool, (void**)&spec->tendons, &spec->captendon,
                              spec->ntendon + 1, sizeof(gdnSpecTendon))) {
            return gdn_xml_error(d, GDN_ERR_MEMORY, e, "out of memory");
        }
        gdnSpecTendon* t = &spec->tendons[spec->ntendon++];
        *t = spec->defs[def].tendon;
        t->name = "";
        GDN_TRY(gdn_read_tendon(spec, e, t, 0));
        gdn_attr_warn_unused(d, e);
        t->wrapadr = spec->nwrap;
        t->nwrap = 0;
        for (gdnXmlElem* c = e->first; c; c = c->next) {
            if (fixed && strcmp(c->name, "joint")) {
                return gdn_xml_error(d, GDN_ERR_PARSE, c, "unrecognized element in fixed tendon");
            }
            if (!gdn_pool_reserve(spec->pool, (void**)&spec->wraps, &spec->capwrap,
                                  spec->nwrap + 1, sizeof(gdnSpecWrap))) {
                return gdn_xml_error(d, GDN_ERR_MEMORY, c, "out of memory");
            }
            gdnSpecWrap* w = &spec->wraps[spec->nwrap];
            GDN_TRY(fixed ? read_joint_wrap(spec, c, w) : read_spatial_wrap(spec, c, w));
            spec->nwrap++;
            t->nwrap++;
        }
    }
    return 0;
}

// a spatial path's objects: sites (names to ids) and pulleys, in MuJoCo 2.2.2's order of checks
static int compile_spatial(gdnSpec* spec, gdnSpecTendon* t, const gdnNameIndex* sites,
                           const int* site_id_of_spec, const gdnNameIndex* geoms,
                           const int* geom_id_of_spec) {
    gdnDiag* d = spec->diag;
    if (t->nwrap < 2) {
        return gdn_xml_error(d, GDN_ERR_MODEL, t->elem,
                             "spatial tendon path must contain at least two objects");
    }
    if (t->width <= 0) {
        return gdn_xml_error(d, GDN_ERR_MODEL, t->elem, "tendon must have positive width");
    }
    for (int k = t->wrapadr; k < t->wrapadr + t->nwrap; k++) {
        gdnSpecWrap* w = &spec->wraps[k];
        if (w->type == GDN_WRAP_SITE) {
            const int ss = gdn_name_find(sites, w->name);
            if (ss < 0) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "site '%.64s' not found in tendon",
                                     w->name);
            }
            w->objid = site_id_of_spec[ss];
        } else if (w->type == GDN_WRAP_SPHERE) {
            const int sg = gdn_name_find(geoms, w->name);
            if (sg < 0) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "geom '%.64s' not found in tendon",
                                     w->name);
            }
            const int type = spec->geoms[sg].type;
            if (type != GDN_GEOM_SPHERE && type != GDN_GEOM_CYLINDER) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem,
                                     "geom '%.64s' in tendon is not sphere or cylinder", w->name);
            }
            w->type = type == GDN_GEOM_CYLINDER ? GDN_WRAP_CYLINDER : GDN_WRAP_SPHERE;
            w->objid = geom_id_of_spec[sg];
            w->prm = -1;
            if (w->side[0]) {
                const int ss = gdn_name_find(sites, w->side);
                if (ss < 0) {
                    return gdn_xml_error(d, GDN_ERR_MODEL, w->elem,
                                         "side site '%.64s' not found in tendon", w->side);
                }
                w->prm = site_id_of_spec[ss];
            }
        } else if (w->prm <= 0) {
            // MuJoCo refuses a negative divisor; a zero one would divide by zero
            return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "pulley divisor must be positive");
        }
    }
    const int first = t->wrapadr, last = t->wrapadr + t->nwrap - 1;
    for (int k = first; k <= last; k++) {
        const gdnSpecWrap* w = &spec->wraps[k];
        const int prev_pulley = k == first || spec->wraps[k - 1].type == GDN_WRAP_PULLEY;
        const int next_pulley = k == last || spec->wraps[k + 1].type == GDN_WRAP_PULLEY;
        if (w->type == GDN_WRAP_SPHERE || w->type == GDN_WRAP_CYLINDER) {
            if (k == first || k == last || spec->wraps[k - 1].type != GDN_WRAP_SITE ||
                spec->wraps[k + 1].type != GDN_WRAP_SITE) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem,
                                     "tendon geom not bracketed by sites");
            }
        } else if (w->type == GDN_WRAP_PULLEY) {
            if (k > first && spec->wraps[k - 1].type == GDN_WRAP_PULLEY) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "consecutive pulleys in tendon");
            }
            if (k == last) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "tendon path ends with pulley");
            }
        } else {
            if (prev_pulley && next_pulley) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem,
                                     "tendon site needs a neighbor that is not a pulley");
            }
            if (k < last && spec->wraps[k + 1].type == GDN_WRAP_SITE &&
                spec->wraps[k + 1].objid == w->objid) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem, "tendon site is repeated");
            }
        }
    }
    return 0;
}

int gdn_mjcf_compile_tendons(gdnSpec* spec, const gdnNameIndex* joints,
                             const int* jnt_id_of_spec, const gdnNameIndex* sites,
                             const int* site_id_of_spec, const gdnNameIndex* geoms,
                             const int* geom_id_of_spec) {
    gdnDiag* d = spec->diag;
    for (int i = 0; i < spec->ntendon; i++) {
        gdnSpecTendon* t = &spec->tendons[i];
        if (t->nwrap == 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, t->elem, "tendon path cannot be empty");
        }
        if (spec->wraps[t->wrapadr].type != GDN_WRAP_JOINT) {
            GDN_TRY(compile_spatial(spec, t, sites, site_id_of_spec, geoms, geom_id_of_spec));
        }
        for (int k = t->wrapadr; spec->wraps[t->wrapadr].type == GDN_WRAP_JOINT &&
                                 k < t->wrapadr + t->nwrap;
             k++) {
            gdnSpecWrap* w = &spec->wraps[k];
            const int sj = gdn_name_find(joints, w->name);
            if (sj < 0) {
                return gdn_xml_error(d, GDN_ERR_MODEL, w->elem,
                                     "joint '%.64s' not found in tendon", w->name);
            }
            const int type = spec->joints[sj].type;
            if (type != GDN_JNT_HINGE && type != GDN_JNT_SLIDE) {
                return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, w->elem,
                                     "fixed tendon on a ball or free joint is not supported "
                                     "(hinge and slide joints only)");
            }
            w->objid = jnt_id_of_spec[sj];
            for (int p = t->wrapadr; p < k; p++) {
                if (spec->wraps[p].objid == w->objid) {
                    return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, w->elem,
                                         "joint '%.64s' repeated in a fixed tendon is not "
                                         "supported",
                                         w->name);
                }
            }
        }
        // limited auto: limited when a range is given (autolimits), else an error as MuJoCo's
        if (t->limited == 2) {
            const int hasrange = !(t->range[0] == 0 && t->range[1] == 0);
            if (!spec->compiler.autolimits && hasrange) {
                return gdn_xml_error(d, GDN_ERR_MODEL, t->elem,
                                     "tendon has `range` but not `limited`. set the "
                                     "autolimits=\"true\" compiler option, specify `limited` "
                                     "explicitly (\"true\" or \"false\"), or remove the "
                                     "`range` attribute.");
            }
            t->limited = hasrange;
        }
        if (t->limited && t->range[0] >= t->range[1]) {
            return gdn_xml_error(d, GDN_ERR_MODEL, t->elem, "invalid limits in tendon");
        }
    }
    return 0;
}

void gdn_mjcf_fill_tendons(const gdnSpec* spec, gdnModel* m) {
    for (int i = 0; i < spec->ntendon; i++) {
        const gdnSpecTendon* t = &spec->tendons[i];
        m->tendon_adr[i] = t->wrapadr;
        m->tendon_num[i] = t->nwrap;
        m->tendon_limited[i] = t->limited;
        memcpy(m->tendon_range + 2 * i, t->range, sizeof(t->range));
        memcpy(m->tendon_solref_lim + GDN_NREF * i, t->solref_lim, sizeof(t->solref_lim));
        memcpy(m->tendon_solimp_lim + GDN_NIMP * i, t->solimp_lim, sizeof(t->solimp_lim));
        memcpy(m->tendon_solref_fri + GDN_NREF * i, t->solref_fri, sizeof(t->solref_fri));
        memcpy(m->tendon_solimp_fri + GDN_NIMP * i, t->solimp_fri, sizeof(t->solimp_fri));
        m->tendon_margin[i] = t->margin;
        m->tendon_stiffness[i] = t->stiffness;
        m->tendon_damping[i] = t->damping;
        m->tendon_frictionloss[i] = t->frictionloss;
        m->tendon_lengthspring[i] = t->springlength;
        m->tendon_length0[i] = 0;
        m->tendon_invweight0[i] = 0;
    }
    for (int k = 0; k < spec->nwrap; k++) {
        m->wrap_type[k] = spec->wraps[k].type;
        m->wrap_objid[k] = spec->wraps[k].objid;
        m->wrap_prm[k] = spec->wraps[k].prm;
    }
}
