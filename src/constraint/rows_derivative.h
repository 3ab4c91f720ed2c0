// SPDX-License-Identifier: Apache-2.0
// Internal: the tangent and adjoint of the constraint rows at a solved step (issue 9's pieces).
#ifndef GDN_CONSTRAINT_ROWS_DERIVATIVE_H
#define GDN_CONSTRAINT_ROWS_DERIVATIVE_H

#include <gradyn/gradyn.h>

// Frames as kinematics/kinematics_derivative.h (world axes about the world origin,
// [angular; linear]; wrenches [torque about the origin; force]).
//
// Every row i of the rows gdn_make_constraint built reads two body "sites" s = 0, 1 (body b_s,
// sign sigma_s, world point p_s) and two world directions: a_i (translational), b_i
// (rotational), so that for any generalized velocity u
//   J_i u = sum_s sigma_s [a_i . (w_s(u) x p_s + v_s(u)) + b_i . w_s(u)],
// (w_s, v_s)(u) = V_b_s(q, u) the body twist of u. Contacts: b_0 = body of geom1 (sigma -1),
// b_1 = body of geom2 (+1), p_s = contact pos, a_i, b_i fixed combinations of the frame rows
// (frictionless: a = n; pyramid edge (k, +-): a = n +- mu_k t_k for k = 1, 2, a = n and
// b = +- mu_k frame row k - 3 for k >= 3; elliptic row j: a = frame row j (j < 3) or b = frame
// row j - 3). Connect: b_0 = body 1 at its anchor (+1), b_1 = body 2 at its anchor (-1), a_i the
// world axis of row i; a weld's rotation rows b_i = columns of 0.5 ts R2 (e0 I + [ev]x) (rows_
// derivative.c). Joint limits and dof friction loss: J_i = c_i on the joint's dofs, constant
// but for a ball limit's -n (n the unit rotation vector). Fixed-tendon limits and friction
// loss: J_i = -side ten_J or ten_J, constant, on any dofs. Joint / tendon equalities ("J rows"
// as the tendon rows, constraint.h): J_i = J1 - P'(dif) J2 on any dofs, d pos_i = J_i dq, and
// J_i moves with q (DJ_i) through P'(dif) and a spatial tendon's ten_J. The rows' generalized
// force J' f is
// then the body wrenches
//   W_s = sigma_s sum_i f_i [p_s x a_i + b_i; a_i]
// plus c_i f_i at the dofs of dof-type rows.
//
// At the step's solution x (the solver's acceleration) with row states held, the force is
// f_i = f_i(jar), jar = J x - aref, aref_i = -B_i J_i v - K_i imp_i (pos_i - margin_i), with
// H_s = -d f / d jar (D_i on quadratic rows, the cone Hessian on an elliptic contact in the cone
// state, 0 otherwise), and every row's D scaled by its group's impedance: d log D_i =
// c_i d imp, c_i = 1 / (imp (1 - imp)) (f is linear in that scale on every state but the linear
// friction-loss one, whose imp is constant).
//
// The tangent of one direction (dq; dv) at fixed x:
//   djar0_i = d(J_i) x - d aref_i   (d(J_i) x: the frames, points and body axes moving)
//   dlogD_i = c_i imp'_i d viol_i   (viol: contact dist, connect |pos|, limit dist)
//   dW_s    = the frozen-force tangent of W_s (points and directions moving, f held)
// from which the step derivative forms  delta f = -H_s djar0 + dlogD f.

// the linearization, arrays from the arena (gdn_rows_linear_build)
typedef struct gdnRowsLinear {
    double* a;     // 3 nefc: translational direction of each row
    double* b;     // 3 nefc: rotational direction
    double* Tx;    // 6 nbody: body twists of x
    double* Tv;    // 6 nbody: body twists of v (the body velocities)
    double* Hs;    // 6 nefc: H_s: diagonal rows' D at Hs[6 i]; a cone block (dim x dim,
                   // row-major) at Hs + 6 (its first row)
    int* hs_kind;  // nefc: 0 no curvature, 1 diagonal, 2 first row of a cone block, 3 inside
    double* c;     // nefc: d log D / d imp (0 when D does not follow the impedance)
    const double* x; // nv: the solver's acceleration (d->qacc_warmstart)
    double* sizebar; // NULL (gdn_rows_linear_build), or ngeom x 3: gdn_rows_vjp then also
                     // accumulates the contact geoms' size cotangents there (the parameter
                     // channel geom_size, constraint/rows_param_derivative.h)
    const double* dsize; // NULL (gdn_rows_linear_build), or ngeom x 3: a direction in the geom
                         // sizes that gdn_rows_jvp's contact geometry tangents then include
    const void* site;         // nefc: each row's site (rows_derivative.c)
    double* tDJ;              // the moving J rows' DJ_i = d J_i / dq (nv x nv each, in row
                              // order: spatial tendon rows, joint / tendon equalities whose J
                              // moves; NULL without such rows)
    double force_gap;         // max |f_solver - f(x)| / max(1, |f|) (GDN_DERIV_INEXACT_SOLVE)
    int mj_weld_torque;       // 0 (gdn_rows_linear_build): the rows' body wrenches are J' f.
                              // 1: a weld's rotation rows act as MuJoCo 2.2.2's cfrc_ext
                              // reads them, f_r as a torque (sigma_s f_r, no frozen-force
                              // tangent): gdn_rows_jvp / vjp's dW and gdn_rows_wrench_of then
                              // give cfrc_ext's contact, connect and weld wrenches (sensors)
    double state_margin;      // how far from another branch (d->deriv_state_margin, data.h)
    double activation_margin; // (d->deriv_activation_margin)
} gdnRowsLinear;

