// SPDX-License-Identifier: Apache-2.0
// Pre-pass before expat: a document read as MuJoCo 2.2.2's XML parser (tinyxml2) reads it.
#ifndef GDN_MJCF_XML_LENIENT_H
#define GDN_MJCF_XML_LENIENT_H

#include "mjcf/xml_tree.h"

// xml[0..len) checked with tinyxml2's rules and rewritten (pool memory, NUL-terminated) into
// XML expat reads with the same elements and attributes: comments, declarations, <!...>,
// text and everything after the root blanked (line breaks kept), stray '&' and '<' in
// attribute values escaped, bytes of no UTF-8 sequence in attribute values written as
// U+E080..U+E0FF (*raw set: gdn_xml_raw_bytes restores them). GDN_ERR_PARSE ("file:line: xml:
// cause") where tinyxml2 refuses
gdnStatus gdn_xml_lenient(gdnXmlContext* ctx, const char* xml, size_t len, const char* file,
                          char** out, size_t* out_len, int* raw);

// in place: each U+E080..U+E0FF of s (UTF-8) back to the byte 0x80..0xFF it stands for
void gdn_xml_raw_bytes(char* s);

#endif
