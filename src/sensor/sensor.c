// SPDX-License-Identifier: Apache-2.0
// The sensors of MuJoCo 2.2.2 (mj_sensorPos, mj_sensorVel, mj_sensorAcc and their helpers
// mj_objectVelocity, mj_objectAcceleration, mj_subtreeVel), with the cutoff; no noise.
#include "sensor/sensor.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "collision/ray.h"
#include "dynamics/crb.h"
#include "dynamics/mass_factor.h"
#include "dynamics/rne.h"
#include "dynamics/rne_post.h"
#include "math/vec.h"

int gdn_sensor_body(const gdnModel* m, int type, int id) {
    switch (type) {
    case GDN_OBJ_GEOM:
        return m->geom_bodyid[id];
    case GDN_OBJ_SITE:
        return m->site_bodyid[id];
    default: // body, xbody
        return id;
    }
}

void gdn_sensor_frame(const gdnModel* m, const gdnData* d, int type, int id, const double** xpos,
                      const double** xmat) {
    (void)m;
    switch (type) {
    case GDN_OBJ_BODY:
        *xpos = d->xipos + 3 * id;
        *xmat = d->ximat + 9 * id;
        return;
    case GDN_OBJ_GEOM:
        *xpos = d->geom_xpos + 3 * id;
        *xmat = d->geom_xmat + 9 * id;
        return;
    case GDN_OBJ_SITE:
        *xpos = d->site_xpos + 3 * id;
        *xmat = d->site_xmat + 9 * id;
        return;
    default: // xbody
        *xpos = d->xpos + 3 * id;
        *xmat = d->xmat + 9 * id;
        return;
    }
}

// world quaternion: the body's, times the object's local quaternion (the inertial frame's
// body_iquat, geom_quat, site_quat)
void gdn_sensor_xquat(const gdnModel* m, const gdnData* d, int type, int id, double quat[4]) {
    switch (type) {
    case GDN_OBJ_BODY:
        gdn_mulquat(quat, d->xquat + 4 * id, m->body_iquat + 4 * id);
        return;
    case GDN_OBJ_GEOM:
        gdn_mulquat(quat, d->xquat + 4 * m->geom_bodyid[id], m->geom_quat + 4 * id);
        return;
    case GDN_OBJ_SITE:
        gdn_mulquat(quat, d->xquat + 4 * m->site_bodyid[id], m->site_quat + 4 * id);
        return;
    default:
        gdn_copy4(quat, d->xquat + 4 * id);
        return;
    }
}

int gdn_sensor_limit_row_of(const gdnData* d, int type, int j) {
    for (int r = d->ne + d->nf; r < d->nefc; r++) {
        if (d->efc_type[r] == type && d->efc_id[r] == j) {
            return r;
        }
    }
    return -1;
}

int gdn_sensor_limit_row(const gdnData* d, int j) {
    return gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_JOINT, j);
}

// mj_objectVelocity: the 6-velocity [w; v] of an object's origin, world axes (local: the
// object's frame)
static void object_velocity(const gdnModel* m, const gdnData* d, int type, int id, int local,
                            double res[6]) {
    const double *pos, *mat;
    gdn_sensor_frame(m, d, type, id, &pos, &mat);
    const int b = gdn_sensor_body(m, type, id);
    gdn_transform_spatial(res, d->cvel + 6 * b, 0, pos, d->subtree_com + 3 * m->body_rootid[b],
                          local ? mat : NULL);
}

// mj_objectAcceleration: [dw; dv + w x v] of an object's origin (gravity inside cacc)
static void object_acceleration(const gdnModel* m, const gdnData* d, int type, int id, int local,
                                double res[6]) {
    const double *pos, *mat;
    gdn_sensor_frame(m, d, type, id, &pos, &mat);
    const int b = gdn_sensor_body(m, type, id);
    const double* com = d->subtree_com + 3 * m->body_rootid[b];
    double vel[6], corr[3];
    gdn_transform_spatial(vel, d->cvel + 6 * b, 0, pos, com, local ? mat : NULL);
    gdn_transform_spatial(res, d->cacc + 6 * b, 0, pos, com, local ? mat : NULL);
    gdn_cross3(corr, vel, vel + 3);
    gdn_add3(res + 3, res + 3, corr);
}

