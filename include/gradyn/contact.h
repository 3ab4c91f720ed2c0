// SPDX-License-Identifier: Apache-2.0
// Contacts and constraint rows: the types shared by collision, the constraint model and the
// solvers (MuJoCo 2.2.2's mjContact and efc_* semantics and names).
#ifndef GRADYN_CONTACT_H
#define GRADYN_CONTACT_H

#ifdef __cplusplus
extern "C" {
#endif

// one contact between two geoms (MuJoCo's mjContact)
typedef struct gdnContact {
    double dist;          // signed distance between the surfaces; negative: penetration
    double pos[3];        // contact point: midpoint between the surfaces, world frame
    double frame[9];      // rows: normal (from geom1 to geom2), then two tangents
    double includemargin; // included when dist < includemargin = margin - gap
    double friction[5];   // tangent1, tangent2, spin, roll1, roll2
    double solref[2];     // solver reference (stiffness/damping or direct form)
    double solimp[5];     // solver impedance
    double mu;            // friction of the regularized cone (set by the constraint model)
    int dim;              // contact space dimensionality: 1, 3, 4 or 6
    int geom1;            // geom ids
    int geom2;
    int exclude;          // 0: include, 1: in gap
    int efc_address;      // first constraint row (-1: not included)
} gdnContact;

// constraint row types (values equal MuJoCo 2.2.2's mjtConstraint)
typedef enum gdnConstraintType {
    GDN_CNSTR_EQUALITY = 0,
    GDN_CNSTR_FRICTION_DOF = 1,
    GDN_CNSTR_FRICTION_TENDON = 2,
    GDN_CNSTR_LIMIT_JOINT = 3,
    GDN_CNSTR_LIMIT_TENDON = 4,
    GDN_CNSTR_CONTACT_FRICTIONLESS = 5,
    GDN_CNSTR_CONTACT_PYRAMIDAL = 6,
    GDN_CNSTR_CONTACT_ELLIPTIC = 7
} gdnConstraintType;

// constraint row states in the primal solvers (values equal MuJoCo 2.2.2's mjtConstraintState)
typedef enum gdnConstraintState {
    GDN_CNSTRSTATE_SATISFIED = 0,
    GDN_CNSTRSTATE_QUADRATIC = 1,
    GDN_CNSTRSTATE_LINEARNEG = 2,
    GDN_CNSTRSTATE_LINEARPOS = 3,
    GDN_CNSTRSTATE_CONE = 4
} gdnConstraintState;

// solver, cone and Jacobian choices (values equal MuJoCo 2.2.2's)
typedef enum gdnSolver { GDN_SOL_PGS = 0, GDN_SOL_CG = 1, GDN_SOL_NEWTON = 2 } gdnSolver;
typedef enum gdnCone { GDN_CONE_PYRAMIDAL = 0, GDN_CONE_ELLIPTIC = 1 } gdnCone;

#ifdef __cplusplus
}
#endif

#endif
