// SPDX-License-Identifier: Apache-2.0
// World-frame motion axes, body inertias and velocities about each tree's COM (see com.h).
#include "dynamics/com.h"

#include "math/spatial.h"
#include "math/vec.h"

void gdn_com_dofs(const gdnModel* m, const gdnData* d, double* cdof) {
    for (int j = 0; j < m->njnt; j++) {
        int b = m->jnt_bodyid[j];
        double* s = cdof + 6 * m->jnt_dofadr[j];
        double offset[3];
        gdn_sub3(offset, d->subtree_com + 3 * m->body_rootid[b], d->xanchor + 3 * j);
        const double* R = d->xmat + 9 * b;
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int k = 0; k < 3; k++) {
                double axis[3] = {k == 0, k == 1, k == 2};
                gdn_dof_translation(s + 6 * k, axis);
            }
            s += 18;
            // the rotation is a ball about the body origin
            // fall through
        case GDN_JNT_BALL:
            for (int k = 0; k < 3; k++) {
                double axis[3] = {R[k], R[3 + k], R[6 + k]};
                gdn_dof_rotation(s + 6 * k, axis, offset);
            }
            break;
        case GDN_JNT_SLIDE:
            gdn_dof_translation(s, d->xaxis + 3 * j);
            break;
        default:
            gdn_dof_rotation(s, d->xaxis + 3 * j, offset);
            break;
        }
    }
}

void gdn_com_inertias(const gdnModel* m, const gdnData* d, double* cinert) {
    for (int i = 0; i < 10; i++) {
        cinert[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double offset[3];
        gdn_sub3(offset, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
        gdn_cinert(cinert + 10 * b, m->body_inertia + 3 * b, d->ximat + 9 * b, offset,
                   m->body_mass[b]);
    }
}

// v_b = v_parent + sum_j cdof_j qvel_j over the body's dofs in order; cdof_dot as in com.h
void gdn_com_vel(const gdnModel* m, const gdnData* d, const double* cdof, double* cvel,
                 double* cdof_dot) {
    for (int i = 0; i < 6; i++) {
        cvel[i] = 0;
    }
    for (int b = 1; b < m->nbody; b++) {
        double* v = cvel + 6 * b;
        const double* vp = cvel + 6 * m->body_parentid[b];
        for (int i = 0; i < 6; i++) {
            v[i] = vp[i];
        }
        int dof0 = m->body_dofadr[b];
        int ndof = m->body_dofnum[b];
        for (int k = 0; k < ndof;) {
            int dof = dof0 + k;
            int type = m->jnt_type[m->dof_jntid[dof]];
            int nrot = 1;
            if (type == GDN_JNT_FREE) {
                for (int t = 0; t < 3; t++) {
                    for (int i = 0; i < 6; i++) {
                        cdof_dot[6 * (dof + t) + i] = 0;
                    }
                    gdn_addscl6(v, v, cdof + 6 * (dof + t), d->qvel[dof + t]);
                }
                dof += 3;
                k += 3;
                nrot = 3;
            } else if (type == GDN_JNT_BALL) {
                nrot = 3;
            }
            // every axis of the joint moves with the velocity before the joint
            for (int t = 0; t < nrot; t++) {
                gdn_cross_motion(cdof_dot + 6 * (dof + t), v, cdof + 6 * (dof + t));
            }
            for (int t = 0; t < nrot; t++) {
                gdn_addscl6(v, v, cdof + 6 * (dof + t), d->qvel[dof + t]);
            }
            k += nrot;
        }
    }
}
