// SPDX-License-Identifier: Apache-2.0
// Internal: a tendon's Jacobian row and its first-order motion with the configuration (the
// q-derivative of ten_J that the tendon forces J' f and the tendon rows' J x need).
#ifndef GDN_KINEMATICS_TENDON_DERIVATIVE_H
#define GDN_KINEMATICS_TENDON_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Tendon t at the current body kinematics (xpos, xmat, xanchor, xaxis; the site positions are
// recomputed from them, so a replayed step that refreshed only the body frames is enough):
//   L, V = J qvel, J (nv): its length, velocity and Jacobian row;
//   DJ (nv x nv, row-major, may be NULL): DJ[r nv + c] = d J_r / d dq_c, the motion of the row
//   under the position tangent e_c (gdn_integrate_pos's convention).
// A fixed tendon's J is its constant path coefficients (DJ = 0). A spatial tendon's segment
// (p0 on body b0, p1 on b1, b0 != b1, divisor div, u the unit direction, l its length) adds
//   J_k  += (u . c_k(p1) [k on b1's chain] - u . c_k(p0) [k on b0's chain]) / div,
//   c_k(p) = S_k,ang x p + S_k,lin   (the world-origin axis S_k: the point Jacobian's column)
//   DJ_kc += (du . c_k + u . dc_k) / div (both ends, signed alike), where under e_c
//   dp = xi_b,ang x p + xi_b,lin,  du = (I - u u') (dp1 - dp0) / l,
//   dc_k = dS_k,ang x p + S_k,ang x dp + dS_k,lin  (dS_k: gdn_axis_motion).
// S: the world-origin axes (gdn_dof_axes_about(m, d, 0, S)); scratch: 6 (nbody + nv) doubles.
// A wrap around a sphere or cylinder geom: the straight segment when it clears the geom, else
// the pieces p0 -> T0 and T1 -> p1 with the tangent points T on the geom's body; under e_c a
// tangent point moves rigidly with that body plus its slide on the geom, the closed form of the
// outside wrap's tangent points (tendon_derivative.c, wrap_tangent) differentiated; the inside
// wrap's one point (a side site within the geom) by implicit differentiation of the equation
// its Newton solve targets (gdn_wrap_inside_tangent), at the primal's root, which that solve
// approximates to |F| <= 1e-6 (GDN_WRAP_INSIDE_TOL: finite differences of the primal agree to
// about that; gdn_tendon_inside_wrap_active reports such a state).
// Returns 1 when DJ is not identically zero (a spatial tendon), else 0; -1 (nothing
// guaranteed) for an inside wrap whose solve found no root (the primal's fallback point) or a
// degenerate sphere wrap (GDN_TENDON_WRAP_WHAT).
// A spatial tendon's L, J and DJ are computed once per body-frame state and cached in d (every
// consumer of one derivative pass, the actuation, passive, implicit, row and sensor
// linearizations, reads that one result): the cache keys on d->kinematics_epoch_, which every
// recomputation of the body frames (gdn_kinematics_bodies) and every restore of stored ones
// (gdn_tape_inter_restore) advances; V = J qvel is formed at the current qvel each call. The
// results are those of the computation bit for bit. A change of the model's site, geom or wrap
// parameters takes effect at the next body-frame recomputation (the model is const during
// simulation; every derivative entry but the sensors' runs the front half itself).
int gdn_tendon_linear(const gdnModel* m, const gdnData* d, const double* S, int t, double* L,
                      double* V, double* J, double* DJ, double* scratch);

// the cache's bytes in gdnData's allocation (0 without a spatial tendon), and its layout at p
// (64-byte aligned; the returned pointer is d->tendon_cache_)
size_t gdn_tendon_cache_bytes(const gdnModel* m);
void* gdn_tendon_cache_init(const gdnModel* m, unsigned char* p);

// the arrays gdn_tendon_linear reads and writes, from the arena (the caller resets it): S
// (filled: the world-origin axes), scratch, J, DJ, and one spare nv vector w
typedef struct gdnTendonWork {
    double *S, *scratch, *J, *DJ, *w;
} gdnTendonWork;

// GDN_ERR_MEMORY when the arena is short
gdnStatus gdn_tendon_work_alloc(const gdnModel* m, gdnData* d, gdnTendonWork* w);

// 1 when tendon t is spatial (its J moves with q)
int gdn_tendon_is_spatial(const gdnModel* m, int t);

// the refusal of a tendon linearization gdn_tendon_linear cannot give (-1): the inside wrap
// (a side site within the geom) when the primal's Newton solve found no root and fell back to
// the ends' mean direction (that point is not stationary: its J is not d length / dq), or a
// sphere wrap whose ends are parallel through its centre
#define GDN_TENDON_WRAP_WHAT                                                                   \
    "tendon wrapping with a side site inside its geom without a root of its wrap equation (or " \
    "ends parallel through a sphere)"

// The inside wraps at d's kinematics (a geom wrap with its side site within the geom, the wrap
// on), over every tendon: bit 0 when one is at its equation's root, bit 1 when one is at the
// primal's fallback point (no root: gdn_tendon_linear refuses it); 0 when none
int gdn_tendon_inside_wrap(const gdnModel* m, const gdnData* d);

// The inside wrap's point T in the geom frame (centre 0, radius r; tendon_wrap.c) moves by dT
// when the ends (geom frame) P0, P1 move by dP0, dP1: implicit differentiation at the root z of
// asin(A z) + asin(B z) - 2 asin(z) + G = 0 (gdnWrapInfo.z; tendon_derivative.c)
void gdn_wrap_inside_tangent(int cyl, double r, double z, const double P0[3],
                             const double P1[3], const double dP0[3], const double dP1[3],
                             double dT[3]);

// xi (6 nbody: each body's twist) and dS (6 nv: each dof's world-origin axis motion) under the
// unit position tangent e_c, from the world-origin axes S (also the transmissions' derivative)
void gdn_unit_tangent(const gdnModel* m, const gdnData* d, const double* S, int c, double* xi,
                      double* dS);

// (DJ x) (nv) and (DJ' x) (nv) for a row-major nv x nv DJ
void gdn_tendon_dj_mul(int nv, const double* DJ, const double* x, double* out);
void gdn_tendon_dj_mul_t(int nv, const double* DJ, const double* x, double* out);

#endif
