// SPDX-License-Identifier: Apache-2.0
// Stack-like scratch arena inside gdnData (see arena.h).
#include "base/arena.h"

// bump-allocate bytes rounded up to 64-byte alignment
static void* arena_bytes(gdnData* d, size_t bytes) {
    size_t start = (d->parena + 63u) & ~(size_t)63u;
    if (start > d->narena || bytes > d->narena - start) {
        d->warning[GDN_WARN_ARENA]++;
        return NULL;
    }
    d->parena = start + bytes;
    if (d->parena > d->maxuse_arena) {
        d->maxuse_arena = d->parena;
    }
    return d->arena + start;
}

double* gdn_arena_doubles(gdnData* d, size_t n) {
    return (double*)arena_bytes(d, n * sizeof(double));
}

int* gdn_arena_ints(gdnData* d, size_t n) {
    return (int*)arena_bytes(d, n * sizeof(int));
}
