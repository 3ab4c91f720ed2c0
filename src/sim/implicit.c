// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2's implicit integrator (mj_implicit): qDeriv = d(qfrc_actuator + qfrc_passive -
// qfrc_bias) / d qvel as mjd_smooth_vel defines it, kept on the sparsity of M, the LU of
// M - h qDeriv without pivoting in mju_factorLUSparse's order, and the step acceleration
// qacc = (M - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint).
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "dynamics/activation.h"
#include "dynamics/body_wrench.h"
#include "dynamics/fluid.h"
#include "dynamics/passive.h"
#include "dynamics/rne_vel.h"
#include "kinematics/kinematics_derivative.h"
#include "sim/integrator.h"

// MuJoCo's mjMINVAL: the guard of its divisions and of the LU pivots
#define IMPLICIT_MINVAL 1e-15

static double max_minval(double x) {
    return x > IMPLICIT_MINVAL ? x : IMPLICIT_MINVAL;
}

// d gain / d velocity of the muscle gain as MuJoCo 2.2.2's mjd_muscleGain_vel computes it:
// -F0 FL(L) FV'(V) / (L0 vmax). Its length curve is that function's own (below lmin the
// branch L <= 1 applies: 1 - x^2/2 with x = (1 - L) / (1 - a), not 0), kept as MuJoCo has it
double gdn_implicit_muscle_gain_vel(double len, double vel, const double lengthrange[2],
                                    double acc0, const double prm[]) {
    const double range0 = prm[0], range1 = prm[1];
    double force = prm[2];
    const double scale = prm[3], lmin = prm[4], lmax = prm[5], vmax = prm[6], fvmax = prm[8];
    if (force < 0) {
        force = scale / max_minval(acc0);
    }
    const double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax);
    const double L0 = (lengthrange[1] - lengthrange[0]) / max_minval(range1 - range0);
    const double L = range0 + (len - lengthrange[0]) / max_minval(L0);
    const double V = vel / max_minval(L0 * vmax);
    double FL = 0, x;
    if (L >= lmin && L <= a) {
        x = (L - lmin) / max_minval(a - lmin);
        FL = 0.5 * x * x;
    } else if (L <= 1) {
        x = (1 - L) / max_minval(1 - a);
        FL = 1 - 0.5 * x * x;
    } else if (L <= b) {
        x = (L - 1) / max_minval(b - 1);
        FL = 1 - 0.5 * x * x;
    } else if (L <= lmax) {
        x = (lmax - L) / max_minval(lmax - b);
        FL = 0.5 * x * x;
    }
    const double y = fvmax - 1;
    double dFV = 0;
    if (V <= -1) {
        dFV = 0;
    } else if (V <= 0) {
        dFV = 2 * V + 2;
    } else if (V <= y) {
        dFV = (-2 * V + 2 * y) / max_minval(y);
    }
    return -force * FL * dFV / max_minval(L0 * vmax);
}

// its partials in len and vel (the same branches): with g = -F FL(L) FV'(V) / (L0 vmax),
// L = range0 + (len - lr0) / L0, V = vel / (L0 vmax):
//   dg/dlen = -F FL'(L) FV'(V) / (L0 (L0 vmax)),  dg/dvel = -F FL(L) FV''(V) / (L0 vmax)^2
// FL' per branch (x as above): x / (a - lmin), x / (1 - a), -x / (b - 1), -x / (lmax - b);
// FV'' = 2 on (-1, 0], -2 / y on (0, y], 0 elsewhere
void gdn_implicit_muscle_gain_vel_partials(double len, double vel, const double lengthrange[2],
                                           double acc0, const double prm[], double* dlen,
                                           double* dvel) {
    const double range0 = prm[0], range1 = prm[1];
    double force = prm[2];
    const double scale = prm[3], lmin = prm[4], lmax = prm[5], vmax = prm[6], fvmax = prm[8];
    if (force < 0) {
        force = scale / max_minval(acc0);
    }
    const double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax);
    const double L0 = (lengthrange[1] - lengthrange[0]) / max_minval(range1 - range0);
    const double L = range0 + (len - lengthrange[0]) / max_minval(L0);
    const double V = vel / max_minval(L0 * vmax);
    double FL = 0, dFL = 0, x;
    if (L >= lmin && L <= a) {
        x = (L - lmin) / max_minval(a - lmin);
        FL = 0.5 * x * x;
        dFL = x / max_minval(a - lmin);
    } else if (L <= 1) {
        x = (1 - L) / max_minval(1 - a);
        FL = 1 - 0.5 * x * x;
        dFL = x / max_minval(1 - a);
    } else if (L <= b) {
        x = (L - 1) / max_minval(b - 1);
        FL = 1 - 0.5 * x * x;
        dFL = -x / max_minval(b - 1);
    } else if (L <= lmax) {
        x = (lmax - L) / max_minval(lmax - b);
        FL = 0.5 * x * x;
        dFL = -x / max_minval(lmax - b);
    }
    const double y = fvmax - 1;
    double dFV = 0, ddFV = 0;
    if (V <= -1) {
        dFV = 0;
    } else if (V <= 0) {
        dFV = 2 * V + 2;
        ddFV = 2;
    } else if (V <= y) {
        dFV = (-2 * V + 2 * y) / max_minval(y);
        ddFV = -2 / max_minval(y);
    }
    const double s = max_minval(L0 * vmax);
    *dlen = -force * dFL * dFV / s / max_minval(L0);
    *dvel = -force * FL * ddFV / s / s;
}

