// SPDX-License-Identifier: Apache-2.0
// Tangent (JVP) and adjoint (VJP) of the penalty body wrenches, on the primal's active set.
#include <string.h>

#include "base/arena.h"
#include "dynamics/body_wrench.h"
#include "penalty/penalty.h"
#include "math/vec.h"

// body velocities of the primal state in arena memory above *mark (the arena's mark on entry);
// NULL, with the arena reset to *mark, when it is exhausted
static double* primal_velocities(const gdnModel* m, gdnData* d, size_t* mark) {
    *mark = gdn_arena_mark(d);
    double* V = gdn_arena_doubles(d, 6 * (size_t)m->nbody + 6 * (size_t)m->nv);
    if (!V) {
        gdn_arena_reset(d, *mark);
        return NULL;
    }
    gdn_body_velocities(m, d, V + 6 * (size_t)m->nbody, V);
    return V;
}

// For an active vertex (vert_force z > 0) at x on body b with velocity [w; v]:
//   dx = xi_ang x x + xi_lin + R dp
//   dxdot_z = (eta_ang x x)_z + eta_lin_z + (w x dx)_z
//   df = -k dx_z - c dxdot_z
//   dW_b += [dx_y f + x_y df, -dx_x f - x_x df, 0; 0, 0, df]
gdnStatus gdn_penalty_wrench_jvp(const gdnModel* m, gdnData* d, const double* xi,
                                 const double* eta, const double* dvert, double* dW) {
    const double k = m->penalty.stiffness, c = m->penalty.damping;
    memset(dW, 0, 6 * sizeof(double) * (size_t)m->nbody);
    size_t mark;
    double* V = primal_velocities(m, d, &mark);
    if (!V) {
        return GDN_ERR_MEMORY;
    }
    for (int b = 1; b < m->nbody; b++) {
        const int adr = m->body_vertadr[b], num = m->body_vertnum[b];
        const double* R = d->xmat + 9 * b;
        const double* w = V + 6 * b;
        double* dWb = dW + 6 * b;
        for (int i = adr; i < adr + num; i++) {
            const double f = d->vert_force[3 * i + 2];
            if (!(f > 0)) {
                continue;
            }
            const double* x = d->vert_xpos + 3 * i;
            double dx[3] = {0, 0, 0}, t[3];
            if (xi) {
                gdn_cross3(t, xi + 6 * b, x);
                gdn_add3(dx, t, xi + 6 * b + 3);
            }
            if (dvert) {
                gdn_mulmat3(t, R, dvert + 3 * i);
                gdn_add3(dx, dx, t);
            }
            double dxdot_z = w[0] * dx[1] - w[1] * dx[0];
            if (eta) {
                const double* ea = eta + 6 * b;
                dxdot_z += ea[0] * x[1] - ea[1] * x[0] + ea[5];
            }
            const double df = -k * dx[2] - c * dxdot_z;
            dWb[0] += dx[1] * f + x[1] * df;
            dWb[1] -= dx[0] * f + x[0] * df;
            dWb[5] += df;
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// Reverse of the JVP, per active vertex:
//   fbar = Wbar_5 + Wbar_0 x_y - Wbar_1 x_x;   xbar = (-Wbar_1 f, Wbar_0 f, -k fbar)
//   vbar = -c fbar (the cotangent of xdot_z):  xbar += vbar (e_z x w) = vbar (-w_y, w_x, 0)
//   etabar_ang += vbar (x x e_z) = vbar (x_y, -x_x, 0),  etabar_lin_z += vbar
//   xibar_ang += x x xbar,  xibar_lin += xbar,  gvert += R' xbar
gdnStatus gdn_penalty_wrench_vjp(const gdnModel* m, gdnData* d, const double* Wbar,
                                 double* xibar, double* etabar, double* gvert) {
    const double k = m->penalty.stiffness, c = m->penalty.damping;
    size_t mark;
    double* V = primal_velocities(m, d, &mark);
    if (!V) {
        return GDN_ERR_MEMORY;
    }
    for (int b = 1; b < m->nbody; b++) {
        const int adr = m->body_vertadr[b], num = m->body_vertnum[b];
        const double* R = d->xmat + 9 * b;
        const double* w = V + 6 * b;
        const double* Wb = Wbar + 6 * b;
        for (int i = adr; i < adr + num; i++) {
            const double f = d->vert_force[3 * i + 2];
            if (!(f > 0)) {
                continue;
            }
            const double* x = d->vert_xpos + 3 * i;
            const double fbar = Wb[5] + Wb[0] * x[1] - Wb[1] * x[0];
            const double vbar = -c * fbar;
            double xbar[3] = {-Wb[1] * f - vbar * w[1], Wb[0] * f + vbar * w[0], -k * fbar};
            if (etabar) {
                double* ea = etabar + 6 * b;
                ea[0] += vbar * x[1];
                ea[1] -= vbar * x[0];
                ea[5] += vbar;
            }
            if (xibar) {
                double t[3];
                gdn_cross3(t, x, xbar);
                double* xa = xibar + 6 * b;
                gdn_add3(xa, xa, t);
                gdn_add3(xa + 3, xa + 3, xbar);
            }
            if (gvert) {
                double t[3];
                gdn_mulmat3T(t, R, xbar);
                gdn_add3(gvert + 3 * i, gvert + 3 * i, t);
            }
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
