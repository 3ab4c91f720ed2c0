// SPDX-License-Identifier: Apache-2.0
// <default> classes: class 0 is "main"; a nested class starts as a copy of its parent.
#include "mjcf/defaults.h"

#include <string.h>

#include "mjcf/contact.h"
#include "mjcf/equality.h"
#include "mjcf/elements.h"
#include "mjcf/tendon.h"

int gdn_defaults_init(gdnSpec* spec) {
    if (!gdn_pool_reserve(spec->pool, (void**)&spec->defs, &spec->capdef, 1,
                          sizeof(gdnSpecDefault))) {
        return gdn_xml_error(spec->diag, GDN_ERR_MEMORY, NULL, "out of memory");
    }
    gdnSpecDefault* d = &spec->defs[0];
    d->name = "main";
    d->parent = -1;
    gdn_spec_joint_init(&d->joint);
    gdn_spec_geom_init(&d->geom);
    gdn_spec_site_init(&d->site);
    gdn_spec_actuator_init(&d->actuator);
    gdn_spec_pair_init(&d->pair);
    gdn_spec_tendon_init(&d->tendon);
    gdn_spec_equality_init(&d->equality);
    d->mesh_scale[0] = d->mesh_scale[1] = d->mesh_scale[2] = 1;
    spec->ndef = 1;
    return 0;
}

int gdn_defaults_find(const gdnSpec* spec, const char* name) {
    for (int i = 0; i < spec->ndef; i++) {
        if (!strcmp(spec->defs[i].name, name)) {
            return i;
        }
    }
    return -1;
}

int gdn_defaults_class_of(gdnSpec* spec, gdnXmlElem* e, int fallback) {
    const char* name = gdn_xml_attr(e, "class");
    if (!name) {
        return fallback;
    }
    int id = gdn_defaults_find(spec, name);
    if (id < 0) {
        gdn_xml_error(spec->diag, GDN_ERR_MODEL, e, "unknown default class '%.64s'", name);
    }
    return id;
}

// read one <default> element into class id, then its nested classes
static int read_class(gdnSpec* spec, gdnXmlElem* section, int id, int depth) {
    gdnDiag* diag = spec->diag;
    // element children first, so nested classes copy a complete parent
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        gdnSpecDefault* def = &spec->defs[id];
        int r = 0;
        if (!strcmp(e->name, "default")) {
            continue;
        } else if (!strcmp(e->name, "joint")) {
            r = gdn_read_joint(spec, e, &def->joint, 1);
        } else if (!strcmp(e->name, "geom")) {
            r = gdn_read_geom(spec, e, &def->geom, 1);
        } else if (!strcmp(e->name, "site")) {
            r = gdn_read_site(spec, e, &def->site, 1);
        } else if (gdn_is_actuator_element(e->name)) {
            r = gdn_read_actuator(spec, e, &def->actuator, 1);
        } else if (!strcmp(e->name, "pair")) {
            r = gdn_read_pair(spec, e, &def->pair, 1);
        } else if (!strcmp(e->name, "tendon")) {
            r = gdn_read_tendon(spec, e, &def->tendon, 1);
        } else if (!strcmp(e->name, "mesh")) {
            r = gdn_attr_doubles(diag, e, "scale", 3, def->mesh_scale, 1);
        } else if (!strcmp(e->name, "equality")) {
            r = gdn_read_equality_default(spec, e, &def->equality);
        } else if (!strcmp(e->name, "material") ||
                   !strcmp(e->name, "camera") || !strcmp(e->name, "light")) {
            continue; // visual, or used only by elements that are reported when used
        } else {
            return gdn_xml_error(diag, GDN_ERR_PARSE, e, "unrecognized element in default class");
        }
        if (r < 0) {
            return -1;
        }
        gdn_attr_warn_unused(diag, e);
    }
    for (gdnXmlElem* e = section->first; e; e = e->next) {
        if (strcmp(e->name, "default")) {
            continue;
        }
        if (depth > GDN_XML_MAX_DEPTH) {
            return gdn_xml_error(diag, GDN_ERR_PARSE, e, "default classes nested too deeply");
        }
        const char* name = gdn_xml_attr(e, "class");
        if (!name || !name[0]) {
            return gdn_xml_error(diag, GDN_ERR_MODEL, e, "empty class name");
        }
        if (gdn_defaults_find(spec, name) >= 0) {
            return gdn_xml_error(diag, GDN_ERR_MODEL, e, "repeated default class name '%.64s'",
                                 name);
        }
        if (!gdn_pool_reserve(spec->pool, (void**)&spec->defs, &spec->capdef, spec->ndef + 1,
                              sizeof(gdnSpecDefault))) {
            return gdn_xml_error(diag, GDN_ERR_MEMORY, e, "out of memory");
        }
        int child = spec->ndef++;
        spec->defs[child] = spec->defs[id];
        spec->defs[child].name = name;
        spec->defs[child].parent = id;
        gdn_attr_warn_unused(diag, e);
        if (read_class(spec, e, child, depth + 1) < 0) {
            return -1;
        }
    }
    return 0;
}

int gdn_defaults_read(gdnSpec* spec, gdnXmlElem* section) {
    // a top-level <default> is class "main" (its class attribute renames it)
    const char* name = gdn_xml_attr(section, "class");
    if (name && name[0]) {
        spec->defs[0].name = name;
    }
    gdn_attr_warn_unused(spec->diag, section);
    return read_class(spec, section, 0, 1);
}
