// SPDX-License-Identifier: Apache-2.0
// Tests of Jacobians, passive forces, actuation, applied forces and energy on hand-built models.
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

#include "dynamics/applied.h"
#include "math/vec.h"
#include "model/model_alloc.h"
#include "oracle/actuated_model.h"
#include "oracle/from_mujoco.h"
#include "oracle/oracle.h"
#include "runner/test.h"

#define MAXB 16
#define PI 3.14159265358979323846

// ---------------------------------------------------------------- hand-built models

// body b: parent, joint types (up to 3, -1 ends)
typedef struct BodySpec {
    int parent;
    int jnt[3];
} BodySpec;

static void random_quat(unsigned long long* rng, double q[4]) {
    for (int i = 0; i < 4; i++) {
        q[i] = gdn_test_uniform(rng, -1, 1);
    }
    gdn_normalize4(q);
}

static void random_vec(unsigned long long* rng, double v[3], double scale) {
    for (int i = 0; i < 3; i++) {
        v[i] = gdn_test_uniform(rng, -scale, scale);
    }
}

// a model of nbody - 1 bodies (specs[0] is the world) with random frames, inertias and axes;
// every array a loader would fill for these stages is filled
static gdnModel* build_model(const BodySpec* specs, int nbody, int nu, unsigned long long seed) {
    unsigned long long rng = seed;
    gdnModelSizes sz = {0};
    sz.nbody = nbody;
    sz.nu = nu;
    for (int b = 1; b < nbody; b++) {
        for (int k = 0; k < 3 && specs[b].jnt[k] >= 0; k++) {
            sz.njnt++;
            sz.nq += gdn_joint_nq(specs[b].jnt[k]);
            sz.nv += gdn_joint_nv(specs[b].jnt[k]);
        }
    }
    gdnModel* m = gdn_model_alloc(&sz);
    if (!m) {
        return NULL;
    }
    m->opt.timestep = 0.002;
    m->opt.gravity[2] = -9.81;
    m->body_quat[0] = m->body_iquat[0] = 1;
    m->body_jntadr[0] = m->body_dofadr[0] = m->body_geomadr[0] = -1;
    int jnt = 0, qadr = 0, dadr = 0;
    for (int b = 1; b < nbody; b++) {
        int p = specs[b].parent;
        m->body_parentid[b] = p;
        m->body_rootid[b] = p == 0 ? b : m->body_rootid[p];
        m->body_geomadr[b] = -1;
        random_vec(&rng, m->body_pos + 3 * b, 0.5);
        random_quat(&rng, m->body_quat + 4 * b);
        random_vec(&rng, m->body_ipos + 3 * b, 0.2);
        random_quat(&rng, m->body_iquat + 4 * b);
        m->body_mass[b] = gdn_test_uniform(&rng, 0.5, 2);
        for (int i = 0; i < 3; i++) {
            m->body_inertia[3 * b + i] = gdn_test_uniform(&rng, 0.05, 0.3);
        }
        m->body_jntadr[b] = -1;
        m->body_dofadr[b] = -1;
        int first_dof = dadr;
        for (int k = 0; k < 3 && specs[b].jnt[k] >= 0; k++) {
            int type = specs[b].jnt[k];
            if (k == 0) {
                m->body_jntadr[b] = jnt;
                m->body_dofadr[b] = dadr;
            }
            m->body_jntnum[b]++;
            m->jnt_type[jnt] = type;
            m->jnt_qposadr[jnt] = qadr;
            m->jnt_dofadr[jnt] = dadr;
            m->jnt_bodyid[jnt] = b;
            m->jnt_stiffness[jnt] = gdn_test_uniform(&rng, 0.5, 3);
            if (type == GDN_JNT_HINGE || type == GDN_JNT_SLIDE) {
                random_vec(&rng, m->jnt_axis + 3 * jnt, 1);
                gdn_normalize3(m->jnt_axis + 3 * jnt);
                random_vec(&rng, m->jnt_pos + 3 * jnt, 0.2);
                m->qpos_spring[qadr] = gdn_test_uniform(&rng, -0.5, 0.5);
            } else {
                m->jnt_axis[3 * jnt + 2] = 1;
                if (type == GDN_JNT_BALL) {
                    random_vec(&rng, m->jnt_pos + 3 * jnt, 0.2);
                }
                int qa = type == GDN_JNT_FREE ? qadr + 3 : qadr;
                m->qpos0[qa] = 1;
                random_quat(&rng, m->qpos_spring + qa);
                if (type == GDN_JNT_FREE) {
                    gdn_copy3(m->qpos0 + qadr, m->body_pos + 3 * b);
                    gdn_copy4(m->qpos0 + qadr + 3, m->body_quat + 4 * b);
                    random_vec(&rng, m->qpos_spring + qadr, 1);
                }
            }
            for (int i = 0; i < gdn_joint_nv(type); i++) {
                m->dof_bodyid[dadr] = b;
                m->dof_jntid[dadr] = jnt;
                m->dof_parentid[dadr] = dadr - 1;
                m->dof_armature[dadr] = gdn_test_uniform(&rng, 0, 0.1);
                m->dof_damping[dadr] = gdn_test_uniform(&rng, 0, 1);
                dadr++;
            }
            qadr += gdn_joint_nq(type);
            jnt++;
        }
        m->body_dofnum[b] = dadr - first_dof;
        // the first dof's parent is the last dof of the nearest ancestor with dofs
        if (m->body_dofnum[b] > 0) {
            int a = p;
            while (a > 0 && m->body_dofnum[a] == 0) {
                a = m->body_parentid[a];
            }
            m->dof_parentid[first_dof] = a > 0 ? m->body_dofadr[a] + m->body_dofnum[a] - 1 : -1;
        }
        m->body_weldid[b] = m->body_dofnum[b] > 0 ? b : m->body_weldid[p];
    }
    for (int b = nbody - 1; b > 0; b--) {
        m->body_subtreemass[b] += m->body_mass[b];
        m->body_subtreemass[m->body_parentid[b]] += m->body_subtreemass[b];
    }
    return m;
}

