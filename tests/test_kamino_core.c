// SPDX-License-Identifier: Apache-2.0
// Kamino core: MJCF solver selection, free fall against the discrete solution, joint rows
// against central differences of the residuals (every joint type, loop closures), D symmetric
// PSD, joint recovery, N identical worlds bit-identical to one, reset masks, refused models.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/gradyn.h>
#include <gradyn/kamino.h>

#include "kamino/kamino.h"
#include "kamino/rot.h"
#include "math/vec.h"
#include "runner/test.h"

static char g_err[2048], g_warn[2048];

static gdnModel* load(const char* name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", GDN_TEST_MODELS, name);
    gdnModel* m = NULL;
    if (gdn_load_xml(path, &m, g_err, sizeof(g_err), g_warn, sizeof(g_warn)) != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", path, g_err);
        return NULL;
    }
    return m;
}

static gdnStatus load_string(const char* xml, gdnModel** m) {
    return gdn_load_xml_string(xml, strlen(xml), NULL, m, g_err, sizeof(g_err), g_warn,
                               sizeof(g_warn));
}

// the custom fields select the solver and set the restitution
static int test_mjcf_custom(void) {
    gdnModel* m = load("kamino_freefall.xml");
    CHECK(m);
    CHECK(m->opt.gradyn_solver == 1);
    gdn_model_free(m);
    const char* xml = "<mujoco><custom><text name=\"gradyn_solver\" data=\"mujoco\"/>"
                      "<numeric name=\"kamino_restitution\" data=\"0.5\"/></custom>"
                      "<worldbody/></mujoco>";
    CHECK(load_string(xml, &m) == GDN_OK);
    CHECK(m->opt.gradyn_solver == 0 && m->opt.kamino_restitution == 0.5);
    gdnKaminoModel* km = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_model_settings(km)->restitution == 0.5);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    const char* bad = "<mujoco><custom><text name=\"gradyn_solver\" data=\"physx\"/></custom>"
                      "<worldbody/></mujoco>";
    CHECK(load_string(bad, &m) == GDN_ERR_MODEL);
    CHECK(strstr(g_err, "gradyn_solver"));
    const char* bad2 = "<mujoco><custom><numeric name=\"kamino_restitution\" data=\"2\"/>"
                       "</custom><worldbody/></mujoco>";
    CHECK(load_string(bad2, &m) == GDN_ERR_MODEL);
    return 0;
}

