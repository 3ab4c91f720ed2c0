// SPDX-License-Identifier: Apache-2.0
// Rollout FD harness: a random rollout problem, its adjoint, and Richardson central FD per entry.
#include "runner/rollout_fd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/test.h"

// ---------------------------------------------------------------- objective

// g = sum_i (a_i q_i + b_i q_i^2) + sum_i c_i v_i^2
gdnStatus gdn_fd_terminal_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                               double* gq, double* gv, double* gu) {
    (void)t, (void)user, (void)gu;
    double g = 0;
    for (int i = 0; i < m->nq; i++) {
        double a = 1 - 0.07 * (i % 11), b = 0.3 + 0.05 * (i % 5);
        g += a * s->qpos[i] + b * s->qpos[i] * s->qpos[i];
        if (gq) {
            gq[i] = a + 2 * b * s->qpos[i];
        }
    }
    for (int i = 0; i < m->nv; i++) {
        double c = 0.2 + 0.01 * (i % 7);
        g += c * s->qvel[i] * s->qvel[i];
        if (gv) {
            gv[i] = 2 * c * s->qvel[i];
        }
    }
    *value = g;
    return GDN_OK;
}

// l = w (sum_i a_i q_i^2 + sum_i b_i v_i + 0.2 sum_k u_k^2)
gdnStatus gdn_fd_running_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu) {
    (void)t, (void)user;
    const double w = 0.01; // per step
    double l = 0;
    for (int i = 0; i < m->nq; i++) {
        double a = w * (0.1 + 0.01 * (i % 9));
        l += a * s->qpos[i] * s->qpos[i];
        if (gq) {
            gq[i] = 2 * a * s->qpos[i];
        }
    }
    for (int i = 0; i < m->nv; i++) {
        double b = w * (0.05 - 0.003 * (i % 13));
        l += b * s->qvel[i];
        if (gv) {
            gv[i] = b;
        }
    }
    for (int k = 0; k < m->nu; k++) {
        l += w * 0.2 * s->ctrl[k] * s->ctrl[k];
        if (gu) {
            gu[k] = w * 0.4 * s->ctrl[k];
        }
    }
    *value = l;
    return GDN_OK;
}

// ---------------------------------------------------------------- the problem

// buffers, the random state and controls, the rollout, the objective and the tape
int gdn_fd_problem_init(gdnFdProblem* p, const char* name, gdnModel* m, int T,
                        unsigned long long seed, const double* q_base, double qamp,
                        const double* v_base, double vamp, double uamp) {
    memset(p, 0, sizeof(*p));
    p->name = name;
    p->m = m;
    p->T = T;
    p->h = 1e-5;
    p->hpi = 1e-5;
    p->pi_mask = 0x3ff;
    p->name_width = 22;
    p->label_width = 3;
    p->count_width = 4;
    const int nq = m->nq, nv = m->nv, nu = m->nu, nb = m->nbody, nvert = m->nvert;
    p->q0 = calloc((size_t)nq, sizeof(double));
    p->v0 = calloc((size_t)nv, sizeof(double));
    p->u = calloc((size_t)(T * nu + 1), sizeof(double));
    p->xfrc = calloc((size_t)(6 * nb), sizeof(double));
    p->g.qpos0 = calloc((size_t)nv, sizeof(double));
    p->g.qvel0 = calloc((size_t)nv, sizeof(double));
    p->g.ctrl = calloc((size_t)(T * nu + 1), sizeof(double));
    p->g.param = calloc((size_t)(GDN_N_INERTIA_PARAMS * nb), sizeof(double));
    p->g.vert = calloc((size_t)(3 * nvert + 1), sizeof(double));
    p->nefc = calloc((size_t)T, sizeof(int));
    p->ncon = calloc((size_t)T, sizeof(int));
    p->off = calloc((size_t)T + 1, sizeof(int));
    double* e = calloc((size_t)nv, sizeof(double));
    if (!p->q0 || !p->v0 || !p->u || !p->xfrc || !p->g.qpos0 || !p->g.qvel0 || !p->g.ctrl ||
        !p->g.param || !p->g.vert || !p->nefc || !p->ncon || !p->off || !e) {
        free(e);
        return 0;
    }
    unsigned long long rng = seed;
    memcpy(p->q0, q_base ? q_base : m->qpos0, sizeof(double) * (size_t)nq);
    for (int i = 0; i < nv; i++) {
        e[i] = gdn_test_uniform(&rng, -qamp, qamp);
        p->v0[i] = (v_base ? v_base[i] : 0) + gdn_test_uniform(&rng, -vamp, vamp);
    }
    gdn_integrate_pos(m, p->q0, e, 1.0);
    free(e);
    for (int i = 0; i < T * nu; i++) {
        p->u[i] = gdn_test_uniform(&rng, -uamp, uamp);
    }
    gdn_rollout_init(m, T, &p->r);
    p->r.qpos0 = p->q0;
    p->r.qvel0 = p->v0;
    p->r.ctrl = p->u;
    p->obj.terminal = (gdnCost){gdn_fd_terminal_cost, NULL, 0};
    p->obj.running = (gdnCost){gdn_fd_running_cost, NULL, 0};
    char err[256];
    if (gdn_tape_create(m, T, 1, &p->tape, err, sizeof(err)) != GDN_OK) {
        fprintf(stderr, "%s\n", err);
        return 0;
    }
    return 1;
}

