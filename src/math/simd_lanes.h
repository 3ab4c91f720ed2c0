// SPDX-License-Identifier: Apache-2.0
// Internal: one kernel copy's lane helpers, included by a kernel template (math/simd.h) after
// GDN_K_LANE (double, gdnLane2 or gdnLane4) and GDN_K_W (its doubles) are defined; the
// template undefines them with its parameters (math/simd_lanes_end.h). No include guard.
#if !defined(GDN_K_LANE) || !defined(GDN_K_W)
#    error "simd_lanes.h: define GDN_K_LANE and GDN_K_W first"
#endif

// v <- the n doubles at src (n a constant <= GDN_K_W; the other lanes 0); dst <- v's first n.
// A partial vector is built and taken apart in registers (element by element: a partial copy
// through memory would stall the store forwarding of every load)
#if GDN_K_W == 4
#    define GDN_K_LANEU gdnLane4u
#elif GDN_K_W == 2
#    define GDN_K_LANEU gdnLane2u
#endif
#if GDN_K_W == 4
#    define GDN_K_GET(v, src, n)                                                            \
        do {                                                                                \
            if ((n) == 4) {                                                                 \
                (v) = *(const GDN_K_LANEU*)(const void*)(src);                              \
            } else if ((n) == 3) {                                                          \
                (v) = (GDN_K_LANE){(src)[0], (src)[1], (src)[2], 0};                        \
            } else if ((n) == 2) {                                                          \
                (v) = (GDN_K_LANE){(src)[0], (src)[1], 0, 0};                               \
            } else {                                                                        \
                (v) = (GDN_K_LANE){(src)[0], 0, 0, 0};                                      \
            }                                                                               \
        } while (0)
#elif GDN_K_W == 2
#    define GDN_K_GET(v, src, n)                                                            \
        do {                                                                                \
            if ((n) == 2) {                                                                 \
                (v) = *(const GDN_K_LANEU*)(const void*)(src);                              \
            } else {                                                                        \
                (v) = (GDN_K_LANE){(src)[0], 0};                                            \
            }                                                                               \
        } while (0)
#else
#    define GDN_K_GET(v, src, n) ((v) = *(src))
#endif
#if GDN_K_W > 1
#    define GDN_K_PUT(dst, v, n)                                                            \
        do {                                                                                \
            if ((n) == GDN_K_W) {                                                           \
                *(GDN_K_LANEU*)(void*)(dst) = (v);                                          \
            } else {                                                                        \
                for (int q_ = 0; q_ < (n); q_++) {                                          \
                    (dst)[q_] = (v)[q_];                                                    \
                }                                                                           \
            }                                                                               \
        } while (0)
#else
#    define GDN_K_PUT(dst, v, n) (*(dst) = (v))
#endif

// lane vector p of a block of P whole vectors and R more columns: its doubles
#define GDN_K_LANES(p, P, R) ((p) < (P) ? GDN_K_W : (R))

// the block switch of this width (math/simd.h)
#if GDN_K_W == 4
#    define GDN_K_BLOCKS GDN_SIMD_BLOCKS_W4
#elif GDN_K_W == 2
#    define GDN_K_BLOCKS GDN_SIMD_BLOCKS_W2
#else
#    define GDN_K_BLOCKS GDN_SIMD_BLOCKS_W1
#endif
