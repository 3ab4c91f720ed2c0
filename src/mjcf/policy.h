// SPDX-License-Identifier: Apache-2.0
// The loader's policy for what changes the dynamics but is not simulated: refused by name.
#ifndef GDN_MJCF_POLICY_H
#define GDN_MJCF_POLICY_H

#include "mjcf/xml_tree.h"

// what (e.g. "tendon", "integrator \"implicit\"") at element e changes the dynamics and gradyn
// does not simulate it. By default: GDN_ERR_UNSUPPORTED, "file:line: element: <what> is not
// simulated by gradyn; ...", returns -1. With the load option accept_unsupported: a warning
// naming the substitute (e.g. "semi-implicit Euler is used"), returns 0.
int gdn_mjcf_unsupported(gdnDiag* d, const gdnXmlElem* e, const char* what,
                         const char* substitute);

#endif
