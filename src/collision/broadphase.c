// SPDX-License-Identifier: Apache-2.0
// Broad phase: world/plane body pairs plus sweep and prune of body boxes, sorted by signature.
#include "collision/broadphase.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/arena.h"

// 1 when the body has a geom with nonzero contype or conaffinity
static int can_collide(const gdnModel* m, int b) {
    for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; g++) {
        if (m->geom_contype[g] || m->geom_conaffinity[g]) {
            return 1;
        }
    }
    return 0;
}

// 1 when the body has a plane or height-field geom
static int has_plane(const gdnModel* m, int b) {
    for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; g++) {
        if (m->geom_type[g] == GDN_GEOM_PLANE || m->geom_type[g] == GDN_GEOM_HFIELD) {
            return 1;
        }
    }
    return 0;
}

// body box (lo x, hi x, lo y, hi y, lo z, hi z): union of geom_xpos +- (rbound + margin)
static void body_box(const gdnModel* m, const gdnData* d, int b, double box[6]) {
    for (int i = 0; i < m->body_geomnum[b]; i++) {
        int g = m->body_geomadr[b] + i;
        double r = m->geom_rbound[g] + m->geom_margin[g];
        for (int k = 0; k < 3; k++) {
            double lo = d->geom_xpos[3 * g + k] - r, hi = d->geom_xpos[3 * g + k] + r;
            if (i == 0 || lo < box[2 * k]) {
                box[2 * k] = lo;
            }
            if (i == 0 || hi > box[2 * k + 1]) {
                box[2 * k + 1] = hi;
            }
        }
    }
}

