// SPDX-License-Identifier: Apache-2.0
// The Kamino step of every world (kamino.md 2.1): body frames, joint and limit rows, contacts
// from gradyn's collision pass on the geom poses of the bodies, the dual problem, the backend,
// semi-implicit Euler, joint recovery, the status record.
#include <math.h>
#include <string.h>

#include "collision/collision.h"
#include "kamino/kamino.h"
#include "math/vec.h"

// geom poses of the moving bodies into cd (static geoms keep their reset poses)
static void geom_poses(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    gdnData* cd = w->cd;
    for (int g = 0; g < m->ngeom; g++) {
        int b = m->geom_bodyid[g];
        if (!km->moving[b]) {
            continue;
        }
        double v[3], Rg[9];
        gdn_mulmat3(v, w->xmat + 9 * b, m->geom_pos + 3 * g);
        gdn_add3(cd->geom_xpos + 3 * g, w->xpos + 3 * b, v);
        gdn_quat2mat(Rg, m->geom_quat + 4 * g);
        gdn_mulmatmat3(cd->geom_xmat + 9 * g, w->xmat + 9 * b, Rg);
    }
}

// contact row along world direction d: + on body2 (a), - on body1 (b), both at point p
static void contact_row(gdnKRow* r, const gdnKWorld* w, int a, int b, const double d[3],
                        const double p[3]) {
    double arm[3];
    memset(r, 0, sizeof(*r));
    r->a = a;
    r->b = b;
    if (a >= 0) {
        gdn_copy3(r->ja, d);
        gdn_sub3(arm, p, w->pub.body_pos + 3 * a);
        gdn_cross3(r->ja + 3, arm, d);
    }
    if (b >= 0) {
        gdn_scl3(r->jb, d, -1);
        gdn_sub3(arm, p, w->pub.body_pos + 3 * b);
        gdn_cross3(r->jb + 3, arm, d);
        gdn_scl3(r->jb + 3, r->jb + 3, -1);
    }
}

// contact c as contact slot (rows n0 + 3 slot ..), + on body a (geom2's), - on b
static void put_contact(const gdnKaminoModel* km, gdnKWorld* w, int n0, int slot,
                        const gdnContact* c, int a, int b) {
    const gdnModel* m = km->m;
    gdnKaminoContact* k = w->contact + slot;
    k->geom1 = c->geom1;
    k->geom2 = c->geom2;
    k->body1 = m->geom_bodyid[c->geom1];
    k->body2 = m->geom_bodyid[c->geom2];
    gdn_copy3(k->pos, c->pos);
    // [t0 t1 n] from gdnContact's rows (n, t1, t2)
    memcpy(k->frame, c->frame + 3, 6 * sizeof(double));
    memcpy(k->frame + 6, c->frame, 3 * sizeof(double));
    k->dist = c->dist;
    // MuJoCo's collision floors friction at 1e-5 (mjMINMU): below that, the geoms' own
    // (max-mixed) sliding friction, so frictionless geoms give mu = 0
    k->mu = c->friction[0];
    if (k->mu <= 1e-5) {
        k->mu = fmax(m->geom_friction[3 * c->geom1], m->geom_friction[3 * c->geom2]);
    }
    memset(k->force, 0, sizeof(k->force));
    for (int r = 0; r < 3; r++) {
        int row = n0 + 3 * slot + r;
        contact_row(w->rows + row, w, a, b, k->frame + 3 * r, c->pos);
        w->row_kind[row] = 2;
        w->row_id[row] = 3 * (c->geom1 * m->ngeom + c->geom2) + r;
        w->resid[row] = r == 2 ? c->dist : 0;
    }
    w->mu[slot] = k->mu;
}

