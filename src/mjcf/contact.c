// SPDX-License-Identifier: Apache-2.0
// MJCF <contact> pairs and excludes: reading, name resolution, signatures, sorting, model arrays.
#include "mjcf/contact.h"

#include <stddef.h>
#include <string.h>

#include "mjcf/defaults.h"
#include "mjcf/sort_std.h"

void gdn_spec_pair_init(gdnSpecPair* p) {
    memset(p, 0, sizeof(*p));
    p->geom1 = "";
    p->geom2 = "";
    p->condim = 3;
    const double friction[5] = {1, 1, 0.005, 0.0001, 0.0001};
    memcpy(p->friction, friction, sizeof(friction));
    p->solref[0] = 0.02;
    p->solref[1] = 1;
    const double solimp[GDN_NIMP] = {0.9, 0.95, 0.001, 0.5, 2};
    memcpy(p->solimp, solimp, sizeof(solimp));
    p->geom1_id = p->geom2_id = p->signature = -1;
}

// a required name attribute; NULL after recording an error
static const char* required_name(gdnSpec* spec, gdnXmlElem* e, const char* attr) {
    const char* s = gdn_xml_attr(e, attr);
    if (!s) {
        gdn_xml_error(spec->diag, GDN_ERR_PARSE, e, "required attribute missing: '%s'", attr);
    }
    return s;
}

// friction, solref and solimp may give fewer values than their size: the rest keep their
// default (MuJoCo 2.2.2 does not repeat friction[0] into friction[1])
int gdn_read_pair(gdnSpec* spec, gdnXmlElem* e, gdnSpecPair* p, int in_default) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"name", NULL};
    gdn_attr_ignore(e, ignored);
    if (!in_default) {
        gdn_xml_attr(e, "class"); // resolved by the caller
        GDN_TRY((p->geom1 = required_name(spec, e, "geom1")) ? 0 : -1);
        GDN_TRY((p->geom2 = required_name(spec, e, "geom2")) ? 0 : -1);
    }
    GDN_TRY(gdn_attr_int(d, e, "condim", &p->condim));
    GDN_TRY(gdn_attr_doubles(d, e, "friction", 5, p->friction, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solref", GDN_NREF, p->solref, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimp", GDN_NIMP, p->solimp, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "margin", 1, &p->margin, 1));
    GDN_TRY(gdn_attr_doubles(d, e, "gap", 1, &p->gap, 1));
    p->elem = e;
    return 0;
}

static int read_exclude(gdnSpec* spec, gdnXmlElem* e, gdnSpecExclude* x) {
    static const char* const ignored[] = {"name", NULL};
    gdn_attr_ignore(e, ignored);
    memset(x, 0, sizeof(*x));
    x->elem = e;
    GDN_TRY((x->body1 = required_name(spec, e, "body1")) ? 0 : -1);
    GDN_TRY((x->body2 = required_name(spec, e, "body2")) ? 0 : -1);
    x->signature = -1;
    return 0;
}

int gdn_mjcf_read_contact(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    gdn_attr_warn_unused(d, section);
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        int is_pair = !strcmp(e->name, "pair");
        if (!is_pair && strcmp(e->name, "exclude")) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in contact");
        }
        if (is_pair) {
            int def;
            GDN_TRY(def = gdn_defaults_class_of(spec, e, 0));
            if (!gdn_pool_reserve(spec->pool, (void**)&spec->pairs, &spec->cappair,
                                  spec->npair + 1, sizeof(gdnSpecPair))) {
                return gdn_xml_error(d, GDN_ERR_MEMORY, e, "out of memory");
            }
            gdnSpecPair* p = &spec->pairs[spec->npair++];
            *p = spec->defs[def].pair;
            GDN_TRY(gdn_read_pair(spec, e, p, 0));
        } else {
            if (!gdn_pool_reserve(spec->pool, (void**)&spec->excludes, &spec->capexclude,
                                  spec->nexclude + 1, sizeof(gdnSpecExclude))) {
                return gdn_xml_error(d, GDN_ERR_MEMORY, e, "out of memory");
            }
            GDN_TRY(read_exclude(spec, e, &spec->excludes[spec->nexclude++]));
        }
        gdn_attr_warn_unused(d, e);
    }
    return 0;
}

// ---------------------------------------------------------------- compile

// signature of a body pair, lower id first: ((b1 + 1) << 16) + b2 + 1
static int body_signature(int b1, int b2) {
    return ((b1 + 1) << 16) + b2 + 1;
}

