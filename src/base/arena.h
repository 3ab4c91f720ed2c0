// SPDX-License-Identifier: Apache-2.0
// Stack-like scratch arena inside gdnData: mark, allocate, reset to mark. Never grows.
#ifndef GDN_BASE_ARENA_H
#define GDN_BASE_ARENA_H

#include <stddef.h>

#include <gradyn/data.h>

// current position of the arena stack (restore with gdn_arena_reset)
static inline size_t gdn_arena_mark(const gdnData* d) {
    return d->parena;
}

// pop everything allocated since mark
static inline void gdn_arena_reset(gdnData* d, size_t mark) {
    d->parena = mark;
}

// n doubles from the arena, 64-byte aligned, NULL (and a GDN_WARN_ARENA count) when exhausted
double* gdn_arena_doubles(gdnData* d, size_t n);

// n ints from the arena, 64-byte aligned, NULL when exhausted
int* gdn_arena_ints(gdnData* d, size_t n);

#endif