// contacts into rows [n0, ...) and w->contact; returns the contact count
static gdnStatus contacts(const gdnKaminoModel* km, gdnKWorld* w, int n0, int* ncon) {
    const gdnModel* m = km->m;
    int nc = 0, over = 0;
    *ncon = 0;
    if (!km->collides || (m->opt.disableflags & (GDN_DSBL_CONTACT | GDN_DSBL_CONSTRAINT))) {
        w->pub.status.ncontact_overflow = 0;
        return GDN_OK;
    }
    geom_poses(km, w);
    gdnStatus st = gdn_collision_stage(&km->mc, w->cd);
    if (st != GDN_OK) {
        return st;
    }
    for (int i = 0; i < w->cd->ncon; i++) {
        const gdnContact* c = w->cd->contact + i;
        if (c->dist > km->s.deadzone) {
            continue; // speculative contacts are culled (kamino.md 1); within the dead zone
                      // a contact counts as touching
        }
        int b1 = m->geom_bodyid[c->geom1], b2 = m->geom_bodyid[c->geom2];
        int a = km->moving[b2] ? b2 : -1, b = km->moving[b1] ? b1 : -1;
        if (a < 0 && b < 0) {
            continue;
        }
        // a point of the same geom pair within merge_distance of a kept one is the same contact
        // (face clipping of two nearly aligned boxes gives pairs a rounding or a 1e-7 rad twist
        // apart: rows that duplicate each other): the deeper of the two stays
        int slot = nc;
        for (int k = 0; k < nc; k++) {
            const gdnKaminoContact* kept = w->contact + k;
            double dpos[3];
            gdn_sub3(dpos, kept->pos, c->pos);
            if (kept->geom1 == c->geom1 && kept->geom2 == c->geom2 &&
                gdn_norm3(dpos) <= km->s.merge_distance) {
                slot = c->dist < kept->dist ? k : -1;
                break;
            }
        }
        if (slot < 0) {
            continue;
        }
        if (slot == nc && nc >= km->s.max_contacts) {
            over++;
            continue;
        }
        put_contact(km, w, n0, slot, c, a, b);
        nc += slot == nc;
    }
    w->pub.status.ncontact_overflow = over;
    *ncon = nc;
    return GDN_OK;
}

// the violated joint limits into rows [n0, ...); returns their count
static int limits(const gdnKaminoModel* km, gdnKWorld* w, int n0) {
    const gdnModel* m = km->m;
    if (m->opt.disableflags & (GDN_DSBL_LIMIT | GDN_DSBL_CONSTRAINT)) {
        return 0;
    }
    int n = 0;
    for (int i = 0; i < km->nlimit; i++) {
        const gdnKLimit* L = km->limit + i;
        double q = w->pub.qpos[m->jnt_qposadr[L->jnt]];
        int side = q < L->lo ? 1 : q > L->hi ? -1 : 0;
        if (!side) {
            continue;
        }
        gdnKRow* r = w->rows + n0 + n;
        gdn_kamino_dof_row(km, w, L->joint, r);
        if (side < 0) {
            for (int k = 0; k < 6; k++) {
                r->ja[k] = -r->ja[k];
                r->jb[k] = -r->jb[k];
            }
        }
        w->resid[n0 + n] = side > 0 ? q - L->lo : L->hi - q;
        w->row_kind[n0 + n] = 1;
        w->row_id[n0 + n] = 2 * i + (side > 0);
        n++;
    }
    return n;
}

// applied wrenches plus joint actuators (J_dof' tau)
static void wrenches(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    memcpy(w->wrench, w->pub.xfrc_applied, 6 * (size_t)km->nbody * sizeof(double));
    if (m->opt.disableflags & GDN_DSBL_ACTUATION) {
        return;
    }
    for (int a = 0; a < m->nu; a++) {
        int jn = m->actuator_trnid[2 * a];
        int qa = m->jnt_qposadr[jn], va = m->jnt_dofadr[jn];
        double ctrl = w->pub.ctrl[a];
        if (m->actuator_ctrllimited[a]) {
            ctrl = fmin(fmax(ctrl, m->actuator_ctrlrange[2 * a]), m->actuator_ctrlrange[2 * a + 1]);
        }
        const double* g = m->actuator_gainprm + GDN_NGAIN * a;
        const double* bp = m->actuator_biasprm + GDN_NBIAS * a;
        double gear = m->actuator_gear[6 * a];
        double len = gear * w->pub.qpos[qa], vel = gear * w->pub.qvel[va];
        double f = g[0] * ctrl;
        if (m->actuator_gaintype[a] == GDN_GAIN_AFFINE) {
            f = (g[0] + g[1] * len + g[2] * vel) * ctrl;
        }
        if (m->actuator_biastype[a] == GDN_BIAS_AFFINE) {
            f += bp[0] + bp[1] * len + bp[2] * vel;
        }
        if (m->actuator_forcelimited[a]) {
            f = fmin(fmax(f, m->actuator_forcerange[2 * a]), m->actuator_forcerange[2 * a + 1]);
        }
        double tau = gear * f;
        gdnKRow r;
        gdn_kamino_dof_row(km, w, km->body_joint[m->jnt_bodyid[jn]], &r);
        for (int k = 0; k < 6; k++) {
            if (r.a >= 0) {
                w->wrench[6 * r.a + k] += r.ja[k] * tau;
            }
            if (r.b >= 0) {
                w->wrench[6 * r.b + k] += r.jb[k] * tau;
            }
        }
    }
}

