// SPDX-License-Identifier: Apache-2.0
// Articulated-body algorithm in the world frame: qacc = (M + diag(extra))^-1 (tau - C(q, v)).
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <gradyn/gradyn.h>

#include "base/arena.h"
#include "dynamics/aba.h"
#include "dynamics/com.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "model/validate.h"

// Every spatial quantity of a body is in world axes about the reference point
// subtree_com[root] (com.h), so no per-body coordinate transforms are needed: parent and child
// quantities add directly. A body with several dofs is treated as a chain of massless links,
// one dof each, so every elimination step is scalar (its articulated inertia is downdated in
// place); the joint's velocity-product acceleration c is applied once, at the first dof.

// per-body scratch of the three passes
typedef struct BodyScratch {
    double ai[36]; // articulated inertia (children folded in)
    double pa[6];  // articulated bias force
    double c[6];   // velocity-product acceleration of the body's joints
    double acc[6]; // spatial acceleration
} BodyScratch;

// the rigid-body terms of pass 1, once vel holds the body's velocity v: the body's inertia
// about ref into cinert (10), then
//   ai = I_b,  pa = v x* (I_b v)
static inline void body_rigid_terms(const gdnModel* m, const gdnData* d, int b,
                                    const double* ref, const double* vel, BodyScratch* s,
                                    double* cinert) {
    double offset[3], iv[6];
    gdn_sub3(offset, d->xipos + 3 * b, ref);
    gdn_cinert(cinert, m->body_inertia + 3 * b, d->ximat + 9 * b, offset, m->body_mass[b]);
    gdn_ainert_from_cinert(s->ai, cinert);
    gdn_cinert_mul(iv, cinert, vel);
    gdn_cross_force(s->pa, vel, iv);
}

// pass 1 for one body: motion axes S of its dofs (gdn_dof_axis about ref = subtree_com of its
// root, MuJoCo's cdof), velocity, c and the rigid-body terms
//   v = v_parent + sum_j S_j qvel_j,  c = sum_j v_(before j) x (S_j qvel_j)
//   ai = I_b,  pa = v x* (I_b v)
// A ball (or a free joint's rotation) adds its three axes as one joint velocity
// S_0 qvel_0 + S_1 qvel_1 + S_2 qvel_2 (MuJoCo's mju_mulDofVec order); the stored cvel of
// gdn_com_vel adds them one by one (the same value; other round-off for such joints)
// (vel: the body's row of d->cvel, after its parent's)
static void body_forward(const gdnModel* m, const gdnData* d, int b, const double* parent_vel,
                         double* vel, BodyScratch* s, double* axes, double* cinert) {
    const double* ref = d->subtree_com + 3 * m->body_rootid[b];
    int jnt0 = m->body_jntadr[b];
    int njnt = m->body_jntnum[b];
    if (njnt == 1 && m->jnt_type[jnt0] == GDN_JNT_HINGE) {
        // the common single hinge: c = v_parent x (S qvel) (c starts at an exact 0)
        int dof = m->jnt_dofadr[jnt0];
        double* S = axes + 6 * dof;
        double vj[6];
        gdn_jnt_dof_axis(m, d, jnt0, GDN_JNT_HINGE, 0, ref, S);
        gdn_scl6(vj, S, d->qvel[dof]);
        gdn_cross_motion(s->c, parent_vel, vj);
        gdn_add6(vel, parent_vel, vj);
        body_rigid_terms(m, d, b, ref, vel, s, cinert);
        return;
    }
    double v[6], c[6];
    for (int i = 0; i < 6; i++) {
        v[i] = parent_vel[i];
        c[i] = 0;
    }
    for (int j = jnt0; j < jnt0 + njnt; j++) {
        int dof = m->jnt_dofadr[j];
        const double* qvel = d->qvel + dof;
        double* S = axes + 6 * dof;
        double vj[6], cj[6];
        int type = m->jnt_type[j];
        int k0 = 0;
        if (type == GDN_JNT_FREE) {
            // translation along the world axes: constant axes, no velocity product
            for (int k = 0; k < 3; k++) {
                gdn_jnt_dof_axis(m, d, j, type, k, ref, S + 6 * k);
                v[3 + k] += qvel[k];
            }
            S += 18;
            qvel += 3;
            k0 = 3;
        }
        if (type == GDN_JNT_FREE || type == GDN_JNT_BALL) {
            for (int k = 0; k < 3; k++) {
                gdn_jnt_dof_axis(m, d, j, type, k0 + k, ref, S + 6 * k);
            }
            for (int i = 0; i < 6; i++) {
                vj[i] = S[i] * qvel[0] + S[6 + i] * qvel[1] + S[12 + i] * qvel[2];
            }
        } else {
            gdn_jnt_dof_axis(m, d, j, type, 0, ref, S);
            gdn_scl6(vj, S, qvel[0]);
        }
        gdn_cross_motion(cj, v, vj);
        gdn_add6(c, c, cj);
        gdn_add6(v, v, vj);
    }

    for (int i = 0; i < 6; i++) {
        vel[i] = v[i];
        s->c[i] = c[i];
    }
    body_rigid_terms(m, d, b, ref, vel, s, cinert);
}

