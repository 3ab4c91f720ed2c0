// SPDX-License-Identifier: Apache-2.0
// <include file="..."/> resolution: splice the included file's top-level children in place.
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/xml_tree.h"

// the files currently being included, outermost first (canonical paths)
typedef struct IncludeStack {
    const char* path[GDN_XML_MAX_INCLUDE_DEPTH + 2];
    int depth;
} IncludeStack;

// canonical path (symlinks, "..", "." resolved) in pool memory; NULL if the file does not exist
static char* canonical_path(gdnPool* pool, const char* path) {
    char* real = realpath(path, NULL);
    if (!real) {
        return NULL;
    }
    char* r = gdn_pool_strndup(pool, real, strlen(real));
    free(real);
    return r;
}

static gdnStatus resolve_children(gdnXmlContext* ctx, gdnXmlElem* parent, IncludeStack* stack);

// load the file named by one <include> element and return the root of its resolved tree
static gdnXmlElem* load_include(gdnXmlContext* ctx, gdnXmlElem* inc, IncludeStack* stack) {
    gdnDiag* diag = ctx->diag;
    if (inc->first) {
        gdn_xml_error(diag, GDN_ERR_PARSE, inc, "include element cannot have children");
        return NULL;
    }
    const char* file = gdn_xml_attr(inc, "file");
    if (!file || !file[0]) {
        gdn_xml_error(diag, GDN_ERR_PARSE, inc, "required attribute missing: 'file'");
        return NULL;
    }
    for (int i = 0; i < inc->nattr; i++) {
        if (!inc->attr[i].used) {
            gdn_xml_error(diag, GDN_ERR_PARSE, inc, "unknown attribute '%s'", inc->attr[i].name);
            return NULL;
        }
    }
    if (++ctx->includes > GDN_XML_MAX_INCLUDES) {
        gdn_xml_error(diag, GDN_ERR_PARSE, inc, "more than %d included files",
                      GDN_XML_MAX_INCLUDES);
        return NULL;
    }
    if (stack->depth >= GDN_XML_MAX_INCLUDE_DEPTH) {
        gdn_xml_error(diag, GDN_ERR_PARSE, inc, "includes nested deeper than %d",
                      GDN_XML_MAX_INCLUDE_DEPTH);
        return NULL;
    }
    char* path = gdn_pool_join_path(ctx->pool, inc->dir, file);
    if (!path) {
        gdn_xml_error(diag, GDN_ERR_MEMORY, inc, "out of memory");
        return NULL;
    }
    char* canon = canonical_path(ctx->pool, path);
    if (!canon) {
        gdn_xml_error(diag, GDN_ERR_IO, inc, "cannot open '%s'", path);
        return NULL;
    }
    for (int i = 0; i < stack->depth; i++) {
        if (!strcmp(stack->path[i], canon)) {
            gdn_xml_error(diag, GDN_ERR_MODEL, inc, "include cycle: '%s' includes itself", path);
            return NULL;
        }
    }
    size_t len = 0;
    char* text = gdn_xml_read_file(ctx, path, &len, inc->file, inc->line);
    if (!text) {
        return NULL;
    }
    char* dir = gdn_xml_dirname(ctx->pool, path);
    if (!dir) {
        gdn_xml_error(diag, GDN_ERR_MEMORY, inc, "out of memory");
        return NULL;
    }
    gdnXmlElem* root = gdn_xml_parse(ctx, text, len, path, dir);
    if (!root) {
        return NULL;
    }
    if (!root->first) {
        gdn_xml_error(diag, GDN_ERR_MODEL, inc, "empty include file '%s'", path);
        return NULL;
    }
    stack->path[stack->depth++] = canon;
    gdnStatus st = resolve_children(ctx, root, stack);
    stack->depth--;
    return st == GDN_OK ? root : NULL;
}

// resolve includes among the descendants of parent
static gdnStatus resolve_children(gdnXmlContext* ctx, gdnXmlElem* parent, IncludeStack* stack) {
    gdnXmlElem* prev = NULL;
    gdnXmlElem* e = parent->first;
    while (e) {
        gdnXmlElem* next = e->next;
        if (!strcmp(e->name, "include")) {
            gdnXmlElem* root = load_include(ctx, e, stack);
            if (!root) {
                return ctx->diag->status;
            }
            // splice root's children between prev and next
            for (gdnXmlElem* c = root->first; c; c = c->next) {
                c->parent = parent;
            }
            if (prev) {
                prev->next = root->first;
            } else {
                parent->first = root->first;
            }
            root->last->next = next;
            if (!next) {
                parent->last = root->last;
            }
            prev = root->last;
        } else {
            gdnStatus st = resolve_children(ctx, e, stack);
            if (st != GDN_OK) {
                return st;
            }
            prev = e;
        }
        e = next;
    }
    return GDN_OK;
}

gdnStatus gdn_xml_resolve_includes(gdnXmlContext* ctx, gdnXmlElem* root) {
    IncludeStack stack;
    stack.depth = 0;
    // the top file is part of the chain when it exists on disk
    if (root->file && root->dir) {
        char* top = gdn_pool_join_path(ctx->pool, NULL, root->file);
        char* canon = top ? canonical_path(ctx->pool, top) : NULL;
        if (canon) {
            stack.path[stack.depth++] = canon;
        }
    }
    return resolve_children(ctx, root, &stack);
}