// every joint type, a multi-joint body, a welded body and a second tree
static const BodySpec kTreeSpecs[] = {
    {0, {-1, -1, -1}},
    {0, {GDN_JNT_FREE, -1, -1}},
    {1, {GDN_JNT_BALL, -1, -1}},
    {2, {GDN_JNT_HINGE, GDN_JNT_SLIDE, -1}},
    {3, {-1, -1, -1}},
    {4, {GDN_JNT_SLIDE, GDN_JNT_HINGE, GDN_JNT_BALL}}, // MuJoCo forbids rotation after a ball
    {0, {GDN_JNT_HINGE, -1, -1}},
    {6, {GDN_JNT_SLIDE, -1, -1}},
    {0, {-1, -1, -1}},
    {6, {GDN_JNT_BALL, -1, -1}},
};
#define NTREE ((int)(sizeof(kTreeSpecs) / sizeof(kTreeSpecs[0])))

// random configuration (unit quaternions) and velocity
static void random_state(const gdnModel* m, gdnData* d, unsigned long long* rng) {
    for (int j = 0; j < m->njnt; j++) {
        double* q = d->qpos + m->jnt_qposadr[j];
        switch (m->jnt_type[j]) {
        case GDN_JNT_FREE:
            random_vec(rng, q, 1);
            random_quat(rng, q + 3);
            break;
        case GDN_JNT_BALL:
            random_quat(rng, q);
            break;
        default:
            q[0] = gdn_test_uniform(rng, -2, 2);
            break;
        }
    }
    for (int i = 0; i < m->nv; i++) {
        d->qvel[i] = gdn_test_uniform(rng, -2, 2);
    }
}

// ---------------------------------------------------------------- reference kinematics

// forward kinematics with MuJoCo's formulas (mj_kinematics), an independent reference for
// gdn_kinematics on the hand-built models: xpos, xquat, xmat, xipos, ximat, xanchor, xaxis
static void ref_kinematics(const gdnModel* m, gdnData* d) {
    gdn_zero3(d->xpos);
    gdn_zero3(d->xipos);
    d->xquat[0] = 1;
    d->xquat[1] = d->xquat[2] = d->xquat[3] = 0;
    gdn_quat2mat(d->xmat, d->xquat);
    gdn_quat2mat(d->ximat, d->xquat);
    for (int b = 1; b < m->nbody; b++) {
        double pos[3], quat[4], vec[3];
        int j0 = m->body_jntadr[b];
        if (m->body_jntnum[b] == 1 && m->jnt_type[j0] == GDN_JNT_FREE) {
            const double* q = d->qpos + m->jnt_qposadr[j0];
            gdn_copy3(pos, q);
            gdn_copy4(quat, q + 3);
            gdn_normalize4(quat);
            gdn_copy3(d->xanchor + 3 * j0, pos);
            gdn_zero3(d->xaxis + 3 * j0);
            d->xaxis[3 * j0 + 2] = 1;
        } else {
            int p = m->body_parentid[b];
            gdn_mulmat3(vec, d->xmat + 9 * p, m->body_pos + 3 * b);
            gdn_add3(pos, d->xpos + 3 * p, vec);
            gdn_mulquat(quat, d->xquat + 4 * p, m->body_quat + 4 * b);
            for (int k = 0; k < m->body_jntnum[b]; k++) {
                int j = j0 + k;
                const double* q = d->qpos + m->jnt_qposadr[j];
                double axis[3], anchor[3], qloc[4], rot[3];
                gdn_rotvecquat(axis, m->jnt_axis + 3 * j, quat);
                gdn_rotvecquat(anchor, m->jnt_pos + 3 * j, quat);
                gdn_add3(anchor, anchor, pos);
                if (m->jnt_type[j] == GDN_JNT_SLIDE) {
                    gdn_addscl3(pos, pos, axis, q[0] - m->qpos0[m->jnt_qposadr[j]]);
                } else {
                    if (m->jnt_type[j] == GDN_JNT_BALL) {
                        gdn_copy4(qloc, q);
                        gdn_normalize4(qloc);
                    } else {
                        gdn_axisangle2quat(qloc, m->jnt_axis + 3 * j,
                                           q[0] - m->qpos0[m->jnt_qposadr[j]]);
                    }
                    gdn_mulquat(quat, quat, qloc);
                    // keep the anchor fixed: pos += (anchor - pos) - R_new jnt_pos
                    gdn_sub3(vec, anchor, pos);
                    gdn_rotvecquat(rot, m->jnt_pos + 3 * j, quat);
                    gdn_sub3(vec, vec, rot);
                    gdn_add3(pos, pos, vec);
                }
                gdn_copy3(d->xanchor + 3 * j, anchor);
                gdn_copy3(d->xaxis + 3 * j, axis);
            }
            gdn_normalize4(quat);
        }
        gdn_copy4(d->xquat + 4 * b, quat);
        gdn_copy3(d->xpos + 3 * b, pos);
        gdn_quat2mat(d->xmat + 9 * b, quat);
        double iquat[4], ipos[3];
        gdn_mulmat3(ipos, d->xmat + 9 * b, m->body_ipos + 3 * b);
        gdn_add3(d->xipos + 3 * b, d->xpos + 3 * b, ipos);
        gdn_mulquat(iquat, quat, m->body_iquat + 4 * b);
        gdn_normalize4(iquat);
        gdn_quat2mat(d->ximat + 9 * b, iquat);
    }
}

