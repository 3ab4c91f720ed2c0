// SPDX-License-Identifier: Apache-2.0
// Internal: the adjoint of the collision stage's contact parameters in the geom and pair ones.
#ifndef GDN_COLLISION_CONTACT_PARAM_DERIVATIVE_H
#define GDN_COLLISION_CONTACT_PARAM_DERIVATIVE_H

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// The explicit pair a contact came from, or -1 for a dynamic (geom-mixed) contact. collision.c
// collides an explicit pair instead of the dynamic test of its geom pair, so a contact between
// geoms named by a pair came from that pair: the first pair naming {geom1, geom2} (either
// order). *count (may be NULL) = how many pairs name them (two or more: the contact's pair is
// ambiguous).
int gdn_contact_pair(const gdnModel* m, const gdnContact* con, int* count);

// thetabar (12 per contact: friction[5], solref[2], solimp[5], the rows' parameters,
// constraint/rows_param_derivative.h) taken through collision.c's parameter rules into the
// arrays of cp (accumulated, NULL arrays skipped):
//   explicit pair: its own values (friction floored at GDN_MIN_MU: no derivative below it)
//   geom pair of different priorities: the higher one's (contact friction (f0, f0, f1, f2, f2)
//     of the geom's (slide, spin, roll)), floored as above
//   equal priorities: friction max (the larger geom's; a tie: geom1's), solref mix r1 +
//     (1 - mix) r2 when both time constants are > 0 else elementwise min (a tie: geom1's),
//     solimp mix i1 + (1 - mix) i2, mix from solmix
//   override (GDN_ENBL_OVERRIDE): solref and solimp are the option's (no derivative)
// GDN_ERR_UNSUPPORTED with *what set for a contact whose pair is ambiguous.
gdnStatus gdn_contact_param_vjp(const gdnModel* m, const gdnData* d, const double* thetabar,
                                const gdnContactParamGradients* cp, const char** what);

// the tangent: dtheta (12 per contact of d; zero for contacts without rows) from a direction
// in the model parameters held in dir's arrays (NULL arrays: zero). Same status
gdnStatus gdn_contact_param_jvp(const gdnModel* m, const gdnData* d,
                                const gdnContactParamGradients* dir, double* dtheta,
                                const char** what);

// whether geom sizes have a derivative at the contacts of d: GDN_ERR_UNSUPPORTED (with *what)
// under the penalty contact model or for a contact with a mesh or height-field geom (a size
// that also moves its body's inertia is the callers' to chain: constraint/
// geom_size_derivative.h)
gdnStatus gdn_contact_size_admissible(const gdnModel* m, const gdnData* d, const char** what);

#endif
