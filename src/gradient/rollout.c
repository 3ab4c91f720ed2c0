// SPDX-License-Identifier: Apache-2.0
// The rollout: input validation and the forward pass onto the tape (the primal objective).
#include <math.h>
#include <string.h>

#include <gradyn/adjoint.h>

#include "base/status.h"
#include "gradient/cost.h"
#include "gradient/rollout.h"
#include "gradient/step_derivative.h"
#include "gradient/tape.h"
#include "penalty/penalty.h"
#include "sim/pipeline.h"

// index of the first non-finite entry of x (n), -1 when all are finite
static int first_nonfinite(const double* x, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            return i;
        }
    }
    return -1;
}

void gdn_rollout_init(const gdnModel* m, int nstep, gdnRollout* r) {
    if (!r) {
        return;
    }
    memset(r, 0, sizeof(*r));
    r->nstep = nstep;
    if (m) {
        r->nq = m->nq;
        r->nv = m->nv;
        r->nu = m->nu;
        r->nbody = m->nbody;
        r->na = m->na;
    }
}

// Checks every input before anything runs and leaves the validated x_0 in tape->qpos0:
// qpos0 with its quaternions normalized (as gdn_step's kinematics normalizes them).
gdnStatus gdn_rollout_validate(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                               gdnTape* tape, char* err, int err_size) {
    if (!m || !r || !obj || !tape) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL model, rollout, objective or tape");
    }
    if (r->nq != m->nq || r->nv != m->nv || r->nu != m->nu || r->nbody != m->nbody) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "rollout sizes (nq %d, nv %d, nu %d, nbody %d) differ from the model's "
                        "(%d, %d, %d, %d)",
                        r->nq, r->nv, r->nu, r->nbody, m->nq, m->nv, m->nu, m->nbody);
    }
    if (tape->nq != m->nq || tape->nv != m->nv || tape->nu != m->nu || tape->nbody != m->nbody ||
        tape->njnt != m->njnt || tape->nvert != m->nvert || tape->d->nvert != m->nvert) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "the tape was created for a model of another shape (nq, nv, nu, nbody, "
                        "njnt, nvert)");
    }
    if (r->nstep <= 0) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "nstep must be positive (got %d)", r->nstep);
    }
    if (r->na != m->na || tape->na != m->na) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "rollout or tape activations (na %d, %d) differ from the model's (%d)",
                        r->na, tape->na, m->na);
    }
    if (r->act0) {
        for (int j = 0; j < m->na; j++) {
            if (!isfinite(r->act0[j])) {
                return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "act0[%d] is not finite", j);
            }
        }
    }
    if (r->nstep > tape->max_steps) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "nstep %d exceeds the tape's max_steps %d",
                        r->nstep, tape->max_steps);
    }
    if (!r->qpos0 || !r->qvel0 || (m->nu > 0 && !r->ctrl)) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL qpos0, qvel0 or ctrl");
    }
    int i;
    if ((i = first_nonfinite(r->qpos0, m->nq)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "qpos0[%d] is not finite", i);
    }
    if ((i = first_nonfinite(r->qvel0, m->nv)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "qvel0[%d] is not finite", i);
    }
    if (m->nu > 0 && (i = first_nonfinite(r->ctrl, r->nstep * m->nu)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "ctrl[%d][%d] (step %d) is not finite",
                        i / m->nu, i % m->nu, i / m->nu);
    }
    if (r->qfrc_applied && (i = first_nonfinite(r->qfrc_applied, m->nv)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "qfrc_applied[%d] is not finite", i);
    }
    if (r->xfrc_applied && (i = first_nonfinite(r->xfrc_applied, 6 * m->nbody)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "xfrc_applied[%d][%d] is not finite",
                        i / 6, i % 6);
    }
    if (r->mocap_pos && (i = first_nonfinite(r->mocap_pos, 3 * m->nmocap)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "mocap_pos[%d][%d] is not finite",
                        i / 3, i % 3);
    }
    if (r->mocap_quat && (i = first_nonfinite(r->mocap_quat, 4 * m->nmocap)) >= 0) {
        return gdn_fail(GDN_ERR_NONFINITE, err, err_size, "mocap_quat[%d][%d] is not finite",
                        i / 4, i % 4);
    }
    // quaternions: unit within the tolerance, then normalized
    memcpy(tape->qpos0, r->qpos0, sizeof(double) * (size_t)m->nq);
    for (int j = 0; j < m->njnt; j++) {
        int type = m->jnt_type[j];
        if (type != GDN_JNT_FREE && type != GDN_JNT_BALL) {
            continue;
        }
        const double* q = tape->qpos0 + m->jnt_qposadr[j] + (type == GDN_JNT_FREE ? 3 : 0);
        double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(fabs(norm - 1) <= GDN_ADJOINT_QUAT_TOL)) {
            const char* name = gdn_id2name(m, "joint", j);
            return gdn_fail(GDN_ERR_ARG, err, err_size,
                            "qpos0: quaternion of joint %d '%s' has norm %.17g (tolerance %g)", j,
                            name ? name : "", norm, GDN_ADJOINT_QUAT_TOL);
        }
    }
    gdn_normalize_quat(m, tape->qpos0);
    if (obj->terminal.fn == NULL && obj->running.fn == NULL) {
        return gdn_fail(GDN_ERR_ARG, err, err_size,
                        "the objective has neither a terminal nor a running cost");
    }
    return GDN_OK;
}

