// SPDX-License-Identifier: Apache-2.0
// gdnData lifetime: one buffer for every array plus the scratch arena; reset and keyframes.
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "kinematics/tendon_derivative.h"
#include "model/validate.h"

// the data's arrays: X(field, count-expression); all double
#define GDN_DATA_ARRAYS(X)              \
    X(qpos, nq)                         \
    X(qvel, nv)                         \
    X(ctrl, nu)                         \
    X(act, na)                          \
    X(act_dot, na)                      \
    X(qfrc_applied, nv)                 \
    X(xfrc_applied, nbody * 6)          \
    X(mocap_pos, nmocap * 3)            \
    X(mocap_quat, nmocap * 4)           \
    X(qacc, nv)                         \
    X(qacc_smooth, nv)                  \
    X(xpos, nbody * 3)                  \
    X(xquat, nbody * 4)                 \
    X(xmat, nbody * 9)                  \
    X(xipos, nbody * 3)                 \
    X(ximat, nbody * 9)                 \
    X(xanchor, njnt * 3)                \
    X(xaxis, njnt * 3)                  \
    X(geom_xpos, ngeom * 3)             \
    X(geom_xmat, ngeom * 9)             \
    X(site_xpos, nsite * 3)             \
    X(site_xmat, nsite * 9)             \
    X(subtree_com, nbody * 3)           \
    X(ten_length, ntendon)              \
    X(ten_velocity, ntendon)            \
    X(ten_J, ntendon * nv)              \
    X(wrap_xpos, nwrap * 6)             \
    X(qM, nv * nv)                      \
    X(cdof, nv * 6)                     \
    X(cinert, nbody * 10)               \
    X(cvel, nbody * 6)                  \
    X(cdof_dot, nv * 6)                 \
    X(cacc, nbody * 6)                  \
    X(cfrc_int, nbody * 6)              \
    X(cfrc_ext, nbody * 6)              \
    X(sensordata, nsensordata)          \
    X(subtree_linvel, nbody * 3)        \
    X(subtree_angmom, nbody * 3)        \
    X(qfrc_bias, nv)                    \
    X(qfrc_passive, nv)                 \
    X(actuator_length, nu)              \
    X(actuator_velocity, nu)            \
    X(actuator_moment, nu * nv)         \
    X(actuator_force, nu)               \
    X(qfrc_actuator, nv)                \
    X(qfrc_smooth, nv)                  \
    X(vert_xpos, nvert * 3)             \
    X(vert_force, nvert * 3)            \
    X(qfrc_penalty, nv)                 \
    X(qfrc_inverse, nv)                 \
    X(efc_J, maxefc * nv)               \
    X(efc_pos, maxefc)                  \
    X(efc_margin, maxefc)               \
    X(efc_frictionloss, maxefc)         \
    X(efc_diagApprox, maxefc)           \
    X(efc_KBIP, maxefc * 4)             \
    X(efc_D, maxefc)                    \
    X(efc_R, maxefc)                    \
    X(efc_vel, maxefc)                  \
    X(efc_aref, maxefc)                 \
    X(efc_force, maxefc)                \
    X(qfrc_constraint, nv)              \
    X(qacc_warmstart, nv)               \
    X(qacc_rk4, nv * 4)                 \
    X(act_dot_rk4, na * 4)              \
    X(solver_H, nv * nv)

// contact capacity: the model's nconmax, else 10 per geom within [100, 10000]
static size_t contact_capacity(const gdnModel* m) {
    if (m->nconmax > 0) {
        return (size_t)m->nconmax;
    }
    size_t n = 10 * (size_t)m->ngeom;
    return n < 100 ? 100 : (n > 10000 ? 10000 : n);
}

// constraint-row capacity: the model's njmax, else 6 rows per contact plus 2 per dof and 3 per
// tendon (friction loss and two limits)
static size_t efc_capacity(const gdnModel* m) {
    if (m->njmax > 0) {
        return (size_t)m->njmax;
    }
    return 6 * contact_capacity(m) + 2 * (size_t)m->nv + 3 * (size_t)m->ntendon;
}

// arena size: generous per-body and per-dof scratch for every algorithm, plus 16 doubles per
// constraint row (the Newton solver takes 12 per row and two nv x nv factors) and nv per row
// (the PGS solver's rows of J L^-T) (doubles)
static size_t arena_doubles(const gdnModel* m) {
    size_t nb = (size_t)m->nbody, nv = (size_t)m->nv, nu = (size_t)m->nu;
    // the RK4 transition Jacobians' seven nv x (2 nv + nu) matrices (any model: the integrator
    // is an option the caller may change after creating the data)
    return 256 * nb + 16 * nv * nv + 64 * nv + (16 + nv) * efc_capacity(m) +
           7 * nv * (2 * nv + nu) + 4096;
}

static size_t aligned_bytes(size_t count) {
    return (count * sizeof(double) + 63u) & ~(size_t)63u;
}