// mj_subtreeVel: subtree COM velocities and angular momenta about the subtree COMs
static void subtree_vel(const gdnModel* m, gdnData* d, double* body_vel) {
    double dx[3], dv[3], dp[3], dL[3];
    for (int i = 0; i < m->nbody; i++) {
        double* v = body_vel + 6 * i;
        object_velocity(m, d, GDN_OBJ_BODY, i, 0, v);
        gdn_scl3(d->subtree_linvel + 3 * i, v + 3, m->body_mass[i]);
        // R diag(inertia) R' w
        gdn_mulmat3T(dv, d->ximat + 9 * i, v);
        for (int k = 0; k < 3; k++) {
            dv[k] *= m->body_inertia[3 * i + k];
        }
        gdn_mulmat3(d->subtree_angmom + 3 * i, d->ximat + 9 * i, dv);
    }
    for (int i = m->nbody - 1; i >= 0; i--) {
        double* lv = d->subtree_linvel + 3 * i;
        if (i) {
            double* p = d->subtree_linvel + 3 * m->body_parentid[i];
            gdn_add3(p, p, lv);
        }
        gdn_scl3(lv, lv, 1 / fmax(GDN_MINVAL, m->body_subtreemass[i]));
    }
    for (int i = m->nbody - 1; i > 0; i--) {
        const int p = m->body_parentid[i];
        double* L = d->subtree_angmom + 3 * i;
        double* Lp = d->subtree_angmom + 3 * p;
        gdn_sub3(dx, d->xipos + 3 * i, d->subtree_com + 3 * i);
        gdn_sub3(dv, body_vel + 6 * i + 3, d->subtree_linvel + 3 * i);
        gdn_scl3(dp, dv, m->body_mass[i]);
        gdn_cross3(dL, dx, dp);
        gdn_add3(L, L, dL);
        gdn_add3(Lp, Lp, L);
        gdn_sub3(dx, d->subtree_com + 3 * i, d->subtree_com + 3 * p);
        gdn_sub3(dv, d->subtree_linvel + 3 * i, d->subtree_linvel + 3 * p);
        gdn_scl3(dv, dv, m->body_subtreemass[i]);
        gdn_cross3(dL, dx, dv);
        gdn_add3(Lp, Lp, dL);
    }
}

// the position-stage value of sensor i
static void sensor_pos(const gdnModel* m, gdnData* d, int i, double* out) {
    const int objtype = m->sensor_objtype[i], id = m->sensor_objid[i];
    const int reftype = m->sensor_reftype[i], refid = m->sensor_refid[i];
    const double *xpos, *xmat, *rpos, *rmat;
    switch (m->sensor_type[i]) {
    case GDN_SENS_MAGNETOMETER:
        gdn_mulmat3T(out, d->site_xmat + 9 * id, m->opt.magnetic);
        return;
    case GDN_SENS_RANGEFINDER: {
        const double* R = d->site_xmat + 9 * id;
        const double z[3] = {R[2], R[5], R[8]};
        int geom;
        out[0] = gdn_ray(m, d, d->site_xpos + 3 * id, z, m->site_bodyid[id], &geom);
        return;
    }
    case GDN_SENS_JOINTPOS:
        out[0] = d->qpos[m->jnt_qposadr[id]];
        return;
    case GDN_SENS_ACTUATORPOS:
        out[0] = d->actuator_length[id];
        return;
    case GDN_SENS_BALLQUAT:
        gdn_copy4(out, d->qpos + m->jnt_qposadr[id]);
        return;
    case GDN_SENS_JOINTLIMITPOS: {
        const int r = gdn_sensor_limit_row(d, id);
        out[0] = r < 0 ? 0 : d->efc_pos[r] - d->efc_margin[r];
        return;
    }
    case GDN_SENS_TENDONPOS:
        out[0] = d->ten_length[id];
        return;
    case GDN_SENS_TENDONLIMITPOS: {
        const int r = gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_TENDON, id);
        out[0] = r < 0 ? 0 : d->efc_pos[r] - d->efc_margin[r];
        return;
    }
    case GDN_SENS_FRAMEPOS:
    case GDN_SENS_FRAMEXAXIS:
    case GDN_SENS_FRAMEYAXIS:
    case GDN_SENS_FRAMEZAXIS: {
        gdn_sensor_frame(m, d, objtype, id, &xpos, &xmat);
        double v[3];
        if (m->sensor_type[i] == GDN_SENS_FRAMEPOS) {
            gdn_copy3(v, xpos);
        } else {
            const int k = m->sensor_type[i] - GDN_SENS_FRAMEXAXIS;
            v[0] = xmat[k];
            v[1] = xmat[k + 3];
            v[2] = xmat[k + 6];
        }
        if (refid < 0) {
            gdn_copy3(out, v);
            return;
        }
        // in the reference frame: R_ref' (p - p_ref), R_ref' axis
        gdn_sensor_frame(m, d, reftype, refid, &rpos, &rmat);
        if (m->sensor_type[i] == GDN_SENS_FRAMEPOS) {
            gdn_sub3(v, xpos, rpos);
        }
        gdn_mulmat3T(out, rmat, v);
        return;
    }
    case GDN_SENS_FRAMEQUAT: {
        double q[4], r[4];
        gdn_sensor_xquat(m, d, objtype, id, q);
        if (refid < 0) {
            gdn_copy4(out, q);
            return;
        }
        // conj(q_ref) q
        gdn_sensor_xquat(m, d, reftype, refid, r);
        gdn_negquat(r, r);
        gdn_mulquat(out, r, q);
        return;
    }
    case GDN_SENS_SUBTREECOM:
        gdn_copy3(out, d->subtree_com + 3 * id);
        return;
    case GDN_SENS_CLOCK:
        out[0] = d->time;
        return;
    default: // user: zeros (MuJoCo's callback)
        memset(out, 0, sizeof(double) * (size_t)m->sensor_dim[i]);
        return;
    }
}

