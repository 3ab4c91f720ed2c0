// SPDX-License-Identifier: Apache-2.0
// Internal: MuJoCo 2.2.2's constraint model (the efc_* rows) and the row-space products the
// solvers use. Rows are dense (d->efc_J is nefc x nv, row-major).
#ifndef GDN_CONSTRAINT_CONSTRAINT_H
#define GDN_CONSTRAINT_CONSTRAINT_H

#include <gradyn/gradyn.h>

#include "math/vec.h"
#include "model/inertia_set.h"

// MuJoCo's equality types (mjtEq values; distance, 4, is refused at load as MuJoCo 2.2.2
// refuses it)
typedef enum gdnEqType {
    GDN_EQ_CONNECT = 0,
    GDN_EQ_WELD = 1,
    GDN_EQ_JOINT = 2,
    GDN_EQ_TENDON = 3
} gdnEqType;

// m->eq_data rows (GDN_NEQDATA doubles, model.h):
//   connect: [0-2] anchor in body1, [3-5] anchor in body2
//   weld:    [0-2] anchor in body2, [3-5] anchor in body1, [6-9] relpose quat, [10] torquescale
//   joint, tendon: [0-4] polycoef c (default 0 1 0 0 0)
// eq_obj1id / eq_obj2id: bodies for connect and weld (obj2 absent: 0, the world); joints or
// tendons for joint and tendon equalities (obj2 absent: -1), as MuJoCo stores them. A joint or
// tendon equality is one row (obj1's scalar x1, obj2's x2, their references r = qpos0 or
// tendon_length0, dif = x2 - r2):
//   pos = x1 - r1 - c0 - (c1 dif + c2 dif^2 + c3 dif^3 + c4 dif^4),
//   J = J1 - (c1 + 2 c2 dif + 3 c3 dif^2 + 4 c4 dif^3) J2
// (without obj2: pos = x1 - r1 - c0, J = J1); J_k = e_dof (a hinge or slide) or ten_J's row

// 1 when the equality's objects are joints or tendons (eq_obj2id -1 = absent), not bodies
static inline int gdn_eq_is_scalar(int type) {
    return type == GDN_EQ_JOINT || type == GDN_EQ_TENDON;
}

// impedance bounds (MuJoCo's mjMINIMP, mjMAXIMP); GDN_MINVAL is math/vec.h's
#define GDN_MINIMP 0.0001
#define GDN_MAXIMP 0.9999

// mj_makeConstraint: the rows of the active constraints in MuJoCo's order (equality, dof
// friction, joint limits, contacts), then efc_diagApprox (from body/dof_invweight0), impedance,
// efc_KBIP, efc_R, efc_D, contact mu and efc_address. Needs kinematics (gdn_kinematics) and
// d->contact / d->ncon from collision. Sets d->nefc, d->ne, d->nf; rows that do not fit in
// d->maxefc are counted in d->nefc_overflow and never written (GDN_OK all the same: the
// overflow is reported, the rows that fit are valid). GDN_ERR_MEMORY when the arena is short.
gdnStatus gdn_make_constraint(const gdnModel* m, gdnData* d);

// mj_referenceConstraint: efc_vel = J qvel, efc_aref = -B vel - K I (pos - margin)
void gdn_reference_constraint(const gdnModel* m, gdnData* d);

// res (nefc) = efc_J vec (nv)
void gdn_constraint_mul_J(const gdnModel* m, const gdnData* d, double* res, const double* vec);

// res (nv) = efc_J' vec (nefc)
void gdn_constraint_mul_JT(const gdnModel* m, const gdnData* d, double* res, const double* vec);

// qfrc_constraint = efc_J' efc_force
void gdn_constraint_qfrc(const gdnModel* m, gdnData* d);

// gdn_contact_force (mj_contactForce) of contact id decoded from any force vector f (nefc: the
// rows' forces, e.g. efc_force or its tangent; the decoding is linear); id valid, zeros for a
// contact without rows
void gdn_contact_force_rows(const gdnModel* m, const gdnData* d, int id, const double* f,
                            double result[6]);

// jar (nefc) = efc_J qacc - efc_aref: the argument of MuJoCo's constraint cost s(jar)
void gdn_constraint_jar(const gdnModel* m, const gdnData* d, const double* qacc, double* jar);

// impedance d(r) and its derivative from solimp = (dmin, dmax, width, midpoint, power) at
// constraint position pos with margin (MuJoCo's getimpedance; solimp already clamped)
void gdn_impedance(const double solimp[GDN_NIMP], double pos, double margin, double* imp,
                   double* imp_deriv);

// compile-time constants at qpos0 (MuJoCo's mj_setConst part): body_invweight0 and
// dof_invweight0 (mean diagonals of J M^-1 J'), the eq_data entries MuJoCo derives (connect:
// anchor in body2; weld without relpose: anchor in body1 and the relative quaternion).
// Called by the public load entries (sim/load.c) after the compiler; allocates (not a step).
// GDN_ERR_MEMORY on allocation failure; a singular M at qpos0 leaves the weights zero
gdnStatus gdn_constraint_set_const(gdnModel* m);

// the part of gdn_constraint_set_const that follows the mass distribution, with the same
// arithmetic: stat_meaninertia (mean diagonal of M(qpos0)), body_invweight0 and dof_invweight0.
// The model setters that change a mass or inertia call it (eq_data is derived once, at load:
// completing it again would renormalize a weld's relative pose). GDN_ERR_MEMORY (nothing
// written) on allocation failure
gdnStatus gdn_constraint_set_weights(gdnModel* m);

// after a setter wrote body b's mass properties (save: what it overwrote): the weights as
// gdn_constraint_set_weights, or on failure body b put back from save and the status returned
gdnStatus gdn_constraint_reweigh_body(gdnModel* m, int b, const gdnBodyInertiaSave* save);

#endif
