// SPDX-License-Identifier: Apache-2.0
// Internal: actuator transmissions (MuJoCo 2.2.2's mj_transmission): each actuator's length, its
// moment row (d length / d qpos in the tangent space, the row of qfrc_actuator = moment' force)
// and velocity = moment qvel, for the joint, joint-in-parent, slider-crank, tendon and site
// types; and their first-order motion with q for the derivatives.
#ifndef GDN_DYNAMICS_TRANSMISSION_H
#define GDN_DYNAMICS_TRANSMISSION_H

#include <gradyn/gradyn.h>

#include "math/vec.h"

// a site's world frame from its body's: p = xpos_b + xmat_b site_pos, R = xmat_b R(site_quat)
// (the body frames are all a transmission reads: a replayed step may refresh only those)
static inline void gdn_site_frame(const gdnModel* m, const gdnData* d, int site, double p[3],
                                  double R[9]) {
    const int b = m->site_bodyid[site];
    double local[9];
    gdn_mulmat3(p, d->xmat + 9 * b, m->site_pos + 3 * site);
    gdn_add3(p, p, d->xpos + 3 * b);
    gdn_quat2mat(local, m->site_quat + 4 * site);
    gdn_mulmatmat3(R, d->xmat + 9 * b, local);
}

// 1 when contact con counts in the moment of a body transmission on body: it touches the body
// and is not disabled (exclude <= 1: included, or in the gap)
static inline int gdn_transmission_body_counts(const gdnModel* m, int body,
                                               const gdnContact* con) {
    return (m->geom_bodyid[con->geom1] == body || m->geom_bodyid[con->geom2] == body) &&
           con->exclude <= 1;
}

// d->actuator_length, d->actuator_moment (nu x nv), d->actuator_velocity for every actuator.
// Reads qpos, qvel, ten_length / ten_velocity / ten_J and the body frames (xpos, xmat, xquat,
// xanchor, xaxis; a site's frame is recomputed from its body's). Per type (g = gear):
//   joint, hinge / slide:  length = g0 q,  moment = g0 on its dof
//   joint, ball:           length = log(q) . g[0:3],  moment = g[0:3] on its dofs
//   joint, free:           length = 0,  moment = g[0:6]
//   jointinparent (ball / free): the rotational gear ga = R(q)' g (R of the joint quaternion)
//                          replaces g[0:3] (ball) or g[3:6] (free); the ball's length log(q) . ga
//   tendon:                length = g0 ten_length,  moment = g0 ten_J
//   slider-crank (crank site c, slider site s, rod r): a = z axis of s, v = p_c - p_s,
//                          s' = a . v, D = s'^2 + r^2 - v . v;  L = s' - sqrt(D) (D > 0) else s',
//                          length = g0 L, moment = g0 (dL/da . (Jr_s x a) + dL/dv . (Jp_c - Jp_s))
//   site (no reference):   length = 0, moment = Jp' (R g[0:3]) + Jr' (R g[3:6]), R the site frame
//   site with refsite r:   length = (R_r' (p - p_r)) . g[0:3] + log(q_r^-1 q) . g[3:6] (the site
//                          quaternions site_quat * xquat, MuJoCo's order), moment = (Jp - Jp_r)'
//                          (R_r g[0:3]) + (Jr - Jr_r)' (R_r g[3:6]) (each half only when its gear
//                          is nonzero)
//   body (adhesion):       length 0, moment = -(mean over the contacts touching the body of
//                          their normal Jacobians): an included contact's normal row of efc_J
//                          (pyramidal: the mean of its edge rows), a contact in the gap its
//                          n . (Jp(b2, pos) - Jp(b1, pos)); needs the position stage's contacts
//                          and rows (MuJoCo computes it after mj_makeConstraint); the same
//                          expression n . (Jp(b2, pos) - Jp(b1, pos)) for the included ones
void gdn_transmission(const gdnModel* m, gdnData* d);

// qfrc += moment_i' force (d->actuator_moment; a joint's row on its dofs only)
void gdn_transmission_apply(const gdnModel* m, const gdnData* d, int i, double force,
                            double* qfrc);

