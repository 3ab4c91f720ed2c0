// SPDX-License-Identifier: Apache-2.0
// <include file="..."/> resolution as MuJoCo 2.2.2 does it: splice the included file's top-level
// children in place; every path relative to the main file's directory; each file once.
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mjcf/xml_tree.h"

// the files included so far (the main file first), as MuJoCo names them: directory + file
typedef struct Included {
    const char** path;
    int n, cap;
    const char* dir; // the main file's directory: every include resolves against it
} Included;

// a path without its leading "./" (MuJoCo's directory of a bare file name is empty)
static const char* strip_dot(const char* p) {
    while (p[0] == '.' && p[1] == '/') {
        p += 2;
    }
    return p;
}

// MuJoCo compares the names case-insensitively
static int already_included(const Included* inc, const char* path) {
    for (int i = 0; i < inc->n; i++) {
        if (!strcasecmp(strip_dot(inc->path[i]), strip_dot(path))) {
            return 1;
        }
    }
    return 0;
}

// the root of the file named by one <include> element (parsed, its own includes not yet
// resolved); NULL after an error
static gdnXmlElem* load_include(gdnXmlContext* ctx, gdnXmlElem* inc, Included* done) {
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
    char* path = gdn_pool_join_path(ctx->pool, done->dir, file);
    if (!path) {
        gdn_xml_error(diag, GDN_ERR_MEMORY, inc, "out of memory");
        return NULL;
    }
    // MuJoCo 2.2.2 includes a file once (an include cycle is a repeat too)
    if (already_included(done, path)) {
        gdn_xml_error(diag, GDN_ERR_MODEL, inc, "file '%s' already included", path);
        return NULL;
    }
    if (!gdn_pool_reserve(ctx->pool, (void**)&done->path, &done->cap, done->n + 1,
                          sizeof(const char*))) {
        gdn_xml_error(diag, GDN_ERR_MEMORY, inc, "out of memory");
        return NULL;
    }
    done->path[done->n++] = path;
    size_t len = 0;
    char* text = gdn_xml_read_file(ctx, path, &len, inc->file, inc->line);
    if (!text) {
        return NULL;
    }
    gdnXmlElem* root = gdn_xml_parse(ctx, text, len, path, done->dir);
    if (!root) {
        return NULL;
    }
    if (!root->first) {
        gdn_xml_error(diag, GDN_ERR_MODEL, inc, "empty include file '%s'", path);
        return NULL;
    }
    return root;
}

// resolve includes among the descendants of parent (depth: parent's depth in the tree); an
// included file's children take the include's place and are read next, so nested includes
// need no recursion
static gdnStatus resolve_children(gdnXmlContext* ctx, gdnXmlElem* parent, Included* done,
                                  int depth) {
    if (depth > GDN_XML_MAX_TREE_DEPTH) {
        gdn_xml_error(ctx->diag, GDN_ERR_PARSE, parent,
                      "elements nested deeper than %d with the included files",
                      GDN_XML_MAX_TREE_DEPTH);
        return ctx->diag->status;
    }
    gdnXmlElem* prev = NULL;
    gdnXmlElem* e = parent->first;
    while (e) {
        gdnXmlElem* next = e->next;
        if (!strcmp(e->name, "include")) {
            gdnXmlElem* root = load_include(ctx, e, done);
            if (!root) {
                return ctx->diag->status;
            }
            // splice root's children between prev and next; read them next
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
            e = root->first;
            continue;
        }
        gdnStatus st = resolve_children(ctx, e, done, depth + 1);
        if (st != GDN_OK) {
            return st;
        }
        prev = e;
        e = next;
    }
    return GDN_OK;
}

gdnStatus gdn_xml_resolve_includes(gdnXmlContext* ctx, gdnXmlElem* root) {
    Included done = {NULL, 0, 0, root->dir};
    // the main file is included already (a string has no file)
    if (root->file && root->file[0] != '<') {
        if (!gdn_pool_reserve(ctx->pool, (void**)&done.path, &done.cap, 1, sizeof(const char*))) {
            return gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, NULL, 0, NULL, "out of memory");
        }
        done.path[done.n++] = root->file;
    }
    return resolve_children(ctx, root, &done, 1);
}
