// SPDX-License-Identifier: Apache-2.0
// XML element tree built from expat events: names, attributes, source file and line.
#ifndef GDN_MJCF_XML_TREE_H
#define GDN_MJCF_XML_TREE_H

#include <stddef.h>

#include "mjcf/diag.h"
#include "mjcf/pool.h"

// limits that keep hostile input from exhausting memory or stack
#define GDN_XML_MAX_FILE_BYTES (64u * 1024u * 1024u) // one file
#define GDN_XML_MAX_DEPTH 128                        // element nesting
#define GDN_XML_MAX_ELEMENTS 1000000                 // elements over all files
#define GDN_XML_MAX_ATTR_BYTES GDN_XML_MAX_FILE_BYTES // one attribute value (none in MuJoCo)
#define GDN_XML_MAX_ATTRS 128                        // attributes of one element
#define GDN_XML_MAX_TREE_DEPTH 1000                  // nesting with the included files
// <include> elements over all files. MuJoCo 2.2.2 has no limit on includes or their nesting
// (each file is included once; a chain of 3000 nested includes loads, 10000 overflows its
// stack); gradyn resolves nested includes without recursion
#define GDN_XML_MAX_INCLUDES 65536

typedef struct gdnXmlAttr {
    const char* name;
    const char* value;
    int used; // set when a reader consumed it; leftovers are reported as unknown
} gdnXmlAttr;

typedef struct gdnXmlElem gdnXmlElem;
struct gdnXmlElem {
    const char* name;
    gdnXmlAttr* attr;
    int nattr;
    gdnXmlElem* parent;
    gdnXmlElem* first; // first child
    gdnXmlElem* last;  // last child
    gdnXmlElem* next;  // next sibling
    const char* file;  // file name used in messages
    const char* dir;   // directory that relative paths in this file resolve against
    int line;
};

// shared state of one load: memory, diagnostics, budgets over all included files
typedef struct gdnXmlContext {
    gdnPool* pool;
    gdnDiag* diag;
    int elements; // elements created so far
    int includes; // <include> elements resolved so far
} gdnXmlContext;

// parse len bytes of XML (file and dir label the result) into a tree; returns the root
// element, NULL after recording an error in ctx->diag
gdnXmlElem* gdn_xml_parse(gdnXmlContext* ctx, const char* xml, size_t len, const char* file,
                          const char* dir);

// read a whole file into pool memory (size limited); NULL after recording GDN_ERR_IO
char* gdn_xml_read_file(gdnXmlContext* ctx, const char* path, size_t* len, const char* from_file,
                        int from_line);

// replace every <include file="..."/> below root by the children of the included file's root,
// the included files' own includes too, as MuJoCo 2.2.2: every path relative to the main
// file's directory, a file included twice (a cycle included) refused
gdnStatus gdn_xml_resolve_includes(gdnXmlContext* ctx, gdnXmlElem* root);

// record an error at element e ("file:line: name: text"; no position when e is NULL) and
// return -1, the element readers' failure value
int gdn_xml_error(gdnDiag* d, gdnStatus status, const gdnXmlElem* e, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// the value of attribute name (marked used), NULL when absent
const char* gdn_xml_attr(gdnXmlElem* e, const char* name);

// the directory part of path ("." when none), in pool memory
char* gdn_xml_dirname(gdnPool* pool, const char* path);

#endif
