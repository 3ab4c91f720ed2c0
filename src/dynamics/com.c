// SPDX-License-Identifier: Apache-2.0
// The tree intermediates about each tree's COM or the world origin (see com.h).
#include "dynamics/com.h"

#include <string.h>

#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "math/vec.h"

static const double world_origin[3] = {0, 0, 0};

// the reference point of body b's spatial quantities
static inline const double* reference(const gdnModel* m, const gdnData* d, int com, int b) {
    return com ? d->subtree_com + 3 * m->body_rootid[b] : world_origin;
}

void gdn_dof_axes_about(const gdnModel* m, const gdnData* d, int com, double* S) {
    for (int i = 0; i < m->nv; i++) {
        gdn_dof_axis(m, d, i, reference(m, d, com, m->dof_bodyid[i]), S + 6 * i);
    }
}

// I_b = R diag(inertia) R' - mass [c]x [c]x with c = xipos - reference (gdn_cinert)
void gdn_body_inertias_about(const gdnModel* m, const gdnData* d, int com, double* cinert) {
    for (int i = 0; i < 10; i++) {
        cinert[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double offset[3];
        gdn_sub3(offset, d->xipos + 3 * b, reference(m, d, com, b));
        gdn_cinert(cinert + 10 * b, m->body_inertia + 3 * b, d->ximat + 9 * b, offset,
                   m->body_mass[b]);
    }
}

void gdn_com_pos(const gdnModel* m, gdnData* d) {
    gdn_dof_axes_about(m, d, 1, d->cdof);
    gdn_body_inertias_about(m, d, 1, d->cinert);
}

// per body, joint by joint: a free joint's translation first (constant axes), then every
// rotating or sliding group with the velocity before it
void gdn_com_vel(const gdnModel* m, const gdnData* d, const double* S, double* cvel,
                 double* cdof_dot, double* vpre) {
    for (int i = 0; i < 6; i++) {
        cvel[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double* v = cvel + 6 * b;
        memcpy(v, cvel + 6 * m->body_parentid[b], 6 * sizeof(double));
        int dof0 = m->body_dofadr[b];
        int ndof = m->body_dofnum[b];
        for (int k = 0; k < ndof;) {
            int dof = dof0 + k;
            int type = m->jnt_type[m->dof_jntid[dof]];
            int nrot = 1;
            if (type == GDN_JNT_FREE) {
                for (int t = 0; t < 3; t++) {
                    if (cdof_dot) {
                        memset(cdof_dot + 6 * (dof + t), 0, 6 * sizeof(double));
                    }
                    if (vpre) {
                        memcpy(vpre + 6 * (dof + t), v, 6 * sizeof(double));
                    }
                }
                for (int t = 0; t < 3; t++) {
                    gdn_addscl6(v, v, S + 6 * (dof + t), d->qvel[dof + t]);
                }
                dof += 3;
                k += 3;
                nrot = 3;
            } else if (type == GDN_JNT_BALL) {
                nrot = 3;
            }
            // every axis of the group moves with the velocity before the group
            for (int t = 0; t < nrot; t++) {
                if (cdof_dot) {
                    gdn_cross_motion(cdof_dot + 6 * (dof + t), v, S + 6 * (dof + t));
                }
                if (vpre) {
                    memcpy(vpre + 6 * (dof + t), v, 6 * sizeof(double));
                }
            }
            for (int t = 0; t < nrot; t++) {
                gdn_addscl6(v, v, S + 6 * (dof + t), d->qvel[dof + t]);
            }
            k += nrot;
        }
    }
}
