// SPDX-License-Identifier: Apache-2.0
// Branch records of a rollout replayed with gdn_step, and their first difference in words.
#include "branch_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>

// append one int; 0 on success
static int push(cliBranchTrace* t, int value) {
    if (t->size == t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 1024;
        int* data = realloc(t->data, capacity * sizeof(int));
        if (!data) {
            return 1;
        }
        t->data = data;
        t->capacity = capacity;
    }
    t->data[t->size++] = value;
    return 0;
}


// the clamp region of x in [lo, hi] as the library's clip decides it: -1 below, 1 above
static int region(double x, double lo, double hi) {
    return x < lo ? -1 : (x > hi ? 1 : 0);
}


// the branch record of the step gdn_step just took in d; 0 on success
static int record_step(const gdnModel* m, const gdnData* d, cliBranchTrace* t) {
    int fail = push(t, d->ncon);
    for (int i = 0; i < d->ncon && !fail; i++) {
        fail = push(t, d->contact[i].geom1) || push(t, d->contact[i].geom2);
    }
    fail = fail || push(t, d->nefc);
    for (int i = 0; i < d->nefc && !fail; i++) {
        fail = push(t, d->efc_type[i]) || push(t, d->efc_id[i]) || push(t, d->efc_state[i]);
    }

    // penalty vertices with a force (the primal's active set)
    int nactive = 0;
    for (int v = 0; m->penalty.enabled && v < m->nvert; v++) {
        nactive += d->vert_force[3 * v + 2] > 0;
    }
    fail = fail || push(t, nactive);
    for (int v = 0; nactive && v < m->nvert && !fail; v++) {
        if (d->vert_force[3 * v + 2] > 0) {
            fail = push(t, v);
        }
    }

    // control clamps (from the control the step read) and force clamps (the clamped force
    // equals an end of forcerange exactly)
    const int clamp = !(m->opt.disableflags & GDN_DSBL_CLAMPCTRL);
    fail = fail || push(t, m->nu);
    for (int i = 0; i < m->nu && !fail; i++) {
        const double* cr = m->actuator_ctrlrange + 2 * i;
        const double* fr = m->actuator_forcerange + 2 * i;
        int c = clamp && m->actuator_ctrllimited[i] ? region(d->ctrl[i], cr[0], cr[1]) : 0;
        double f = d->actuator_force[i];
        int fc = m->actuator_forcelimited[i] ? (f == fr[0] ? -1 : (f == fr[1] ? 1 : 0)) : 0;
        fail = push(t, c) || push(t, fc);
    }
    return fail;
}


