// SPDX-License-Identifier: Apache-2.0
// Exact derivatives of the passive forces (joint springs incl. quaternion springs, damping,
// fixed-tendon spring-dampers).
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/force_derivative.h"
#include "dynamics/passive.h"
#include "kinematics/tendon_derivative.h"
#include "math/vec.h"

// Jinv = I + 1/2 [t]x + c [t]x^2,  c = 1/|t|^2 - cot(|t|/2) / (2 |t|)
// (series c = 1/12 + |t|^2/720 + |t|^4/30240 for small |t|)
void gdn_so3_right_jacobian_inv(const double t[3], double Jinv[9]) {
    double a2 = gdn_dot3(t, t);
    double c;
    if (a2 < 1e-6) {
        c = 1.0 / 12 + a2 / 720 + a2 * a2 / 30240;
    } else {
        double a = sqrt(a2);
        c = 1 / a2 - cos(a / 2) / (2 * a * sin(a / 2));
    }
    // [t]x^2 = t t' - |t|^2 I
    double K[9] = {0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double k2 = t[i] * t[j] - (i == j ? a2 : 0);
            Jinv[3 * i + j] = (i == j) + 0.5 * K[3 * i + j] + c * k2;
        }
    }
}

// the rotational spring's Jacobian: d qfrc / d dq = -k Jinv(theta), theta = log(q0^-1 q)
static void quat_spring_jacobian(const double* q, const double* q0, double k, double J[9]) {
    double theta[3];
    gdn_quat_spring_dif(theta, q, q0);
    gdn_so3_right_jacobian_inv(theta, J);
    for (int i = 0; i < 9; i++) {
        J[i] *= -k;
    }
}

// Visit every spring block: (dof address, size, Jacobian n x n row-major, n = 1 or 3)
typedef void spring_block_fn(void* ctx, int dof, int n, const double* J);

static void for_each_spring(const gdnModel* m, const gdnData* d, spring_block_fn* fn,
                            void* ctx) {
    for (int j = 0; j < m->njnt; j++) {
        double k = m->jnt_stiffness[j];
        if (k == 0) {
            continue;
        }
        int padr = m->jnt_qposadr[j];
        int dadr = m->jnt_dofadr[j];
        const double* q = d->qpos + padr;
        const double* q0 = m->qpos_spring + padr;
        double J[9];
        double mk = -k;
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            for (int i = 0; i < 3; i++) {
                fn(ctx, dadr + i, 1, &mk);
            }
            quat_spring_jacobian(q + 3, q0 + 3, k, J);
            fn(ctx, dadr + 3, 3, J);
            break;
        case GDN_JNT_BALL:
            quat_spring_jacobian(q, q0, k, J);
            fn(ctx, dadr, 3, J);
            break;
        default:
            fn(ctx, dadr, 1, &mk);
            break;
        }
    }
}

typedef struct {
    const double* x; // input (dq or y)
    double* out;     // output
    double* dense;   // nv x nv
    double scale;
    size_t ld;
} spring_ctx;

static void spring_jvp(void* vctx, int dof, int n, const double* J) {
    spring_ctx* c = vctx;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) {
            c->out[dof + i] += J[n * i + k] * c->x[dof + k];
        }
    }
}

static void spring_vjp(void* vctx, int dof, int n, const double* J) {
    spring_ctx* c = vctx;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) {
            c->out[dof + k] += J[n * i + k] * c->x[dof + i];
        }
    }
}

static void spring_dense(void* vctx, int dof, int n, const double* J) {
    spring_ctx* c = vctx;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) {
            c->dense[(size_t)(dof + i) * c->ld + (size_t)(dof + k)] +=
                c->scale * J[n * i + k];
        }
    }
}

// A fixed tendon t adds J' f, f = -k (J q - L_spring) - b J v with J constant (coef_p on the
// dof of path joint p): d qfrc = J' (-k J dq - b J dv); its path gives J's nonzeros
static double tendon_dot(const gdnModel* m, int t, const double* x) {
    double s = 0;
    for (int p = m->tendon_adr[t]; p < m->tendon_adr[t] + m->tendon_num[t]; p++) {
        s += m->wrap_prm[p] * x[m->jnt_dofadr[m->wrap_objid[p]]];
    }
    return s;
}

static void tendon_add(const gdnModel* m, int t, double c, double* out) {
    for (int p = m->tendon_adr[t]; p < m->tendon_adr[t] + m->tendon_num[t]; p++) {
        out[m->jnt_dofadr[m->wrap_objid[p]]] += m->wrap_prm[p] * c;
    }
}

// A spatial tendon: f = -k (L - L_spring) - b J v, qfrc += J' f with J = J(q):
//   d qfrc = J' df + f DJ dq,  df = -k J dq - b (J dv + (DJ dq) . v)
// (fixed tendons: DJ = 0, the path's coefficients above). The tendons with a spring or damper
static int tendon_passive(const gdnModel* m, int t) {
    return m->tendon_stiffness[t] != 0 || m->tendon_damping[t] != 0;
}

