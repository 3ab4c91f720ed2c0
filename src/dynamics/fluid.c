// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's fluid forces (inertia box, ellipsoid) as body wrenches, with their tangent
// and adjoint.
#include "dynamics/fluid.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/body_wrench.h"
#include "math/hyperdual.h"
#include "math/vec.h"

#define GDN_PI 3.14159265358979323846

// the sides of body b's inertia box (mass >= GDN_MINVAL): box_k = sqrt(6 max(MINVAL, A_k) /
// mass), A_k = lambda_j + lambda_l - lambda_k
static void box_sides(const gdnModel* m, int b, double box[3]) {
    const double mass = m->body_mass[b];
    const double* I = m->body_inertia + 3 * b;
    box[0] = sqrt(fmax(GDN_MINVAL, I[1] + I[2] - I[0]) / mass * 6.0);
    box[1] = sqrt(fmax(GDN_MINVAL, I[2] + I[0] - I[1]) / mass * 6.0);
    box[2] = sqrt(fmax(GDN_MINVAL, I[0] + I[1] - I[2]) / mass * 6.0);
}

// the inertia-box law's coefficients of body b (mass >= GDN_MINVAL):
// f_k = -beta_k l_k - gamma_k |l_k| l_k (fluid.h)
static void box_coefficients(const gdnModel* m, int b, double beta[6], double gamma[6]) {
    double box[3];
    box_sides(m, b, box);
    const double mu = m->opt.viscosity, rho = m->opt.density;
    const double diam = (box[0] + box[1] + box[2]) / 3.0;
    for (int k = 0; k < 3; k++) {
        beta[k] = mu > 0 ? GDN_PI * diam * diam * diam * mu : 0;
        beta[3 + k] = mu > 0 ? 3.0 * GDN_PI * diam * mu : 0;
    }
    const double b4[3] = {box[0] * box[0] * box[0] * box[0], box[1] * box[1] * box[1] * box[1],
                          box[2] * box[2] * box[2] * box[2]};
    gamma[0] = rho > 0 ? rho * box[0] * (b4[1] + b4[2]) / 64.0 : 0;
    gamma[1] = rho > 0 ? rho * box[1] * (b4[0] + b4[2]) / 64.0 : 0;
    gamma[2] = rho > 0 ? rho * box[2] * (b4[0] + b4[1]) / 64.0 : 0;
    gamma[3] = rho > 0 ? 0.5 * rho * box[1] * box[2] : 0;
    gamma[4] = rho > 0 ? 0.5 * rho * box[0] * box[2] : 0;
    gamma[5] = rho > 0 ? 0.5 * rho * box[0] * box[1] : 0;
}

