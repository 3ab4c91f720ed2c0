// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's inertia-box fluid forces as body wrenches, with their tangent and adjoint.
#include "dynamics/fluid.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/body_wrench.h"
#include "math/vec.h"

#define GDN_PI 3.14159265358979323846

// the local law's coefficients of body b: f_k = -beta_k l_k - gamma_k |l_k| l_k (fluid.h);
// 0 when the body is below MuJoCo's mass threshold
static int fluid_coefficients(const gdnModel* m, int b, double beta[6], double gamma[6]) {
    const double mass = m->body_mass[b];
    if (mass < GDN_MINVAL) {
        return 0;
    }
    const double* I = m->body_inertia + 3 * b;
    double box[3];
    box[0] = sqrt(fmax(GDN_MINVAL, I[1] + I[2] - I[0]) / mass * 6.0);
    box[1] = sqrt(fmax(GDN_MINVAL, I[0] + I[2] - I[1]) / mass * 6.0);
    box[2] = sqrt(fmax(GDN_MINVAL, I[0] + I[1] - I[2]) / mass * 6.0);
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
    return 1;
}

// one body's kinematic quantities: c, R, the world twist about the COM (w, v_c - wind) and the
// local velocity l
typedef struct {
    const double* c;
    const double* R;
    double w[3], vrel[3]; // w and v_c - wind (world)
    double l[6];          // [R' w; R' vrel]
} fluidBody;

static void fluid_body(const gdnModel* m, const gdnData* d, const double* V, int b,
                       fluidBody* fb) {
    fb->c = d->xipos + 3 * b;
    fb->R = d->ximat + 9 * b;
    const double* Vb = V + 6 * b;
    double wc[3];
    gdn_copy3(fb->w, Vb);
    gdn_cross3(wc, Vb, fb->c);
    for (int k = 0; k < 3; k++) {
        fb->vrel[k] = wc[k] + Vb[3 + k] - m->opt.wind[k];
    }
    gdn_mulmat3T(fb->l, fb->R, fb->w);
    gdn_mulmat3T(fb->l + 3, fb->R, fb->vrel);
}