static void kinematics(const gdnModel* m, gdnData* d) {
    gdn_kinematics(m, d);
}

// gdn_kinematics agrees with the reference above on the frames these stages read
static int test_kinematics_inputs(void) {
    unsigned long long rng = 3;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 5);
    gdnData *d = NULL, *r = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK && gdn_data_create(m, &r) == GDN_OK);
    for (int trial = 0; trial < 5; trial++) {
        random_state(m, d, &rng);
        memcpy(r->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
        gdn_kinematics(m, d);
        ref_kinematics(m, r);
        CHECK_ARRAY_REL(d->xpos, r->xpos, 3 * m->nbody, 1e-14, 1);
        CHECK_ARRAY_REL(d->xmat, r->xmat, 9 * m->nbody, 1e-14, 1);
        CHECK_ARRAY_REL(d->xipos, r->xipos, 3 * m->nbody, 1e-14, 1);
        CHECK_ARRAY_REL(d->ximat, r->ximat, 9 * m->nbody, 1e-14, 1);
        CHECK_ARRAY_REL(d->xanchor, r->xanchor, 3 * m->njnt, 1e-14, 1);
        CHECK_ARRAY_REL(d->xaxis, r->xaxis, 3 * m->njnt, 1e-14, 1);
    }
    gdn_data_free(r);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- Jacobians

// world point attached to body b at local offset `local`, and its orientation quaternion
static void body_point(const gdnData* d, int b, const double local[3], double p[3]) {
    double r[3];
    gdn_mulmat3(r, d->xmat + 9 * b, local);
    gdn_add3(p, d->xpos + 3 * b, r);
}

// central FD of the point and orientation along the tangent direction u:
//   dp = (p(q (+) h u) - p(q (+) -h u)) / 2h,  dth = log(R+ R-') / 2h
static void fd_point_motion(const gdnModel* m, gdnData* d, const double* qpos, const double* u,
                            int b, const double local[3], double h, double dp[3],
                            double dth[3]) {
    double pp[3], pm[3], qp[4], qm[4];
    memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, d->qpos, u, h);
    kinematics(m, d);
    body_point(d, b, local, pp);
    gdn_copy4(qp, d->xquat + 4 * b);
    memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
    gdn_integrate_pos(m, d->qpos, u, -h);
    kinematics(m, d);
    body_point(d, b, local, pm);
    gdn_copy4(qm, d->xquat + 4 * b);
    memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
    kinematics(m, d);
    for (int i = 0; i < 3; i++) {
        dp[i] = (pp[i] - pm[i]) / (2 * h);
    }
    // world-frame rotation from qm to qp: qp conj(qm)
    double c[4], dq[4];
    gdn_negquat(c, qm);
    gdn_mulquat(dq, qp, c);
    gdn_quat_sub(dth, dq, (const double[4]){1, 0, 0, 0});
    gdn_scl3(dth, dth, 1 / (2 * h));
}

// jacp, jacr of points on every body vs central differences along each tangent basis vector
static int test_jac_fd(void) {
    unsigned long long rng = 11;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 3);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double* jacp = calloc((size_t)(3 * nv), sizeof(double));
    double* jacr = calloc((size_t)(3 * nv), sizeof(double));
    double* u = calloc((size_t)nv, sizeof(double));
    double* qpos = calloc((size_t)m->nq, sizeof(double));
    double worst_p = 0, worst_r = 0;
    for (int trial = 0; trial < 5; trial++) {
        random_state(m, d, &rng);
        memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
        kinematics(m, d);
        for (int b = 0; b < m->nbody; b++) {
            double local[3], point[3];
            random_vec(&rng, local, 0.5);
            body_point(d, b, local, point);
            gdn_jac(m, d, jacp, jacr, point, b);
            for (int i = 0; i < nv; i++) {
                double dp[3], dth[3];
                memset(u, 0, sizeof(double) * (size_t)nv);
                u[i] = 1;
                fd_point_motion(m, d, qpos, u, b, local, 1e-6, dp, dth);
                for (int r = 0; r < 3; r++) {
                    worst_p = fmax(worst_p, fabs(jacp[r * nv + i] - dp[r]));
                    worst_r = fmax(worst_r, fabs(jacr[r * nv + i] - dth[r]));
                }
            }
        }
    }
    printf("  jac vs central FD (h 1e-6), max abs error: jacp %.2e, jacr %.2e\n", worst_p,
           worst_r);
    CHECK(worst_p < 1e-8);
    CHECK(worst_r < 1e-8);
    free(jacp);
    free(jacr);
    free(u);
    free(qpos);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// body and COM Jacobians are gdn_jac at xpos and xipos; welded bodies share their parent's