// pass 2 for one body, dofs last to first, each a scalar elimination:
//   U = ai S,  D = S'U + armature + extra,  u = tau - S'pa
//   ai -= U U' / D,  pa += U u / D     (skipped for the root dof of a tree)
// then the body's articulated terms move to its parent:
//   pa += ai c,  ai_parent += ai,  pa_parent += pa
// (the body's last elimination, ai c and the move to the parent share one sweep of ai)
static void body_backward(const gdnModel* m, int b, const double* tau, const double* extra,
                          const double* axes, double* U, double* dinv, double* uu,
                          BodyScratch* s, BodyScratch* parent) {
    int dof0 = m->body_dofadr[b];
    int has_parent = m->body_parentid[b] > 0;
    double ic[6];
    int folded = 0;
    for (int k = dof0 + m->body_dofnum[b] - 1; k >= dof0; k--) {
        const double* S = axes + 6 * k;
        double* Uk = U + 6 * k;
        gdn_ainert_mul(Uk, s->ai, S);
        double D = gdn_dot6(S, Uk) + m->dof_armature[k];
        if (extra) {
            D += extra[k];
        }
        double Dinv = 1 / D;
        double u = tau[k] - gdn_dot6(S, s->pa);
        dinv[k] = Dinv;
        uu[k] = u;
        if (k > dof0) {
            gdn_ainert_downdate(s->ai, Uk, Dinv);
            gdn_addscl6(s->pa, s->pa, Uk, u * Dinv);
        } else if (has_parent) {
            gdn_ainert_downdate_fold(parent->ai, ic, s->ai, Uk, Dinv, s->c);
            gdn_addscl6(s->pa, s->pa, Uk, u * Dinv);
            folded = 1;
        }
    }
    if (has_parent) {
        if (!folded) {
            gdn_ainert_mul(ic, s->ai, s->c);
            gdn_ainert_add(parent->ai, s->ai);
        }
        gdn_add6(ic, s->pa, ic);
        gdn_add6(parent->pa, parent->pa, ic);
    }
}

gdnStatus gdn_aba_factor_alloc(const gdnModel* m, gdnData* d, gdnAbaFactor* f) {
    const size_t nv = (size_t)(m->nv > 0 ? m->nv : 1);
    double* block = gdn_arena_doubles(d, 13 * nv);
    f->axes = block;
    f->U = block ? block + 6 * nv : NULL;
    f->dinv = block ? block + 12 * nv : NULL;
    f->implicit_LU = NULL;
    return block ? GDN_OK : GDN_ERR_MEMORY;
}

void gdn_aba(const gdnModel* m, gdnData* d, const double* tau, const double* extra,
             double* qacc) {
    if (gdn_check_model_data(m, d) != GDN_OK || !tau) {
        for (int i = 0; m && qacc && i < m->nv; i++) {
            qacc[i] = NAN;
        }
        return;
    }
    gdn_aba_factored(m, d, tau, extra, qacc, NULL);
}

void gdn_aba_factored(const gdnModel* m, gdnData* d, const double* tau, const double* extra,
                      double* qacc, const gdnAbaFactor* f) {
    const int nv = m->nv, nbody = m->nbody;
    size_t mark = gdn_arena_mark(d);
    // scratch in one block: per-body scratch, then U (6 nv), dinv, uu (nv each)
    const size_t nbs = sizeof(BodyScratch) / sizeof(double) * (size_t)nbody;
    double* block = gdn_arena_doubles(d, nbs + 8 * (size_t)nv);
    if (!block) {
        for (int i = 0; i < nv; i++) {
            qacc[i] = NAN;
        }
        gdn_arena_reset(d, mark);
        return;
    }
    BodyScratch* bs = (BodyScratch*)(void*)block;
    double* axes = d->cdof;
    double* U = block + nbs;
    double* dinv = U + 6 * (size_t)nv;
    double* uu = dinv + nv;
    if (f) {
        // the factorization goes to the caller's arrays (the axes copied to d->cdof below)
        axes = f->axes;
        U = f->U;
        dinv = f->dinv;
    }

    // pass 1: parents before children; the axes, inertias and velocities are stored
    for (int i = 0; i < 6; i++) {
        d->cvel[i] = 0;
    }
    for (int i = 0; i < 10; i++) {
        d->cinert[i] = 0;
    }
    for (int b = 1; b < nbody; b++) {
        body_forward(m, d, b, d->cvel + 6 * m->body_parentid[b], d->cvel + 6 * b, bs + b, axes,
                     d->cinert + 10 * b);
    }
    if (f) {
        memcpy(d->cdof, f->axes, 6 * sizeof(double) * (size_t)nv);
    }

    // pass 2: children before parents
    for (int b = nbody - 1; b > 0; b--) {
        body_backward(m, b, tau, extra, axes, U, dinv, uu, bs + b, bs + m->body_parentid[b]);
    }

    // pass 3: a_0 = [0; -g];  a = a_parent + c, then per dof
    //   qacc_k = (u_k - U_k' a) / D_k,  a += S_k qacc_k
    for (int i = 0; i < 6; i++) {
        bs[0].acc[i] = 0;
    }
    if (!(m->opt.disableflags & GDN_DSBL_GRAVITY)) {
        gdn_scl3(bs[0].acc + 3, m->opt.gravity, -1);
    }
    for (int b = 1; b < nbody; b++) {
        double* a = bs[b].acc;
        const double* ap = bs[m->body_parentid[b]].acc;
        gdn_add6(a, ap, bs[b].c);
        int dof0 = m->body_dofadr[b];
        for (int k = dof0; k < dof0 + m->body_dofnum[b]; k++) {
            double qk = dinv[k] * (uu[k] - gdn_dot6(U + 6 * k, a));
            qacc[k] = qk;
            gdn_addscl6(a, a, axes + 6 * k, qk);
        }
    }
    gdn_arena_reset(d, mark);
}

