// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's RK4 step (mj_RungeKutta with N = 4) on the configuration manifold.
#include <string.h>

#include "base/arena.h"
#include "dynamics/activation.h"
#include "sim/integrator.h"
#include "sim/pipeline.h"

const double gdn_rk4_A[3] = {0.5, 0.5, 1};
const double gdn_rk4_B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};

gdnStatus gdn_rk4_record_alloc(const gdnModel* m, gdnData* d, gdnRk4Record* rec) {
    const size_t nq = (size_t)m->nq, nv = (size_t)(m->nv > 0 ? m->nv : 1), na = (size_t)m->na;
    double* p = gdn_arena_doubles(d, 4 * nq + 17 * nv + 9 * na + 1);
    if (!p) {
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < 4; i++) {
        rec->q[i] = p;
        rec->v[i] = p + nq;
        rec->a[i] = p + nq + nv;
        rec->warm[i] = p + nq + 2 * nv;
        p += nq + 3 * nv;
    }
    for (int i = 0; i < 3; i++) {
        rec->dq[i] = p;
        p += nv;
    }
    rec->vbar = p;
    rec->abar = p + nv;
    p += 2 * nv;
    for (int i = 0; i < 4; i++) {
        rec->act[i] = p;
        rec->adot[i] = p + na;
        p += 2 * na;
    }
    rec->adotbar = p;
    return GDN_OK;
}

// dX_i = A_i v_{i-1} (MuJoCo's sum over j < i, whose other terms add exact zeros),
// q_i = q_0 (+) h dX_i, v_i = v_0 + h (A_i a_{i-1})
void gdn_rk4_stage_state(const gdnModel* m, gdnRk4Record* rec, int i) {
    const double c = gdn_rk4_A[i - 1], h = m->opt.timestep;
    double* dq = rec->dq[i - 1];
    for (int k = 0; k < m->nv; k++) {
        dq[k] = rec->v[i - 1][k] * c;
        rec->v[i][k] = rec->v[0][k] + (rec->a[i - 1][k] * c) * h;
    }
    for (int k = 0; k < m->na; k++) {
        rec->act[i][k] = rec->act[0][k] + (rec->adot[i - 1][k] * c) * h;
    }
    memcpy(rec->q[i], rec->q[0], sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, rec->q[i], dq, h);
}

// vbar = sum_j B_j v_j, abar = sum_j B_j a_j (MuJoCo's order: j = 0 .. 3)
void gdn_rk4_combine(const gdnModel* m, gdnRk4Record* rec) {
    for (int k = 0; k < m->nv; k++) {
        double sv = 0, sa = 0;
        for (int j = 0; j < 4; j++) {
            sv += rec->v[j][k] * gdn_rk4_B[j];
            sa += rec->a[j][k] * gdn_rk4_B[j];
        }
        rec->vbar[k] = sv;
        rec->abar[k] = sa;
    }
    for (int k = 0; k < m->na; k++) {
        double s = 0;
        for (int j = 0; j < 4; j++) {
            s += rec->adot[j][k] * gdn_rk4_B[j];
        }
        rec->adotbar[k] = s;
    }
}

// mj_advance: act' = clamp(act_0 + h adotbar), v' = v_0 + h abar, q' = q_0 (+) h vbar
void gdn_rk4_advance(const gdnModel* m, const gdnRk4Record* rec, double* qpos, double* qvel,
                     double* act) {
    const double h = m->opt.timestep;
    if (act) {
        gdn_act_advance(m, rec->act[0], rec->adotbar, h, act, NULL);
    }
    for (int k = 0; k < m->nv; k++) {
        qvel[k] = rec->v[0][k] + rec->abar[k] * h;
    }
    memcpy(qpos, rec->q[0], sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, qpos, rec->vbar, h);
}

