// SPDX-License-Identifier: Apache-2.0
// Tangent and adjoint of the contact rows in the contacts' friction, solref and solimp.
#include "constraint/rows_param_derivative.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "collision/contact_param_derivative.h"
#include "constraint/constraint.h"
#include "math/vec.h"

// y = x^(p - 1) written as in impedance.c (p == 2: x itself)
static double pow_minus_one(double x, double p) {
    return p == 2 ? x : pow(x, p - 1);
}

void gdn_impedance_param_grad(const double solimp[5], double pos, double margin, double g[5]) {
    const double dmin = solimp[0], dmax = solimp[1], width = solimp[2];
    const double mid = solimp[3], power = solimp[4];
    memset(g, 0, 5 * sizeof(double));
    if (width <= GDN_MINVAL) {
        g[0] = g[1] = 0.5; // the midpoint rule
        return;
    }
    double x = fabs(pos - margin) / width;
    if (x >= 1) {
        g[1] = 1;
        return;
    }
    if (x <= 0) {
        g[0] = 1;
        return;
    }
    // y(x; mid, power) and its partials: below the midpoint y = mid^(1-p) x^p, above it
    // 1 - y = (1 - mid)^(1-p) (1 - x)^p (power 1: y = x; its power derivative is the one of
    // the formula, one-sided at the clamp power >= 1)
    double y, dydx, dydmid, dydp;
    if (x <= mid) {
        y = pow(x, power) / pow_minus_one(mid, power);
        dydx = power * y / x;
        dydmid = (1 - power) * y / mid;
        dydp = y * (log(x) - log(mid));
    } else {
        const double z = pow(1 - x, power) / pow_minus_one(1 - mid, power);
        y = 1 - z;
        dydx = power * z / (1 - x);
        dydmid = (1 - power) * z / (1 - mid);
        dydp = -z * (log(1 - x) - log(1 - mid));
    }
    if (power == 1) {
        y = x;
        dydx = 1;
        dydmid = 0;
    }
    const double span = dmax - dmin;
    g[0] = 1 - y;
    g[1] = y;
    g[2] = span * dydx * (-x / width);
    g[3] = span * dydmid;
    g[4] = span * dydp;
}

// what one contact's rows read from its parameters, sanitized as impedance.c does, with the
// pass-through of each raw value (0 where a replacement or a clamp holds it)
typedef struct {
    double ref[2], refpass[2]; // solref after the mixed-sign rule, derivative pass
    double tc, tcpass;         // time constant after the 2 timestep floor
    double imp[5], imppass[5]; // clamped solimp
    double gimp[5];            // d imp / d raw solimp
} contactSetup;

static double clamp_imp(double x, double* pass) {
    *pass = x >= GDN_MINIMP && x <= GDN_MAXIMP;
    return fmin(GDN_MAXIMP, fmax(GDN_MINIMP, x));
}

static void contact_setup(const gdnModel* m, const gdnData* d, const gdnContact* con,
                          contactSetup* s) {
    const int i0 = con->efc_address;
    s->ref[0] = con->solref[0];
    s->ref[1] = con->solref[1];
    s->refpass[0] = s->refpass[1] = 1;
    if ((s->ref[0] > 0) ^ (s->ref[1] > 0)) {
        s->ref[0] = 0.02;
        s->ref[1] = 1;
        s->refpass[0] = s->refpass[1] = 0;
    }
    s->tc = s->ref[0];
    s->tcpass = s->refpass[0];
    if (!(m->opt.disableflags & GDN_DSBL_REFSAFE) && s->ref[0] > 0 &&
        s->ref[0] < 2 * m->opt.timestep) {
        s->tc = 2 * m->opt.timestep;
        s->tcpass = 0;
    }
    s->imp[0] = clamp_imp(con->solimp[0], s->imppass + 0);
    s->imp[1] = clamp_imp(con->solimp[1], s->imppass + 1);
    s->imp[2] = fmax(0, con->solimp[2]);
    s->imppass[2] = con->solimp[2] >= 0;
    s->imp[3] = clamp_imp(con->solimp[3], s->imppass + 3);
    s->imp[4] = fmax(1, con->solimp[4]);
    s->imppass[4] = con->solimp[4] >= 1;
    // every row of a contact shares the impedance of its first row's pos (the dist)
    gdn_impedance_param_grad(s->imp, d->efc_pos[i0], d->efc_margin[i0], s->gimp);
    for (int k = 0; k < 5; k++) {
        s->gimp[k] *= s->imppass[k];
    }
}

