// SPDX-License-Identifier: Apache-2.0
// World-frame point Jacobians (translational jacp, rotational jacr) from the kinematics outputs.
#include "kinematics/jacobian.h"

#include <string.h>

#include "math/vec.h"

// column of one dof at a point p (world frame):
//   hinge:  jr = axis,       jp = axis x (p - anchor)
//   slide:  jr = 0,          jp = axis
//   ball:   jr = xmat e_k,   jp = jr x (p - anchor)     (axes are the body frame's columns)
//   free:   k < 3: jr = 0, jp = e_k (world axes); k >= 3: as ball with k - 3
void gdn_jac_dof_column(const gdnModel* m, const gdnData* d, int dof, const double point[3],
                        double jp[3], double jr[3]) {
    int jnt = m->dof_jntid[dof];
    int k = dof - m->jnt_dofadr[jnt];
    int type = m->jnt_type[jnt];
    const double* anchor = d->xanchor + 3 * jnt;
    double offset[3];

    if (type == GDN_JNT_SLIDE) {
        gdn_copy3(jp, d->xaxis + 3 * jnt);
        gdn_zero3(jr);
        return;
    }
    if (type == GDN_JNT_FREE && k < 3) {
        gdn_zero3(jp);
        jp[k] = 1;
        gdn_zero3(jr);
        return;
    }
    if (type == GDN_JNT_HINGE) {
        gdn_copy3(jr, d->xaxis + 3 * jnt);
    } else {
        // ball, or free rotation: column k of the body's world rotation
        const double* xmat = d->xmat + 9 * m->jnt_bodyid[jnt];
        int c = type == GDN_JNT_FREE ? k - 3 : k;
        jr[0] = xmat[c];
        jr[1] = xmat[3 + c];
        jr[2] = xmat[6 + c];
    }
    gdn_sub3(offset, point, anchor);
    gdn_cross3(jp, jr, offset);
}

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
    int nv = m->nv;
    if (jacp) {
        memset(jacp, 0, sizeof(double) * 3 * (size_t)nv);
    }
    if (jacr) {
        memset(jacr, 0, sizeof(double) * 3 * (size_t)nv);
    }
    if (body < 0 || body >= m->nbody || !point) {
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
    const double* point = body >= 0 && body < m->nbody ? d->xpos + 3 * body : NULL;
    gdn_jac(m, d, jacp, jacr, point, body);
}

void gdn_jac_body_com(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
                      int body) {
    const double* point = body >= 0 && body < m->nbody ? d->xipos + 3 * body : NULL;
    gdn_jac(m, d, jacp, jacr, point, body);
}
