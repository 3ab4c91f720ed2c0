// SPDX-License-Identifier: Apache-2.0
// The Kamino dual problem of one world (kamino.md 2.2): M^-1 J' blocks, the Delassus matrix
// D = J M^-1 J' and the free constraint velocity v_f with the Baumgarte biases (alpha joints,
// beta limits, gamma contacts with the dead zone) and the restitution target e (J u-)_n. With
// settings.curvature_bias (gradyn's extension) a bilateral row's target J u+ = -alpha r / h also
// takes -h / 2 c, c = d^2 r / dt^2 along the step's start twists (rows.c): the Euler step moves
// the poses at constant twist, r(h) = r + h J u+ + h^2 / 2 c(u+) + O(h^3), so its drift is
// h^2 / 2 (c(u+) - c(u)) = O(h^3) instead of h^2 / 2 c.
#include <math.h>
#include <string.h>

#include "kamino/kamino.h"
#include "math/vec.h"

void gdn_kamino_iinv_world(const gdnKaminoModel* km, const gdnKWorld* w, int b, double out[9]) {
    const double* R = w->rcom + 9 * b;
    const double* d = km->iinv + 3 * b;
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            out[3 * i + k] =
                R[3 * i] * d[0] * R[3 * k] + R[3 * i + 1] * d[1] * R[3 * k + 1] +
                R[3 * i + 2] * d[2] * R[3 * k + 2];
        }
    }
}

// r = M_b^-1 j (a twist-space 6-vector)
static void minv_mul(const gdnKaminoModel* km, const gdnKWorld* w, int b, const double j[6],
                     double r[6]) {
    gdn_scl3(r, j, km->minv[b]);
    gdn_mulmat3(r + 3, w->iinv + 9 * b, j + 3);
}

static double dot6(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// J_i u for twists u (nbody x 6)
static double row_vel(const gdnKRow* r, const double* u) {
    double v = 0;
    if (r->a >= 0) {
        v += dot6(r->ja, u + 6 * r->a);
    }
    if (r->b >= 0) {
        v += dot6(r->jb, u + 6 * r->b);
    }
    return v;
}

void gdn_kamino_minv_jt(const gdnKaminoModel* km, gdnKWorld* w, int n) {
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        double* mj = w->minvj + 12 * i;
        memset(mj, 0, 12 * sizeof(double));
        if (r->a >= 0) {
            minv_mul(km, w, r->a, r->ja, mj);
        }
        if (r->b >= 0) {
            minv_mul(km, w, r->b, r->jb, mj + 6);
        }
    }
}

void gdn_kamino_add_minv_jt(const gdnKWorld* w, int n, const double* x, double* restrict u) {
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        const double* restrict mj = w->minvj + 12 * i;
        const double xi = x[i];
        if (r->a >= 0) {
            double* restrict ua = u + 6 * r->a;
            for (int k = 0; k < 6; k++) {
                ua[k] += mj[k] * xi;
            }
        }
        if (r->b >= 0) {
            double* restrict ub = u + 6 * r->b;
            for (int k = 0; k < 6; k++) {
                ub[k] += mj[6 + k] * xi;
            }
        }
    }
}

// the rows touching each body (body_rowstart, body_rows: ascending, entries 2 row + side) and
// D's envelope: row i couples only with rows sharing one of its bodies, the first of which is
// that body's first row; remembered in env_key
static void body_lists_and_envelope(const gdnKaminoModel* km, gdnKWorld* w, int n) {
    const int nbody = km->nbody;
    int* start = w->body_rowstart;
    int* fill = w->body_rowfill;
    int* first = w->env.first;
    memset(start, 0, (size_t)(nbody + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        start[r->a + 1] += r->a >= 0;
        start[r->b + 1] += r->b >= 0;
    }
    for (int b = 0; b < nbody; b++) {
        start[b + 1] += start[b];
        fill[b] = start[b];
    }
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        if (r->a >= 0) {
            w->body_rows[fill[r->a]++] = 2 * i;
        }
        if (r->b >= 0) {
            w->body_rows[fill[r->b]++] = 2 * i + 1;
        }
    }
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        int f = i;
        if (r->a >= 0) {
            const int fa = w->body_rows[start[r->a]] / 2;
            f = fa < f ? fa : f;
        }
        if (r->b >= 0) {
            const int fb = w->body_rows[start[r->b]] / 2;
            f = fb < f ? fb : f;
        }
        first[i] = f;
    }
    gdn_chol_envelope_finish(&w->env, n);
    for (int i = 0; i < n; i++) {
        w->env_key[2 * i] = w->rows[i].a;
        w->env_key[2 * i + 1] = w->rows[i].b;
    }
    w->env_key_n = n;
}

