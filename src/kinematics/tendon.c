// SPDX-License-Identifier: Apache-2.0
// Tendon lengths, velocities and Jacobians (MuJoCo 2.2.2's mj_tendon and ten_velocity).
#include "kinematics/tendon.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "kinematics/tendon_wrap.h"
#include "math/cholesky.h"
#include "math/vec.h"

// L = sum_k coef_k q_k,  Ldot = sum_k coef_k qdot_k  (path order)
void gdn_tendon_fixed_value(const gdnModel* m, int t, const double* qpos, const double* qvel,
                            double* length, double* velocity) {
    const int adr = m->tendon_adr[t], num = m->tendon_num[t];
    double L = 0, V = 0;
    for (int k = adr; k < adr + num; k++) {
        const int j = m->wrap_objid[k];
        const double coef = m->wrap_prm[k];
        if (qpos) {
            L += coef * qpos[m->jnt_qposadr[j]];
        }
        if (qvel) {
            V += coef * qvel[m->jnt_dofadr[j]];
        }
    }
    if (length) {
        *length = L;
    }
    if (velocity) {
        *velocity = V;
    }
}

int gdn_tendon_all_fixed(const gdnModel* m) {
    for (int t = 0; t < m->ntendon; t++) {
        if (m->tendon_num[t] > 0 && m->wrap_type[m->tendon_adr[t]] != GDN_WRAP_JOINT) {
            return 0;
        }
    }
    return 1;
}

// One straight segment of a spatial tendon from p0 (on body b0) to p1 (on b1), after a pulley
// of divisor div: L += |p1 - p0| / div and, when the bodies differ, with u = (p1 - p0) / |.|,
// J += (jac(p1, b1) - jac(p0, b0))' u / div (MuJoCo 2.2.2's order: jacdif' u summed over the
// three rows, the rows with u_r = 0 skipped, then scaled by 1 / div); jac1, jac2: 3 nv scratch
static void segment_jac(const gdnModel* m, const gdnData* d, const double p0[3], int b0,
                        const double p1[3], int b1, double div, double* J, double* jac1,
                        double* jac2) {
    const int nv = m->nv;
    double dif[3];
    if (b0 == b1) {
        return;
    }
    gdn_sub3(dif, p1, p0);
    gdn_normalize3(dif);
    gdn_jac(m, d, jac1, NULL, p0, b0);
    gdn_jac(m, d, jac2, NULL, p1, b1);
    const double scl = 1 / div;
    for (int k = 0; k < nv; k++) {
        double tmp = 0;
        for (int r = 0; r < 3; r++) {
            if (dif[r] != 0) {
                tmp += (jac2[r * nv + k] - jac1[r * nv + k]) * dif[r];
            }
        }
        J[k] += tmp * scl;
    }
}

