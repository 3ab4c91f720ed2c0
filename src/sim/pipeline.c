// SPDX-License-Identifier: Apache-2.0
// The one pipeline: the stages of a step and the entries that run them (gdn_step, gdn_forward,
// gdn_inverse; the derivatives run gdn_pipeline_front).
#include "sim/pipeline.h"

#include <math.h>
#include <string.h>

#include <gradyn/derivative.h>

#include "base/arena.h"
#include "kinematics/kinematics.h"
#include "model/validate.h"
#include "penalty/penalty.h"
#include "sim/integrator.h"
#include "sensor/sensor.h"
#include "dynamics/activation.h"
#include "dynamics/applied.h"
#include "dynamics/com.h"
#include "dynamics/crb.h"
#include "dynamics/passive.h"
#include "dynamics/rne.h"
#include "dynamics/transmission.h"
#include "kinematics/tendon_derivative.h"

const gdnFormulation* gdn_formulation(const gdnModel* m) {
    (void)m; // one formulation today; the maximal-coordinate solver adds an option
    return &gdn_formulation_reduced;
}

// ---------------------------------------------------------------- stages

// check: qpos, qvel, ctrl and the mocap poses finite; else a warning count and
// GDN_ERR_NONFINITE
static gdnStatus stage_check(const gdnModel* m, gdnData* d) {
    if (!gdn_all_finite(d->qpos, m->nq)) {
        d->warning[GDN_WARN_BADQPOS]++;
        return GDN_ERR_NONFINITE;
    }
    if (!gdn_all_finite(d->qvel, m->nv)) {
        d->warning[GDN_WARN_BADQVEL]++;
        return GDN_ERR_NONFINITE;
    }
    if (!gdn_all_finite(d->ctrl, m->nu)) {
        d->warning[GDN_WARN_BADCTRL]++;
        return GDN_ERR_NONFINITE;
    }
    if (!gdn_all_finite(d->act, m->na)) {
        d->warning[GDN_WARN_BADACT]++;
        return GDN_ERR_NONFINITE;
    }
    // the mocap poses are configuration too
    if (!gdn_all_finite(d->mocap_pos, 3 * m->nmocap) ||
        !gdn_all_finite(d->mocap_quat, 4 * m->nmocap)) {
        d->warning[GDN_WARN_BADQPOS]++;
        return GDN_ERR_NONFINITE;
    }
    return GDN_OK;
}

// position: kinematics, energy (when enabled), the formulation's contacts and rows
static gdnStatus stage_position(const gdnModel* m, gdnData* d, const gdnFormulation* form) {
    gdn_kinematics_stage(m, d);
    if (m->opt.enableflags & GDN_ENBL_ENERGY) {
        gdn_energy(m, d);
    }
    return form->position(m, d);
}

// velocity: tau = qfrc_passive + qfrc_actuator + applied (+ penalty)
gdnStatus gdn_smooth_forces(const gdnModel* m, gdnData* d, double* tau) {
    gdn_force_sum(m, d, tau);
    gdnStatus status = gdn_penalty_forces(m, d, tau);
    if (status != GDN_OK) {
        // a caller that ignores the status still cannot integrate a step without the contact
        for (int i = 0; i < m->nv; i++) {
            tau[i] = NAN;
        }
    }
    return status;
}

