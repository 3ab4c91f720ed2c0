// SPDX-License-Identifier: Apache-2.0
// Loader diagnostics: the first error and the warning lines, as "file:line: element: text".
#ifndef GDN_MJCF_DIAG_H
#define GDN_MJCF_DIAG_H

#include <stdarg.h>

#include <gradyn/gradyn.h>

typedef struct gdnDiag {
    char* err;       // caller's error buffer (may be NULL)
    int err_size;
    char* warn;      // caller's warning buffer (may be NULL)
    int warn_size;
    int warn_len;    // bytes used in warn
    int nwarn;       // warnings reported (including those that did not fit)
    gdnStatus status; // first error, GDN_OK while none
    int accept_unsupported; // gdnLoadOptions: unsimulated dynamics warned and substituted
} gdnDiag;

// an empty diagnostics record writing into the caller's buffers
void gdn_diag_init(gdnDiag* d, char* err, int err_size, char* warn, int warn_size);

// record an error (only the first one is kept) and return the status now in force;
// file may be NULL, line <= 0 omits the line, elem may be NULL
gdnStatus gdn_diag_error(gdnDiag* d, gdnStatus status, const char* file, int line,
                         const char* elem, const char* fmt, ...);
gdnStatus gdn_diag_verror(gdnDiag* d, gdnStatus status, const char* file, int line,
                          const char* elem, const char* fmt, va_list ap);

// append one warning line (silently truncated when the buffer is full)
void gdn_diag_warn(gdnDiag* d, const char* file, int line, const char* elem, const char* fmt,
                   ...);

#endif