// the spatial tendon t's linearization and its force f; 0 when t needs nothing here, -1 when
// it has no linearization (gdn_tendon_linear: the caller refuses)
static int spatial_passive(const gdnModel* m, gdnData* d, gdnTendonWork* w, int t, double* f) {
    if (!gdn_tendon_is_spatial(m, t) || !tendon_passive(m, t)) {
        return 0;
    }
    double L, V;
    if (gdn_tendon_linear(m, d, w->S, t, &L, &V, w->J, w->DJ, w->scratch) < 0) {
        return -1;
    }
    *f = -m->tendon_stiffness[t] * (L - m->tendon_lengthspring[t]) - m->tendon_damping[t] * V;
    return 1;
}

static int any_spatial_passive(const gdnModel* m) {
    for (int t = 0; t < m->ntendon; t++) {
        if (gdn_tendon_is_spatial(m, t) && tendon_passive(m, t)) {
            return 1;
        }
    }
    return 0;
}

// the spatial tendons with passive forces, each linearized once: fn(t, f, w, u, ctx) with w's J,
// DJ (its w free scratch) and an nv scratch u; GDN_ERR_UNSUPPORTED for a tendon without a
// linearization (an inside wrap without a root), GDN_ERR_MEMORY
typedef void spatialFn(const gdnModel* m, const gdnData* d, int t, double f,
                       const gdnTendonWork* w, double* u, void* ctx);

