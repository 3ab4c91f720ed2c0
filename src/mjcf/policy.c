// SPDX-License-Identifier: Apache-2.0
// The loader's policy for what changes the dynamics but is not simulated: refused by name.
#include "mjcf/policy.h"

// refused by default; accepted with the load option, the substitute named, never silently
int gdn_mjcf_unsupported(gdnDiag* d, const gdnXmlElem* e, const char* what,
                         const char* substitute) {
    if (!d->accept_unsupported) {
        return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, e,
                             "%s is not simulated by gradyn; refused (the load option "
                             "accept_unsupported, CLI --accept-unsupported, loads it with "
                             "a warning: %s)",
                             what, substitute);
    }
    gdn_diag_warn(d, e->file, e->line, e->name,
                  "%s is not simulated by gradyn; accepted (accept_unsupported): %s", what,
                  substitute);
    return 0;
}
