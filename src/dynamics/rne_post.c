// SPDX-License-Identifier: Apache-2.0
// mj_rnePostConstraint: external wrenches, body accelerations and subtree interaction forces
// after the solve (MuJoCo 2.2.2's order of terms).
#include "dynamics/rne_post.h"

#include <string.h>

#include "dynamics/com.h"
#include "math/spatial.h"
#include "math/vec.h"

void gdn_transform_spatial(double res[6], const double vec[6], int flg_force,
                           const double newpos[3], const double oldpos[3], const double* rot) {
    // force: n' = n - (new - old) x f;  motion: v' = v - (new - old) x w
    double tran[6], dif[3], cros[3];
    memcpy(tran, vec, sizeof(tran));
    gdn_sub3(dif, newpos, oldpos);
    if (flg_force) {
        gdn_cross3(cros, dif, vec + 3);
        gdn_sub3(tran, vec, cros);
    } else {
        gdn_cross3(cros, dif, vec);
        gdn_sub3(tran + 3, vec + 3, cros);
    }
    if (rot) {
        gdn_mulmat3T(res, rot, tran);
        gdn_mulmat3T(res + 3, rot, tran + 3);
    } else {
        memcpy(res, tran, sizeof(tran));
    }
}

// cfrc_ext[body] += sign * the world wrench cfrc (torque about pos; force) moved to the com
static void add_wrench(const gdnModel* m, gdnData* d, int body, const double cfrc[6],
                       const double pos[3], double sign) {
    double com[6];
    gdn_transform_spatial(com, cfrc, 1, d->subtree_com + 3 * m->body_rootid[body], pos, NULL);
    double* ext = d->cfrc_ext + 6 * body;
    for (int k = 0; k < 6; k++) {
        ext[k] = sign > 0 ? ext[k] + com[k] : ext[k] - com[k];
    }
}

// the external wrenches: applied, contacts, connect and weld rows
static void external_wrenches(const gdnModel* m, gdnData* d) {
    memset(d->cfrc_ext, 0, sizeof(double) * 6 * (size_t)m->nbody);
    double cfrc[6];
    for (int b = 1; b < m->nbody; b++) {
        const double* xf = d->xfrc_applied + 6 * b;
        if (xf[0] || xf[1] || xf[2] || xf[3] || xf[4] || xf[5]) {
            gdn_copy3(cfrc, xf + 3);
            gdn_copy3(cfrc + 3, xf);
            add_wrench(m, d, b, cfrc, d->xipos + 3 * b, 1);
        }
    }
    for (int i = 0; i < d->ncon; i++) {
        const gdnContact* con = &d->contact[i];
        double lfrc[6];
        if (con->efc_address < 0 || gdn_contact_force(m, d, i, lfrc) != GDN_OK) {
            continue;
        }
        // world torque and force from the contact frame (rows: normal, tangents)
        gdn_mulmat3T(cfrc, con->frame, lfrc + 3);
        gdn_mulmat3T(cfrc + 3, con->frame, lfrc);
        const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
        if (b1) {
            add_wrench(m, d, b1, cfrc, con->pos, -1);
        }
        if (b2) {
            add_wrench(m, d, b2, cfrc, con->pos, 1);
        }
    }
    for (int i = 0; i < d->ne;) {
        const int id = d->efc_id[i], type = m->eq_type[id];
        if (d->efc_type[i] != GDN_CNSTR_EQUALITY || (type != 0 && type != 1)) {
            i++;
            continue;
        }
        const int weld = type == 1;
        const double* data = m->eq_data + GDN_NEQDATA * id;
        gdn_copy3(cfrc + 3, d->efc_force + i);
        if (weld) {
            gdn_copy3(cfrc, d->efc_force + i + 3);
        } else {
            gdn_zero3(cfrc);
        }
        // the anchor on each body: connect's data[0..2] on body 1, data[3..5] on body 2; weld's
        // the other way round
        const int bodies[2] = {m->eq_obj1id[id], m->eq_obj2id[id]};
        const double* local[2] = {data + 3 * weld, data + 3 * !weld};
        for (int k = 0; k < 2; k++) {
            const int b = bodies[k];
            if (b) {
                double pos[3];
                gdn_mulmat3(pos, d->xmat + 9 * b, local[k]);
                gdn_add3(pos, pos, d->xpos + 3 * b);
                add_wrench(m, d, b, cfrc, pos, k == 0 ? 1 : -1);
            }
        }
        i += weld ? 6 : 3;
    }
}

void gdn_rne_post_constraint(const gdnModel* m, gdnData* d, const double* qacc) {
    gdn_com_vel(m, d, d->cdof, d->cvel, d->cdof_dot, NULL);
    external_wrenches(m, d);
    memset(d->cacc, 0, 6 * sizeof(double));
    memset(d->cfrc_int, 0, 6 * sizeof(double));
    if (!(m->opt.disableflags & GDN_DSBL_GRAVITY)) {
        gdn_scl3(d->cacc + 3, m->opt.gravity, -1);
    }
    for (int b = 1; b < m->nbody; b++) {
        const int dof0 = m->body_dofadr[b], n = m->body_dofnum[b];
        double tmp[6] = {0, 0, 0, 0, 0, 0}, body[6], corr[6], cross[6];
        double* a = d->cacc + 6 * b;
        // a = a_parent + sum cdof_dot qvel, then + sum cdof qacc (each sum formed first)
        for (int j = 0; j < n; j++) {
            gdn_addscl6(tmp, tmp, d->cdof_dot + 6 * (dof0 + j), d->qvel[dof0 + j]);
        }
        gdn_add6(a, d->cacc + 6 * m->body_parentid[b], tmp);
        memset(tmp, 0, sizeof(tmp));
        for (int j = 0; j < n; j++) {
            gdn_addscl6(tmp, tmp, d->cdof + 6 * (dof0 + j), qacc[dof0 + j]);
        }
        gdn_add6(a, a, tmp);
        // f = I a + v x* (I v) - ext
        gdn_cinert_mul(body, d->cinert + 10 * b, a);
        gdn_cinert_mul(corr, d->cinert + 10 * b, d->cvel + 6 * b);
        gdn_cross_force(cross, d->cvel + 6 * b, corr);
        for (int k = 0; k < 6; k++) {
            d->cfrc_int[6 * b + k] = (body[k] + cross[k]) - d->cfrc_ext[6 * b + k];
        }
    }
    for (int b = m->nbody - 1; b > 0; b--) {
        gdn_add6(d->cfrc_int + 6 * m->body_parentid[b], d->cfrc_int + 6 * m->body_parentid[b],
                 d->cfrc_int + 6 * b);
    }
}