// number of rows of contact con
static int contact_rows(const gdnData* d, const gdnContact* con) {
    switch (d->efc_type[con->efc_address]) {
    case GDN_CNSTR_CONTACT_PYRAMIDAL:
        return 2 * (con->dim - 1);
    case GDN_CNSTR_CONTACT_ELLIPTIC:
        return con->dim;
    default:
        return 1;
    }
}

// J_k u of the contact's frame row k (k < 3: translational along frame row k; k >= 3: rotational
// about frame row k - 3) for the body twists T (6 nbody) of u: sum_s sigma_s e . (w_s x p + v_s)
// or sum_s sigma_s e . w_s, sigma = -1 for geom1's body, +1 for geom2's
static double frame_row_velocity(const gdnModel* m, const gdnContact* con, int k,
                                 const double* T) {
    const int body[2] = {m->geom_bodyid[con->geom1], m->geom_bodyid[con->geom2]};
    const double* e = con->frame + 3 * (k < 3 ? k : k - 3);
    double v = 0;
    for (int s = 0; s < 2; s++) {
        const double* t = T + 6 * body[s];
        double u[3];
        if (k < 3) {
            gdn_cross3(u, t, con->pos);
            gdn_add3(u, u, t + 3);
        } else {
            gdn_copy3(u, t);
        }
        v += (s == 0 ? -1 : 1) * gdn_dot3(e, u);
    }
    return v;
}

static double row_dot(const gdnModel* m, const gdnData* d, int i, const double* u) {
    const double* J = d->efc_J + (size_t)i * (size_t)m->nv;
    double s = 0;
    for (int c = 0; c < m->nv; c++) {
        s += J[c] * u[c];
    }
    return s;
}

