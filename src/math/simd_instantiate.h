// SPDX-License-Identifier: Apache-2.0
// Internal: compiles the kernel source GDN_K_SOURCE (a header written over GDN_K_LANE, GDN_K_W,
// GDN_K_B, GDN_K(name), GDN_K_ATTR) twice: the baseline copy (2 doubles per lane vector; 1, plain
// double, without GNU vectors) and the AVX2 one (4; chosen at run time, math/simd.h). Each lane
// does the scalar operations of its column in the scalar order, so every copy gives the same
// bits. Include it once per kernel source, after math/simd.h, with GDN_K_SOURCE defined.
#ifndef GDN_K_SOURCE
#    error "define GDN_K_SOURCE before including math/simd_instantiate.h"
#endif
#if GDN_SIMD_VECTOR
#    define GDN_K_LANE gdnLane2
#    define GDN_K_W 2
#else
#    define GDN_K_LANE double
#    define GDN_K_W 1
#endif
#define GDN_K_B 8
#define GDN_K(name) name##_base
#define GDN_K_ATTR
#include GDN_K_SOURCE
#if GDN_SIMD_AVX2
#    define GDN_K_LANE gdnLane4
#    define GDN_K_W 4
#    define GDN_K_B 8
#    define GDN_K(name) name##_avx2
#    define GDN_K_ATTR GDN_SIMD_TARGET_AVX2
#    include GDN_K_SOURCE
#endif
#undef GDN_K_SOURCE
