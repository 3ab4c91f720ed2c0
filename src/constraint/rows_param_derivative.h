// SPDX-License-Identifier: Apache-2.0
// Internal: tangent and adjoint of the contact rows in the contacts' friction, solref, solimp.
#ifndef GDN_CONSTRAINT_ROWS_PARAM_DERIVATIVE_H
#define GDN_CONSTRAINT_ROWS_PARAM_DERIVATIVE_H

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "constraint/rows_derivative.h"

// The parameters of one contact as the rows read them (gdnContact after the collision stage's
// mixing): theta = (friction[5], solref[2], solimp[5]), GDN_CONTACT_NPARAM values, stacked per
// contact of d->contact (contacts without rows have zero derivatives).
#define GDN_CONTACT_NPARAM 12
#define GDN_CP_FRICTION 0
#define GDN_CP_SOLREF 5
#define GDN_CP_SOLIMP 7

// At the linearization lin (rows_derivative.h) a parameter direction dtheta moves the step's
// equations exactly as the state directions do, through
//   djar0_i = dB_i vel_i + (dK_i imp_i + K_i dimp_i) (pos_i - margin_i) + dJ_i x + B_i dJ_i v
//   dlogD_i = c_i dimp_i + (the friction's share of log D_i)
//   dW_s    = sigma_s f_i [p_s x da_i + db_i; da_i]           (pyramid edges: J_i, a_i, b_i
//             move with mu_k: a_i = n +- mu_k t_k, b_i = +- mu_k frame row k - 3)
//   dfj_i   = d f_i / d theta at fixed jar and D (an elliptic contact in the cone state: its
//             force depends on mu = friction[0] / sqrt(impratio) and the friction directly)
// with K, B from the sanitized solref (mixed sign replaced by (0.02, 1): no derivative; the
// time constant clamped at 2 timestep unless GDN_DSBL_REFSAFE: no time-constant derivative),
// imp = gdn_impedance(solimp, viol, margin) on its branch with the clamps of solimp (a clamped
// value: no derivative), K = 0 on an elliptic contact's friction rows. Friction's share of
// log D: pyramid rows R = 2 (fr0^2 / impratio) R_0, R_0 ~ (1 + fr0^2):
// d log D = -(2 / fr0 + 2 fr0 / (1 + fr0^2)) dfr0; elliptic rows r >= 2 in the quadratic state
// R_r = R_1 fr0^2 / fr_{r-1}^2: d log D_r = 2 dfr_{r-1} / fr_{r-1} - 2 dfr0 / fr0 (on the cone
// state those D do not enter the force). The step derivative then forms
//   delta f = -H_s djar0 + dlogD f + dfj.

// The tangent: ADDS to djar0, dlogD, dfj (nefc) and dW (6 nbody) the share of dtheta
// (GDN_CONTACT_NPARAM x ncon).
void gdn_rows_param_jvp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* dtheta, double* djar0, double* dlogD, double* dfj,
                        double* dW);

// The adjoint: thetabar (GDN_CONTACT_NPARAM x ncon) += the transpose applied to the cotangents
// djar0bar, dlogDbar, dfjbar (nefc) and Wbar (6 nbody); any cotangent may be NULL (zero).
void gdn_rows_param_vjp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* djar0bar, const double* dlogDbar, const double* dfjbar,
                        const double* Wbar, double* thetabar);

// The step adjoint's share (gradient/step_constrained.c): with djar0bar, dlogDbar, dfjbar (the
// cotangent of delta f) and Wbar of the step, the contact parameters' cotangents taken through
// the collision stage's mixing (collision/contact_param_derivative.h) into cp (accumulated);
// cp->geom_size is only checked here (gdn_contact_size_admissible), the sizes ride the rows'
// geometry adjoint (gdnRowsLinear.sizebar). GDN_ERR_UNSUPPORTED with *what, GDN_ERR_MEMORY
gdnStatus gdn_rows_param_step_vjp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                                  const double* djar0bar, const double* dlogDbar,
                                  const double* dfjbar, const double* Wbar,
                                  const gdnContactParamGradients* cp, const char** what);

// the contacts' parameter direction (GDN_CONTACT_NPARAM x ncon, from the arena: the caller's
// mark releases it) of a direction in the model parameters held in dir's arrays (the collision
// stage's mixing tangent); dir->geom_size only checked (gdn_contact_size_admissible).
// GDN_ERR_UNSUPPORTED with *what, GDN_ERR_MEMORY
gdnStatus gdn_rows_param_direction(const gdnModel* m, gdnData* d,
                                   const gdnContactParamGradients* dir, const double** dtheta,
                                   const char** what);

// the derivatives g[5] of imp = gdn_impedance(solimp, pos, margin) in the five (already
// sanitized) solimp values on the branch it takes (the midpoint rule dmin == dmax with
// width > GDN_MINVAL is differentiated as the general formula, whose value it equals)
void gdn_impedance_param_grad(const double solimp[5], double pos, double margin, double g[5]);

#endif