// free fall: v_n = n h g, x_n = x0 + h^2 g n (n + 1) / 2 (semi-implicit Euler exactly)
static int test_free_fall(void) {
    gdnModel* m = load("kamino_freefall.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    double h = m->opt.timestep, g = m->opt.gravity[2], z0 = w->body_pos[5];
    double maxerr = 0;
    for (int n = 1; n <= 1000; n++) {
        CHECK(gdn_kamino_step(km, kd) == GDN_OK);
        double z = z0 + h * h * g * n * (n + 1) / 2, v = n * h * g;
        maxerr = fmax(maxerr, fabs(w->body_pos[5] - z));
        maxerr = fmax(maxerr, fabs(w->body_u[8] - v));
        CHECK(w->status.nrow == 0 && w->status.converged);
    }
    printf("  free fall: max |x - x_n|, |v - v_n| over 1000 steps = %.3g\n", maxerr);
    CHECK(maxerr <= 1e-12);
    CHECK(w->body_pos[3] == 0 && w->body_pos[4] == 0);
    CHECK_NEAR(w->body_qdd[8], g, 1e-12, 0);
    CHECK_NEAR(w->qpos[2], w->body_pos[5], 0, 1e-15); // COM at the body origin
    CHECK_NEAR(w->qvel[2], w->body_u[8], 0, 1e-15);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

static double urand(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0 * 2 - 1;
}

// pose of every moving body advanced by eps * u (COM, exponential map)
static void perturb(const gdnKaminoModel* km, gdnKWorld* w, const double* pos,
                    const double* quat, const double* u, double eps) {
    for (int b = 1; b < km->nbody; b++) {
        double* x = w->pub.body_pos + 3 * b;
        double* q = w->pub.body_quat + 4 * b;
        gdn_copy3(x, pos + 3 * b);
        gdn_copy4(q, quat + 4 * b);
        if (!km->moving[b]) {
            continue;
        }
        gdn_addscl3(x, x, u + 6 * b, eps);
        double axis[3] = {u[6 * b + 3], u[6 * b + 4], u[6 * b + 5]};
        double ang = eps * gdn_normalize3(axis), dq[4];
        gdn_axisangle2quat(dq, axis, ang);
        gdn_mulquat(q, dq, q);
        gdn_normalize4(q);
    }
    gdn_kamino_body_frames(km, w);
}

// J u against (r(q + eps u) - r(q - eps u)) / (2 eps) for every block, and the curvature
// (d^2 r / dt^2 at the constant twists u) against (r(q + e u) - 2 r(q) + r(q - e u)) / e^2;
// blocks with eq >= 0 only when check_eq (satisfied at qpos0), the others at random joint
// coordinates
static int check_rows(const gdnKaminoModel* km, gdnKaminoData* kd, int check_eq, unsigned seed,
                      double* worst, double* worst_curv) {
    gdnKWorld* w = kd->world;
    int nb = km->nbody;
    double pos[3 * 64], quat[4 * 64], u[6 * 64], rp[32], rm[32], r0[32], curv[32], u_saved[6 * 64];
    gdnKRow rows[32];
    for (int k = 0; k < 6 * nb; k++) {
        u[k] = urand(&seed);
    }
    memcpy(u_saved, w->pub.body_u, 6 * (size_t)nb * sizeof(double));
    memcpy(w->pub.body_u, u, 6 * (size_t)nb * sizeof(double));
    memcpy(pos, w->pub.body_pos, 3 * (size_t)nb * sizeof(double));
    memcpy(quat, w->pub.body_quat, 4 * (size_t)nb * sizeof(double));
    for (int j = 0; j < km->njoint; j++) {
        const gdnKJoint* jb = km->joint + j;
        if ((jb->eq >= 0) != check_eq) {
            continue;
        }
        perturb(km, w, pos, quat, u, 0);
        gdn_kamino_block_rows(km, w, j, r0, rows, curv);
        for (int i = 0; i < jb->nrow; i++) {
            if (fabs(r0[i]) > 1e-12) {
                fprintf(stderr, "block %d (type %d) row %d: residual %.3g at a satisfied pose\n", j,
                        jb->type, i, r0[i]);
                return 1;
            }
        }
        // the curvature: e = 1e-4 keeps the truncation (e^2 |r^(4)| / 12) and the rounding
        // (1e-16 |r| / e^2, with |r(+-e)| ~ e |J u|) both near 1e-9
        const double ec = 1e-4;
        perturb(km, w, pos, quat, u, ec);
        gdn_kamino_block_rows(km, w, j, rp, NULL, NULL);
        perturb(km, w, pos, quat, u, -ec);
        gdn_kamino_block_rows(km, w, j, rm, NULL, NULL);
        for (int i = 0; i < jb->nrow; i++) {
            const double fd = (rp[i] - 2 * r0[i] + rm[i]) / (ec * ec);
            const double err = fabs(fd - curv[i]);
            *worst_curv = fmax(*worst_curv, err);
            if (!(err <= 1e-6 * fmax(1, fabs(fd)))) {
                fprintf(stderr, "block %d (type %d) row %d: curvature %.12g, FD %.12g\n", j,
                        jb->type, i, curv[i], fd);
                return 1;
            }
        }
        double eps = 1e-6;
        perturb(km, w, pos, quat, u, eps);
        gdn_kamino_block_rows(km, w, j, rp, NULL, NULL);
        perturb(km, w, pos, quat, u, -eps);
        gdn_kamino_block_rows(km, w, j, rm, NULL, NULL);
        perturb(km, w, pos, quat, u, 0);
        for (int i = 0; i < jb->nrow; i++) {
            double fd = (rp[i] - rm[i]) / (2 * eps), ju = 0;
            for (int k = 0; k < 6; k++) {
                if (rows[i].a >= 0) {
                    ju += rows[i].ja[k] * u[6 * rows[i].a + k];
                }
                if (rows[i].b >= 0) {
                    ju += rows[i].jb[k] * u[6 * rows[i].b + k];
                }
            }
            double err = fabs(fd - ju);
            *worst = fmax(*worst, err);
            if (err > 1e-7 * fmax(1, fabs(ju))) {
                fprintf(stderr, "block %d (type %d) row %d: J u = %.12g, FD = %.12g\n", j,
                        jb->type, i, ju, fd);
                return 1;
            }
        }
    }
    memcpy(w->pub.body_u, u_saved, 6 * (size_t)nb * sizeof(double));
    return 0;
}

// every joint type's rows against central differences; joint recovery returns the qpos
static int test_joint_rows(void) {
    gdnModel* m = load("kamino_joints.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), g_warn, sizeof(g_warn)) ==
          GDN_OK);
    CHECK(km->nbody <= 64);
    int seen[9] = {0};
    for (int j = 0; j < km->njoint; j++) {
        if (km->joint[j].type < 9) {
            seen[km->joint[j].type] = 1;
        }
    }
    for (int t = 0; t < 9; t++) {
        CHECK(seen[t]);
    }
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    double worst = 0, worst_curv = 0;
    // loop closures: satisfied at qpos0 (the compiler's anchors and relpose)
    CHECK(check_rows(km, kd, 1, 7, &worst, &worst_curv) == 0);
    unsigned seed = 12345;
    double* qpos = calloc((size_t)m->nq, sizeof(double));
    double* qvel = calloc((size_t)m->nv, sizeof(double));
    for (int trial = 0; trial < 5; trial++) {
        memcpy(qpos, m->qpos0, (size_t)m->nq * sizeof(double));
        for (int jn = 0; jn < m->njnt; jn++) {
            int a = m->jnt_qposadr[jn], t = m->jnt_type[jn];
            if (t == GDN_JNT_HINGE || t == GDN_JNT_SLIDE) {
                qpos[a] += 1.2 * urand(&seed);
            } else if (t == GDN_JNT_BALL) {
                double q[4] = {1, 0.5 * urand(&seed), 0.5 * urand(&seed), 0.5 * urand(&seed)};
                gdn_normalize4(q);
                memcpy(qpos + a, q, sizeof(q));
            } else {
                for (int k = 0; k < 3; k++) {
                    qpos[a + k] += 0.3 * urand(&seed);
                }
                double q[4] = {1, 0.4 * urand(&seed), 0.4 * urand(&seed), 0.4 * urand(&seed)};
                gdn_normalize4(q);
                memcpy(qpos + a + 3, q, sizeof(q));
            }
        }
        for (int k = 0; k < m->nv; k++) {
            qvel[k] = urand(&seed);
        }
        CHECK(gdn_kamino_reset(km, kd, NULL, qpos, qvel) == GDN_OK);
        CHECK(check_rows(km, kd, 0, 99 + (unsigned)trial, &worst, &worst_curv) == 0);
        // recovery: the body poses and twists of MJCF kinematics give back qpos, qvel
        gdnKWorld* w = kd->world;
        gdnKaminoWorld* pw = gdn_kamino_world(kd, 0);
        // the last joint state: qpos0 (gimbal angles: Newton from the last angles, here up to
        // 1.2 rad away)
        for (int k = 0; k < m->nq; k++) {
            pw->qpos[k] = m->qpos0[k];
        }
        gdn_kamino_recover_joints(km, w);
        for (int jn = 0; jn < m->njnt; jn++) {
            int a = m->jnt_qposadr[jn], nq = gdn_joint_nq(m->jnt_type[jn]);
            int v = m->jnt_dofadr[jn], nv = gdn_joint_nv(m->jnt_type[jn]);
            for (int k = 0; k < nq; k++) {
                double want = qpos[a + k];
                if (m->jnt_type[jn] == GDN_JNT_BALL || (m->jnt_type[jn] == GDN_JNT_FREE && k >= 3)) {
                    // quaternions up to sign
                    int q0 = m->jnt_type[jn] == GDN_JNT_BALL ? a : a + 3;
                    double s = qpos[q0] * pw->qpos[q0] + qpos[q0 + 1] * pw->qpos[q0 + 1] +
                               qpos[q0 + 2] * pw->qpos[q0 + 2] + qpos[q0 + 3] * pw->qpos[q0 + 3];
                    want *= s < 0 ? -1 : 1;
                }
                if (fabs(pw->qpos[a + k] - want) > 1e-10) {
                    fprintf(stderr, "joint %d qpos[%d] = %.15g, want %.15g\n", jn, k,
                            pw->qpos[a + k], want);
                    return 1;
                }
            }
            for (int k = 0; k < nv; k++) {
                if (fabs(pw->qvel[v + k] - qvel[v + k]) > 1e-10) {
                    fprintf(stderr, "joint %d qvel[%d] = %.15g, want %.15g\n", jn, k,
                            pw->qvel[v + k], qvel[v + k]);
                    return 1;
                }
            }
        }
    }
    printf("  joint rows: max |J u - FD| = %.3g (eps 1e-6), max |curvature - FD| = %.3g (eps "
           "1e-4) over 9 joint types + connect/weld\n",
           worst, worst_curv);
    free(qpos);
    free(qvel);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// D = J M^-1 J' symmetric and PSD (its Cholesky with a tiny shift succeeds, x' D x >= 0)
static int test_delassus(void) {
    gdnModel* m = load("kamino_joints.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKWorld* w = kd->world;
    gdn_kamino_body_frames(km, w);
    gdn_kamino_joint_rows(km, w);
    int n = km->nbilateral;
    gdn_kamino_free_velocity(km, w, w->pub.xfrc_applied, m->opt.timestep);
    gdn_kamino_assemble(km, w, n, n, 0, 0, m->opt.timestep);
    // D is stored as its lower triangle inside the envelope (w->env: row i from column
    // first[i]); mirror it into a full symmetric copy for the checks below
    double maxd = 0;
    double* Dfull = calloc((size_t)n * n, sizeof(double));
    CHECK(Dfull);
    for (int i = 0; i < n; i++) {
        maxd = fmax(maxd, w->D[i * n + i]);
        CHECK(w->env.first[i] >= 0 && w->env.first[i] <= i);
        for (int k = w->env.first[i]; k <= i; k++) {
            Dfull[i * n + k] = Dfull[k * n + i] = w->D[i * n + k];
        }
    }
    // D against the explicit product J M^-1 J' from dense J (6 nbody columns)
    int nc = 6 * km->nbody;
    double* J = calloc((size_t)n * nc, sizeof(double));
    double* MJ = calloc((size_t)n * nc, sizeof(double));
    for (int i = 0; i < n; i++) {
        const gdnKRow* r = w->rows + i;
        for (int k = 0; k < 6; k++) {
            if (r->a >= 0) {
                J[i * nc + 6 * r->a + k] += r->ja[k];
                MJ[i * nc + 6 * r->a + k] += w->minvj[12 * i + k];
            }
            if (r->b >= 0) {
                J[i * nc + 6 * r->b + k] += r->jb[k];
                MJ[i * nc + 6 * r->b + k] += w->minvj[12 * i + 6 + k];
            }
        }
    }
    double derr = 0, minq = 1e300;
    unsigned seed = 3;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) {
            double v = 0;
            for (int c = 0; c < nc; c++) {
                v += J[i * nc + c] * MJ[k * nc + c];
            }
            // outside the envelope the product must be an exact zero (no shared body)
            const int hi = i > k ? i : k, lo = i + k - hi;
            CHECK(lo >= w->env.first[hi] || v == 0);
            derr = fmax(derr, fabs(v - Dfull[i * n + k]));
        }
    }
    for (int t = 0; t < 100; t++) {
        double x[64], q = 0;
        for (int i = 0; i < n; i++) {
            x[i] = urand(&seed);
        }
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < n; k++) {
                q += x[i] * Dfull[i * n + k] * x[k];
            }
        }
        minq = fmin(minq, q);
    }
    printf("  D: %d rows, max |D - J M^-1 J'| = %.3g, min x'Dx over 100 draws = %.3g\n", n, derr,
           minq);
    CHECK(derr <= 1e-12 * fmax(1, maxd));
    CHECK(minq >= -1e-12 * maxd);
    free(J);
    free(MJ);
    free(Dfull);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// N identical worlds: bit-identical to one world, stepped together; reset with a mask
static int test_many_worlds(void) {
    gdnModel* m = load("kamino_fourbar.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData *one = NULL, *four = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &one) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 4, &four) == GDN_OK);
    double q0[3] = {0.3, 0, 0};
    // a consistent start: qpos0 at rest, the crank pushed by a torque for a while
    for (int s = 0; s < 1000; s++) {
        gdn_kamino_world(one, 0)->xfrc_applied[6 * 1 + 4] = 0.01;
        for (int w = 0; w < 4; w++) {
            gdn_kamino_world(four, w)->xfrc_applied[6 * 1 + 4] = 0.01;
        }
        CHECK(gdn_kamino_step(km, one) == GDN_OK);
        CHECK(gdn_kamino_step(km, four) == GDN_OK);
    }
    int nb = km->nbody;
    for (int w = 0; w < 4; w++) {
        gdnKaminoWorld* a = gdn_kamino_world(one, 0);
        gdnKaminoWorld* b = gdn_kamino_world(four, w);
        CHECK(!memcmp(a->body_pos, b->body_pos, 3 * (size_t)nb * sizeof(double)));
        CHECK(!memcmp(a->body_quat, b->body_quat, 4 * (size_t)nb * sizeof(double)));
        CHECK(!memcmp(a->body_u, b->body_u, 6 * (size_t)nb * sizeof(double)));
        CHECK(!memcmp(a->qpos, b->qpos, (size_t)m->nq * sizeof(double)));
        CHECK(a->status.iterations == b->status.iterations);
    }
    // reset world 2 only
    unsigned char mask[4] = {0, 0, 1, 0};
    (void)q0;
    CHECK(gdn_kamino_reset(km, four, mask, NULL, NULL) == GDN_OK);
    CHECK(gdn_kamino_world(four, 2)->time == 0 && gdn_kamino_world(four, 1)->time > 0);
    CHECK(gdn_kamino_world(four, 2)->qpos[0] == m->qpos0[0]);
    CHECK(gdn_kamino_world(four, 1)->qpos[0] != m->qpos0[0]);
    CHECK(gdn_kamino_world(four, 4) == NULL);
    gdn_kamino_data_free(one);
    gdn_kamino_data_free(four);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// gdn_kamino_body_point against the MJCF kinematics (gdn_forward) at a joint state, and
// gdn_kamino_connect_error against the connects' anchors there; bad arguments are harmless
static int test_measure(void) {
    gdnModel* m = load("kamino_mech_fourbar.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    gdnData* d = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    // a joint state that opens the loop (the crank turned alone by 0.2 rad)
    for (int i = 0; i < m->nq; i++) {
        d->qpos[i] = m->qpos0[i];
    }
    d->qpos[m->jnt_qposadr[gdn_name2id(m, "joint", "crank")]] += 0.2;
    CHECK(gdn_kamino_reset(km, kd, NULL, d->qpos, NULL) == GDN_OK);
    CHECK(gdn_forward(m, d) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    const double local[3] = {0.03, -0.02, 0.05};
    double err = 0;
    for (int b = 0; b < m->nbody; b++) {
        double p[3], q[3];
        gdn_kamino_body_point(km, w, b, local, p);
        for (int k = 0; k < 3; k++) {
            q[k] = d->xpos[3 * b + k] + d->xmat[9 * b + 3 * k] * local[0] +
                   d->xmat[9 * b + 3 * k + 1] * local[1] + d->xmat[9 * b + 3 * k + 2] * local[2];
            err = fmax(err, fabs(p[k] - q[k]));
        }
    }
    double gap = 0;
    for (int e = 0; e < m->neq; e++) {
        const double* data = m->eq_data + GDN_NEQDATA * e;
        const int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
        double dd = 0;
        for (int k = 0; k < 3; k++) {
            const double* R1 = d->xmat + 9 * b1 + 3 * k;
            const double* R2 = d->xmat + 9 * b2 + 3 * k;
            const double p1 = d->xpos[3 * b1 + k] + R1[0] * data[0] + R1[1] * data[1] +
                              R1[2] * data[2];
            const double p2 = d->xpos[3 * b2 + k] + R2[0] * data[3] + R2[1] * data[4] +
                              R2[2] * data[5];
            dd += (p1 - p2) * (p1 - p2);
        }
        gap = fmax(gap, sqrt(dd));
    }
    const double ce = gdn_kamino_connect_error(km, w);
    printf("  body points vs gdn_forward: %.3g m; connect error %.9f m (kinematics %.9f m)\n", err,
           ce, gap);
    CHECK(err < 1e-14);
    CHECK(gap > 1e-3 && fabs(ce - gap) < 1e-14);
    // bad arguments: nothing written, NAN
    double out[3] = {7, 7, 7};
    gdn_kamino_body_point(km, w, m->nbody, local, out);
    gdn_kamino_body_point(km, w, -1, local, out);
    gdn_kamino_body_point(NULL, w, 0, local, out);
    CHECK(out[0] == 7 && out[1] == 7 && out[2] == 7);
    CHECK(isnan(gdn_kamino_connect_error(NULL, w)) && isnan(gdn_kamino_connect_error(km, NULL)));
    gdn_data_free(d);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

// configurations without a Kamino equivalent are refused with a message naming the body
static int test_refused(void) {
    struct {
        const char* xml;
        const char* msg;
    } cases[] = {
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"hinge\" axis=\"1 0 0\"/>"
         "<joint type=\"slide\" axis=\"0 1 0\"/><geom size=\"0.1\"/></body></worldbody></mujoco>",
         "one axis"},
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"hinge\" axis=\"1 0 0\"/>"
         "<joint type=\"hinge\" axis=\"1 0 0\"/><geom size=\"0.1\"/></body></worldbody></mujoco>",
         "non-parallel"},
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"hinge\" axis=\"1 0 0\"/>"
         "<joint type=\"ball\"/><geom size=\"0.1\"/></body></worldbody></mujoco>",
         "no Kamino joint"},
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"slide\" axis=\"1 0 0\"/>"
         "<joint type=\"slide\" axis=\"0 1 0\"/><joint type=\"slide\" axis=\"1 1 0\"/>"
         "<geom size=\"0.1\"/></body></worldbody></mujoco>",
         "independent"},
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"hinge\" axis=\"1 0 0\"/>"
         "<geom size=\"0.1\"/><body name=\"site\"><site/></body></body></worldbody></mujoco>",
         "massless"},
        {"<mujoco><worldbody><body name=\"b\"><joint type=\"ball\" limited=\"true\" "
         "range=\"0 1\"/><geom size=\"0.1\"/></body></worldbody></mujoco>",
         "joint limits"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gdnModel* m = NULL;
        if (load_string(cases[i].xml, &m) != GDN_OK) {
            fprintf(stderr, "case %zu: load: %s\n", i, g_err);
            return 1;
        }
        gdnKaminoModel* km = NULL;
        gdnStatus st = gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0);
        printf("  refused %zu: %s\n", i, g_err);
        CHECK(st == GDN_ERR_UNSUPPORTED || st == GDN_ERR_MODEL);
        CHECK(km == NULL);
        CHECK(strstr(g_err, cases[i].msg));
        gdn_model_free(m);
    }
    // bad settings
    gdnModel* m = load("kamino_pendulum.xml");
    CHECK(m);
    gdnKaminoSettings s;
    gdn_kamino_settings_default(&s);
    s.alpha = 2;
    gdnKaminoModel* km = NULL;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) == GDN_ERR_ARG);
    gdn_kamino_settings_default(&s);
    s.backend = GDN_KAMINO_DVI;
    CHECK(gdn_kamino_model_create(m, &s, &km, g_err, sizeof(g_err), NULL, 0) ==
          GDN_ERR_UNSUPPORTED);
    CHECK(gdn_kamino_model_create(NULL, NULL, &km, NULL, 0, NULL, 0) == GDN_ERR_ARG);
    CHECK(gdn_kamino_step(NULL, NULL) == GDN_ERR_ARG);
    gdn_model_free(m);
    return 0;
}

