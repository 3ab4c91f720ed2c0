// SPDX-License-Identifier: Apache-2.0
// gdnData: simulation state, intermediate results and the scratch arena (MuJoCo's mjData names).
// Created once per model by gdn_data_create; nothing in a step allocates.
#ifndef GRADYN_DATA_H
#define GRADYN_DATA_H

#include <stddef.h>

#include <gradyn/contact.h>

#ifdef __cplusplus
extern "C" {
#endif

// warnings counted during simulation (never printed by the library)
typedef enum gdnWarning {
    GDN_WARN_BADQPOS = 0, // non-finite qpos detected
    GDN_WARN_BADQVEL,     // non-finite qvel detected
    GDN_WARN_BADQACC,     // non-finite qacc detected
    GDN_WARN_BADCTRL,     // non-finite ctrl detected
    GDN_WARN_ARENA,       // arena exhausted
    GDN_WARN_BADACT,      // non-finite act detected
    GDN_NWARNING
} gdnWarning;

typedef struct gdnData {
    // state
    double time;            // simulation time (s)
    double* qpos;           // (nq) position
    double* qvel;           // (nv) velocity
    double* ctrl;           // (nu) control
    double* act;            // (na) actuator activation (state of the last na actuators)

    // user inputs
    double* qfrc_applied;   // (nv) applied generalized force
    double* xfrc_applied;   // (nbody x 6) applied Cartesian [force; torque] at the COM, world frame
    double* mocap_pos;      // (nmocap x 3) positions of the mocap bodies, world frame (inputs,
                            // as MuJoCo's: reset to their body_pos, keyframes set key_mpos)
    double* mocap_quat;     // (nmocap x 4) their orientations (normalized in place by the
                            // kinematics, as MuJoCo does)

    // outputs of forward dynamics
    double* qacc;           // (nv) acceleration
    double* qacc_smooth;    // (nv) unconstrained acceleration (== qacc without constraints)

    // position-dependent: kinematics (world frame)
    double* xpos;           // (nbody x 3) body frame origin
    double* xquat;          // (nbody x 4) body frame orientation
    double* xmat;           // (nbody x 9) body frame orientation as a rotation matrix
    double* xipos;          // (nbody x 3) body COM
    double* ximat;          // (nbody x 9) principal inertia frame
    double* xanchor;        // (njnt x 3) joint anchor
    double* xaxis;          // (njnt x 3) joint axis
    double* geom_xpos;      // (ngeom x 3)
    double* geom_xmat;      // (ngeom x 9)
    double* site_xpos;      // (nsite x 3)
    double* site_xmat;      // (nsite x 9)
    double* subtree_com;    // (nbody x 3) centre of mass of each subtree

    // tendons (MuJoCo 2.2.2's names; filled by the kinematics stage after the site frames)
    double* ten_length;     // (ntendon) length
    double* ten_velocity;   // (ntendon) d length / dt = ten_J qvel
    double* ten_J;          // (ntendon x nv) dense Jacobian of the length, row-major
    int* ten_wrapadr;       // (ntendon) first path point of each tendon in wrap_obj / wrap_xpos
    int* ten_wrapnum;       // (ntendon) its number of path points (0 for a fixed tendon)
    int* wrap_obj;          // (2 nwrap) path point object: -1 site, -2 pulley, >= 0 geom id
    double* wrap_xpos;      // (2 nwrap x 3) path points, world frame

    // position-dependent: dynamics
    double* qM;             // (nv x nv) dense joint-space inertia, armature included

    // the tree intermediates (MuJoCo's names and meaning), in the "com" frame: world axes about
    // subtree_com of each body's tree root, [angular; linear] (docs/conventions.md). Written by
    // the stage that computes them (gdn_crb, gdn_rne, gdn_aba, the step) and read by the others
    double* cdof;           // (nv x 6) dof motion axes
    double* cinert;         // (nbody x 10) body inertias (docs/conventions.md for the layout)
    double* cvel;           // (nbody x 6) body velocities
    double* cdof_dot;       // (nv x 6) time derivatives of cdof (written by gdn_rne, not ABA)
    double* cacc;           // (nbody x 6) body accelerations of the last inverse-dynamics RNE
                            // or post-solve pass (cfrc_ext below)
    double* cfrc_int;       // (nbody x 6) subtree forces of that RNE (gdn_rne with flg_acc)
    double* cfrc_ext;       // (nbody x 6) external wrenches (xfrc_applied, contacts, connect and
                            // weld forces) in the com frame: mj_rnePostConstraint's, with cacc and
                            // cfrc_int, computed only for a sensor that needs them (sensor.h)

    // sensors (include/gradyn/sensor.h)
    double* sensordata;     // (nsensordata) sensor values at the state of the last forward / step
    double* subtree_linvel; // (nbody x 3) subtree COM velocities (for the subtree sensors only)
    double* subtree_angmom; // (nbody x 3) subtree angular momenta about the subtree COM (ditto)

    // velocity-dependent
    double* qfrc_bias;      // (nv) C(q, v): Coriolis, centrifugal and gravity
    double* qfrc_passive;   // (nv) springs and damping
    double* actuator_length;   // (nu)
    double* actuator_velocity; // (nu) actuator_moment qvel
    double* actuator_moment;   // (nu x nv) d length / d qpos in the tangent space (the
                               // transmission's force row: qfrc_actuator = moment' force)
    double* actuator_force;    // (nu) scalar actuator force
    double* qfrc_actuator;  // (nv) actuator force in joint space
    double* act_dot;        // (na) d act / dt (the actuation stage's; the step integrates it)
    double* qfrc_smooth;    // (nv) qfrc_passive + qfrc_actuator + qfrc_applied + J'xfrc
                            // + qfrc_penalty - qfrc_bias

    // penalty ground contact (filled by gdn_step / gdn_forward when m->penalty.enabled)
    double* vert_xpos;      // (nvert x 3) collision-mesh vertex positions, world frame
    double* vert_force;     // (nvert x 3) contact force on each vertex, world frame
    double* qfrc_penalty;   // (nv) generalized contact force J' f (part of qfrc_smooth)
    int nvert;              // vertices the vert_* arrays hold (the model's nvert at creation)
    int nvert_active;       // vertices with a nonzero contact force

    // contacts (collision/) and constraint rows (constraint/); capacities fixed at creation
    int maxcon;             // capacity of contact (the model's nconmax, or the automatic size)
    int maxefc;             // capacity of the efc_* rows (the model's njmax, or automatic)
    int ncon;               // contacts found by the last collision pass
    int ncon_overflow;      // contacts that did not fit in the buffer (reported, never written)
    int nefc;               // constraint rows
    int ne;                 // equality rows (the first ne of the nefc)
    int nf;                 // friction-loss rows (the next nf)
    int nefc_overflow;      // rows that did not fit in maxefc (reported, never written)
    gdnContact* contact;    // (maxcon) contacts, in the deterministic order of detection
    int* efc_type;          // (maxefc) gdnConstraintType
    int* efc_id;            // (maxefc) joint / contact / equality id of the row
    int* efc_state;         // (maxefc) gdnConstraintState at the solution
    double* efc_J;          // (maxefc x nv) dense constraint Jacobian
    int* efc_rownnz;        // (maxefc) columns of row i that may be nonzero (MuJoCo's sparse J)
    int* efc_rowadr;        // (maxefc) start of row i's columns in efc_colind
    int* efc_colind;        // (maxefc x nv) those columns, ascending; every other entry of efc_J
                            // is exactly 0 (set with the rows by gdn_make_constraint)
    double* efc_pos;        // (maxefc) constraint position (violation)
    double* efc_margin;     // (maxefc) inclusion margin
    double* efc_frictionloss; // (maxefc) friction loss of friction rows
    double* efc_diagApprox; // (maxefc) approximation of diag(J M^-1 J')
    double* efc_KBIP;       // (maxefc x 4) stiffness, damping, impedance, d impedance / d pos
    double* efc_D;          // (maxefc) constraint mass 1 / R
    double* efc_R;          // (maxefc) regularizer
    double* efc_vel;        // (maxefc) J qvel
    double* efc_aref;       // (maxefc) reference acceleration
    double* efc_force;      // (maxefc) constraint force at the solution
    double* qfrc_constraint; // (nv) J' efc_force
    double* qacc_warmstart; // (nv) acceleration used to warm-start the next solve
    double* qacc_rk4;       // (4 x nv) the stage accelerations a_0 .. a_3 of the last RK4
                            // step (docs/derivatives.md; unspecified after an Euler step)
    double* act_dot_rk4;    // (4 x na) its stage activation rates f_0 .. f_3 (the same)

    // solver report of the last constrained step
    int solver_iter;        // iterations taken
    int solver_converged;   // 1 when the tolerance was reached
    double solver_residual; // final scaled gradient norm (MuJoCo's solver statistic)

    // what implicit differentiation of the solve needs (besides efc_state, the final active
    // set, and solver_residual): the Newton solver's Hessian of the primal cost at its final
    // iterate, H = M + J' diag(efc_D on quadratic rows) J + the elliptic cones' Hessians, kept as
    // its Cholesky factor: H = L L', L in the lower triangle of solver_H (row-major; the strict
    // upper triangle is unspecified). Valid only when solver_H_valid (a Newton solve with rows
    // ran); 0 after CG, PGS, a step without rows or a failed solve
    double* solver_H;       // (nv x nv) L
    int* solver_H_first;    // (nv) row i of solver_H is zero left of this column (the Newton
                            // solver's bookkeeping: it rewrites only its Hessian's envelope)
    int solver_H_valid;

    // report of the last derivative call (gdn_step_jvp, gdn_step_vjp, gdn_transition_jacobians;
    // docs/derivatives.md): GDN_DERIV_* bits, and the margins of the linearized step
    int deriv_flags;
    double deriv_state_margin;      // smallest relative distance of a row's jar to a boundary
                                    // of its state (+inf without rows)
    double deriv_activation_margin; // smallest |pos - margin| of a contact or limit row: how
                                    // far it is from leaving the row set (m or rad; +inf
                                    // without such rows)
    int sensor_refused;             // the sensor whose derivative the last gdn_sensor_jvp /
                                    // vjp refused at its state (-1: none; sensor.h:
                                    // gdn_sensor_refusal names it and the cause)

    // inverse dynamics
    double* qfrc_inverse;   // (nv) generalized force that produces qacc

    // diagnostics
    double energy[2];       // [potential, kinetic], filled when GDN_ENBL_ENERGY is set
    int warning[GDN_NWARNING]; // counts per gdnWarning

    // scratch arena: stack-like, reset at the end of every public call
    unsigned char* arena;   // arena storage
    size_t narena;          // bytes
    size_t parena;          // bytes in use
    size_t maxuse_arena;    // high-water mark

    unsigned long long model_signature_; // internal: the layout signature of the model the
                            // data was created for (every call taking (m, d) compares it)
    void* buffer_;          // internal: the single allocation backing every array
    unsigned long long kinematics_epoch_; // internal: counts body-frame recomputations (a
                            // derivative pass's tendon cache is valid for one epoch)
    void* tendon_cache_;    // internal: that cache (kinematics/tendon_derivative.h), NULL: no
                            // spatial tendon
} gdnData;

#ifdef __cplusplus
}
#endif

#endif
