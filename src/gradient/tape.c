// SPDX-License-Identifier: Apache-2.0
// The rollout tape: one allocation holding the state record, the step records and the buffers.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "base/status.h"
#include "constraint/setconst_derivative.h"
#include "gradient/tape.h"

// the next n doubles at the cursor *p, advancing it
static double* take(double** p, size_t n) {
    double* at = *p;
    *p += n;
    return at;
}

static size_t round8(size_t n) {
    return (n + 7u) & ~(size_t)7u;
}

// a * b + c into *out; 0 when it overflows size_t
static int mul_add(size_t a, size_t b, size_t c, size_t* out) {
    if (b != 0 && a > (SIZE_MAX - c) / b) {
        return 0;
    }
    *out = a * b + c;
    return 1;
}

// bytes of a solve block (tape.h's layout) with ncon contacts, nefc rows and a factor of
// nfactor doubles (nfactor > 0 adds factor_first, nv ints); the counts are bounded by the data's
// capacities, so nothing overflows
static size_t block_bytes(int nv, int ncon, int nefc, size_t nfactor) {
    if (ncon == 0 && nefc == 0) {
        return 0;
    }
    size_t doubles = (size_t)nv + (size_t)nefc + nfactor;
    size_t ints = 3 * (size_t)nefc + (nfactor > 0 ? (size_t)nv : 0);
    return round8(sizeof(double) * doubles + (size_t)ncon * sizeof(gdnContact) +
                  sizeof(int) * ints);
}

// The block layout of the stored intermediates (tape.h) for the data d: qpos, then the runs of
// d's arrays; an array that starts right after the previous one's end (within the 64-byte
// alignment gdn_data_create pads to) extends its run, so one memcpy moves several arrays (and
// the padding between them). Returns the doubles of one block
static size_t plan_inter(const gdnModel* m, const gdnData* d, int vert, gdnTapeInter* plan) {
    const size_t nb = (size_t)m->nbody, nj = (size_t)m->njnt, nv = (size_t)m->nv;
    const struct {
        double* a;
        size_t n;
    } arrays[] = {{d->xpos, 3 * nb},        {d->xquat, 4 * nb},  {d->xmat, 9 * nb},
                  {d->xipos, 3 * nb},       {d->ximat, 9 * nb},  {d->xanchor, 3 * nj},
                  {d->xaxis, 3 * nj},       {d->subtree_com, 3 * nb}, {d->cdof, 6 * nv},
                  {d->cinert, 10 * nb},     {d->vert_xpos, 3 * (size_t)m->nvert},
                  {d->vert_force, 3 * (size_t)m->nvert}};
    const int nkin = 10, narrays = vert ? 12 : 10;
    memset(plan, 0, sizeof(*plan));
    size_t off = (size_t)m->nq;
    for (int i = 0; i < narrays; i++) {
        gdnTapeRun* last = plan->nrun > 0 ? &plan->run[plan->nrun - 1] : NULL;
        const double* end = last ? last->d + last->n : NULL;
        if (i == nkin) {
            // the factor's U and dinv between the kinematics and the vertex outputs
            plan->nrun_kin = plan->nrun;
            plan->off_U = off;
            off += 7 * nv;
            last = NULL;
        }
        if (last && arrays[i].a >= end && arrays[i].a - end < 8) {
            off += (size_t)(arrays[i].a + arrays[i].n - end);
            last->n = (size_t)(arrays[i].a + arrays[i].n - last->d);
        } else {
            plan->run[plan->nrun++] = (gdnTapeRun){arrays[i].a, arrays[i].n, off};
            off += arrays[i].n;
        }
        if (i == 8) {
            // cdof: the factor's axes
            const gdnTapeRun* r = &plan->run[plan->nrun - 1];
            plan->off_axes = r->off + (size_t)(d->cdof - r->d);
        }
    }
    if (!vert) {
        plan->nrun_kin = plan->nrun;
        plan->off_U = off;
        off += 7 * nv;
    } else {
        plan->off_nactive = off++;
    }
    return off;
}

