// SPDX-License-Identifier: Apache-2.0
// Internal: the composite rigid body algorithm on precomputed com-frame axes and inertias.
#ifndef GDN_DYNAMICS_CRB_H
#define GDN_DYNAMICS_CRB_H

#include <gradyn/gradyn.h>

// gdn_crb with cdof (gdn_com_dofs, 6 x nv) and cinert (gdn_com_inertias, 10 x nbody) of the
// current kinematics given: the same d->qM, bit for bit (cinert is not modified)
void gdn_crb_com(const gdnModel* m, gdnData* d, const double* cdof, const double* cinert);

#endif
