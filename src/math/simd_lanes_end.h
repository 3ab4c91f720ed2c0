// SPDX-License-Identifier: Apache-2.0
// Internal: the end of a kernel template's copy: its parameters and math/simd_lanes.h's helpers
// undefined, for the next copy. No include guard.
#undef GDN_K_LANEU
#undef GDN_K_GET
#undef GDN_K_PUT
#undef GDN_K_LANES
#undef GDN_K_BLOCKS
#undef GDN_K_LANE
#undef GDN_K_W
#undef GDN_K_B
#undef GDN_K
#undef GDN_K_ATTR
