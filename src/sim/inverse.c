// SPDX-License-Identifier: Apache-2.0
// Inverse dynamics: the generalized force that, with the passive forces, produces d->qacc.
#include <gradyn/gradyn.h>

// MuJoCo's mj_inverse (no constraints): qfrc_inverse = M qacc + C(q, v) - qfrc_passive, with
// the armature in M. Applied and actuator forces are what qfrc_inverse must equal, so they are
// not subtracted. Also refreshes the kinematics, qM, qfrc_bias and qfrc_passive.
gdnStatus gdn_inverse(const gdnModel* m, gdnData* d) {
    if (!m || !d) {
        return GDN_ERR_ARG;
    }
    gdn_kinematics(m, d);
    gdn_crb(m, d);
    gdn_rne(m, d, 0, d->qfrc_bias);
    gdn_passive(m, d);
    gdn_rne(m, d, 1, d->qfrc_inverse);
    for (int i = 0; i < m->nv; i++) {
        d->qfrc_inverse[i] -= d->qfrc_passive[i];
    }
    return GDN_OK;
}