void gdn_kamino_assemble(const gdnKaminoModel* km, gdnKWorld* w, int n, int nb, int nl, int nc,
                         double h) {
    const gdnKaminoSettings* s = &km->s;
    const int nbody = km->nbody;
    // M^-1 J' blocks of every row
    gdn_kamino_minv_jt(km, w, n);
    // the rows touching each body, ascending (a counting sort on the bodies), and the envelope;
    // both depend only on the bodies of the rows, so they are kept while those stay the same
    const int* start = w->body_rowstart;
    const int* first = w->env.first;
    int same = w->env_key_n == n;
    for (int i = 0; i < n && same; i++) {
        same = w->env_key[2 * i] == w->rows[i].a && w->env_key[2 * i + 1] == w->rows[i].b;
    }
    if (!same) {
        body_lists_and_envelope(km, w, n);
    }

    // D = J M^-1 J', lower triangle inside the envelope (from the start of its block of four,
    // as the factor reads it): zeros, then for each body the products of its rows' blocks,
    // D_ik += j_i,b . (M_b^-1 j_k,b) for k <= i (bodies in ascending order)
    for (int i = 0; i < n; i++) {
        double* Di = w->D + (size_t)i * (size_t)n;
        const int j0 = first[i] & ~3;
        memset(Di + j0, 0, (size_t)(i + 1 - j0) * sizeof(double));
    }
    for (int b = 0; b < nbody; b++) {
        for (int q = start[b]; q < start[b + 1]; q++) {
            const int eq = w->body_rows[q], i = eq / 2;
            const gdnKRow* ri = w->rows + i;
            const double* ji = (eq & 1) ? ri->jb : ri->ja;
            double* Di = w->D + (size_t)i * (size_t)n;
            for (int p = start[b]; p <= q; p++) {
                const int ep = w->body_rows[p], k = ep / 2;
                Di[k] += dot6(ji, w->minvj + 12 * k + 6 * (ep & 1));
            }
        }
    }
    // free constraint velocity with the biases and the restitution target
    double e = s->restitution;
    for (int i = 0; i < n; i++) {
        double v = row_vel(w->rows + i, w->uf);
        if (i < nb) {
            v += s->alpha / h * w->resid[i];
            if (s->curvature_bias) {
                v += 0.5 * h * w->curv[i];
            }
        } else if (i < nb + nl) {
            v += s->beta / h * fmin(0, w->resid[i]);
        } else if ((i - nb - nl) % 3 == 2) {
            double dist = w->resid[i];
            double phi = fmax(0, fabs(dist) - s->deadzone);
            phi = dist < 0 ? -phi : phi;
            double xi = phi / h;
            double bias = s->gamma * fmin(0, xi) + fmax(0, xi);
            if (e < 1) {
                v += bias;
            }
            v += e * row_vel(w->rows + i, w->u_prev);
        }
        w->vf[i] = v;
    }
    (void)nc;
}

void gdn_kamino_free_velocity(const gdnKaminoModel* km, gdnKWorld* w, const double* wrench,
                              double h) {
    const double* g = km->m->opt.gravity;
    int gravity = !(km->m->opt.disableflags & GDN_DSBL_GRAVITY);
    for (int b = 0; b < km->nbody; b++) {
        double* uf = w->uf + 6 * b;
        const double* u = w->pub.body_u + 6 * b;
        if (!km->moving[b]) {
            memset(uf, 0, 6 * sizeof(double));
            continue;
        }
        const double* f = wrench + 6 * b;
        // linear: v + h (g + f / m)
        for (int k = 0; k < 3; k++) {
            uf[k] = u[k] + h * ((gravity ? g[k] : 0) + f[k] * km->minv[b]);
        }
        // angular: w + h I^-1 (tau - w x I w), I = R diag R'
        const double* R = w->rcom + 9 * b;
        const double* I = km->m->body_inertia + 3 * b;
        double wl[3], Iw[3], Iwl[3], gyro[3], tau[3], dw[3];
        gdn_mulmat3T(wl, R, u + 3);
        for (int k = 0; k < 3; k++) {
            Iwl[k] = I[k] * wl[k];
        }
        gdn_mulmat3(Iw, R, Iwl);
        gdn_cross3(gyro, u + 3, Iw);
        gdn_sub3(tau, f + 3, gyro);
        gdn_mulmat3(dw, w->iinv + 9 * b, tau);
        gdn_addscl3(uf + 3, u + 3, dw, h);
    }
}