size_t gdn_tape_solve_bytes(const gdnModel* m, int ncon, int nefc, int with_factor) {
    if (!m || ncon < 0 || nefc < 0) {
        return 0;
    }
    const size_t nv = (size_t)m->nv;
    return block_bytes(m->nv, ncon, nefc, with_factor ? nv * (nv + 1) / 2 : 0);
}

void gdn_tape_options_init(const gdnModel* m, int max_steps, int checkpoint_every,
                           gdnTapeOptions* opt) {
    if (!opt) {
        return;
    }
    memset(opt, 0, sizeof(*opt));
    opt->max_steps = max_steps;
    opt->checkpoint_every = checkpoint_every;
    opt->store_intermediates = 1;
    if (m && !(m->opt.disableflags & GDN_DSBL_CONSTRAINT)) {
        // about 4 contacts per body, 4 rows each, and 2 rows per dof (none for a model whose
        // constraints are disabled when the tape is made: its steps record no solve)
        const int ncon = 4 * m->nbody;
        opt->solve_bytes_per_step = gdn_tape_solve_bytes(m, ncon, 4 * ncon + 2 * m->nv, 0);
    }
}

gdnStatus gdn_tape_create(const gdnModel* m, int max_steps, int checkpoint_every,
                          gdnTape** tape, char* err, int err_size) {
    gdnTapeOptions opt;
    gdn_tape_options_init(m, max_steps, checkpoint_every, &opt);
    return gdn_tape_create_opt(m, &opt, tape, err, err_size);
}

