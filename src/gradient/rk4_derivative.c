// SPDX-License-Identifier: Apache-2.0
// Exact tangent and adjoint of one RK4 step: the chain of its four stage derivatives.
#include "gradient/rk4_derivative.h"

#include <string.h>

#include "base/arena.h"
#include "constraint/setconst_derivative.h"
#include "dynamics/activation.h"
#include "gradient/activation_derivative.h"
#include "gradient/step_derivative.h"
#include "model/configuration_derivative.h"
#include "sim/integrator.h"

// The step (sim/rk4.c), a(q, v) the front half's acceleration (u, pi, V held), c_i = A(i-1):
//   x_0 = (q_0, v_0),  a_0 = a(q_0, v_0)
//   dX_i = c_i v_{i-1},  q_i = q_0 (+) h dX_i,  v_i = v_0 + h c_i a_{i-1},  a_i = a(q_i, v_i)
//   vbar = sum_j B_j v_j,  abar = sum_j B_j a_j,  q' = q_0 (+) h vbar,  v' = v_0 + h abar
// Tangent (gdn_accel_jvp at each stage, configuration_derivative.h for (+)):
//   dq_i = Phi_q(dX_i) dq_0 + h Phi_v(dX_i) c_i dv_{i-1},  dv_i = dv_0 + h c_i da_{i-1}
//   dq' = Phi_q(vbar) dq_0 + h Phi_v(vbar) sum_j B_j dv_j,  dv' = dv_0 + h sum_j B_j da_j
// Adjoint: the exact transpose, stages in reverse; each stage's front half is replayed from
// its recorded state and warm start, so it linearizes at the primal's very solve.
// With activations the stages carry act too (f = act_dot, its partials fa, fc at the stage):
//   act_i = act_0 + h c_i f_{i-1},  a_i = a(q_i, v_i; du_i = (dctrl | dact_i)),
//   dact_i = dact_0 + h c_i df_{i-1},  df_i = fa_i dact_i + fc_i dctrl,
//   act' = clamp(act_0 + h sum_j B_j f_j): dact' = keep (dact_0 + h sum_j B_j df_j)

// the entry state a derivative restores (it runs the front halves at the stage states)
typedef struct {
    double* qpos;
    double* qvel;
    double* warm;
    double* act;
    double time;
} entryState;