// row i (j-th of contact con): cj = d djar0_i / d theta, cl = d dlogD_i / d theta
// (GDN_CONTACT_NPARAM each)
static void row_coef(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                     const gdnContact* con, const contactSetup* s, int j, double* cj,
                     double* cl) {
    const int i = con->efc_address + j, type = d->efc_type[i];
    const double* kbip = d->efc_KBIP + 4 * i;
    const double K = kbip[0], B = kbip[1], imp = kbip[2];
    const double pm = d->efc_pos[i] - d->efc_margin[i];
    const double vel = d->efc_vel[i];
    const double dmax = s->imp[1];
    double dK[GDN_CONTACT_NPARAM] = {0}, dB[GDN_CONTACT_NPARAM] = {0};
    memset(cj, 0, sizeof(double) * GDN_CONTACT_NPARAM);
    memset(cl, 0, sizeof(double) * GDN_CONTACT_NPARAM);
    // K = 1 / (dmax^2 tc^2 dr^2) or -solref0 / dmax^2 (0 on an elliptic friction row)
    if (!(type == GDN_CNSTR_CONTACT_ELLIPTIC && j > 0)) {
        if (s->ref[0] > 0) {
            if (dmax * dmax * s->tc * s->tc * s->ref[1] * s->ref[1] > GDN_MINVAL) {
                dK[GDN_CP_SOLREF] = -2 * K / s->tc * s->tcpass;
                dK[GDN_CP_SOLREF + 1] = -2 * K / s->ref[1] * s->refpass[1];
                dK[GDN_CP_SOLIMP + 1] = -2 * K / dmax * s->imppass[1];
            }
        } else if (dmax * dmax > GDN_MINVAL) {
            dK[GDN_CP_SOLREF] = -s->refpass[0] / (dmax * dmax);
            dK[GDN_CP_SOLIMP + 1] = -2 * K / dmax * s->imppass[1];
        }
    }
    // B = 2 / (dmax tc) or -solref1 / dmax
    if (s->ref[1] > 0) {
        if (dmax * s->tc > GDN_MINVAL) {
            dB[GDN_CP_SOLREF] = -B / s->tc * s->tcpass;
            dB[GDN_CP_SOLIMP + 1] = -B / dmax * s->imppass[1];
        }
    } else if (dmax > GDN_MINVAL) {
        dB[GDN_CP_SOLREF + 1] = -s->refpass[1] / dmax;
        dB[GDN_CP_SOLIMP + 1] = -B / dmax * s->imppass[1];
    }
    // djar0 = dB vel + (dK imp + K dimp) (pos - margin);  dlogD = c dimp
    for (int k = 0; k < GDN_CONTACT_NPARAM; k++) {
        const double dimp = k >= GDN_CP_SOLIMP ? s->gimp[k - GDN_CP_SOLIMP] : 0;
        cj[k] = dB[k] * vel + (dK[k] * imp + K * dimp) * pm;
        cl[k] = lin->c[i] * dimp;
    }
    const double* fr = con->friction;
    const int unclamped = d->efc_R[i] > GDN_MINVAL;
    if (type == GDN_CNSTR_CONTACT_PYRAMIDAL) {
        // J_i = J_0 +- mu_k J_k: dJ_i x + B dJ_i v = +- dmu_k (J_k x + B J_k v)
        const int k = j / 2 + 1;
        const double sg = j % 2 == 0 ? 1 : -1;
        cj[GDN_CP_FRICTION + k - 1] += sg * (frame_row_velocity(m, con, k, lin->Tx) +
                                             B * frame_row_velocity(m, con, k, lin->Tv));
        // R = 2 fr0^2 / impratio R_0, R_0 ~ 1 + fr0^2
        if (unclamped) {
            cl[GDN_CP_FRICTION] -= 2 / fr[0] + 2 * fr[0] / (1 + fr[0] * fr[0]);
        }
    } else if (type == GDN_CNSTR_CONTACT_ELLIPTIC && j >= 2 && lin->hs_kind[i] == 1 &&
               unclamped) {
        // R_j = R_1 fr0^2 / fr_{j-1}^2 (the quadratic state: f_j = -D_j jar_j)
        cl[GDN_CP_FRICTION] -= 2 / fr[0];
        cl[GDN_CP_FRICTION + j - 1] += 2 / fr[j - 1];
    }
}

// The elliptic cone state's force (solver_update.c's elliptic_update) at fixed jar and D0:
//   U_0 = mu jar_0, U_j = s_j jar_j (s_j = friction[j-1]), T = |U_1..|, Dm = D0 / (mu^2 (1 +
//   mu^2)), f_0 = -Dm (U_0 - mu T) mu, f_j = -f_0 U_j s_j / T;
// df (dim) for the direction (dmu, ds_1..ds_{dim-1})
static void cone_force_tangent(int dim, double mu, const double* s, const double* jar,
                               double D0, double dmu, const double* ds, double* df) {
    double U[6], dU[6], T2 = 0, TdT = 0;
    U[0] = mu * jar[0];
    dU[0] = dmu * jar[0];
    for (int j = 1; j < dim; j++) {
        U[j] = s[j] * jar[j];
        dU[j] = ds[j] * jar[j];
        T2 += U[j] * U[j];
        TdT += U[j] * dU[j];
    }
    const double T = sqrt(T2), dT = TdT / T;
    const double Dm = D0 / (mu * mu * (1 + mu * mu));
    const double dDm = -Dm * (2 / mu + 2 * mu / (1 + mu * mu)) * dmu;
    const double NmT = U[0] - mu * T, dNmT = dU[0] - dmu * T - mu * dT;
    const double f0 = -Dm * NmT * mu;
    const double df0 = -(dDm * NmT * mu + Dm * dNmT * mu + Dm * NmT * dmu);
    df[0] = df0;
    for (int j = 1; j < dim; j++) {
        df[j] = -(df0 * U[j] * s[j] + f0 * dU[j] * s[j] + f0 * U[j] * ds[j]) / T +
                f0 * U[j] * s[j] * dT / T2;
    }
}

