// SPDX-License-Identifier: Apache-2.0
// Loader memory pool: bump allocation in malloc'd blocks, released all at once.
#include "mjcf/pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GDN_POOL_BLOCK (64u * 1024u)

struct gdnPoolBlock {
    gdnPoolBlock* next;
    size_t size; // usable bytes after the header
    size_t used;
    max_align_t align_; // keeps data below aligned
};

void gdn_pool_init(gdnPool* pool, size_t limit) {
    pool->head = NULL;
    pool->total = 0;
    pool->limit = limit;
}

// usable bytes of a block start right after its header
static unsigned char* block_data(gdnPoolBlock* b) {
    return (unsigned char*)(b + 1);
}

void* gdn_pool_alloc(gdnPool* pool, size_t bytes) {
    if (bytes > pool->limit) {
        return NULL;
    }
    size_t need = (bytes + 15u) & ~(size_t)15u;
    gdnPoolBlock* b = pool->head;
    if (!b || b->size - b->used < need) {
        size_t size = need > GDN_POOL_BLOCK ? need : GDN_POOL_BLOCK;
        if (pool->total + size + sizeof(gdnPoolBlock) > pool->limit) {
            return NULL;
        }
        b = malloc(sizeof(gdnPoolBlock) + size);
        if (!b) {
            return NULL;
        }
        b->size = size;
        b->used = 0;
        pool->total += size + sizeof(gdnPoolBlock);
        // a large one-off block goes behind the current one so the current keeps filling
        if (pool->head && size > GDN_POOL_BLOCK) {
            b->next = pool->head->next;
            pool->head->next = b;
        } else {
            b->next = pool->head;
            pool->head = b;
        }
    }
    void* p = block_data(b) + b->used;
    b->used += need;
    memset(p, 0, bytes);
    return p;
}

char* gdn_pool_strndup(gdnPool* pool, const char* s, size_t len) {
    char* r = gdn_pool_alloc(pool, len + 1);
    if (r) {
        memcpy(r, s, len);
        r[len] = '\0';
    }
    return r;
}

char* gdn_pool_join_path(gdnPool* pool, const char* dir, const char* file) {
    if (file[0] == '/' || !dir || !dir[0]) {
        return gdn_pool_strndup(pool, file, strlen(file));
    }
    size_t nd = strlen(dir), nf = strlen(file);
    char* p = gdn_pool_alloc(pool, nd + nf + 2);
    if (p) {
        memcpy(p, dir, nd);
        p[nd] = '/';
        memcpy(p + nd + 1, file, nf + 1);
    }
    return p;
}

int gdn_pool_reserve(gdnPool* pool, void** array, int* capacity, int need, size_t elem) {
    if (need <= *capacity) {
        return 1;
    }
    if (need < 0 || need > (1 << 28)) {
        return 0;
    }
    int cap = *capacity > 0 ? *capacity : 8;
    while (cap < need) {
        cap *= 2;
    }
    void* grown = gdn_pool_alloc(pool, (size_t)cap * elem);
    if (!grown) {
        return 0;
    }
    if (*array && *capacity > 0) {
        memcpy(grown, *array, (size_t)(*capacity) * elem);
    }
    *array = grown;
    *capacity = cap;
    return 1;
}

void gdn_pool_free(gdnPool* pool) {
    gdnPoolBlock* b = pool->head;
    while (b) {
        gdnPoolBlock* next = b->next;
        free(b);
        b = next;
    }
    pool->head = NULL;
    pool->total = 0;
}