gdnStatus gdn_tape_create_opt(const gdnModel* m, const gdnTapeOptions* opt, gdnTape** tape,
                              char* err, int err_size) {
    if (tape) {
        *tape = NULL;
    }
    if (!m || !opt || !tape) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "gdn_tape_create: NULL model, options or tape pointer");
    }
    if (opt->max_steps <= 0 || opt->checkpoint_every < 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "gdn_tape_create: max_steps must be > 0, checkpoint_every >= 0");
    }
    int every = opt->checkpoint_every < 1 ? 1 : opt->checkpoint_every;
    if (every > opt->max_steps) {
        every = opt->max_steps;
    }
    const int max_steps = opt->max_steps;
    const int nq = m->nq, nv = m->nv, nu = m->nu;
    const int na = m->na, stride = nq + nv + na;
    const int ncheck = (max_steps + every - 1) / every;
    const int nslot = ncheck + every - 1;

    // the rollout's data first: its capacities bound the solve reserve per slot
    gdnData* d = NULL;
    gdnData* scratch = NULL;
    if (gdn_data_create(m, &d) != GDN_OK || gdn_data_create(m, &scratch) != GDN_OK) {
        gdn_data_free(d);
        gdn_data_free(scratch);
        return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                        "gdn_tape_create: could not create the rollout data");
    }
    const int factor = opt->record_factor != 0;
    const size_t nvz = (size_t)nv;
    size_t per_slot = opt->solve_bytes_per_step;
    if (factor && per_slot > 0) {
        // the largest envelope, its first columns and the rounding
        size_t extra = sizeof(double) * nvz * (nvz + 1) / 2 + sizeof(int) * nvz + 8;
        per_slot = per_slot > SIZE_MAX - extra ? SIZE_MAX : per_slot + extra;
    }
    const size_t cap = gdn_tape_solve_bytes(m, d->maxcon, d->maxefc, factor);
    if (per_slot > cap) {
        per_slot = cap;
    }

    // doubles: checkpoints, warm starts, segment, final state, then the buffers of gdnTape,
    // then the stored intermediates of every slot
    const int store = opt->store_intermediates != 0;
    // the vertex outputs whenever the model has vertices (the contact may be switched on later)
    const int vert = m->nvert > 0;
    gdnTapeInter plan;
    const size_t inter_stride = store ? plan_inter(m, d, vert, &plan) : 0;
    size_t nd = (size_t)ncheck * (size_t)stride + (every > 1 ? (size_t)ncheck * nvz : 0) +
                (size_t)(every - 1) * (size_t)stride + 2 * (size_t)stride + (size_t)nq + 4 * nvz +
                (size_t)(nq > nv ? nq : nv) + 2 * nvz + (size_t)nu +
                gdn_weights_size(m) + 6 * (size_t)na + (size_t)nu;
    const size_t head = round8(sizeof(gdnTape)) + round8(sizeof(gdnTapeEntry) * (size_t)nslot);
    size_t reserve = 0, pool = 0, bytes = 0;
    // an RK4 model's stage accelerations and activation rates per record slot (4 (nv + na):
    // the reverse pass then needs no replay of the step to find its stages)
    const size_t rk4_stride = m->opt.integrator == GDN_INT_RK4 ? gdn_tape_rk4_stride(m) : 0;
    const int fits = mul_add((size_t)nslot, inter_stride + rk4_stride, nd, &nd) &&
                     mul_add((size_t)nslot, per_slot, 0, &reserve) &&
                     mul_add((size_t)nslot, sizeof(double) * nvz, reserve, &pool) &&
                     pool < SIZE_MAX / 2 &&
                     nd < SIZE_MAX / (4 * sizeof(double)) &&
                     mul_add(nd, sizeof(double), head + 64 + pool, &bytes);
    unsigned char* buf = fits ? calloc(1, bytes) : NULL;
    if (!buf) {
        gdn_data_free(d);
        gdn_data_free(scratch);
        return gdn_fail(GDN_ERR_MEMORY, err, err_size, "gdn_tape_create: %s",
                        fits ? "out of memory" : "tape too large");
    }
    gdnTape* tp = (gdnTape*)(void*)buf;
    tp->buffer = buf;
    tp->d = d;
    tp->scratch = scratch;
    tp->nq = nq;
    tp->nv = nv;
    tp->nu = nu;
    tp->na = na;
    tp->nbody = m->nbody;
    tp->nvert = m->nvert;
    tp->njnt = m->njnt;
    tp->store_inter = store;
    tp->store_vert = store && vert;
    tp->inter_stride = inter_stride;
    if (store) {
        tp->plan = plan;
    }
    tp->max_steps = max_steps;
    tp->every = every;
    tp->ncheck = ncheck;
    tp->stride = stride;
    tp->nstep = 0;
    tp->record_factor = factor;
    tp->nslot = nslot;
    tp->seg_t0 = -1;
    tp->entry = (gdnTapeEntry*)(void*)(buf + round8(sizeof(gdnTape)));
    for (int i = 0; i < nslot; i++) {
        tp->entry[i].t = -1;
    }

    // carve the doubles, then the pool (64-byte aligned)
    double* p = (double*)(void*)(buf + head);
    tp->checkpoint = take(&p, (size_t)ncheck * (size_t)stride);
    tp->warm = every > 1 ? take(&p, (size_t)ncheck * nvz) : NULL;
    tp->segment = every > 1 ? take(&p, (size_t)(every - 1) * (size_t)stride) : NULL;
    tp->final = take(&p, (size_t)stride);
    tp->replay_next = take(&p, (size_t)stride);
    tp->qpos0 = take(&p, (size_t)nq);
    tp->lam_q = take(&p, nvz);
    tp->lam_v = take(&p, nvz);
    tp->g_q = take(&p, nvz);
    tp->g_v = take(&p, nvz);
    tp->lam_a = take(&p, (size_t)na);
    tp->g_a = take(&p, (size_t)na);
    tp->act_work = take(&p, (size_t)nu + 3 * (size_t)na);
    tp->cost_q = take(&p, (size_t)(nq > nv ? nq : nv));
    tp->cost_qt = take(&p, nvz);
    tp->cost_v = take(&p, nvz);
    tp->cost_u = take(&p, (size_t)nu);
    tp->cost_a = take(&p, (size_t)na);
    tp->gweights = take(&p, gdn_weights_size(m));
    tp->inter = store ? take(&p, (size_t)nslot * inter_stride) : NULL;
    tp->rk4_acc = rk4_stride ? take(&p, (size_t)nslot * rk4_stride) : NULL;
    tp->pool = (unsigned char*)(((uintptr_t)p + 63u) & ~(uintptr_t)63u);
    tp->pool_bytes = pool;
    tp->solve_reserve = reserve;
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

