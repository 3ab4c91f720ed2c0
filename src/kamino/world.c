// SPDX-License-Identifier: Apache-2.0
// Kamino worlds: creation (every buffer a step needs, sized once), the public world view and
// the reset of masked worlds from joint coordinates by MJCF kinematics.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "kamino/kamino.h"
#include "math/vec.h"

static void world_free(gdnKWorld* w) {
    gdn_data_free(w->cd);
    void* p[] = {w->pub.body_pos, w->pub.body_quat, w->pub.body_u, w->pub.body_qdd,
                 w->pub.xfrc_applied, w->pub.ctrl, w->pub.qpos, w->pub.qvel, w->pub.lambda,
                 w->pub.row_force, w->u_prev, w->rows, w->row_kind, w->row_id, w->resid,
                 w->D, w->vf, w->mu, w->lam, w->vplus, w->lam_prev, w->id_prev, w->kind_prev,
                 w->minvj, w->uf, w->scratch, w->xpos, w->xmat, w->rcom, w->iinv, w->contact,
                 w->wrench, w->pos_prev, w->quat_prev, w->vplus_prev, w->qpos_save,
                 w->contact_prev, w->cimp_prev, w->cused, w->env.first, w->env.last,
                 w->env.colstart, w->env.colrows, w->body_rowstart, w->body_rowfill,
                 w->body_rows, w->env_key, w->frame_pos, w->frame_quat, w->curv, w->rows_pos, w->rows_quat,
                 w->rows_u};
    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        free(p[i]);
    }
}

// allocate world w; 0 ok
static int world_alloc(const gdnKaminoModel* km, gdnKWorld* w) {
    const gdnModel* m = km->m;
    size_t nb = (size_t)km->nbody, n = (size_t)km->maxrow + 1;
    size_t nc = (size_t)km->s.max_contacts + 1;
    if (gdn_data_create(m, &w->cd) != GDN_OK) {
        return -1;
    }
#define D(x, cnt) ((x) = calloc((cnt), sizeof(*(x))), (x) == NULL)
    int bad = 0;
    bad |= D(w->pub.body_pos, 3 * nb) | D(w->pub.body_quat, 4 * nb) | D(w->pub.body_u, 6 * nb);
    bad |= D(w->pub.body_qdd, 6 * nb) | D(w->pub.xfrc_applied, 6 * nb);
    bad |= D(w->pub.ctrl, (size_t)m->nu + 1) | D(w->pub.qpos, (size_t)m->nq + 1);
    bad |= D(w->pub.qvel, (size_t)m->nv + 1) | D(w->pub.lambda, n) | D(w->pub.row_force, n);
    bad |= D(w->u_prev, 6 * nb) | D(w->rows, n) | D(w->row_kind, n) | D(w->row_id, n);
    bad |= D(w->resid, n) | D(w->curv, n) | D(w->D, n * n) | D(w->vf, n) | D(w->mu, nc) | D(w->lam, n);
    bad |= D(w->vplus, n) | D(w->lam_prev, n) | D(w->id_prev, n) | D(w->kind_prev, n);
    bad |= D(w->minvj, 12 * n) | D(w->uf, 6 * nb);
    bad |= D(w->scratch, gdn_kamino_padmm_scratch((int)n) + 1);
    bad |= D(w->xpos, 3 * nb) | D(w->xmat, 9 * nb) | D(w->rcom, 9 * nb) | D(w->contact, nc);
    bad |= D(w->iinv, 9 * nb) | D(w->frame_pos, 3 * nb) | D(w->frame_quat, 4 * nb);
    bad |= D(w->rows_pos, 3 * nb) | D(w->rows_quat, 4 * nb) | D(w->rows_u, 6 * nb);
    bad |= D(w->wrench, 6 * nb) | D(w->pos_prev, 3 * nb) | D(w->quat_prev, 4 * nb);
    bad |= D(w->vplus_prev, n) | D(w->qpos_save, (size_t)m->nq + 1);
    bad |= D(w->contact_prev, nc) | D(w->cimp_prev, 6 * nc) | D(w->cused, nc);
    // the envelope of D over every row count up to maxrow (n - 1 rows: its column lists hold at
    // most (n - 1)(n - 2) / 2 entries) and the rows of each body
    bad |= D(w->env.first, n) | D(w->env.last, n) | D(w->env.colstart, n + 1);
    bad |= D(w->env.colrows, n * n / 2 + 1);
    bad |= D(w->body_rowstart, nb + 1) | D(w->body_rowfill, nb + 1) | D(w->body_rows, 2 * n);
    bad |= D(w->env_key, 2 * n);
    w->env_key_n = -1;
#undef D
    w->pub.contact = w->contact;
    return bad ? -1 : 0;
}

gdnStatus gdn_kamino_data_create(const gdnKaminoModel* km, int world_count,
                                 gdnKaminoData** out) {
    if (!km || !out || world_count < 1) {
        return GDN_ERR_ARG;
    }
    *out = NULL;
    gdnKaminoData* kd = calloc(1, sizeof(gdnKaminoData));
    if (!kd) {
        return GDN_ERR_MEMORY;
    }
    kd->km = km;
    kd->world = calloc((size_t)world_count, sizeof(gdnKWorld));
    if (!kd->world) {
        free(kd);
        return GDN_ERR_MEMORY;
    }
    kd->world_count = world_count;
    for (int i = 0; i < world_count; i++) {
        if (world_alloc(km, kd->world + i)) {
            gdn_kamino_data_free(kd);
            return GDN_ERR_MEMORY;
        }
    }
    gdnStatus st = gdn_kamino_reset(km, kd, NULL, NULL, NULL);
    if (st != GDN_OK) {
        gdn_kamino_data_free(kd);
        return st;
    }
    *out = kd;
    return GDN_OK;
}