// disable flags: joints stay rows, CONSTRAINT / EQUALITY drop the loop closures
static int test_disable_flags(void) {
    gdnModel* m = load("kamino_fourbar.xml");
    CHECK(m);
    gdnKaminoModel* km = NULL;
    gdnKaminoData* kd = NULL;
    CHECK(gdn_kamino_model_create(m, NULL, &km, g_err, sizeof(g_err), NULL, 0) == GDN_OK);
    CHECK(gdn_kamino_data_create(km, 1, &kd) == GDN_OK);
    gdnKaminoWorld* w = gdn_kamino_world(kd, 0);
    CHECK(gdn_kamino_step(km, kd) == GDN_OK);
    CHECK(w->status.nbilateral == 18 && w->nrow == 18);
    m->opt.disableflags |= GDN_DSBL_EQUALITY;
    CHECK(gdn_kamino_step(km, kd) == GDN_OK);
    CHECK(w->status.nbilateral == 15);
    m->opt.disableflags = GDN_DSBL_CONSTRAINT;
    CHECK(gdn_kamino_step(km, kd) == GDN_OK);
    CHECK(w->status.nbilateral == 15);
    gdn_kamino_data_free(kd);
    gdn_kamino_model_free(km);
    gdn_model_free(m);
    return 0;
}

int main(int argc, char** argv) {
    static const gdnTestCase cases[] = {
        {"mjcf_custom", test_mjcf_custom}, {"free_fall", test_free_fall},
        {"joint_rows", test_joint_rows},   {"delassus", test_delassus},
        {"many_worlds", test_many_worlds}, {"measure", test_measure},
        {"refused", test_refused},
        {"disable_flags", test_disable_flags},
    };
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