// a spatial tendon's path (MuJoCo 2.2.2's mj_tendon): consecutive sites joined by straight
// segments, or, with a sphere or cylinder geom between two sites, by the wrap around it when
// the straight segment would cross it (two tangent lines and the arc, gdn_tendon_wrap; the arc
// adds length, its ends on the geom's body); a pulley sets the divisor of the segments after
// it and starts a new branch; wrap_obj / wrap_xpos record the path points (-1 a site, -2 a
// pulley at the origin, the geom id for the tangent points)
static void spatial(const gdnModel* m, gdnData* d, int t, int* wcnt, double* jac1,
                    double* jac2) {
    const int adr = m->tendon_adr[t], num = m->tendon_num[t];
    double* J = d->ten_J + (size_t)t * (size_t)m->nv;
    double divisor = 1;
    d->ten_length[t] = 0;
    for (int j = 0; j < num - 1;) {
        const int tp0 = m->wrap_type[adr + j], tp1 = m->wrap_type[adr + j + 1];
        if (tp0 == GDN_WRAP_PULLEY || tp1 == GDN_WRAP_PULLEY) {
            if (tp0 == GDN_WRAP_PULLEY) {
                divisor = m->wrap_prm[adr + j];
                gdn_zero3(d->wrap_xpos + 3 * *wcnt);
                d->wrap_obj[*wcnt] = -2;
                d->ten_wrapnum[t]++;
                (*wcnt)++;
            }
            j++;
            continue;
        }
        const int s0 = m->wrap_objid[adr + j];
        const int geom = tp1 == GDN_WRAP_SPHERE || tp1 == GDN_WRAP_CYLINDER;
        const int s1 = m->wrap_objid[adr + j + (geom ? 2 : 1)];
        const double* p0 = d->site_xpos + 3 * s0;
        const double* p1 = d->site_xpos + 3 * s1;
        const int b0 = m->site_bodyid[s0], b1 = m->site_bodyid[s1];
        double wpnt[6], wlen = -1;
        int g = -1;
        if (geom) {
            g = m->wrap_objid[adr + j + 1];
            const int side = (int)lround(m->wrap_prm[adr + j + 1]);
            wlen = gdn_tendon_wrap(wpnt, p0, p1, d->geom_xpos + 3 * g, d->geom_xmat + 9 * g,
                                   m->geom_size[3 * g], tp1 == GDN_WRAP_CYLINDER,
                                   side >= 0 ? d->site_xpos + 3 * side : NULL, NULL);
        }
        if (wlen < 0) {
            double dif[3];
            gdn_sub3(dif, p1, p0);
            d->ten_length[t] += gdn_norm3(dif) / divisor;
            segment_jac(m, d, p0, b0, p1, b1, divisor, J, jac1, jac2);
            gdn_copy3(d->wrap_xpos + 3 * *wcnt, p0);
            d->wrap_obj[*wcnt] = -1;
            d->ten_wrapnum[t]++;
            (*wcnt)++;
        } else {
            // p0, the tangent points (on the geom's body), p1
            const int bg = m->geom_bodyid[g];
            double a[3], b[3];
            gdn_sub3(a, wpnt, p0);
            gdn_sub3(b, p1, wpnt + 3);
            d->ten_length[t] += (gdn_norm3(a) + wlen + gdn_norm3(b)) / divisor;
            segment_jac(m, d, p0, b0, wpnt, bg, divisor, J, jac1, jac2);
            segment_jac(m, d, wpnt + 3, bg, p1, b1, divisor, J, jac1, jac2);
            double* w = d->wrap_xpos + 3 * *wcnt;
            gdn_copy3(w, p0);
            gdn_copy3(w + 3, wpnt);
            gdn_copy3(w + 6, wpnt + 3);
            d->wrap_obj[*wcnt] = -1;
            d->wrap_obj[*wcnt + 1] = d->wrap_obj[*wcnt + 2] = g;
            d->ten_wrapnum[t] += 3;
            *wcnt += 3;
        }
        j += geom ? 2 : 1;
        // the last site before a pulley or the path's end
        if (j == num - 1 || m->wrap_type[adr + j + 1] == GDN_WRAP_PULLEY) {
            gdn_copy3(d->wrap_xpos + 3 * *wcnt, p1);
            d->wrap_obj[*wcnt] = -1;
            d->ten_wrapnum[t]++;
            (*wcnt)++;
        }
    }
    // Ldot = J qvel in MuJoCo's dot order (mju_mulMatVec)
    d->ten_velocity[t] = gdn_dot_mujoco(J, d->qvel, m->nv);
}

void gdn_tendon(const gdnModel* m, gdnData* d) {
    const int nv = m->nv;
    if (m->ntendon == 0) {
        return;
    }
    memset(d->ten_J, 0, sizeof(double) * (size_t)m->ntendon * (size_t)nv);
    size_t mark = gdn_arena_mark(d);
    double* jac = gdn_tendon_all_fixed(m) ? NULL : gdn_arena_doubles(d, 6 * (size_t)nv + 1);
    int wcnt = 0;
    for (int t = 0; t < m->ntendon; t++) {
        d->ten_wrapadr[t] = wcnt;
        d->ten_wrapnum[t] = 0;
        const int adr = m->tendon_adr[t], num = m->tendon_num[t];
        if (num > 0 && m->wrap_type[adr] != GDN_WRAP_JOINT) {
            if (!jac) {
                // arena exhausted (counted): no Jacobian, a NaN tendon
                d->ten_length[t] = d->ten_velocity[t] = NAN;
                for (int k = 0; k < nv; k++) {
                    d->ten_J[(size_t)t * (size_t)nv + (size_t)k] = NAN;
                }
                continue;
            }
            spatial(m, d, t, &wcnt, jac, jac + 3 * nv);
            continue;
        }
        // fixed: J(t, dof_k) = coef_k (the loader refuses a joint listed twice)
        double* J = d->ten_J + (size_t)t * (size_t)nv;
        for (int k = adr; k < adr + num; k++) {
            J[m->jnt_dofadr[m->wrap_objid[k]]] = m->wrap_prm[k];
        }
        gdn_tendon_fixed_value(m, t, d->qpos, d->qvel, d->ten_length + t, d->ten_velocity + t);
    }
    gdn_arena_reset(d, mark);
}