void gdn_kamino_data_free(gdnKaminoData* kd) {
    if (!kd) {
        return;
    }
    if (kd->world) {
        for (int i = 0; i < kd->world_count; i++) {
            world_free(kd->world + i);
        }
    }
    free(kd->world);
    free(kd);
}

int gdn_kamino_world_count(const gdnKaminoData* kd) {
    return kd ? kd->world_count : 0;
}

gdnKaminoWorld* gdn_kamino_world(gdnKaminoData* kd, int w) {
    if (!kd || w < 0 || w >= kd->world_count) {
        return NULL;
    }
    return &kd->world[w].pub;
}

// reset one world from the joint state (qpos, qvel)
static gdnStatus reset_world(const gdnKaminoModel* km, gdnKWorld* w, const double* qpos,
                             const double* qvel) {
    const gdnModel* m = km->m;
    gdnData* cd = w->cd;
    int nb = km->nbody, nv = m->nv;
    memcpy(cd->qpos, qpos ? qpos : m->qpos0, (size_t)m->nq * sizeof(double));
    if (qvel) {
        memcpy(cd->qvel, qvel, (size_t)nv * sizeof(double));
    } else {
        memset(cd->qvel, 0, (size_t)nv * sizeof(double));
    }
    gdn_kinematics(m, cd);
    size_t mark = gdn_arena_mark(cd);
    double* jacp = gdn_arena_doubles(cd, 6 * (size_t)nv + 6);
    if (!jacp) {
        return GDN_ERR_MEMORY;
    }
    double* jacr = jacp + 3 * nv;
    for (int b = 0; b < nb; b++) {
        double q[4];
        gdn_copy3(w->pub.body_pos + 3 * b, cd->xipos + 3 * b);
        gdn_mulquat(q, cd->xquat + 4 * b, m->body_iquat + 4 * b);
        gdn_normalize4(q);
        gdn_copy4(w->pub.body_quat + 4 * b, q);
        gdn_copy3(w->xpos + 3 * b, cd->xpos + 3 * b);
        memcpy(w->xmat + 9 * b, cd->xmat + 9 * b, 9 * sizeof(double));
        memcpy(w->rcom + 9 * b, cd->ximat + 9 * b, 9 * sizeof(double));
        double* u = w->pub.body_u + 6 * b;
        memset(u, 0, 6 * sizeof(double));
        if (km->moving[b] && nv > 0) {
            gdn_jac_body_com(m, cd, jacp, jacr, b);
            for (int r = 0; r < 3; r++) {
                for (int k = 0; k < nv; k++) {
                    u[r] += jacp[r * nv + k] * cd->qvel[k];
                    u[3 + r] += jacr[r * nv + k] * cd->qvel[k];
                }
            }
        }
    }
    gdn_arena_reset(cd, mark);
    gdn_kamino_body_frames(km, w);
    memcpy(w->pub.qpos, cd->qpos, (size_t)m->nq * sizeof(double));
    memcpy(w->pub.qvel, cd->qvel, (size_t)nv * sizeof(double));
    memset(w->pub.body_qdd, 0, 6 * (size_t)nb * sizeof(double));
    memset(w->pub.xfrc_applied, 0, 6 * (size_t)nb * sizeof(double));
    memset(w->pub.ctrl, 0, ((size_t)m->nu + 1) * sizeof(double));
    memcpy(w->u_prev, w->pub.body_u, 6 * (size_t)nb * sizeof(double));
    w->pub.time = 0;
    w->pub.nrow = 0;
    w->pub.ncontact = 0;
    w->nrow_prev = 0;
    w->ncon_prev = 0;
    w->rho_prev = km->s.rho;
    w->rows_valid = 0;
    w->proj_moves = 1;
    memset(&w->pub.status, 0, sizeof(w->pub.status));
    w->pub.status.converged = 1;
    return GDN_OK;
}

gdnStatus gdn_kamino_reset(const gdnKaminoModel* km, gdnKaminoData* kd,
                           const unsigned char* mask, const double* qpos, const double* qvel) {
    if (!km || !kd || kd->km != km) {
        return GDN_ERR_ARG;
    }
    const gdnModel* m = km->m;
    for (int i = 0; qpos && i < m->nq; i++) {
        if (!isfinite(qpos[i])) {
            return GDN_ERR_NONFINITE;
        }
    }
    for (int i = 0; qvel && i < m->nv; i++) {
        if (!isfinite(qvel[i])) {
            return GDN_ERR_NONFINITE;
        }
    }
    for (int i = 0; i < kd->world_count; i++) {
        if (mask && !mask[i]) {
            continue;
        }
        gdnStatus st = reset_world(km, kd->world + i, qpos, qvel);
        if (st != GDN_OK) {
            return st;
        }
    }
    return GDN_OK;
}