// the ellipsoid law of a geom (MuJoCo 2.2.2's mj_ellipsoidFluidModel, fluid.h) at the local
// velocity l = [w; v]: the local force f (6) and, when J is non-NULL, its Jacobian J = df/dl
// (6 x 6 row-major; valid where v is not 0). With rho, mu the medium, s the semi-axes,
// fl = geom_fluid (coef, blunt, slender, angular drag, Kutta, Magnus, vm, vi):
//   added mass  p = rho vm.v, L = rho vi.w:  f_ang += p x v + L x w,  f_lin += p x w
//   Magnus      f_lin += cm (w x v),  cm = Magnus rho volume
//   Kutta       f_lin += ks ((n x v) x v) = ks (pn v - |v|^2 n),  n = c.v, pn = n.v,
//               pd = a.v.v, ks = Kutta rho pi sqrt(pn) / (|v| sqrt(pd))  (a_k = c_k^2,
//               c = ((s1 s2)^2, (s2 s0)^2, (s0 s1)^2))
//   drag        f_lin -= (mu 3 pi D + rho |v| (blunt A + slender (A_max - A))) v,
//               A = pi sqrt(pd / pn), D = 2 (s0 + s1 + s2) / 3, A_max = pi d_max d_mid
//               f_ang -= (mu pi D^3 + rho |mv|) w,  mv_k = w_k (angular II_k + slender
//               (I_max - II_k))
//   f *= coef (fl[0])
static void ellipsoid_law(const double* fl, const double s[3], double rho, double mu,
                          const double l[6], double f[6], double* J) {
    const double* w = l;
    const double* v = l + 3;
    const double* vm = fl + 6;
    const double* vi = fl + 9;
    const double coef = fl[0], blunt = fl[1], slender = fl[2], angular = fl[3];
    const double kutta = fl[4], magnus = fl[5];
    // added mass
    double p[3], L[3], t[3];
    for (int k = 0; k < 3; k++) {
        p[k] = rho * vm[k] * v[k];
        L[k] = rho * vi[k] * w[k];
    }
    memset(f, 0, 6 * sizeof(double));
    gdn_cross3(f + 3, p, w);
    gdn_cross3(t, p, v);
    gdn_add3(f, f, t);
    gdn_cross3(t, L, w);
    gdn_add3(f, f, t);
    // the shape's constants
    const double volume = 4.0 / 3.0 * GDN_PI * s[0] * s[1] * s[2];
    const double dmax = fmax(fmax(s[0], s[1]), s[2]), dmin = fmin(fmin(s[0], s[1]), s[2]);
    const double dmid = s[0] + s[1] + s[2] - dmax - dmin;
    const double Amax = GDN_PI * dmax * dmid;
    const double c[3] = {s[1] * s[2] * s[1] * s[2], s[2] * s[0] * s[2] * s[0],
                         s[0] * s[1] * s[0] * s[1]};
    // Magnus
    const double cm = magnus * rho * volume;
    double mag[3];
    gdn_cross3(mag, w, v);
    gdn_scl3(mag, mag, cm);
    // Kutta and the projected area
    const double pd = c[0] * c[0] * v[0] * v[0] + c[1] * c[1] * v[1] * v[1] +
                      c[2] * c[2] * v[2] * v[2];
    const double pn = c[0] * v[0] * v[0] + c[1] * v[1] * v[1] + c[2] * v[2] * v[2];
    const double A = GDN_PI * sqrt(pd / fmax(GDN_MINVAL, pn));
    const double n[3] = {c[0] * v[0], c[1] * v[1], c[2] * v[2]};
    const double speed = gdn_norm3(v);
    const double cosa = pn / fmax(GDN_MINVAL, speed * pd);
    const double ks = kutta * rho * cosa * A;
    double kc[3], kf[3];
    gdn_cross3(kc, n, v);
    gdn_scl3(kc, kc, ks);
    gdn_cross3(kf, kc, v);
    // drag
    const double D = 2.0 / 3.0 * (s[0] + s[1] + s[2]);
    const double Imax = 8.0 / 15.0 * GDN_PI * dmid * dmax * dmax * dmax * dmax;
    double mvc[3], mv[3];
    for (int k = 0; k < 3; k++) {
        const double e = fmax(s[(k + 1) % 3], s[(k + 2) % 3]);
        const double II = 8.0 / 15.0 * GDN_PI * s[k] * e * e * e * e;
        mvc[k] = angular * II + slender * (Imax - II);
        mv[k] = w[k] * mvc[k];
    }
    const double mvn = gdn_norm3(mv);
    const double Blin = slender * Amax + (blunt - slender) * A;
    const double dlin = mu * 3.0 * GDN_PI * D + rho * speed * (A * blunt + slender * (Amax - A));
    const double dang = mu * GDN_PI * D * D * D + rho * mvn;
    for (int k = 0; k < 3; k++) {
        f[k] -= dang * w[k];
        f[3 + k] += mag[k] + kf[k] - dlin * v[k];
    }
    for (int k = 0; k < 6; k++) {
        f[k] *= coef;
    }
    if (!J) {
        return;
    }
    // J = df/dl in blocks: J[r][col], r, col in 0..5, l = [w; v]
    memset(J, 0, 36 * sizeof(double));
#define JE(r, col) J[6 * (r) + (col)]
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) {
            // added mass: d(p x v)/dv = [p]x - [v]x diag(rho vm), d(L x w)/dw = [L]x -
            // [w]x diag(rho vi), d(p x w)/dw = [p]x, d(p x w)/dv = -[w]x diag(rho vm)
            double ek[3] = {0, 0, 0}, x1[3], x2[3];
            ek[k] = 1;
            gdn_cross3(x1, p, ek);
            gdn_cross3(x2, v, ek);
            JE(r, 3 + k) += x1[r] - x2[r] * rho * vm[k];
            gdn_cross3(x1, L, ek);
            gdn_cross3(x2, w, ek);
            JE(r, k) += x1[r] - x2[r] * rho * vi[k];
            gdn_cross3(x1, p, ek);
            JE(3 + r, k) += x1[r];
            JE(3 + r, 3 + k) -= x2[r] * rho * vm[k];
            // Magnus: d(w x v)/dw = -[v]x, d(w x v)/dv = [w]x
            gdn_cross3(x1, ek, v);
            JE(3 + r, k) += cm * x1[r];
            gdn_cross3(x1, w, ek);
            JE(3 + r, 3 + k) += cm * x1[r];
        }
    }
    // angular drag: -dang I - w (rho mv.mvc / |mv|)'
    for (int r = 0; r < 3; r++) {
        JE(r, r) -= dang;
        for (int k = 0; k < 3; k++) {
            JE(r, k) -= mvn > 0 ? w[r] * rho * mv[k] * mvc[k] / mvn : 0;
        }
    }
    if (speed > 0 && pn > GDN_MINVAL && pd > 0) {
        // the projected area's gradient: grad A = pi sqrt(pn / pd) (a.v pn - c.v pd) / pn^2
        double gA[3], gks[3], g[3];
        const double r = GDN_PI * sqrt(pn / pd) / (pn * pn);
        for (int k = 0; k < 3; k++) {
            gA[k] = r * (c[k] * c[k] * v[k] * pn - c[k] * v[k] * pd);
            // ks = Kutta rho pi sqrt(pn) / (|v| sqrt(pd)):
            // grad ks = ks (c.v / pn - v / |v|^2 - a.v / pd)
            gks[k] = ks * (c[k] * v[k] / pn - v[k] / (speed * speed) - c[k] * c[k] * v[k] / pd);
            g[k] = pn * v[k] - speed * speed * n[k];
        }
        for (int row = 0; row < 3; row++) {
            for (int k = 0; k < 3; k++) {
                // drag: -dlin I - v (grad dlin)',  grad dlin = rho (Blin v / |v| + |v| (blunt -
                // slender) grad A)
                const double gd = rho * (Blin * v[k] / speed + speed * (blunt - slender) * gA[k]);
                double jl = -v[row] * gd - (row == k ? dlin : 0);
                // Kutta: g grad ks' + ks (v (2 c.v)' + pn I - n (2 v)' - |v|^2 diag(c))
                jl += g[row] * gks[k] +
                      ks * (v[row] * 2 * c[k] * v[k] + (row == k ? pn : 0) -
                            n[row] * 2 * v[k] - (row == k ? speed * speed * c[k] : 0));
                JE(3 + row, 3 + k) += jl;
            }
        }
    } else {
        for (int row = 0; row < 3; row++) {
            JE(3 + row, 3 + row) -= dlin;
        }
    }
