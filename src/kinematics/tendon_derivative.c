// SPDX-License-Identifier: Apache-2.0
// A tendon's Jacobian row and its q-derivative (see tendon_derivative.h).
#include "kinematics/tendon_derivative.h"

#include <string.h>

#include "base/arena.h"
#include "kinematics/jacobian.h"
#include "kinematics/jacobian_derivative.h"
#include "kinematics/tendon.h"
#include "math/spatial.h"
#include "math/vec.h"

// p = xpos_b + xmat_b site_pos: a site's world position from its body's frame
static void site_point(const gdnModel* m, const gdnData* d, int site, double p[3]) {
    const int b = m->site_bodyid[site];
    gdn_mulmat3(p, d->xmat + 9 * b, m->site_pos + 3 * site);
    gdn_add3(p, p, d->xpos + 3 * b);
}

// c = S_ang x p + S_lin
static void axis_at(const double S[6], const double p[3], double c[3]) {
    gdn_cross3(c, S, p);
    gdn_add3(c, c, S + 3);
}

// xi (6 nbody) and dS (6 nv) under the unit position tangent e_c: the bodies after dof c move
// by S_c (the sweep of gdn_body_tangent_jvp_range with dq = e_c), each dof's axis by
// gdn_axis_motion of the frame before its group and of its body
static void unit_tangent(const gdnModel* m, const gdnData* d, const double* S, int c, double* xi,
                         double* dS) {
    memset(xi, 0, 6 * sizeof(double));
    for (int b = 1; b < m->nbody; b++) {
        const int par = m->body_parentid[b];
        const int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        double* x = xi + 6 * b;
        memcpy(x, xi + 6 * par, 6 * sizeof(double));
        if (c >= dof0 && c < dof0 + ndof) {
            gdn_add6(x, x, S + 6 * c);
        }
        double xpre[6];
        memcpy(xpre, xi + 6 * par, 6 * sizeof(double));
        for (int k = 0; k < ndof;) {
            const int n = gdn_dof_group_size(m, dof0 + k);
            for (int t = k; t < k + n; t++) {
                gdn_axis_motion(m, d, dof0 + t, S + 6 * (dof0 + t), xpre, x, dS + 6 * (dof0 + t));
            }
            for (int t = k; t < k + n; t++) {
                if (dof0 + t == c) {
                    gdn_add6(xpre, xpre, S + 6 * c);
                }
            }
            k += n;
        }
    }
}

// one segment's share of J (dir = sign u / div on body b's chain at point p)
static void segment_row(const gdnModel* m, const double* S, int b, const double p[3],
                        const double dir[3], double* J) {
    for (int k = gdn_jac_last_dof(m, b); k >= 0; k = m->dof_parentid[k]) {
        double ck[3];
        axis_at(S + 6 * k, p, ck);
        J[k] += gdn_dot3(dir, ck);
    }
}

