// SPDX-License-Identifier: Apache-2.0
// Pre-pass before expat: reads a document with the rules of MuJoCo 2.2.2's XML parser
// (tinyxml2 9) and rewrites it into XML expat accepts with the same elements and attributes.
//
// What tinyxml2 accepts and expat does not, and the rewrite (newlines are kept everywhere, so
// the line numbers of later diagnostics are unchanged):
//   comments (any bytes, "--" included)             -> blanked
//   <?xml ...?> declarations (any encoding=) before anything else -> blanked; elsewhere they
//     are refused, as tinyxml2 refuses them
//   <!DOCTYPE ...> and other <!...> up to the first '>' -> blanked
//   text and CDATA (MJCF reads none; any bytes, stray '&') -> blanked; text must be followed
//     by a '<' (tinyxml2's rule)
//   '&' starting no character or predefined entity reference in an attribute value (tinyxml2
//     keeps it literally) -> "&amp;"; '<' in an attribute value -> "&lt;"; attributes without
//     white space between them -> one space inserted; white space after '<' moved after
//     the name; attributes in an end tag blanked; "</name .../>" read as "<name .../>" (tinyxml2
//     takes it for an empty element); bytes of no UTF-8 sequence in an
//     attribute value -> kept as raw bytes, as tinyxml2 keeps them (through U+E080..U+E0FF)
//   a NUL byte -> the end of the document (tinyxml2 parses a C string)
// and what tinyxml2 refuses is refused, e.g. nesting past its depth limit (98 open elements)
//   everything after the root element's end tag -> checked as tinyxml2 checks it (elements
//     well nested, comments closed, no declaration), then blanked; a stray end tag at the
//     document level ends the document, as in tinyxml2
#include "mjcf/xml_lenient.h"

#include <string.h>

// tinyxml2 9 refuses a document nesting more than 98 elements that have content (its depth
// limit of 100 counts the document and each such element; a self-closing one adds none)
#define GDN_TINYXML2_OPEN_DEPTH 98

// the rewrite in progress
typedef struct Lenient {
    const char* in;
    size_t len;
    char* out;
    size_t n; // bytes written
    gdnDiag* diag;
    const char* file;
    int raw; // an attribute value holds bytes that are not UTF-8
} Lenient;

static int is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// tinyxml2's name characters (bytes from 0x80 are UTF-8 and count as letters)
static int is_name_start(unsigned char c) {
    return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ':' || c == '_';
}

static int is_name_char(unsigned char c) {
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

// the line of input offset at (1-based)
static int line_of(const Lenient* L, size_t at) {
    int line = 1;
    for (size_t i = 0; i < at && i < L->len; i++) {
        line += L->in[i] == '\n';
    }
    return line;
}

static int fail(Lenient* L, size_t at, const char* what) {
    gdn_diag_error(L->diag, GDN_ERR_PARSE, L->file, line_of(L, at), "xml", "%s", what);
    return -1;
}

// copy in[from, to) unchanged
static void copy(Lenient* L, size_t from, size_t to) {
    memcpy(L->out + L->n, L->in + from, to - from);
    L->n += to - from;
}

// copy in[from, to) with every byte but the line breaks replaced by a space
static void blank(Lenient* L, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        char c = L->in[i];
        L->out[L->n++] = c == '\n' || c == '\r' ? c : ' ';
    }
}

// the offset just past the first occurrence of pat at or after from; 0 when absent
static size_t find_end(const Lenient* L, size_t from, const char* pat) {
    size_t k = strlen(pat);
    for (size_t i = from; i + k <= L->len; i++) {
        if (L->in[i] == pat[0] && !memcmp(L->in + i, pat, k)) {
            return i + k;
        }
    }
    return 0;
}

static int starts(const Lenient* L, size_t at, const char* pat) {
    size_t k = strlen(pat);
    return at + k <= L->len && !memcmp(L->in + at, pat, k);
}

// the end of the name starting at at (at itself when there is none)
static size_t name_end(const Lenient* L, size_t at) {
    if (at >= L->len || !is_name_start((unsigned char)L->in[at])) {
        return at;
    }
    size_t i = at + 1;
    while (i < L->len && is_name_char((unsigned char)L->in[i])) {
        i++;
    }
    return i;
}

// the length of the valid UTF-8 sequence at i (before end), 0 when the bytes there are not one
static size_t utf8_len(const Lenient* L, size_t i, size_t end) {
    const unsigned char* u = (const unsigned char*)L->in;
    unsigned c = u[i];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > end) {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((u[i + k] & 0xC0) != 0x80) {
            return 0;
        }
    }
    // no overlong three- and four-byte forms, surrogates or code points past U+10FFFF
    if ((c == 0xE0 && u[i + 1] < 0xA0) || (c == 0xED && u[i + 1] > 0x9F) ||
        (c == 0xF0 && u[i + 1] < 0x90) || (c == 0xF4 && u[i + 1] > 0x8F)) {
        return 0;
    }
    return n;
}

