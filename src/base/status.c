// SPDX-License-Identifier: Apache-2.0
// Status codes: human-readable names, and a failure status returned with its message.
#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>

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

gdnStatus gdn_fail(gdnStatus status, char* msg, int msg_size, const char* fmt, ...) {
    if (msg && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)msg_size, fmt, ap);
        va_end(ap);
    }
    return status;
}