// the rollout's constant inputs into d: applied forces (zero when NULL), time 0
static void load_inputs(const gdnModel* m, const gdnRollout* r, gdnData* d) {
    if (r->qfrc_applied) {
        memcpy(d->qfrc_applied, r->qfrc_applied, sizeof(double) * (size_t)m->nv);
    } else {
        memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
    }
    if (r->xfrc_applied) {
        memcpy(d->xfrc_applied, r->xfrc_applied, sizeof(double) * 6 * (size_t)m->nbody);
    } else {
        memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
    }
    // the mocap poses: the caller's, else the mocap bodies' own
    for (int b = 0; b < m->nbody; b++) {
        const int id = m->body_mocapid[b];
        if (id >= 0) {
            memcpy(d->mocap_pos + 3 * id, r->mocap_pos ? r->mocap_pos + 3 * id : m->body_pos + 3 * b,
                   3 * sizeof(double));
            memcpy(d->mocap_quat + 4 * id,
                   r->mocap_quat ? r->mocap_quat + 4 * id : m->body_quat + 4 * b,
                   4 * sizeof(double));
        }
    }
    d->time = 0;
    // the first solve starts from a zero warm start, as in a fresh gdnData
    memset(d->qacc_warmstart, 0, sizeof(double) * (size_t)m->nv);
}