// an '&' at i of an attribute value that expat reads as tinyxml2 does: a predefined entity
// or a decimal / hexadecimal character reference closed by ';'
static int good_reference(const Lenient* L, size_t i, size_t vend) {
    static const char* const named[] = {"&quot;", "&amp;", "&apos;", "&lt;", "&gt;"};
    for (int k = 0; k < 5; k++) {
        size_t n = strlen(named[k]);
        if (i + n <= vend && !memcmp(L->in + i, named[k], n)) {
            return 1;
        }
    }
    size_t j = i + 1;
    if (j >= vend || L->in[j] != '#') {
        return 0;
    }
    j++;
    int hex = j < vend && L->in[j] == 'x';
    j += (size_t)hex;
    size_t digits = j;
    while (j < vend && ((L->in[j] >= '0' && L->in[j] <= '9') ||
                        (hex && ((L->in[j] >= 'a' && L->in[j] <= 'f') ||
                                 (L->in[j] >= 'A' && L->in[j] <= 'F'))))) {
        j++;
    }
    return j > digits && j - digits <= 8 && j < vend && L->in[j] == ';';
}

// how a tag is written out
enum { TAG_COPY, TAG_BLANK, TAG_END };

// one tag at p: '<', white space, ['/' for an end tag], the name at ns, attributes, then '>' or
// '/>' (tinyxml2 reads attributes in end tags too). TAG_COPY writes it with the attribute
// values escaped where needed (the white space before the name moved after it), TAG_BLANK
// blanks it, TAG_END writes "</name" and '>' with the rest blanked. Sets *closed for '/>' and
// the name's span; returns the offset past the tag, 0 after an error
static size_t start_tag(Lenient* L, size_t p, size_t ns, int mode, int* closed, size_t* name,
                        size_t* name_len) {
    const int out_blank = mode != TAG_COPY;
    size_t ne = name_end(L, ns);
    if (ne == ns) {
        fail(L, p, "bad element name (MuJoCo's XML parser refuses it too)");
        return 0;
    }
    *name = ns;
    *name_len = ne - ns;
    size_t attr_names[GDN_XML_MAX_ATTRS], attr_lens[GDN_XML_MAX_ATTRS];
    int nattr = 0;
    size_t i = ne, done = ne; // input before done is written out
    if (mode == TAG_COPY) {
        L->out[L->n++] = '<';
        copy(L, ns, ne);
        blank(L, p + 1, ns);
    }
    for (;;) {
        size_t ws = i;
        while (i < L->len && is_ws(L->in[i])) {
            i++;
        }
        if (i >= L->len) {
            fail(L, p, "element tag not closed");
            return 0;
        }
        if (L->in[i] == '>' || (L->in[i] == '/' && i + 1 < L->len && L->in[i + 1] == '>')) {
            *closed = L->in[i] == '/';
            i += *closed ? 2 : 1;
            break;
        }
        size_t an = i, ae = name_end(L, i);
        if (ae == i) {
            fail(L, i, "bad attribute in element tag (MuJoCo's XML parser refuses it too)");
            return 0;
        }
        if (ws == i && !out_blank) {
            // tinyxml2 needs no white space between attributes; expat does
            copy(L, done, ws);
            L->out[L->n++] = ' ';
            done = ws;
        }
        for (int k = 0; k < nattr; k++) {
            if (attr_lens[k] == ae - an && !memcmp(L->in + attr_names[k], L->in + an, ae - an)) {
                fail(L, an, "repeated attribute (MuJoCo's XML parser refuses it too)");
                return 0;
            }
        }
        if (nattr == GDN_XML_MAX_ATTRS) {
            fail(L, an, "too many attributes");
            return 0;
        }
        attr_names[nattr] = an;
        attr_lens[nattr++] = ae - an;
        i = ae;
        while (i < L->len && is_ws(L->in[i])) {
            i++;
        }
        if (i >= L->len || L->in[i] != '=') {
            fail(L, an, "attribute without a value (MuJoCo's XML parser refuses it too)");
            return 0;
        }
        i++;
        while (i < L->len && is_ws(L->in[i])) {
            i++;
        }
        if (i >= L->len || (L->in[i] != '"' && L->in[i] != '\'')) {
            fail(L, an, "attribute value not quoted (MuJoCo's XML parser refuses it too)");
            return 0;
        }
        char q = L->in[i];
        size_t vs = i + 1, ve = vs;
        while (ve < L->len && L->in[ve] != q) {
            ve++;
        }
        if (ve >= L->len) {
            fail(L, an, "attribute value not closed");
            return 0;
        }
        if (!out_blank) {
            copy(L, done, vs);
            for (size_t k = vs; k < ve; k++) {
                if (L->in[k] == '&' && !good_reference(L, k, ve)) {
                    memcpy(L->out + L->n, "&amp;", 5);
                    L->n += 5;
                } else if (L->in[k] == '<') {
                    memcpy(L->out + L->n, "&lt;", 4);
                    L->n += 4;
                } else if ((unsigned char)L->in[k] >= 0x80) {
                    // UTF-8 as it is; a byte of no valid sequence (MuJoCo keeps it) as the
                    // private-use character U+E000 + byte, turned back into the byte by
                    // the tree builder (gdn_xml_raw_bytes)
                    size_t n = utf8_len(L, k, ve);
                    if (n) {
                        memcpy(L->out + L->n, L->in + k, n);
                        L->n += n;
                        k += n - 1;
                    } else {
                        static const char hex[] = "0123456789ABCDEF";
                        unsigned b = (unsigned char)L->in[k];
                        memcpy(L->out + L->n, "&#xE0", 5);
                        L->out[L->n + 5] = hex[b >> 4];
                        L->out[L->n + 6] = hex[b & 15];
                        L->out[L->n + 7] = ';';
                        L->n += 8;
                        L->raw = 1;
                    }
                } else {
                    L->out[L->n++] = L->in[k];
                }
            }
            done = ve;
        }
        i = ve + 1;
    }
    if (mode == TAG_BLANK) {
        blank(L, p, i);
    } else if (mode == TAG_END) {
        L->out[L->n++] = '<';
        L->out[L->n++] = '/';
        copy(L, ns, ne);
        blank(L, p + 1, ns - 1);
        blank(L, ne, i - 1);
        L->out[L->n++] = '>';
    } else {
        copy(L, done, i);
    }
    return i;
}