#undef JE
    for (int k = 0; k < 36; k++) {
        J[k] *= coef;
    }
}

// one fluid element: the point c the force acts at, the frame R its law is written in, the
// twist about c (w, vrel = w x c + v_O - wind) and the local velocity l; the law: the inertia
// box (beta, gamma) or a geom's ellipsoid (fl, semi-axes)
typedef struct {
    const double* c;
    const double* R;
    double w[3], vrel[3];
    double l[6];
    int ellipsoid;
    double beta[6], gamma[6];
    const double* fl;
    double semi[3];
} fluidElem;

static void elem_kinematics(const gdnModel* m, const double* V, int b, fluidElem* e) {
    const double* Vb = V + 6 * b;
    double wc[3];
    gdn_copy3(e->w, Vb);
    gdn_cross3(wc, Vb, e->c);
    for (int k = 0; k < 3; k++) {
        e->vrel[k] = wc[k] + Vb[3 + k] - m->opt.wind[k];
    }
    gdn_mulmat3T(e->l, e->R, e->w);
    gdn_mulmat3T(e->l + 3, e->R, e->vrel);
}

// the local force f and (J non-NULL) its Jacobian df/dl
static void elem_law(const gdnModel* m, const fluidElem* e, double f[6], double* J) {
    if (e->ellipsoid) {
        ellipsoid_law(e->fl, e->semi, m->opt.density, m->opt.viscosity, e->l, f, J);
        return;
    }
    if (J) {
        memset(J, 0, 36 * sizeof(double));
    }
    for (int k = 0; k < 6; k++) {
        f[k] = -e->beta[k] * e->l[k] - e->gamma[k] * fabs(e->l[k]) * e->l[k];
        if (J) {
            J[7 * k] = -(e->beta[k] + 2 * e->gamma[k] * fabs(e->l[k]));
        }
    }
}

// 1 when body b uses the ellipsoid model (MuJoCo's rule: any of its geoms has it on)
static int body_ellipsoid(const gdnModel* m, int b) {
    for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b];
         g++) {
        if (m->geom_fluid[(size_t)g * GDN_NFLUID] > 0) {
            return 1;
        }
    }
    return 0;
}

// the fluid elements of body b: none below MuJoCo's mass threshold, else its inertia box, or
// (ellipsoid model) one per geom whose interaction coefficient is nonzero; the element of
// geom g (-1: the box) is set up by elem_setup
static int elem_next(const gdnModel* m, int b, int g) {
    const int end = m->body_geomadr[b] + m->body_geomnum[b];
    for (g = g < 0 ? m->body_geomadr[b] : g + 1; g >= 0 && g < end; g++) {
        if (m->geom_fluid[(size_t)g * GDN_NFLUID] != 0) {
            return g;
        }
    }
    return end;
}

static void elem_setup(const gdnModel* m, const gdnData* d, const double* V, int b, int g,
                       fluidElem* e) {
    if (g < 0) {
        e->c = d->xipos + 3 * b;
        e->R = d->ximat + 9 * b;
        e->ellipsoid = 0;
        box_coefficients(m, b, e->beta, e->gamma);
    } else {
        e->c = d->geom_xpos + 3 * g;
        e->R = d->geom_xmat + 9 * g;
        e->ellipsoid = 1;
        e->fl = m->geom_fluid + (size_t)g * GDN_NFLUID;
        const double* size = m->geom_size + 3 * g;
        const int type = m->geom_type[g];
        // the equivalent ellipsoid's semi-axes (MuJoCo's mju_geomSemiAxes)
        if (type == GDN_GEOM_SPHERE) {
            e->semi[0] = e->semi[1] = e->semi[2] = size[0];
        } else if (type == GDN_GEOM_CAPSULE) {
            e->semi[0] = e->semi[1] = size[0];
            e->semi[2] = size[1] + size[0];
        } else if (type == GDN_GEOM_CYLINDER) {
            e->semi[0] = e->semi[1] = size[0];
            e->semi[2] = size[1];
        } else {
            gdn_copy3(e->semi, size);
        }
    }
    elem_kinematics(m, V, b, e);
}

int gdn_fluid_body_box(const gdnModel* m, int b) {
    return b > 0 && m->body_mass[b] >= GDN_MINVAL && !body_ellipsoid(m, b);
}

int gdn_fluid_uses_ellipsoid(const gdnModel* m) {
    for (int b = 1; gdn_fluid_active(m) && b < m->nbody; b++) {
        if (m->body_mass[b] >= GDN_MINVAL && body_ellipsoid(m, b)) {
            return 1;
        }
    }
    return 0;
}

// the fluid element after (b, g) into (b, g), 1 while there is one: a body of mass >=
// MuJoCo's threshold has its inertia box (g = -1) or, in the ellipsoid model, one element per
// geom with the model on (elem_next); start from b = 0 (the world has none)
static int next_element(const gdnModel* m, int* b, int* g) {
    if (*b > 0 && body_ellipsoid(m, *b)) {
        const int n = elem_next(m, *b, *g);
        if (n < m->body_geomadr[*b] + m->body_geomnum[*b]) {
            *g = n;
            return 1;
        }
    }
    for ((*b)++; *b < m->nbody; (*b)++) {
        if (m->body_mass[*b] < GDN_MINVAL) {
            continue;
        }
        if (!body_ellipsoid(m, *b)) {
            *g = -1;
            return 1;
        }
        const int n = elem_next(m, *b, -1);
        if (n < m->body_geomadr[*b] + m->body_geomnum[*b]) {
            *g = n;
            return 1;
        }
    }
    return 0;
}