void gdn_fd_problem_free(gdnFdProblem* p) {
    free(p->q0);
    free(p->v0);
    free(p->u);
    free(p->xfrc);
    free(p->g.qpos0);
    free(p->g.qvel0);
    free(p->g.ctrl);
    free(p->g.param);
    free(p->g.vert);
    free(p->nefc);
    free(p->ncon);
    free(p->off);
    free(p->type);
    free(p->state);
    gdn_tape_free(p->tape);
    gdn_model_free(p->m);
}

// ---------------------------------------------------------------- the branch check

// each step's contact count, rows and states of the recorded rollout
static void dump_rows(const gdnFdProblem* p) {
    for (int t = 0; t < p->T; t++) {
        double q[64], v[64];
        gdn_tape_state(p->tape, t, q, v);
        printf("    t %3d ncon %d nefc %2d q %+.5f %+.5f %+.5f v %+.4f %+.4f %+.4f states ", t,
               p->ncon[t], p->nefc[t], q[0], q[1], q[2], v[0], v[1], v[2]);
        for (int i = 0; i < p->nefc[t]; i++) {
            printf("%d", p->state[p->off[t] + i]);
        }
        printf("\n");
    }
}

// the rows of every step of the last rollout, from the tape's step records
int gdn_fd_record_rows(gdnFdProblem* p) {
    int total = 0;
    for (int t = 0; t < p->T; t++) {
        gdnTapeStep rec;
        CHECK(gdn_tape_step(p->tape, t, &rec) == GDN_OK);
        p->nefc[t] = rec.nefc;
        p->ncon[t] = rec.ncon;
        p->off[t] = total;
        total += rec.nefc;
    }
    p->off[p->T] = total;
    free(p->type);
    free(p->state);
    p->type = calloc((size_t)total + 1, sizeof(int));
    p->state = calloc((size_t)total + 1, sizeof(int));
    CHECK(p->type && p->state);
    for (int t = 0; t < p->T; t++) {
        gdnTapeStep rec;
        CHECK(gdn_tape_step(p->tape, t, &rec) == GDN_OK);
        for (int i = 0; i < rec.nefc; i++) {
            p->type[p->off[t] + i] = rec.efc_type[i];
            p->state[p->off[t] + i] = rec.efc_state[i];
        }
    }
    p->recorded = 1;
    if (getenv("GDN_TEST_DUMP")) {
        dump_rows(p);
    }
    return 0;
}

// compare count, contact count, types and states step by step
int gdn_fd_branch_change(const gdnFdProblem* p) {
    for (int t = 0; t < p->T; t++) {
        gdnTapeStep rec;
        if (gdn_tape_step(p->tape, t, &rec) != GDN_OK) {
            return t;
        }
        if (rec.nefc != p->nefc[t] || rec.ncon != p->ncon[t]) {
            if (getenv("GDN_TEST_VERBOSE")) {
                fprintf(stderr, "  branch: step %d ncon %d nefc %d (nominal %d %d)\n", t,
                        rec.ncon, rec.nefc, p->ncon[t], p->nefc[t]);
            }
            return t;
        }
        for (int i = 0; i < rec.nefc; i++) {
            if (rec.efc_type[i] != p->type[p->off[t] + i] ||
                rec.efc_state[i] != p->state[p->off[t] + i]) {
                if (getenv("GDN_TEST_VERBOSE")) {
                    fprintf(stderr, "  branch: step %d row %d type %d state %d (nominal %d), "
                            "force %.3g\n", t, i, rec.efc_type[i], rec.efc_state[i],
                            p->state[p->off[t] + i], rec.efc_force[i]);
                }
                return t;
            }
        }
    }
    return -1;
}

// ---------------------------------------------------------------- objective and adjoint

// the rollout's J; once the rows are recorded, a rollout on another branch is counted
double gdn_fd_objective(gdnFdProblem* p) {
    double J;
    char err[256];
    gdnStatus st = gdn_rollout_objective(p->m, &p->r, &p->obj, p->tape, &J, err, sizeof(err));
    if (st != GDN_OK) {
        fprintf(stderr, "%s: rollout failed: %s\n", p->name, err);
        return NAN;
    }
    if (p->recorded) {
        int t = gdn_fd_branch_change(p);
        if (t >= 0) {
            if (p->branch_fails++ == 0) {
                p->first_t = t;
            }
        }
    }
    return J;
}

// the adjoint of every channel p->g asks for
int gdn_fd_gradient(gdnFdProblem* p) {
    char err[512];
    gdnStatus st =
        gdn_adjoint_rollout_gradient(p->m, &p->r, &p->obj, p->tape, &p->g, err, sizeof(err));
    if (st != GDN_OK) {
        fprintf(stderr, "%s: gradient failed (%s): %s\n", p->name, gdn_status_string(st), err);
        return 0;
    }
    return 1;
}