static gdnStatus for_each_spatial(const gdnModel* m, gdnData* d, spatialFn* fn, void* ctx) {
    if (!any_spatial_passive(m)) {
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    gdnTendonWork w;
    double* u = gdn_arena_doubles(d, (size_t)m->nv + 1);
    if (!u || gdn_tendon_work_alloc(m, d, &w) != GDN_OK) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    gdnStatus status = GDN_OK;
    for (int t = 0; t < m->ntendon && status == GDN_OK; t++) {
        double f;
        const int lin = spatial_passive(m, d, &w, t, &f);
        if (lin < 0) {
            status = GDN_ERR_UNSUPPORTED;
        } else if (lin) {
            fn(m, d, t, f, &w, u, ctx);
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

static double dotn(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

// the callbacks of the three products: a spatial tendon's f = -k (L - L_s) - b J v with
// J = J(q) adds, with dL = J dq and dV = J dv + (DJ dq) . v,
//   JVP:   d qfrc += J (-k dL - b dV) + f DJ dq
//   VJP:   fbar = J . y;  gq += -k fbar J + DJ' (f y - b fbar v),  gv += -b fbar J
//   dense: Dq(r, c) += s (J_r (-k J_c - b (DJ' v)_c) + f DJ(r, c)),  Dv(r, c) += s J_r (-b J_c)
typedef struct {
    const double *dq, *dv;
    double* dfrc;
} passiveDir;

static void spatial_jvp(const gdnModel* m, const gdnData* d, int t, double f,
                        const gdnTendonWork* w, double* u, void* ctx) {
    const passiveDir* p = ctx;
    const int nv = m->nv;
    double dL = 0, dV = 0;
    if (p->dq) {
        gdn_tendon_dj_mul(nv, w->DJ, p->dq, u);
        dL = dotn(w->J, p->dq, nv);
        dV = dotn(u, d->qvel, nv);
    } else {
        memset(u, 0, sizeof(double) * (size_t)nv);
    }
    if (p->dv) {
        dV += dotn(w->J, p->dv, nv);
    }
    const double df = -m->tendon_stiffness[t] * dL - m->tendon_damping[t] * dV;
    for (int i = 0; i < nv; i++) {
        p->dfrc[i] += w->J[i] * df + f * u[i];
    }
}

typedef struct {
    const double* y;
    double *gq, *gv;
} passiveAdj;

static void spatial_vjp(const gdnModel* m, const gdnData* d, int t, double f,
                        const gdnTendonWork* w, double* u, void* ctx) {
    const passiveAdj* p = ctx;
    const int nv = m->nv;
    const double k = m->tendon_stiffness[t], b = m->tendon_damping[t];
    const double fbar = dotn(w->J, p->y, nv);
    if (p->gq) {
        for (int i = 0; i < nv; i++) {
            u[i] = f * p->y[i] - b * fbar * d->qvel[i];
        }
        gdn_tendon_dj_mul_t(nv, w->DJ, u, w->w);
        for (int i = 0; i < nv; i++) {
            p->gq[i] += -k * fbar * w->J[i] + w->w[i];
        }
    }
    if (p->gv) {
        for (int i = 0; i < nv; i++) {
            p->gv[i] += -b * fbar * w->J[i];
        }
    }
}

typedef struct {
    double scale;
    double *Dq, *Dv;
    size_t ld;
} passiveDense;

static void spatial_dense(const gdnModel* m, const gdnData* d, int t, double f,
                          const gdnTendonWork* w, double* u, void* ctx) {
    const passiveDense* p = ctx;
    const size_t n = (size_t)m->nv, lds = p->ld;
    const double k = m->tendon_stiffness[t], b = m->tendon_damping[t], scale = p->scale;
    gdn_tendon_dj_mul_t(m->nv, w->DJ, d->qvel, u); // (DJ' v)_c
    for (size_t r = 0; r < n; r++) {
        const double jr = scale * w->J[r];
        for (size_t c = 0; c < n; c++) {
            if (p->Dq) {
                p->Dq[r * lds + c] += jr * (-k * w->J[c] - b * u[c]) + scale * f * w->DJ[r * n + c];
            }
            if (p->Dv) {
                p->Dv[r * lds + c] += jr * (-b * w->J[c]);
            }
        }
    }
}

// qfrc_passive = -k (q (-) q_spring) - b qvel:  d = -k Jinv dq (rotations), -k dq, -b dv
gdnStatus gdn_passive_jvp(const gdnModel* m, gdnData* d, const double* dq, const double* dv,
                          double* dfrc) {
    if (m->opt.disableflags & GDN_DSBL_PASSIVE) {
        return GDN_OK;
    }
    if (dq) {
        spring_ctx c = {dq, dfrc, NULL, 0, 0};
        for_each_spring(m, d, spring_jvp, &c);
    }
    if (dv) {
        for (int i = 0; i < m->nv; i++) {
            dfrc[i] -= m->dof_damping[i] * dv[i];
        }
    }
    for (int t = 0; t < m->ntendon; t++) {
        if (gdn_tendon_is_spatial(m, t)) {
            continue;
        }
        const double k = m->tendon_stiffness[t], b = m->tendon_damping[t];
        const double df = (dq && k != 0 ? -k * tendon_dot(m, t, dq) : 0) +
                          (dv && b != 0 ? -b * tendon_dot(m, t, dv) : 0);
        tendon_add(m, t, df, dfrc);
    }
    passiveDir dir = {dq, dv, dfrc};
    return for_each_spatial(m, d, spatial_jvp, &dir);
}

// the transpose (spatial tendons: spatial_vjp)
gdnStatus gdn_passive_vjp(const gdnModel* m, gdnData* d, const double* y, double* gq,
                          double* gv) {
    if (m->opt.disableflags & GDN_DSBL_PASSIVE) {
        return GDN_OK;
    }
    if (gq) {
        spring_ctx c = {y, gq, NULL, 0, 0};
        for_each_spring(m, d, spring_vjp, &c);
    }
    if (gv) {
        for (int i = 0; i < m->nv; i++) {
            gv[i] -= m->dof_damping[i] * y[i];
        }
    }
    for (int t = 0; t < m->ntendon; t++) {
        if (gdn_tendon_is_spatial(m, t)) {
            continue;
        }
        const double fbar = tendon_dot(m, t, y);
        if (gq) {
            tendon_add(m, t, -m->tendon_stiffness[t] * fbar, gq);
        }
        if (gv) {
            tendon_add(m, t, -m->tendon_damping[t] * fbar, gv);
        }
    }
    passiveAdj adj = {y, gq, gv};
    return for_each_spatial(m, d, spatial_vjp, &adj);
}

// dense: the fixed tendons over their path pairs, the spatial ones in spatial_dense
gdnStatus gdn_passive_dense(const gdnModel* m, gdnData* d, double scale, double* Dq,
                            double* Dv, int ld) {
    if (m->opt.disableflags & GDN_DSBL_PASSIVE) {
        return GDN_OK;
    }
    if (Dq) {
        spring_ctx c = {NULL, NULL, Dq, scale, (size_t)ld};
        for_each_spring(m, d, spring_dense, &c);
    }
    if (Dv) {
        for (int i = 0; i < m->nv; i++) {
            Dv[(size_t)i * (size_t)ld + (size_t)i] -= scale * m->dof_damping[i];
        }
    }
    for (int t = 0; t < m->ntendon; t++) {
        if (gdn_tendon_is_spatial(m, t)) {
            continue;
        }
        const int adr = m->tendon_adr[t], num = m->tendon_num[t];
        const double k = m->tendon_stiffness[t], b = m->tendon_damping[t];
        for (int p = adr; p < adr + num; p++) {
            const size_t r = (size_t)m->jnt_dofadr[m->wrap_objid[p]];
            const double cr = scale * m->wrap_prm[p];
            for (int q = adr; q < adr + num; q++) {
                const size_t c = (size_t)m->jnt_dofadr[m->wrap_objid[q]];
                if (Dq && k != 0) {
                    Dq[r * (size_t)ld + c] += cr * -k * m->wrap_prm[q];
                }
                if (Dv && b != 0) {
                    Dv[r * (size_t)ld + c] += cr * -b * m->wrap_prm[q];
                }
            }
        }
    }
    passiveDense dense = {scale, Dq, Dv, (size_t)ld};
    return for_each_spatial(m, d, spatial_dense, &dense);
}
