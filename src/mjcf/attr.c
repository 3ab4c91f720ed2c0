// SPDX-License-Identifier: Apache-2.0
// Typed attribute readers with strict number syntax: decimal, finite, exact counts.
#include "mjcf/attr.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// characters a decimal floating-point literal may contain (no nan, inf or hex)
static int is_number_char(char c) {
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

// parse one whitespace-delimited token at *s as a finite double; advances *s.
// Returns 1 ok, 0 end of string, -1 bad token
static int next_double(const char** s, double* out) {
    const char* p = *s;
    while (is_space(*p)) {
        p++;
    }
    if (!*p) {
        *s = p;
        return 0;
    }
    const char* start = p;
    while (*p && !is_space(*p)) {
        if (!is_number_char(*p)) {
            return -1;
        }
        p++;
    }
    size_t len = (size_t)(p - start);
    char buf[256];
    if (len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, start, len);
    buf[len] = '\0';
    char* end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + len || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0)) {
        return -1;
    }
    *out = v;
    *s = p;
    return 1;
}

// the numbers of attribute name (value s) into out[0..cap): their count, or -1 after reporting
// a bad number or more than cap of them ("too much data (<limit_text> <limit> numbers)")
static int read_numbers(gdnDiag* diag, gdnXmlElem* e, const char* name, const char* s,
                        double* out, int cap, const char* limit_text, int limit) {
    int count = 0;
    for (;;) {
        double v;
        int r = next_double(&s, &v);
        if (r == 0) {
            break;
        }
        if (r < 0) {
            return gdn_xml_error(diag, GDN_ERR_PARSE, e,
                                 "attribute '%s': bad number (finite decimal numbers only)", name);
        }
        if (count >= cap) {
            return gdn_xml_error(diag, GDN_ERR_PARSE, e,
                                 "attribute '%s' has too much data (%s %d numbers)", name,
                                 limit_text, limit);
        }
        out[count++] = v;
    }
    return count;
}

int gdn_attr_doubles(gdnDiag* diag, gdnXmlElem* e, const char* name, int n, double* out,
                     int exact) {
    const char* s = gdn_xml_attr(e, name);
    if (!s) {
        return 0;
    }
    double tmp[32];
    if (n > 32) {
        return -1;
    }
    int count = read_numbers(diag, e, name, s, tmp, n, "expected", n);
    if (count < 0) {
        return -1;
    }
    if ((exact && count < n) || count == 0) {
        return gdn_xml_error(diag, GDN_ERR_PARSE, e,
                             "attribute '%s' does not have enough data (expected %d numbers, "
                             "got %d)",
                             name, n, count);
    }
    memcpy(out, tmp, (size_t)count * sizeof(double));
    return count;
}

int gdn_attr_double_list(gdnDiag* diag, gdnPool* pool, gdnXmlElem* e, const char* name,
                         int maxn, double** out) {
    *out = NULL;
    const char* s = gdn_xml_attr(e, name);
    if (!s) {
        return 0;
    }
    // upper bound on the count: tokens are separated by whitespace
    int bound = 1;
    for (const char* p = s; *p; p++) {
        bound += is_space(*p);
    }
    if (bound > maxn + 1) {
        bound = maxn + 1;
    }
    double* vals = gdn_pool_alloc(pool, (size_t)bound * sizeof(double));
    if (!vals) {
        return gdn_xml_error(diag, GDN_ERR_MEMORY, e, "out of memory");
    }
    int count = read_numbers(diag, e, name, s, vals, maxn < bound ? maxn : bound, "at most", maxn);
    if (count < 0) {
        return -1;
    }
    *out = vals;
    return count;
}

// MuJoCo 2.2.2 reads ints with sscanf("%d"): white space, a sign and decimal digits, the rest
// ignored ("2.5" is 2, "1e3" is 1, "3abc" is 3, "1 2" is 1); no digit (" ", ".5") is an error.
// A value past the int range keeps its low 32 bits (glibc's conversion of strtol's long)
int gdn_attr_int(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out) {
    const char* s = gdn_xml_attr(e, name);
    if (!s) {
        return 0;
    }
    const char* p = s;
    while (is_space(*p) || *p == '\v' || *p == '\f') {
        p++;
    }
    const char* digits = p + (*p == '+' || *p == '-');
    if (*digits < '0' || *digits > '9') {
        return gdn_xml_error(diag, GDN_ERR_PARSE, e, "attribute '%s': single int expected", name);
    }
    errno = 0;
    long v = strtol(p, NULL, 10);
    unsigned int low = (unsigned int)(unsigned long)v;
    *out = low <= (unsigned int)INT_MAX ? (int)low : -(int)(UINT_MAX - low) - 1;
    return 1;
}

int gdn_attr_keyword(gdnDiag* diag, gdnXmlElem* e, const char* name, const char* const* keys,
                     const int* values, int n, int* out) {
    const char* s = gdn_xml_attr(e, name);
    if (!s) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (!strcmp(s, keys[i])) {
            *out = values[i];
            return 1;
        }
    }
    return gdn_xml_error(diag, GDN_ERR_PARSE, e, "attribute '%s': invalid keyword '%.64s'", name,
                         s);
}

int gdn_attr_bool(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out) {
    static const char* const keys[] = {"false", "true"};
    static const int values[] = {0, 1};
    return gdn_attr_keyword(diag, e, name, keys, values, 2, out);
}

int gdn_attr_tfauto(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out) {
    static const char* const keys[] = {"false", "true", "auto"};
    static const int values[] = {0, 1, 2};
    return gdn_attr_keyword(diag, e, name, keys, values, 3, out);
}

void gdn_attr_ignore(gdnXmlElem* e, const char* const* names) {
    for (int k = 0; names[k]; k++) {
        (void)gdn_xml_attr(e, names[k]);
    }
}

void gdn_attr_warn_unused(gdnDiag* diag, gdnXmlElem* e) {
    for (int i = 0; i < e->nattr; i++) {
        if (!e->attr[i].used) {
            gdn_diag_warn(diag, e->file, e->line, e->name, "unknown attribute '%s' ignored",
                          e->attr[i].name);
        }
    }
}