void gdn_fluid_wrenches(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                        double* W) {
    for (int b = 0, g = -1; next_element(m, &b, &g);) {
        if (!(kinds & (g < 0 ? GDN_FLUID_BOX : GDN_FLUID_ELLIPSOID))) {
            continue;
        }
        fluidElem el, *e = &el;
        elem_setup(m, d, V, b, g, e);
        // the local force, then the world torque about c and the force: W_b += [R f_ang + c x
        // R f_lin; R f_lin]
        double f[6], tau[3], F[3], cF[3];
        elem_law(m, e, f, NULL);
        gdn_mulmat3(tau, e->R, f);
        gdn_mulmat3(F, e->R, f + 3);
        gdn_cross3(cF, e->c, F);
        double* Wb = W + 6 * b;
        for (int k = 0; k < 3; k++) {
            Wb[k] += tau[k] + cF[k];
            Wb[3 + k] += F[k];
        }
    }
}

gdnStatus gdn_fluid_forces(const gdnModel* m, gdnData* d, double* qfrc) {
    const size_t nb6 = 6 * (size_t)m->nbody;
    size_t mark = gdn_arena_mark(d);
    // S (6 nv), V, W, scratch (6 nbody each)
    double* S = gdn_arena_doubles(d, 6 * (size_t)(m->nv > 0 ? m->nv : 1) + 3 * nb6);
    if (!S) {
        return GDN_ERR_MEMORY;
    }
    double* V = S + 6 * (m->nv > 0 ? m->nv : 1);
    double* W = V + nb6;
    double* scratch = W + nb6;
    gdn_body_velocities(m, d, S, V);
    memset(W, 0, sizeof(double) * nb6);
    gdn_fluid_wrenches(m, d, V, GDN_FLUID_ALL, W);
    gdn_body_wrench_qfrc(m, d, W, scratch, qfrc);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// The tangent of one element's wrench, its point and frame moved by (th, dc) (dc = dc, dR =
// [th]x R), its twist by et = [dw; dv_O] and (the box; dcoef NULL: fixed) its law's
// coefficients by dcoef = [dbeta (6); dgamma (6)]:
//   dvrel = dw x c + w x dc + dv_O
//   dl = [R' (dw - th x w); R' (dvrel - th x vrel)],  df = J dl - dbeta l - dgamma |l| l
//   dtau = th x tau + R df_ang,  dF = th x F + R df_lin
//   dW_b += [dtau + dc x F + c x dF; dF]
static void elem_tangent(const gdnModel* m, const fluidElem* e, const double th[3], const double dc[3],
                         const double et[6], const double* dcoef, double dWb[6]) {
    double f[6], J[36], tau[3], F[3];
    elem_law(m, e, f, J);
    gdn_mulmat3(tau, e->R, f);
    gdn_mulmat3(F, e->R, f + 3);
    double t1[3], t2[3], dvrel[3], u[3], dl[6];
    gdn_cross3(t1, et, e->c);
    gdn_cross3(t2, e->w, dc);
    for (int k = 0; k < 3; k++) {
        dvrel[k] = t1[k] + t2[k] + et[3 + k];
    }
    gdn_cross3(t1, th, e->w);
    gdn_sub3(u, et, t1);
    gdn_mulmat3T(dl, e->R, u);
    gdn_cross3(t1, th, e->vrel);
    gdn_sub3(u, dvrel, t1);
    gdn_mulmat3T(dl + 3, e->R, u);
    double df[6], dtau[3], dF[3];
    for (int r = 0; r < 6; r++) {
        df[r] = 0;
        for (int k = 0; k < 6; k++) {
            df[r] += J[6 * r + k] * dl[k];
        }
        if (dcoef) {
            df[r] -= dcoef[r] * e->l[r] + dcoef[6 + r] * fabs(e->l[r]) * e->l[r];
        }
    }
    gdn_mulmat3(t1, e->R, df);
    gdn_cross3(t2, th, tau);
    gdn_add3(dtau, t1, t2);
    gdn_mulmat3(t1, e->R, df + 3);
    gdn_cross3(t2, th, F);
    gdn_add3(dF, t1, t2);
    gdn_cross3(t1, dc, F);
    gdn_cross3(t2, e->c, dF);
    for (int k = 0; k < 3; k++) {
        dWb[k] += dtau[k] + t1[k] + t2[k];
        dWb[3 + k] += dF[k];
    }
}

// The adjoint of elem_tangent, with Wbar_b = [tb; Fb] (every output ACCUMULATES; coefbar NULL:
// not wanted):
//   Fbar = Fb + tb x c,  dcbar = F x tb,  taubar = tb
//   thbar += tau x taubar + F x Fbar,  fbar = [R' taubar; R' Fbar],  lbar = J' fbar,
//   betabar -= l fbar,  gammabar -= |l| l fbar
//   ua = R lbar_ang, ul = R lbar_lin:  dwbar += ua,  thbar -= w x ua + vrel x ul,  vrelbar = ul
//   dwbar += c x vrelbar,  dcbar += vrelbar x w,  dvbar += vrelbar
static void elem_adjoint(const gdnModel* m, const fluidElem* e, const double Wb[6], double thbar[3],
                         double dcbar[3], double etbar[6], double* coefbar) {
    double f[6], J[36], tau[3], F[3];
    elem_law(m, e, f, J);
    gdn_mulmat3(tau, e->R, f);
    gdn_mulmat3(F, e->R, f + 3);
    const double* tb = Wb;
    const double* Fb = Wb + 3;
    double Fbar[3], t1[3], t2[3];
    gdn_cross3(t1, tb, e->c);
    gdn_add3(Fbar, Fb, t1);
    gdn_cross3(t1, F, tb);
    gdn_add3(dcbar, dcbar, t1);
    gdn_cross3(t1, tau, tb);
    gdn_cross3(t2, F, Fbar);
    for (int k = 0; k < 3; k++) {
        thbar[k] += t1[k] + t2[k];
    }
    double fbar[6], lbar[6], ua[3], ul[3];
    gdn_mulmat3T(fbar, e->R, tb);
    gdn_mulmat3T(fbar + 3, e->R, Fbar);
    for (int k = 0; k < 6; k++) {
        lbar[k] = 0;
        for (int r = 0; r < 6; r++) {
            lbar[k] += J[6 * r + k] * fbar[r];
        }
        if (coefbar) {
            coefbar[k] -= e->l[k] * fbar[k];
            coefbar[6 + k] -= fabs(e->l[k]) * e->l[k] * fbar[k];
        }
    }
    gdn_mulmat3(ua, e->R, lbar);
    gdn_mulmat3(ul, e->R, lbar + 3);
    gdn_cross3(t1, e->w, ua);
    gdn_cross3(t2, e->vrel, ul);
    for (int k = 0; k < 3; k++) {
        thbar[k] -= t1[k] + t2[k];
    }
    // vrel = w x c + v_O - wind
    gdn_cross3(t1, e->c, ul);
    for (int k = 0; k < 3; k++) {
        etbar[k] += ua[k] + t1[k];
        etbar[3 + k] += ul[k];
    }
    gdn_cross3(t1, ul, e->w);
    gdn_add3(dcbar, dcbar, t1);
}

// d(beta, gamma) / d(mass, lambda_0, lambda_1, lambda_2) of body b's box (box_coefficients):
//   dbox_k = 3 (dA_k - A_k dm / m) / (m box_k)  (A_k = lambda_j + lambda_l - lambda_k; 0 where
//   the primal clamps A_k at MINVAL),  D = mean(box):  dbeta_ang = 3 pi D^2 mu dD,
//   dbeta_lin = 3 pi mu dD,  gamma_k = rho b_k (b_j^4 + b_l^4) / 64,  gamma_3+k = rho b_j b_l / 2
static void box_coefficient_jacobian(const gdnModel* m, int b, double Jc[12][4]) {
    const double mass = m->body_mass[b];
    const double* I = m->body_inertia + 3 * b;
    const double mu = m->opt.viscosity, rho = m->opt.density;
    double box[3], db[3][4] = {{0}};
    box_sides(m, b, box);
    for (int k = 0; k < 3; k++) {
        const int j = (k + 1) % 3, l = (k + 2) % 3;
        const double A = I[j] + I[l] - I[k];
        const double s = A > GDN_MINVAL ? 3.0 / (mass * box[k]) : 0;
        db[k][0] = -s * A / mass;
        db[k][1 + k] = -s;
        db[k][1 + j] = s;
        db[k][1 + l] = s;
    }
    // dcoef / dbox (12 x 3)
    const double diam = (box[0] + box[1] + box[2]) / 3.0;
    double dc[12][3] = {{0}};
    for (int k = 0; k < 3; k++) {
        const int j = (k + 1) % 3, l = (k + 2) % 3;
        for (int t = 0; t < 3; t++) {
            dc[k][t] = mu > 0 ? GDN_PI * diam * diam * mu : 0;
            dc[3 + k][t] = mu > 0 ? GDN_PI * mu : 0;
        }
        if (rho > 0) {
            const double bj3 = box[j] * box[j] * box[j], bl3 = box[l] * box[l] * box[l];
            dc[6 + k][k] = rho * (bj3 * box[j] + bl3 * box[l]) / 64.0;
            dc[6 + k][j] = rho * box[k] * 4.0 * bj3 / 64.0;
            dc[6 + k][l] = rho * box[k] * 4.0 * bl3 / 64.0;
            dc[9 + k][j] = 0.5 * rho * box[l];
            dc[9 + k][l] = 0.5 * rho * box[j];
        }
    }
    for (int r = 0; r < 12; r++) {
        for (int c = 0; c < 4; c++) {
            Jc[r][c] = dc[r][0] * db[0][c] + dc[r][1] * db[1][c] + dc[r][2] * db[2][c];
        }
    }
}

// The inertia parameters' reach into body b's box (p = [m, c (body frame), Ic (body axes: xx
// yy zz xy xz yz)]): with Q = R(iquat) the principal axes in the body frame, lambda_k =
// body_inertia, U = ximat and s_jk = Q_j' dIc Q_k,
//   dc = xmat dc_body,  dlambda_k = s_kk,
//   th = U omega,  omega_i = s_lj / (lambda_j - lambda_l)  ((i, j, l) cyclic: the eigenvectors'
//   change dQ = Q [omega]x, from Ic Q = Q Lambda)
// (th = 0 without density: the viscous law does not see the box's axes)
static void box_param_tangent(const gdnModel* m, const gdnData* d, int b, const double* dp,
                              double th[3], double dc[3], double dml[4]) {
    const double* lam = m->body_inertia + 3 * b;
    double Q[9];
    gdn_quat2mat(Q, m->body_iquat + 4 * b);
    gdn_mulmat3(dc, d->xmat + 9 * b, dp + 1);
    const double D[9] = {dp[4], dp[7], dp[8], dp[7], dp[5], dp[9], dp[8], dp[9], dp[6]};
    double s[9];
    for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
            double acc = 0;
            for (int a = 0; a < 3; a++) {
                for (int c = 0; c < 3; c++) {
                    acc += Q[3 * a + j] * D[3 * a + c] * Q[3 * c + k];
                }
            }
            s[3 * j + k] = acc;
        }
    }
    dml[0] = dp[0];
    double omega[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        const int j = (i + 1) % 3, l = (i + 2) % 3;
        dml[1 + i] = s[4 * i];
        const double gap = lam[j] - lam[l];
        omega[i] = m->opt.density > 0 && gap != 0 ? s[3 * l + j] / gap : 0;
    }
    gdn_mulmat3(th, d->ximat + 9 * b, omega);
}

