// SPDX-License-Identifier: Apache-2.0
// Internal: recursive Newton-Euler on precomputed com-frame axes and inertias.
#ifndef GDN_DYNAMICS_RNE_H
#define GDN_DYNAMICS_RNE_H

#include <gradyn/gradyn.h>

// gdn_rne with cdof (gdn_com_dofs, 6 x nv) and cinert (gdn_com_inertias, 10 x nbody) of the
// current kinematics given: the same result, bit for bit
void gdn_rne_com(const gdnModel* m, gdnData* d, int flg_acc, double* result, const double* cdof,
                 const double* cinert);

#endif