// dofs; the world and out-of-range ids give zeros
static int test_jac_body(void) {
    unsigned long long rng = 5;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 4);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    int n = 3 * m->nv;
    double a[3 * 64], b[3 * 64], c[3 * 64], e[3 * 64];
    CHECK(n <= 3 * 64);
    random_state(m, d, &rng);
    kinematics(m, d);
    for (int body = 0; body < m->nbody; body++) {
        gdn_jac_body(m, d, a, b, body);
        gdn_jac(m, d, c, e, d->xpos + 3 * body, body);
        CHECK(memcmp(a, c, sizeof(double) * (size_t)n) == 0);
        CHECK(memcmp(b, e, sizeof(double) * (size_t)n) == 0);
        gdn_jac_body_com(m, d, a, NULL, body);
        gdn_jac(m, d, c, NULL, d->xipos + 3 * body, body);
        CHECK(memcmp(a, c, sizeof(double) * (size_t)n) == 0);
    }
    // body 8 is welded to the world; body 4 to body 3
    gdn_jac_body(m, d, a, b, 8);
    for (int i = 0; i < n; i++) {
        CHECK(a[i] == 0 && b[i] == 0);
    }
    gdn_jac_body(m, d, a, b, 4);
    gdn_jac(m, d, c, e, d->xpos + 3 * 4, 3);
    CHECK(memcmp(a, c, sizeof(double) * (size_t)n) == 0);
    gdn_jac_body(m, d, a, b, 99);
    for (int i = 0; i < n; i++) {
        CHECK(a[i] == 0 && b[i] == 0);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// J u equals the FD point velocity along a random tangent u (free joint's world linear and
// local angular velocity included), and <J u, w> = <u, J' w>
static int test_jac_directional(void) {
    unsigned long long rng = 17;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 8);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double jacp[3 * 64], jacr[3 * 64], u[64], qpos[128];
    double worst = 0, worst_adj = 0;
    for (int trial = 0; trial < 10; trial++) {
        random_state(m, d, &rng);
        memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
        for (int i = 0; i < nv; i++) {
            u[i] = gdn_test_uniform(&rng, -1, 1);
        }
        kinematics(m, d);
        int b = 1 + trial % (m->nbody - 1);
        double local[3] = {0.1, -0.2, 0.3}, point[3], dp[3], dth[3], w[3], wr[3];
        body_point(d, b, local, point);
        gdn_jac(m, d, jacp, jacr, point, b);
        fd_point_motion(m, d, qpos, u, b, local, 1e-6, dp, dth);
        random_vec(&rng, w, 1);
        random_vec(&rng, wr, 1);
        double ju_w = 0, u_jtw = 0;
        for (int r = 0; r < 3; r++) {
            double jpu = 0, jru = 0;
            for (int i = 0; i < nv; i++) {
                jpu += jacp[r * nv + i] * u[i];
                jru += jacr[r * nv + i] * u[i];
            }
            worst = fmax(worst, fmax(fabs(jpu - dp[r]), fabs(jru - dth[r])));
            ju_w += jpu * w[r] + jru * wr[r];
        }
        for (int i = 0; i < nv; i++) {
            double jtw = 0;
            for (int r = 0; r < 3; r++) {
                jtw += jacp[r * nv + i] * w[r] + jacr[r * nv + i] * wr[r];
            }
            u_jtw += u[i] * jtw;
        }
        worst_adj = fmax(worst_adj, fabs(ju_w - u_jtw) / fmax(1, fabs(ju_w)));
    }
    printf("  J u vs FD: max abs error %.2e; <Ju,w> - <u,J'w>: %.2e\n", worst, worst_adj);
    CHECK(worst < 1e-8);
    CHECK(worst_adj < 1e-14);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- applied forces

// virtual work: for xfrc [f; t] at the COM, qfrc . u = f . dp(u) + t . dtheta(u) for every u
static int test_applied_virtual_work(void) {
    unsigned long long rng = 23;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 9);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double qfrc[64], u[64], qpos[128];
    random_state(m, d, &rng);
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    for (int i = 0; i < nv; i++) {
        d->qfrc_applied[i] = gdn_test_uniform(&rng, -1, 1);
    }
    // forces on a few bodies only (the rest stay zero and are skipped)
    int loaded[] = {2, 5, 7, 4};
    for (int k = 0; k < 4; k++) {
        random_vec(&rng, d->xfrc_applied + 6 * loaded[k], 2);
        random_vec(&rng, d->xfrc_applied + 6 * loaded[k] + 3, 2);
    }
    d->xfrc_applied[6 * 0] = 100; // the world body's wrench is ignored
    kinematics(m, d);
    memset(qfrc, 0, sizeof(double) * (size_t)nv);
    gdn_applied_forces(m, d, qfrc);
    double worst = 0;
    for (int trial = 0; trial < 10; trial++) {
        for (int i = 0; i < nv; i++) {
            u[i] = gdn_test_uniform(&rng, -1, 1);
        }
        double work = 0, power = 0;
        for (int i = 0; i < nv; i++) {
            work += d->qfrc_applied[i] * u[i];
            power += qfrc[i] * u[i];
        }
        for (int k = 0; k < 4; k++) {
            int b = loaded[k];
            double local[3], dp[3], dth[3];
            // the COM in body coordinates
            gdn_copy3(local, m->body_ipos + 3 * b);
            fd_point_motion(m, d, qpos, u, b, local, 1e-6, dp, dth);
            work += gdn_dot3(d->xfrc_applied + 6 * b, dp) +
                    gdn_dot3(d->xfrc_applied + 6 * b + 3, dth);
        }
        worst = fmax(worst, fabs(work - power) / fmax(1, fabs(work)));
    }
    // and exactly J' f from the stored Jacobians
    double jacp[3 * 64], jacr[3 * 64], ref[64];
    memcpy(ref, d->qfrc_applied, sizeof(double) * (size_t)nv);
    for (int k = 0; k < 4; k++) {
        int b = loaded[k];
        gdn_jac_body_com(m, d, jacp, jacr, b);
        for (int i = 0; i < nv; i++) {
            for (int r = 0; r < 3; r++) {
                ref[i] += jacp[r * nv + i] * d->xfrc_applied[6 * b + r] +
                          jacr[r * nv + i] * d->xfrc_applied[6 * b + 3 + r];
            }
        }
    }
    double err = gdn_test_relerr(qfrc, ref, nv, 1);
    printf("  applied: virtual work vs FD %.2e, vs J'f %.2e\n", worst, err);
    CHECK(worst < 1e-8);
    CHECK(err < 1e-14);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- passive forces

static const BodySpec kPassiveSpecs[] = {
    {0, {-1, -1, -1}},
    {0, {GDN_JNT_HINGE, -1, -1}},
    {1, {GDN_JNT_SLIDE, -1, -1}},
    {2, {GDN_JNT_BALL, -1, -1}},
    {0, {GDN_JNT_FREE, -1, -1}},
};

// f = -k (q - q_spring) - b v by hand, for each joint type; a ball rotation beyond pi wraps
static int test_passive_by_hand(void) {
    gdnModel* m = build_model(kPassiveSpecs, 5, 0, 2);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    // joints: 0 hinge (q 0), 1 slide (q 1), 2 ball (q 2..5), 3 free (q 6..12); dofs 0,1,2..4,5..10
    double k[4] = {2, 3, 5, 7};
    memcpy(m->jnt_stiffness, k, sizeof(k));
    for (int i = 0; i < m->nv; i++) {
        m->dof_damping[i] = 0.1 * (i + 1);
        d->qvel[i] = 0.5 - 0.1 * i;
    }
    double axis[3] = {0, 0.6, 0.8};
    m->qpos_spring[0] = 0.25;
    m->qpos_spring[1] = -0.5;
    d->qpos[0] = 1.0;
    d->qpos[1] = 0.5;
    // ball: spring reference identity, rotation 0.7 rad about axis -> displacement 0.7 axis
    double ident[4] = {1, 0, 0, 0};
    gdn_copy4(m->qpos_spring + 2, ident);
    gdn_axisangle2quat(d->qpos + 2, axis, 0.7);
    // free: position offset (1, 2, 3); rotation 2.5 pi / 2 ... beyond pi: 4.0 rad wraps to
    // 4.0 - 2 pi about the same axis, relative to a non-identity reference
    double ref_quat[4], rel[4];
    gdn_axisangle2quat(ref_quat, (const double[3]){1, 0, 0}, 0.3);
    gdn_copy4(m->qpos_spring + 9, ref_quat);
    m->qpos_spring[6] = 0.1;
    m->qpos_spring[7] = 0.2;
    m->qpos_spring[8] = 0.3;
    d->qpos[6] = 1.1;
    d->qpos[7] = 2.2;
    d->qpos[8] = 3.3;
    gdn_axisangle2quat(rel, axis, 4.0);
    gdn_mulquat(d->qpos + 9, ref_quat, rel);
    gdn_passive(m, d);
    double expect[11];
    expect[0] = -2 * 0.75 - 0.1 * d->qvel[0];
    expect[1] = -3 * 1.0 - 0.2 * d->qvel[1];
    for (int i = 0; i < 3; i++) {
        expect[2 + i] = -5 * 0.7 * axis[i] - 0.1 * (3 + i) * d->qvel[2 + i];
        expect[5 + i] = -7 * (1.0 * (i + 1)) - 0.1 * (6 + i) * d->qvel[5 + i];
        expect[8 + i] = -7 * (4.0 - 2 * PI) * axis[i] - 0.1 * (9 + i) * d->qvel[8 + i];
    }
    CHECK_ARRAY_REL(d->qfrc_passive, expect, 11, 1e-13, 1);
    // disabled: zero
    m->opt.disableflags = GDN_DSBL_PASSIVE;
    gdn_passive(m, d);
    for (int i = 0; i < m->nv; i++) {
        CHECK(d->qfrc_passive[i] == 0);
    }
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- actuation

// actuators: 0 motor on the hinge (gear 2), 1 position servo on the slide (kp 10), 2 velocity
// servo on the hinge (kv 3), 3 general affine on the slide, 4 motor on the ball (3D gear),
// 5 motor on the free joint (6D gear)
static gdnModel* actuated_model(void) {
    gdnModel* m = build_model(kPassiveSpecs, 5, 6, 12);
    if (!m) {
        return NULL;
    }
    int trn[6] = {0, 1, 0, 1, 2, 3};
    for (int i = 0; i < 6; i++) {
        m->actuator_trnid[2 * i] = trn[i];
        m->actuator_trnid[2 * i + 1] = -1;
        m->actuator_gear[6 * i] = 1;
        m->actuator_gainprm[GDN_NGAIN * i] = 1;
    }
    m->actuator_gear[0] = 2;
    // position: gain kp, bias -kp length
    m->actuator_gainprm[GDN_NGAIN * 1] = 10;
    m->actuator_biastype[1] = GDN_BIAS_AFFINE;
    m->actuator_biasprm[GDN_NBIAS * 1 + 1] = -10;
    // velocity: gain kv, bias -kv velocity
    m->actuator_gainprm[GDN_NGAIN * 2] = 3;
    m->actuator_biastype[2] = GDN_BIAS_AFFINE;
    m->actuator_biasprm[GDN_NBIAS * 2 + 2] = -3;
    // general affine gain and bias, gear 1.5
    m->actuator_gear[6 * 3] = 1.5;
    m->actuator_gaintype[3] = GDN_GAIN_AFFINE;
    double g3[3] = {0.5, 0.25, -0.125}, b3[3] = {1, -2, 0.75};
    memcpy(m->actuator_gainprm + GDN_NGAIN * 3, g3, sizeof(g3));
    m->actuator_biastype[3] = GDN_BIAS_AFFINE;
    memcpy(m->actuator_biasprm + GDN_NBIAS * 3, b3, sizeof(b3));
    double gball[3] = {0.3, -0.4, 1.2}, gfree[6] = {1, 2, 3, -1, 0.5, 0.25};
    memcpy(m->actuator_gear + 6 * 4, gball, sizeof(gball));
    memcpy(m->actuator_gear + 6 * 5, gfree, sizeof(gfree));
    return m;
}

static int test_actuation_by_hand(void) {
    gdnModel* m = actuated_model();
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    unsigned long long rng = 99;
    random_state(m, d, &rng);
    double ctrl[6] = {0.7, 0.3, -1.1, 0.9, 2.0, -0.5};
    memcpy(d->ctrl, ctrl, sizeof(ctrl));
    gdn_actuation(m, d);
    double qh = d->qpos[0], qs = d->qpos[1], vh = d->qvel[0], vs = d->qvel[1];
    double rv[3];
    gdn_quat_sub(rv, d->qpos + 2, (const double[4]){1, 0, 0, 0});
    double gball[3] = {0.3, -0.4, 1.2}, gfree[6] = {1, 2, 3, -1, 0.5, 0.25};
    double len[6] = {2 * qh, qs, qh, 1.5 * qs, gdn_dot3(gball, rv), 0};
    double vel[6] = {2 * vh, vs, vh, 1.5 * vs, gdn_dot3(gball, d->qvel + 2), 0};
    for (int i = 0; i < 6; i++) {
        vel[5] += gfree[i] * d->qvel[5 + i];
    }
    CHECK_ARRAY_REL(d->actuator_length, len, 6, 1e-14, 1);
    CHECK_ARRAY_REL(d->actuator_velocity, vel, 6, 1e-14, 1);
    double frc[6];
    frc[0] = 0.7;
    frc[1] = 10 * 0.3 - 10 * len[1];
    frc[2] = 3 * -1.1 - 3 * vel[2];
    frc[3] = (0.5 + 0.25 * len[3] - 0.125 * vel[3]) * 0.9 + (1 - 2 * len[3] + 0.75 * vel[3]);
    frc[4] = 2.0;
    frc[5] = -0.5;
    CHECK_ARRAY_REL(d->actuator_force, frc, 6, 1e-14, 1);
    double qfrc[11] = {0};
    qfrc[0] = 2 * frc[0] + frc[2];
    qfrc[1] = frc[1] + 1.5 * frc[3];
    for (int i = 0; i < 3; i++) {
        qfrc[2 + i] = gball[i] * frc[4];
    }
    for (int i = 0; i < 6; i++) {
        qfrc[5 + i] = gfree[i] * frc[5];
    }
    CHECK_ARRAY_REL(d->qfrc_actuator, qfrc, 11, 1e-14, 1);

    // ctrl clamping (motor 0 limited to [-0.5, 0.5]) and force clamping (servo 1 to [-1, 1])
    m->actuator_ctrllimited[0] = 1;
    m->actuator_ctrlrange[0] = -0.5;
    m->actuator_ctrlrange[1] = 0.5;
    m->actuator_forcelimited[1] = 1;
    m->actuator_forcerange[2] = -1;
    m->actuator_forcerange[3] = 1;
    gdn_actuation(m, d);
    CHECK(d->actuator_force[0] == 0.5);
    CHECK(d->actuator_force[1] == fmin(1, fmax(-1, frc[1])));
    m->opt.disableflags = GDN_DSBL_CLAMPCTRL;
    gdn_actuation(m, d);
    CHECK(d->actuator_force[0] == 0.7);
    // a non-finite control zeroes every control (bias still acts) and counts a warning
    m->opt.disableflags = 0;
    d->ctrl[3] = NAN;
    gdn_actuation(m, d);
    CHECK(d->warning[GDN_WARN_BADCTRL] == 1);
    CHECK(d->actuator_force[0] == 0);
    CHECK_NEAR(d->actuator_force[3], 1 - 2 * len[3] + 0.75 * vel[3], 1e-14, 0);
    // actuation disabled: zero forces, lengths still computed
    d->ctrl[3] = 0.9;
    m->opt.disableflags = GDN_DSBL_ACTUATION;
    gdn_actuation(m, d);
    for (int i = 0; i < m->nv; i++) {
        CHECK(d->qfrc_actuator[i] == 0);
    }
    CHECK(d->actuator_force[1] == 0);
    CHECK(d->actuator_length[0] == 2 * qh);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- energy

// pendulum: hinge about y at the origin, COM at (0, 0, -L):
//   U = -m g L cos(theta) + 0.5 k (theta - theta0)^2,  T = 0.5 (m L^2 + Iyy + armature) w^2
static int test_energy_pendulum(void) {
    static const BodySpec specs[] = {{0, {-1, -1, -1}}, {0, {GDN_JNT_HINGE, -1, -1}}};
    gdnModel* m = build_model(specs, 2, 0, 1);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    double mass = 1.5, L = 0.8, I[3] = {0.1, 0.2, 0.3}, k = 4, theta0 = 0.2, arm = 0.05;
    gdn_zero3(m->body_pos + 3);
    m->body_quat[4] = 1;
    m->body_quat[5] = m->body_quat[6] = m->body_quat[7] = 0;
    gdn_copy4(m->body_iquat + 4, m->body_quat + 4);
    m->body_ipos[3] = m->body_ipos[4] = 0;
    m->body_ipos[5] = -L;
    m->body_mass[1] = mass;
    gdn_copy3(m->body_inertia + 3, I);
    gdn_zero3(m->jnt_pos);
    gdn_copy3(m->jnt_axis, (const double[3]){0, 1, 0});
    m->jnt_stiffness[0] = k;
    m->qpos_spring[0] = theta0;
    m->dof_armature[0] = arm;
    double g = 9.81, theta = 0.9, w = -1.3;
    d->qpos[0] = theta;
    d->qvel[0] = w;
    kinematics(m, d);
    gdn_energy(m, d);
    double U = -mass * g * L * cos(theta) + 0.5 * k * (theta - theta0) * (theta - theta0);
    double T = 0.5 * (mass * L * L + I[1] + arm) * w * w;
    CHECK_NEAR(d->energy[0], U, 1e-14, 1e-15);
    CHECK_NEAR(d->energy[1], T, 1e-14, 1e-15);
    m->opt.disableflags = GDN_DSBL_GRAVITY;
    gdn_energy(m, d);
    CHECK_NEAR(d->energy[0], 0.5 * k * (theta - theta0) * (theta - theta0), 1e-14, 1e-15);
    m->opt.disableflags = GDN_DSBL_GRAVITY | GDN_DSBL_PASSIVE;
    gdn_energy(m, d);
    CHECK(d->energy[0] == 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// kinetic energy = 0.5 v'Mv with M = sum_b m Jp'Jp + Jr' R I R' Jr + diag(armature), built
// from the Jacobians; potential springs of free and ball joints by hand
static int test_energy_tree(void) {
    unsigned long long rng = 31;
    gdnModel* m = build_model(kTreeSpecs, NTREE, 0, 6);
    gdnData* d = NULL;
    CHECK(m && gdn_data_create(m, &d) == GDN_OK);
    int nv = m->nv;
    double jacp[3 * 64], jacr[3 * 64];
    double worst = 0;
    for (int trial = 0; trial < 5; trial++) {
        random_state(m, d, &rng);
        kinematics(m, d);
        gdn_energy(m, d);
        double T = 0;
        for (int i = 0; i < nv; i++) {
            T += 0.5 * m->dof_armature[i] * d->qvel[i] * d->qvel[i];
        }
        for (int b = 1; b < m->nbody; b++) {
            gdn_jac_body_com(m, d, jacp, jacr, b);
            double v[3] = {0}, w[3] = {0}, wl[3];
            for (int r = 0; r < 3; r++) {
                for (int i = 0; i < nv; i++) {
                    v[r] += jacp[r * nv + i] * d->qvel[i];
                    w[r] += jacr[r * nv + i] * d->qvel[i];
                }
            }
            gdn_mulmat3T(wl, d->ximat + 9 * b, w);
            T += 0.5 * m->body_mass[b] * gdn_dot3(v, v);
            for (int k = 0; k < 3; k++) {
                T += 0.5 * m->body_inertia[3 * b + k] * wl[k] * wl[k];
            }
        }
        double U = 0;
        for (int b = 1; b < m->nbody; b++) {
            U += m->body_mass[b] * 9.81 * d->xipos[3 * b + 2];
        }
        for (int j = 0; j < m->njnt; j++) {
            const double* q = d->qpos + m->jnt_qposadr[j];
            const double* q0 = m->qpos_spring + m->jnt_qposadr[j];
            double kj = m->jnt_stiffness[j], dif[3];
            if (m->jnt_type[j] == GDN_JNT_FREE) {
                gdn_sub3(dif, q, q0);
                U += 0.5 * kj * gdn_dot3(dif, dif);
                gdn_quat_sub(dif, q + 3, q0 + 3);
                U += 0.5 * kj * gdn_dot3(dif, dif);
            } else if (m->jnt_type[j] == GDN_JNT_BALL) {
                gdn_quat_sub(dif, q, q0);
                U += 0.5 * kj * gdn_dot3(dif, dif);
            } else {
                U += 0.5 * kj * (q[0] - q0[0]) * (q[0] - q0[0]);
            }
        }
        worst = fmax(worst, fabs(d->energy[1] - T) / T);
        worst = fmax(worst, fabs(d->energy[0] - U) / fmax(1, fabs(U)));
    }
    printf("  energy vs Jacobian-built 0.5 v'Mv and hand springs: rel error %.2e\n", worst);
    CHECK(worst < 1e-13);
    CHECK(d->parena == 0);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

// ---------------------------------------------------------------- MuJoCo, stage by stage

// every error below: ||gradyn - MuJoCo||_inf / max(||MuJoCo||_inf, 1) over the whole array
// (gdn_test_relerr with floor 1)

enum { Q_JAC, Q_PASSIVE, Q_ACT_LEN, Q_ACT_VEL, Q_ACT_FORCE, Q_QFRC_ACT, Q_APPLIED, Q_ENERGY, NQ };
static const char* const kQName[NQ] = {"jac",         "qfrc_passive",  "actuator_length",
                                       "actuator_velocity", "actuator_force", "qfrc_actuator",
                                       "applied",     "energy"};

// 50 random states: MuJoCo's mj_forward, then our stages on MuJoCo's kinematics outputs
static int compare_stages(const char* path, double worst[NQ]) {
    char err[1024] = "";
    mjModel* mm = mj_loadXML(path, NULL, err, (int)sizeof(err));
    if (!mm) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    mm->opt.disableflags |= mjDSBL_CONSTRAINT;
    mm->opt.enableflags |= mjENBL_ENERGY;
    mjData* md = mj_makeData(mm);
    gdnModel* g = gdn_model_from_mujoco(mm);
    gdnData* d = NULL;
    int nv = mm->nv, nb = mm->nbody;
    double* buf = calloc((size_t)(12 * nv + 1), sizeof(double));
    CHECK(md && g && buf && gdn_data_create(g, &d) == GDN_OK);
    double local[NQ] = {0};
    unsigned long long rng = 77;
    for (int s = 0; s < 50; s++) {
        for (int j = 0; j < mm->njnt; j++) {
            double* q = md->qpos + mm->jnt_qposadr[j];
            if (mm->jnt_type[j] == mjJNT_FREE) {
                random_vec(&rng, q, 1);
                random_quat(&rng, q + 3);
            } else if (mm->jnt_type[j] == mjJNT_BALL) {
                random_quat(&rng, q);
            } else {
                q[0] = gdn_test_uniform(&rng, -3, 3);
            }
        }
        for (int i = 0; i < nv; i++) {
            md->qvel[i] = gdn_test_uniform(&rng, -2, 2);
            md->qfrc_applied[i] = gdn_test_uniform(&rng, -1, 1);
        }
        for (int i = 0; i < mm->nu; i++) {
            md->ctrl[i] = gdn_test_uniform(&rng, -1.3, 1.3);
        }
        for (int i = 6; i < 6 * nb; i++) {
            md->xfrc_applied[i] = gdn_test_uniform(&rng, -1, 1);
        }
        mj_forward(mm, md);
#define TAKE(field, n) memcpy(d->field, md->field, sizeof(double) * (size_t)(n))
        TAKE(qpos, mm->nq);
        TAKE(qvel, nv);
        TAKE(ctrl, mm->nu);
        TAKE(qfrc_applied, nv);
        TAKE(xfrc_applied, 6 * nb);
        TAKE(xpos, 3 * nb);
        TAKE(xmat, 9 * nb);
        TAKE(xipos, 3 * nb);
        TAKE(ximat, 9 * nb);
        TAKE(xanchor, 3 * mm->njnt);
        TAKE(xaxis, 3 * mm->njnt);
#undef TAKE
        gdn_passive(g, d);
        gdn_actuation(g, d);
        gdn_energy(g, d);
        double *gj = buf, *mj = buf + 6 * nv;
        for (int b = 0; b < nb; b++) {
            double point[3] = {md->xipos[3 * b] + 0.3, md->xipos[3 * b + 1] - 0.2,
                               md->xipos[3 * b + 2] + 0.1};
            gdn_jac_body(g, d, gj, gj + 3 * nv, b);
            mj_jacBody(mm, md, mj, mj + 3 * nv, b);
            local[Q_JAC] = fmax(local[Q_JAC], gdn_test_relerr(gj, mj, 6 * nv, 1));
            gdn_jac_body_com(g, d, gj, gj + 3 * nv, b);
            mj_jacBodyCom(mm, md, mj, mj + 3 * nv, b);
            local[Q_JAC] = fmax(local[Q_JAC], gdn_test_relerr(gj, mj, 6 * nv, 1));
            gdn_jac(g, d, gj, gj + 3 * nv, point, b);
            mj_jac(mm, md, mj, mj + 3 * nv, point, b);
            local[Q_JAC] = fmax(local[Q_JAC], gdn_test_relerr(gj, mj, 6 * nv, 1));
        }
        local[Q_PASSIVE] = fmax(local[Q_PASSIVE],
                                gdn_test_relerr(d->qfrc_passive, md->qfrc_passive, nv, 1));
        local[Q_ACT_LEN] =
            fmax(local[Q_ACT_LEN],
                 gdn_test_relerr(d->actuator_length, md->actuator_length, mm->nu, 1));
        local[Q_ACT_VEL] =
            fmax(local[Q_ACT_VEL],
                 gdn_test_relerr(d->actuator_velocity, md->actuator_velocity, mm->nu, 1));
        local[Q_ACT_FORCE] =
            fmax(local[Q_ACT_FORCE],
                 gdn_test_relerr(d->actuator_force, md->actuator_force, mm->nu, 1));
        local[Q_QFRC_ACT] =
            fmax(local[Q_QFRC_ACT], gdn_test_relerr(d->qfrc_actuator, md->qfrc_actuator, nv, 1));
        // applied: MuJoCo's qfrc_applied + sum_b mj_applyFT(xfrc_b at xipos_b)
        memset(gj, 0, sizeof(double) * (size_t)nv);
        gdn_applied_forces(g, d, gj);
        memcpy(mj, md->qfrc_applied, sizeof(double) * (size_t)nv);
        for (int b = 1; b < nb; b++) {
            mj_applyFT(mm, md, md->xfrc_applied + 6 * b, md->xfrc_applied + 6 * b + 3,
                       md->xipos + 3 * b, b, mj);
        }
        local[Q_APPLIED] = fmax(local[Q_APPLIED], gdn_test_relerr(gj, mj, nv, 1));
        local[Q_ENERGY] = fmax(local[Q_ENERGY], gdn_test_relerr(d->energy, md->energy, 1, 1));
        local[Q_ENERGY] = fmax(local[Q_ENERGY],
                               gdn_test_relerr(d->energy + 1, md->energy + 1, 1, 1));
    }
    const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("  %-22s", name);
    for (int q = 0; q < NQ; q++) {
        printf(" %s %.1e", kQName[q], local[q]);
        worst[q] = fmax(worst[q], local[q]);
    }
    printf("\n");
    free(buf);
    gdn_data_free(d);
    gdn_model_free(g);
    mj_deleteData(md);
    mj_deleteModel(mm);
    return 0;
}

// every model in tests/models, MuJoCo's humanoid.xml and the actuated model, to 1e-12
static int test_stages_vs_mujoco(void) {
    double worst[NQ] = {0};
    char path[1024];
    for (int i = 0; i < gdn_oracle_nmodels; i++) {
        snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, gdn_oracle_models[i]);
        CHECK(compare_stages(path, worst) == 0);
    }
    CHECK(compare_stages(GDN_ORACLE_MJ_HUMANOID, worst) == 0);
    const char* actuated = gdn_oracle_actuated_model_path("test_forces");
    CHECK(actuated);
    CHECK(compare_stages(actuated, worst) == 0);
    for (int q = 0; q < NQ; q++) {
        if (!(worst[q] <= 1e-12)) {
            fprintf(stderr, "%s: relative error %.3g > 1e-12\n", kQName[q], worst[q]);
            return 1;
        }
    }
    return 0;
}

static const gdnTestCase kCases[] = {
    {"kinematics_inputs", test_kinematics_inputs},
    {"jac_fd", test_jac_fd},
    {"jac_body", test_jac_body},
    {"jac_directional", test_jac_directional},
    {"applied_virtual_work", test_applied_virtual_work},
    {"passive_by_hand", test_passive_by_hand},
    {"actuation_by_hand", test_actuation_by_hand},
    {"energy_pendulum", test_energy_pendulum},
    {"energy_tree", test_energy_tree},
    {"stages_vs_mujoco", test_stages_vs_mujoco},
};

GDN_TEST_MAIN(kCases)