void gdn_rollout_save_state(const gdnModel* m, const gdnData* d, double* x) {
    memcpy(x, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(x + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(x + m->nq + m->nv, d->act, sizeof(double) * (size_t)m->na);
}

void gdn_rollout_load_state(const gdnModel* m, gdnData* d, const double* x) {
    memcpy(d->qpos, x, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, x + m->nq, sizeof(double) * (size_t)m->nv);
    memcpy(d->act, x + m->nq + m->nv, sizeof(double) * (size_t)m->na);
}

const double* gdn_rollout_ctrl_row(const gdnModel* m, const gdnRollout* r, int t) {
    return m->nu > 0 ? r->ctrl + (size_t)t * (size_t)m->nu : NULL;
}

// one gdn_step from the state in d with control row t; the step's error names t. keep >= 0:
// the step is gdn_step_keep, its factor and normalized qpos into record slot keep's stored
// intermediates (the caller saves the rest after recording the step)
static gdnStatus step_into(const gdnModel* m, const gdnRollout* r, gdnTape* tape, gdnData* d,
                           int t, int keep, char* err, int err_size) {
    if (m->nu > 0) {
        memcpy(d->ctrl, gdn_rollout_ctrl_row(m, r, t), sizeof(double) * (size_t)m->nu);
    }
    gdnStatus st;
    if (keep >= 0) {
        gdnAbaFactor f;
        gdn_tape_inter_factor(tape, keep, &f);
        st = gdn_step_keep(m, d, &f, gdn_tape_inter_qpos(tape, keep));
    } else {
        st = gdn_step(m, d);
    }
    if (st != GDN_OK) {
        return gdn_fail(st, err, err_size, "step %d: gdn_step failed (%s)%s", t,
                        gdn_status_string(st),
                        st == GDN_ERR_NONFINITE ? ": the state or acceleration is not finite" : "");
    }
    return GDN_OK;
}

// The forward pass shared by the primal and the gradient:
//   x_0 = validated initial state; for t < T: record x_t (every K-th, with the warm start the
//   step reads when K > 1), J += l(x_t, u_t), x_{t+1} = gdn_step(x_t, u_t), record step t
//   (qacc, the solve, with store its stored intermediates) when t ends a segment; record x_T,
//   J += g(x_T)
// (inlined into its one caller twice, with store a literal: the primal's loop has no branch on
// the stores)
static inline __attribute__((always_inline)) gdnStatus
forward_pass(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj, gdnTape* tape,
             int store, double* J, char* err, int err_size) {
    gdnData* d = tape->d;
    const int T = r->nstep, K = tape->every;
    tape->nstep = 0;
    tape->constrained = -1;
    gdn_tape_clear_records(tape);
    load_inputs(m, r, d);
    memcpy(d->qpos, tape->qpos0, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, r->qvel0, sizeof(double) * (size_t)m->nv);
    if (r->act0) {
        memcpy(d->act, r->act0, sizeof(double) * (size_t)m->na);
    } else {
        memset(d->act, 0, sizeof(double) * (size_t)m->na);
    }
    double sum = 0;
    for (int t = 0; t < T; t++) {
        if (t % K == 0) {
            gdn_rollout_save_state(m, d, tape->checkpoint + (size_t)(t / K) * (size_t)tape->stride);
            if (K > 1) {
                memcpy(tape->warm + (size_t)(t / K) * (size_t)m->nv, d->qacc_warmstart,
                       sizeof(double) * (size_t)m->nv);
            }
        }
        if (obj->running.fn) {
            double value;
            gdnStatus st = gdn_cost_eval(
                m, tape, &obj->running, t, d->qpos, d->qvel, d->act,
                gdn_rollout_ctrl_row(m, r, t) ? gdn_rollout_ctrl_row(m, r, t) : tape->cost_u,
                &value, 0, 0, err, err_size);
            if (st != GDN_OK) {
                return st;
            }
            sum += value;
        }
        // the record of a segment's last step (the backward pass replays the others)
        const int recorded = (t + 1) % K == 0 || t == T - 1;
        gdnStatus st = step_into(m, r, tape, d, t, recorded && store ? t / K : -1, err, err_size);
        if (st != GDN_OK) {
            return st;
        }
        if (d->nefc > 0 && tape->constrained < 0) {
            tape->constrained = t;
            tape->constrained_nefc = d->nefc;
        }
        if (recorded) {
            st = gdn_tape_record(tape, t / K, t, d, err, err_size);
            if (st != GDN_OK) {
                return st;
            }
            gdn_tape_record_rk4(m, tape, t / K, d);
            // a step with rows leaves no ABA factor (and has no gradient)
            if (store && d->nefc == 0) {
                gdn_tape_inter_save(tape, t / K, gdn_penalty_active(m));
            }
        }
    }
    tape->pool_forward = tape->pool_used;
    tape->solve_forward = tape->solve_used;
    gdn_rollout_save_state(m, d, tape->final);
    tape->nstep = T;
    if (obj->terminal.fn) {
        double value;
        gdnStatus st = gdn_cost_eval(m, tape, &obj->terminal, T, d->qpos, d->qvel, d->act, NULL,
                                     &value, 0, 0, err, err_size);
        if (st != GDN_OK) {
            tape->nstep = 0;
            return st;
        }
        sum += value;
    }
    *J = sum;
    return GDN_OK;
}

// the forward pass; on error nothing stays recorded (no state, no step record)
gdnStatus gdn_rollout_forward(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                              gdnTape* tape, int store, double* J, char* err, int err_size) {
    // stored intermediates are the Euler step's front half (one per step; RK4 has four)
    gdnStatus st = store && gdn_tape_keeps_inter(m, tape)
                       ? forward_pass(m, r, obj, tape, 1, J, err, err_size)
                       : forward_pass(m, r, obj, tape, 0, J, err, err_size);
    if (st != GDN_OK) {
        tape->nstep = 0;
        gdn_tape_clear_records(tape);
    }
    return st;
}

// Segment s of the last forward pass replayed from its checkpoint x_{t0} and warm start:
// steps t0 .. t1-2 with gdn_step, their states x_{t0+1} .. x_{t1-1} into tape->segment and
// their records into the segment slots (t1 = min(t0 + K, T); nothing when t1 - t0 = 1)
gdnStatus gdn_rollout_replay(const gdnModel* m, const gdnRollout* r, gdnTape* tape, int s,
                             char* err, int err_size) {
    const int K = tape->every, T = tape->nstep, t0 = s * K;
    const int t1 = t0 + K < T ? t0 + K : T;
    gdnData* d = tape->d;
    gdn_tape_clear_segment(tape);
    if (t1 - t0 <= 1) {
        return GDN_OK;
    }
    gdn_rollout_load_state(m, d, tape->checkpoint + (size_t)s * (size_t)tape->stride);
    memcpy(d->qacc_warmstart, tape->warm + (size_t)s * (size_t)m->nv,
           sizeof(double) * (size_t)m->nv);
    for (int t = t0; t < t1 - 1; t++) {
        const int slot = tape->ncheck + (t - t0);
        const int keep = gdn_tape_keeps_inter(m, tape);
        gdnStatus st = step_into(m, r, tape, d, t, keep ? slot : -1, err, err_size);
        if (st == GDN_OK) {
            st = gdn_tape_record(tape, slot, t, d, err, err_size);
            gdn_tape_record_rk4(m, tape, slot, d);
        }
        if (st == GDN_OK && keep && d->nefc == 0) {
            gdn_tape_inter_save(tape, slot, gdn_penalty_active(m));
        }
        if (st != GDN_OK) {
            gdn_tape_clear_segment(tape);
            return st;
        }
        gdn_rollout_save_state(m, d, tape->segment + (size_t)(t - t0) * (size_t)tape->stride);
    }
    tape->seg_t0 = t0;
    return GDN_OK;
}

gdnStatus gdn_rollout_objective(const gdnModel* m, const gdnRollout* r, const gdnObjective* obj,
                                gdnTape* tape, double* J, char* err, int err_size) {
    if (err && err_size > 0) {
        err[0] = '\0';
    }
    if (!J) {
        return gdn_fail(GDN_ERR_ARG, err, err_size, "NULL J");
    }
    *J = NAN;
    gdnStatus st = gdn_rollout_validate(m, r, obj, tape, err, err_size);
    if (st != GDN_OK) {
        return st;
    }
    double value = 0;
    st = gdn_rollout_forward(m, r, obj, tape, 0, &value, err, err_size);
    if (st == GDN_OK) {
        *J = value;
    } else if (tape) {
        tape->nstep = 0;
    }
    return st;
}
