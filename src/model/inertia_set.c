// SPDX-License-Identifier: Apache-2.0
// Writing a body's inertia: principal form by Jacobi eigen-decomposition, the compiler's checks,
// the model-layer derived fields (subtree masses, sameframe flags).
#include <math.h>

#include "model/inertia_set.h"

#include "math/vec.h"
#include "model/model_alloc.h"

// A = V diag(w) V' for symmetric A (row-major 3x3) by cyclic Jacobi rotations; V's columns are
// the eigenvectors. Stops when the off-diagonal is exactly zero or after 50 sweeps (in practice
// a handful: convergence is quadratic)
static void jacobi_eigen3(const double A_in[9], double w[3], double V[9]) {
    double A[9];
    for (int i = 0; i < 9; i++) {
        A[i] = A_in[i];
        V[i] = (i % 4 == 0);
    }
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
        if (off == 0) {
            break;
        }
        for (int p = 0; p < 2; p++) {
            for (int q = p + 1; q < 3; q++) {
                double apq = A[3 * p + q];
                if (apq == 0) {
                    continue;
                }
                // rotation angle zeroing A[p][q]: tan(2 theta) = 2 apq / (aqq - app)
                double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                // A <- G' A G with G the rotation in the (p, q) plane
                for (int k = 0; k < 3; k++) {
                    double akp = A[3 * k + p], akq = A[3 * k + q];
                    A[3 * k + p] = c * akp - s * akq;
                    A[3 * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[3 * p + k], aqk = A[3 * q + k];
                    A[3 * p + k] = c * apk - s * aqk;
                    A[3 * q + k] = s * apk + c * aqk;
                }
                A[3 * p + q] = A[3 * q + p] = 0;
                for (int k = 0; k < 3; k++) {
                    double vkp = V[3 * k + p], vkq = V[3 * k + q];
                    V[3 * k + p] = c * vkp - s * vkq;
                    V[3 * k + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    w[0] = A[0];
    w[1] = A[4];
    w[2] = A[8];
}

// unit quaternion of a rotation matrix (Shepperd: the largest of w, x, y, z first)
static void mat2quat(double q[4], const double R[9]) {
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[0] = s / 4;
        q[1] = (R[7] - R[5]) / s;
        q[2] = (R[2] - R[6]) / s;
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s;
        q[1] = s / 4;
        q[2] = (R[1] + R[3]) / s;
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s;
        q[1] = (R[1] + R[3]) / s;
        q[2] = s / 4;
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s;
        q[1] = (R[2] + R[6]) / s;
        q[2] = (R[5] + R[7]) / s;
        q[3] = s / 4;
    }
    gdn_normalize4(q);
}

// loader's quaternion normalization (each entry divided by the norm, MuJoCo's compiler), applied
// until it changes nothing, so that reading the stored quaternion back as <inertial quat> gives
// the same doubles (at most a few passes: each moves an entry by an ulp or leaves it)
static void compiler_fixed_point(double q[4]) {
    for (int pass = 0; pass < 8; pass++) {
        double nrm = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        nrm = sqrt(nrm);
        double r[4] = {q[0] / nrm, q[1] / nrm, q[2] / nrm, q[3] / nrm};
        if (r[0] == q[0] && r[1] == q[1] && r[2] == q[2] && r[3] == q[3]) {
            return;
        }
        gdn_copy4(q, r);
    }
}

// MuJoCo's compiler rule for moving bodies: a body with joints needs mass and principal
// moments >= GDN_MINVAL (1e-15) unless one of its joint-free children has them
static int massive(const gdnModel* m, int b) {
    const double* I = m->body_inertia + 3 * b;
    return m->body_mass[b] >= GDN_MINVAL && I[0] >= GDN_MINVAL && I[1] >= GDN_MINVAL &&
           I[2] >= GDN_MINVAL;
}

static int moving_mass_ok(const gdnModel* m) {
    for (int b = 1; b < m->nbody; b++) {
        if (m->body_jntnum[b] == 0 || massive(m, b)) {
            continue;
        }
        int carried = 0;
        for (int c = b + 1; c < m->nbody && !carried; c++) {
            carried = m->body_parentid[c] == b && m->body_jntnum[c] == 0 && massive(m, c);
        }
        if (!carried) {
            return 0;
        }
    }
    return 1;
}

gdnStatus gdn_model_write_body_inertia(gdnModel* m, int b, const gdnInertia* in,
                                       gdnBodyInertiaSave* save) {
    if (!m || !in || b < 1 || b >= m->nbody) {
        return GDN_ERR_ARG;
    }
    if (!isfinite(in->mass) || in->mass < 0) {
        return GDN_ERR_ARG;
    }
    for (int i = 0; i < 3; i++) {
        if (!isfinite(in->com[i])) {
            return GDN_ERR_ARG;
        }
    }
    for (int i = 0; i < 9; i++) {
        if (!isfinite(in->inertia[i])) {
            return GDN_ERR_ARG;
        }
    }
    if (m->body_inertiasource[b] == 2) {
        return GDN_ERR_UNSUPPORTED; // the compiler rescaled or clamped it: no <inertial> equals
    }
    // the symmetric matrix from the upper triangle (the canonical packing's convention)
    const double* I = in->inertia;
    double A[9] = {I[0], I[1], I[2], I[1], I[4], I[5], I[2], I[5], I[8]};
    double w[3], V[9];
    jacobi_eigen3(A, w, V);
    // a proper rotation: det(V) = +1 (flip the last eigenvector otherwise)
    double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
                 V[2] * (V[3] * V[7] - V[4] * V[6]);
    if (det < 0) {
        V[2] = -V[2];
        V[5] = -V[5];
        V[8] = -V[8];
    }
    double q[4];
    mat2quat(q, V);
    compiler_fixed_point(q);
    // an exactly diagonal input keeps the identity frame (and so the sameframe shortcuts)
    if (A[1] == 0 && A[2] == 0 && A[5] == 0) {
        q[0] = 1;
        q[1] = q[2] = q[3] = 0;
        w[0] = A[0];
        w[1] = A[4];
        w[2] = A[8];
    }
    // the compiler's check of principal moments: non-negative. Its A + B >= C check is not
    // applied: optimizers and finite differences step through such tensors (positive definite,
    // not a rigid body's), and no file can express them to compare with
    if (w[0] < 0 || w[1] < 0 || w[2] < 0) {
        return GDN_ERR_ARG;
    }
    return gdn_model_put_body_mass(m, b, in->mass, in->com, q, w, 0, save);
}

gdnStatus gdn_model_put_body_mass(gdnModel* m, int b, double mass, const double ipos[3],
                                  const double iquat[4], const double inertia[3], int source,
                                  gdnBodyInertiaSave* save) {
    gdnBodyInertiaSave old;
    old.mass = m->body_mass[b];
    gdn_copy3(old.ipos, m->body_ipos + 3 * b);
    gdn_copy4(old.iquat, m->body_iquat + 4 * b);
    gdn_copy3(old.inertia, m->body_inertia + 3 * b);
    old.source = m->body_inertiasource[b];
    m->body_mass[b] = mass;
    gdn_copy3(m->body_ipos + 3 * b, ipos);
    gdn_copy4(m->body_iquat + 4 * b, iquat);
    gdn_copy3(m->body_inertia + 3 * b, inertia);
    if (!moving_mass_ok(m)) {
        gdn_model_restore_body_inertia(m, b, &old);
        return GDN_ERR_ARG;
    }
    m->body_inertiasource[b] = source;
    gdn_model_subtree_mass(m);
    gdn_model_finalize(m);
    if (save) {
        *save = old;
    }
    return GDN_OK;
}

void gdn_model_body_geoms_explicit(gdnModel* m, int b) {
    for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b];
         g++) {
        m->geom_inertial[g] = 0;
        m->geom_mass[g] = 0;
        m->geom_inertia[3 * g] = m->geom_inertia[3 * g + 1] = m->geom_inertia[3 * g + 2] = 0;
    }
}

void gdn_model_restore_body_inertia(gdnModel* m, int b, const gdnBodyInertiaSave* save) {
    m->body_mass[b] = save->mass;
    gdn_copy3(m->body_ipos + 3 * b, save->ipos);
    gdn_copy4(m->body_iquat + 4 * b, save->iquat);
    gdn_copy3(m->body_inertia + 3 * b, save->inertia);
    m->body_inertiasource[b] = save->source;
    gdn_model_subtree_mass(m);
    gdn_model_finalize(m);
}
