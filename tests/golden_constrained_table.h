// SPDX-License-Identifier: Apache-2.0
// The golden hashes of test_golden_constrained.c, printed by `test_golden_constrained --print`
// (issue 9; the Newton paths regenerated when they began to read the factor the Newton solve
// keeps, d->solver_H: only those 16 changed; regenerated again when the constrained A, B
// began to use da = dx - (M + hD)^-1 (hD dx + Xa - X), the rows' twist forms and the tree
// factor of H: A, B's round-off; test_golden_paths' hashes did not move; and the Newton elliptic
// paths when a cone in its cone zone stopped reading the kept factor; the damped models' when
// Xa - X came from gdn_residual_dense_inertia). See that file.
static const GoldenRow kGolden[] = {
    {"cnstr_arm_motor",
     {0x2cd753334761645dULL, 0x2cd753334761645dULL, 0xdd2b67d6049ee3ccULL,
      0xdd2b67d6049ee3ccULL, 0x331a1550b24d3a59ULL, 0x331a1550b24d3a59ULL}},
    {"cnstr_box",
     {0x4d79089c19034128ULL, 0x523e4e5375b5a821ULL, 0x58832652e0d2e691ULL,
      0xc43713ae772d1c50ULL, 0x48c429c4dbd32965ULL, 0xd6959b1d1f495d96ULL}},
    {"cnstr_fourbar",
     {0xad59465af471033dULL, 0xad59465af471033dULL, 0x071b1c37f29d516cULL,
      0x071b1c37f29d516cULL, 0x4c0604034efd4ae0ULL, 0x4c0604034efd4ae0ULL}},
    {"cnstr_frictionloss",
     {0xdf87a0a2454acb73ULL, 0xdf87a0a2454acb73ULL, 0xdc2266cdd21b95cfULL,
      0xdc2266cdd21b95cfULL, 0x905de5fb57bf9ea0ULL, 0x905de5fb57bf9ea0ULL}},
    {"cnstr_pendulum",
     {0x976eb2a85f6175ceULL, 0x976eb2a85f6175ceULL, 0x583b59f88dca2cc7ULL,
      0x583b59f88dca2cc7ULL, 0x34c8e9d5a4163a0dULL, 0x34c8e9d5a4163a0dULL}},
    {"cnstr_sphere",
     {0xd0baa8ae5181ada3ULL, 0xb04da21d8ea19dbdULL, 0x9ac846af6eed1f6fULL,
      0xf2f6355a0a79d9aeULL, 0x5e9d48676d124185ULL, 0xd93496e5dc6b7a82ULL}},
    {"cnstr_weld",
     {0x5df741613c259072ULL, 0x5df741613c259072ULL, 0xf9b8003a49c08ed9ULL,
      0xf9b8003a49c08ed9ULL, 0x552010398bd35b3dULL, 0x552010398bd35b3dULL}},
    {"dcon_pairs",
     {0xce4518f5280e2c09ULL, 0xf8f49e27d0ec0a98ULL, 0x76977ed67dca60e4ULL,
      0x3934fff42822cfb8ULL, 0x31b63893fd75968bULL, 0x03e7d11b973fe642ULL}},
    {"scene_drop_box",
     {0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL,
      0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL}},
    {"scene_tip",
     {0x0823b66c31666fdeULL, 0x354605459089b411ULL, 0xfa28db49ff293607ULL,
      0x0f26999c4cd92189ULL, 0x16050ac6743e8980ULL, 0x45059305fb73c95eULL}},
    {"sol_fourbar",
     {0x95536df08295997aULL, 0x95536df08295997aULL, 0xf02afdfa6a97ebb3ULL,
      0xf02afdfa6a97ebb3ULL, 0x56f17d2e7d54e988ULL, 0x56f17d2e7d54e988ULL}},
    {"sol_stack",
     {0xe1d164e5abf94563ULL, 0x0a9430acfd9c409cULL, 0x85b1965e7012f021ULL,
      0xd146a929c65cefb4ULL, 0x7068206342a6553dULL, 0x7068206342a6553dULL}},
    {"tangent_box_scene",
     {0x690b2461a748cd84ULL, 0x22b9c212bfd27ec6ULL, 0xea00cae51c2f2a84ULL,
      0x51d4af39be4efdf0ULL, 0x8d15b26af9406a55ULL, 0x1505693304df8c97ULL}},
};
