// SPDX-License-Identifier: Apache-2.0
// Body velocities and the generalized force of body wrenches, both about the world origin.
#include "dynamics/body_wrench.h"

#include <string.h>

#include "dynamics/com.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"

void gdn_body_velocities(const gdnModel* m, const gdnData* d, double* S, double* V) {
    gdn_dof_axes_about(m, d, 0, S);
    gdn_com_vel(m, d, S, V, NULL, NULL);
}

// backward pass: subtree sums from the leaves, then one dot product per dof
void gdn_body_wrench_qfrc(const gdnModel* m, const gdnData* d, const double* W, double* scratch,
                          double* qfrc) {
    double* Wsub = scratch;
    memcpy(Wsub, W, 6 * sizeof(double) * (size_t)m->nbody);
    for (int b = m->nbody - 1; b > 0; b--) {
        double* parent = Wsub + 6 * m->body_parentid[b];
        gdn_add6(parent, parent, Wsub + 6 * b);
    }
    for (int j = 0; j < m->nv; j++) {
        double S[6];
        gdn_dof_axis(m, d, j, gdn_world_origin, S);
        qfrc[j] += gdn_dot6(S, Wsub + 6 * m->dof_bodyid[j]);
    }
}