// an elliptic contact in the cone state: the force's derivative in friction parameter p
// (0 .. dim-2) at fixed jar, D0: p = 0 moves mu (mu / fr0 per unit) and s_1, p moves s_{p+1}
static void cone_force_param(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                             const gdnContact* con, int p, double* df) {
    const int dim = con->dim, i0 = con->efc_address;
    double s[6] = {0}, ds[6] = {0}, jar[6];
    for (int j = 0; j < dim; j++) {
        jar[j] = row_dot(m, d, i0 + j, lin->x) - d->efc_aref[i0 + j];
        s[j] = j > 0 ? con->friction[j - 1] : 0;
    }
    ds[p + 1] = 1;
    const double dmu = p == 0 ? con->mu / con->friction[0] : 0;
    cone_force_tangent(dim, con->mu, s, jar, d->efc_D[i0], dmu, ds, df);
}

// the frozen-force wrench of pyramid row i per unit dmu_k: sigma_s f sg [p x e; e] or [e; 0]
// at the two bodies; calls back with (body, wrench)
static void pyramid_wrench(const gdnModel* m, const gdnData* d, const gdnContact* con, int j,
                           double w[2][6], int body[2]) {
    const int i = con->efc_address + j, k = j / 2 + 1;
    const double sg = j % 2 == 0 ? 1 : -1;
    const double f = d->efc_force[i];
    const double* e = con->frame + 3 * (k < 3 ? k : k - 3);
    body[0] = m->geom_bodyid[con->geom1];
    body[1] = m->geom_bodyid[con->geom2];
    for (int s = 0; s < 2; s++) {
        const double sf = (s == 0 ? -1 : 1) * f * sg;
        if (k < 3) {
            double t[3];
            gdn_cross3(t, con->pos, e);
            gdn_scl3(w[s], t, sf);
            gdn_scl3(w[s] + 3, e, sf);
        } else {
            gdn_scl3(w[s], e, sf);
            w[s][3] = w[s][4] = w[s][5] = 0;
        }
    }
}

void gdn_rows_param_jvp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* dtheta, double* djar0, double* dlogD, double* dfj,
                        double* dW) {
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        if (con->efc_address < 0) {
            continue;
        }
        const double* dt = dtheta + (size_t)c * GDN_CONTACT_NPARAM;
        const int nrow = contact_rows(d, con), i0 = con->efc_address;
        const int type = d->efc_type[i0];
        contactSetup s;
        contact_setup(m, d, con, &s);
        for (int j = 0; j < nrow; j++) {
            double cj[GDN_CONTACT_NPARAM], cl[GDN_CONTACT_NPARAM];
            row_coef(m, d, lin, con, &s, j, cj, cl);
            for (int k = 0; k < GDN_CONTACT_NPARAM; k++) {
                djar0[i0 + j] += cj[k] * dt[k];
                dlogD[i0 + j] += cl[k] * dt[k];
            }
            if (type == GDN_CNSTR_CONTACT_PYRAMIDAL && d->efc_force[i0 + j] != 0) {
                double w[2][6];
                int body[2];
                pyramid_wrench(m, d, con, j, w, body);
                const double dmu = dt[GDN_CP_FRICTION + j / 2];
                for (int b = 0; b < 2; b++) {
                    for (int r = 0; r < 6; r++) {
                        dW[6 * body[b] + r] += w[b][r] * dmu;
                    }
                }
            }
        }
        if (type == GDN_CNSTR_CONTACT_ELLIPTIC && lin->hs_kind[i0] == 2) {
            for (int p = 0; p < con->dim - 1; p++) {
                double df[6];
                cone_force_param(m, d, lin, con, p, df);
                for (int j = 0; j < con->dim; j++) {
                    dfj[i0 + j] += df[j] * dt[GDN_CP_FRICTION + p];
                }
            }
        }
    }
}

