// SPDX-License-Identifier: Apache-2.0
// Loader diagnostics: formats "file:line: element: text" into the caller's buffers.
#include "mjcf/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gdn_diag_init(gdnDiag* d, char* err, int err_size, char* warn, int warn_size) {
    d->err = err_size > 0 ? err : NULL;
    d->err_size = err ? err_size : 0;
    d->warn = warn_size > 0 ? warn : NULL;
    d->warn_size = warn ? warn_size : 0;
    d->warn_len = 0;
    d->nwarn = 0;
    d->status = GDN_OK;
    d->accept_unsupported = 0;
    if (d->err) {
        d->err[0] = '\0';
    }
    if (d->warn) {
        d->warn[0] = '\0';
    }
}

// "file:line: element: " prefix into buf (size n > 0); returns the bytes written
static int write_prefix(char* buf, size_t n, const char* file, int line, const char* elem) {
    int len = 0;
    if (file && line > 0) {
        len = snprintf(buf, n, "%s:%d: ", file, line);
    } else if (file) {
        len = snprintf(buf, n, "%s: ", file);
    }
    if (len < 0) {
        len = 0;
    }
    if ((size_t)len >= n) {
        return (int)n - 1;
    }
    if (elem && elem[0]) {
        int e = snprintf(buf + len, n - (size_t)len, "%s: ", elem);
        if (e > 0) {
            len += e;
        }
    }
    if ((size_t)len >= n) {
        return (int)n - 1;
    }
    return len;
}

gdnStatus gdn_diag_verror(gdnDiag* d, gdnStatus status, const char* file, int line,
                          const char* elem, const char* fmt, va_list ap) {
    if (d->status != GDN_OK) {
        return d->status;
    }
    d->status = status;
    if (d->err) {
        size_t n = (size_t)d->err_size;
        int len = write_prefix(d->err, n, file, line, elem);
        vsnprintf(d->err + len, n - (size_t)len, fmt, ap);
        if (!d->err[0]) {
            snprintf(d->err, n, "%s", gdn_status_string(status));
        }
    }
    return status;
}

gdnStatus gdn_diag_error(gdnDiag* d, gdnStatus status, const char* file, int line,
                         const char* elem, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gdnStatus st = gdn_diag_verror(d, status, file, line, elem, fmt, ap);
    va_end(ap);
    return st;
}

void gdn_diag_warn(gdnDiag* d, const char* file, int line, const char* elem, const char* fmt,
                   ...) {
    d->nwarn++;
    if (!d->warn || d->warn_len + 2 >= d->warn_size) {
        return;
    }
    char* out = d->warn + d->warn_len;
    size_t room = (size_t)(d->warn_size - d->warn_len);
    int len = write_prefix(out, room, file, line, elem);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + len, room - (size_t)len, fmt, ap);
    va_end(ap);
    size_t used = strlen(out);
    // terminate the line, keeping room for '\0'
    if (used + 1 < room) {
        out[used++] = '\n';
        out[used] = '\0';
    }
    d->warn_len += (int)used;
}
