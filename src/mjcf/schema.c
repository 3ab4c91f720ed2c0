// SPDX-License-Identifier: Apache-2.0
// MJCF 2.2.2's attribute schema check over the element tree (mjcf/schema.h).
#include "mjcf/schema.h"

#include <string.h>

#include "mjcf/schema_table.h"

#define NROWS ((int)(sizeof(gdn_schema_rows) / sizeof(gdn_schema_rows[0])))
#define NRECURSIVE ((int)(sizeof(gdn_schema_recursive) / sizeof(gdn_schema_recursive[0])))
#define MAX_PATH 256

// the schema row of a path, NULL when the schema has no such element
static const gdnSchemaRow* row_of(const char* path) {
    for (int i = 0; i < NROWS; i++) {
        if (!strcmp(gdn_schema_rows[i].path, path)) {
            return &gdn_schema_rows[i];
        }
    }
    return NULL;
}

// attrs (space-separated names) contains name exactly
static int lists(const char* attrs, const char* name) {
    const size_t n = strlen(name);
    for (const char* p = attrs; *p;) {
        const char* end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) {
            return 1;
        }
        p += len + (end != NULL);
    }
    return 0;
}

// the schema path of child `name` of the element at `parent` (NULL parent: the root):
// <worldbody> at the top reads as "body"; a body in a body (a default in a default) keeps the
// parent's path. Returns 0, or -1 when the path would not fit
static int child_path(char* out, const char* parent, const char* name) {
    if (!parent) {
        return strlen(name) < MAX_PATH ? (strcpy(out, name), 0) : -1;
    }
    if (!strcmp(parent, "mujoco") && !strcmp(name, "worldbody")) {
        name = "body";
    }
    for (int i = 0; i < NRECURSIVE; i++) {
        const char* r = gdn_schema_recursive[i];
        const char* last = strrchr(r, '/') + 1;
        if (!strcmp(parent, r) && !strcmp(name, last)) {
            strcpy(out, parent);
            return 0;
        }
    }
    if (strlen(parent) + 1 + strlen(name) >= MAX_PATH) {
        return -1;
    }
    strcpy(out, parent);
    strcat(out, "/");
    strcat(out, name);
    return 0;
}

// the schema row of child `name` of an element with row parent (NULL: the root element)
static const gdnSchemaRow* child_row(const gdnSchemaRow* parent, const char* name) {
    char path[MAX_PATH];
    if (child_path(path, parent ? parent->path : NULL, name)) {
        return NULL;
    }
    return row_of(path);
}

// depth-first walk without recursion (first/next/parent links); rows[k] is the schema row of
// the chain's element at depth k (the walk descends only into elements the schema knows)
gdnStatus gdn_mjcf_schema_check(gdnDiag* d, gdnXmlElem* root) {
    const gdnSchemaRow* rows[GDN_XML_MAX_TREE_DEPTH + 1];
    int depth = 0;
    gdnXmlElem* e = root;
    const gdnSchemaRow* row = child_row(NULL, root->name);
    while (e) {
        if (row) {
            for (int i = 0; i < e->nattr; i++) {
                if (!lists(row->attrs, e->attr[i].name)) {
                    gdn_xml_error(d, GDN_ERR_PARSE, e,
                                  "unrecognized attribute '%s' (MuJoCo 2.2.2's MJCF schema "
                                  "refuses it: Schema violation)",
                                  e->attr[i].name);
                    return d->status;
                }
            }
        }
        // descend into a known element's children; unknown subtrees are the reader's
        if (row && e->first && depth < GDN_XML_MAX_TREE_DEPTH) {
            rows[depth++] = row;
            e = e->first;
            row = child_row(rows[depth - 1], e->name);
            continue;
        }
        // next sibling, else climb until an ancestor has one
        while (e != root && !e->next) {
            e = e->parent;
            depth--;
        }
        if (e == root) {
            break;
        }
        e = e->next;
        row = child_row(rows[depth - 1], e->name);
    }
    return GDN_OK;
}
