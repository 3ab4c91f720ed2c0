// SPDX-License-Identifier: Apache-2.0
// Internal helpers of the point Jacobian: one dof's column and the dof chain of a body.
#ifndef GDN_KINEMATICS_JACOBIAN_H
#define GDN_KINEMATICS_JACOBIAN_H

#include <gradyn/gradyn.h>

// the column of dof `dof` in the Jacobians of a world point: jp = d(point)/d(qvel[dof]),
// jr = d(omega)/d(qvel[dof]), both world frame; needs kinematics (xanchor, xaxis, xmat)
void gdn_jac_dof_column(const gdnModel* m, const gdnData* d, int dof, const double point[3],
                        double jp[3], double jr[3]);

// last dof moving body (the first body with dofs on the path to the world), -1 when the
// body is welded to the world; walk the chain with m->dof_parentid
int gdn_jac_last_dof(const gdnModel* m, int body);

#endif