// its adjoint: gp (10) += the transposed map applied to (thbar, dcbar, dmlbar)
static void box_param_adjoint(const gdnModel* m, const gdnData* d, int b, const double thbar[3],
                              const double dcbar[3], const double dmlbar[4], double* gp) {
    const double* lam = m->body_inertia + 3 * b;
    double Q[9], cb[3], omegabar[3], sbar[9] = {0};
    gdn_quat2mat(Q, m->body_iquat + 4 * b);
    gdn_mulmat3T(cb, d->xmat + 9 * b, dcbar);
    gdn_mulmat3T(omegabar, d->ximat + 9 * b, thbar);
    for (int i = 0; i < 3; i++) {
        const int j = (i + 1) % 3, l = (i + 2) % 3;
        sbar[4 * i] = dmlbar[1 + i];
        const double gap = lam[j] - lam[l];
        sbar[3 * l + j] = m->opt.density > 0 && gap != 0 ? omegabar[i] / gap : 0;
    }
    // Dbar = Q sbar Q'
    double Dbar[9];
    for (int a = 0; a < 3; a++) {
        for (int c = 0; c < 3; c++) {
            double acc = 0;
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 3; k++) {
                    acc += Q[3 * a + j] * sbar[3 * j + k] * Q[3 * c + k];
                }
            }
            Dbar[3 * a + c] = acc;
        }
    }
    gp[0] += dmlbar[0];
    for (int k = 0; k < 3; k++) {
        gp[1 + k] += cb[k];
        gp[4 + k] += Dbar[4 * k];
    }
    gp[7] += Dbar[1] + Dbar[3];
    gp[8] += Dbar[2] + Dbar[6];
    gp[9] += Dbar[5] + Dbar[7];
}