// actuator i's velocity coefficient in qDeriv (mjd_actuator_vel): the affine bias's kv, plus
// the gain's velocity slope (affine kv, or the muscle's) times the UNclamped ctrl (or act)
double gdn_implicit_actuator_kv(const gdnModel* m, const gdnData* d, int i) {
    double bias_vel = 0, gain_vel = 0;
    if (m->actuator_biastype[i] == GDN_BIAS_AFFINE) {
        bias_vel = m->actuator_biasprm[GDN_NBIAS * i + 2];
    }
    if (m->actuator_gaintype[i] == GDN_GAIN_AFFINE) {
        gain_vel = m->actuator_gainprm[GDN_NGAIN * i + 2];
    } else if (m->actuator_gaintype[i] == GDN_GAIN_MUSCLE) {
        gain_vel = gdn_implicit_muscle_gain_vel(
            d->actuator_length[i], d->actuator_velocity[i], m->actuator_lengthrange + 2 * i,
            m->actuator_acc0[i], m->actuator_gainprm + GDN_NGAIN * i);
    }
    if (gain_vel != 0) {
        bias_vel += gain_vel * (gdn_actuator_stateful(m, i) ? d->act[i - (m->nu - m->na)]
                                                            : d->ctrl[i]);
    }
    return bias_vel;
}

// D += b x x' over the nonzeros of x (MuJoCo's addJTBJ with one row)
static void add_outer(int nv, double* D, const double* x, double b) {
    for (int k = 0; k < nv; k++) {
        if (x[k] != 0) {
            const double s = x[k] * b;
            for (int j = 0; j < nv; j++) {
                D[(size_t)k * (size_t)nv + (size_t)j] += s * x[j];
            }
        }
    }
}