// largest |f_solver - f(x)| / max(1, |f|) the linearization accepts (f(x): the primal update's
// forces at the solver's acceleration); beyond it the solve is refused as not converged
#define GDN_ROWS_FORCE_TOL 1e-3

// The linearization at x: directions, H_s from the row states of the primal update at
// jar = J x - aref (the states and forces in d are left as the solve left them), Tx and Tv
// from the dof axes S (gdn_dof_axes_about(m, d, 0, S)). GDN_ERR_UNSUPPORTED (with *what naming the row
// kind) for rows without a derivative or a contact
// pair without a geometry derivative; GDN_ERR_UNCONVERGED when the solver's forces are not the
// primal update's at x (GDN_ROWS_FORCE_TOL; also with GDN_ENBL_ONESIDED: such an iterate is
// no branch's solution); GDN_ERR_MEMORY when the arena is short.
gdnStatus gdn_rows_linear_build(const gdnModel* m, gdnData* d, const double* S, const double* x,
                                gdnRowsLinear* lin, const char** what);

// W (6 nbody) += the rows' body wrenches W_s at the solved forces d->efc_force;
// qfrc (nv) += the dof-type rows' c_i f_i (qfrc may be NULL)
void gdn_rows_wrench(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin, double* W,
                     double* qfrc);

// gdn_rows_wrench of any force vector force (nefc; W, qfrc += its wrenches), e.g. a tangent of
// efc_force (the wrenches are linear in it), and the transpose of its body wrenches:
// fbar (nefc) += (d W / d force)' Wbar (Wbar 6 nbody; the dof-type rows get nothing)
void gdn_rows_wrench_of(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* force, double* W, double* qfrc);
void gdn_rows_wrench_of_vjp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                            const double* Wbar, double* fbar);

// d f_i / d log D_i at fixed jar: f_i on the quadratic and cone states (f is linear in the scale
// of D there), 0 on the satisfied and the linear friction-loss states
static inline double gdn_rows_scaled_force(const gdnData* d, const gdnRowsLinear* lin, int i) {
    return lin->hs_kind[i] != 0 ? d->efc_force[i] : 0;
}

// y (nefc) = H_s u (nefc)
void gdn_rows_hs_mul(const gdnData* d, const gdnRowsLinear* lin, const double* u, double* y);

// The tangent: xi, eta (6 nbody: gdn_body_tangent_jvp of (dq, dv)), etax (6 nbody: the tangent
// of V_b(q, x) under dq: gdn_body_tangent_jvp_axes with vel = x, dv = 0), dq, dv (nv, NULL = 0),
// moved (nbody flags, NULL: all): the bodies this direction moves (xi, eta or etax nonzero);
// the rows between two unmoved bodies are skipped (their tangent is 0).
// Writes djar0 and dlogD (nefc), ADDS the frozen-force wrench tangent to dW (6 nbody) and the
// dof-type rows' frozen generalized-force tangent d(c)' f to dqfrc (nv; may be NULL).
gdnStatus gdn_rows_jvp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                       const double* xi, const double* eta, const double* etax,
                       const double* dq, const double* dv, const char* moved,
                       double* djar0, double* dlogD, double* dW, double* dqfrc);

