// SPDX-License-Identifier: Apache-2.0
// MuJoCo's simple dofs (dof_simplenum != 0): the dofs its tree factorization and M v skip.
#include "dynamics/mass_factor.h"

// MuJoCo's "simple" dofs (the compiler's body_simple, dof_simplenum != 0), whose rows of L its
// factorization skips: the body's inertia frame is its body frame, it hangs from the world (or
// from a dof-free child of the world), has no child body, and its joints sit at the body origin
// with single-component axes and no joint after a rotation. simple (nv) = 1 for such dofs;
// body (nbody) is scratch.
void gdn_simple_dofs(const gdnModel* m, int* body, int* simple) {
    const int* parent = m->body_parentid;
    body[0] = 0;
    for (int i = 1; i < m->nbody; i++) {
        const double* ipos = m->body_ipos + 3 * i;
        const double* iquat = m->body_iquat + 4 * i;
        const int sameframe = ipos[0] == 0 && ipos[1] == 0 && ipos[2] == 0 && iquat[0] == 1 &&
                              iquat[1] == 0 && iquat[2] == 0 && iquat[3] == 0;
        const int j = parent[i];
        body[i] = sameframe &&
                  (m->body_rootid[i] == i || (parent[j] == 0 && m->body_dofnum[j] == 0));
        if (j > 0) {
            body[j] = 0;
        }
        int rotation = 0;
        for (int n = 0; n < m->body_jntnum[i]; n++) {
            const int jnt = m->body_jntadr[i] + n;
            const int type = m->jnt_type[jnt];
            const double* pos = m->jnt_pos + 3 * jnt;
            const double* axis = m->jnt_axis + 3 * jnt;
            const int ncomponent = (axis[0] != 0) + (axis[1] != 0) + (axis[2] != 0);
            if (rotation || pos[0] != 0 || pos[1] != 0 || pos[2] != 0 ||
                ((type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE) && ncomponent > 1)) {
                body[i] = 0;
            }
            rotation |= type == GDN_JNT_BALL || type == GDN_JNT_HINGE;
        }
    }
    for (int k = 0; k < m->nv; k++) {
        simple[k] = body[m->dof_bodyid[k]];
    }
}
