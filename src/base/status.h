// SPDX-License-Identifier: Apache-2.0
// Internal: a failure status returned with its message written into the caller's buffer.
#ifndef GDN_BASE_STATUS_H
#define GDN_BASE_STATUS_H

#include <gradyn/gradyn.h>

// printf-style message into msg (msg_size bytes; nothing when msg is NULL or msg_size <= 0),
// returns status
gdnStatus gdn_fail(gdnStatus status, char* msg, int msg_size, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
