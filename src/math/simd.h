// SPDX-License-Identifier: Apache-2.0
// Internal: the run-time choice between the baseline and the AVX2 copy of the many-column
// kernels (gradient/columns.c, dynamics/damped_mass.c) and the lanes of one copy.
#ifndef GDN_MATH_SIMD_H
#define GDN_MATH_SIMD_H

// GDN_SIMD_AVX2: 1 when a second copy of the kernels is built for AVX2 (GCC or Clang on x86;
// -DGDN_SIMD_BASELINE_ONLY=1 builds the baseline alone). GDN_SIMD_VECTOR: 1 when the kernels
// use GNU vector types (2 doubles per lane vector in the baseline copy, 4 in the AVX2 one),
// else plain scalar loops. No copy enables FMA: every lane does the scalar multiply, then the
// add, so each copy gives the same bits.
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && \
    !(defined(GDN_SIMD_BASELINE_ONLY) && GDN_SIMD_BASELINE_ONLY)
#    define GDN_SIMD_AVX2 1
#    define GDN_SIMD_TARGET_AVX2 __attribute__((target("avx2")))
#else
#    define GDN_SIMD_AVX2 0
#endif
#if defined(__GNUC__) || defined(__clang__)
#    define GDN_SIMD_VECTOR 1
#else
#    define GDN_SIMD_VECTOR 0
#endif

// the lane vectors of the copies (GNU vector types: element-wise operators, a double operand
// broadcast to every lane)
#if GDN_SIMD_VECTOR
typedef double gdnLane2 __attribute__((vector_size(16)));
typedef double gdnLane4 __attribute__((vector_size(32)));
// the same at any double's address (unaligned loads and stores that may alias doubles)
typedef double gdnLane2u __attribute__((vector_size(16), aligned(8), may_alias));
typedef double gdnLane4u __attribute__((vector_size(32), aligned(8), may_alias));
#endif

// the loops over a block's lane vectors unrolled completely (at -O2 too), so that the vectors
// stay in registers
#if defined(__GNUC__) || defined(__clang__)
#    define GDN_SIMD_UNROLL _Pragma("GCC unroll 16")
#else
#    define GDN_SIMD_UNROLL
#endif

// a column block kernel called with its P whole lane vectors (0 <= P <= 8) and R more columns
// in one partial lane vector (0 <= R < the lane width) constants, so that each instance keeps
// its vectors in registers: fn(args..., P, R). GDN_SIMD_BLOCKS_W<w>: for lane width w
#define GDN_SIMD_BLOCK_P(P, R, fn, ...)                                                    \
    switch (P) {                                                                           \
    case 0: fn(__VA_ARGS__, 0, R); break;                                                  \
    case 1: fn(__VA_ARGS__, 1, R); break;                                                  \
    case 2: fn(__VA_ARGS__, 2, R); break;                                                  \
    case 3: fn(__VA_ARGS__, 3, R); break;                                                  \
    case 4: fn(__VA_ARGS__, 4, R); break;                                                  \
    case 5: fn(__VA_ARGS__, 5, R); break;                                                  \
    case 6: fn(__VA_ARGS__, 6, R); break;                                                  \
    case 7: fn(__VA_ARGS__, 7, R); break;                                                  \
    default: fn(__VA_ARGS__, 8, R); break;                                                 \
    }
#define GDN_SIMD_BLOCKS_W1(P, R, fn, ...)                                                  \
    (void)(R);                                                                             \
    GDN_SIMD_BLOCK_P(P, 0, fn, __VA_ARGS__)
#define GDN_SIMD_BLOCKS_W2(P, R, fn, ...)                                                  \
    if ((R) == 0) {                                                                        \
        GDN_SIMD_BLOCK_P(P, 0, fn, __VA_ARGS__)                                            \
    } else {                                                                               \
        GDN_SIMD_BLOCK_P(P, 1, fn, __VA_ARGS__)                                            \
    }
#define GDN_SIMD_BLOCKS_W4(P, R, fn, ...)                                                  \
    switch (R) {                                                                           \
    case 0: { GDN_SIMD_BLOCK_P(P, 0, fn, __VA_ARGS__) } break;                             \
    case 1: { GDN_SIMD_BLOCK_P(P, 1, fn, __VA_ARGS__) } break;                             \
    case 2: { GDN_SIMD_BLOCK_P(P, 2, fn, __VA_ARGS__) } break;                             \
    default: { GDN_SIMD_BLOCK_P(P, 3, fn, __VA_ARGS__) } break;                            \
    }

// 1 when the AVX2 copies run: built (GDN_SIMD_AVX2), the CPU and OS support AVX2 (asked once)
// and the baseline is not forced
int gdn_simd_use_avx2(void);

// 1 when the AVX2 copies are built and the CPU supports them (whatever is forced)
int gdn_simd_avx2_available(void);

// tests: force the baseline copies (force = 1) or return to the CPU's choice (0)
void gdn_simd_force_baseline(int force);

#endif