// warm start. Joint rows: the last step's value of the same row; limit rows: the same limit and
// side. Contacts: the last step's contact of the same geom pair nearest to it (within 1 cm, each
// used once), its impulse and v+ carried as world vectors into the new frame
static void warmstart(const gdnKaminoModel* km, gdnKWorld* w, int n, int n0, int nc) {
    memset(w->lam, 0, (size_t)n * sizeof(double));
    memset(w->vplus, 0, (size_t)n * sizeof(double));
    if (!km->s.warmstart) {
        return;
    }
    for (int i = 0; i < n0; i++) {
        int found = -1;
        if (i < w->nrow_prev && w->kind_prev[i] == w->row_kind[i] &&
            w->id_prev[i] == w->row_id[i]) {
            found = i;
        } else if (w->row_kind[i] == 1) {
            for (int k = 0; k < w->nrow_prev; k++) {
                if (w->kind_prev[k] == 1 && w->id_prev[k] == w->row_id[i]) {
                    found = k;
                    break;
                }
            }
        }
        if (found >= 0) {
            w->lam[i] = w->lam_prev[found];
            w->vplus[i] = w->vplus_prev[found];
        }
    }
    memset(w->cused, 0, (size_t)(w->ncon_prev + 1) * sizeof(int));
    for (int c = 0; c < nc; c++) {
        const gdnKaminoContact* k = w->contact + c;
        int best = -1;
        double bestd = 1e-2;
        for (int p = 0; p < w->ncon_prev; p++) {
            const gdnKaminoContact* q = w->contact_prev + p;
            if (w->cused[p] || q->geom1 != k->geom1 || q->geom2 != k->geom2) {
                continue;
            }
            double d[3];
            gdn_sub3(d, k->pos, q->pos);
            double dist = gdn_norm3(d);
            if (dist < bestd) {
                bestd = dist;
                best = p;
            }
        }
        if (best < 0) {
            continue;
        }
        w->cused[best] = 1;
        for (int r = 0; r < 3; r++) {
            w->lam[n0 + 3 * c + r] = gdn_dot3(k->frame + 3 * r, w->cimp_prev + 6 * best);
            w->vplus[n0 + 3 * c + r] = gdn_dot3(k->frame + 3 * r, w->cimp_prev + 6 * best + 3);
        }
    }
}

// keep this step's contacts with their impulse and v+ as world vectors
static void keep_contacts(gdnKWorld* w, int n0, int nc) {
    for (int c = 0; c < nc; c++) {
        const gdnKaminoContact* k = w->contact + c;
        double* v = w->cimp_prev + 6 * c;
        memset(v, 0, 6 * sizeof(double));
        for (int r = 0; r < 3; r++) {
            gdn_addscl3(v, v, k->frame + 3 * r, w->lam[n0 + 3 * c + r]);
            gdn_addscl3(v + 3, v + 3, k->frame + 3 * r, w->vplus[n0 + 3 * c + r]);
        }
        w->contact_prev[c] = *k;
    }
    w->ncon_prev = nc;
}

static int finite_state(const gdnKaminoModel* km, const gdnKWorld* w) {
    for (int b = 0; b < km->nbody; b++) {
        for (int k = 0; k < 6; k++) {
            if (!isfinite(w->pub.body_u[6 * b + k])) {
                return 0;
            }
        }
        for (int k = 0; k < 3; k++) {
            if (!isfinite(w->pub.body_pos[3 * b + k])) {
                return 0;
            }
        }
    }
    return 1;
}

