// SPDX-License-Identifier: Apache-2.0
// Typed attribute readers: numbers (finite only, count-checked), ints, keywords, strings.
#ifndef GDN_MJCF_ATTR_H
#define GDN_MJCF_ATTR_H

#include "mjcf/xml_tree.h"

// read up to n doubles from attribute name into out. exact: exactly n are required.
// Returns the count read (0 when absent), -1 after recording GDN_ERR_PARSE for garbage,
// NaN, infinity, overflow, too many or (exact) too few numbers
int gdn_attr_doubles(gdnDiag* diag, gdnXmlElem* e, const char* name, int n, double* out,
                     int exact);

// read any number (at most maxn) of doubles into pool memory; returns the count (0 when
// absent), -1 after an error
int gdn_attr_double_list(gdnDiag* diag, gdnPool* pool, gdnXmlElem* e, const char* name,
                         int maxn, double** out);

// read one int; 1 when read, 0 when absent, -1 after an error
int gdn_attr_int(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out);

// map a keyword through keys/values (n entries); 1 read, 0 absent, -1 after an error
int gdn_attr_keyword(gdnDiag* diag, gdnXmlElem* e, const char* name, const char* const* keys,
                     const int* values, int n, int* out);

// "false"/"true" -> 0/1; same returns as gdn_attr_keyword
int gdn_attr_bool(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out);

// "false"/"true"/"auto" -> 0/1/2
int gdn_attr_tfauto(gdnDiag* diag, gdnXmlElem* e, const char* name, int* out);

// mark attributes as consumed without reading them (NULL-terminated list)
void gdn_attr_ignore(gdnXmlElem* e, const char* const* names);

// one warning per attribute nobody consumed
void gdn_attr_warn_unused(gdnDiag* diag, gdnXmlElem* e);

#endif