int gdn_tendon_linear(const gdnModel* m, const gdnData* d, const double* S, int t, double* L,
                      double* V, double* J, double* DJ, double* scratch) {
    const int nv = m->nv, adr = m->tendon_adr[t], num = m->tendon_num[t];
    memset(J, 0, sizeof(double) * (size_t)nv);
    if (DJ) {
        memset(DJ, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    }
    if (num == 0 || m->wrap_type[adr] == GDN_WRAP_JOINT) {
        for (int k = adr; k < adr + num; k++) {
            J[m->jnt_dofadr[m->wrap_objid[k]]] = m->wrap_prm[k];
        }
        gdn_tendon_fixed_value(m, t, d->qpos, d->qvel, L, V);
        return 0;
    }
    for (int k = adr; k < adr + num; k++) {
        if (m->wrap_type[k] == GDN_WRAP_SPHERE || m->wrap_type[k] == GDN_WRAP_CYLINDER) {
            return -1;
        }
    }
    double* xi = scratch;
    double* dS = scratch + 6 * (size_t)m->nbody;
    double divisor = 1, length = 0;
    for (int pass = 0; pass < 2; pass++) {
        // pass 0: L and J; pass 1: DJ, column by column
        for (int c = 0; c < (pass ? nv : 1); c++) {
            if (pass) {
                if (!DJ) {
                    break;
                }
                unit_tangent(m, d, S, c, xi, dS);
            }
            divisor = 1;
            for (int j = 0; j < num - 1;) {
                const int tp0 = m->wrap_type[adr + j], tp1 = m->wrap_type[adr + j + 1];
                if (tp0 == GDN_WRAP_PULLEY || tp1 == GDN_WRAP_PULLEY) {
                    if (tp0 == GDN_WRAP_PULLEY) {
                        divisor = m->wrap_prm[adr + j];
                    }
                    j++;
                    continue;
                }
                const int s0 = m->wrap_objid[adr + j], s1 = m->wrap_objid[adr + j + 1];
                const int b[2] = {m->site_bodyid[s0], m->site_bodyid[s1]};
                double p[2][3], u[3];
                site_point(m, d, s0, p[0]);
                site_point(m, d, s1, p[1]);
                gdn_sub3(u, p[1], p[0]);
                const double l = gdn_normalize3(u);
                j++;
                if (!pass) {
                    length += l / divisor;
                }
                if (b[0] == b[1]) {
                    continue;
                }
                if (!pass) {
                    for (int s = 0; s < 2; s++) {
                        double dir[3];
                        gdn_scl3(dir, u, (s ? 1 : -1) / divisor);
                        segment_row(m, S, b[s], p[s], dir, J);
                    }
                    continue;
                }
                // the ends' motion, the direction's (0 at a degenerate segment, whose direction
                // the primal fixes)
                double dp[2][3], dd[3], du[3] = {0, 0, 0};
                for (int s = 0; s < 2; s++) {
                    const double* x = xi + 6 * b[s];
                    gdn_cross3(dp[s], x, p[s]);
                    gdn_add3(dp[s], dp[s], x + 3);
                }
                gdn_sub3(dd, dp[1], dp[0]);
                if (l >= GDN_MINVAL) {
                    gdn_addscl3(du, dd, u, -gdn_dot3(u, dd));
                    gdn_scl3(du, du, 1 / l);
                }
                for (int s = 0; s < 2; s++) {
                    const double sg = (s ? 1 : -1) / divisor;
                    for (int k = gdn_jac_last_dof(m, b[s]); k >= 0; k = m->dof_parentid[k]) {
                        const double* Sk = S + 6 * k;
                        const double* dSk = dS + 6 * k;
                        double ck[3], dck[3], t1[3];
                        axis_at(Sk, p[s], ck);
                        axis_at(dSk, p[s], dck);
                        gdn_cross3(t1, Sk, dp[s]);
                        gdn_add3(dck, dck, t1);
                        DJ[(size_t)k * (size_t)nv + (size_t)c] +=
                            sg * (gdn_dot3(du, ck) + gdn_dot3(u, dck));
                    }
                }
            }
        }
    }
    *L = length;
    double v = 0;
    for (int k = 0; k < nv; k++) {
        v += J[k] * d->qvel[k];
    }
    *V = v;
    return 1;
}

void gdn_tendon_dj_mul(int nv, const double* DJ, const double* x, double* out) {
    for (int r = 0; r < nv; r++) {
        double s = 0;
        for (int c = 0; c < nv; c++) {
            s += DJ[(size_t)r * (size_t)nv + (size_t)c] * x[c];
        }
        out[r] = s;
    }
}

void gdn_tendon_dj_mul_t(int nv, const double* DJ, const double* x, double* out) {
    for (int c = 0; c < nv; c++) {
        out[c] = 0;
    }
    for (int r = 0; r < nv; r++) {
        const double xr = x[r];
        for (int c = 0; xr != 0 && c < nv; c++) {
            out[c] += DJ[(size_t)r * (size_t)nv + (size_t)c] * xr;
        }
    }
}

int gdn_tendon_wrapping(const gdnModel* m) {
    for (int k = 0; k < m->nwrap; k++) {
        if (m->wrap_type[k] == GDN_WRAP_SPHERE || m->wrap_type[k] == GDN_WRAP_CYLINDER) {
            for (int t = 0; t < m->ntendon; t++) {
                if (k >= m->tendon_adr[t] && k < m->tendon_adr[t] + m->tendon_num[t]) {
                    return t;
                }
            }
        }
    }
    return -1;
}

int gdn_tendon_is_spatial(const gdnModel* m, int t) {
    return m->tendon_num[t] > 0 && m->wrap_type[m->tendon_adr[t]] != GDN_WRAP_JOINT;
}

gdnStatus gdn_tendon_work_alloc(const gdnModel* m, gdnData* d, gdnTendonWork* w) {
    const size_t n = (size_t)m->nv;
    w->S = gdn_arena_doubles(d, 6 * n + 6 * ((size_t)m->nbody + n) + 2 * n + n * n + 1);
    if (!w->S) {
        return GDN_ERR_MEMORY;
    }
    w->scratch = w->S + 6 * n;
    w->J = w->scratch + 6 * ((size_t)m->nbody + n);
    w->w = w->J + n;
    w->DJ = w->w + n;
    gdn_dof_axes_about(m, d, 0, w->S);
    return GDN_OK;
}
