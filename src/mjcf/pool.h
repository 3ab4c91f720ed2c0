// SPDX-License-Identifier: Apache-2.0
// Loader memory pool: many small zeroed allocations, all released at once (no leaks on error).
#ifndef GDN_MJCF_POOL_H
#define GDN_MJCF_POOL_H

#include <stddef.h>

typedef struct gdnPoolBlock gdnPoolBlock;

typedef struct gdnPool {
    gdnPoolBlock* head; // most recent block
    size_t total;       // bytes obtained from malloc so far
    size_t limit;       // refuse to grow past this many bytes
} gdnPool;

// an empty pool that will refuse to hold more than limit bytes
void gdn_pool_init(gdnPool* pool, size_t limit);

// zeroed, 16-byte aligned memory; NULL when the limit is reached or malloc fails
void* gdn_pool_alloc(gdnPool* pool, size_t bytes);

// a copy of the first len bytes of s plus a terminating '\0'
char* gdn_pool_strndup(gdnPool* pool, const char* s, size_t len);

// dir + "/" + file, or a copy of file alone when it is absolute or dir is NULL or empty;
// NULL when out of memory
char* gdn_pool_join_path(gdnPool* pool, const char* dir, const char* file);

// grow an array of count elements to capacity >= need (doubling); returns 0 on failure
int gdn_pool_reserve(gdnPool* pool, void** array, int* capacity, int need, size_t elem);

// release every allocation
void gdn_pool_free(gdnPool* pool);

#endif