const char* gdn_fluid_param_refusal(const gdnModel* m) {
    if (!(m->opt.density > 0)) {
        return NULL;
    }
    for (int b = 1; gdn_fluid_active(m) && b < m->nbody; b++) {
        if (!(m->body_mass[b] >= GDN_MINVAL) || body_ellipsoid(m, b)) {
            continue;
        }
        const double* I = m->body_inertia + 3 * b;
        const double top = fmax(fmax(I[0], I[1]), I[2]);
        for (int k = 0; k < 3; k++) {
            if (fabs(I[k] - I[(k + 1) % 3]) <= GDN_FLUID_AXES_GAP * top) {
                return GDN_FLUID_PARAM_REFUSAL;
            }
        }
    }
    return NULL;
}

// the tangent of every element: xi_b = [dth; dp] moves a body's elements (dc = dth x c + dp,
// dR = [dth]x R), eta_b = [dw; dv_O] their twists; a box also moves with its parameters
void gdn_fluid_wrench_jvp(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                          const double* xi, const double* eta, const double* dparam,
                          double* dW) {
    for (int b = 0, g = -1; next_element(m, &b, &g);) {
        if (!(kinds & (g < 0 ? GDN_FLUID_BOX : GDN_FLUID_ELLIPSOID))) {
            continue;
        }
        fluidElem el, *e = &el;
        elem_setup(m, d, V, b, g, e);
        const double zero[6] = {0, 0, 0, 0, 0, 0};
        const double* x = xi ? xi + 6 * b : zero;
        const double* et = eta ? eta + 6 * b : zero;
        double th[3], dc[3], dcoef[12];
        gdn_copy3(th, x);
        gdn_cross3(dc, x, e->c);
        gdn_add3(dc, dc, x + 3);
        const int param = dparam && g < 0;
        if (param) {
            double tp[3], cp[3], dml[4], Jc[12][4];
            box_param_tangent(m, d, b, dparam + GDN_N_INERTIA_PARAMS * b, tp, cp, dml);
            gdn_add3(th, th, tp);
            gdn_add3(dc, dc, cp);
            box_coefficient_jacobian(m, b, Jc);
            for (int r = 0; r < 12; r++) {
                dcoef[r] = Jc[r][0] * dml[0] + Jc[r][1] * dml[1] + Jc[r][2] * dml[2] +
                           Jc[r][3] * dml[3];
            }
        }
        elem_tangent(m, e, th, dc, et, param ? dcoef : NULL, dW + 6 * b);
    }
}

// the adjoint: xibar_b += [thbar + c x dcbar; dcbar], etabar_b += etbar, a box's gparam_b +=
// its parameters' share
void gdn_fluid_wrench_vjp(const gdnModel* m, const gdnData* d, const double* V, int kinds,
                          const double* Wbar, double* xibar, double* etabar, double* gparam) {
    for (int b = 0, g = -1; next_element(m, &b, &g);) {
        if (!(kinds & (g < 0 ? GDN_FLUID_BOX : GDN_FLUID_ELLIPSOID))) {
            continue;
        }
        fluidElem el, *e = &el;
        elem_setup(m, d, V, b, g, e);
        double thbar[3] = {0, 0, 0}, dcbar[3] = {0, 0, 0}, etbar[6] = {0, 0, 0, 0, 0, 0};
        double coefbar[12] = {0};
        const int param = gparam && g < 0;
        elem_adjoint(m, e, Wbar + 6 * b, thbar, dcbar, etbar, param ? coefbar : NULL);
        if (param) {
            double Jc[12][4], dmlbar[4] = {0, 0, 0, 0};
            box_coefficient_jacobian(m, b, Jc);
            for (int r = 0; r < 12; r++) {
                for (int c = 0; c < 4; c++) {
                    dmlbar[c] += Jc[r][c] * coefbar[r];
                }
            }
            box_param_adjoint(m, d, b, thbar, dcbar, dmlbar, gparam + GDN_N_INERTIA_PARAMS * b);
        }
        if (xibar) {
            double* xb = xibar + 6 * b;
            double t[3];
            gdn_cross3(t, e->c, dcbar);
            for (int k = 0; k < 3; k++) {
                xb[k] += thbar[k] + t[k];
                xb[3 + k] += dcbar[k];
            }
        }
        if (etabar) {
            for (int k = 0; k < 6; k++) {
                etabar[6 * b + k] += etbar[k];
            }
        }
    }
}

