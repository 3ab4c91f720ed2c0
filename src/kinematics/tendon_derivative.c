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

// The inside wrap's point (tendon_wrap.c, wrap_inside) in 2D: ends d0, d1 (len0, len1),
// A = r / len0, B = r / len1, G = acos(cosG), cosG = (len0^2 + len1^2 - |d1 - d0|^2) /
// (2 len0 len1), the root z of F(z) = asin(A z) + asin(B z) - 2 asin(z) + G = 0, then the end
// e on the positive side (d0 when d0 x d1 > 0, else d1; C its A or B) rotated onto the circle:
//   W = r R(ang) u,  u = d_e / |d_e|,  ang = asin(z) - asin(C z).
// Implicit differentiation of F = 0 at the primal's z (its solve stops at |F| <= 1e-6):
//   dz = -(F_A dA + F_B dB + dG) / F_z,  F_A = z / sqrt(1 - A^2 z^2) (F_B alike),
//   F_z = A / sqrt(1 - A^2 z^2) + B / sqrt(1 - B^2 z^2) - 2 / sqrt(1 - z^2),
//   dA = -r dlen0 / len0^2,  dG = -dcosG / sqrt(1 - cosG^2),
//   dang = dz / sqrt(1 - z^2) - (C dz + z dC) / sqrt(1 - C^2 z^2),
//   dW = r (R(ang) du + dang R(ang + pi/2) u),  du = (I - u u') dd_e / |d_e|
static void inside_tangent2(const double d[4], const double dd[4], double r, double z,
                            double W[2], double dW[2]) {
    const double len0 = sqrt(d[0] * d[0] + d[1] * d[1]), len1 = sqrt(d[2] * d[2] + d[3] * d[3]);
    const double dlen0 = (d[0] * dd[0] + d[1] * dd[1]) / len0;
    const double dlen1 = (d[2] * dd[2] + d[3] * dd[3]) / len1;
    const double A = r / len0, B = r / len1;
    const double dA = -r * dlen0 / (len0 * len0), dB = -r * dlen1 / (len1 * len1);
    const double dif[2] = {d[2] - d[0], d[3] - d[1]}, ddif[2] = {dd[2] - dd[0], dd[3] - dd[1]};
    const double num = len0 * len0 + len1 * len1 - (dif[0] * dif[0] + dif[1] * dif[1]);
    const double den = 2 * len0 * len1;
    const double dnum = 2 * len0 * dlen0 + 2 * len1 * dlen1 -
                        2 * (dif[0] * ddif[0] + dif[1] * ddif[1]);
    const double dden = 2 * (dlen0 * len1 + len0 * dlen1);
    const double cosG = num / den, dcosG = (dnum - cosG * dden) / den;
    const double dG = -dcosG / sqrt(1 - cosG * cosG);
    const double sa = sqrt(1 - A * A * z * z), sb = sqrt(1 - B * B * z * z);
    const double sz = sqrt(1 - z * z);
    const double Fz = A / sa + B / sb - 2 / sz;
    const double dz = -(z / sa * dA + z / sb * dB + dG) / Fz;
    const int first = d[0] * d[3] - d[1] * d[2] > 0;
    const double C = first ? A : B, dC = first ? dA : dB, sc = first ? sa : sb;
    const double* v = first ? d : d + 2;
    const double* dv = first ? dd : dd + 2;
    const double ang = asin(z) - asin(C * z);
    const double dang = dz / sz - (C * dz + z * dC) / sc;
    const double nv = sqrt(v[0] * v[0] + v[1] * v[1]);
    const double u[2] = {v[0] / nv, v[1] / nv};
    const double ud = u[0] * dv[0] + u[1] * dv[1];
    const double du[2] = {(dv[0] - u[0] * ud) / nv, (dv[1] - u[1] * ud) / nv};
    const double ca = cos(ang), sn = sin(ang);
    W[0] = r * (ca * u[0] - sn * u[1]);
    W[1] = r * (sn * u[0] + ca * u[1]);
    dW[0] = r * (ca * du[0] - sn * du[1] + dang * (-sn * u[0] - ca * u[1]));
    dW[1] = r * (sn * du[0] + ca * du[1] + dang * (ca * u[0] - sn * u[1]));
}

