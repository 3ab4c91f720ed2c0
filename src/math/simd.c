// SPDX-License-Identifier: Apache-2.0
// The run-time choice of the many-column kernels' copy: AVX2 when the CPU has it.
#include "math/simd.h"

#include <stdatomic.h>

// the CPU's answer (-1 not asked yet) and the tests' override; relaxed atomics: racing first
// callers store the same answer
#if GDN_SIMD_AVX2
static atomic_int cpu_avx2 = -1;
#endif
static atomic_int forced_baseline = 0;

int gdn_simd_avx2_available(void) {
#if GDN_SIMD_AVX2
    int s = atomic_load_explicit(&cpu_avx2, memory_order_relaxed);
    if (s < 0) {
        __builtin_cpu_init();
        s = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&cpu_avx2, s, memory_order_relaxed);
    }
    return s;
#else
    return 0;
#endif
}

int gdn_simd_use_avx2(void) {
    if (atomic_load_explicit(&forced_baseline, memory_order_relaxed)) {
        return 0;
    }
    return gdn_simd_avx2_available();
}

void gdn_simd_force_baseline(int force) {
    atomic_store_explicit(&forced_baseline, force ? 1 : 0, memory_order_relaxed);
}
