// SPDX-License-Identifier: Apache-2.0
// Status codes: human-readable names.
#include <gradyn/gradyn.h>

const char* gdn_status_string(gdnStatus status) {
    switch (status) {
    case GDN_OK:
        return "ok";
    case GDN_ERR_IO:
        return "i/o error";
    case GDN_ERR_PARSE:
        return "parse error";
    case GDN_ERR_MODEL:
        return "invalid model";
    case GDN_ERR_ARG:
        return "invalid argument";
    case GDN_ERR_NONFINITE:
        return "non-finite value";
    case GDN_ERR_MEMORY:
        return "out of memory";
    case GDN_ERR_UNSUPPORTED:
        return "unsupported";
    case GDN_ERR_UNCONVERGED:
        return "constraint solve not converged";
    case GDN_ERR_SINGULAR:
        return "singular linearization";
    }
    return "unknown status";
}