// The inside wrap's point T (both tangent points) in the geom frame under the ends' local
// motion dP0, dP1: the 2D frame of tendon_wrap.c (a sphere: a0 = unit(P0), n = unit(P0 x P1),
// a1 = n x a0, moving with the ends; a cylinder: x, y), d = (P0 . a0, P0 . a1, P1 . a0,
// P1 . a1), dd = dP . a + P . da, then T = a0 W0 + a1 W1 (inside_tangent2) and on a cylinder
// the axial coordinate T_z = P0z + (P1z - P0z) L0 / (L0 + L1) (L the ends' in-plane distances
// to T: the arc is 0)
void gdn_wrap_inside_tangent(int cyl, double r, double z, const double P0[3],
                             const double P1[3], const double dP0[3], const double dP1[3],
                             double dT[3]) {
    double a0[3] = {1, 0, 0}, a1[3] = {0, 1, 0}, da0[3] = {0, 0, 0}, da1[3] = {0, 0, 0};
    if (!cyl) {
        double n[3], t[3], u[3], dn[3], tmp[3];
        gdn_copy3(a0, P0);
        const double l0 = gdn_normalize3(a0);
        gdn_addscl3(da0, dP0, a0, -gdn_dot3(a0, dP0));
        gdn_scl3(da0, da0, 1 / l0);
        gdn_cross3(n, P0, P1);
        const double nn = gdn_normalize3(n);
        gdn_cross3(t, dP0, P1);
        gdn_cross3(u, P0, dP1);
        gdn_add3(t, t, u);
        gdn_addscl3(dn, t, n, -gdn_dot3(n, t));
        gdn_scl3(dn, dn, 1 / nn);
        gdn_cross3(a1, n, a0);
        gdn_cross3(da1, dn, a0);
        gdn_cross3(tmp, n, da0);
        gdn_add3(da1, da1, tmp);
    }
    const double d[4] = {gdn_dot3(P0, a0), gdn_dot3(P0, a1), gdn_dot3(P1, a0), gdn_dot3(P1, a1)};
    const double dd[4] = {gdn_dot3(dP0, a0) + gdn_dot3(P0, da0),
                          gdn_dot3(dP0, a1) + gdn_dot3(P0, da1),
                          gdn_dot3(dP1, a0) + gdn_dot3(P1, da0),
                          gdn_dot3(dP1, a1) + gdn_dot3(P1, da1)};
    double W[2], dW[2];
    inside_tangent2(d, dd, r, z, W, dW);
    for (int k = 0; k < 3; k++) {
        dT[k] = da0[k] * W[0] + a0[k] * dW[0] + da1[k] * W[1] + a1[k] * dW[1];
    }
    if (cyl) {
        // T_z = P0z + h L0 / Lt,  h = P1z - P0z,  Lt = L0 + L1
        const double e0[2] = {P0[0] - W[0], P0[1] - W[1]}, e1[2] = {P1[0] - W[0], P1[1] - W[1]};
        const double L0 = sqrt(e0[0] * e0[0] + e0[1] * e0[1]);
        const double L1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1]);
        const double dL0 = (e0[0] * (dP0[0] - dW[0]) + e0[1] * (dP0[1] - dW[1])) / L0;
        const double dL1 = (e1[0] * (dP1[0] - dW[0]) + e1[1] * (dP1[1] - dW[1])) / L1;
        const double Lt = L0 + L1, dLt = dL0 + dL1;
        const double h = P1[2] - P0[2], dh = dP1[2] - dP0[2];
        dT[2] = dP0[2] + dh * L0 / Lt + h * (dL0 * Lt - L0 * dLt) / (Lt * Lt);
    }
}

// the rigid motion of a point x on a body moving by the twist xb: xb_ang x x + xb_lin
static void rigid(const double* xb, const double x[3], double dx[3]) {
    gdn_cross3(dx, xb, x);
    gdn_add3(dx, dx, xb + 3);
}