static gdnStatus entry_save(const gdnModel* m, gdnData* d, entryState* e) {
    e->qpos = gdn_arena_doubles(d, (size_t)m->nq + 2 * (size_t)m->nv + (size_t)m->na + 1);
    if (!e->qpos) {
        return GDN_ERR_MEMORY;
    }
    e->qvel = e->qpos + m->nq;
    e->warm = e->qvel + m->nv;
    e->act = e->warm + m->nv;
    e->time = d->time;
    memcpy(e->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(e->qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(e->warm, d->qacc_warmstart, sizeof(double) * (size_t)m->nv);
    memcpy(e->act, d->act, sizeof(double) * (size_t)m->na);
    return GDN_OK;
}

// qpos (normalized by the first front half when q0 is given), qvel, warm start, act and time
static void entry_restore(const gdnModel* m, gdnData* d, const entryState* e, const double* q0) {
    memcpy(d->qpos, q0 ? q0 : e->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, e->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(d->qacc_warmstart, e->warm, sizeof(double) * (size_t)m->nv);
    memcpy(d->act, e->act, sizeof(double) * (size_t)m->na);
    d->time = e->time;
}

// the activation scratch of a derivative: the force laws' input tangent or cotangent du (nu),
// per stage dact_i and df_i (4 na each), the stage partials fa, fc (na each), act_0's own
// (na); NULL without activations
typedef struct {
    double *du, *tA, *tD, *fa, *fc, *base;
} actWork;

static gdnStatus act_work_alloc(const gdnModel* m, gdnData* d, actWork* w) {
    memset(w, 0, sizeof(*w));
    if (m->na == 0) {
        return GDN_OK;
    }
    const size_t na = (size_t)m->na;
    w->du = gdn_arena_doubles(d, (size_t)m->nu + 11 * na);
    if (!w->du) {
        return GDN_ERR_MEMORY;
    }
    w->tA = w->du + m->nu;
    w->tD = w->tA + 4 * na;
    w->fa = w->tD + 4 * na;
    w->fc = w->fa + na;
    w->base = w->fc + na;
    memset(w->tA, 0, sizeof(double) * 11 * na);
    return GDN_OK;
}

// the scratch every RK4 derivative starts from: the entry state, a stage record and (w
// non-NULL) the activation work
static gdnStatus rk4_begin(const gdnModel* m, gdnData* d, entryState* e, gdnRk4Record* rec,
                           actWork* w) {
    gdnStatus status = entry_save(m, d, e);
    if (status == GDN_OK) {
        status = gdn_rk4_record_alloc(m, d, rec);
    }
    if (status == GDN_OK && w) {
        status = act_work_alloc(m, d, w);
    }
    return status;
}

// stage i's state and warm start into d (time as the primal's stage); stage 0 from the entry
// qpos, which its front half normalizes as the primal's did (rec->q[0] is normalized already,
// and normalizing twice need not give the same bits)
static void stage_load(const gdnModel* m, gdnData* d, const gdnRk4Record* rec,
                       const entryState* e, int i) {
    const double time = e->time;
    memcpy(d->qpos, i == 0 ? e->qpos : rec->q[i], sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, rec->v[i], sizeof(double) * (size_t)m->nv);
    memcpy(d->qacc_warmstart, rec->warm[i], sizeof(double) * (size_t)m->nv);
    memcpy(d->act, i == 0 ? e->act : rec->act[i], sizeof(double) * (size_t)m->na);
    d->time = i == 0 ? time : time + gdn_rk4_A[i - 1] * m->opt.timestep;
}

// the inverse weights' tangent under dparam (as gdn_step_jvp: before any front half, d free)
static gdnStatus weights_tangent(const gdnModel* m, gdnData* d, const double* dparam,
                                 double** dweights) {
    *dweights = NULL;
    if (!dparam || ((m->opt.disableflags & GDN_DSBL_CONSTRAINT) && !gdn_any_acc0_scaled(m))) {
        return GDN_OK;
    }
    *dweights = gdn_arena_doubles(d, gdn_weights_size(m) + 1);
    return *dweights ? gdn_constraint_weights_jvp(m, d, dparam, *dweights,
                                                  *dweights + 2 * m->nbody)
                     : GDN_ERR_MEMORY;
}

// stage i's activation tangents after its front half (d at act_i, rec->adot[i] recorded):
// df_i = fa_i dact_i + fc_i dctrl
static void stage_act_jvp(const gdnModel* m, const gdnData* d, actWork* w, const double* dctrl,
                          int i) {
    const int na = m->na, first = m->nu - na;
    gdn_act_dot_partials(m, d, NULL, w->fa, w->fc);
    for (int j = 0; j < na; j++) {
        w->tD[(size_t)i * na + j] =
            w->fa[j] * w->tA[(size_t)i * na + j] + w->fc[j] * (dctrl ? dctrl[first + j] : 0);
    }
}

gdnStatus gdn_rk4_step_jvp(const gdnModel* m, gdnData* d, const double* dq0, const double* dv0,
                           const double* dact0, const double* dctrl, const double* dparam,
                           const double* dvert, const gdnContactParamGradients* dcp,
                           double* dq_next, double* dv_next, double* dact_next,
                           const char** what) {
    const int nv = m->nv, na = m->na;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    entryState e;
    gdnRk4Record rec;
    double* dweights = NULL;
    actWork w;
    gdnStatus status = weights_tangent(m, d, dparam, &dweights);
    if (status == GDN_OK) {
        status = rk4_begin(m, d, &e, &rec, &w);
    }
    // the force laws' input tangent: the controls' without activations, else (dctrl | dact_i)
    const double* du = na ? w.du : dctrl;
    // dq_i, dv_i (4 x nv each), da_i (4 x nv), ddX (nv)
    const size_t nvs = (size_t)(nv > 0 ? nv : 1);
    double* tq = status == GDN_OK ? gdn_arena_doubles(d, 13 * nvs) : NULL;
    if (status == GDN_OK && !tq) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    double* tv = tq + 4 * nvs;
    double* ta = tv + 4 * nvs;
    double* ddx = ta + 4 * nvs;
    for (int k = 0; k < nv; k++) {
        tq[k] = dq0 ? dq0[k] : 0;
        tv[k] = dv0 ? dv0[k] : 0;
    }
    // stage 0 at x_0
    memcpy(rec.v[0], d->qvel, sizeof(double) * (size_t)nv);
    memcpy(rec.warm[0], d->qacc_warmstart, sizeof(double) * (size_t)nv);
    memcpy(rec.act[0], d->act, sizeof(double) * (size_t)na);
    for (int j = 0; j < na; j++) {
        w.tA[j] = dact0 ? dact0[j] : 0;
    }
    if (na) {
        gdn_actuator_input_tangent(m, dctrl, w.tA, w.du);
    }
    status = gdn_accel_jvp(m, d, tq, tv, du, dparam, dweights, dvert, dcp, ta, what);
    if (status == GDN_OK) {
        memcpy(rec.q[0], d->qpos, sizeof(double) * (size_t)m->nq);
        memcpy(rec.a[0], d->qacc, sizeof(double) * (size_t)nv);
        memcpy(rec.adot[0], d->act_dot, sizeof(double) * (size_t)na);
        if (na) {
            stage_act_jvp(m, d, &w, dctrl, 0);
        }
    }
    // stages 1..3: the primal's stage state (sim/rk4.c, the same expressions), its tangent
    for (int i = 1; i < 4 && status == GDN_OK; i++) {
        const double c = gdn_rk4_A[i - 1];
        double *tqi = tq + (size_t)i * nvs, *tvi = tv + (size_t)i * nvs;
        const double *tvp = tv + (size_t)(i - 1) * nvs, *tap = ta + (size_t)(i - 1) * nvs;
        gdn_rk4_stage_state(m, &rec, i);
        for (int k = 0; k < nv; k++) {
            ddx[k] = c * tvp[k];
            tvi[k] = tv[k] + h * (c * tap[k]);
        }
        gdn_integrate_pos_jvp(m, rec.dq[i - 1], h, tq, ddx, tqi);
        for (int j = 0; j < na; j++) {
            w.tA[(size_t)i * na + j] = w.tA[j] + h * (c * w.tD[(size_t)(i - 1) * na + j]);
        }
        memcpy(d->qpos, rec.q[i], sizeof(double) * (size_t)m->nq);
        memcpy(d->qvel, rec.v[i], sizeof(double) * (size_t)nv);
        memcpy(d->act, rec.act[i], sizeof(double) * (size_t)na);
        d->time = e.time + c * h;
        if (na) {
            gdn_actuator_input_tangent(m, dctrl, w.tA + (size_t)i * na, w.du);
        }
        status = gdn_accel_jvp(m, d, tqi, tvi, du, dparam, dweights, dvert, dcp,
                               ta + (size_t)i * nvs, what);
        if (status == GDN_OK) {
            memcpy(rec.a[i], d->qacc, sizeof(double) * (size_t)nv);
            memcpy(rec.adot[i], d->act_dot, sizeof(double) * (size_t)na);
            if (na) {
                stage_act_jvp(m, d, &w, dctrl, i);
            }
        }
    }
    // the update: vbar, abar as the primal; dv' = dv_0 + h sum_j B_j da_j,
    // dq' = Phi_q(vbar) dq_0 + h Phi_v(vbar) sum_j B_j dv_j
    if (status == GDN_OK) {
        gdn_rk4_combine(m, &rec);
        for (int k = 0; k < nv; k++) {
            double sdv = 0, sda = 0;
            for (int j = 0; j < 4; j++) {
                sdv += gdn_rk4_B[j] * tv[(size_t)j * nvs + (size_t)k];
                sda += gdn_rk4_B[j] * ta[(size_t)j * nvs + (size_t)k];
            }
            ddx[k] = sdv;
            dv_next[k] = tv[k] + h * sda;
        }
        gdn_integrate_pos_jvp(m, rec.vbar, h, tq, ddx, dq_next);
        // dact' = keep (dact_0 + h sum_j B_j df_j), keep of the primal's clamp
        for (int j = 0; j < na; j++) {
            double sdf = 0, keep;
            for (int k = 0; k < 4; k++) {
                sdf += gdn_rk4_B[k] * w.tD[(size_t)k * na + j];
            }
            gdn_act_advance_one(m, m->nu - na + j, rec.act[0][j], rec.adotbar[j], h, &keep);
            if (dact_next) {
                dact_next[j] = keep * (w.tA[j] + h * sdf);
            }
        }
    }
    entry_restore(m, d, &e, status == GDN_OK ? rec.q[0] : NULL);
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_rk4_step_vjp(const gdnModel* m, gdnData* d, const double* gq_next,
                           const double* gv_next, const double* gact_next, double* gqpos,
                           double* gqvel, double* gact, double* gctrl, double* gparam,
                           double* gvert, double* gweights, const gdnContactParamGradients* cp,
                           const double* stage_acc, double* x_next, const char** what) {
    const int nv = m->nv, nu = m->nu, na = m->na, first = nu - na;
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    entryState e;
    gdnRk4Record rec;
    actWork w;
    gdnStatus status = rk4_begin(m, d, &e, &rec, &w);
    if (status == GDN_OK && !stage_acc) {
        // the replay: the primal step, recording its stages (the same front halves and bits)
        status = gdn_rk4_step(m, d, GDN_PIPE_DERIVATIVE, &rec);
        if (status == GDN_OK && x_next) {
            memcpy(x_next, d->qpos, sizeof(double) * (size_t)m->nq);
            memcpy(x_next + m->nq, d->qvel, sizeof(double) * (size_t)nv);
            memcpy(x_next + m->nq + nv, d->act, sizeof(double) * (size_t)na);
        }
    } else if (status == GDN_OK) {
        // the stages from the recorded accelerations and activation rates (stage_acc: the
        // tape's block, gradient/tape.h): q_0 normalized as the first front half normalizes
        // it, each later stage's warm start the previous stage's acceleration (the solve's,
        // which an RK4 stage integrates undamped); the reverse pass checks every replayed
        // acceleration and activation rate against the record
        memcpy(rec.q[0], d->qpos, sizeof(double) * (size_t)m->nq);
        gdn_normalize_quat(m, rec.q[0]);
        memcpy(rec.v[0], d->qvel, sizeof(double) * (size_t)nv);
        memcpy(rec.act[0], d->act, sizeof(double) * (size_t)na);
        memcpy(rec.warm[0], d->qacc_warmstart, sizeof(double) * (size_t)nv);
        for (int i = 0; i < 4; i++) {
            memcpy(rec.a[i], stage_acc + (size_t)i * (size_t)nv, sizeof(double) * (size_t)nv);
            memcpy(rec.adot[i], stage_acc + 4 * (size_t)nv + (size_t)i * (size_t)na,
                   sizeof(double) * (size_t)na);
        }
        for (int i = 1; i < 4; i++) {
            gdn_rk4_stage_state(m, &rec, i);
            memcpy(rec.warm[i], rec.a[i - 1], sizeof(double) * (size_t)nv);
        }
        gdn_rk4_combine(m, &rec);
        if (x_next) {
            gdn_rk4_advance(m, &rec, x_next, x_next + m->nq, na ? x_next + m->nq + nv : NULL);
        }
    }
    // GQ, GV: the cotangents of q_0, v_0; gq_i, gv_i, ga_i per stage (4 nv each); gdX, gdq (nv);
    // the inverse weights' own buffer when the caller finishes none
    const size_t nvs = (size_t)(nv > 0 ? nv : 1);
    const size_t nw = gdn_weights_size(m) + 1;
    double* GQ = status == GDN_OK ? gdn_arena_doubles(d, 16 * nvs + nw) : NULL;
    if (status == GDN_OK && !GQ) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        entry_restore(m, d, &e, NULL);
        gdn_arena_reset(d, mark);
        return status;
    }
    double* GV = GQ + nvs;
    double* gq = GV + nvs;
    double* gv = gq + 4 * nvs;
    double* ga = gv + 4 * nvs;
    double* gdx = ga + 4 * nvs;
    double* gdq = gdx + nvs;
    double* own = gdq + nvs;
    double* gw = gparam ? (gweights ? gweights : own) : NULL;
    memset(GQ, 0, sizeof(double) * (16 * nvs + nw));
    if (gctrl) {
        memset(gctrl, 0, sizeof(double) * (size_t)nu);
    }
    // the update's activations: act' = clamp(act_0 + h sum_j B_j f_j): GA = keep gact',
    // gf_j = h B_j keep gact' (w.base: GA, w.tD: gf_i, w.tA: gact_i)
    for (int j = 0; j < na; j++) {
        double keep;
        gdn_act_advance_one(m, first + j, rec.act[0][j], rec.adotbar[j], h, &keep);
        const double g = gact_next ? keep * gact_next[j] : 0;
        w.base[j] = g;
        for (int k = 0; k < 4; k++) {
            w.tD[(size_t)k * na + j] = h * gdn_rk4_B[k] * g;
        }
    }
    // the update: q' = q_0 (+) h vbar, v' = v_0 + h abar
    if (gq_next) {
        gdn_integrate_pos_vjp(m, rec.vbar, h, gq_next, GQ, gdx);
    }
    for (int k = 0; k < nv; k++) {
        const double gvn = gv_next ? gv_next[k] : 0;
        GV[k] = gvn;
        for (int j = 0; j < 4; j++) {
            gv[(size_t)j * nvs + (size_t)k] = gdn_rk4_B[j] * gdx[k];
            ga[(size_t)j * nvs + (size_t)k] = gdn_rk4_B[j] * (h * gvn);
        }
    }
    // stages 3 .. 1, then 0: a_i's adjoint at its replayed front half, then x_i's inputs
    for (int i = 3; i >= 0 && status == GDN_OK; i--) {
        double *gqi = i == 0 ? GQ : gq + (size_t)i * nvs, *gvi = gv + (size_t)i * nvs;
        stage_load(m, d, &rec, &e, i);
        if (na) {
            memset(w.du, 0, sizeof(double) * (size_t)nu);
        }
        status = gdn_accel_vjp(m, d, ga + (size_t)i * nvs, gqi, gvi, na ? w.du : gctrl, gparam,
                               gvert, gw, cp, what);
        if (status == GDN_OK &&
            (memcmp(d->qacc, rec.a[i], sizeof(double) * (size_t)nv) != 0 ||
             memcmp(d->act_dot, rec.adot[i], sizeof(double) * (size_t)na) != 0)) {
            *what = "RK4 stage replay (its solve differs from the primal's)";
            status = GDN_ERR_ARG;
        }
        if (status == GDN_OK && na) {
            // the input cotangent split (control | act_i), then f_i = act_dot(ctrl, act_i):
            // gact_i += fa_i gf_i, gctrl += fc_i gf_i; act_i = act_0 + h c_i f_{i-1}
            gdn_act_dot_partials(m, d, NULL, w.fa, w.fc);
            double* gAi = w.tA + (size_t)i * na;
            const double* gfi = w.tD + (size_t)i * na;
            for (int k = 0; gctrl && k < first; k++) {
                gctrl[k] += w.du[k];
            }
            for (int j = 0; j < na; j++) {
                gAi[j] = w.du[first + j] + w.fa[j] * gfi[j];
                if (gctrl) {
                    gctrl[first + j] += w.fc[j] * gfi[j];
                }
                w.base[j] += gAi[j];
                if (i > 0) {
                    w.tD[(size_t)(i - 1) * na + j] += h * gdn_rk4_A[i - 1] * gAi[j];
                }
            }
        }
        if (status != GDN_OK || i == 0) {
            break;
        }
        // q_i = q_0 (+) h dX_i, dX_i = c v_{i-1};  v_i = v_0 + h c a_{i-1}
        const double c = gdn_rk4_A[i - 1];
        gdn_integrate_pos_vjp(m, rec.dq[i - 1], h, gqi, gdq, gdx);
        for (int k = 0; k < nv; k++) {
            GQ[k] += gdq[k];
            gv[(size_t)(i - 1) * nvs + (size_t)k] += c * gdx[k];
            GV[k] += gvi[k];
            ga[(size_t)(i - 1) * nvs + (size_t)k] += h * c * gvi[k];
        }
    }
    // v_0's own cotangent (stage 0's velocity) joins the base's
    for (int k = 0; status == GDN_OK && k < nv; k++) {
        GV[k] += gv[k];
    }
    if (status == GDN_OK && gparam && !gweights) {
        status = gdn_constraint_weights_vjp(m, d, own, own + 2 * m->nbody, gparam);
    }
    if (status == GDN_OK) {
        if (gqpos) {
            memcpy(gqpos, GQ, sizeof(double) * (size_t)nv);
        }
        if (gqvel) {
            memcpy(gqvel, GV, sizeof(double) * (size_t)nv);
        }
        if (gact && na) {
            memcpy(gact, w.base, sizeof(double) * (size_t)na);
        }
    }
    entry_restore(m, d, &e, rec.q[0]);
    gdn_arena_reset(d, mark);
    return status;
}

// The same chain on all 2 nv + nu columns at once (row-major nv x ncol matrices, ncol =
// 2 nv + nu; the columns are the directions (dq_0, dv_0, du)): with X_i = [Xq | Xv | Xu] the
// stage's acceleration Jacobian (gdn_accel_columns),
//   DA_i = Xq DQ_i + Xv DV_i + [0 0 Xu],  DQ_0 = [I 0 0],  DV_0 = [0 I 0]
//   DQ_i = Phi_q(dX_i) DQ_0 + h Phi_v(dX_i) c_i DV_{i-1},  DV_i = DV_0 + h c_i DA_{i-1}
//   [A | B] = [Phi_q(vbar) DQ_0 + h Phi_v(vbar) SV ; DV_0 + h SA],  SV = sum_j B_j DV_j,
//   SA = sum_j B_j DA_j
gdnStatus gdn_rk4_transition(const gdnModel* m, gdnData* d, double* A, double* B) {
    const int nv = m->nv, nu = m->nu, n = 2 * nv, ncol = n + nu;
    const double h = m->opt.timestep;
    const size_t mat = (size_t)nv * (size_t)ncol + 1;
    size_t mark = gdn_arena_mark(d);
    entryState e;
    gdnRk4Record rec;
    gdnStatus status = rk4_begin(m, d, &e, &rec, NULL);
    double* X = status == GDN_OK ? gdn_arena_doubles(d, 7 * mat) : NULL;
    if (status == GDN_OK && !X) {
        status = GDN_ERR_MEMORY;
    }
    if (status != GDN_OK) {
        gdn_arena_reset(d, mark);
        return status;
    }
    double* DA = X + mat;
    double* DQ = DA + mat;
    double* DV = DQ + mat;
    double* SV = DV + mat;
    double* SA = SV + mat;
    double* TMP = SA + mat;
    memset(DQ, 0, sizeof(double) * 5 * mat);
    // DQ_0, DV_0: the unit columns
    for (int k = 0; k < nv; k++) {
        DQ[(size_t)k * ncol + (size_t)k] = 1;
        DV[(size_t)k * ncol + (size_t)(nv + k)] = 1;
    }
    memcpy(rec.v[0], d->qvel, sizeof(double) * (size_t)nv);
    for (int i = 0; i < 4 && status == GDN_OK; i++) {
        const double c = i > 0 ? gdn_rk4_A[i - 1] : 0;
        if (i > 0) {
            // the stage state; DQ_i from c DV_{i-1}, then DV_i
            gdn_rk4_stage_state(m, &rec, i);
            for (size_t k = 0; k + 1 < mat; k++) {
                TMP[k] = c * DV[k];
            }
            gdn_integrate_pos_jvp_columns(m, rec.dq[i - 1], h, ncol, TMP, ncol, 0, DQ, ncol);
            for (int k = 0; k < nv; k++) {
                for (int col = 0; col < ncol; col++) {
                    const size_t at = (size_t)k * ncol + (size_t)col;
                    DV[at] = h * (c * DA[at]) + (col == nv + k ? 1 : 0);
                }
            }
            memcpy(d->qpos, rec.q[i], sizeof(double) * (size_t)m->nq);
            memcpy(d->qvel, rec.v[i], sizeof(double) * (size_t)nv);
        }
        d->time = e.time + c * h;
        memcpy(rec.warm[i], d->qacc_warmstart, sizeof(double) * (size_t)nv);
        status = gdn_pipeline_front(m, d, GDN_PIPE_DERIVATIVE, NULL);
        if (status == GDN_OK) {
            if (i == 0) {
                memcpy(rec.q[0], d->qpos, sizeof(double) * (size_t)m->nq);
            }
            memcpy(rec.a[i], d->qacc, sizeof(double) * (size_t)nv);
            status = gdn_accel_columns(m, d, X);
        }
        if (status != GDN_OK) {
            break;
        }
        // DA_i = Xq DQ_i + Xv DV_i + [0 0 Xu]
        for (int r = 0; r < nv; r++) {
            const double* Xr = X + (size_t)r * ncol;
            double* Dr = DA + (size_t)r * ncol;
            for (int col = 0; col < ncol; col++) {
                Dr[col] = col >= n ? Xr[col] : 0;
            }
            for (int k = 0; k < nv; k++) {
                const double xq = Xr[k], xv = Xr[nv + k];
                const double* Qk = DQ + (size_t)k * ncol;
                const double* Vk = DV + (size_t)k * ncol;
                for (int col = 0; col < ncol; col++) {
                    Dr[col] += xq * Qk[col] + xv * Vk[col];
                }
            }
        }
        for (size_t k = 0; k + 1 < mat; k++) {
            SV[k] += gdn_rk4_B[i] * DV[k];
            SA[k] += gdn_rk4_B[i] * DA[k];
        }
    }
    if (status == GDN_OK) {
        gdn_rk4_combine(m, &rec);
        if (A) {
            for (int k = 0; k < nv; k++) {
                double* row = A + (size_t)(nv + k) * (size_t)n;
                for (int col = 0; col < n; col++) {
                    row[col] = h * SA[(size_t)k * ncol + (size_t)col];
                }
                row[nv + k] += 1;
            }
            gdn_integrate_pos_jvp_columns(m, rec.vbar, h, n, SV, ncol, 0, A, n);
        }
        if (B && nu > 0) {
            for (int k = 0; k < nv; k++) {
                double* row = B + (size_t)(nv + k) * (size_t)nu;
                for (int col = 0; col < nu; col++) {
                    row[col] = h * SA[(size_t)k * ncol + (size_t)(n + col)];
                }
            }
            gdn_integrate_pos_jvp_columns(m, rec.vbar, h, nu, SV + n, ncol, -1, B, nu);
        }
    }
    entry_restore(m, d, &e, status == GDN_OK ? rec.q[0] : NULL);
    gdn_arena_reset(d, mark);
    return status;
}