void gdn_fluid_wrenches(const gdnModel* m, const gdnData* d, const double* V, double* W) {
    for (int b = 1; b < m->nbody; b++) {
        double beta[6], gamma[6];
        if (!fluid_coefficients(m, b, beta, gamma)) {
            continue;
        }
        fluidBody fb;
        fluid_body(m, d, V, b, &fb);
        // f = -beta l - gamma |l| l, then the world torque about c and the force
        double f[6], tau[3], F[3], cF[3];
        for (int k = 0; k < 6; k++) {
            f[k] = -beta[k] * fb.l[k] - gamma[k] * fabs(fb.l[k]) * fb.l[k];
        }
        gdn_mulmat3(tau, fb.R, f);
        gdn_mulmat3(F, fb.R, f + 3);
        gdn_cross3(cF, fb.c, F);
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
    gdn_fluid_wrenches(m, d, V, W);
    gdn_body_wrench_qfrc(m, d, W, scratch, qfrc);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// Tangent, with xi_b = [dth; dp] and eta_b = [dw; dv_O]:
//   dc = dth x c + dp,  dR = [dth]x R,  dvrel = dw x c + w x dc + dv_O
//   dl = [R' (dw - dth x w); R' (dvrel - dth x vrel)],  df_k = -(beta_k + 2 gamma_k |l_k|) dl_k
//   dtau = dth x tau + R df_ang,  dF = dth x F + R df_lin
//   dW_b += [dtau + dc x F + c x dF; dF]
void gdn_fluid_wrench_jvp(const gdnModel* m, const gdnData* d, const double* V, const double* xi,
                          const double* eta, double* dW) {
    for (int b = 1; b < m->nbody; b++) {
        double beta[6], gamma[6];
        if (!fluid_coefficients(m, b, beta, gamma)) {
            continue;
        }
        fluidBody fb;
        fluid_body(m, d, V, b, &fb);
        const double zero[6] = {0, 0, 0, 0, 0, 0};
        const double* x = xi ? xi + 6 * b : zero;
        const double* e = eta ? eta + 6 * b : zero;
        double f[6], tau[3], F[3];
        for (int k = 0; k < 6; k++) {
            f[k] = -beta[k] * fb.l[k] - gamma[k] * fabs(fb.l[k]) * fb.l[k];
        }
        gdn_mulmat3(tau, fb.R, f);
        gdn_mulmat3(F, fb.R, f + 3);
        // dc, dvrel, dl
        double dc[3], t1[3], t2[3], dvrel[3], u[3], dl[6];
        gdn_cross3(t1, x, fb.c);
        gdn_add3(dc, t1, x + 3);
        gdn_cross3(t1, e, fb.c);
        gdn_cross3(t2, fb.w, dc);
        for (int k = 0; k < 3; k++) {
            dvrel[k] = t1[k] + t2[k] + e[3 + k];
        }
        gdn_cross3(t1, x, fb.w);
        gdn_sub3(u, e, t1);
        gdn_mulmat3T(dl, fb.R, u);
        gdn_cross3(t1, x, fb.vrel);
        gdn_sub3(u, dvrel, t1);
        gdn_mulmat3T(dl + 3, fb.R, u);
        // df, dtau, dF
        double df[6], dtau[3], dF[3];
        for (int k = 0; k < 6; k++) {
            df[k] = -(beta[k] + 2 * gamma[k] * fabs(fb.l[k])) * dl[k];
        }
        gdn_mulmat3(t1, fb.R, df);
        gdn_cross3(t2, x, tau);
        gdn_add3(dtau, t1, t2);
        gdn_mulmat3(t1, fb.R, df + 3);
        gdn_cross3(t2, x, F);
        gdn_add3(dF, t1, t2);
        // dW_b += [dtau + dc x F + c x dF; dF]
        double* dWb = dW + 6 * b;
        gdn_cross3(t1, dc, F);
        gdn_cross3(t2, fb.c, dF);
        for (int k = 0; k < 3; k++) {
            dWb[k] += dtau[k] + t1[k] + t2[k];
            dWb[3 + k] += dF[k];
        }
    }
}

// The adjoint of the tangent above, with Wbar_b = [tb; Fb]:
//   Fbar = Fb + tb x c,  cbar = F x tb,  taubar = tb
//   dthbar += tau x taubar + F x Fbar,  fbar = [R' taubar; R' Fbar],  lbar_k = D_k fbar_k
//   ua = R lbar_ang, ul = R lbar_lin:  dwbar += ua,  dthbar -= w x ua + vrel x ul,  vrelbar = ul
//   dwbar += c x vrelbar,  cbar += vrelbar x w,  dvbar += vrelbar
//   dthbar += c x cbar,  dpbar += cbar
void gdn_fluid_wrench_vjp(const gdnModel* m, const gdnData* d, const double* V,
                          const double* Wbar, double* xibar, double* etabar) {
    for (int b = 1; b < m->nbody; b++) {
        double beta[6], gamma[6];
        if (!fluid_coefficients(m, b, beta, gamma)) {
            continue;
        }
        fluidBody fb;
        fluid_body(m, d, V, b, &fb);
        double f[6], tau[3], F[3];
        for (int k = 0; k < 6; k++) {
            f[k] = -beta[k] * fb.l[k] - gamma[k] * fabs(fb.l[k]) * fb.l[k];
        }
        gdn_mulmat3(tau, fb.R, f);
        gdn_mulmat3(F, fb.R, f + 3);
        const double* tb = Wbar + 6 * b;
        const double* Fb = Wbar + 6 * b + 3;
        double Fbar[3], cbar[3], thbar[3], t1[3], t2[3];
        gdn_cross3(t1, tb, fb.c);
        gdn_add3(Fbar, Fb, t1);
        gdn_cross3(cbar, F, tb);
        gdn_cross3(t1, tau, tb);
        gdn_cross3(t2, F, Fbar);
        gdn_add3(thbar, t1, t2);
        double fbar[6], lbar[6], ua[3], ul[3];
        gdn_mulmat3T(fbar, fb.R, tb);
        gdn_mulmat3T(fbar + 3, fb.R, Fbar);
        for (int k = 0; k < 6; k++) {
            lbar[k] = -(beta[k] + 2 * gamma[k] * fabs(fb.l[k])) * fbar[k];
        }
        gdn_mulmat3(ua, fb.R, lbar);
        gdn_mulmat3(ul, fb.R, lbar + 3);
        double wbar[3], vbar[3];
        gdn_copy3(wbar, ua);
        gdn_cross3(t1, fb.w, ua);
        gdn_cross3(t2, fb.vrel, ul);
        for (int k = 0; k < 3; k++) {
            thbar[k] -= t1[k] + t2[k];
        }
        // vrel = w x c + v_O - wind
        gdn_cross3(t1, fb.c, ul);
        gdn_add3(wbar, wbar, t1);
        gdn_cross3(t1, ul, fb.w);
        gdn_add3(cbar, cbar, t1);
        gdn_copy3(vbar, ul);
        // c moves with the body: dc = dth x c + dp
        gdn_cross3(t1, fb.c, cbar);
        gdn_add3(thbar, thbar, t1);
        if (xibar) {
            double* xb = xibar + 6 * b;
            for (int k = 0; k < 3; k++) {
                xb[k] += thbar[k];
                xb[3 + k] += cbar[k];
            }
        }
        if (etabar) {
            double* eb = etabar + 6 * b;
            for (int k = 0; k < 3; k++) {
                eb[k] += wbar[k];
                eb[3 + k] += vbar[k];
            }
        }
    }
}
