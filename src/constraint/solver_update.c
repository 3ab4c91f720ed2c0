// SPDX-License-Identifier: Apache-2.0
// The constraint cost s(jar), its row states, forces and cone Hessians (MuJoCo's constraintUpdate).
#include "constraint/solver.h"

#include <math.h>
#include <string.h>

// Elliptic contact at rows i .. i + dim - 1 in the cone's rescaled space
//   U = (mu jar_0, friction_0 jar_1, ..., friction_{dim-2} jar_{dim-1}), N = U_0, T = |U_1..|.
// Top zone (N >= mu T): no force. Bottom zone (mu N + T <= 0): every row quadratic 0.5 D jar^2.
// Middle zone: cost 0.5 Dm (N - mu T)^2 with Dm = D_0 / (mu^2 (1 + mu^2)), force = -ds/djar.
static double elliptic_update(gdnData* d, int i, const double* jar, double* coneH) {
    const gdnContact* con = d->contact + d->efc_id[i];
    const int dim = con->dim;
    const double mu = con->mu;
    const double* friction = con->friction;
    const double* D = d->efc_D;
    double* force = d->efc_force;
    double U[6];
    U[0] = jar[i] * mu;
    for (int j = 1; j < dim; j++) {
        U[j] = jar[i + j] * friction[j - 1];
    }
    // |U_1..| in mju_norm's order (for dim 6 the sum of squares is not sequential)
    const double N = U[0], T = sqrt(gdn_dot_mujoco(U + 1, U + 1, dim - 1));
    double s = 0;
    int state;
    if (N >= mu * T || (T <= 0 && N >= 0)) {
        for (int j = 0; j < dim; j++) {
            force[i + j] = 0;
        }
        state = GDN_CNSTRSTATE_SATISFIED;
    } else if (mu * N + T <= 0 || (T <= 0 && N < 0)) {
        for (int j = 0; j < dim; j++) {
            s += 0.5 * D[i + j] * jar[i + j] * jar[i + j];
        }
        state = GDN_CNSTRSTATE_QUADRATIC;
    } else {
        const double Dm = D[i] / (mu * mu * (1 + mu * mu));
        const double NmT = N - mu * T;
        s = 0.5 * Dm * NmT * NmT;
        // force = -(dU/djar)' ds/dU, dU/djar = diag(mu, friction)
        force[i] = -Dm * NmT * mu;
        for (int j = 1; j < dim; j++) {
            force[i + j] = -force[i] / T * U[j] * friction[j - 1];
        }
        state = GDN_CNSTRSTATE_CONE;
        if (coneH) {
            // d^2 s / dU^2 / Dm: [1, -mu U_t' / T; ., mu N / T^3 U_t U_t' + (mu^2 - mu N / T) I],
            // then scaled by diag(mu, friction) on both sides and by Dm
            double* H = coneH + 6 * i;
            double scale[6];
            scale[0] = mu;
            for (int j = 1; j < dim; j++) {
                scale[j] = friction[j - 1];
            }
            H[0] = 1;
            for (int j = 1; j < dim; j++) {
                H[j] = -mu / T * U[j];
            }
            const double outer = mu * N / (T * T * T);
            const double diag = mu * mu - mu * N / T;
            for (int k = 1; k < dim; k++) {
                for (int j = k; j < dim; j++) {
                    H[k * dim + j] = outer * U[j] * U[k] + (j == k ? diag : 0);
                }
            }
            for (int k = 0; k < dim; k++) {
                for (int j = k; j < dim; j++) {
                    H[k * dim + j] *= Dm * scale[k] * scale[j];
                    H[j * dim + k] = H[k * dim + j];
                }
            }
        }
    }
    for (int j = 0; j < dim; j++) {
        d->efc_state[i + j] = state;
    }
    return s;
}

// x += y f over n entries (x and y never overlap)
static void add_row(double* restrict x, const double* restrict y, double f, int n) {
    for (int k = 0; k < n; k++) {
        x[k] += y[k] * f;
    }
}

void gdn_constraint_update(const gdnModel* m, gdnData* d, const double* jar, double* cost,
                           double* coneH) {
    const int nefc = d->nefc, nv = m->nv;
    const double* D = d->efc_D;
    const double* R = d->efc_R;
    const double* floss = d->efc_frictionloss;
    double* force = d->efc_force;
    double s = 0;
    if (nefc == 0) {
        memset(d->qfrc_constraint, 0, sizeof(double) * (size_t)nv);
        if (cost) {
            *cost = 0;
        }
        return;
    }
    // unconstrained force -D jar, then the row states in MuJoCo's order
    for (int i = 0; i < nefc; i++) {
        force[i] = -D[i] * jar[i];
    }
    for (int i = 0; i < nefc; i++) {
        const int type = d->efc_type[i];
        if (type == GDN_CNSTR_EQUALITY) {
            // equality: always quadratic
            s += 0.5 * D[i] * jar[i] * jar[i];
            d->efc_state[i] = GDN_CNSTRSTATE_QUADRATIC;
        } else if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
            // friction loss f: quadratic inside |jar| < R f, linear (force -+f) outside
            const double Rf = R[i] * floss[i];
            if (jar[i] <= -Rf) {
                s += -0.5 * Rf * floss[i] - floss[i] * jar[i];
                force[i] = floss[i];
                d->efc_state[i] = GDN_CNSTRSTATE_LINEARNEG;
            } else if (jar[i] >= Rf) {
                s += -0.5 * Rf * floss[i] + floss[i] * jar[i];
                force[i] = -floss[i];
                d->efc_state[i] = GDN_CNSTRSTATE_LINEARPOS;
            } else {
                s += 0.5 * D[i] * jar[i] * jar[i];
                d->efc_state[i] = GDN_CNSTRSTATE_QUADRATIC;
            }
        } else if (type == GDN_CNSTR_CONTACT_ELLIPTIC) {
            s += elliptic_update(d, i, jar, coneH);
            i += d->contact[d->efc_id[i]].dim - 1;
        } else {
            // limits, frictionless and pyramidal contacts: one-sided jar < 0
            if (jar[i] >= 0) {
                force[i] = 0;
                d->efc_state[i] = GDN_CNSTRSTATE_SATISFIED;
            } else {
                s += 0.5 * D[i] * jar[i] * jar[i];
                d->efc_state[i] = GDN_CNSTRSTATE_QUADRATIC;
            }
        }
    }
    // qfrc_constraint = J' force
    double* qfrc = d->qfrc_constraint;
    memset(qfrc, 0, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nefc; i++) {
        const double f = force[i];
        if (f != 0) {
            // over the columns from the row's first to its last recorded one (the others are
            // exactly 0)
            const int nnz = d->efc_rownnz[i];
            if (nnz == 0) {
                continue;
            }
            const int* col = d->efc_colind + d->efc_rowadr[i];
            const int first = col[0], count = col[nnz - 1] - first + 1;
            add_row(qfrc + first, d->efc_J + (size_t)i * (size_t)nv + first, f, count);
        }
    }
    if (cost) {
        *cost = s;
    }
}