// 0 when the single-geom bodies' only geoms cannot collide (contype / conaffinity)
static int compatible(const gdnModel* m, int b1, int b2) {
    if (m->body_geomnum[b1] != 1 || m->body_geomnum[b2] != 1) {
        return 1;
    }
    int g1 = m->body_geomadr[b1], g2 = m->body_geomadr[b2];
    return (m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
           (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

static int signature_of(int b1, int b2) {
    return b1 < b2 ? gdn_body_pair_signature(b1, b2) : gdn_body_pair_signature(b2, b1);
}

static int compare_int(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

// sweep endpoints: value, then body (ties broken by body, min before max: deterministic)
typedef struct {
    double value;
    int body;
    int is_max;
} Endpoint;

static int compare_endpoint(const void* a, const void* b) {
    const Endpoint* p = a;
    const Endpoint* q = b;
    if (p->value != q->value) {
        return p->value < q->value ? -1 : 1;
    }
    if (p->is_max != q->is_max) {
        return p->is_max - q->is_max;
    }
    return (p->body > q->body) - (p->body < q->body);
}

// index of the lowest set bit of bits != 0
static int lowest_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#else
    int i = 0;
    while (!(bits & 1)) {
        bits >>= 1;
        i++;
    }
    return i;
#endif
}

// short arrays: insertion sort (no calls through qsort's comparator); the comparators are total
// orders, so the result is the one qsort gives
#define INSERTION_SORT_MAX 96

static void sort_endpoints(Endpoint* e, int n) {
    if (n > INSERTION_SORT_MAX) {
        qsort(e, (size_t)n, sizeof(Endpoint), compare_endpoint);
        return;
    }
    for (int i = 1; i < n; i++) {
        Endpoint x = e[i];
        int j = i;
        while (j > 0 && compare_endpoint(&e[j - 1], &x) > 0) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

static void sort_ints(int* a, int n) {
    if (n > INSERTION_SORT_MAX) {
        qsort(a, (size_t)n, sizeof(int), compare_int);
        return;
    }
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

// nbody <= 64: the pairs as one bit per partner (bit b2 of row b1, b1 < b2), read back row by
// row, lowest bit first: the signatures in increasing order, each once. Returns their number.
static int sort_unique_small(int* pairs, int npair, int nbody) {
    uint64_t rows[64] = {0};
    for (int i = 0; i < npair; i++) {
        int b1 = (pairs[i] >> 16) - 1, b2 = (pairs[i] & 0xFFFF) - 1;
        rows[b1] |= (uint64_t)1 << b2;
    }
    int n = 0;
    for (int b1 = 0; b1 < nbody; b1++) {
        for (uint64_t bits = rows[b1]; bits; bits &= bits - 1) {
            pairs[n++] = gdn_body_pair_signature(b1, lowest_bit(bits));
        }
    }
    return n;
}

int gdn_broadphase(const gdnModel* m, gdnData* d, int* pairs) {
    int nbody = m->nbody, npair = 0;
    size_t mark = gdn_arena_mark(d);
    int* with_all = gdn_arena_ints(d, (size_t)nbody);
    double* box = gdn_arena_doubles(d, 6 * (size_t)nbody);
    Endpoint* ends = (Endpoint*)(void*)gdn_arena_doubles(
        d, 2 * (size_t)nbody * ((sizeof(Endpoint) + sizeof(double) - 1) / sizeof(double)));
    int* active = gdn_arena_ints(d, (size_t)nbody);
    int* collidable = gdn_arena_ints(d, (size_t)nbody);
    if (!with_all || !box || !ends || !active || !collidable) {
        gdn_arena_reset(d, mark);
        return -1;
    }

    // the world with geoms, and bodies welded to the world with a plane: every other body
    // (each unordered pair once)
    for (int b = 0; b < nbody; b++) {
        collidable[b] = can_collide(m, b);
        with_all[b] = collidable[b] && ((b == 0 && m->body_geomnum[0] > 0) ||
                                            (m->body_weldid[b] == 0 && has_plane(m, b)));
    }
    for (int b1 = 0; b1 < nbody; b1++) {
        if (!with_all[b1]) {
            continue;
        }
        for (int b2 = 0; b2 < nbody; b2++) {
            if (b2 != b1 && !(with_all[b2] && b2 < b1)) {
                pairs[npair++] = signature_of(b1, b2);
            }
        }
    }

    // nbody <= 64 (the pairs are sorted canonically below, so the order found does not
    // matter): every pair of collidable non-world bodies whose boxes overlap in x, y and z as
    // closed intervals: the pairs the sweep finds (at a tie a min endpoint precedes a max one)
    if (nbody <= 64) {
        int ncand = 0;
        for (int b = 1; b < nbody; b++) {
            if (collidable[b]) {
                body_box(m, d, b, box + 6 * b);
                active[ncand++] = b;
            }
        }
        for (int i = 0; i < ncand; i++) {
            int b1 = active[i];
            const double* p = box + 6 * b1;
            for (int j = i + 1; j < ncand; j++) {
                int b2 = active[j];
                const double* q = box + 6 * b2;
                if (p[0] > q[1] || p[1] < q[0] || p[2] > q[3] || p[3] < q[2] || p[4] > q[5] ||
                    p[5] < q[4]) {
                    continue;
                }
                if (!with_all[b1] && !with_all[b2] && compatible(m, b1, b2)) {
                    pairs[npair++] = signature_of(b1, b2);
                }
            }
        }
        gdn_arena_reset(d, mark);
        return sort_unique_small(pairs, npair, nbody);
    }

    // sweep and prune of the collidable non-world bodies along x
    int nend = 0;
    for (int b = 1; b < nbody; b++) {
        if (!collidable[b]) {
            continue;
        }
        body_box(m, d, b, box + 6 * b);
        ends[nend++] = (Endpoint){box[6 * b], b, 0};
        ends[nend++] = (Endpoint){box[6 * b + 1], b, 1};
    }
    sort_endpoints(ends, nend);
    int nactive = 0;
    for (int i = 0; i < nend; i++) {
        int b2 = ends[i].body;
        if (ends[i].is_max) {
            // leaves the active list
            for (int j = 0; j < nactive; j++) {
                if (active[j] == b2) {
                    active[j] = active[--nactive];
                    break;
                }
            }
            continue;
        }
        // enters: test y and z against every active body
        const double* q = box + 6 * b2;
        for (int j = 0; j < nactive; j++) {
            int b1 = active[j];
            const double* p = box + 6 * b1;
            if (p[2] > q[3] || p[3] < q[2] || p[4] > q[5] || p[5] < q[4]) {
                continue;
            }
            if (!with_all[b1] && !with_all[b2] && compatible(m, b1, b2)) {
                pairs[npair++] = signature_of(b1, b2);
            }
        }
        active[nactive++] = b2;
    }
    gdn_arena_reset(d, mark);

    // increasing signatures, repeats removed
    sort_ints(pairs, npair);
    int n = 0;
    for (int i = 0; i < npair; i++) {
        if (n == 0 || pairs[i] != pairs[n - 1]) {
            pairs[n++] = pairs[i];
        }
    }
    return n;
}
