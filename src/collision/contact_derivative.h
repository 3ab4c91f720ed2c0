// SPDX-License-Identifier: Apache-2.0
// Internal: first-order motion of a contact's geometry (dist, pos, frame) when its geoms move.
#ifndef GDN_COLLISION_CONTACT_DERIVATIVE_H
#define GDN_COLLISION_CONTACT_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Frames as kinematics/kinematics_derivative.h: world axes about the world origin,
// [angular; linear]. A geom rigidly attached to a body moving by the displacement twist x has
// every attached point p move by dp = x[0:3] x p + x[3:6] (and every attached direction u by
// x[0:3] x u).
//
// The tangent of one contact (a gdnContact of d->contact, as the collision stage left it) is
// taken with the contact's features held: the same pair function branch, the same witness
// features (box corner / edge / face, capsule end or segment interior, MPR portal), the same
// frame construction branch of gdn_make_frame. It is the exact derivative of
// (dist, pos, frame) on that branch.
typedef struct gdnContactTangent {
    double dist;     // d dist
    double pos[3];   // d pos (world)
    double frame[9]; // d frame, rows as gdnContact.frame (normal, tangent 1, tangent 2)
} gdnContactTangent;

// t = tangent of contact con when the body of con->geom1 moves by twist x1 and the body of
// con->geom2 by x2 (6 each; NULL = 0), and geom1's size by dsize1, geom2's by dsize2 (3 each,
// geom_size layout; NULL = 0). GDN_ERR_UNSUPPORTED for a pair type without a derivative yet
// (the caller names it); GDN_OK otherwise.
gdnStatus gdn_contact_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const double x1[6], const double x2[6], const double dsize1[3],
                              const double dsize2[3], gdnContactTangent* t);

// The adjoint: x1bar += (d t / d x1)' tbar, x2bar += ..., size1bar += (d t / d size1)' tbar,
// size2bar += ... (any output may be NULL = not wanted). Same status as gdn_contact_tangent.
gdnStatus gdn_contact_tangent_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnContactTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]);

#endif