// d->cdof, d->cinert (gdn_com_pos, the same bits as pass 1 of gdn_aba_factored), then ABA's
// pass 2 without the bias terms (no velocity, c, pa): per body, children first,
//   ai = I_b + sum over the children of their downdated ai, then dofs last to first
//   U = ai S,  D = S'U + armature + extra,  ai -= U U' / D  (the root dof of a tree: not needed)
// the same operations on ai, U, D as gdn_aba_factored (its fold is downdate then add), so the
// factorization is bit for bit the step's.
gdnStatus gdn_aba_factor(const gdnModel* m, gdnData* d, const double* extra,
                         const gdnAbaFactor* f) {
    const int nbody = m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* ai = gdn_arena_doubles(d, 36 * (size_t)nbody);
    if (!ai) {
        return GDN_ERR_MEMORY;
    }
    gdn_com_pos(m, d);
    memcpy(f->axes, d->cdof, 6 * sizeof(double) * (size_t)m->nv);
    for (int b = 1; b < nbody; b++) {
        gdn_ainert_from_cinert(ai + 36 * b, d->cinert + 10 * b);
    }
    for (int b = nbody - 1; b > 0; b--) {
        int dof0 = m->body_dofadr[b];
        int has_parent = m->body_parentid[b] > 0;
        double* aib = ai + 36 * b;
        for (int k = dof0 + m->body_dofnum[b] - 1; k >= dof0; k--) {
            const double* S = f->axes + 6 * k;
            double* Uk = f->U + 6 * k;
            gdn_ainert_mul(Uk, aib, S);
            double D = gdn_dot6(S, Uk) + m->dof_armature[k];
            if (extra) {
                D += extra[k];
            }
            f->dinv[k] = 1 / D;
            if (k > dof0 || has_parent) {
                gdn_ainert_downdate(aib, Uk, f->dinv[k]);
            }
        }
        if (has_parent) {
            gdn_ainert_add(ai + 36 * m->body_parentid[b], aib);
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

// H^-1 x by ABA with v = 0 and no gravity (c = 0, pa starts at 0, a_0 = 0):
//   pass 2, children first, dofs last to first:  u_k = x_k - S_k' pa,  pa += U_k u_k dinv_k
//           (skipped for the root dof of a tree), then pa_parent += pa
//   pass 3, parents first:  a = a_parent, then per dof  y_k = dinv_k (u_k - U_k' a),
//           a += S_k y_k
// One 6 nbody array holds pa in pass 2 and a in pass 3 (a parent's pa is consumed before its
// acceleration is written).
gdnStatus gdn_aba_solve(const gdnModel* m, gdnData* d, const gdnAbaFactor* f, double* x) {
    const int nbody = m->nbody;
    size_t mark = gdn_arena_mark(d);
    double* P = gdn_arena_doubles(d, 6 * (size_t)nbody);
    if (!P) {
        return GDN_ERR_MEMORY;
    }
    for (int i = 0; i < 6 * nbody; i++) {
        P[i] = 0;
    }
    for (int b = nbody - 1; b > 0; b--) {
        int dof0 = m->body_dofadr[b];
        int has_parent = m->body_parentid[b] > 0;
        double* pa = P + 6 * b;
        for (int k = dof0 + m->body_dofnum[b] - 1; k >= dof0; k--) {
            double u = x[k] - gdn_dot6(f->axes + 6 * k, pa);
            x[k] = u;
            if (k > dof0 || has_parent) {
                gdn_addscl6(pa, pa, f->U + 6 * k, u * f->dinv[k]);
            }
        }
        if (has_parent) {
            double* pp = P + 6 * m->body_parentid[b];
            gdn_add6(pp, pp, pa);
        }
    }
    for (int b = 1; b < nbody; b++) {
        double* a = P + 6 * b;
        const double* ap = P + 6 * m->body_parentid[b];
        for (int i = 0; i < 6; i++) {
            a[i] = ap[i];
        }
        int dof0 = m->body_dofadr[b];
        for (int k = dof0; k < dof0 + m->body_dofnum[b]; k++) {
            double y = f->dinv[k] * (x[k] - gdn_dot6(f->U + 6 * k, a));
            x[k] = y;
            gdn_addscl6(a, a, f->axes + 6 * k, y);
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
