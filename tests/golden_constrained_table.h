// SPDX-License-Identifier: Apache-2.0
// The golden hashes of test_golden_constrained.c, printed by `test_golden_constrained --print`
// (issue 9; the Newton paths regenerated when they began to read the factor the Newton solve
// keeps, d->solver_H: only those 16 changed; regenerated again when the constrained A, B
// began to use da = dx - (M + hD)^-1 (hD dx + Xa - X) and the rows' twist forms: A, B's
// round-off; test_golden_paths' hashes did not move; and the Newton elliptic
// paths when a cone in its cone zone stopped reading the kept factor; the damped models' when
// Xa - X came from gdn_residual_dense_inertia). See that file.
static const GoldenRow kGolden[] = {
    {"cnstr_arm_motor",
     {0x2fca55b5adab1a4cULL, 0x2fca55b5adab1a4cULL, 0x2b933ced99314047ULL,
      0x2b933ced99314047ULL, 0x00ca71342a28a61aULL, 0x00ca71342a28a61aULL}},
    {"cnstr_box",
     {0x647b742b6ff17aacULL, 0xb506248e9c55af67ULL, 0xff63d527d23dfc8eULL,
      0x143cd09f8dd77832ULL, 0x48c429c4dbd32965ULL, 0x48883affdd0280e8ULL}},
    {"cnstr_fourbar",
     {0xad59465af471033dULL, 0xad59465af471033dULL, 0x071b1c37f29d516cULL,
      0x071b1c37f29d516cULL, 0x4c0604034efd4ae0ULL, 0x4c0604034efd4ae0ULL}},
    {"cnstr_frictionloss",
     {0xc75faa866925d4fdULL, 0xc75faa866925d4fdULL, 0x78baca94ec0b10faULL,
      0x78baca94ec0b10faULL, 0x229b5f8e481748efULL, 0x229b5f8e481748efULL}},
    {"cnstr_pendulum",
     {0x976eb2a85f6175ceULL, 0x976eb2a85f6175ceULL, 0x583b59f88dca2cc7ULL,
      0x583b59f88dca2cc7ULL, 0x34c8e9d5a4163a0dULL, 0x34c8e9d5a4163a0dULL}},
    {"cnstr_sphere",
     {0x477bda43e8be4674ULL, 0xa1dae5fc7e0a2135ULL, 0x8408c5571eedd563ULL,
      0x5ed464e73bbba5c0ULL, 0xe74209594dc9e348ULL, 0x08afe3e334ba8ce6ULL}},
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
     {0x1e39df3747755868ULL, 0x1aa8c43c4467c9d7ULL, 0x4e7441adb36f5f9bULL,
      0xfd3ec6b48720afa9ULL, 0x03f9c49bcedbac1eULL, 0xb5f6e1d02671b845ULL}},
    {"sol_fourbar",
     {0x796cf2f3da7c21c8ULL, 0x796cf2f3da7c21c8ULL, 0xbf3fcaf7b1780ef6ULL,
      0xbf3fcaf7b1780ef6ULL, 0x1dc50b4bf8870914ULL, 0x1dc50b4bf8870914ULL}},
    {"sol_stack",
     {0xe1d164e5abf94563ULL, 0x0a9430acfd9c409cULL, 0x85b1965e7012f021ULL,
      0xd146a929c65cefb4ULL, 0x7068206342a6553dULL, 0x7068206342a6553dULL}},
    {"tangent_box_scene",
     {0x690b2461a748cd84ULL, 0x22b9c212bfd27ec6ULL, 0xea00cae51c2f2a84ULL,
      0x51d4af39be4efdf0ULL, 0x8d15b26af9406a55ULL, 0x1505693304df8c97ULL}},
};
