// SPDX-License-Identifier: Apache-2.0
// Compile-time constants of the constraint model at qpos0 (MuJoCo 2.2.2's mj_setConst part):
// body_invweight0, dof_invweight0, tendon_invweight0, the derived eq_data anchors / relative
// poses, tendon_length0, the tendon spring lengths MJCF left to the compiler, actuator_acc0.
#include <stdlib.h>
#include <string.h>

#include "constraint/constraint.h"
#include "dynamics/actuator_setconst.h"
#include "math/vec.h"

// dense Cholesky M = L L' in place (lower triangle); 0 on success. Row i of M (and of L) has
// no nonzero left of first[i], the root dof of i's tree, so the sums start there: the skipped
// terms are exact zeros and every value is the one of the full loops, at O(nv x tree size)
static int cholesky(double* a, int n, const int* first) {
    for (int j = 0; j < n; j++) {
        double s = a[j * n + j];
        for (int k = first[j]; k < j; k++) {
            s -= a[j * n + k] * a[j * n + k];
        }
        if (!(s > 0)) {
            return -1;
        }
        a[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            if (first[i] > j) {
                continue; // L_ij = 0: M_ij = 0 and row i is zero left of first[i]
            }
            double t = a[i * n + j];
            for (int k = first[i] > first[j] ? first[i] : first[j]; k < j; k++) {
                t -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = t / a[j * n + j];
        }
    }
    return 0;
}

// x' M^-1 x for each of nrow rows of J (nrow x nv) and the mean over [first, first + count)
// of the diagonal of J M^-1 J': with y = L^-1 x, x' M^-1 x = |y|^2 (row i of L from first[i]).
// The rows are zero outside the dofs [lo, hi) of one tree, where L is block diagonal, so y is
// an exact zero there and its squares add +0 to the sum: the loop runs over [lo, hi) only and
// gives the bits of the full one
static double mean_inverse_weight(const double* L, int nv, const int* first, const double* J,
                                  int row0, int count, int lo, int hi, double* y) {
    double sum = 0;
    for (int r = row0; r < row0 + count; r++) {
        const double* x = J + (size_t)r * (size_t)nv;
        double q = 0;
        for (int i = lo; i < hi; i++) {
            double t = x[i];
            for (int k = first[i]; k < i; k++) {
                t -= L[i * nv + k] * y[k];
            }
            y[i] = t / L[i * nv + i];
            q += y[i] * y[i];
        }
        sum += q;
    }
    return sum / count;
}

// eq_data completion at qpos0: connect [3-5] = anchor in body2; weld without a relpose
// quaternion: [3-5] = anchor in body1, [6-9] = conj(q1) q2; a given relpose is normalized
static void complete_eq_data(gdnModel* m, const gdnData* d) {
    for (int i = 0; i < m->neq; i++) {
        int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
        double* data = m->eq_data + GDN_NEQDATA * i;
        double p[3], rel[3];
        if (m->eq_type[i] == GDN_EQ_CONNECT) {
            gdn_mulmat3(p, d->xmat + 9 * b1, data);
            gdn_add3(p, p, d->xpos + 3 * b1);
            gdn_sub3(rel, p, d->xpos + 3 * b2);
            gdn_mulmat3T(data + 3, d->xmat + 9 * b2, rel);
        } else if (m->eq_type[i] == GDN_EQ_WELD) {
            if (data[6] || data[7] || data[8] || data[9]) {
                gdn_normalize4(data + 6);
                continue;
            }
            gdn_mulmat3(p, d->xmat + 9 * b2, data);
            gdn_add3(p, p, d->xpos + 3 * b2);
            gdn_sub3(rel, p, d->xpos + 3 * b1);
            gdn_mulmat3T(data + 3, d->xmat + 9 * b1, rel);
            double qneg[4];
            gdn_negquat(qneg, d->xquat + 4 * b1);
            gdn_mulquat(data + 6, qneg, d->xquat + 4 * b2);
        }
    }
}

// stat_meaninertia, body_invweight0 and dof_invweight0 from d's kinematics at qpos0 (d made
// for m, its arena unused here): the weights are zeroed first, so a singular M leaves them zero
// as a fresh load does
static gdnStatus set_weights(gdnModel* m, gdnData* d) {
    int nv = m->nv;
    gdnStatus st = GDN_OK;
    size_t n = (size_t)(nv > 0 ? nv : 1);
    double* L = malloc(sizeof(double) * n * n);
    double* J = malloc(sizeof(double) * 6 * n);
    double* y = malloc(sizeof(double) * n);
    int* first = malloc(sizeof(int) * n);
    int* end = malloc(sizeof(int) * n);
    if (!L || !J || !y || !first || !end) {
        st = GDN_ERR_MEMORY;
        goto done;
    }
    memset(m->body_invweight0, 0, sizeof(double) * 2 * (size_t)m->nbody);
    memset(m->dof_invweight0, 0, sizeof(double) * (size_t)nv);
    memset(m->tendon_invweight0, 0, sizeof(double) * (size_t)m->ntendon);
    if (nv == 0) {
        goto done;
    }
    gdn_crb(m, d);

    // the solver's scale: mean diagonal of M(qpos0), armature included (MuJoCo's
    // stat.meaninertia, computed by its mj_setConst the same way)
    m->stat_meaninertia = 0;
    for (int i = 0; i < nv; i++) {
        m->stat_meaninertia += d->qM[(size_t)i * n + (size_t)i];
    }
    m->stat_meaninertia /= nv;
    memcpy(L, d->qM, sizeof(double) * n * n);
    // each dof's tree: its root dof first[i]; a tree's dofs are contiguous, ending at
    // end[first[i]]
    for (int i = 0; i < nv; i++) {
        int parent = m->dof_parentid[i];
        first[i] = parent < 0 ? i : first[parent];
        end[first[i]] = i + 1;
    }
    if (cholesky(L, nv, first)) {
        // singular M (MuJoCo's compiler rejects such models): weights stay zero
        goto done;
    }

    // bodies: J = [Jp; Jr] of the COM (nonzero on the dofs of the tree of the nearest body
    // with dofs on the path to the world, none when welded to it); mean translational and
    // rotational diagonal
    for (int b = 1; b < m->nbody; b++) {
        int a = b;
        while (a > 0 && m->body_dofnum[a] == 0) {
            a = m->body_parentid[a];
        }
        int lo = 0, hi = 0;
        if (a > 0) {
            lo = first[m->body_dofadr[a]];
            hi = end[lo];
        }
        gdn_jac_body_com(m, d, J, J + 3 * n, b);
        m->body_invweight0[2 * b] = mean_inverse_weight(L, nv, first, J, 0, 3, lo, hi, y);
        m->body_invweight0[2 * b + 1] = mean_inverse_weight(L, nv, first, J, 3, 3, lo, hi, y);
    }

    // joints: unit rows of the joint's dofs; free: translation and rotation averaged apart
    for (int j = 0; j < m->njnt; j++) {
        int adr = m->jnt_dofadr[j], type = m->jnt_type[j];
        int dnum = type == GDN_JNT_FREE ? 6 : type == GDN_JNT_BALL ? 3 : 1;
        memset(J, 0, sizeof(double) * 6 * n);
        for (int k = 0; k < dnum; k++) {
            J[(size_t)k * n + (size_t)(adr + k)] = 1;
        }
        int lo = first[adr], hi = end[lo];
        if (dnum == 6) {
            double t = mean_inverse_weight(L, nv, first, J, 0, 3, lo, hi, y);
            double r = mean_inverse_weight(L, nv, first, J, 3, 3, lo, hi, y);
            for (int k = 0; k < 3; k++) {
                m->dof_invweight0[adr + k] = t;
                m->dof_invweight0[adr + 3 + k] = r;
            }
        } else {
            double w = mean_inverse_weight(L, nv, first, J, 0, dnum, lo, hi, y);
            for (int k = 0; k < dnum; k++) {
                m->dof_invweight0[adr + k] = w;
            }
        }
    }

    // tendons: ten_J M^-1 ten_J' at qpos0 (a tendon may span trees: every dof visited)
    for (int t = 0; t < m->ntendon; t++) {
        m->tendon_invweight0[t] = mean_inverse_weight(L, nv, first, d->ten_J, t, 1, 0, nv, y);
    }
done:
    free(L);
    free(J);
    free(y);
    free(first);
    free(end);
    return st;
}

// data for m with the kinematics at qpos0 (NULL and *st set on failure)
static gdnData* data_at_qpos0(const gdnModel* m, gdnStatus* st) {
    gdnData* d = NULL;
    *st = gdn_data_create(m, &d);
    if (*st != GDN_OK) {
        return NULL;
    }
    memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
    gdn_kinematics(m, d);
    return d;
}

// the kinematics at qpos0, then (at load) the eq_data completion, then the weights
static gdnStatus constants_at_qpos0(gdnModel* m, int complete_eq) {
    gdnStatus st;
    gdnData* d = data_at_qpos0(m, &st);
    if (!d) {
        return st;
    }
    if (complete_eq) {
        complete_eq_data(m, d);
        // tendon_length0 at qpos0; a negative spring length: the length at qpos_spring
        // (MuJoCo's setSpring)
        memcpy(m->tendon_length0, d->ten_length, sizeof(double) * (size_t)m->ntendon);
    }
    st = set_weights(m, d);
    if (st == GDN_OK) {
        // the actuators' |M^-1 moment| (M from set_weights' CRB at qpos0): it moves with the
        // inertias, as MuJoCo's mj_setConst recomputes it
        st = gdn_actuator_acc0(m, d);
    }
    if (complete_eq && st == GDN_OK && m->ntendon > 0) {
        memcpy(d->qpos, m->qpos_spring, sizeof(double) * (size_t)m->nq);
        gdn_kinematics(m, d);
        for (int t = 0; t < m->ntendon; t++) {
            if (m->tendon_lengthspring[t] < 0) {
                m->tendon_lengthspring[t] = d->ten_length[t];
            }
        }
    }
    gdn_data_free(d);
    return st;
}

gdnStatus gdn_constraint_set_const(gdnModel* m) {
    return constants_at_qpos0(m, 1);
}

gdnStatus gdn_constraint_set_weights(gdnModel* m) {
    return constants_at_qpos0(m, 0);
}