// the adjoint's J against a fresh rollout's, bit for bit
int gdn_fd_gradient_checked(gdnFdProblem* p) {
    CHECK(gdn_fd_gradient(p));
    CHECK(isfinite(p->g.J));
    double J = gdn_fd_objective(p);
    CHECK(memcmp(&J, &p->g.J, sizeof(double)) == 0);
    return 0;
}

// ---------------------------------------------------------------- finite differences

// FD step of inertia parameter k (canonical packing [m, c (3), I (6)]): hpi m_b for the mass,
// hpi (m) for the COM, hpi max(1, trace(I_b) / 3) for the inertia entries (a step relative to
// a small body's 1e-4 kg m^2 would leave the rollout's round-off dominant)
static double param_step(const gdnFdProblem* p, const gdnInertia* in, int k) {
    if (k == 0) {
        return p->hpi * in->mass;
    }
    if (k >= 4) {
        return p->hpi * fmax(1, (in->inertia[0] + in->inertia[4] + in->inertia[8]) / 3);
    }
    return p->hpi;
}

// J at +-h, +-h/2 along the entry (q0 through gdn_integrate_pos, the inertia through
// gdn_model_set_body_inertia), then the nominal inputs back
double gdn_fd_entry(gdnFdProblem* p, gdnFdChannel ch, int i) {
    gdnModel* m = p->m;
    double q0[128], e[128] = {0};
    if (m->nq > 128 || m->nv > 128) {
        return NAN;
    }
    memcpy(q0, p->q0, sizeof(double) * (size_t)m->nq);
    double* x = ch == GDN_FD_V0     ? p->v0 + i
                : ch == GDN_FD_U    ? p->u + i
                : ch == GDN_FD_VERT ? m->vert_pos + i
                                    : NULL;
    double x0 = x ? *x : 0;
    if (ch == GDN_FD_Q0) {
        e[i] = 1;
    }
    const int b = i / GDN_N_INERTIA_PARAMS, k = i % GDN_N_INERTIA_PARAMS;
    gdnInertia in0;
    double prm0[GDN_N_INERTIA_PARAMS];
    double base = p->h;
    if (ch == GDN_FD_PARAM) {
        gdn_body_inertia(m, b, &in0);
        gdn_inertia_params(&in0, prm0);
        base = param_step(p, &in0, k);
    }
    double D[2];
    for (int level = 0; level < 2; level++) {
        double h = level ? base / 2 : base, jpm[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            double hs = sgn ? -h : h;
            if (ch == GDN_FD_Q0) {
                memcpy(p->q0, q0, sizeof(double) * (size_t)m->nq);
                gdn_integrate_pos(m, p->q0, e, hs);
            } else if (ch == GDN_FD_PARAM) {
                double prm[GDN_N_INERTIA_PARAMS];
                gdnInertia in;
                memcpy(prm, prm0, sizeof(prm));
                prm[k] += hs;
                gdn_inertia_from_params(prm, &in);
                if (gdn_model_set_body_inertia(m, b, &in) != GDN_OK) {
                    return NAN;
                }
            } else {
                *x = x0 + hs;
            }
            jpm[sgn] = gdn_fd_objective(p);
        }
        D[level] = (jpm[0] - jpm[1]) / (2 * h);
    }
    memcpy(p->q0, q0, sizeof(double) * (size_t)m->nq);
    if (ch == GDN_FD_Q0 && p->q0_renormalize) {
        gdn_integrate_pos(m, p->q0, e, 0);
    }
    if (x) {
        *x = x0;
    }
    if (ch == GDN_FD_PARAM) {
        gdn_model_set_body_inertia(m, b, &in0);
    }
    return (4 * D[1] - D[0]) / 3;
}

// FD of every listed entry, the relative error against the adjoint's and the printed line
double gdn_fd_block(gdnFdProblem* p, gdnFdChannel ch, const char* label, const double* adj,
                    const int* idx, int count, double floor_, double tol) {
    double* a = calloc((size_t)count + 1, sizeof(double));
    double* f = calloc((size_t)count + 1, sizeof(double));
    if (!a || !f) {
        free(a);
        free(f);
        return NAN;
    }
    for (int k = 0; k < count; k++) {
        a[k] = adj[idx[k]];
        f[k] = gdn_fd_entry(p, ch, idx[k]);
    }
    double err = gdn_test_relerr(a, f, count, floor_), scale = 0;
    for (int k = 0; k < count; k++) {
        scale = fmax(scale, fabs(f[k]));
    }
    printf("  %-*s %-*s %*d entries  |fd|max %.3e  rel err %.2e\n", p->name_width, p->name,
           p->label_width, label, p->count_width, count, scale, err);
    fflush(stdout);
    if (!(err <= tol) || getenv("GDN_TEST_VERBOSE")) {
        gdn_test_print_worst(a, f, count);
    }
    free(a);
    free(f);
    return err;
}