// D += d qfrc_fluid / d qvel, column by column: the fluid wrenches' tangent along the body
// twist tangents eta(e_k) (dynamics/fluid.h: exact, as MuJoCo's mjd_inertiaBoxFluid and
// mjd_ellipsoidFluid J' B J are), mapped to the dofs, qfrc_j = S_j' sum_subtree W
static gdnStatus fluid_columns(const gdnModel* m, gdnData* d, double* D) {
    const int nv = m->nv;
    const size_t nb6 = 6 * (size_t)m->nbody, nvs = (size_t)(nv > 0 ? nv : 1);
    size_t mark = gdn_arena_mark(d);
    double* S = gdn_arena_doubles(d, 6 * nvs + 5 * nb6 + 2 * nvs);
    if (!S) {
        return GDN_ERR_MEMORY;
    }
    double* V = S + 6 * nvs;
    double* xi = V + nb6;
    double* eta = xi + nb6;
    double* dW = eta + nb6;
    double* scratch = dW + nb6;
    double* e = scratch + nb6;
    double* col = e + nv;
    gdn_body_velocities(m, d, S, V);
    memset(e, 0, sizeof(double) * (size_t)nv);
    for (int k = 0; k < nv; k++) {
        e[k] = 1;
        gdn_body_tangent_jvp(m, d, NULL, e, xi, eta);
        e[k] = 0;
        memset(dW, 0, sizeof(double) * nb6);
        gdn_fluid_wrench_jvp(m, d, V, GDN_FLUID_ALL, xi, eta, NULL, dW);
        memset(col, 0, sizeof(double) * (size_t)nv);
        gdn_body_wrench_qfrc(m, d, dW, scratch, col);
        for (int i = 0; i < nv; i++) {
            D[(size_t)i * (size_t)nv + (size_t)k] += col[i];
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_implicit_qderiv(const gdnModel* m, gdnData* d, double* D) {
    const int nv = m->nv;
    memset(D, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    size_t mark = gdn_arena_mark(d);
    double* row = gdn_arena_doubles(d, (size_t)nv + 1);
    if (!row) {
        return GDN_ERR_MEMORY;
    }
    // actuators: moment' kv moment
    if (!(m->opt.disableflags & GDN_DSBL_ACTUATION)) {
        for (int i = 0; i < m->nu; i++) {
            const double kv = gdn_implicit_actuator_kv(m, d, i);
            if (kv != 0) {
                memset(row, 0, sizeof(double) * (size_t)nv);
                gdn_actuator_moment_add(m, d, row, i, 1.0);
                add_outer(nv, D, row, kv);
            }
        }
    }
    // passive: -diag(dof_damping), -b J'J per damped tendon
    if (!(m->opt.disableflags & GDN_DSBL_PASSIVE)) {
        for (int i = 0; i < nv; i++) {
            D[(size_t)i * (size_t)(nv + 1)] -= m->dof_damping[i];
        }
        for (int t = 0; t < m->ntendon; t++) {
            if (m->tendon_damping[t] > 0) {
                add_outer(nv, D, d->ten_J + (size_t)t * (size_t)nv, -m->tendon_damping[t]);
            }
        }
    }
    // the medium's forces (passive)
    gdnStatus status = gdn_fluid_active(m) ? fluid_columns(m, d, D) : GDN_OK;
    // rne: -d qfrc_bias / d qvel
    if (status == GDN_OK) {
        status = gdn_rne_vel_dense(m, d, -1.0, D, nv);
    }
    gdn_arena_reset(d, mark);
    return status;
}

// the ancestors of dof i, nearest first, into anc; their count
static int ancestors(const gdnModel* m, int i, int* anc) {
    int n = 0;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
        anc[n++] = j;
    }
    return n;
}

gdnStatus gdn_implicit_factor(const gdnModel* m, gdnData* d, double* H) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    int* anc = gdn_arena_ints(d, (size_t)nv + 1);
    if (!anc) {
        return GDN_ERR_MEMORY;
    }
    // eliminate the last dof first: row j (an ancestor of i) takes (j,i) /= (i,i) and
    // (j,k) -= (i,k) (j,i) over the ancestors k of i; no fill-in on the tree pattern
    gdnStatus status = GDN_OK;
    for (int i = nv - 1; i >= 0 && status == GDN_OK; i--) {
        const double pivot = H[(size_t)i * (size_t)(nv + 1)];
        if (!(fabs(pivot) >= IMPLICIT_MINVAL)) {
            status = GDN_ERR_SINGULAR;
            break;
        }
        const int n = ancestors(m, i, anc);
        for (int a = 0; a < n; a++) {
            const int j = anc[a];
            double* Hj = H + (size_t)j * (size_t)nv;
            Hj[i] = Hj[i] / pivot;
            const double lji = Hj[i];
            for (int c = 0; c < n; c++) {
                const int k = anc[c];
                Hj[k] -= H[(size_t)i * (size_t)nv + (size_t)k] * lji;
            }
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_implicit_solve(const gdnModel* m, gdnData* d, const double* LU, double* x) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    int* anc = gdn_arena_ints(d, (size_t)nv + 1);
    if (!anc) {
        return GDN_ERR_MEMORY;
    }
    // (U + I) y = x: y_i = x_i - sum over the descendants k of i of y_k U(i,k), k decreasing
    for (int k = nv - 1; k >= 0; k--) {
        for (int j = m->dof_parentid[k]; j >= 0; j = m->dof_parentid[j]) {
            x[j] -= x[k] * LU[(size_t)j * (size_t)nv + (size_t)k];
        }
    }
    // L x = y: x_i = (y_i - sum over the ancestors k of i of x_k L(i,k), k increasing) / L(i,i)
    for (int i = 0; i < nv; i++) {
        const int n = ancestors(m, i, anc);
        const double* Li = LU + (size_t)i * (size_t)nv;
        for (int a = n - 1; a >= 0; a--) {
            x[i] -= x[anc[a]] * Li[anc[a]];
        }
        x[i] /= Li[i];
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_implicit_matrix(const gdnModel* m, gdnData* d, double* H) {
    const int nv = m->nv;
    const size_t nn = (size_t)nv * (size_t)nv;
    size_t mark = gdn_arena_mark(d);
    double* D = gdn_arena_doubles(d, nn + 1);
    if (!D) {
        return GDN_ERR_MEMORY;
    }
    gdnStatus status = gdn_implicit_qderiv(m, d, D);
    if (status == GDN_OK) {
        // H = M - h qDeriv (the entries off M's pattern are never read)
        const double h = m->opt.timestep;
        for (size_t i = 0; i < nn; i++) {
            H[i] = d->qM[i] + -h * D[i];
        }
        status = gdn_implicit_factor(m, d, H);
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_implicit_acceleration(const gdnModel* m, gdnData* d, double* qacc, double* LU) {
    const int nv = m->nv;
    size_t mark = gdn_arena_mark(d);
    double* H = LU ? LU : gdn_arena_doubles(d, (size_t)nv * (size_t)nv + 1);
    if (!H) {
        return GDN_ERR_MEMORY;
    }
    gdnStatus status = gdn_implicit_matrix(m, d, H);
    if (status == GDN_OK) {
        for (int i = 0; i < nv; i++) {
            qacc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
        }
        status = gdn_implicit_solve(m, d, H, qacc);
    }
    gdn_arena_reset(d, mark);
    return status;
}
