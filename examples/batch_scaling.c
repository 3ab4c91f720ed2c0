// SPDX-License-Identifier: Apache-2.0
// Thread scaling of the batch calls: a humanoid batch of rollouts and gradients on 1 and 2
// threads (usage: gradyn_batch_scaling [MODEL.xml [NBATCH [T [REPEATS]]]]).
#include <stdio.h>
#include <stdlib.h>

#include <gradyn/batch.h>

#include "demo_timing.h"

// the best wall time of repeats calls of the rollout (grad 0) or gradient batch (grad 1)
static double best_time(const gdnModel* m, int nb, int T, int nthread, int grad, int repeats,
                        const double* q0, const double* v0, const double* u, const double* cq,
                        double* qpos, double* qvel, double* gq, gdnBatchStatus* st,
                        int* failed) {
    const gdnModel* ms[1] = {m};
    gdnBatchGradients g = {.qpos0 = gq};
    char err[256];
    double best = 1e30;
    for (int r = 0; r < repeats; r++) {
        double t0 = demo_now_seconds();
        gdnStatus s = grad ? gdn_adjoint_batch(ms, 1, nb, T, q0, v0, u, cq, NULL, nthread, &g,
                                               st, err, sizeof(err))
                           : gdn_rollout_batch(ms, 1, nb, T, q0, v0, u, nthread, qpos, qvel,
                                               NULL, st, err, sizeof(err));
        double dt = demo_now_seconds() - t0;
        best = dt < best ? dt : best;
        if (s != GDN_OK) {
            fprintf(stderr, "%s\n", err);
            *failed = 1;
            return best;
        }
        for (int b = 0; b < nb; b++) {
            if (st[b].status != GDN_OK) {
                fprintf(stderr, "%s\n", st[b].message);
                *failed = 1;
            }
        }
    }
    return best;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "/usr/share/mujoco/model/humanoid/humanoid.xml";
    const int nb = argc > 2 ? atoi(argv[2]) : 8, T = argc > 3 ? atoi(argv[3]) : 1000;
    const int repeats = argc > 4 ? atoi(argv[4]) : 5;
    gdnModel* m = NULL;
    char err[512];
    if (nb <= 0 || T <= 0 || repeats <= 0 ||
        gdn_load_xml(path, &m, err, sizeof(err), NULL, 0) != GDN_OK) {
        fprintf(stderr, "usage: gradyn_batch_scaling [MODEL.xml [NBATCH [T [REPEATS]]]]%s%s\n",
                m ? "" : ": ", m ? "" : err);
        return 2;
    }
    // inputs: the model's qpos0, zero velocity, small deterministic controls; the cotangent
    // asks for d qpos_T[2] (a free base's height)
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nu = (size_t)m->nu;
    double* q0 = malloc(sizeof(double) * (size_t)nb * nq + 8);
    double* v0 = calloc((size_t)nb * nv + 1, sizeof(double));
    double* u = malloc(sizeof(double) * (size_t)nb * (size_t)T * nu + 8);
    double* cq = calloc((size_t)nb * (size_t)(T + 1) * nq + 1, sizeof(double));
    double* qpos = malloc(sizeof(double) * (size_t)nb * (size_t)(T + 1) * nq + 8);
    double* qvel = malloc(sizeof(double) * (size_t)nb * (size_t)(T + 1) * nv + 8);
    double* gq = malloc(sizeof(double) * (size_t)nb * nq + 8);
    gdnBatchStatus* st = malloc(sizeof(gdnBatchStatus) * (size_t)nb);
    if (!q0 || !v0 || !u || !cq || !qpos || !qvel || !gq || !st) {
        return 1;
    }
    for (int b = 0; b < nb; b++) {
        for (size_t i = 0; i < nq; i++) {
            q0[(size_t)b * nq + i] = m->qpos0[i];
        }
        if (nq > 2) {
            cq[(size_t)b * (size_t)(T + 1) * nq + (size_t)T * nq + 2] = 1;
        }
    }
    for (size_t i = 0; i < (size_t)nb * (size_t)T * nu; i++) {
        u[i] = 0.4 * (double)((i * 2654435761u) % 1000) / 1000.0 - 0.2;
    }
    // 1 and 2 threads, each call's best of repeats
    int failed = 0;
    for (int grad = 0; grad < 2; grad++) {
        double t1 = best_time(m, nb, T, 1, grad, repeats, q0, v0, u, cq, qpos, qvel, gq, st,
                              &failed);
        double t2 = best_time(m, nb, T, 2, grad, repeats, q0, v0, u, cq, qpos, qvel, gq, st,
                              &failed);
        printf("%s batch, %d x %d steps: 1 thread %.1f ms, 2 threads %.1f ms: %.2fx\n",
               grad ? "gradient" : "rollout", nb, T, t1 * 1e3, t2 * 1e3, t1 / t2);
    }
    free(q0);
    free(v0);
    free(u);
    free(cq);
    free(qpos);
    free(qvel);
    free(gq);
    free(st);
    gdn_model_free(m);
    return failed;
}