gdnStatus gdn_data_create(const gdnModel* m, gdnData** out) {
    if (!m || !out) {
        return GDN_ERR_ARG;
    }
    *out = NULL;
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nu = (size_t)m->nu, na = (size_t)m->na;
    const size_t nbody = (size_t)m->nbody, njnt = (size_t)m->njnt, ngeom = (size_t)m->ngeom;
    const size_t nsite = (size_t)m->nsite, nvert = (size_t)m->nvert;
    const size_t ntendon = (size_t)m->ntendon, nwrap = (size_t)m->nwrap;
    const size_t nmocap = (size_t)m->nmocap;
    const size_t nsensordata = (size_t)m->nsensordata;
    const size_t maxcon = contact_capacity(m), maxefc = efc_capacity(m);
    size_t total = 0;
#define X(field, count) total += aligned_bytes(count);
    GDN_DATA_ARRAYS(X)
#undef X
    // contacts and the int rows after the double arrays
    size_t contact_bytes = (maxcon * sizeof(gdnContact) + 63u) & ~(size_t)63u;
    // efc_type, efc_id, efc_state, efc_rownnz, efc_rowadr (maxefc each), efc_colind (maxefc nv),
    // solver_H_first (nv), ten_wrapadr, ten_wrapnum (ntendon each), wrap_obj (2 nwrap)
    size_t int_bytes =
        (((5 + nv) * maxefc + nv + 2 * ntendon + 2 * nwrap) * sizeof(int) + 63u) & ~(size_t)63u;
    // the spatial tendons' linearization cache (kinematics/tendon_derivative.h)
    const size_t cache_bytes = gdn_tendon_cache_bytes(m);
    total += contact_bytes + int_bytes + cache_bytes;
    size_t narena = aligned_bytes(arena_doubles(m));
    gdnData* d = calloc(1, sizeof(gdnData));
    unsigned char* buf = calloc(1, total + narena + 64);
    if (!d || !buf) {
        free(d);
        free(buf);
        return GDN_ERR_MEMORY;
    }
    d->buffer_ = buf;
    unsigned char* p = (unsigned char*)(((uintptr_t)buf + 63u) & ~(uintptr_t)63u);
#define X(field, count)            \
    d->field = (double*)(void*)p;  \
    p += aligned_bytes(count);
    GDN_DATA_ARRAYS(X)
#undef X
    d->contact = (gdnContact*)(void*)p;
    p += contact_bytes;
    d->efc_type = (int*)(void*)p;
    d->efc_id = d->efc_type + maxefc;
    d->efc_state = d->efc_id + maxefc;
    d->efc_rownnz = d->efc_state + maxefc;
    d->efc_rowadr = d->efc_rownnz + maxefc;
    d->efc_colind = d->efc_rowadr + maxefc;
    d->solver_H_first = d->efc_colind + maxefc * nv;
    d->ten_wrapadr = d->solver_H_first + nv;
    d->ten_wrapnum = d->ten_wrapadr + ntendon;
    d->wrap_obj = d->ten_wrapnum + ntendon;
    p += int_bytes;
    d->tendon_cache_ = cache_bytes ? gdn_tendon_cache_init(m, p) : NULL;
    d->kinematics_epoch_ = 1;
    p += cache_bytes;
    d->maxcon = (int)maxcon;
    d->maxefc = (int)maxefc;
    d->nvert = m->nvert;
    d->model_signature_ = gdn_model_signature(m);
    d->arena = p;
    d->narena = narena;
    gdn_data_reset(m, d);
    *out = d;
    return GDN_OK;
}

void gdn_data_free(gdnData* d) {
    if (d) {
        free(d->buffer_);
        free(d);
    }
}

// a NULL argument or a data created for a model of other sizes: nothing happens
void gdn_data_reset(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        return;
    }
    d->time = 0;
    memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
    memset(d->qvel, 0, sizeof(double) * (size_t)m->nv);
    memset(d->qacc, 0, sizeof(double) * (size_t)m->nv);
    memset(d->ctrl, 0, sizeof(double) * (size_t)m->nu);
    memset(d->act, 0, sizeof(double) * (size_t)m->na);
    memset(d->act_dot, 0, sizeof(double) * (size_t)m->na);
    memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
    memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
    // mocap poses = the mocap bodies' own (MuJoCo's mj_resetData)
    for (int b = 0; b < m->nbody; b++) {
        const int id = m->body_mocapid[b];
        if (id >= 0) {
            memcpy(d->mocap_pos + 3 * id, m->body_pos + 3 * b, 3 * sizeof(double));
            memcpy(d->mocap_quat + 4 * id, m->body_quat + 4 * b, 4 * sizeof(double));
        }
    }
    memset(d->warning, 0, sizeof(d->warning));
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
    memset(d->qfrc_constraint, 0, sizeof(double) * (size_t)m->nv);
    memset(d->sensordata, 0, sizeof(double) * (size_t)m->nsensordata);
    d->ncon = d->ncon_overflow = d->nefc = 0;
    d->ne = d->nf = d->nefc_overflow = 0;
    d->solver_iter = d->solver_converged = 0;
    d->solver_residual = 0;
    d->solver_H_valid = 0;
    d->deriv_flags = 0;
    d->deriv_state_margin = INFINITY;
    d->deriv_activation_margin = INFINITY;
    d->sensor_refused = -1;
    d->energy[0] = d->energy[1] = 0;
    d->parena = 0;
}

gdnStatus gdn_data_reset_keyframe(const gdnModel* m, gdnData* d, int key) {
    if (gdn_check_model_data(m, d) != GDN_OK || key < 0 || key >= m->nkey) {
        return GDN_ERR_ARG;
    }
    gdn_data_reset(m, d);
    d->time = m->key_time[key];
    memcpy(d->qpos, m->key_qpos + (size_t)key * (size_t)m->nq, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, m->key_qvel + (size_t)key * (size_t)m->nv, sizeof(double) * (size_t)m->nv);
    memcpy(d->ctrl, m->key_ctrl + (size_t)key * (size_t)m->nu, sizeof(double) * (size_t)m->nu);
    memcpy(d->act, m->key_act + (size_t)key * (size_t)m->na, sizeof(double) * (size_t)m->na);
    const size_t nmocap = (size_t)m->nmocap;
    memcpy(d->mocap_pos, m->key_mpos + (size_t)key * 3 * nmocap, sizeof(double) * 3 * nmocap);
    memcpy(d->mocap_quat, m->key_mquat + (size_t)key * 4 * nmocap, sizeof(double) * 4 * nmocap);
    return GDN_OK;
}
