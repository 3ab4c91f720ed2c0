// SPDX-License-Identifier: Apache-2.0
// Internal: the composite rigid body algorithm on the stored com-frame axes and inertias.
#ifndef GDN_DYNAMICS_CRB_H
#define GDN_DYNAMICS_CRB_H

#include <gradyn/gradyn.h>

// gdn_crb on the stored com-frame quantities of the current kinematics (d->cdof, d->cinert:
// gdn_com_pos or ABA): the same d->qM, bit for bit (d->cinert is not modified)
void gdn_crb_com(const gdnModel* m, gdnData* d);

#endif