// ---------------------------------------------------------------- second order (implicit step)

// ellipsoid_law's force in hyper-dual arithmetic (the same expressions, math/hyperdual.h): with
// l carrying two directions and their mixed term, f's e1 e2 part is the law's second
// derivative f''[u, v] (+ J of the e1 e2 seed), exactly
static void ellipsoid_law_hd(const double* fl, const double s[3], double rho, double mu,
                             const gdnHd l[6], gdnHd f[6]) {
    const gdnHd* w = l;
    const gdnHd* v = l + 3;
    const double* vm = fl + 6;
    const double* vi = fl + 9;
    const double coef = fl[0], blunt = fl[1], slender = fl[2], angular = fl[3];
    const double kutta = fl[4], magnus = fl[5];
    gdnHd p[3], L[3], t[3];
    for (int k = 0; k < 3; k++) {
        p[k] = gdn_hd_scl(v[k], rho * vm[k]);
        L[k] = gdn_hd_scl(w[k], rho * vi[k]);
    }
    gdn_hd_cross3(f + 3, p, w);
    gdn_hd_cross3(f, p, v);
    gdn_hd_cross3(t, L, w);
    for (int k = 0; k < 3; k++) {
        f[k] = gdn_hd_add(f[k], t[k]);
    }
    const double volume = 4.0 / 3.0 * GDN_PI * s[0] * s[1] * s[2];
    const double dmax = fmax(fmax(s[0], s[1]), s[2]), dmin = fmin(fmin(s[0], s[1]), s[2]);
    const double dmid = s[0] + s[1] + s[2] - dmax - dmin;
    const double Amax = GDN_PI * dmax * dmid;
    const double c[3] = {s[1] * s[2] * s[1] * s[2], s[2] * s[0] * s[2] * s[0],
                         s[0] * s[1] * s[0] * s[1]};
    gdnHd mag[3];
    gdn_hd_cross3(mag, w, v);
    const double cm = magnus * rho * volume;
    gdnHd pd = gdn_hd(0), pn = gdn_hd(0), n[3];
    for (int k = 0; k < 3; k++) {
        const gdnHd vv = gdn_hd_mul(v[k], v[k]);
        pd = gdn_hd_add(pd, gdn_hd_scl(vv, c[k] * c[k]));
        pn = gdn_hd_add(pn, gdn_hd_scl(vv, c[k]));
        n[k] = gdn_hd_scl(v[k], c[k]);
    }
    const gdnHd A = gdn_hd_scl(gdn_hd_sqrt(gdn_hd_div(pd, gdn_hd_fmax(pn, GDN_MINVAL))), GDN_PI);
    const gdnHd speed = gdn_hd_sqrt(gdn_hd_dot3(v, v));
    const gdnHd cosa = gdn_hd_div(pn, gdn_hd_fmax(gdn_hd_mul(speed, pd), GDN_MINVAL));
    const gdnHd ks = gdn_hd_scl(gdn_hd_mul(cosa, A), kutta * rho);
    gdnHd kc[3], kf[3];
    gdn_hd_cross3(kc, n, v);
    for (int k = 0; k < 3; k++) {
        kc[k] = gdn_hd_mul(kc[k], ks);
    }
    gdn_hd_cross3(kf, kc, v);
    const double D = 2.0 / 3.0 * (s[0] + s[1] + s[2]);
    const double Imax = 8.0 / 15.0 * GDN_PI * dmid * dmax * dmax * dmax * dmax;
    gdnHd mv[3];
    for (int k = 0; k < 3; k++) {
        const double e = fmax(s[(k + 1) % 3], s[(k + 2) % 3]);
        const double II = 8.0 / 15.0 * GDN_PI * s[k] * e * e * e * e;
        mv[k] = gdn_hd_scl(w[k], angular * II + slender * (Imax - II));
    }
    const gdnHd mvn = gdn_hd_sqrt(gdn_hd_dot3(mv, mv));
    // dlin = mu 3 pi D + rho |v| (A blunt + slender (Amax - A)), dang = mu pi D^3 + rho |mv|
    const gdnHd area = gdn_hd_add(gdn_hd_scl(A, blunt - slender), gdn_hd(slender * Amax));
    const gdnHd dlin =
        gdn_hd_add(gdn_hd(mu * 3.0 * GDN_PI * D), gdn_hd_scl(gdn_hd_mul(speed, area), rho));
    const gdnHd dang = gdn_hd_add(gdn_hd(mu * GDN_PI * D * D * D), gdn_hd_scl(mvn, rho));
    for (int k = 0; k < 3; k++) {
        f[k] = gdn_hd_scl(gdn_hd_sub(f[k], gdn_hd_mul(dang, w[k])), coef);
        f[3 + k] = gdn_hd_scl(gdn_hd_add(f[3 + k], gdn_hd_sub(gdn_hd_add(gdn_hd_scl(mag[k], cm),
                                                                        kf[k]),
                                                             gdn_hd_mul(dlin, v[k]))),
                              coef);
    }
}

