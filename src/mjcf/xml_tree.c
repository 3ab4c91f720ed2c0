// SPDX-License-Identifier: Apache-2.0
// XML element tree from expat events, with limits on size, depth, element count and attributes.
#include "mjcf/xml_tree.h"
#include "mjcf/xml_lenient.h"

#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// parser state shared by the expat callbacks
typedef struct TreeBuilder {
    gdnXmlContext* ctx;
    XML_Parser parser;
    const char* file;
    const char* dir;
    gdnXmlElem* root;
    gdnXmlElem* current;
    int depth;
    int failed; // an error was recorded; stop building
    int raw;    // attribute values carry non-UTF-8 bytes as U+E080..U+E0FF (xml_lenient.h)
} TreeBuilder;

// record an error at the parser's current line and stop expat
static void builder_fail(TreeBuilder* b, gdnStatus status, const char* elem, const char* msg,
                         const char* detail) {
    int line = (int)XML_GetCurrentLineNumber(b->parser);
    gdn_diag_error(b->ctx->diag, status, b->file, line, elem, "%s%s", msg, detail ? detail : "");
    b->failed = 1;
    XML_StopParser(b->parser, XML_FALSE);
}

static void XMLCALL on_start(void* user, const XML_Char* name, const XML_Char** atts) {
    TreeBuilder* b = user;
    if (b->failed) {
        return;
    }
    if (b->depth >= GDN_XML_MAX_DEPTH) {
        builder_fail(b, GDN_ERR_PARSE, name, "elements nested too deeply", NULL);
        return;
    }
    if (b->ctx->elements >= GDN_XML_MAX_ELEMENTS) {
        builder_fail(b, GDN_ERR_PARSE, name, "too many elements", NULL);
        return;
    }
    if (!b->current && b->root) {
        builder_fail(b, GDN_ERR_PARSE, name, "more than one root element", NULL);
        return;
    }
    int nattr = 0;
    while (atts[2 * nattr]) {
        nattr++;
    }
    if (nattr > GDN_XML_MAX_ATTRS) {
        builder_fail(b, GDN_ERR_PARSE, name, "too many attributes", NULL);
        return;
    }
    gdnPool* pool = b->ctx->pool;
    gdnXmlElem* e = gdn_pool_alloc(pool, sizeof(gdnXmlElem));
    gdnXmlAttr* attr = nattr ? gdn_pool_alloc(pool, (size_t)nattr * sizeof(gdnXmlAttr)) : NULL;
    char* ename = gdn_pool_strndup(pool, name, strlen(name));
    if (!e || (nattr && !attr) || !ename) {
        builder_fail(b, GDN_ERR_MEMORY, name, "out of memory", NULL);
        return;
    }
    for (int i = 0; i < nattr; i++) {
        size_t vlen = strlen(atts[2 * i + 1]);
        if (vlen > GDN_XML_MAX_ATTR_BYTES) {
            builder_fail(b, GDN_ERR_PARSE, name, "attribute value too long: ", atts[2 * i]);
            return;
        }
        attr[i].name = gdn_pool_strndup(pool, atts[2 * i], strlen(atts[2 * i]));
        char* value = gdn_pool_strndup(pool, atts[2 * i + 1], vlen);
        if (!attr[i].name || !value) {
            builder_fail(b, GDN_ERR_MEMORY, name, "out of memory", NULL);
            return;
        }
        if (b->raw) {
            gdn_xml_raw_bytes(value);
        }
        attr[i].value = value;
    }
    e->name = ename;
    e->attr = attr;
    e->nattr = nattr;
    e->file = b->file;
    e->dir = b->dir;
    e->line = (int)XML_GetCurrentLineNumber(b->parser);
    e->parent = b->current;
    if (b->current) {
        if (b->current->last) {
            b->current->last->next = e;
        } else {
            b->current->first = e;
        }
        b->current->last = e;
    } else {
        b->root = e;
    }
    b->current = e;
    b->depth++;
    b->ctx->elements++;
}

static void XMLCALL on_end(void* user, const XML_Char* name) {
    TreeBuilder* b = user;
    (void)name;
    if (b->failed || !b->current) {
        return;
    }
    b->current = b->current->parent;
    b->depth--;
}

// DTDs can define entities (expansion bombs, external files): MJCF never needs them
static void XMLCALL on_doctype(void* user, const XML_Char* name, const XML_Char* sysid,
                               const XML_Char* pubid, int has_internal_subset) {
    TreeBuilder* b = user;
    (void)name;
    (void)sysid;
    (void)pubid;
    (void)has_internal_subset;
    builder_fail(b, GDN_ERR_PARSE, "xml", "DOCTYPE declarations are not allowed", NULL);
}