// 1 when actuator i's moment row moves with q and its derivative takes the general path
// (gdn_transmission_linear): slider-crank, site, joint-in-parent on a ball or free joint, a
// spatial tendon, and the body transmission (its contacts' normal Jacobians move)
int gdn_transmission_moving(const gdnModel* m, int i);

// 1 when actuator i's length row is not its (constant) moment row, so its length and velocity
// tangents take gdn_transmission_linear: every transmission but a tendon and a joint or
// joint-in-parent on a hinge or slide (a ball joint's length log(q) . g, a free joint's 0)
int gdn_transmission_general(const gdnModel* m, int i);

// The linearization of actuator i (any transmission; a joint's on its dofs, H = 0 but for a
// joint-in-parent on a ball or free joint) at the current body kinematics (S: the world-origin
// axes gdn_dof_axes_about(m, d, 0, S); scratch 6 (nbody + nv)): length L and velocity V (gear
// included), and up to the factor *scale (a tendon's gear[0], else 1: the moment row is
// scale M) lrow (nv) = d length / dq, M (nv) the moment row, and H (nv x nv, row-major, may be
// NULL) = d M / dq: H[r nv + c] = d M_r / d dq_c under the position tangent e_c
// (gdn_integrate_pos). Under e_c a body moves by the twist xi_b, a dof's axis by dS_k
// (kinematics/tendon_derivative.h), a point p on body b by dp = xi_b,ang x p + xi_b,lin, a frame
// direction w by xi_b,ang x w; the point Jacobian's column c_k(p) = S_k,ang x p + S_k,lin by
// dS_k,ang x p + S_k,ang x dp + dS_k,lin. The slider-crank's Hessian of L(v, a) is taken on the
// primal's branch (D > 0 or not). The body transmission's (length 0, M = -(1/N) sum_j n_j .
// (Jp(b2, p_j) - Jp(b1, p_j)) over its N contacts) is taken at the fixed contact set: each
// contact's point p_j and normal n_j move by their geometry tangent (collision/
// contact_derivative.h, the contact's features held), the count N is held. Returns 0, or -1
// when a spatial tendon's linearization is refused (GDN_TENDON_WRAP_WHAT) or a contact of a
// body transmission has no geometry tangent (its pair has none, or gdn_contact_tangent refuses
// its features: GDN_TRN_BODY_WHAT).
int gdn_transmission_linear(const gdnModel* m, const gdnData* d, const double* S, int i,
                            double* L, double* V, double* lrow, double* M, double* H,
                            double* scale, double* scratch);

#define GDN_TRN_BODY_WHAT                                                                    \
    "a body (adhesion) transmission's contact without a geometry derivative (its geom pair's or "  \
    "its features')"

// 1 when the model has an actuator on a body transmission (its moment reads the contacts: a
// step VJP must see the step's collision, not just its body frames)
static inline int gdn_transmission_has_body(const gdnModel* m) {
    for (int i = 0; i < m->nu; i++) {
        if (m->actuator_trntype[i] == GDN_TRN_BODY) {
            return 1;
        }
    }
    return 0;
}

// GDN_TRN_BODY_WHAT when a contact in d that a body transmission's moment counts has no
// geometry tangent (gdn_contact_tangent refuses its pair or its features), else NULL
const char* gdn_transmission_body_refusal(const gdnModel* m, const gdnData* d);

// 1 when a contact in d that a body transmission's moment counts comes from MPR with a curved
// shape or a margin (gdn_contact_mpr_limit: its tangent is the search's converged limit's),
// for the derivative report's GDN_DERIV_MPR_LIMIT
int gdn_transmission_body_mpr_limit(const gdnModel* m, const gdnData* d);

// the arrays gdn_transmission_linear reads and writes, from the arena (the caller resets it):
// S (filled), scratch, lrow, M, H, and two spare nv vectors w, u
typedef struct gdnTransmissionWork {
    double *S, *scratch, *lrow, *M, *H, *w, *u;
} gdnTransmissionWork;

// GDN_ERR_MEMORY when the arena is short
gdnStatus gdn_transmission_work_alloc(const gdnModel* m, gdnData* d, gdnTransmissionWork* w);

#endif