int cli_trace_run(const gdnModel* m, const gdnRollout* r, cliBranchTrace* trace, char* err,
                  int err_size) {
    const long T = r->nstep;
    trace->size = 0;
    trace->nstep = 0;
    free(trace->step_start);
    free(trace->final_state);
    trace->step_start = malloc(sizeof(size_t) * ((size_t)T + 1));
    trace->final_state = malloc(sizeof(double) * ((size_t)m->nq + (size_t)m->nv) + 1);
    gdnData* d = NULL;
    if (!trace->step_start || !trace->final_state || gdn_data_create(m, &d) != GDN_OK) {
        snprintf(err, (size_t)err_size, "branch trace: out of memory");
        return 1;
    }

    // the rollout's start: a fresh data, x_0 (quaternions normalized), its applied forces
    memcpy(d->qpos, r->qpos0, sizeof(double) * (size_t)m->nq);
    gdn_normalize_quat(m, d->qpos);
    memcpy(d->qvel, r->qvel0, sizeof(double) * (size_t)m->nv);
    if (r->qfrc_applied) {
        memcpy(d->qfrc_applied, r->qfrc_applied, sizeof(double) * (size_t)m->nv);
    }
    if (r->xfrc_applied) {
        memcpy(d->xfrc_applied, r->xfrc_applied, sizeof(double) * 6 * (size_t)m->nbody);
    }
    d->time = 0;

    int fail = 0;
    for (long t = 0; t < T && !fail; t++) {
        if (m->nu > 0) {
            memcpy(d->ctrl, r->ctrl + (size_t)t * (size_t)m->nu, sizeof(double) * (size_t)m->nu);
        }
        gdnStatus st = gdn_step(m, d);
        if (st != GDN_OK) {
            snprintf(err, (size_t)err_size, "branch trace: step %ld failed (%s)", t,
                     gdn_status_string(st));
            fail = 1;
            break;
        }
        trace->step_start[t] = trace->size;
        if (record_step(m, d, trace) != 0) {
            snprintf(err, (size_t)err_size, "branch trace: out of memory");
            fail = 1;
        }
        trace->nstep = t + 1;
    }
    trace->step_start[trace->nstep] = trace->size;
    memcpy(trace->final_state, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(trace->final_state + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    gdn_data_free(d);
    return fail;
}


static const char* row_type_name(int type) {
    static const char* const names[] = {"equality",     "friction loss", "tendon friction",
                                        "joint limit",  "tendon limit",  "frictionless contact",
                                        "contact",      "elliptic contact"};
    return type >= 0 && type < 8 ? names[type] : "row";
}


static const char* row_state_name(int state) {
    static const char* const names[] = {"satisfied", "quadratic", "linear (negative)",
                                        "linear (positive)", "cone"};
    return state >= 0 && state < 5 ? names[state] : "unknown";
}


static const char* clamp_name(int c, const char* range) {
    static char buf[2][64];
    static int next = 0;
    char* out = buf[next++ & 1];
    snprintf(out, sizeof(buf[0]), "%s %s", c < 0 ? "below" : c > 0 ? "above" : "inside", range);
    return out;
}


// a geom's name, or its id when it has none
static const char* geom_label(const gdnModel* m, int g, char* buf, size_t size) {
    const char* name = gdn_id2name(m, "geom", g);
    if (name && name[0]) {
        snprintf(buf, size, "'%s'", name);
    } else {
        snprintf(buf, size, "%d", g);
    }
    return buf;
}


// the body a penalty vertex belongs to
static int vertex_body(const gdnModel* m, int v) {
    for (int b = 1; b < m->nbody; b++) {
        if (v >= m->body_vertadr[b] && v < m->body_vertadr[b] + m->body_vertnum[b]) {
            return b;
        }
    }
    return 0;
}


// describe the first difference of one step's records x (a) and y (b); 1 when they differ
static int diff_step(const gdnModel* m, const int* x, const int* y, char* what, int size) {
    char g1[96], g2[96], g3[96], g4[96];
    // contacts
    if (x[0] != y[0]) {
        snprintf(what, (size_t)size, "contact set: ncon %d -> %d", x[0], y[0]);
        return 1;
    }
    for (int i = 0; i < x[0]; i++) {
        const int* p = x + 1 + 2 * i;
        const int* q = y + 1 + 2 * i;
        if (p[0] != q[0] || p[1] != q[1]) {
            snprintf(what, (size_t)size, "contact set: contact %d geoms %s/%s -> %s/%s", i,
                     geom_label(m, p[0], g1, sizeof(g1)), geom_label(m, p[1], g2, sizeof(g2)),
                     geom_label(m, q[0], g3, sizeof(g3)), geom_label(m, q[1], g4, sizeof(g4)));
            return 1;
        }
    }
    x += 1 + 2 * x[0];
    y += 1 + 2 * y[0];

    // rows
    if (x[0] != y[0]) {
        snprintf(what, (size_t)size, "constraint rows: nefc %d -> %d", x[0], y[0]);
        return 1;
    }
    for (int i = 0; i < x[0]; i++) {
        const int* p = x + 1 + 3 * i;
        const int* q = y + 1 + 3 * i;
        if (p[0] != q[0] || p[1] != q[1]) {
            snprintf(what, (size_t)size, "row %d: %s %d -> %s %d", i, row_type_name(p[0]), p[1],
                     row_type_name(q[0]), q[1]);
            return 1;
        }
        if (p[2] != q[2]) {
            snprintf(what, (size_t)size, "row %d (%s, id %d): state %s -> %s", i,
                     row_type_name(p[0]), p[1], row_state_name(p[2]), row_state_name(q[2]));
            return 1;
        }
    }
    x += 1 + 3 * x[0];
    y += 1 + 3 * y[0];

    // penalty vertices: the first vertex in one set and not the other
    if (x[0] != y[0] || (x[0] > 0 && memcmp(x + 1, y + 1, sizeof(int) * (size_t)x[0]) != 0)) {
        int i = 0, j = 0, v = -1, enters = 0;
        while (v < 0 && (i < x[0] || j < y[0])) {
            if (j >= y[0] || (i < x[0] && x[1 + i] < y[1 + j])) {
                v = x[1 + i];
                enters = 0;
            } else if (i >= x[0] || y[1 + j] < x[1 + i]) {
                v = y[1 + j];
                enters = 1;
            } else {
                i++;
                j++;
            }
        }
        int b = vertex_body(m, v);
        const char* body = gdn_id2name(m, "body", b);
        snprintf(what, (size_t)size, "penalty vertex %d (body '%s'): %s (%d -> %d vertices in "
                 "contact)", v, body ? body : "", enters ? "free -> in contact"
                                                         : "in contact -> free", x[0], y[0]);
        return 1;
    }
    x += 1 + x[0];
    y += 1 + y[0];

    // clamps
    for (int i = 0; i < x[0]; i++) {
        const int* p = x + 1 + 2 * i;
        const int* q = y + 1 + 2 * i;
        if (p[0] != q[0]) {
            snprintf(what, (size_t)size, "ctrl[%d]: %s -> %s", i, clamp_name(p[0], "ctrlrange"),
                     clamp_name(q[0], "ctrlrange"));
            return 1;
        }
        if (p[1] != q[1]) {
            snprintf(what, (size_t)size, "actuator %d force: %s -> %s", i,
                     p[1] ? (p[1] < 0 ? "clamped at forcerange's low end"
                                      : "clamped at forcerange's high end")
                          : "inside forcerange",
                     q[1] ? (q[1] < 0 ? "clamped at forcerange's low end"
                                      : "clamped at forcerange's high end")
                          : "inside forcerange");
            return 1;
        }
    }
    return 0;
}


int cli_trace_diff(const gdnModel* m, const cliBranchTrace* a, const cliBranchTrace* b,
                   long* step, char* what, int what_size) {
    long n = a->nstep < b->nstep ? a->nstep : b->nstep;
    for (long t = 0; t < n; t++) {
        const int* x = a->data + a->step_start[t];
        const int* y = b->data + b->step_start[t];
        size_t nx = a->step_start[t + 1] - a->step_start[t];
        size_t ny = b->step_start[t + 1] - b->step_start[t];
        if (nx == ny && memcmp(x, y, sizeof(int) * nx) == 0) {
            continue;
        }
        *step = t;
        if (!diff_step(m, x, y, what, what_size)) {
            snprintf(what, (size_t)what_size, "the branch record differs");
        }
        return 1;
    }
    if (a->nstep != b->nstep) {
        *step = n;
        snprintf(what, (size_t)what_size, "one rollout stopped at step %ld", n);
        return 1;
    }
    return 0;
}


void cli_trace_free(cliBranchTrace* trace) {
    free(trace->data);
    free(trace->step_start);
    free(trace->final_state);
    memset(trace, 0, sizeof(*trace));
}
