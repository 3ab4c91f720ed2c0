// SPDX-License-Identifier: Apache-2.0
// The golden hashes of test_golden_constrained.c, printed by `test_golden_constrained --print`
// (issue 9; the Newton paths regenerated when they began to read the factor the Newton solve
// keeps, d->solver_H: only those 16 changed; regenerated again when the constrained A, B
// began to use da = dx - (M + hD)^-1 (hD dx + Xa - X) and the rows' twist forms: A, B's
// round-off; test_golden_paths' hashes did not move; and the Newton elliptic
// paths when a cone in its cone zone stopped reading the kept factor; the damped models' when
// Xa - X came from gdn_residual_dense_inertia; every row when the inertia parameters' path
// through the constraint weights took the direct form <dI_b, J_b Y J_b'>; tendon_fixed,
// tendon_spatial and tendon_wrap added with the tendons, the other rows unchanged; the PGS
// paths of 7 models when the report gained GDN_DERIV_INEXACT_SOLVE: with that bit masked the
// old hashes hold, the arithmetic did not move). See that file.
static const GoldenRow kGolden[] = {
    {"cnstr_arm_motor",
     {0x7a9a110184ad24fbULL, 0x7a9a110184ad24fbULL, 0x6b0c14f2ec89d623ULL,
      0x6b0c14f2ec89d623ULL, 0xdcd549e89c8a6a76ULL, 0xdcd549e89c8a6a76ULL}},
    {"cnstr_box",
     {0x10e84a1fbe1e1e8eULL, 0x95eb0c2f5d5412b2ULL, 0x0015485560fede06ULL,
      0xa321490b3ccc74e5ULL, 0xaaf11ec79af4d238ULL, 0x1c2a2fc47ab4edd7ULL}},
    {"cnstr_fourbar",
     {0x4ee3c4fcff800810ULL, 0x4ee3c4fcff800810ULL, 0xbd21f442bfab44a5ULL,
      0xbd21f442bfab44a5ULL, 0xfe48bea8dd93627bULL, 0xfe48bea8dd93627bULL}},
    {"cnstr_frictionloss",
     {0x69ea313cfbf5fc27ULL, 0x69ea313cfbf5fc27ULL, 0x147f2de9222b2e69ULL,
      0x147f2de9222b2e69ULL, 0xca6370fbd19330ecULL, 0xca6370fbd19330ecULL}},
    {"cnstr_pendulum",
     {0xf8fc9632afa9f920ULL, 0xf8fc9632afa9f920ULL, 0x6ac97f0f78912cefULL,
      0x6ac97f0f78912cefULL, 0x731957f2779fd4f5ULL, 0x731957f2779fd4f5ULL}},
    {"cnstr_sphere",
     {0x1dc45269a8ea97deULL, 0x5ed24eb9c3e0e57dULL, 0x8472c0f76a75f708ULL,
      0xf0d545f37e5c143eULL, 0xf0bee210fa93674dULL, 0x80d4946f91ce9583ULL}},
    {"cnstr_weld",
     {0x47b701610be296e7ULL, 0x47b701610be296e7ULL, 0x953afded98ac54a3ULL,
      0x953afded98ac54a3ULL, 0x552010398bd35b3dULL, 0x552010398bd35b3dULL}},
    {"dcon_pairs",
     {0x1cde6e3c666c22d5ULL, 0x0f4fbaea459a2663ULL, 0xd9db0af00b8fe10dULL,
      0x42a85d91e8464616ULL, 0x5b969dd9b8680b21ULL, 0x11883443e4f2abaaULL}},
    {"scene_drop_box",
     {0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL,
      0x134fe078ca601191ULL, 0x134fe078ca601191ULL, 0x134fe078ca601191ULL}},
    {"scene_tip",
     {0xae00464ad7e56cb4ULL, 0x1c5b4c46ad986936ULL, 0x5637745ba3000ffdULL,
      0x537e1267f1a6ae8fULL, 0x772d8783cb47df94ULL, 0x8f2b39e5aa91df8cULL}},
    {"sol_fourbar",
     {0x399bbe0489dffdc6ULL, 0x399bbe0489dffdc6ULL, 0xa3bfc352af8885b7ULL,
      0xa3bfc352af8885b7ULL, 0x089340d9e7a3eff7ULL, 0x089340d9e7a3eff7ULL}},
    {"sol_stack",
     {0xf9e05bc906264dacULL, 0xe2dd8cc66d771e9dULL, 0x1f92d976e9e2c803ULL,
      0x6473ab8c378bc99eULL, 0x7068206342a6553dULL, 0x7068206342a6553dULL}},
    {"tangent_box_scene",
     {0x03005a6d5e0acf5cULL, 0x223c089bf7923c96ULL, 0x67efa0c444a0001aULL,
      0x85cd29bc2b3d0954ULL, 0x4c41b16379d44d13ULL, 0x2b1d347f2e1d9903ULL}},
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