// the velocity-stage value of sensor i
static void sensor_vel(const gdnModel* m, gdnData* d, int i, double* out) {
    const int objtype = m->sensor_objtype[i], id = m->sensor_objid[i];
    const int reftype = m->sensor_reftype[i], refid = m->sensor_refid[i];
    double v[6];
    switch (m->sensor_type[i]) {
    case GDN_SENS_VELOCIMETER:
    case GDN_SENS_GYRO:
        object_velocity(m, d, GDN_OBJ_SITE, id, 1, v);
        gdn_copy3(out, m->sensor_type[i] == GDN_SENS_GYRO ? v : v + 3);
        return;
    case GDN_SENS_JOINTVEL:
        out[0] = d->qvel[m->jnt_dofadr[id]];
        return;
    case GDN_SENS_ACTUATORVEL:
        out[0] = d->actuator_velocity[id];
        return;
    case GDN_SENS_BALLANGVEL:
        gdn_copy3(out, d->qvel + m->jnt_dofadr[id]);
        return;
    case GDN_SENS_JOINTLIMITVEL: {
        const int r = gdn_sensor_limit_row(d, id);
        out[0] = r < 0 ? 0 : d->efc_vel[r];
        return;
    }
    case GDN_SENS_TENDONVEL:
        out[0] = d->ten_velocity[id];
        return;
    case GDN_SENS_TENDONLIMITVEL: {
        const int r = gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_TENDON, id);
        out[0] = r < 0 ? 0 : d->efc_vel[r];
        return;
    }
    case GDN_SENS_FRAMELINVEL:
    case GDN_SENS_FRAMEANGVEL: {
        object_velocity(m, d, objtype, id, 0, v);
        if (refid >= 0) {
            // relative to the reference: (v - v_ref) + (p - p_ref) x w_ref, then R_ref'
            const double *xpos, *xmat, *rpos, *rmat;
            double vref[6], rel[6], rvec[3], cross[3];
            gdn_sensor_frame(m, d, objtype, id, &xpos, &xmat);
            gdn_sensor_frame(m, d, reftype, refid, &rpos, &rmat);
            object_velocity(m, d, reftype, refid, 0, vref);
            for (int k = 0; k < 6; k++) {
                rel[k] = v[k] - vref[k];
            }
            gdn_sub3(rvec, xpos, rpos);
            gdn_cross3(cross, rvec, vref);
            gdn_add3(rel + 3, rel + 3, cross);
            gdn_mulmat3T(v, rmat, rel);
            gdn_mulmat3T(v + 3, rmat, rel + 3);
        }
        gdn_copy3(out, m->sensor_type[i] == GDN_SENS_FRAMELINVEL ? v + 3 : v);
        return;
    }
    case GDN_SENS_SUBTREELINVEL:
        gdn_copy3(out, d->subtree_linvel + 3 * id);
        return;
    case GDN_SENS_SUBTREEANGMOM:
        gdn_copy3(out, d->subtree_angmom + 3 * id);
        return;
    default:
        memset(out, 0, sizeof(double) * (size_t)m->sensor_dim[i]);
        return;
    }
}