gdnStatus gdn_xml_lenient(gdnXmlContext* ctx, const char* xml, size_t len, const char* file,
                          char** out, size_t* out_len, int* raw) {
    // tinyxml2 reads a C string: the document ends at its first NUL byte
    const char* nul = memchr(xml, '\0', len);
    if (nul) {
        len = (size_t)(nul - xml);
    }
    // room for the escapes: "&amp;" for '&', "&lt;" for '<' (and the '/' an end tag gains),
    // a space per attribute (at most one per quote), "&#xE0XX;" for a byte from 0x80
    size_t grow = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)xml[i];
        grow += c == '&' || c == '<' ? 4 : c == '"' || c == '\'' ? 1 : c >= 0x80 ? 7 : 0;
    }
    char* buf = gdn_pool_alloc(ctx->pool, len + grow + 1);
    if (!buf) {
        return gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, file, 0, NULL, "out of memory");
    }
    Lenient L = {xml, len, buf, 0, ctx->diag, file, 0};
    // the element names open at each depth (start offset, length)
    size_t* open_at = NULL;
    size_t* open_len = NULL;
    int cap = 0, depth = 0;
    int seen = 0;      // a node other than a declaration was read at the document level
    int root_done = 0; // the root's end tag was read: the rest is checked and blanked
    size_t p = 0;
    if (starts(&L, 0, "\xEF\xBB\xBF")) {
        copy(&L, 0, 3);
        p = 3;
    }
    while (p < len) {
        int trailing = root_done;
        if (depth == 0 || L.in[p] != '<') {
            size_t q = p;
            while (q < len && is_ws(L.in[q])) {
                q++;
            }
            if (depth == 0) {
                blank(&L, p, q);
                p = q;
                if (p >= len) {
                    break;
                }
            }
        }
        if (L.in[p] != '<') {
            // text up to the next '<' (blanked: MJCF reads no text)
            size_t q = p;
            while (q < len && L.in[q] != '<') {
                q++;
            }
            if (q >= len && depth > 0) {
                blank(&L, p, q);
                p = q;
                break; // an element not closed: reported below
            }
            if (q >= len) {
                fail(&L, p, "text not followed by markup at the end of the document "
                            "(MuJoCo's XML parser refuses it too)");
                return ctx->diag->status;
            }
            blank(&L, p, q);
            p = q;
            seen |= depth == 0;
            continue;
        }
        if (starts(&L, p, "<?")) {
            if (depth > 0 || seen) {
                fail(&L, p, "XML declaration or processing instruction after the document's "
                            "start (MuJoCo's XML parser refuses it too)");
                return ctx->diag->status;
            }
            size_t e = find_end(&L, p + 2, "?>");
            if (!e) {
                fail(&L, p, "XML declaration not closed");
                return ctx->diag->status;
            }
            blank(&L, p, e);
            p = e;
            continue;
        }
        seen |= depth == 0;
        if (starts(&L, p, "<!--") || starts(&L, p, "<![CDATA[") || starts(&L, p, "<!")) {
            const char* close = starts(&L, p, "<!--") ? "-->"
                                : starts(&L, p, "<![CDATA[") ? "]]>"
                                                              : ">";
            size_t e = find_end(&L, p + 2, close);
            if (!e) {
                fail(&L, p, close[0] == '-'   ? "comment not closed"
                            : close[0] == ']' ? "CDATA section not closed"
                                              : "<!...> declaration not closed");
                return ctx->diag->status;
            }
            blank(&L, p, e);
            p = e;
            continue;
        }
        // '<', white space, then '/' for an end tag, the name
        size_t ns = p + 1;
        while (ns < len && is_ws(L.in[ns])) {
            ns++;
        }
        int end_tag = ns < len && L.in[ns] == '/';
        if (end_tag) {
            int closed = 0;
            size_t name = 0, name_len = 0, mark = L.n;
            size_t e = start_tag(&L, p, ns + 1, depth == 0 || trailing ? TAG_BLANK : TAG_END,
                                 &closed, &name, &name_len);
            if (!e) {
                return ctx->diag->status;
            }
            if (closed) {
                // "</name .../>" is an empty element for tinyxml2: read again as "<name .../>"
                L.n = mark;
                ns++;
            } else {
                if (depth == 0) {
                    // tinyxml2 ends the document at an end tag of the document level
                    blank(&L, e, len);
                    p = len;
                    break;
                }
                depth--;
                if (name_len != open_len[depth] ||
                    memcmp(L.in + name, L.in + open_at[depth], open_len[depth])) {
                    gdn_diag_error(ctx->diag, GDN_ERR_PARSE, file, line_of(&L, p), "xml",
                                   "end tag does not match <%.*s> (line %d)",
                                   (int)(open_len[depth] < 64 ? open_len[depth] : 64),
                                   L.in + open_at[depth], line_of(&L, open_at[depth]));
                    return ctx->diag->status;
                }
                p = e;
                if (depth == 0 && !trailing) {
                    root_done = 1;
                }
                continue;
            }
        }
        // a start tag: the root, one of its descendants, or an element after the root
        int closed = 0;
        size_t name = 0, name_len = 0;
        size_t e = start_tag(&L, p, ns, trailing ? TAG_BLANK : TAG_COPY, &closed, &name,
                             &name_len);
        if (!e) {
            return ctx->diag->status;
        }
        p = e;
        if (closed) {
            if (depth == 0 && !trailing) {
                root_done = 1;
            }
            continue;
        }
        if (depth >= GDN_TINYXML2_OPEN_DEPTH) {
            fail(&L, p, "elements nested too deeply (MuJoCo 2.2.2's XML parser reads at most "
                        "98 nested elements that are not self-closing)");
            return ctx->diag->status;
        }
        if (depth == cap) {
            int ncap = cap ? 2 * cap : 32;
            size_t* a = gdn_pool_alloc(ctx->pool, (size_t)ncap * sizeof(size_t));
            size_t* b = gdn_pool_alloc(ctx->pool, (size_t)ncap * sizeof(size_t));
            if (!a || !b) {
                return gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, file, 0, NULL, "out of memory");
            }
            if (depth) {
                memcpy(a, open_at, (size_t)depth * sizeof(size_t));
                memcpy(b, open_len, (size_t)depth * sizeof(size_t));
            }
            open_at = a;
            open_len = b;
            cap = ncap;
        }
        open_at[depth] = name;
        open_len[depth++] = name_len;
    }
    if (depth > 0) {
        gdn_diag_error(ctx->diag, GDN_ERR_PARSE, file, line_of(&L, len), "xml",
                       "<%.*s> (line %d) is not closed",
                       (int)(open_len[depth - 1] < 64 ? open_len[depth - 1] : 64),
                       L.in + open_at[depth - 1], line_of(&L, open_at[depth - 1]));
        return ctx->diag->status;
    }
    buf[L.n] = '\0';
    *out = buf;
    *out_len = L.n;
    *raw = L.raw;
    return GDN_OK;
}

void gdn_xml_raw_bytes(char* s) {
    // U+E080..U+E0FF in UTF-8: EE 82 80 .. EE 83 BF
    char* w = s;
    for (const unsigned char* r = (const unsigned char*)s; *r;) {
        if (r[0] == 0xEE && (r[1] == 0x82 || r[1] == 0x83) && (r[2] & 0xC0) == 0x80) {
            *w++ = (char)(0x80 + ((r[1] & 1) << 6) + (r[2] & 0x3F));
            r += 3;
        } else {
            *w++ = (char)*r++;
        }
    }
    *w = '\0';
}