// per step of a full tape: the state (nq + nv + na doubles) and the acceleration it integrates
// (nv)
size_t gdn_tape_bytes_per_step(const gdnTape* tape) {
    return tape ? sizeof(double) * (size_t)(tape->stride + tape->nv) : 0;
}

// the states (checkpoints, warm starts, segment buffer, final) and the step pool without its
// solve reserve
static size_t fixed_bytes(const gdnTape* tape) {
    size_t states = (size_t)tape->ncheck + (size_t)(tape->every - 1) + 1;
    size_t warm = tape->every > 1 ? (size_t)tape->ncheck * (size_t)tape->nv : 0;
    return sizeof(double) * (states * (size_t)tape->stride + warm) +
           (tape->pool_bytes - tape->solve_reserve);
}

size_t gdn_tape_state_bytes(const gdnTape* tape) {
    return tape ? fixed_bytes(tape) + tape->solve_reserve : 0;
}

size_t gdn_tape_bytes_used(const gdnTape* tape) {
    return tape ? fixed_bytes(tape) + tape->solve_used : 0;
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

int gdn_tape_slot_of(const gdnTape* tape, int t) {
    if (t < 0 || t >= tape->nstep) {
        return -1;
    }
    const int K = tape->every, t0 = t - t % K;
    const int t1 = t0 + K < tape->nstep ? t0 + K : tape->nstep;
    int slot = -1;
    if (t == t1 - 1) {
        slot = t / K;
    } else if (tape->seg_t0 == t0) {
        slot = tape->ncheck + (t - t0);
    }
    return slot >= 0 && tape->entry[slot].t == t ? slot : -1;
}

const double* gdn_tape_acc(const gdnTape* tape, int t) {
    // the full tape: slot t, written by the forward pass for every t < T
    if (tape->every == 1) {
        return t >= 0 && t < tape->nstep
                   ? (const double*)(const void*)(tape->pool + tape->entry[t].offset)
                   : NULL;
    }
    const int slot = gdn_tape_slot_of(tape, t);
    return slot < 0 ? NULL : (const double*)(const void*)(tape->pool + tape->entry[slot].offset);
}

size_t gdn_tape_intermediate_bytes(const gdnTape* tape) {
    return tape ? sizeof(double) * tape->inter_stride : 0;
}

// the block of slot's stored intermediates
static double* inter_block(const gdnTape* tape, int slot) {
    return tape->inter + (size_t)slot * tape->inter_stride;
}

void gdn_tape_inter_factor(const gdnTape* tape, int slot, gdnAbaFactor* f) {
    double* p = inter_block(tape, slot);
    f->axes = p + tape->plan.off_axes;
    f->U = p + tape->plan.off_U;
    f->dinv = f->U + 6 * (size_t)tape->nv;
    f->implicit_LU = NULL;
}

double* gdn_tape_inter_qpos(const gdnTape* tape, int slot) {
    return inter_block(tape, slot);
}

// n doubles from src to dst in pieces of at most 5 kB: glibc's memcpy of larger blocks (its
// `rep movsb` path) is no faster here and counts ~1 instruction per byte under callgrind, the
// bench's measure (measured: the 8.5 kB vertex run of humanoid.xml cost 7k Ir a copy)
static void copy_doubles(double* dst, const double* src, size_t n) {
    while (n > 640) {
        memcpy(dst, src, 640 * sizeof(double));
        dst += 640;
        src += 640;
        n -= 640;
    }
    memcpy(dst, src, n * sizeof(double));
}

void gdn_tape_inter_save(gdnTape* tape, int slot, int vert) {
    const gdnTapeInter* plan = &tape->plan;
    double* p = inter_block(tape, slot);
    vert = vert && tape->store_vert;
    const int nrun = vert ? plan->nrun : plan->nrun_kin;
    for (int i = 0; i < nrun; i++) {
        copy_doubles(p + plan->run[i].off, plan->run[i].d, plan->run[i].n);
    }
    if (vert) {
        p[plan->off_nactive] = tape->d->nvert_active;
    }
    tape->entry[slot].inter = vert ? 3 : 1;
}

void gdn_tape_inter_restore(const gdnTape* tape, int slot) {
    const gdnTapeInter* plan = &tape->plan;
    const double* p = inter_block(tape, slot);
    const int vert = (tape->entry[slot].inter & 2) != 0;
    memcpy(tape->d->qpos, p, sizeof(double) * (size_t)tape->nq);
    tape->d->kinematics_epoch_++; // new body frames (kinematics/tendon_derivative.h's cache)
    const int nrun = vert ? plan->nrun : plan->nrun_kin;
    for (int i = 0; i < nrun; i++) {
        copy_doubles(plan->run[i].d, p + plan->run[i].off, plan->run[i].n);
    }
    if (vert) {
        tape->d->nvert_active = (int)p[plan->off_nactive];
    }
}

void gdn_tape_clear_records(gdnTape* tape) {
    tape->pool_used = 0;
    tape->pool_forward = 0;
    tape->solve_used = 0;
    tape->solve_forward = 0;
    tape->seg_t0 = -1;
}

void gdn_tape_clear_segment(gdnTape* tape) {
    tape->pool_used = tape->pool_forward;
    tape->solve_used = tape->solve_forward;
    tape->seg_t0 = -1;
}

// copy n elements of `size` bytes from src to the pool cursor *p and advance it
static void put(unsigned char** p, const void* src, size_t n, size_t size) {
    if (n > 0) {
        memcpy(*p, src, n * size);
        *p += n * size;
    }
}

gdnStatus gdn_tape_record_solve(gdnTape* tape, int slot, int t, const gdnData* d, char* err,
                                int err_size) {
    const int nv = tape->nv, ncon = d->ncon, nefc = d->nefc;
    // the factor's envelope: row i from column solver_H_first[i] to the diagonal
    const int factor = tape->record_factor && nefc > 0 && d->solver_H_valid;
    size_t nfactor = 0;
    for (int i = 0; factor && i < nv; i++) {
        nfactor += (size_t)(i - d->solver_H_first[i] + 1);
    }
    const size_t block = block_bytes(nv, ncon, nefc, nfactor);
    if (block > tape->solve_reserve - tape->solve_used ||
        sizeof(double) * (size_t)nv + block > tape->pool_bytes - tape->pool_used) {
        return gdn_fail(GDN_ERR_MEMORY, err, err_size,
                        "step %d: the tape's solve reserve is full: the step's solve (%d "
                        "contacts, %d rows%s) needs %zu bytes, %zu of %zu reserved bytes are free "
                        "(raise gdnTapeOptions.solve_bytes_per_step)",
                        t, ncon, nefc, factor ? ", the factor" : "", block,
                        tape->solve_reserve - tape->solve_used, tape->solve_reserve);
    }
    gdnTapeEntry* e = &tape->entry[slot];
    unsigned char* p = tape->pool + tape->pool_used;
    e->offset = tape->pool_used;
    e->t = t;
    e->ncon = ncon;
    e->nefc = nefc;
    e->ne = d->ne;
    e->nf = d->nf;
    e->solver_iter = d->solver_iter;
    e->solver_converged = d->solver_converged;
    e->solver_residual = d->solver_residual;
    e->deriv_flags = 0;
    e->deriv_state_margin = e->deriv_activation_margin = INFINITY;
    e->nfactor = (int)nfactor;
    e->inter = 0;
    put(&p, d->qacc, (size_t)nv, sizeof(double));
    if (block > 0) {
        // doubles first, then the ints (tape.h's order)
        put(&p, d->qacc_warmstart, (size_t)nv, sizeof(double));
        put(&p, d->contact, (size_t)ncon, sizeof(gdnContact));
        put(&p, d->efc_force, (size_t)nefc, sizeof(double));
        for (int i = 0; factor && i < nv; i++) {
            const int first = d->solver_H_first[i];
            put(&p, d->solver_H + (size_t)i * (size_t)nv + first, (size_t)(i - first + 1),
                sizeof(double));
        }
        put(&p, d->efc_type, (size_t)nefc, sizeof(int));
        put(&p, d->efc_id, (size_t)nefc, sizeof(int));
        put(&p, d->efc_state, (size_t)nefc, sizeof(int));
        if (factor) {
            put(&p, d->solver_H_first, (size_t)nv, sizeof(int));
        }
    }
    e->bytes = sizeof(double) * (size_t)nv + block;
    tape->pool_used += e->bytes;
    tape->solve_used += block;
    return GDN_OK;
}

gdnStatus gdn_tape_step(const gdnTape* tape, int t, gdnTapeStep* rec) {
    if (!tape || !rec) {
        return GDN_ERR_ARG;
    }
    memset(rec, 0, sizeof(*rec));
    const int slot = gdn_tape_slot_of(tape, t);
    if (slot < 0) {
        return GDN_ERR_ARG;
    }
    const gdnTapeEntry* e = &tape->entry[slot];
    const int nv = tape->nv, nefc = e->nefc;
    const unsigned char* p = tape->pool + e->offset;
    rec->t = t;
    rec->bytes = e->bytes;
    rec->qacc = (const double*)(const void*)p;
    rec->solver_iter = e->solver_iter;
    rec->solver_converged = e->solver_converged;
    rec->solver_residual = e->solver_residual;
    rec->deriv_flags = e->deriv_flags;
    rec->deriv_state_margin = e->deriv_state_margin;
    rec->deriv_activation_margin = e->deriv_activation_margin;
    rec->ncon = e->ncon;
    rec->nefc = nefc;
    rec->ne = e->ne;
    rec->nf = e->nf;
    if (e->bytes == sizeof(double) * (size_t)nv) {
        return GDN_OK;
    }
    // the solve block, in tape.h's order
    p += sizeof(double) * (size_t)nv;
    rec->qacc_warmstart = (const double*)(const void*)p;
    p += sizeof(double) * (size_t)nv;
    rec->contact = e->ncon > 0 ? (const gdnContact*)(const void*)p : NULL;
    p += sizeof(gdnContact) * (size_t)e->ncon;
    rec->efc_force = nefc > 0 ? (const double*)(const void*)p : NULL;
    p += sizeof(double) * (size_t)nefc;
    if (e->nfactor > 0) {
        rec->factor = (const double*)(const void*)p;
        p += sizeof(double) * (size_t)e->nfactor;
    }
    if (nefc > 0) {
        rec->efc_type = (const int*)(const void*)p;
        rec->efc_id = rec->efc_type + nefc;
        rec->efc_state = rec->efc_id + nefc;
        p += sizeof(int) * 3 * (size_t)nefc;
    }
    if (e->nfactor > 0) {
        rec->factor_valid = 1;
        rec->factor_first = (const int*)(const void*)p;
    }
    return GDN_OK;
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

gdnStatus gdn_tape_state_act(const gdnTape* tape, int t, double* act) {
    if (!tape || tape->nstep <= 0 || !act) {
        return GDN_ERR_ARG;
    }
    const double* x = gdn_tape_slot(tape, t);
    if (!x) {
        return GDN_ERR_ARG;
    }
    memcpy(act, x + tape->nq + tape->nv, sizeof(double) * (size_t)tape->na);
    return GDN_OK;
}
