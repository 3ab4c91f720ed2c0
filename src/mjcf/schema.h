// SPDX-License-Identifier: Apache-2.0
// MJCF 2.2.2's attribute schema: an attribute MuJoCo does not know is refused, as MuJoCo does.
#ifndef GDN_MJCF_SCHEMA_H
#define GDN_MJCF_SCHEMA_H

#include "mjcf/xml_tree.h"

// walk the tree below root (includes resolved) and refuse (GDN_ERR_PARSE, file:line:element)
// the first attribute that MuJoCo 2.2.2's schema does not list for its element, as MuJoCo's
// "Schema violation: unrecognized attribute". Elements the schema does not know are left to
// the reader (which refuses them by name). Attributes MuJoCo knows but gradyn does not read
// are reported by the reader as warnings (gdn_attr_warn_unused).
gdnStatus gdn_mjcf_schema_check(gdnDiag* d, gdnXmlElem* root);

#endif