// check, position, velocity and acceleration (pipeline.h)
gdnStatus gdn_pipeline_front(const gdnModel* m, gdnData* d, gdnPipelineMode mode,
                             const gdnAbaFactor* factor) {
    const int nq = m->nq, nv = m->nv;
    // sensors: gdn_forward and gdn_step, not the derivatives' fronts (nor RK4's stages 1..3)
    const int sensors = !(mode & GDN_PIPE_NOSENSOR) && mode != GDN_PIPE_DERIVATIVE &&
                        gdn_sensors_enabled(m);
    mode = (gdnPipelineMode)(mode & ~GDN_PIPE_NOSENSOR);
    gdnStatus status = stage_check(m, d);
    if (status != GDN_OK) {
        return status;
    }
    // scratch: qpos on entry (kinematics normalizes its quaternions in place: kept for a
    // rollback), tau, the acceleration stage's work (3 nv)
    size_t mark = gdn_arena_mark(d);
    double* qpos_saved = gdn_arena_doubles(d, (size_t)nq + 4 * (size_t)nv);
    if (!qpos_saved) {
        return GDN_ERR_MEMORY;
    }
    double* tau = qpos_saved + nq;
    memcpy(qpos_saved, d->qpos, sizeof(double) * (size_t)nq);

    const gdnFormulation* form = gdn_formulation(m);
    status = stage_position(m, d, form);
    // the derivative report: a body transmission's contact differentiated at MPR's converged
    // limit (the rows' own contacts are reported by their linearization)
    if (status == GDN_OK && mode == GDN_PIPE_DERIVATIVE && gdn_transmission_has_body(m) &&
        gdn_transmission_body_mpr_limit(m, d)) {
        d->deriv_flags |= GDN_DERIV_MPR_LIMIT;
    }
    // and a tendon's inside wrap differentiated at its equation's root
    if (status == GDN_OK && mode == GDN_PIPE_DERIVATIVE && m->ntendon > 0 &&
        (gdn_tendon_inside_wrap(m, d) & 1)) {
        d->deriv_flags |= GDN_DERIV_WRAP_LIMIT;
    }
    if (status == GDN_OK) {
        status = gdn_smooth_forces(m, d, tau);
    }
    if (status == GDN_OK) {
        status = form->acceleration(m, d, mode, tau, factor, tau + nv);
    }
    if (status == GDN_OK && !gdn_all_finite(d->qacc, nv)) {
        d->warning[GDN_WARN_BADQACC]++;
        status = GDN_ERR_NONFINITE;
    }
    // the post-solve intermediates (mj_rnePostConstraint) only for a sensor that needs them
    gdn_poison(d->cacc, 6 * m->nbody, 1);
    gdn_poison(d->cfrc_int, 6 * m->nbody, 1);
    gdn_poison(d->cfrc_ext, 6 * m->nbody, 1);
    // sensors at the state the front started from (mj_sensorPos / Vel / Acc); d->qacc is the
    // step's damped acceleration in the step modes under Euler (gdn_damping_h)
    if (status == GDN_OK && sensors) {
        status = gdn_sensor_stages(m, d, tau, mode == GDN_PIPE_FORWARD ? 0 : gdn_damping_h(m));
    }
    // the implicit integrator's step acceleration after the sensors (which read mj_forward's):
    // qacc = (M - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint) (sim/implicit.c); qacc_smooth
    // and qacc_warmstart stay mj_forward's, as MuJoCo leaves them
    if (status == GDN_OK && mode != GDN_PIPE_FORWARD && m->opt.integrator == GDN_INT_IMPLICIT) {
        status = gdn_implicit_acceleration(m, d, tau, factor ? factor->implicit_LU : NULL);
        if (status == GDN_OK && gdn_all_finite(tau, nv)) {
            memcpy(d->qacc, tau, sizeof(double) * (size_t)nv);
        } else if (status == GDN_OK) {
            d->warning[GDN_WARN_BADQACC]++;
            status = GDN_ERR_NONFINITE;
        }
    }
    if (status != GDN_OK) {
        memcpy(d->qpos, qpos_saved, sizeof(double) * (size_t)nq);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// integrate (semi-implicit Euler): act' = clamp(act + h act_dot), v' = v + h qacc,
// q' = q (+) h v', time += h, into scratch and committed only when finite: a finite but huge
// qacc can overflow v', a huge position plus h v' can overflow q'; a refused step leaves the
// state as it was
static gdnStatus stage_integrate(const gdnModel* m, gdnData* d) {
    const double h = m->opt.timestep;
    size_t mark = gdn_arena_mark(d);
    double* qpos_next = gdn_arena_doubles(d, (size_t)m->nq);
    double* qvel_next = gdn_arena_doubles(d, (size_t)m->nv);
    double* act_next = gdn_arena_doubles(d, (size_t)m->na + 1);
    if (!qpos_next || !qvel_next || !act_next) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < m->nv; i++) {
        qvel_next[i] = d->qvel[i] + h * d->qacc[i];
    }
    if (!gdn_all_finite(qvel_next, m->nv)) {
        gdn_arena_reset(d, mark);
        d->warning[GDN_WARN_BADQACC]++;
        return GDN_ERR_NONFINITE;
    }
    gdn_act_advance(m, d->act, d->act_dot, h, act_next, NULL);
    if (!gdn_all_finite(act_next, m->na)) {
        gdn_arena_reset(d, mark);
        d->warning[GDN_WARN_BADACT]++;
        return GDN_ERR_NONFINITE;
    }
    memcpy(qpos_next, d->qpos, sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, qpos_next, qvel_next, h);
    if (!gdn_all_finite(qpos_next, m->nq)) {
        gdn_arena_reset(d, mark);
        d->warning[GDN_WARN_BADQPOS]++;
        return GDN_ERR_NONFINITE;
    }
    memcpy(d->act, act_next, sizeof(double) * (size_t)m->na);
    memcpy(d->qvel, qvel_next, sizeof(double) * (size_t)m->nv);
    memcpy(d->qpos, qpos_next, sizeof(double) * (size_t)m->nq);
    gdn_arena_reset(d, mark);
    d->time += h;
    return GDN_OK;
}

// ---------------------------------------------------------------- entries

// gdn_step with the front half keeping ABA's factorization in factor (bit for bit gdn_step: ABA
// with a factor computes the same), and the configuration the front half leaves (qpos with its
// quaternions normalized, before the integration) copied to qpos_front when non-NULL
gdnStatus gdn_step_keep(const gdnModel* m, gdnData* d, const gdnAbaFactor* factor,
                        double* qpos_front) {
    gdnStatus status = gdn_check_step(m, d);
    if (status != GDN_OK) {
        return status;
    }
    if (m->opt.integrator == GDN_INT_RK4) {
        // four front halves (sim/rk4.c); no single factor or front configuration to keep
        return gdn_rk4_step(m, d, GDN_PIPE_STEP, NULL);
    }
    status = gdn_pipeline_front(m, d, GDN_PIPE_STEP, factor);
    if (status == GDN_OK) {
        if (qpos_front) {
            memcpy(qpos_front, d->qpos, sizeof(double) * (size_t)m->nq);
        }
        status = stage_integrate(m, d);
    }
    return status;
}

// MuJoCo 2.2.2's mj_step: with the Euler integrator the front half (GDN_PIPE_STEP), then the
// integration; with RK4 mj_RungeKutta's four front halves and its update (sim/rk4.c). Euler's
// integration (gdn_step_keep without a factor: its one body, so the integration stays inline).
// An unconverged solve is not a failure: the step is taken and d->solver_converged = 0 reports
// it. docs/architecture.md lists what each output holds after.
gdnStatus gdn_step(const gdnModel* m, gdnData* d) {
    return gdn_step_keep(m, d, NULL, NULL);
}

// MuJoCo's mj_forward: the front half in GDN_PIPE_FORWARD mode
gdnStatus gdn_forward(const gdnModel* m, gdnData* d) {
    const gdnStatus checked = gdn_check_call(m, d);
    if (checked != GDN_OK) {
        return checked;
    }
    return gdn_pipeline_front(m, d, GDN_PIPE_FORWARD, NULL);
}

// MuJoCo's mj_inverse without constraints: qfrc_inverse = M qacc + C(q, v) - qfrc_passive, with
// the armature in M. Applied and actuator forces are what qfrc_inverse must equal, so they are
// not subtracted. Stages: check (qpos, qvel, qacc finite), kinematics, qM, qfrc_bias,
// qfrc_passive, then RNE with qacc.
gdnStatus gdn_inverse(const gdnModel* m, gdnData* d) {
    const gdnStatus checked = gdn_check_call(m, d);
    if (checked != GDN_OK) {
        return checked;
    }
    if (!gdn_all_finite(d->qpos, m->nq) || !gdn_all_finite(d->qvel, m->nv) ||
        !gdn_all_finite(d->qacc, m->nv)) {
        return GDN_ERR_NONFINITE;
    }
    gdn_kinematics_stage(m, d);
    gdn_com_pos(m, d);
    gdn_crb_com(m, d);
    gdn_rne_com(m, d, 0, d->qfrc_bias);
    gdn_passive_forces(m, d);
    gdn_rne_com(m, d, 1, d->qfrc_inverse);
    for (int i = 0; i < m->nv; i++) {
        d->qfrc_inverse[i] -= d->qfrc_passive[i];
    }
    return GDN_OK;
}