// gdn_rows_jvp as linear forms, for many directions at one linearization (the transition
// Jacobians). A body row i (sites s = 0, 1 on bodies b_s) has, for any direction,
//   djar0_i = sum_s <gxi_is, xi_b_s> + <gT_is, etax_b_s + B_i eta_b_s>,
//   dlogD_i = sum_s <glog_is, xi_b_s>,  gT_is = sigma_s [p_s x a_i + b_i; a_i]
// (B_i = efc_KBIP[4 i + 1]), and its group g (the rows of one contact or one equality, rows
// [group_row[g], group_row[g + 1])) moves the frozen-force wrenches by
//   dW_b_k += sum_t GW_g[k][t] xi_b_t  (k, t = 0, 1; 6 x 6 row-major).
// A dof row i (limits, dof friction loss) has, for a position direction dq (dv = 0),
//   djar0_i = sum_k gdq_ik dq_(dof + k),  dlogD_i = sum_k ldq_ik dq_(dof + k),
//   dqfrc_(dof + r) += sum_k Qdq_i[r][k] dq_(dof + k)  (k, r < ndof <= 3),
// and for a velocity direction dv: djar0_i = sum_k (B_i J_i,dof+k) dv_(dof + k).
// The forms are gdn_rows_jvp's own per-row tangent evaluated at unit twists (each side's six,
// the other side still) and unit dof directions. Arrays from the arena
typedef struct gdnRowsTwistForms {
    double* gxi;    // 12 nefc: [i][s][6]
    double* glog;   // 12 nefc
    double* gT;     // 12 nefc
    double* GW;     // 144 ngroup: [g][k][t][6 x 6]
    int* group;     // nefc: the row's group (body rows), -1 for a dof row
    int* group_row; // ngroup + 1: each group's first row
    int ngroup;
    double* gdq;    // 3 nefc: dof rows
    double* ldq;    // 3 nefc
    double* Qdq;    // 9 nefc: row-major [r][k]
    int* body;      // 2 nefc: each body row's site bodies b_0, b_1 (0 for a dof row)
    int* dof;       // nefc: a dof row's first dof (-1 for a body row)
    int* ndof;      // nefc: a dof row's dof count (0 for a body row)
    int* tendon;    // nefc: a J row's object, -1 otherwise: a tendon row's tendon or a
                    // joint / tendon equality's id (efc_id); J_i the row of efc_J, no
                    // sites, no wrenches; for a position direction dq
                    //   djar0_i = tq_i J_i dq + (DJ_i dq) . (x + B_i v),  dlogD_i = tl_i J_i dq,
                    //   dqfrc += f_i DJ_i dq,
                    // and for dv: djar0_i = B_i J_i dv. DJ_i = d J_i / dq is 0 for a fixed
                    // tendon or a one-joint equality (constant J), else at tDJ + djrow_i nv^2
    double* tq;     // nefc
    double* tl;     // nefc
    int* djrow;     // nefc: -1, or a spatial tendon row's DJ_i index
    const double* tDJ; // the linearization's DJ_i (lin->tDJ)
    double* tz;     // nefc x nv: DJ_i' (x + B_i v) on the spatial tendon rows (NULL without)
} gdnRowsTwistForms;

gdnStatus gdn_rows_twist_forms(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                               gdnRowsTwistForms* F);

// Y <- H_s Y for ncol columns at Y (nefc rows of row stride ld): diagonal rows scaled, each
// cone block applied
void gdn_rows_hs_mul_columns(const gdnData* d, const gdnRowsLinear* lin, double* Y, int ld,
                             int ncol);

// The adjoint of gdn_rows_jvp: from the cotangents djar0bar, dlogDbar (nefc, either may be
// NULL), dWbar (6 nbody, may be NULL) and dqfrcbar (nv, may be NULL) ACCUMULATE xibar, etabar, etaxbar (6 nbody) and gq,
// gv (nv, the dof rows' direct parts; either may be NULL).
gdnStatus gdn_rows_vjp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                       const double* djar0bar, const double* dlogDbar, const double* dWbar,
                       const double* dqfrcbar, double* xibar, double* etabar, double* etaxbar,
                       double* gq, double* gv);

// the inertia-parameter path of D (R = (1 - imp) / imp diagApprox, diagApprox from the inverse
// weights), weights stacked as w = (body_invweight0 (2 nbody), dof_invweight0 (nv),
// tendon_invweight0 (ntendon)): the adjoint ACCUMULATES gw (2 nbody + nv + ntendon) from
// dlogDbar (nefc); the tangent ADDS to dlogD (nefc) the share of the weights' tangent dw.
// setconst_derivative.h links w to the inertias
void gdn_rows_weights_vjp(const gdnModel* m, const gdnData* d, const double* dlogDbar,
                          double* gw);
void gdn_rows_weights_jvp(const gdnModel* m, const gdnData* d, const double* dw,
                          double* dlogD);

// a ball limit row i's motion: its J = -n on the ball's dofs moves by dn = A dq under the ball's
// local rotation dq (A row-major 3 x 3; 0 at theta = 0): A = 0.5 cot(theta / 2) (I - n n') +
// 0.5 [n]x (rows_derivative.c)
void gdn_rows_ball_limit_motion(const gdnModel* m, const gdnData* d, int i, double A[9]);

#endif