// an ellipsoid element's world wrench W = [R f_ang + c x R f_lin; R f_lin] at its point c, frame
// R and world-origin twist V = [w; v_O], all hyper-dual (fluid.h's law)
static void elem_wrench_hd(const gdnModel* m, const fluidElem* e, const gdnHd c[3],
                           const gdnHd R[9], const gdnHd V[6], gdnHd W[6]) {
    gdnHd wc[3], vrel[3], l[6], f[6], tau[3], F[3], cF[3];
    gdn_hd_cross3(wc, V, c);
    for (int k = 0; k < 3; k++) {
        vrel[k] = gdn_hd_sub(gdn_hd_add(wc[k], V[3 + k]), gdn_hd(m->opt.wind[k]));
    }
    gdn_hd_mulmat3T(l, R, V);
    gdn_hd_mulmat3T(l + 3, R, vrel);
    ellipsoid_law_hd(e->fl, e->semi, m->opt.density, m->opt.viscosity, l, f);
    gdn_hd_mulmat3(tau, R, f);
    gdn_hd_mulmat3(F, R, f + 3);
    gdn_hd_cross3(cF, c, F);
    for (int k = 0; k < 3; k++) {
        W[k] = gdn_hd_add(tau[k], cF[k]);
        W[3 + k] = F[k];
    }
}

// the element's hyper-dual inputs: e1 moves the twist by u, e2 moves the pose by x = [dth; dp]
// (dc = dth x c + dp, dR = [dth]x R) and the twist by et, e1 e2 moves the twist by ut
static void elem_seed_hd(const fluidElem* e, const double V[6], const double u[6],
                         const double x[6], const double et[6], const double* ut, gdnHd c[3],
                         gdnHd R[9], gdnHd Vh[6]) {
    double dc[3], dR[9];
    gdn_cross3(dc, x, e->c);
    gdn_add3(dc, dc, x + 3);
    for (int col = 0; col < 3; col++) {
        const double Rc[3] = {e->R[col], e->R[3 + col], e->R[6 + col]};
        double t[3];
        gdn_cross3(t, x, Rc);
        for (int r = 0; r < 3; r++) {
            dR[3 * r + col] = t[r];
        }
    }
    for (int k = 0; k < 3; k++) {
        c[k] = (gdnHd){e->c[k], 0, dc[k], 0};
    }
    for (int k = 0; k < 9; k++) {
        R[k] = (gdnHd){e->R[k], 0, dR[k], 0};
    }
    for (int k = 0; k < 6; k++) {
        Vh[k] = (gdnHd){V[k], u[k], et[k], ut ? ut[k] : 0};
    }
}

void gdn_fluid_ellipsoid_qderiv_jvp(const gdnModel* m, const gdnData* d, const double* V,
                                    const double* Va, const double* xi, const double* eta,
                                    const double* etaa, double* Wa, double* dWa) {
    for (int b = 0, g = -1; next_element(m, &b, &g);) {
        if (g < 0) {
            continue; // the box: polarized with the bias (gradient/implicit_derivative.c)
        }
        fluidElem el, *e = &el;
        elem_setup(m, d, V, b, g, e);
        const double zero[6] = {0, 0, 0, 0, 0, 0};
        gdnHd c[3], R[9], Vh[6], W[6];
        elem_seed_hd(e, V + 6 * b, Va + 6 * b, xi ? xi + 6 * b : zero, eta ? eta + 6 * b : zero,
                     etaa ? etaa + 6 * b : NULL, c, R, Vh);
        elem_wrench_hd(m, e, c, R, Vh, W);
        for (int k = 0; k < 6; k++) {
            Wa[6 * b + k] += W[k].b;
            dWa[6 * b + k] += W[k].d;
        }
    }
}

void gdn_fluid_ellipsoid_qderiv_vjp(const gdnModel* m, const gdnData* d, const double* V,
                                    const double* Va, const double* Wbar, double* xibar,
                                    double* etabar, double* etaabar) {
    for (int b = 0, g = -1; next_element(m, &b, &g);) {
        if (g < 0) {
            continue;
        }
        fluidElem el, *e = &el;
        elem_setup(m, d, V, b, g, e);
        const double* wb = Wbar + 6 * b;
        // the pose and twist directions one by one: <Wbar, W''[Va, e_k]>
        for (int k = 0; k < 12; k++) {
            double x[6] = {0, 0, 0, 0, 0, 0}, et[6] = {0, 0, 0, 0, 0, 0};
            if (k < 6) {
                x[k] = 1;
            } else {
                et[k - 6] = 1;
            }
            gdnHd c[3], R[9], Vh[6], W[6];
            elem_seed_hd(e, V + 6 * b, Va + 6 * b, x, et, NULL, c, R, Vh);
            elem_wrench_hd(m, e, c, R, Vh, W);
            double s = 0;
            for (int r = 0; r < 6; r++) {
                s += wb[r] * W[r].d;
            }
            if (k < 6) {
                xibar[6 * b + k] += s;
            } else {
                etabar[6 * b + k - 6] += s;
            }
        }
        // the e1 e2 twist seed enters linearly: etaabar = K' Wbar (the element's adjoint)
        double thbar[3] = {0, 0, 0}, dcbar[3] = {0, 0, 0};
        elem_adjoint(m, e, wb, thbar, dcbar, etaabar + 6 * b, NULL);
    }
}