// one stage's front half at the state in d: its warm start and acceleration into the record
static gdnStatus stage_front(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                             gdnRk4Record* rec, int i) {
    const size_t bytes = sizeof(double) * (size_t)m->nv;
    memcpy(rec->warm[i], d->qacc_warmstart, bytes);
    gdnStatus status = gdn_pipeline_front(m, d, mode | (i ? GDN_PIPE_NOSENSOR : 0), NULL);
    if (status == GDN_OK) {
        memcpy(rec->a[i], d->qacc, bytes);
        memcpy(rec->adot[i], d->act_dot, sizeof(double) * (size_t)m->na);
    }
    return status;
}

gdnStatus gdn_rk4_step(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                       gdnRk4Record* rec_in) {
    const int nq = m->nq, nv = m->nv;
    const size_t qbytes = sizeof(double) * (size_t)nq, vbytes = sizeof(double) * (size_t)nv;
    const double h = m->opt.timestep, time = d->time;
    size_t mark = gdn_arena_mark(d);
    gdnRk4Record local;
    gdnRk4Record* rec = rec_in ? rec_in : &local;
    // the entry state (a failed stage restores it), then the record
    double* qpos_entry = gdn_arena_doubles(d, (size_t)nq + 1);
    gdnStatus status = qpos_entry ? GDN_OK : GDN_ERR_MEMORY;
    if (status == GDN_OK && !rec_in) {
        status = gdn_rk4_record_alloc(m, d, rec);
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    memcpy(qpos_entry, d->qpos, qbytes);
    // stage 0 at x_0 (mj_step's mj_forward): q_0 is qpos as the front half normalized it
    const size_t abytes = sizeof(double) * (size_t)m->na;
    memcpy(rec->v[0], d->qvel, vbytes);
    memcpy(rec->act[0], d->act, abytes);
    status = stage_front(m, d, mode, rec, 0);
    if (status == GDN_OK) {
        memcpy(rec->q[0], d->qpos, qbytes);
    }
    // stages 1..3 (gdn_rk4_stage_state), then vbar and abar
    for (int i = 1; i < 4 && status == GDN_OK; i++) {
        gdn_rk4_stage_state(m, rec, i);
        memcpy(d->qpos, rec->q[i], qbytes);
        memcpy(d->qvel, rec->v[i], vbytes);
        memcpy(d->act, rec->act[i], abytes);
        d->time = time + gdn_rk4_A[i - 1] * h;
        status = stage_front(m, d, mode, rec, i); // its check refuses a non-finite x_i
    }
    if (status == GDN_OK) {
        gdn_rk4_combine(m, rec);
    }
    // mj_advance (committed only when finite); the stage accelerations kept in d->qacc_rk4,
    // the stage activation rates in d->act_dot_rk4
    if (status == GDN_OK) {
        gdn_rk4_advance(m, rec, d->qpos, d->qvel, d->act);
        for (int i = 0; i < 4; i++) {
            memcpy(d->qacc_rk4 + (size_t)i * (size_t)nv, rec->a[i], vbytes);
            memcpy(d->act_dot_rk4 + (size_t)i * (size_t)m->na, rec->adot[i],
                   sizeof(double) * (size_t)m->na);
        }
        if (!gdn_all_finite(d->qvel, nv)) {
            d->warning[GDN_WARN_BADQACC]++;
            status = GDN_ERR_NONFINITE;
        } else if (!gdn_all_finite(d->qpos, nq)) {
            d->warning[GDN_WARN_BADQPOS]++;
            status = GDN_ERR_NONFINITE;
        } else if (!gdn_all_finite(d->act, m->na)) {
            d->warning[GDN_WARN_BADACT]++;
            status = GDN_ERR_NONFINITE;
        }
    }
    if (status == GDN_OK) {
        d->time = time + h;
    } else {
        memcpy(d->qpos, qpos_entry, qbytes);
        memcpy(d->qvel, rec->v[0], vbytes);
        memcpy(d->act, rec->act[0], abytes);
        d->time = time;
    }
    gdn_arena_reset(d, mark);
    return status;
}
