// SPDX-License-Identifier: Apache-2.0
// MJCF <equality> elements and <default><equality> (MuJoCo 2.2.2's OneEquality).
#include "mjcf/equality.h"

#include <string.h>

#include "constraint/constraint.h"
#include "mjcf/attr.h"
#include "mjcf/defaults.h"

void gdn_spec_equality_init(gdnSpecEquality* q) {
    static const double solimp[GDN_NIMP] = {0.9, 0.95, 0.001, 0.5, 2};
    memset(q, 0, sizeof(*q));
    q->type = GDN_EQ_CONNECT;
    q->name1 = q->name2 = "";
    q->active = 1;
    q->data[1] = 1;
    q->data[10] = 1;
    q->solref[0] = 0.02;
    q->solref[1] = 1;
    memcpy(q->solimp, solimp, sizeof(solimp));
}

// the attributes a default class may set too: active, solref, solimp
static int read_common(gdnSpec* spec, gdnXmlElem* e, gdnSpecEquality* q) {
    gdnDiag* d = spec->diag;
    GDN_TRY(gdn_attr_bool(d, e, "active", &q->active));
    GDN_TRY(gdn_attr_doubles(d, e, "solref", GDN_NREF, q->solref, 0));
    GDN_TRY(gdn_attr_doubles(d, e, "solimp", GDN_NIMP, q->solimp, 0));
    return 0;
}

int gdn_read_equality_default(gdnSpec* spec, gdnXmlElem* e, gdnSpecEquality* q) {
    return read_common(spec, e, q);
}

// <connect body1 body2 anchor>, <weld body1 body2 relpose anchor torquescale>, <joint joint1
// joint2 polycoef> and <tendon tendon1 tendon2 polycoef>, each with active, solref, solimp
// (body2 absent = the world; connect's anchor is in body1's frame, weld's in body2's; joint2 /
// tendon2 absent: x1 held at its reference plus polycoef[0])
static int read_one(gdnSpec* spec, gdnXmlElem* e, int type, gdnSpecEquality* q) {
    gdnDiag* d = spec->diag;
    static const char* const ignored[] = {"name", "class", NULL};
    gdn_attr_ignore(e, ignored);
    q->type = type;
    q->elem = e;
    // the two objects' attributes: body1 / body2, joint1 / joint2, tendon1 / tendon2
    static const char* const attr1[] = {"body1", "body1", "joint1", "tendon1"};
    static const char* const attr2[] = {"body2", "body2", "joint2", "tendon2"};
    const char* n1 = gdn_xml_attr(e, attr1[type]);
    const char* n2 = gdn_xml_attr(e, attr2[type]);
    if (!n1) {
        return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: '%s'",
                             attr1[type]);
    }
    q->name1 = n1;
    q->name2 = n2 ? n2 : "";
    if (type == GDN_EQ_CONNECT) {
        int n;
        GDN_TRY(n = gdn_attr_doubles(d, e, "anchor", 3, q->data, 1));
        if (n == 0) {
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "required attribute missing: 'anchor'");
        }
    } else if (type == GDN_EQ_WELD) {
        GDN_TRY(gdn_attr_doubles(d, e, "relpose", 7, q->data + 3, 1));
        GDN_TRY(gdn_attr_doubles(d, e, "torquescale", 1, q->data + 10, 1));
        double anchor[3] = {0, 0, 0};
        GDN_TRY(gdn_attr_doubles(d, e, "anchor", 3, anchor, 1));
        memcpy(q->data, anchor, sizeof(anchor));
    } else {
        GDN_TRY(gdn_attr_doubles(d, e, "polycoef", 5, q->data, 1));
    }
    GDN_TRY(read_common(spec, e, q));
    gdn_attr_warn_unused(d, e);
    return 0;
}

int gdn_mjcf_read_equality(gdnSpec* spec, gdnXmlElem* section) {
    gdnDiag* d = spec->diag;
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        static const char* const kinds[] = {"connect", "weld", "joint", "tendon"};
        int type = -1;
        for (int k = 0; k < 4; k++) {
            type = !strcmp(e->name, kinds[k]) ? k : type;
        }
        if (type < 0) {
            if (!strcmp(e->name, "distance")) {
                return gdn_xml_error(d, GDN_ERR_PARSE, e,
                                     "support for distance equality constraints was removed in "
                                     "MuJoCo 2.2.2");
            }
            return gdn_xml_error(d, GDN_ERR_PARSE, e, "unrecognized element in equality");
        }
        int def;
        GDN_TRY(def = gdn_defaults_class_of(spec, e, 0));
        if (!gdn_pool_reserve(spec->pool, (void**)&spec->equalities, &spec->capeq,
                              spec->neq + 1, sizeof(gdnSpecEquality))) {
            return gdn_xml_error(d, GDN_ERR_MEMORY, e, "out of memory");
        }
        gdnSpecEquality* q = &spec->equalities[spec->neq++];
        *q = spec->defs[def].equality;
        GDN_TRY(read_one(spec, e, type, q));
    }
    return 0;
}
