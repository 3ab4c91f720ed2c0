// SPDX-License-Identifier: Apache-2.0
// The position stage of the tree intermediates: d->cdof and d->cinert in the com frame (com.h).
#include "dynamics/com.h"

void gdn_com_pos(const gdnModel* m, gdnData* d) {
    gdn_dof_axes_about(m, d, 1, d->cdof);
    gdn_body_inertias_about(m, d, 1, d->cinert);
}