static int tendon_linear_compute(const gdnModel* m, const gdnData* d, const double* S, int t,
                                 double* L, double* V, double* J, double* DJ, double* scratch) {
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
    // the first WRAP_KEEP geom wraps' geometry (points, frame, solve) from pass 0, read again by
    // every DJ column (the same computation: bit for bit what recomputing it gives)
    enum { WRAP_KEEP = 16 };
    struct {
        double wp[6], wlen, gpos[3], gmat[9];
        gdnWrapInfo info;
    } kept[WRAP_KEEP];
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
            int nwrap = 0; // geom wraps so far in this pass
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
                if (geom && pass && nwrap < WRAP_KEEP) {
                    g = m->wrap_objid[adr + j + 1];
                    memcpy(wp, kept[nwrap].wp, sizeof(wp));
                    memcpy(gpos, kept[nwrap].gpos, sizeof(gpos));
                    memcpy(gmat, kept[nwrap].gmat, sizeof(gmat));
                    wlen = kept[nwrap].wlen;
                    info = kept[nwrap].info;
                    nwrap++;
                } else if (geom) {
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
                    if (!pass && nwrap < WRAP_KEEP) {
                        memcpy(kept[nwrap].wp, wp, sizeof(wp));
                        memcpy(kept[nwrap].gpos, gpos, sizeof(gpos));
                        memcpy(kept[nwrap].gmat, gmat, sizeof(gmat));
                        kept[nwrap].wlen = wlen;
                        kept[nwrap].info = info;
                    }
                    nwrap++;
                    // refused: the inside wrap's fallback point (no root found) and a sphere's
                    // fallback plane
                    if (wlen >= 0 && ((info.inside && !info.solved) || info.parallel)) {
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
                    if (info.inside) {
                        // one point: the inside wrap's root, differentiated implicitly
                        gdn_wrap_inside_tangent(tp1 == GDN_WRAP_CYLINDER, m->geom_size[3 * g],
                                                info.z, P[0], P[1], dP[0], dP[1], dT[0]);
                        gdn_copy3(dT[1], dT[0]);
                    } else {
                        wrap_tangent(tp1 == GDN_WRAP_CYLINDER, m->geom_size[3 * g],
                                     info.sol == 0 ? 1 : -1, info.flip, P[0], P[1], dP[0],
                                     dP[1], dT[0], dT[1]);
                    }
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

int gdn_tendon_inside_wrap(const gdnModel* m, const gdnData* d) {
    int found = 0;
    for (int t = 0; t < m->ntendon; t++) {
        const int adr = m->tendon_adr[t], num = m->tendon_num[t];
        for (int j = 1; j + 1 < num; j++) {
            // a geom between two sites, with a side site: the primal's wrap, its branch
            const int tp = m->wrap_type[adr + j];
            const int side = (int)lround(m->wrap_prm[adr + j]);
            if ((tp != GDN_WRAP_SPHERE && tp != GDN_WRAP_CYLINDER) || side < 0 ||
                m->wrap_type[adr + j - 1] != GDN_WRAP_SITE ||
                m->wrap_type[adr + j + 1] != GDN_WRAP_SITE) {
                continue;
            }
            const int g = m->wrap_objid[adr + j];
            double p0[3], p1[3], sp[3], gpos[3], gmat[9], wp[6];
            site_point(m, d, m->wrap_objid[adr + j - 1], p0);
            site_point(m, d, m->wrap_objid[adr + j + 1], p1);
            site_point(m, d, side, sp);
            geom_frame(m, d, g, gpos, gmat);
            gdnWrapInfo info;
            const double wlen = gdn_tendon_wrap(wp, p0, p1, gpos, gmat, m->geom_size[3 * g],
                                                tp == GDN_WRAP_CYLINDER, sp, &info);
            if (wlen >= 0 && info.inside) {
                found |= info.solved ? 1 : 2;
            }
        }
    }
    return found;
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

// the cache (in gdnData's allocation, gdn_tendon_cache_bytes): an entry per spatial tendon
// (slot[t], -1 for a fixed one) with the kinematics epoch it was filled at, its state (1: L and
// J, 2: L, J and DJ, 3: refused), L, J and DJ
typedef struct tendon_cache {
    int* slot;                 // (ntendon) the tendon's entry, -1: fixed (not cached)
    unsigned long long* epoch; // (nspatial) 0: never filled (gdnData's epoch starts at 1)
    int* state;                // (nspatial)
    double* L;                 // (nspatial)
    double* J;                 // (nspatial x nv)
    double* DJ;                // (nspatial x nv x nv)
} tendon_cache;

static size_t pad64(size_t bytes) {
    return (bytes + 63u) & ~(size_t)63u;
}

static size_t spatial_count(const gdnModel* m) {
    size_t n = 0;
    for (int t = 0; t < m->ntendon; t++) {
        n += (size_t)gdn_tendon_is_spatial(m, t);
    }
    return n;
}

size_t gdn_tendon_cache_bytes(const gdnModel* m) {
    const size_t ns = spatial_count(m), nt = (size_t)m->ntendon, nv = (size_t)m->nv;
    if (ns == 0) {
        return 0;
    }
    return pad64(sizeof(tendon_cache)) + pad64(nt * sizeof(int)) +
           pad64(ns * sizeof(unsigned long long)) + pad64(ns * sizeof(int)) +
           pad64(ns * (1 + nv + nv * nv) * sizeof(double));
}

void* gdn_tendon_cache_init(const gdnModel* m, unsigned char* p) {
    const size_t ns = spatial_count(m), nt = (size_t)m->ntendon, nv = (size_t)m->nv;
    tendon_cache* c = (tendon_cache*)(void*)p;
    p += pad64(sizeof(tendon_cache));
    c->slot = (int*)(void*)p;
    p += pad64(nt * sizeof(int));
    c->epoch = (unsigned long long*)(void*)p;
    p += pad64(ns * sizeof(unsigned long long));
    c->state = (int*)(void*)p;
    p += pad64(ns * sizeof(int));
    c->L = (double*)(void*)p;
    c->J = c->L + ns;
    c->DJ = c->J + ns * nv;
    int k = 0;
    for (int t = 0; t < m->ntendon; t++) {
        c->slot[t] = gdn_tendon_is_spatial(m, t) ? k++ : -1;
    }
    memset(c->epoch, 0, ns * sizeof(unsigned long long));
    return c;
}

int gdn_tendon_linear(const gdnModel* m, const gdnData* d, const double* S, int t, double* L,
                      double* V, double* J, double* DJ, double* scratch) {
    tendon_cache* c = d->tendon_cache_;
    const int k = c ? c->slot[t] : -1;
    if (k < 0) {
        return tendon_linear_compute(m, d, S, t, L, V, J, DJ, scratch);
    }
    const size_t nv = (size_t)m->nv;
    double* cJ = c->J + (size_t)k * nv;
    double* cDJ = c->DJ + (size_t)k * nv * nv;
    const int want = DJ ? 2 : 1;
    if (c->epoch[k] != d->kinematics_epoch_) {
        c->epoch[k] = d->kinematics_epoch_;
        c->state[k] = 0;
    }
    if (c->state[k] == 3) {
        return -1;
    }
    if (c->state[k] < want) {
        // computed once at this epoch, into the cache (DJ there when asked for)
        const int r = tendon_linear_compute(m, d, S, t, &c->L[k], V, cJ, want == 2 ? cDJ : NULL,
                                            scratch);
        if (r < 0) {
            c->state[k] = 3;
            return -1;
        }
        c->state[k] = want;
    }
    // V = J qvel at the current velocity (the cache keys on the kinematics only)
    memcpy(J, cJ, sizeof(double) * nv);
    if (DJ) {
        memcpy(DJ, cDJ, sizeof(double) * nv * nv);
    }
    *L = c->L[k];
    double v = 0;
    for (size_t i = 0; i < nv; i++) {
        v += J[i] * d->qvel[i];
    }
    *V = v;
    return 1;
}
