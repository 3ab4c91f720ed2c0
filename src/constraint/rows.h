// SPDX-License-Identifier: Apache-2.0
// Internal to src/constraint: appending rows to the efc_* arrays and the per-kind builders.
#ifndef GDN_CONSTRAINT_ROWS_H
#define GDN_CONSTRAINT_ROWS_H

#include <gradyn/gradyn.h>

// append size rows (jac: size x nv dense; pos, margin: size values or NULL for zeros) of one
// constraint. Returns 1 when the rows do not fit in d->maxefc (counted in d->nefc_overflow,
// nothing written), else 0. Non-contact rows whose Jacobian is all zero are skipped (MuJoCo's
// empty guard).
int gdn_rows_add(const gdnModel* m, gdnData* d, const double* jac, const double* pos,
                 const double* margin, double frictionloss, int size, int type, int id);

// gdn_rows_add with the rows' nonzero columns given: cols (ncol, ascending) holds every column
// where some row of jac may be nonzero (recorded in efc_rownnz / efc_rowadr / efc_colind);
// cols NULL: found from jac (as gdn_rows_add does)
int gdn_rows_add_sparse(const gdnModel* m, gdnData* d, const double* jac, const int* cols,
                        int ncol, const double* pos, const double* margin, double frictionloss,
                        int size, int type, int id);

// the rows of each kind in MuJoCo's order; scratch: at least 18 nv doubles
void gdn_rows_equality(const gdnModel* m, gdnData* d, double* scratch);
void gdn_rows_contact(const gdnModel* m, gdnData* d, double* scratch);

// efc_diagApprox from body_invweight0 / dof_invweight0 (MuJoCo 2.2.2's mj_diagApprox)
void gdn_rows_diag_approx(const gdnModel* m, gdnData* d);

// efc_KBIP, efc_R, efc_D, contact mu; efc_diagApprox rescaled so R = (1 - I) / I diagApprox
// (MuJoCo 2.2.2's mj_makeImpedance)
void gdn_rows_impedance(const gdnModel* m, gdnData* d);

#endif