gdnXmlElem* gdn_xml_parse(gdnXmlContext* ctx, const char* xml, size_t len, const char* file,
                          const char* dir) {
    if (len > GDN_XML_MAX_FILE_BYTES) {
        gdn_diag_error(ctx->diag, GDN_ERR_PARSE, file, 0, NULL, "file larger than %u bytes",
                       (unsigned)GDN_XML_MAX_FILE_BYTES);
        return NULL;
    }
    // read as MuJoCo's parser reads it (comments, declarations, DOCTYPE, trailing content)
    char* lenient = NULL;
    int raw = 0;
    if (gdn_xml_lenient(ctx, xml ? xml : "", len, file, &lenient, &len, &raw) != GDN_OK) {
        return NULL;
    }
    xml = lenient;
    XML_Parser parser = XML_ParserCreate("UTF-8");
    if (!parser) {
        gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, file, 0, NULL, "cannot create XML parser");
        return NULL;
    }
    TreeBuilder b = {ctx, parser, file, dir, NULL, NULL, 0, 0, raw};
    XML_SetUserData(parser, &b);
    XML_SetElementHandler(parser, on_start, on_end);
    XML_SetStartDoctypeDeclHandler(parser, on_doctype);
    XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER);
    enum XML_Status st = XML_Parse(parser, xml ? xml : "", (int)len, 1);
    if (st != XML_STATUS_OK && !b.failed) {
        int line = (int)XML_GetCurrentLineNumber(parser);
        gdn_diag_error(ctx->diag, GDN_ERR_PARSE, file, line, "xml", "%s",
                       XML_ErrorString(XML_GetErrorCode(parser)));
        b.failed = 1;
    }
    XML_ParserFree(parser);
    if (b.failed) {
        return NULL;
    }
    if (!b.root) {
        gdn_diag_error(ctx->diag, GDN_ERR_PARSE, file, 1, "xml", "no root element");
        return NULL;
    }
    return b.root;
}

char* gdn_xml_read_file(gdnXmlContext* ctx, const char* path, size_t* len, const char* from_file,
                        int from_line) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        gdn_diag_error(ctx->diag, GDN_ERR_IO, from_file, from_line, from_file ? "include" : NULL,
                       "cannot open '%s'", path);
        return NULL;
    }
    // read in chunks: works for pipes too and never trusts a reported size
    size_t cap = 0, n = 0;
    char* buf = NULL;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 65536 * 2;
            if (ncap > GDN_XML_MAX_FILE_BYTES + 65536 + 1) {
                ncap = GDN_XML_MAX_FILE_BYTES + 65536 + 1;
            }
            if (ncap <= cap) {
                fclose(f);
                gdn_diag_error(ctx->diag, GDN_ERR_PARSE, path, 0, NULL,
                               "file larger than %u bytes", (unsigned)GDN_XML_MAX_FILE_BYTES);
                return NULL;
            }
            char* grown = gdn_pool_alloc(ctx->pool, ncap);
            if (!grown) {
                fclose(f);
                gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, path, 0, NULL, "out of memory");
                return NULL;
            }
            if (n) {
                memcpy(grown, buf, n);
            }
            buf = grown;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            break;
        }
        if (n > GDN_XML_MAX_FILE_BYTES) {
            fclose(f);
            gdn_diag_error(ctx->diag, GDN_ERR_PARSE, path, 0, NULL, "file larger than %u bytes",
                           (unsigned)GDN_XML_MAX_FILE_BYTES);
            return NULL;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        gdn_diag_error(ctx->diag, GDN_ERR_IO, from_file ? from_file : path, from_line, NULL,
                       "error reading '%s'", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int gdn_xml_error(gdnDiag* d, gdnStatus status, const gdnXmlElem* e, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gdn_diag_verror(d, status, e ? e->file : NULL, e ? e->line : 0, e ? e->name : NULL, fmt, ap);
    va_end(ap);
    return -1;
}

const char* gdn_xml_attr(gdnXmlElem* e, const char* name) {
    for (int i = 0; i < e->nattr; i++) {
        if (!strcmp(e->attr[i].name, name)) {
            e->attr[i].used = 1;
            return e->attr[i].value;
        }
    }
    return NULL;
}

char* gdn_xml_dirname(gdnPool* pool, const char* path) {
    const char* slash = strrchr(path, '/');
    if (!slash) {
        return gdn_pool_strndup(pool, ".", 1);
    }
    if (slash == path) {
        return gdn_pool_strndup(pool, "/", 1);
    }
    return gdn_pool_strndup(pool, path, (size_t)(slash - path));
}
