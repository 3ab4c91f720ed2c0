// SPDX-License-Identifier: Apache-2.0
// World-frame point Jacobians (translational jacp, rotational jacr) from the kinematics outputs.
#include "kinematics/jacobian.h"

#include <string.h>

#include "math/vec.h"
#include "model/validate.h"

int gdn_jac_last_dof(const gdnModel* m, int body) {
    while (body > 0 && m->body_dofnum[body] == 0) {
        body = m->body_parentid[body];
    }
    if (body <= 0) {
        return -1;
    }
    return m->body_dofadr[body] + m->body_dofnum[body] - 1;
}

// J = [columns of every dof on the chain from body to the root], zero elsewhere
void gdn_jac(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
             const double point[3], int body) {
    if (!m) {
        return;
    }
    int nv = m->nv;
    if (jacp) {
        memset(jacp, 0, sizeof(double) * 3 * (size_t)nv);
    }
    if (jacr) {
        memset(jacr, 0, sizeof(double) * 3 * (size_t)nv);
    }
    if (body < 0 || body >= m->nbody || !point || gdn_check_model_data(m, d) != GDN_OK) {
        return;
    }
    for (int da = gdn_jac_last_dof(m, body); da >= 0; da = m->dof_parentid[da]) {
        double jp[3], jr[3];
        gdn_jac_dof_column(m, d, da, point, jp, jr);
        for (int r = 0; r < 3; r++) {
            if (jacp) {
                jacp[r * nv + da] = jp[r];
            }
            if (jacr) {
                jacr[r * nv + da] = jr[r];
            }
        }
    }
}

void gdn_jac_body(const gdnModel* m, const gdnData* d, double* jacp, double* jacr, int body) {
    const double* point = m && d && body >= 0 && body < m->nbody ? d->xpos + 3 * body : NULL;
    gdn_jac(m, d, jacp, jacr, point, body);
}

void gdn_jac_body_com(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
                      int body) {
    const double* point = m && d && body >= 0 && body < m->nbody ? d->xipos + 3 * body : NULL;
    gdn_jac(m, d, jacp, jacr, point, body);
}