int gdn_sensor_touch_counts(const gdnModel* m, const gdnData* d, int site, int j) {
    const int body = m->site_bodyid[site];
    const gdnContact* con = &d->contact[j];
    const int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
    double f[6], ray[3];
    if (con->efc_address < 0 || (body != b1 && body != b2) ||
        gdn_contact_force(m, d, j, f) != GDN_OK || f[0] <= 0) {
        return 0;
    }
    gdn_scl3(ray, con->frame, f[0]);
    gdn_normalize3(ray);
    if (body == b2) {
        gdn_scl3(ray, ray, -1);
    }
    return gdn_ray_geom(d->site_xpos + 3 * site, d->site_xmat + 9 * site, m->site_size + 3 * site,
                        con->pos, ray, m->site_type[site]) >= 0;
}

// touch: the normal forces of the site body's contacts whose force ray (from the contact point
// along the normal force, into the body) meets the site's zone
static double touch(const gdnModel* m, const gdnData* d, int site) {
    double sum = 0;
    for (int j = 0; j < d->ncon; j++) {
        double f[6];
        if (gdn_sensor_touch_counts(m, d, site, j) && gdn_contact_force(m, d, j, f) == GDN_OK) {
            sum += f[0];
        }
    }
    return sum;
}

// the acceleration-stage value of sensor i (cacc, cfrc_int computed when it needs them)
static void sensor_acc(const gdnModel* m, gdnData* d, int i, double* out) {
    const int id = m->sensor_objid[i];
    double v[6];
    switch (m->sensor_type[i]) {
    case GDN_SENS_TOUCH:
        out[0] = touch(m, d, id);
        return;
    case GDN_SENS_ACCELEROMETER:
        object_acceleration(m, d, GDN_OBJ_SITE, id, 1, v);
        gdn_copy3(out, v + 3);
        return;
    case GDN_SENS_FORCE:
    case GDN_SENS_TORQUE: {
        // the subtree's interaction force with the parent, about the site, site frame
        const int b = m->site_bodyid[id];
        gdn_transform_spatial(v, d->cfrc_int + 6 * b, 1, d->site_xpos + 3 * id,
                              d->subtree_com + 3 * m->body_rootid[b], d->site_xmat + 9 * id);
        gdn_copy3(out, m->sensor_type[i] == GDN_SENS_FORCE ? v + 3 : v);
        return;
    }
    case GDN_SENS_ACTUATORFRC:
        out[0] = d->actuator_force[id];
        return;
    case GDN_SENS_JOINTLIMITFRC: {
        const int r = gdn_sensor_limit_row(d, id);
        out[0] = r < 0 ? 0 : d->efc_force[r];
        return;
    }
    case GDN_SENS_TENDONLIMITFRC: {
        const int r = gdn_sensor_limit_row_of(d, GDN_CNSTR_LIMIT_TENDON, id);
        out[0] = r < 0 ? 0 : d->efc_force[r];
        return;
    }
    case GDN_SENS_FRAMELINACC:
    case GDN_SENS_FRAMEANGACC:
        object_acceleration(m, d, m->sensor_objtype[i], id, 0, v);
        gdn_copy3(out, m->sensor_type[i] == GDN_SENS_FRAMELINACC ? v + 3 : v);
        return;
    default:
        memset(out, 0, sizeof(double) * (size_t)m->sensor_dim[i]);
        return;
    }
}

// mj_sensorAcc's rule: mj_rnePostConstraint runs for any acceleration sensor but touch,
// actuatorfrc and the limit forces
static int needs_rne_post(const gdnModel* m) {
    for (int i = 0; i < m->nsensor; i++) {
        const int t = m->sensor_type[i];
        if (m->sensor_needstage[i] == GDN_STAGE_ACC && t != GDN_SENS_TOUCH &&
            t != GDN_SENS_ACTUATORFRC && t != GDN_SENS_JOINTLIMITFRC &&
            t != GDN_SENS_TENDONLIMITFRC) {
            return 1;
        }
    }
    return 0;
}