void gdn_rows_param_vjp(const gdnModel* m, const gdnData* d, const gdnRowsLinear* lin,
                        const double* djar0bar, const double* dlogDbar, const double* dfjbar,
                        const double* Wbar, double* thetabar) {
    for (int c = 0; c < d->ncon; c++) {
        const gdnContact* con = d->contact + c;
        if (con->efc_address < 0) {
            continue;
        }
        double* tb = thetabar + (size_t)c * GDN_CONTACT_NPARAM;
        const int nrow = contact_rows(d, con), i0 = con->efc_address;
        const int type = d->efc_type[i0];
        contactSetup s;
        contact_setup(m, d, con, &s);
        for (int j = 0; j < nrow; j++) {
            double cj[GDN_CONTACT_NPARAM], cl[GDN_CONTACT_NPARAM];
            row_coef(m, d, lin, con, &s, j, cj, cl);
            const double jb = djar0bar ? djar0bar[i0 + j] : 0;
            const double lb = dlogDbar ? dlogDbar[i0 + j] : 0;
            for (int k = 0; k < GDN_CONTACT_NPARAM; k++) {
                tb[k] += cj[k] * jb + cl[k] * lb;
            }
            if (Wbar && type == GDN_CNSTR_CONTACT_PYRAMIDAL && d->efc_force[i0 + j] != 0) {
                double w[2][6], acc = 0;
                int body[2];
                pyramid_wrench(m, d, con, j, w, body);
                for (int b = 0; b < 2; b++) {
                    for (int r = 0; r < 6; r++) {
                        acc += w[b][r] * Wbar[6 * body[b] + r];
                    }
                }
                tb[GDN_CP_FRICTION + j / 2] += acc;
            }
        }
        if (dfjbar && type == GDN_CNSTR_CONTACT_ELLIPTIC && lin->hs_kind[i0] == 2) {
            for (int p = 0; p < con->dim - 1; p++) {
                double df[6], acc = 0;
                cone_force_param(m, d, lin, con, p, df);
                for (int j = 0; j < con->dim; j++) {
                    acc += df[j] * dfjbar[i0 + j];
                }
                tb[GDN_CP_FRICTION + p] += acc;
            }
        }
    }
}

gdnStatus gdn_rows_param_step_vjp(const gdnModel* m, gdnData* d, const gdnRowsLinear* lin,
                                  const double* djar0bar, const double* dlogDbar,
                                  const double* dfjbar, const double* Wbar,
                                  const gdnContactParamGradients* cp, const char** what) {
    gdnStatus status = GDN_OK;
    if (cp->geom_size) {
        status = gdn_contact_size_admissible(m, d, what);
    }
    if (status != GDN_OK || d->ncon == 0 ||
        !(cp->geom_friction || cp->geom_solref || cp->geom_solimp || cp->pair_friction ||
          cp->pair_solref || cp->pair_solimp)) {
        return status;
    }
    size_t mark = gdn_arena_mark(d);
    const size_t n = (size_t)d->ncon * GDN_CONTACT_NPARAM;
    double* thetabar = gdn_arena_doubles(d, n);
    if (!thetabar) {
        return GDN_ERR_MEMORY;
    }
    memset(thetabar, 0, sizeof(double) * n);
    gdn_rows_param_vjp(m, d, lin, djar0bar, dlogDbar, dfjbar, Wbar, thetabar);
    status = gdn_contact_param_vjp(m, d, thetabar, cp, what);
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_rows_param_direction(const gdnModel* m, gdnData* d,
                                   const gdnContactParamGradients* dir, const double** dtheta,
                                   const char** what) {
    gdnStatus status = GDN_OK;
    if (dir->geom_size) {
        status = gdn_contact_size_admissible(m, d, what);
    }
    if (status != GDN_OK) {
        return status;
    }
    double* dt = gdn_arena_doubles(d, (size_t)(d->ncon > 0 ? d->ncon : 1) * GDN_CONTACT_NPARAM);
    if (!dt) {
        return GDN_ERR_MEMORY;
    }
    *dtheta = dt;
    return gdn_contact_param_jvp(m, d, dir, dt, what);
}
