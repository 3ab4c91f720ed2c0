// SPDX-License-Identifier: Apache-2.0
// libstdc++'s std::sort order (introsort + final insertion sort) on int keys.
#include "mjcf/sort_std.h"

#define RUN_THRESHOLD 16 // ranges at most this long are left to the insertion sort

static int less(const gdnSortItem* a, const gdnSortItem* b) {
    return a->key < b->key;
}

static void swap_items(gdnSortItem* a, gdnSortItem* b) {
    gdnSortItem t = *a;
    *a = *b;
    *b = t;
}

// ---------------------------------------------------------------- heapsort fallback

// move value up from hole towards top while its parent is smaller (max-heap)
static void push_heap(gdnSortItem* first, int hole, int top, gdnSortItem value) {
    int parent = (hole - 1) / 2;
    while (hole > top && less(&first[parent], &value)) {
        first[hole] = first[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    first[hole] = value;
}

// sift the hole down to a leaf along the larger children, then push value up from there
static void adjust_heap(gdnSortItem* first, int hole, int len, gdnSortItem value) {
    int top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (less(&first[child], &first[child - 1])) {
            child--;
        }
        first[hole] = first[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        first[hole] = first[child - 1];
        hole = child - 1;
    }
    push_heap(first, hole, top, value);
}

static void heap_sort(gdnSortItem* first, int len) {
    if (len >= 2) {
        for (int parent = (len - 2) / 2;; parent--) {
            adjust_heap(first, parent, len, first[parent]);
            if (parent == 0) {
                break;
            }
        }
    }
    for (int last = len - 1; last > 0; last--) {
        gdnSortItem value = first[last];
        first[last] = first[0];
        adjust_heap(first, 0, last, value);
    }
}

// ---------------------------------------------------------------- introsort

// put the median of a, b, c into *result (libstdc++'s comparison sequence)
static void median_to_first(gdnSortItem* result, gdnSortItem* a, gdnSortItem* b, gdnSortItem* c) {
    if (less(a, b)) {
        if (less(b, c)) {
            swap_items(result, b);
        } else if (less(a, c)) {
            swap_items(result, c);
        } else {
            swap_items(result, a);
        }
    } else if (less(a, c)) {
        swap_items(result, a);
    } else if (less(b, c)) {
        swap_items(result, c);
    } else {
        swap_items(result, b);
    }
}

// Hoare partition of [lo, hi) around *pivot (which lies before lo); returns the cut
static gdnSortItem* partition(gdnSortItem* lo, gdnSortItem* hi, const gdnSortItem* pivot) {
    for (;;) {
        while (less(lo, pivot)) {
            lo++;
        }
        hi--;
        while (less(pivot, hi)) {
            hi--;
        }
        if (!(lo < hi)) {
            return lo;
        }
        swap_items(lo, hi);
        lo++;
    }
}

static void introsort_loop(gdnSortItem* first, gdnSortItem* last, int depth_limit) {
    while (last - first > RUN_THRESHOLD) {
        if (depth_limit == 0) {
            heap_sort(first, (int)(last - first));
            return;
        }
        depth_limit--;
        gdnSortItem* mid = first + (last - first) / 2;
        median_to_first(first, first + 1, mid, last - 1);
        gdnSortItem* cut = partition(first + 1, last, first);
        introsort_loop(cut, last, depth_limit);
        last = cut;
    }
}

// ---------------------------------------------------------------- final insertion sort

// shift *pos left past larger items (something not larger is known to lie before it)
static void linear_insert(gdnSortItem* pos) {
    gdnSortItem value = *pos;
    gdnSortItem* next = pos - 1;
    while (less(&value, next)) {
        *pos = *next;
        pos = next;
        next--;
    }
    *pos = value;
}

static void insertion_sort(gdnSortItem* first, gdnSortItem* last) {
    for (gdnSortItem* i = first + 1; i < last; i++) {
        if (less(i, first)) {
            gdnSortItem value = *i;
            for (gdnSortItem* p = i; p > first; p--) {
                *p = *(p - 1);
            }
            *first = value;
        } else {
            linear_insert(i);
        }
    }
}

void gdn_sort_std(gdnSortItem* items, int n) {
    if (n <= 1) {
        return;
    }
    int lg = 0; // floor(log2 n)
    while ((n >> (lg + 1)) > 0) {
        lg++;
    }
    introsort_loop(items, items + n, 2 * lg);
    if (n > RUN_THRESHOLD) {
        insertion_sort(items, items + RUN_THRESHOLD);
        for (gdnSortItem* i = items + RUN_THRESHOLD; i < items + n; i++) {
            linear_insert(i);
        }
    } else {
        insertion_sort(items, items + n);
    }
}
