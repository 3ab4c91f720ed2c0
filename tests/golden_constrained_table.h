// SPDX-License-Identifier: Apache-2.0
// The golden hashes of test_golden_constrained.c, printed by `test_golden_constrained --print`
// (issue 9; the Newton paths regenerated when they began to read the factor the Newton solve
// keeps, d->solver_H: only those 16 changed; regenerated again when the constrained A, B
// began to use da = dx - (M + hD)^-1 (hD dx + Xa - X) and the rows' twist forms: A, B's
// round-off; test_golden_paths' hashes did not move; and the Newton elliptic
// paths when a cone in its cone zone stopped reading the kept factor; the damped models' when
// Xa - X came from gdn_residual_dense_inertia; every row when the inertia parameters' path
// through the constraint weights took the direct form <dI_b, J_b Y J_b'>; tendon_fixed,
// tendon_spatial and tendon_wrap added with the tendons, the other rows unchanged). See that
// file.
static const GoldenRow kGolden[] = {
    {"cnstr_arm_motor",
     {0x7a9a110184ad24fbULL, 0x7a9a110184ad24fbULL, 0x6b0c14f2ec89d623ULL,
      0x6b0c14f2ec89d623ULL, 0xdcd549e89c8a6a76ULL, 0xdcd549e89c8a6a76ULL}},
    {"cnstr_box",
     {0x10e84a1fbe1e1e8eULL, 0x95eb0c2f5d5412b2ULL, 0x0015485560fede06ULL,
      0xa321490b3ccc74e5ULL, 0x9c84dadb6ff3fce8ULL, 0x2eaf3627f0f47797ULL}},
    {"cnstr_fourbar",
     {0x4ee3c4fcff800810ULL, 0x4ee3c4fcff800810ULL, 0xbd21f442bfab44a5ULL,
      0xbd21f442bfab44a5ULL, 0xa092aa8847c02a0bULL, 0xa092aa8847c02a0bULL}},
    {"cnstr_frictionloss",
     {0x69ea313cfbf5fc27ULL, 0x69ea313cfbf5fc27ULL, 0x147f2de9222b2e69ULL,
      0x147f2de9222b2e69ULL, 0xca6370fbd19330ecULL, 0xca6370fbd19330ecULL}},
    {"cnstr_pendulum",
     {0xf8fc9632afa9f920ULL, 0xf8fc9632afa9f920ULL, 0x6ac97f0f78912cefULL,
      0x6ac97f0f78912cefULL, 0x731957f2779fd4f5ULL, 0x731957f2779fd4f5ULL}},
    {"cnstr_sphere",
     {0x1dc45269a8ea97deULL, 0x5ed24eb9c3e0e57dULL, 0x8472c0f76a75f708ULL,
      0xf0d545f37e5c143eULL, 0x0923b1b3f2eba3cdULL, 0x414c2ce84db34a73ULL}},
    {"cnstr_weld",
     {0x47b701610be296e7ULL, 0x47b701610be296e7ULL, 0x953afded98ac54a3ULL,
      0x953afded98ac54a3ULL, 0x552010398bd35b3dULL, 0x552010398bd35b3dULL}},
    {"dcon_pairs",
     {0x1cde6e3c666c22d5ULL, 0x0f4fbaea459a2663ULL, 0xd9db0af00b8fe10dULL,
      0x42a85d91e8464616ULL, 0x42d072ba1ca4e051ULL, 0x9debd8b5f239943aULL}},
    {"scene_drop_box",
     {0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL,
      0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL}},
    {"scene_tip",
     {0xae00464ad7e56cb4ULL, 0x1c5b4c46ad986936ULL, 0x5637745ba3000ffdULL,
      0x537e1267f1a6ae8fULL, 0x2fe37f0358f0cf64ULL, 0x6ee308c8da49d13cULL}},
    {"sol_fourbar",
     {0x399bbe0489dffdc6ULL, 0x399bbe0489dffdc6ULL, 0xa3bfc352af8885b7ULL,
      0xa3bfc352af8885b7ULL, 0x8d4e223dd3df8637ULL, 0x8d4e223dd3df8637ULL}},
    {"sol_stack",
     {0xf9e05bc906264dacULL, 0xe2dd8cc66d771e9dULL, 0x1f92d976e9e2c803ULL,
      0x6473ab8c378bc99eULL, 0x7068206342a6553dULL, 0x7068206342a6553dULL}},
    {"tangent_box_scene",
     {0x03005a6d5e0acf5cULL, 0x223c089bf7923c96ULL, 0x67efa0c444a0001aULL,
      0x85cd29bc2b3d0954ULL, 0x2140a5e3b28f6df3ULL, 0x3ad28d05a76a96f3ULL}},
    {"tendon_fixed",
     {0x0f52f4cb25c65f0bULL, 0x0f52f4cb25c65f0bULL, 0x2659c520e66b486bULL,
      0x2659c520e66b486bULL, 0x20b01688830ba424ULL, 0x20b01688830ba424ULL}},
    {"tendon_spatial",
     {0xc185312c3cd92e4bULL, 0xc185312c3cd92e4bULL, 0x086690ead4d3f986ULL,
      0x086690ead4d3f986ULL, 0x922035e6e037c350ULL, 0x922035e6e037c350ULL}},
    {"tendon_wrap",
     {0xd81789ff0f87d810ULL, 0xd81789ff0f87d810ULL, 0xe72ac8ff1ae19ee1ULL,
      0xe72ac8ff1ae19ee1ULL, 0x2e7ede419d662f31ULL, 0x2e7ede419d662f31ULL}},
};