// reorder n items of size bytes at arr by increasing signature, in the order MuJoCo's compiler
// (std::sort of libstdc++) leaves them; 0 ok, -1 out of memory
static int sort_by_signature(gdnSpec* spec, void* arr, int n, size_t size, size_t sig_offset) {
    gdnSortItem* keys = gdn_pool_alloc(spec->pool, (size_t)(n + 1) * sizeof(gdnSortItem));
    char* copy = gdn_pool_alloc(spec->pool, (size_t)(n + 1) * size);
    if (!keys || !copy) {
        return -1;
    }
    char* items = arr;
    if (n == 0) {
        return 0; // nothing to sort (and arr may be NULL)
    }
    for (int i = 0; i < n; i++) {
        memcpy(&keys[i].key, items + (size_t)i * size + sig_offset, sizeof(int));
        keys[i].index = i;
    }
    gdn_sort_std(keys, n);
    memcpy(copy, items, (size_t)n * size);
    for (int i = 0; i < n; i++) {
        memcpy(items + (size_t)i * size, copy + (size_t)keys[i].index * size, size);
    }
    return 0;
}

static int fail_at(gdnSpec* spec, gdnXmlElem* e, const char* what, const char* name) {
    return gdn_xml_error(spec->diag, GDN_ERR_MODEL, e, "unknown %s '%.64s'", what, name);
}

int gdn_mjcf_compile_contact(gdnSpec* spec, const int* geom_order, const gdnNameIndex* geoms,
                             const gdnNameIndex* bodies) {
    gdnDiag* d = spec->diag;
    if (!spec->npair && !spec->nexclude) {
        return 0;
    }
    // geom id of each spec geom
    int* geom_id = gdn_pool_alloc(spec->pool, (size_t)(spec->ngeom + 1) * sizeof(int));
    if (!geom_id) {
        return gdn_xml_error(d, GDN_ERR_MEMORY, NULL, "out of memory");
    }
    for (int i = 0; i < spec->ngeom; i++) {
        geom_id[geom_order[i]] = i;
    }

    // pairs: condim 1, 3, 4 or 6; geoms found; geom1 on the body with the lower id
    for (int i = 0; i < spec->npair; i++) {
        gdnSpecPair* p = &spec->pairs[i];
        gdnXmlElem* e = p->elem;
        if (p->condim != 1 && p->condim != 3 && p->condim != 4 && p->condim != 6) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "invalid condim %d in contact pair (1, 3, 4 or 6)", p->condim);
        }
        int s1 = gdn_name_find(geoms, p->geom1);
        if (s1 < 0) {
            return fail_at(spec, e, "geom1", p->geom1);
        }
        int s2 = gdn_name_find(geoms, p->geom2);
        if (s2 < 0) {
            return fail_at(spec, e, "geom2", p->geom2);
        }
        int b1 = spec->geoms[s1].body, b2 = spec->geoms[s2].body;
        if (b1 > b2) {
            int t = s1;
            s1 = s2;
            s2 = t;
            t = b1;
            b1 = b2;
            b2 = t;
        }
        p->geom1_id = geom_id[s1];
        p->geom2_id = geom_id[s2];
        p->signature = body_signature(b1, b2);
    }

    // excludes: bodies found (the world is "world"), lower id first
    for (int i = 0; i < spec->nexclude; i++) {
        gdnSpecExclude* x = &spec->excludes[i];
        int b1 = gdn_name_find(bodies, x->body1);
        if (b1 < 0) {
            return fail_at(spec, x->elem, "body1", x->body1);
        }
        int b2 = gdn_name_find(bodies, x->body2);
        if (b2 < 0) {
            return fail_at(spec, x->elem, "body2", x->body2);
        }
        x->signature = b1 <= b2 ? body_signature(b1, b2) : body_signature(b2, b1);
    }
    if (sort_by_signature(spec, spec->pairs, spec->npair, sizeof(gdnSpecPair),
                          offsetof(gdnSpecPair, signature)) < 0 ||
        sort_by_signature(spec, spec->excludes, spec->nexclude, sizeof(gdnSpecExclude),
                          offsetof(gdnSpecExclude, signature)) < 0) {
        return gdn_xml_error(d, GDN_ERR_MEMORY, NULL, "out of memory");
    }
    return 0;
}

void gdn_mjcf_fill_contact(const gdnSpec* spec, gdnModel* m) {
    for (int i = 0; i < spec->npair; i++) {
        const gdnSpecPair* p = &spec->pairs[i];
        m->pair_dim[i] = p->condim;
        m->pair_geom1[i] = p->geom1_id;
        m->pair_geom2[i] = p->geom2_id;
        m->pair_signature[i] = p->signature;
        memcpy(m->pair_solref + GDN_NREF * i, p->solref, sizeof(p->solref));
        memcpy(m->pair_solimp + GDN_NIMP * i, p->solimp, sizeof(p->solimp));
        m->pair_margin[i] = p->margin;
        m->pair_gap[i] = p->gap;
        memcpy(m->pair_friction + 5 * i, p->friction, sizeof(p->friction));
    }
    for (int i = 0; i < spec->nexclude; i++) {
        m->exclude_signature[i] = spec->excludes[i].signature;
    }
    // <size>: negative = automatic (gradyn's 0)
    m->nconmax = spec->size_nconmax > 0 ? spec->size_nconmax : 0;
    m->njmax = spec->size_njmax > 0 ? spec->size_njmax : 0;
}
