// SPDX-License-Identifier: Apache-2.0
// The element order of GNU libstdc++'s std::sort (introsort), which MuJoCo's compiler uses to
// sort pairs and excludes: equal keys end in the order this unstable algorithm leaves them.
#ifndef GDN_MJCF_SORT_STD_H
#define GDN_MJCF_SORT_STD_H

// an int key and the item's position before sorting
typedef struct gdnSortItem {
    int key;
    int index;
} gdnSortItem;

// sort items[0..n) by increasing key (comparison: a.key < b.key only) exactly as libstdc++
// (GCC 4.5 to at least 12) orders them: introsort with median-of-three pivots, a heapsort
// fallback at depth 2 floor(log2 n), runs of at most 16 left to a final insertion sort
void gdn_sort_std(gdnSortItem* items, int n);

#endif