static gdnStatus step_world(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    double h = m->opt.timestep;
    int nb = km->nbody;
    gdnKaminoStatus* st = &w->pub.status;
    if (!(h > 0) || !finite_state(km, w)) {
        return GDN_ERR_NONFINITE;
    }
    for (int a = 0; a < m->nu; a++) {
        if (!isfinite(w->pub.ctrl[a])) {
            return GDN_ERR_NONFINITE;
        }
    }
    for (int k = 0; k < 6 * nb; k++) {
        if (!isfinite(w->pub.xfrc_applied[k])) {
            return GDN_ERR_NONFINITE;
        }
    }
    // rows: joints, violated limits, contacts (the frames are usually the last step's final ones)
    gdn_kamino_body_frames_update(km, w);
    // joints are rows in maximal coordinates: always there; the disable flags of constraints or
    // equality drop the loop closures only
    int nbil = (m->opt.disableflags & (GDN_DSBL_CONSTRAINT | GDN_DSBL_EQUALITY)) ? km->njointrow
                                                                                  : km->nbilateral;
    gdn_kamino_joint_rows_update(km, w); // (usually made by the last step's projection)
    int nl = limits(km, w, nbil), nc = 0;
    gdnStatus r = contacts(km, w, nbil + nl, &nc);
    if (r != GDN_OK) {
        return r;
    }
    int n = nbil + nl + 3 * nc;
    // the free velocity and the dual problem
    memcpy(w->u_prev, w->pub.body_u, 6 * (size_t)nb * sizeof(double));
    memcpy(w->pos_prev, w->pub.body_pos, 3 * (size_t)nb * sizeof(double));
    memcpy(w->quat_prev, w->pub.body_quat, 4 * (size_t)nb * sizeof(double));
    memcpy(w->qpos_save, w->pub.qpos, (size_t)m->nq * sizeof(double));
    wrenches(km, w);
    gdn_kamino_free_velocity(km, w, w->wrench, h);
    gdnKaminoSolveStatus ss = {1, 0, 0, 0, 0, km->s.rho, 0, 0};
    if (n > 0) {
        gdn_kamino_assemble(km, w, n, nbil, nl, nc, h);
        warmstart(km, w, n, nbil + nl, nc);
        w->dual = (gdnKaminoDual){nbil, nl, nc, n, w->D, w->vf, w->mu, &w->env};
        const gdnKaminoDual* p = &w->dual;
        // the balanced penalty carries over from step to step (settings.rho at the first step
        // and after a reset); a fixed penalty is settings.rho
        gdnKaminoPadmmSettings ps = km->padmm;
        if (km->s.penalty_update) {
            ps.rho = w->rho_prev;
        }
        r = gdn_kamino_padmm_solve(p, &ps, w->lam, w->vplus, w->scratch, &ss);
        if (r != GDN_OK) {
            return r;
        }
    }
    // integrate (and project when asked), then check
    gdn_kamino_integrate(km, w, n, h);
    if (km->s.projection_iterations > 0) {
        gdn_kamino_project(km, w, n, nbil);
    }
    if (!finite_state(km, w)) {
        memcpy(w->pub.body_u, w->u_prev, 6 * (size_t)nb * sizeof(double));
        memcpy(w->pub.body_pos, w->pos_prev, 3 * (size_t)nb * sizeof(double));
        memcpy(w->pub.body_quat, w->quat_prev, 4 * (size_t)nb * sizeof(double));
        return GDN_ERR_NONFINITE;
    }
    gdn_kamino_body_frames_update(km, w); // (the projection's last check made the poses)
    gdn_kamino_recover_joints(km, w);
    // outputs: accelerations, reactions, contact forces, status; the warm-start cache
    for (int k = 0; k < 6 * nb; k++) {
        w->pub.body_qdd[k] = (w->pub.body_u[k] - w->u_prev[k]) / h;
    }
    for (int i = 0; i < n; i++) {
        w->pub.lambda[i] = w->lam[i];
        w->pub.row_force[i] = w->lam[i] / h;
        w->lam_prev[i] = w->lam[i];
        w->vplus_prev[i] = w->vplus[i];
        w->kind_prev[i] = w->row_kind[i];
        w->id_prev[i] = w->row_id[i];
    }
    w->nrow_prev = n;
    keep_contacts(w, nbil + nl, nc);
    for (int c = 0; c < nc; c++) {
        for (int k = 0; k < 3; k++) {
            w->contact[c].force[k] = w->lam[nbil + nl + 3 * c + k] / h;
        }
    }
    w->pub.nrow = n;
    w->pub.ncontact = nc;
    st->converged = ss.converged;
    st->iterations = ss.iterations;
    st->r_p = ss.r_p;
    st->r_d = ss.r_d;
    st->r_c = ss.r_c;
    st->refactorizations = ss.refactorizations;
    st->rho = ss.rho;
    if (n > nbil && isfinite(ss.rho)) {
        w->rho_prev = ss.rho;
    }
    st->nrow = n;
    st->nbilateral = nbil;
    st->nlimit = nl;
    st->ncontact = nc;
    w->pub.time += h;
    return GDN_OK;
}

gdnStatus gdn_kamino_step(const gdnKaminoModel* km, gdnKaminoData* kd) {
    if (!km || !kd || kd->km != km) {
        return GDN_ERR_ARG;
    }
    gdnStatus first = GDN_OK;
    for (int i = 0; i < kd->world_count; i++) {
        gdnKWorld* w = kd->world + i;
        gdnStatus r = step_world(km, w);
        w->pub.status.result = r;
        if (r != GDN_OK && first == GDN_OK) {
            first = r;
        }
    }
    return first;
}
