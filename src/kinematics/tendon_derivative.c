// SPDX-License-Identifier: Apache-2.0
// A tendon's Jacobian row and its q-derivative (see tendon_derivative.h).
#include "kinematics/tendon_derivative.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "kinematics/jacobian.h"
#include "kinematics/jacobian_derivative.h"
#include "kinematics/tendon.h"
#include "kinematics/tendon_wrap.h"
#include "math/spatial.h"
#include "math/vec.h"

static const double kPi = 3.14159265358979323846;

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
void gdn_unit_tangent(const gdnModel* m, const gdnData* d, const double* S, int c, double* xi,
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

// a geom's world frame from its body's (the tangent's geom frame moves with the body)
static void geom_frame(const gdnModel* m, const gdnData* d, int g, double pos[3], double mat[9]) {
    const int b = m->geom_bodyid[g];
    double local[9];
    gdn_mulmat3(pos, d->xmat + 9 * b, m->geom_pos + 3 * g);
    gdn_add3(pos, pos, d->xpos + 3 * b);
    gdn_quat2mat(local, m->geom_quat + 4 * g);
    gdn_mulmatmat3(mat, d->xmat + 9 * b, local);
}

// One straight piece of a path from a (body ba) to b (body bb), over divisor div: J_k +=
// sg u . c_k(x) at both ends (sg -1 at a, +1 at b, over div), or with the ends' motion da, db
// (the actual motion of the points: a wrap's tangent point slides on its geom) DJ's column c
//   += sg (du . c_k(x) + u . (dS_k,ang x x + S_k,ang x dx + dS_k,lin)),
//   du = (I - u u') (db - da) / |b - a|
static void piece(const gdnModel* m, const double* S, const double* dS, const double a[3],
                  int ba, const double da[3], const double b[3], int bb, const double db[3],
                  double div, int c, double* J, double* DJ) {
    if (ba == bb) {
        return;
    }
    const int nv = m->nv;
    double u[3], dd[3], du[3] = {0, 0, 0};
    gdn_sub3(u, b, a);
    const double l = gdn_normalize3(u);
    if (DJ) {
        gdn_sub3(dd, db, da);
        if (l >= GDN_MINVAL) {
            gdn_addscl3(du, dd, u, -gdn_dot3(u, dd));
            gdn_scl3(du, du, 1 / l);
        }
    }
    for (int s = 0; s < 2; s++) {
        const double sg = (s ? 1 : -1) / div;
        const double* x = s ? b : a;
        const double* dx = s ? db : da;
        for (int k = gdn_jac_last_dof(m, s ? bb : ba); k >= 0; k = m->dof_parentid[k]) {
            const double* Sk = S + 6 * k;
            double ck[3];
            axis_at(Sk, x, ck);
            if (!DJ) {
                J[k] += gdn_dot3(u, ck) * sg;
                continue;
            }
            double dck[3], t1[3];
            axis_at(dS + 6 * k, x, dck);
            gdn_cross3(t1, Sk, dx);
            gdn_add3(dck, dck, t1);
            DJ[(size_t)k * (size_t)nv + (size_t)c] += sg * (gdn_dot3(du, ck) + gdn_dot3(u, dck));
        }
    }
}

// The tangent points' motion in the geom frame (centre 0, radius r) under the ends' local
// motion dP0, dP1, for the outside wrap the primal chose (tendon_wrap.c: sgn = sigma):
//   T0 = a0 P0 - sigma b0 (n x P0),  T1 = a1 P1 + sigma b1 (n x P1),
//   a = r^2 / |P|^2,  b = r sqrt(|P|^2 - r^2) / |P|^2,
// with n = unit(P0 x P1) on a sphere; on a cylinder P, dP projected on the cross-section, n = z,
// and the axial coordinates T0z = P0z + dz L0 / Lt, T1z = P0z + dz (L0 + w) / Lt (dz = P1z - P0z,
// L = sqrt(|P|^2 - r^2) the tangent lengths, w the arc r theta, theta = acos(T0 . T1 / r^2) or
// 2 pi minus it, Lt = L0 + w + L1)
static void wrap_tangent(int cyl, double r, int sigma, int flip, const double P0[3],
                         const double P1[3], const double dP0[3], const double dP1[3],
                         double dT0[3], double dT1[3]) {
    double p[2][3], dp[2][3], n[3], dn[3] = {0, 0, 0}, T[2][3];
    gdn_copy3(p[0], P0);
    gdn_copy3(p[1], P1);
    gdn_copy3(dp[0], dP0);
    gdn_copy3(dp[1], dP1);
    if (cyl) {
        p[0][2] = p[1][2] = dp[0][2] = dp[1][2] = 0;
        n[0] = n[1] = 0;
        n[2] = 1;
    } else {
        double t[3], u[3];
        gdn_cross3(n, p[0], p[1]);
        const double nn = gdn_normalize3(n);
        gdn_cross3(t, dp[0], p[1]);
        gdn_cross3(u, p[0], dp[1]);
        gdn_add3(t, t, u);
        gdn_addscl3(dn, t, n, -gdn_dot3(n, t));
        gdn_scl3(dn, dn, 1 / nn);
    }
    double L[2], dL[2], dT[2][3];
    for (int e = 0; e < 2; e++) {
        const double sg = e ? sigma : -sigma;
        const double q = gdn_dot3(p[e], p[e]), dq = 2 * gdn_dot3(p[e], dp[e]);
        L[e] = sqrt(q - r * r);
        dL[e] = 0.5 * dq / L[e];
        const double a = r * r / q, b = r * L[e] / q;
        const double da = -r * r * dq / (q * q), db = r * (dL[e] * q - L[e] * dq) / (q * q);
        double nxp[3], t1[3], t2[3];
        gdn_cross3(nxp, n, p[e]);
        gdn_scl3(T[e], p[e], a);
        gdn_addscl3(T[e], T[e], nxp, sg * b);
        gdn_scl3(dT[e], p[e], da);
        gdn_addscl3(dT[e], dT[e], dp[e], a);
        gdn_addscl3(dT[e], dT[e], nxp, sg * db);
        gdn_cross3(t1, dn, p[e]);
        gdn_cross3(t2, n, dp[e]);
        gdn_add3(t1, t1, t2);
        gdn_addscl3(dT[e], dT[e], t1, sg * b);
    }
    if (cyl) {
        const double c = gdn_dot3(T[0], T[1]) / (r * r);
        const double dc = (gdn_dot3(dT[0], T[1]) + gdn_dot3(T[0], dT[1])) / (r * r);
        const double th0 = acos(c), dth0 = -dc / sqrt(1 - c * c);
        const double w = r * (flip ? 2 * kPi - th0 : th0), dw = r * (flip ? -dth0 : dth0);
        const double Lt = L[0] + w + L[1], dLt = dL[0] + dw + dL[1];
        const double dz = P1[2] - P0[2], ddz = dP1[2] - dP0[2];
        dT[0][2] = dP0[2] + ddz * L[0] / Lt + dz * (dL[0] * Lt - L[0] * dLt) / (Lt * Lt);
        dT[1][2] = dP0[2] + ddz * (L[0] + w) / Lt +
                   dz * ((dL[0] + dw) * Lt - (L[0] + w) * dLt) / (Lt * Lt);
    }
    gdn_copy3(dT0, dT[0]);
    gdn_copy3(dT1, dT[1]);
}

// the rigid motion of a point x on a body moving by the twist xb: xb_ang x x + xb_lin
static void rigid(const double* xb, const double x[3], double dx[3]) {
    gdn_cross3(dx, xb, x);
    gdn_add3(dx, dx, xb + 3);
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
    double* xi = scratch;
    double* dS = scratch + 6 * (size_t)m->nbody;
    double length = 0;
    for (int pass = 0; pass < 2; pass++) {
        // pass 0: L and J; pass 1: DJ, column by column
        for (int c = 0; c < (pass ? nv : 1); c++) {
            if (pass) {
                if (!DJ) {
                    break;
                }
                gdn_unit_tangent(m, d, S, c, xi, dS);
            }
            double* dj = pass ? DJ : NULL;
            double divisor = 1;
            for (int j = 0; j < num - 1;) {
                const int tp0 = m->wrap_type[adr + j], tp1 = m->wrap_type[adr + j + 1];
                if (tp0 == GDN_WRAP_PULLEY || tp1 == GDN_WRAP_PULLEY) {
                    if (tp0 == GDN_WRAP_PULLEY) {
                        divisor = m->wrap_prm[adr + j];
                    }
                    j++;
                    continue;
                }
                const int geom = tp1 == GDN_WRAP_SPHERE || tp1 == GDN_WRAP_CYLINDER;
                const int s0 = m->wrap_objid[adr + j];
                const int s1 = m->wrap_objid[adr + j + (geom ? 2 : 1)];
                const int b0 = m->site_bodyid[s0], b1 = m->site_bodyid[s1];
                double p0[3], p1[3], dp0[3] = {0, 0, 0}, dp1[3] = {0, 0, 0};
                site_point(m, d, s0, p0);
                site_point(m, d, s1, p1);
                if (pass) {
                    rigid(xi + 6 * b0, p0, dp0);
                    rigid(xi + 6 * b1, p1, dp1);
                }
                double wp[6], wlen = -1, gpos[3], gmat[9];
                gdnWrapInfo info;
                int g = -1;
                if (geom) {
                    g = m->wrap_objid[adr + j + 1];
                    const int side = (int)lround(m->wrap_prm[adr + j + 1]);
                    double sp[3];
                    if (side >= 0) {
                        site_point(m, d, side, sp);
                    }
                    geom_frame(m, d, g, gpos, gmat);
                    wlen = gdn_tendon_wrap(wp, p0, p1, gpos, gmat, m->geom_size[3 * g],
                                           tp1 == GDN_WRAP_CYLINDER, side >= 0 ? sp : NULL,
                                           &info);
                    // the inside wrap (a Newton solve stopped at 1e-6) and a sphere's fallback
                    // plane have no derivative here
                    if (wlen >= 0 && (info.inside || info.parallel)) {
                        return -1;
                    }
                }
                j += geom ? 2 : 1;
                if (wlen < 0) {
                    if (!pass) {
                        double dif[3];
                        gdn_sub3(dif, p1, p0);
                        length += gdn_norm3(dif) / divisor;
                    }
                    piece(m, S, dS, p0, b0, dp0, p1, b1, dp1, divisor, c, J, dj);
                    continue;
                }
                const int bg = m->geom_bodyid[g];
                double dw0[3] = {0, 0, 0}, dw1[3] = {0, 0, 0};
                if (!pass) {
                    double a[3], b[3];
                    gdn_sub3(a, wp, p0);
                    gdn_sub3(b, p1, wp + 3);
                    length += (gdn_norm3(a) + wlen + gdn_norm3(b)) / divisor;
                } else {
                    // the ends relative to the geom frame, the tangent points' local motion,
                    // then their world motion: rigid with the geom's body plus the slide
                    const double* xg = xi + 6 * bg;
                    double P[2][3], dP[2][3], dT[2][3], tmp[3], r0[3], r1[3];
                    const double* pe[2] = {p0, p1};
                    const double* dpe[2] = {dp0, dp1};
                    for (int e = 0; e < 2; e++) {
                        gdn_sub3(tmp, pe[e], gpos);
                        gdn_mulmat3T(P[e], gmat, tmp);
                        rigid(xg, pe[e], r0);
                        gdn_sub3(tmp, dpe[e], r0);
                        gdn_mulmat3T(dP[e], gmat, tmp);
                    }
                    wrap_tangent(tp1 == GDN_WRAP_CYLINDER, m->geom_size[3 * g],
                                 info.sol == 0 ? 1 : -1, info.flip, P[0], P[1], dP[0], dP[1],
                                 dT[0], dT[1]);
                    rigid(xg, wp, r0);
                    rigid(xg, wp + 3, r1);
                    gdn_mulmat3(tmp, gmat, dT[0]);
                    gdn_add3(dw0, r0, tmp);
                    gdn_mulmat3(tmp, gmat, dT[1]);
                    gdn_add3(dw1, r1, tmp);
                }
                piece(m, S, dS, p0, b0, dp0, wp, bg, dw0, divisor, c, J, dj);
                piece(m, S, dS, wp + 3, bg, dw1, p1, b1, dp1, divisor, c, J, dj);
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
