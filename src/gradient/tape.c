// SPDX-License-Identifier: Apache-2.0
// The rollout tape: one allocation holding the state record, buffers and workspaces.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "gradient/tape.h"

static void set_err(char* err, int err_size, const char* msg) {
    if (err && err_size > 0) {
        snprintf(err, (size_t)err_size, "%s", msg);
    }
}

gdnStatus gdn_tape_create(const gdnModel* m, int max_steps, int checkpoint_every,
                          gdnTape** tape, char* err, int err_size) {
    if (tape) {
        *tape = NULL;
    }
    if (!m || !tape) {
        set_err(err, err_size, "gdn_tape_create: NULL model or tape pointer");
        return GDN_ERR_ARG;
    }
    if (max_steps <= 0 || checkpoint_every < 0) {
        set_err(err, err_size, "gdn_tape_create: max_steps must be > 0, checkpoint_every >= 0");
        return GDN_ERR_ARG;
    }
    int every = checkpoint_every < 1 ? 1 : checkpoint_every;
    if (every > max_steps) {
        every = max_steps;
    }
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    const int stride = nq + nv;
    const int ncheck = (max_steps + every - 1) / every;

    // doubles: checkpoints, segment, final state, accelerations (checkpoints, segment), then
    // the buffers of gdnTape in order
    size_t nd = (size_t)ncheck * (size_t)stride + (size_t)(every - 1) * (size_t)stride +
                (size_t)stride + (size_t)ncheck * (size_t)nv + (size_t)(every - 1) * (size_t)nv +
                (size_t)nq + 4 * (size_t)nv + (size_t)(nq > nv ? nq : nv) + 2 * (size_t)nv +
                (size_t)nu;
    size_t bytes = sizeof(gdnTape) + sizeof(double) * (nd + 1);
    if (nd > ((size_t)-1) / (4 * sizeof(double))) {
        set_err(err, err_size, "gdn_tape_create: tape too large");
        return GDN_ERR_MEMORY;
    }
    unsigned char* buf = calloc(1, bytes);
    if (!buf) {
        set_err(err, err_size, "gdn_tape_create: out of memory");
        return GDN_ERR_MEMORY;
    }
    gdnTape* tp = (gdnTape*)(void*)buf;
    tp->buffer = buf;
    tp->nq = nq;
    tp->nv = nv;
    tp->nu = nu;
    tp->nbody = m->nbody;
    tp->nvert = m->nvert;
    tp->max_steps = max_steps;
    tp->every = every;
    tp->ncheck = ncheck;
    tp->stride = stride;
    tp->nstep = 0;

    // carve the doubles (the struct size is a multiple of 8 bytes: pointers and ints)
    double* p = (double*)(void*)(buf + ((sizeof(gdnTape) + 7) / 8) * 8);
    tp->checkpoint = p;
    p += (size_t)ncheck * (size_t)stride;
    tp->segment = every > 1 ? p : NULL;
    p += (size_t)(every - 1) * (size_t)stride;
    tp->final = p;
    p += stride;
    tp->acc_check = p;
    p += (size_t)ncheck * (size_t)nv;
    tp->acc_segment = every > 1 ? p : NULL;
    p += (size_t)(every - 1) * (size_t)nv;
    tp->qpos0 = p;
    p += nq;
    tp->lam_q = p;
    p += nv;
    tp->lam_v = p;
    p += nv;
    tp->g_q = p;
    p += nv;
    tp->g_v = p;
    p += nv;
    tp->cost_q = p;
    p += nq > nv ? nq : nv;
    tp->cost_qt = p;
    p += nv;
    tp->cost_v = p;
    p += nv;
    tp->cost_u = p;

    if (gdn_data_create(m, &tp->d) != GDN_OK || gdn_data_create(m, &tp->scratch) != GDN_OK) {
        gdn_tape_free(tp);
        set_err(err, err_size, "gdn_tape_create: could not create the rollout data");
        return GDN_ERR_MEMORY;
    }
    *tape = tp;
    return GDN_OK;
}

void gdn_tape_free(gdnTape* tape) {
    if (!tape) {
        return;
    }
    gdn_data_free(tape->d);
    gdn_data_free(tape->scratch);
    free(tape->buffer);
}

// per recorded step: the state (nq + nv doubles) and the acceleration it integrates (nv)
size_t gdn_tape_bytes_per_step(const gdnTape* tape) {
    return tape ? sizeof(double) * (size_t)(tape->stride + tape->nv) : 0;
}

// checkpoints and segment buffer (state and acceleration each) + final state
size_t gdn_tape_state_bytes(const gdnTape* tape) {
    if (!tape) {
        return 0;
    }
    size_t steps = (size_t)tape->ncheck + (size_t)(tape->every - 1);
    return steps * gdn_tape_bytes_per_step(tape) + sizeof(double) * (size_t)tape->stride;
}

double* gdn_tape_slot(const gdnTape* tape, int t) {
    if (t == tape->nstep) {
        return tape->final;
    }
    if (t < 0 || t > tape->nstep || t % tape->every != 0) {
        return NULL;
    }
    return tape->checkpoint + (size_t)(t / tape->every) * (size_t)tape->stride;
}

const double* gdn_tape_acc(const gdnTape* tape, int t) {
    if (t < 0 || t >= tape->nstep) {
        return NULL;
    }
    const int K = tape->every, t0 = t - t % K;
    const int t1 = t0 + K < tape->nstep ? t0 + K : tape->nstep;
    if (t == t1 - 1) {
        return tape->acc_check + (size_t)(t / K) * (size_t)tape->nv;
    }
    return tape->acc_segment + (size_t)(t - t0) * (size_t)tape->nv;
}

gdnStatus gdn_tape_state(const gdnTape* tape, int t, double* qpos, double* qvel) {
    if (!tape || tape->nstep <= 0) {
        return GDN_ERR_ARG;
    }
    const double* x = gdn_tape_slot(tape, t);
    if (!x) {
        return GDN_ERR_ARG;
    }
    if (qpos) {
        memcpy(qpos, x, sizeof(double) * (size_t)tape->nq);
    }
    if (qvel) {
        memcpy(qvel, x + tape->nq, sizeof(double) * (size_t)tape->nv);
    }
    return GDN_OK;
}