// cutoff: real values clamped to [-c, c], positive ones to at most c
static void cutoff(const gdnModel* m, gdnData* d, int i) {
    const double c = m->sensor_cutoff[i];
    if (!(c > 0)) {
        return;
    }
    double* x = d->sensordata + m->sensor_adr[i];
    for (int k = 0; k < m->sensor_dim[i]; k++) {
        if (m->sensor_datatype[i] == GDN_DATATYPE_REAL) {
            x[k] = x[k] < -c ? -c : x[k] > c ? c : x[k];
        } else if (m->sensor_datatype[i] == GDN_DATATYPE_POSITIVE) {
            x[k] = fmin(c, x[k]);
        }
    }
}

void gdn_sensor_stage(const gdnModel* m, gdnData* d, int stage, const double* qacc) {
    int subtree = 0, post = 0;
    for (int i = 0; i < m->nsensor; i++) {
        if (m->sensor_needstage[i] != stage) {
            continue;
        }
        double* out = d->sensordata + m->sensor_adr[i];
        const int t = m->sensor_type[i];
        if (stage == GDN_STAGE_POS) {
            sensor_pos(m, d, i, out);
        } else if (stage == GDN_STAGE_VEL) {
            if (!subtree && (t == GDN_SENS_SUBTREELINVEL || t == GDN_SENS_SUBTREEANGMOM)) {
                // body velocities: scratch of the caller's arena
                size_t mark = gdn_arena_mark(d);
                double* body_vel = gdn_arena_doubles(d, 6 * (size_t)m->nbody);
                if (body_vel) {
                    subtree_vel(m, d, body_vel);
                } else {
                    for (int k = 0; k < 3 * m->nbody; k++) {
                        d->subtree_linvel[k] = d->subtree_angmom[k] = NAN;
                    }
                }
                gdn_arena_reset(d, mark);
                subtree = 1;
            }
            sensor_vel(m, d, i, out);
        } else {
            if (!post && qacc && needs_rne_post(m)) {
                gdn_rne_post_constraint(m, d, qacc);
                post = 1;
            }
            sensor_acc(m, d, i, out);
        }
        cutoff(m, d, i);
    }
}

// MuJoCo's qacc when d->qacc is the damped step acceleration: M^-1 (qfrc_smooth +
// qfrc_constraint) by the tree LDL' of qM (qM, qfrc_bias, qfrc_smooth computed first when the
// step path did not: no rows)
static gdnStatus undamped_qacc(const gdnModel* m, gdnData* d, const double* tau, double* x) {
    const int nv = m->nv;
    if (d->nefc == 0) {
        gdn_crb_com(m, d);
        gdn_rne_com(m, d, 0, d->qfrc_bias);
        for (int k = 0; k < nv; k++) {
            d->qfrc_smooth[k] = tau[k] - d->qfrc_bias[k];
            x[k] = d->qfrc_smooth[k];
        }
    } else {
        for (int k = 0; k < nv; k++) {
            x[k] = d->qfrc_smooth[k] + d->qfrc_constraint[k];
        }
    }
    size_t mark = gdn_arena_mark(d);
    gdnMassFactor f;
    gdnStatus status = gdn_mass_factor_alloc(m, d, NULL, &f);
    if (status == GDN_OK) {
        gdn_mass_factor(m, d->qM, NULL, &f);
        gdn_mass_solve(m, &f, x);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_sensor_stages(const gdnModel* m, gdnData* d, const double* tau, double hd) {
    gdn_sensor_stage(m, d, GDN_STAGE_POS, NULL);
    gdn_sensor_stage(m, d, GDN_STAGE_VEL, NULL);
    const double* qacc = d->qacc;
    size_t mark = gdn_arena_mark(d);
    int damped = 0;
    for (int k = 0; k < m->nv && hd > 0; k++) {
        damped |= m->dof_damping[k] > 0;
    }
    gdnStatus status = GDN_OK;
    if (damped && needs_rne_post(m)) {
        double* x = gdn_arena_doubles(d, (size_t)m->nv);
        status = x ? undamped_qacc(m, d, tau, x) : GDN_ERR_MEMORY;
        qacc = x;
    }
    if (status == GDN_OK) {
        gdn_sensor_stage(m, d, GDN_STAGE_ACC, qacc);
    }
    gdn_arena_reset(d, mark);
    return status;
}
